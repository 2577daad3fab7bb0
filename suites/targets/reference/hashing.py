"""Reference target: capability ``hash``."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.hashing import hash_value
from iceberg_conformance.reference.types import UnknownType
from iceberg_conformance.reference.values import from_json, value_from_json
from iceberg_conformance.suites.api import HASH
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class HashingMixin:
    CAPABILITIES = frozenset({HASH})

    def hash(self, type_: Any, value: Any) -> int | None:
        t = typ(type_)
        with rejecting():
            # unknown's only value is null (JSON null); other types' values are not null here
            v = value_from_json(t, value) if isinstance(t, UnknownType) else from_json(t, value)
            return hash_value(t, v)
