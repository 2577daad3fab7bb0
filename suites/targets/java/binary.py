"""Java target: capability ``binary`` (Appendix D) via ``Conversions.toByteBuffer``/``fromByteBuffer``."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.suites.api import BINARY, Rejected, Unsupported
from iceberg_conformance.suites.targets.java._oracle import call


def _geo(type_: Any) -> bool:
    return isinstance(type_, str) and type_.split("(")[0].strip() in ("geometry", "geography")


@contextmanager
def geo_unsupported(type_: Any) -> Iterator[None]:
    """Iceberg Java 1.10.2's ``Conversions`` and ``SingleValueParser`` have no geometry or
    geography case: they throw ``UnsupportedOperationException`` ("Cannot deserialize type:
    geometry") for every value, valid or not. That is a missing capability, not a refusal."""
    try:
        yield
    except Rejected as e:
        if _geo(type_) and "UnsupportedOperationException" in str(e):
            raise Unsupported(f"Iceberg Java has no {type_} single values: {e}") from None
        raise


class BinaryMixin:
    CAPABILITIES = frozenset({BINARY})

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        with geo_unsupported(type_):
            return bytes.fromhex(call("to_bytes", type=type_, value=value))

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        with geo_unsupported(type_):
            return call("from_bytes", type=type_, data=bytes(data).hex())
