"""Reference target: capability ``binary`` (Appendix D binary single values)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.binary import from_bytes, to_bytes
from iceberg_conformance.reference.values import from_json, to_json
from iceberg_conformance.suites.api import BINARY
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class BinaryMixin:
    CAPABILITIES = frozenset({BINARY})

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        t = typ(type_)
        with rejecting():
            return to_bytes(t, from_json(t, value))

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        t = typ(type_)
        with rejecting():
            return to_json(t, from_bytes(t, data))
