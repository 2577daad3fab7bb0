"""Appendix A: Format-specific Requirements / ORC — an ORC file's types against the table's.

Spec section: "Appendix A: Format-specific Requirements / ORC" (the Data Type Mappings table,
its ``iceberg.*`` type attributes, the notes on timestamps, and "The column IDs must be stored
in ORC type attributes using the key ``iceberg.id``, and ``iceberg.required`` to store
``"true"`` if the Iceberg column is required").

The ORC schema is read as pyarrow's ORC reader gives it: each ORC type's attributes are the
metadata of its Arrow field (nested fields included), ORC ``timestamp`` is Arrow
``timestamp[ns]`` and ``timestamp_instant`` is ``timestamp[ns, tz=UTC]``, ``tinyint`` and
``smallint`` are ``int8`` and ``int16``, ``char``/``varchar``/``string`` are all ``string`` (the
mapping table maps all three to ``string``), ``binary`` is ``binary``.

:func:`check_schema` compares the schema with the table's fields by id; :func:`untruncated`
finds timestamp values that keep nanoseconds where a microsecond type is stored.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from .findings import Finding
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType, GeographyType,
    GeometryType, IcebergType, IntegerType, ListType, LongType, MapType, StringType, StructType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType,
    VariantType,
)

CLAUSE = "Appendix A: Format-specific Requirements / ORC"
CLAUSE_MAPPING = CLAUSE + " / Data Type Mappings"
CLAUSE_IDS = CLAUSE + " (column IDs in the type attributes iceberg.id and iceberg.required)"
CLAUSE_NANOS = CLAUSE + " (writers for timestamp and timestamptz must truncate nanoseconds to microseconds)"

ID = b"iceberg.id"
REQUIRED = b"iceberg.required"

FieldIndex = dict[int, list[tuple[str, IcebergType, bool]]]


def _attr(f: Any, key: str) -> str | None:
    raw = (f.metadata or {}).get(f"iceberg.{key}".encode())
    return raw.decode("utf-8", "replace") if raw is not None else None


def _children(t: Any) -> list[Any]:
    if pa.types.is_struct(t):
        return [t.field(i) for i in range(t.num_fields)]
    if pa.types.is_map(t):
        return [t.key_field, t.item_field]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [t.value_field]
    return []


def _mapping(t: IcebergType, f: Any) -> str | None:
    """What Appendix A's ORC row of ``t`` asks that field ``f`` does not have (None: it fits)."""
    dt = f.type
    if isinstance(t, BooleanType):
        ok = pa.types.is_boolean(dt)
        want = "boolean"
    elif isinstance(t, IntegerType):  # ORC tinyint and smallint would also map to int
        ok = dt in (pa.int8(), pa.int16(), pa.int32())
        want = "int (or tinyint, smallint)"
    elif isinstance(t, (LongType, TimeType)):
        kind = "TIME" if isinstance(t, TimeType) else "LONG"
        ok = dt == pa.int64() and (_attr(f, "long-type") or "LONG") == kind
        want = "long with iceberg.long-type=TIME" if kind == "TIME" else "long"
    elif isinstance(t, FloatType):
        ok, want = pa.types.is_float32(dt), "float"
    elif isinstance(t, DoubleType):
        ok, want = pa.types.is_float64(dt), "double"
    elif isinstance(t, DecimalType):
        ok = pa.types.is_decimal(dt) and (dt.precision, dt.scale) == (t.precision, t.scale)
        want = f"decimal({t.precision},{t.scale})"
    elif isinstance(t, DateType):
        ok, want = pa.types.is_date32(dt), "date"
    elif isinstance(t, (TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)):
        instant = isinstance(t, (TimestamptzType, TimestamptzNanoType))
        unit = "NANOS" if isinstance(t, (TimestampNanoType, TimestamptzNanoType)) else "MICROS"
        # files written before the attribute existed hold microseconds
        found = _attr(f, "timestamp-unit") or "MICROS"
        ok = pa.types.is_timestamp(dt) and bool(dt.tz) == instant and found == unit
        want = f"{'timestamp_instant' if instant else 'timestamp'} with iceberg.timestamp-unit={unit}"
    elif isinstance(t, StringType):
        ok, want = pa.types.is_string(dt) or pa.types.is_large_string(dt), "string (or varchar, char)"
    elif isinstance(t, (BinaryType, UUIDType, FixedType, GeometryType, GeographyType)):
        kind = {UUIDType: "UUID", FixedType: "FIXED", GeometryType: "GEOMETRY",
                GeographyType: "GEOGRAPHY"}.get(type(t), "BINARY")
        ok = (pa.types.is_binary(dt) or pa.types.is_large_binary(dt)) and (_attr(f, "binary-type") or "BINARY") == kind
        want = "binary" + (f" with iceberg.binary-type={kind}" if kind != "BINARY" else "")
        if ok and isinstance(t, FixedType) and _attr(f, "length") != str(t.length):
            ok = False
        if isinstance(t, FixedType):
            want += f" and iceberg.length={t.length}"
    elif isinstance(t, VariantType):
        ok = pa.types.is_struct(dt) and _attr(f, "struct-type") == "VARIANT"
        want = "struct with iceberg.struct-type=VARIANT"
    elif isinstance(t, StructType):
        ok, want = pa.types.is_struct(dt), "struct"
    elif isinstance(t, ListType):
        ok, want = pa.types.is_list(dt) or pa.types.is_large_list(dt), "array"
    elif isinstance(t, MapType):
        ok, want = pa.types.is_map(dt), "map"
    else:  # unknown: a stored column is ignored when read
        return None
    if ok:
        return None
    attrs = {k.decode(): v.decode("utf-8", "replace") for k, v in (f.metadata or {}).items()
             if k.startswith(b"iceberg.") and k not in (ID, REQUIRED)}
    return f"{t}: expected {want}, found {dt}" + (f" {attrs}" if attrs else "")


def check_schema(schema: Any, fields: FieldIndex, *, file: str = "", name_mapping: bool = False) -> list[Finding]:
    """Findings for the schema of an ORC file (``schema``: the Arrow schema pyarrow reads, the
    type attributes in field metadata) against the table's fields by id (``fields``:
    :func:`reference.parquet.index_fields`, every schema of the table): every type carries
    ``iceberg.id`` (without ids a reader needs the table's name mapping, so a missing id is
    information then), a column required in every table schema that has it says
    ``iceberg.required`` ``"true"``, and each type is the mapping table's ORC type with its
    attributes for one of the types its id had."""
    out: list[Finding] = []

    def add(rule: str, msg: str, clause: str, where: str) -> None:
        out.append(Finding(rule, msg, clause, file, where))

    def visit(f: Any, here: str) -> None:
        raw = (f.metadata or {}).get(ID)
        fid = int(raw) if raw is not None and raw.strip().lstrip(b"-").isdigit() and len(raw) <= 20 else None
        if fid is None:
            add("orc.field-id-missing-mapped" if name_mapping else "orc.field-id-missing",
                f"ORC column {here!r} has no iceberg.id type attribute" if raw is None else
                f"ORC column {here!r}: iceberg.id {raw[:40]!r} is not an integer", CLAUSE_IDS, here)
            return
        known = fields.get(fid)
        if known is None:
            return  # an id no schema of the table has: never read
        if all(req for _n, _t, req in known) and _attr(f, "required") != "true":
            add("orc.required-attribute", f"ORC column {here!r} (field {fid}) is required in the table, but its "
                f"iceberg.required attribute is {_attr(f, 'required')!r}, not \"true\"", CLAUSE_IDS, here)
        problems = [p for _n, t, _r in known if (p := _mapping(t, f)) is not None]
        if len(problems) == len(known):
            add("orc.type-mapping", f"ORC column {here!r} (field {fid}): {problems[0]}", CLAUSE_MAPPING, here)
            return
        if isinstance(next(t for _n, t, _r in known if _mapping(t, f) is None), VariantType):
            return  # metadata and value carry no ids
        names = {pa.types.is_map(f.type): ("key", "value")}.get(True)
        for i, child in enumerate(_children(f.type)):
            name = names[i] if names else ("element" if not pa.types.is_struct(f.type) else child.name)
            visit(child, f"{here}.{name}")

    for f in schema:
        visit(f, f.name)
    return out


def untruncated(t: IcebergType, arr: Any) -> tuple[int, int | None]:
    """(how many, the first) values of an Arrow timestamp array of a ``timestamp`` or
    ``timestamptz`` column that are not whole microseconds (nanoseconds kept)."""
    if not isinstance(t, (TimestampType, TimestamptzType)) or not pa.types.is_timestamp(arr.type) \
            or arr.type.unit != "ns":
        return 0, None
    import numpy as np

    ns = np.asarray(arr.drop_null().cast(pa.int64()))
    bad = ns[ns % 1000 != 0]
    return len(bad), int(bad[0]) if len(bad) else None
