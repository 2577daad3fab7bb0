"""Java target: capability ``binary`` (Appendix D) via ``Conversions.toByteBuffer``/``fromByteBuffer``."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import BINARY
from iceberg_conformance.suites.targets.java._oracle import call


class BinaryMixin:
    CAPABILITIES = frozenset({BINARY})

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        return bytes.fromhex(call("to_bytes", type=type_, value=value))

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        return call("from_bytes", type=type_, data=bytes(data).hex())
