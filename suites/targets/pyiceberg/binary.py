"""PyIceberg target: capability ``binary`` (``pyiceberg.conversions.to_bytes`` / ``from_bytes``).

Values cross in JSON single-value form. Inputs are turned into PyIceberg's Python values by
the kit's plumbing (:mod:`suites.targets.pyiceberg._convert`), so these tests do not depend on
PyIceberg's JSON parsing. Results are turned into JSON here without normalising them: a
decimal keeps the scale PyIceberg gave it, a uuid of the wrong length shows as its hex.
"""

from __future__ import annotations

import math
import struct
import uuid
from decimal import Decimal
from typing import Any

from iceberg_conformance.suites.api import BINARY, Rejected, Unsupported
from iceberg_conformance.suites.targets.pyiceberg._convert import InputConversionError, from_native, iceberg_type, to_native

#: What PyIceberg raises when it refuses input (wrong length, bad UTF-8, out of range, not a
#: decimal: ArithmeticError covers OverflowError and decimal.InvalidOperation).
REFUSALS = (ValueError, TypeError, ArithmeticError, struct.error)


def _type(type_: Any) -> Any:
    try:
        return iceberg_type(type_)
    except InputConversionError as e:
        raise Unsupported(f"pyiceberg has no type {type_!r}: {e}") from None


def _no_geo(pt: Any) -> None:
    """PyIceberg 0.12 keeps geometry/geography values as uninterpreted bytes: ``from_bytes`` and
    ``to_bytes`` pass them through without reading WKB, and ``to_json``/``from_json`` (WKT) raise
    ``NotImplementedError``. A test of its binary form would test this kit's WKB reading."""
    from pyiceberg import types as pty

    if isinstance(pt, (pty.GeometryType, pty.GeographyType)):
        raise Unsupported(f"pyiceberg keeps {pt} values as uninterpreted bytes (it reads no WKB, has no WKT)")


def result_json(type_: Any, pt: Any, value: Any) -> Any:
    """The JSON single-value form of a value PyIceberg returned, kept as PyIceberg gave it."""
    from pyiceberg import types as pty

    if value is None:
        return None
    if isinstance(pt, pty.UUIDType):
        raw = value.bytes if isinstance(value, uuid.UUID) else bytes(value)
        return str(uuid.UUID(bytes=raw)) if len(raw) == 16 else raw.hex()
    if isinstance(pt, pty.DecimalType) and isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(pt, (pty.FloatType, pty.DoubleType)) and isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(pt, (pty.FixedType, pty.BinaryType)) and isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    try:
        return from_native(type_, value)
    except InputConversionError as e:
        return f"<not convertible: {value!r} ({e})>"


class BinaryMixin:
    CAPABILITIES = frozenset({BINARY})

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        from pyiceberg import conversions

        pt = _type(type_)
        _no_geo(pt)
        if conversions.to_bytes.dispatch(type(pt)) is conversions.to_bytes.dispatch(object):
            raise Rejected(f"pyiceberg.conversions.to_bytes has no binary form for {pt}")
        native = to_native(type_, value)
        try:
            return bytes(conversions.to_bytes(pt, native))
        except REFUSALS as e:
            raise Rejected(f"{type(e).__name__}: {e}") from e

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        from pyiceberg import conversions

        pt = _type(type_)
        _no_geo(pt)
        if conversions.from_bytes.dispatch(type(pt)) is conversions.from_bytes.dispatch(object):
            raise Rejected(f"pyiceberg.conversions.from_bytes has no binary form for {pt}")
        try:
            value = conversions.from_bytes(pt, data)
        except REFUSALS as e:
            raise Rejected(f"{type(e).__name__}: {e}") from e
        return result_json(type_, pt, value)
