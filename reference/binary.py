"""Binary single-value serialization: values of primitive types to and from bytes.

Spec sections: "Appendix D: Single-value serialization / Binary single-value serialization"
and "Bound serialization" (current spec). Values are the reference's Python values (see
:mod:`reference.values`): ``int`` days / micros / nanos for the temporal types, ``Decimal``
with exponent ``-S`` for ``decimal(P, S)``, ``uuid.UUID``, ``bytes`` for fixed and binary.

What the reference does where the spec leaves room:

* ``boolean``: writes ``0x01`` for true; reads ``0x00`` as false and any other single byte
  as true ("non-zero byte for true").
* ``decimal(P, S)``: writes the *minimum* number of bytes of the unscaled value in
  big-endian two's complement (0 is ``00``). Reading accepts sign-extended (padded) bytes,
  e.g. ``00 01`` reads as unscaled 1, because the value is unambiguous; a validator that
  wants to flag a non-minimal writer uses :func:`is_minimal_decimal`. A read value with more
  than ``P`` digits is rejected (``binary.decimal-precision``).
* Fixed-width types (int, long, float, double, date, time, timestamps, uuid, fixed[L]) must
  have exactly their width: an ``int`` or ``date`` written 8 bytes wide is rejected
  (``binary.length``), not truncated. The one exception is the table of "Schema Evolution"
  for bounds written before a type promotion, which readers must decode by their length:
  4 bytes for a ``long`` are an ``int``, for a ``double`` a ``float``, and for a
  ``timestamp`` / ``timestamp_ns`` a ``date`` (read as midnight of that day).
* ``string``: the bytes must be valid UTF-8 (``binary.utf8``).
* ``geometry`` / ``geography`` values are WKB ``bytes`` and pass through unchanged once they
  read as one ISO WKB geometry (:mod:`reference.geo`; otherwise ``binary.wkb``); their
  *bounds* are points, see :func:`bound_to_bytes` / :func:`bound_from_bytes`.
* ``struct``, ``list``, ``map``, ``variant`` and ``unknown`` have no binary single-value form
  (``binary.unsupported-type``).
"""

from __future__ import annotations

import math
import struct
import uuid
from decimal import Decimal
from functools import singledispatch
from typing import Any, Optional

from .errors import SpecViolation
from .geo import check_wkb
from .hashing import min_big_endian, unscaled
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    GeographyType, GeometryType, IcebergType, IntegerType, LongType, StringType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType,
)

CLAUSE = "Appendix D: Single-value serialization / Binary single-value serialization"
CLAUSE_BOUNDS = "Appendix D: Single-value serialization / Bound serialization"
CLAUSE_PROMOTION = "Schema Evolution (bounds of promoted types)"

INT_RANGE = (-(2**31), 2**31 - 1)
LONG_RANGE = (-(2**63), 2**63 - 1)
#: (x, y, z, m) of a geometry/geography bound point; z and m may be unset (None).
Point = tuple[float, float, Optional[float], Optional[float]]


def _value_error(t: IcebergType, value: Any, why: str, rule: str = "binary.value") -> SpecViolation:
    return SpecViolation(rule, f"{value!r} is not a {t} value: {why}", clause=CLAUSE)


def _length_error(t: IcebergType, data: bytes, expected: str) -> SpecViolation:
    return SpecViolation(
        "binary.length",
        f"{t}: {expected}, got {len(data)} byte{'s' if len(data) != 1 else ''} ({data[:32].hex()})",
        clause=CLAUSE,
    )


def _exact(t: IcebergType, data: bytes, width: int) -> None:
    if len(data) != width:
        raise _length_error(t, data, f"the binary form is exactly {width} bytes")


def _checked_int(t: IcebergType, v: Any, bounds: tuple[int, int]) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _value_error(t, v, "expected an int")
    if not bounds[0] <= v <= bounds[1]:
        raise _value_error(t, v, f"out of range {bounds[0]}..{bounds[1]}", "binary.value-range")
    return v


def _as_bytes(t: IcebergType, v: Any) -> bytes:
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise _value_error(t, v, "expected bytes")
    return bytes(v)


# --- writing ----------------------------------------------------------------------------

@singledispatch
def to_bytes(t: IcebergType, value: Any) -> bytes:
    """The Appendix D binary single-value form of ``value`` (a reference Python value) of ``t``."""
    raise SpecViolation(
        "binary.unsupported-type", f"{t} has no binary single-value serialization", clause=CLAUSE
    )


@to_bytes.register
def _(t: BooleanType, v: Any) -> bytes:
    if not isinstance(v, bool):
        raise _value_error(t, v, "expected a bool")
    return b"\x01" if v else b"\x00"


@to_bytes.register(IntegerType)
@to_bytes.register(DateType)
def _(t: IcebergType, v: Any) -> bytes:
    return struct.pack("<i", _checked_int(t, v, INT_RANGE))


@to_bytes.register(LongType)
@to_bytes.register(TimeType)
@to_bytes.register(TimestampType)
@to_bytes.register(TimestamptzType)
@to_bytes.register(TimestampNanoType)
@to_bytes.register(TimestamptzNanoType)
def _(t: IcebergType, v: Any) -> bytes:
    return struct.pack("<q", _checked_int(t, v, LONG_RANGE))


@to_bytes.register
def _(t: FloatType, v: Any) -> bytes:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _value_error(t, v, "expected a float")
    f = float(v)
    try:
        data = struct.pack("<f", f)
    except OverflowError:
        raise _value_error(t, v, "outside the range of a 32-bit float", "binary.value-range") from None
    if math.isfinite(f) and struct.unpack("<f", data)[0] != f:
        raise _value_error(t, v, "not exactly representable as a 32-bit float", "binary.value-range")
    return data


@to_bytes.register
def _(t: DoubleType, v: Any) -> bytes:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _value_error(t, v, "expected a float")
    return struct.pack("<d", float(v))


@to_bytes.register
def _(t: DecimalType, v: Any) -> bytes:
    if not isinstance(v, Decimal) or not v.is_finite():
        raise _value_error(t, v, "expected a finite Decimal")
    exponent = v.as_tuple().exponent
    assert isinstance(exponent, int)
    if -exponent != t.scale:
        raise _value_error(t, v, f"has scale {-exponent}, the type's scale is {t.scale}",
                           "binary.decimal-scale")
    n = unscaled(v)
    if abs(n) >= 10**t.precision:
        raise _value_error(t, v, f"has more than {t.precision} digits", "binary.decimal-precision")
    return min_big_endian(n)


@to_bytes.register
def _(t: StringType, v: Any) -> bytes:
    if not isinstance(v, str):
        raise _value_error(t, v, "expected a str")
    try:
        return v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _value_error(t, v, f"not encodable as UTF-8 ({e.reason})", "binary.utf8") from None


@to_bytes.register
def _(t: UUIDType, v: Any) -> bytes:
    if not isinstance(v, uuid.UUID):
        raise _value_error(t, v, "expected a uuid.UUID")
    return v.bytes  # RFC 4122 byte order: big-endian, as the spec requires


@to_bytes.register
def _(t: FixedType, v: Any) -> bytes:
    data = _as_bytes(t, v)
    if len(data) != t.length:
        raise _length_error(t, data, f"fixed[{t.length}] holds exactly {t.length} bytes")
    return data


@to_bytes.register
def _(t: BinaryType, v: Any) -> bytes:
    return _as_bytes(t, v)


@to_bytes.register(GeometryType)
@to_bytes.register(GeographyType)
def _(t: IcebergType, v: Any) -> bytes:
    return check_wkb(t, _as_bytes(t, v))  # "WKB format, see Appendix G"


# --- reading ----------------------------------------------------------------------------

@singledispatch
def from_bytes(t: IcebergType, data: bytes) -> Any:
    """The reference Python value of Appendix D bytes ``data`` of type ``t``."""
    raise SpecViolation(
        "binary.unsupported-type", f"{t} has no binary single-value serialization", clause=CLAUSE
    )


@from_bytes.register
def _(t: BooleanType, data: bytes) -> bool:
    _exact(t, data, 1)
    return data != b"\x00"


@from_bytes.register(IntegerType)
@from_bytes.register(DateType)
def _(t: IcebergType, data: bytes) -> int:
    _exact(t, data, 4)
    return int(struct.unpack("<i", data)[0])


@from_bytes.register(TimeType)
@from_bytes.register(TimestamptzType)
@from_bytes.register(TimestamptzNanoType)
def _(t: IcebergType, data: bytes) -> int:
    _exact(t, data, 8)
    return int(struct.unpack("<q", data)[0])


#: "Schema Evolution": bounds written before a promotion keep the old type's width; readers
#: infer the old type from the length (int for long, date for timestamp and timestamp_ns).
@from_bytes.register(LongType)
@from_bytes.register(TimestampType)
@from_bytes.register(TimestampNanoType)
def _(t: IcebergType, data: bytes) -> int:
    if len(data) == 4:
        # int -> long keeps the value; date -> timestamp(_ns) is midnight of the day.
        n = int(struct.unpack("<i", data)[0])
        if isinstance(t, TimestampType):
            return n * 86_400_000_000
        if isinstance(t, TimestampNanoType):
            return n * 86_400_000_000_000
        return n
    if len(data) != 8:
        raise _length_error(t, data, "the binary form is exactly 8 bytes "
                            "(or 4 for a value written before a promotion)")
    return int(struct.unpack("<q", data)[0])


@from_bytes.register
def _(t: FloatType, data: bytes) -> float:
    _exact(t, data, 4)
    return float(struct.unpack("<f", data)[0])


@from_bytes.register
def _(t: DoubleType, data: bytes) -> float:
    if len(data) == 4:  # a float bound written before float -> double (Schema Evolution)
        return float(struct.unpack("<f", data)[0])
    if len(data) != 8:
        raise _length_error(t, data, "the binary form is exactly 8 bytes "
                            "(or 4 for a value written before a promotion)")
    return float(struct.unpack("<d", data)[0])


def is_minimal_decimal(data: bytes) -> bool:
    """Whether ``data`` is the minimum-length two's complement of its value (as writers must)."""
    return len(data) > 0 and min_big_endian(int.from_bytes(data, "big", signed=True)) == data


@from_bytes.register
def _(t: DecimalType, data: bytes) -> Decimal:
    if not data:
        raise _length_error(t, data, "a decimal needs at least 1 byte")
    # Guard the size before converting: 38 digits fit in 16 bytes; allow sign-extension
    # padding but not an unbounded number of bytes.
    if len(data) > 64:
        raise _length_error(t, data, "a decimal(P <= 38) needs at most 16 bytes")
    n = int.from_bytes(data, "big", signed=True)
    if abs(n) >= 10**t.precision:
        raise SpecViolation(
            "binary.decimal-precision",
            f"{t}: unscaled value {n} from {data.hex()} has more than {t.precision} digits",
            clause=CLAUSE,
        )
    # Built from the tuple: Decimal arithmetic would round to the context's 28 digits.
    return Decimal((1 if n < 0 else 0, tuple(int(d) for d in str(abs(n))), -t.scale))


@from_bytes.register
def _(t: StringType, data: bytes) -> str:
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecViolation(
            "binary.utf8", f"{t}: invalid UTF-8 at byte {e.start} ({e.reason})", clause=CLAUSE
        ) from None


@from_bytes.register
def _(t: UUIDType, data: bytes) -> uuid.UUID:
    _exact(t, data, 16)
    return uuid.UUID(bytes=bytes(data))


@from_bytes.register
def _(t: FixedType, data: bytes) -> bytes:
    if len(data) != t.length:
        raise _length_error(t, data, f"fixed[{t.length}] holds exactly {t.length} bytes")
    return bytes(data)


@from_bytes.register
def _(t: BinaryType, data: bytes) -> bytes:
    return bytes(data)


@from_bytes.register(GeometryType)
@from_bytes.register(GeographyType)
def _(t: IcebergType, data: bytes) -> bytes:
    return check_wkb(t, data)


# --- bounds -----------------------------------------------------------------------------

def point_to_bytes(p: Point) -> bytes:
    """A geometry/geography bound point: x:y, x:y:z, or x:y:z:m (z NaN when only m is set)."""
    x, y, z, m = p
    coords = [x, y]
    if m is not None:
        coords += [math.nan if z is None else z, m]
    elif z is not None:
        coords.append(z)
    return struct.pack(f"<{len(coords)}d", *coords)


def point_from_bytes(data: bytes) -> Point:
    """Inverse of :func:`point_to_bytes`; a NaN z in a 4-coordinate point reads as unset."""
    if len(data) not in (16, 24, 32):
        raise SpecViolation(
            "binary.length",
            f"a bound point is 16, 24 or 32 bytes (x:y[:z[:m]] doubles), got {len(data)}",
            clause=CLAUSE_BOUNDS,
        )
    coords = struct.unpack(f"<{len(data) // 8}d", data)
    x, y = coords[0], coords[1]
    z = coords[2] if len(coords) > 2 else None
    m = coords[3] if len(coords) > 3 else None
    if m is not None and z is not None and math.isnan(z):
        z = None
    return (x, y, z, m)


def bound_to_bytes(t: IcebergType, value: Any) -> bytes:
    """A lower/upper bound as stored in manifests: the single-value form, points for geo types."""
    if isinstance(t, (GeometryType, GeographyType)):
        if not isinstance(value, tuple) or len(value) != 4:
            raise SpecViolation("binary.value", f"{t} bound must be a point (x, y, z, m), got {value!r}",
                                clause=CLAUSE_BOUNDS)
        return point_to_bytes(value)
    return to_bytes(t, value)


def bound_from_bytes(t: IcebergType, data: bytes) -> Any:
    """Inverse of :func:`bound_to_bytes`."""
    if isinstance(t, (GeometryType, GeographyType)):
        return point_from_bytes(data)
    return from_bytes(t, data)
