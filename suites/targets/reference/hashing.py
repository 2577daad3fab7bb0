"""Reference target: capability ``hash``."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.hashing import hash_value
from iceberg_conformance.reference.values import from_json
from iceberg_conformance.suites.api import HASH
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class HashingMixin:
    CAPABILITIES = frozenset({HASH})

    def hash(self, type_: Any, value: Any) -> int:
        t = typ(type_)
        with rejecting():
            return hash_value(t, from_json(t, value))
