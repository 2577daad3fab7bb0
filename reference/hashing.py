"""32-bit hash requirements by type: the Murmur3 hash behind the bucket transform.

Spec sections: "Partition Transforms / Bucket Transform Details" and "Appendix B: 32-bit Hash
Requirements by Type". The hash is 32-bit Murmur3, x86 variant, seed 0 (``mmh3.hash``).
Values are the reference's Python values (see :mod:`reference.values`).
"""

from __future__ import annotations

import struct
import uuid
from decimal import Decimal
from functools import singledispatch
from typing import Any

import mmh3

from .errors import SpecViolation
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType, IcebergType,
    IntegerType, LongType, StringType, TimestampNanoType, TimestampType, TimestamptzNanoType,
    TimestamptzType, TimeType, UnknownType, UUIDType,
)

CLAUSE = "Appendix B: 32-bit Hash Requirements by Type"


def hash_bytes(data: bytes) -> int:
    """Signed 32-bit Murmur3 x86 hash, seed 0."""
    return int(mmh3.hash(data, 0, signed=True))


def hash_long(v: int) -> int:
    """hashLong: the 8 little-endian bytes of a 64-bit value."""
    return hash_bytes(struct.pack("<q", v))


def hash_double(v: float) -> int:
    """hashLong(doubleToLongBits(v)): -0.0 hashes as 0.0 and every NaN as the canonical NaN."""
    if v != v:
        bits = 0x7FF8000000000000
    else:
        bits = struct.unpack("<q", struct.pack("<d", 0.0 if v == 0.0 else v))[0]
    return hash_long(bits if bits < 2**63 else bits - 2**64)


def min_big_endian(unscaled: int) -> bytes:
    """The minimum number of bytes holding ``unscaled`` as big-endian two's complement."""
    length = (unscaled + (unscaled < 0)).bit_length() // 8 + 1
    return unscaled.to_bytes(length, "big", signed=True)


def unscaled(v: Decimal) -> int:
    sign, digits, exponent = v.as_tuple()
    assert isinstance(exponent, int)
    n = int("".join(map(str, digits)) or "0")
    return -n if sign else n


def scaled(unscaled_value: int, scale: int) -> Decimal:
    """The decimal ``unscaled_value * 10**-scale``, exactly (no 28-digit context rounding)."""
    return Decimal(f"{unscaled_value}E{-scale}")  # the constructor is exact; arithmetic is not


@singledispatch
def hash_value(t: IcebergType, v: Any) -> int | None:
    """The Appendix B hash of value ``v`` of type ``t`` (``None`` only for ``unknown``)."""
    raise SpecViolation("hash.unsupported-type", f"{t} values are not hashed", clause=CLAUSE)


@hash_value.register
def _(t: BooleanType, v: bool) -> int:
    return hash_long(1 if v else 0)


@hash_value.register(IntegerType)
@hash_value.register(LongType)
@hash_value.register(DateType)
@hash_value.register(TimeType)
@hash_value.register(TimestampType)
@hash_value.register(TimestamptzType)
def _(t: IcebergType, v: int) -> int:
    return hash_long(v)


@hash_value.register(TimestampNanoType)
@hash_value.register(TimestamptzNanoType)
def _(t: IcebergType, v: int) -> int:
    # v3: nanosecond timestamps hash as the equivalent microsecond value, so that the bucket of
    # a value does not change with the precision of its type.
    return hash_long(v // 1000)


@hash_value.register(FloatType)
@hash_value.register(DoubleType)
def _(t: IcebergType, v: float) -> int:
    return hash_double(v)


@hash_value.register
def _(t: DecimalType, v: Decimal) -> int:
    return hash_bytes(min_big_endian(unscaled(v)))


@hash_value.register
def _(t: StringType, v: str) -> int:
    return hash_bytes(v.encode("utf-8"))


@hash_value.register
def _(t: UUIDType, v: uuid.UUID) -> int:
    return hash_bytes(v.bytes)


@hash_value.register(FixedType)
@hash_value.register(BinaryType)
def _(t: IcebergType, v: bytes) -> int:
    return hash_bytes(v)


@hash_value.register
def _(t: UnknownType, v: None) -> None:
    # v3: "unknown | always null": the only value of the type is null, and so is its hash.
    if v is not None:
        raise SpecViolation("values.json-form", f"{v!r} is not an unknown value: it is always null", clause=CLAUSE)
    return None
