"""Plumbing for the pyiceberg-core adapter: JSON single values to and from Arrow arrays.

iceberg-rust's Python bindings work on Arrow arrays; the Iceberg type of a column is implied
by its Arrow type (as iceberg-rust maps them): int -> int32, long -> int64, float -> float32,
double -> float64, decimal(P, S) -> decimal128(P, S), date -> date32, time -> time64[us],
timestamp -> timestamp[us], timestamptz -> timestamp[us, UTC], timestamp_ns/timestamptz_ns ->
timestamp[ns] (UTC), string -> string, uuid -> fixed_size_binary(16), fixed[L] ->
fixed_size_binary(L), binary -> binary, boolean -> bool, unknown -> null.

uuid and fixed[16] share an Arrow type, so a result cannot say which of them it is; the
caller passes the Iceberg type it expects back. JSON values are parsed with this kit's
:mod:`reference.values` (trusted vector input, not what is under test).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference import types as rt
from iceberg_conformance.reference.values import value_from_json, value_to_json

_SIMPLE: dict[type[rt.IcebergType], str] = {
    rt.BooleanType: "bool_", rt.IntegerType: "int32", rt.LongType: "int64",
    rt.FloatType: "float32", rt.DoubleType: "float64", rt.DateType: "date32",
    rt.StringType: "string", rt.BinaryType: "binary", rt.UnknownType: "null",
}
# physical integer Arrow type beneath temporal types
_INT_BACKING: dict[type[rt.IcebergType], str] = {
    rt.DateType: "int32", rt.TimeType: "int64", rt.TimestampType: "int64", rt.TimestamptzType: "int64",
    rt.TimestampNanoType: "int64", rt.TimestamptzNanoType: "int64"}


class NoArrowType(Exception):
    """The Iceberg type has no Arrow type iceberg-rust maps it from (variant, geometry...)."""


def arrow_type(t: rt.IcebergType) -> Any:
    import pyarrow as pa

    if type(t) in _SIMPLE:
        return getattr(pa, _SIMPLE[type(t)])()
    if isinstance(t, rt.DecimalType):
        return pa.decimal128(t.precision, t.scale)
    if isinstance(t, rt.TimeType):
        return pa.time64("us")
    if isinstance(t, rt.TimestampType):
        return pa.timestamp("us")
    if isinstance(t, rt.TimestamptzType):
        return pa.timestamp("us", tz="UTC")
    if isinstance(t, rt.TimestampNanoType):
        return pa.timestamp("ns")
    if isinstance(t, rt.TimestamptzNanoType):
        return pa.timestamp("ns", tz="UTC")
    if isinstance(t, rt.UUIDType):
        return pa.binary(16)
    if isinstance(t, rt.FixedType):
        return pa.binary(t.length)
    raise NoArrowType(f"{t} has no Arrow type in iceberg-rust")


def to_arrow(type_json: Any, values: list[Any]) -> Any:
    """An Arrow array of the JSON single values ``values`` of Iceberg type ``type_json``."""
    import pyarrow as pa

    t = rt.parse_type(type_json)
    target = arrow_type(t)
    py = [value_from_json(t, v) if not isinstance(t, rt.UnknownType) else None for v in values]
    if type(t) in _INT_BACKING:
        return pa.array(py, getattr(pa, _INT_BACKING[type(t)])()).cast(target)
    if isinstance(t, rt.UUIDType):
        py = [None if u is None else u.bytes for u in py]
    return pa.array(py, target)


def from_arrow(type_json: Any, array: Any) -> list[Any]:
    """JSON single values of an Arrow result array, read as Iceberg type ``type_json``.

    Temporal arrays are read through their integer storage (no datetime conversion)."""
    import pyarrow as pa

    t = rt.parse_type(type_json)
    if pa.types.is_date32(array.type) or pa.types.is_time(array.type) or pa.types.is_timestamp(array.type):
        backing = pa.int32() if pa.types.is_date32(array.type) else pa.int64()
        array = array.cast(backing)
    out = []
    for v in array.to_pylist():
        if isinstance(t, rt.UUIDType) and v is not None:
            import uuid

            v = uuid.UUID(bytes=v)
        out.append(value_to_json(t, v))
    return out
