"""Iceberg types and Arrow types (Arrow ``Schema.fbs``).

Spec sections: "Schemas and Data Types / Primitive Types" on the Iceberg side; on the Arrow
side the ``Type`` union of ``Schema.fbs`` (``Bool``, ``Int{bitWidth, is_signed}``,
``FloatingPoint{precision}``, ``Decimal{precision, scale, bitWidth}``, ``Date{unit}``,
``Time{unit, bitWidth}``, ``Timestamp{unit, timezone}``, ``Utf8``/``LargeUtf8``/``Utf8View``,
``Binary``/``LargeBinary``/``BinaryView``, ``FixedSizeBinary{byteWidth}``, ``Struct_``,
``List``/``LargeList``/``ListView``, ``Map{keysSorted}``, ``Null``).

:func:`to_arrow` gives the canonical Arrow type of an Iceberg type (field ids kept in the
``PARQUET:field_id`` field metadata, as Parquet readers and writers exchange them);
:func:`from_arrow` maps an Arrow type back and refuses what has no Iceberg type;
:func:`arrow_matches` says whether an Arrow type (of any width variant) carries an Iceberg type.

Choices where Schema.fbs leaves room: ``uuid`` is Arrow's canonical extension type
``arrow.uuid`` over ``FixedSizeBinary(16)`` (a plain ``FixedSizeBinary(16)`` is accepted too); ``timestamptz`` is ``Timestamp(MICROSECOND,
"UTC")`` and any non-empty timezone is accepted as an instant (Schema.fbs: a set timezone means
the value is UTC-normalized); ``time`` is ``Time(MICROSECOND, 64)``; ``unknown`` is ``Null``.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any, Iterable, Iterator

import pyarrow as pa

from .avro import decode_value
from .errors import SpecViolation
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType, GeographyType, GeometryType,
    IcebergType, IntegerType, ListType, LongType, MapType, NestedField, StringType, StructType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType,
    UnknownType, UUIDType, VariantType,
)

CLAUSE = "Schemas and Data Types / Primitive Types; Arrow Schema.fbs"
FIELD_ID_KEY = b"PARQUET:field_id"
ORC_ID_KEY = b"iceberg.id"


def _field(name: str, fid: int, t: IcebergType, required: bool) -> Any:
    return pa.field(name, to_arrow(t), nullable=not required, metadata={FIELD_ID_KEY: str(fid).encode()})


@singledispatch
def to_arrow(t: IcebergType) -> Any:
    """The canonical Arrow type of Iceberg type ``t``."""
    raise SpecViolation("arrow.no-mapping", f"{t}: no Arrow type", clause=CLAUSE)


_SIMPLE: dict[type, Any] = {
    BooleanType: pa.bool_(), IntegerType: pa.int32(), LongType: pa.int64(),
    FloatType: pa.float32(), DoubleType: pa.float64(), DateType: pa.date32(),
    TimeType: pa.time64("us"), TimestampType: pa.timestamp("us"),
    TimestamptzType: pa.timestamp("us", tz="UTC"), TimestampNanoType: pa.timestamp("ns"),
    TimestamptzNanoType: pa.timestamp("ns", tz="UTC"), StringType: pa.string(),
    BinaryType: pa.binary(), UUIDType: pa.uuid() if hasattr(pa, "uuid") else pa.binary(16),
    UnknownType: pa.null(),
}
for _cls, _at in _SIMPLE.items():
    to_arrow.register(_cls)(lambda t, _at=_at: _at)


@to_arrow.register
def _(t: DecimalType) -> Any:
    return pa.decimal128(t.precision, t.scale)


@to_arrow.register
def _(t: FixedType) -> Any:
    return pa.binary(t.length)


@to_arrow.register
def _(t: StructType) -> Any:
    return pa.struct([_field(f.name, f.field_id, f.field_type, f.required) for f in t.fields])


@to_arrow.register
def _(t: ListType) -> Any:
    return pa.list_(_field("element", t.element_id, t.element_type, t.element_required))


@to_arrow.register
def _(t: MapType) -> Any:
    return pa.map_(_field("key", t.key_id, t.key_type, True),
                   _field("value", t.value_id, t.value_type, t.value_required))


def field_id(f: Any) -> int | None:
    """The field id stored in an Arrow field's metadata, or None: ``PARQUET:field_id`` (Parquet),
    or ``iceberg.id`` (ORC: the type attribute, which pyarrow's ORC reader puts there)."""
    meta = f.metadata or {}
    raw = meta.get(FIELD_ID_KEY, meta.get(ORC_ID_KEY))
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


#: how an Arrow field is reached from its parent: a struct child's position, or a list's element,
#: a map's key or value (position 0)
ArrowStep = tuple[str, int]


def _arrow_children(t: Any) -> list[tuple[ArrowStep, Any]]:
    if pa.types.is_struct(t):
        return [(("struct", i), t.field(i)) for i in range(t.num_fields)]
    if pa.types.is_map(t):
        return [(("key", 0), t.key_field), (("value", 0), t.item_field)]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [(("list", 0), t.value_field)]
    return []


def _walk_arrow(top: int, steps: tuple[ArrowStep, ...], f: Any) -> Iterator[tuple[int, tuple[ArrowStep, ...], Any]]:
    yield top, steps, f
    for step, child in _arrow_children(f.type):
        yield from _walk_arrow(top, (*steps, step), child)


def walk_arrow(fields: Iterable[Any]) -> Iterator[tuple[int, tuple[ArrowStep, ...], Any]]:
    """Every Arrow field of ``fields`` (a schema, or the fields of one column) and every field
    nested in them, depth first (a field before what it contains): (index of the top-level
    field, the steps from it, the field). The Arrow counterpart of :func:`reference.schema.walk`."""
    for i, f in enumerate(fields):
        yield from _walk_arrow(i, (), f)


def nested_arrow_fields(t: Any) -> list[Any]:
    """Every field nested in Arrow type ``t`` (struct fields, list elements, map keys and
    values), depth first."""
    return [f for _top, _steps, f in walk_arrow(child for _step, child in _arrow_children(t))]


def _child_id(f: Any, where: str) -> int:
    fid = field_id(f)
    if fid is None:
        raise SpecViolation("arrow.field-id-missing", f"{where}: Arrow field {f.name!r} has no field id",
                            clause=CLAUSE)
    return fid


def from_arrow(dt: Any, where: str = "") -> IcebergType:
    """The Iceberg type an Arrow type carries; nested children need ``PARQUET:field_id``."""
    if pa.types.is_boolean(dt):
        return BooleanType()
    if pa.types.is_integer(dt):
        if dt.bit_width <= 32 and (pa.types.is_signed_integer(dt) or dt.bit_width < 32):
            return IntegerType()
        if pa.types.is_signed_integer(dt) or dt.bit_width < 64:
            return LongType()
        raise SpecViolation("arrow.no-mapping", f"{where}: {dt} has no Iceberg type (uint64)", clause=CLAUSE)
    if pa.types.is_float32(dt):
        return FloatType()
    if pa.types.is_float64(dt):
        return DoubleType()
    if pa.types.is_decimal(dt):
        return DecimalType(dt.precision, dt.scale)
    if pa.types.is_date32(dt) or pa.types.is_date64(dt):
        return DateType()
    if pa.types.is_time(dt):
        if dt.unit == "us":
            return TimeType()
    if pa.types.is_timestamp(dt):
        if dt.unit == "us":
            return TimestamptzType() if dt.tz else TimestampType()
        if dt.unit == "ns":
            return TimestamptzNanoType() if dt.tz else TimestampNanoType()
    if pa.types.is_string(dt) or pa.types.is_large_string(dt) or _is(dt, "is_string_view"):
        return StringType()
    if getattr(dt, "extension_name", "") == "arrow.uuid":
        return UUIDType()
    if pa.types.is_fixed_size_binary(dt):
        return FixedType(dt.byte_width)
    if pa.types.is_binary(dt) or pa.types.is_large_binary(dt) or _is(dt, "is_binary_view"):
        return BinaryType()
    if pa.types.is_null(dt):
        return UnknownType()
    if pa.types.is_struct(dt):
        fields = []
        for i in range(dt.num_fields):
            f = dt.field(i)
            fid = _child_id(f, where)
            fields.append(NestedField(fid, f.name, from_arrow(f.type, f"{where}.{f.name}"), not f.nullable))
        return StructType(tuple(fields))
    if pa.types.is_map(dt):
        k, v = dt.key_field, dt.item_field
        return MapType(_child_id(k, where), from_arrow(k.type, f"{where}.key"),
                       _child_id(v, where), from_arrow(v.type, f"{where}.value"), not v.nullable)
    if pa.types.is_list(dt) or pa.types.is_large_list(dt) or _is(dt, "is_list_view"):
        e = dt.value_field
        return ListType(_child_id(e, where), from_arrow(e.type, f"{where}.element"), not e.nullable)
    raise SpecViolation("arrow.no-mapping", f"{where or 'type'}: Arrow {dt} has no Iceberg type", clause=CLAUSE)


def _is(dt: Any, predicate: str) -> bool:
    fn = getattr(pa.types, predicate, None)
    return bool(fn(dt)) if fn is not None else False


def arrow_matches(t: IcebergType, dt: Any) -> bool:
    """Whether Arrow type ``dt`` carries Iceberg type ``t``, ignoring names, nullability and
    child field ids (those are checked on the Parquet schema)."""
    if isinstance(t, UUIDType):
        return (pa.types.is_fixed_size_binary(dt) and dt.byte_width == 16) or (
            getattr(dt, "extension_name", "") == "arrow.uuid")
    if isinstance(t, VariantType):  # Appendix A: metadata and value binaries (and a shredded typed_value)
        return bool(pa.types.is_struct(dt) and dt.get_field_index("metadata") >= 0
                    and pa.types.is_binary(dt.field("metadata").type))
    if isinstance(t, StructType):
        if not pa.types.is_struct(dt):
            return False
        by_id = {field_id(dt.field(i)): dt.field(i) for i in range(dt.num_fields)}
        return all(arrow_matches(f.field_type, by_id[f.field_id].type)
                   for f in t.fields if f.field_id in by_id)
    if isinstance(t, ListType):
        return (pa.types.is_list(dt) or pa.types.is_large_list(dt) or _is(dt, "is_list_view")) and \
            arrow_matches(t.element_type, dt.value_type)
    if isinstance(t, MapType):
        return pa.types.is_map(dt) and arrow_matches(t.key_type, dt.key_type) and \
            arrow_matches(t.value_type, dt.item_type)
    try:
        got = from_arrow(dt)
    except SpecViolation:
        return False
    return got == t


# --- Avro records as Arrow columns ------------------------------------------------------------

def _avro_arrow_type(t: IcebergType) -> Any:
    """The Arrow type the values of an Avro column of Iceberg type ``t`` are collected in: the
    canonical one (:func:`to_arrow`, field ids on nested fields), binary for geometry and
    geography (WKB), a struct of two binaries for variant."""
    if isinstance(t, StructType):
        return pa.struct([pa.field(f.name, _avro_arrow_type(f.field_type), True,
                                   {FIELD_ID_KEY: str(f.field_id).encode()}) for f in t.fields])
    if isinstance(t, ListType):
        return pa.list_(pa.field("element", _avro_arrow_type(t.element_type), True,
                                 {FIELD_ID_KEY: str(t.element_id).encode()}))
    if isinstance(t, MapType):
        return pa.map_(pa.field("key", _avro_arrow_type(t.key_type), False, {FIELD_ID_KEY: str(t.key_id).encode()}),
                       pa.field("value", _avro_arrow_type(t.value_type), True,
                                {FIELD_ID_KEY: str(t.value_id).encode()}))
    if isinstance(t, (GeometryType, GeographyType)):
        return pa.binary()
    if isinstance(t, VariantType):
        return pa.struct([pa.field("metadata", pa.binary()), pa.field("value", pa.binary())])
    return to_arrow(t)


def _avro_arrow_value(t: IcebergType, raw: Any) -> Any:
    """A raw Avro value (logical types not applied) as a Python value Arrow takes for
    :func:`_avro_arrow_type` of ``t``."""
    if raw is None:
        return None
    if isinstance(t, StructType):
        return {f.name: _avro_arrow_value(f.field_type, raw.get(f.name)) for f in t.fields}
    if isinstance(t, ListType):
        return [_avro_arrow_value(t.element_type, v) for v in raw]
    if isinstance(t, MapType):
        pairs = raw.items() if isinstance(raw, dict) else (tuple(kv.values())[:2] for kv in raw)
        return [(_avro_arrow_value(t.key_type, k), _avro_arrow_value(t.value_type, v)) for k, v in pairs]
    if isinstance(t, DecimalType):
        return decode_value(t, raw)
    if isinstance(t, UUIDType):
        return decode_value(t, raw).bytes
    return raw


def avro_table(file_type: StructType, records: Iterable[dict[str, Any]]) -> Any:
    """The records of an Avro file whose schema maps to ``file_type`` (:func:`reference.avro.from_avro`)
    as an Arrow table, one column per field, field ids in ``PARQUET:field_id`` (decimals as
    ``decimal128``, uuids as ``arrow.uuid``, dates and times in their Arrow types)."""
    columns: list[list[Any]] = [[] for _ in file_type.fields]
    for rec in records:
        for col, f in zip(columns, file_type.fields):
            col.append(_avro_arrow_value(f.field_type, rec.get(f.name)))
    fields = [pa.field(f.name, _avro_arrow_type(f.field_type), True, {FIELD_ID_KEY: str(f.field_id).encode()})
              for f in file_type.fields]
    return pa.Table.from_arrays([pa.array(c, f.type) for c, f in zip(columns, fields)], schema=pa.schema(fields))
