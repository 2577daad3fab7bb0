"""Avro and ORC data and delete files against Appendix A, as the checker reads them.

The schema rules are held to the rows of Appendix A's Avro and ORC tables (``reference.avro
.check_data_schema``, ``reference.orc.check_schema``), each case a schema a writer could leave
on disk. The delete-file rules are held on a reference table given an Avro or an ORC delete
file: read, applied by the reference scan, and each violation reported (these files were
"not checked" before).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from iceberg_conformance.checker import check_table
from iceberg_conformance.reference.avro import check_data_schema, to_avro
from iceberg_conformance.reference.orc import check_schema as check_orc_schema, untruncated
from iceberg_conformance.reference.parquet import index_fields
from iceberg_conformance.reference.types import (
    DecimalType, FixedType, IntegerType, LongType, MapType, NestedField, StringType, StructType,
    TimestampNanoType, TimestampType, TimestamptzType, TimeType, UUIDType, ListType,
)
from iceberg_conformance.suites.golden import small_tables as small

from .damage_assert import assert_damage_reported


def _table(*fields: NestedField) -> StructType:
    return StructType(tuple(fields))


def _avro_rules(avro_fields: list[dict[str, Any]], *schemas: StructType, name_mapping: bool = False) -> set[str]:
    record = {"type": "record", "name": "r", "fields": avro_fields}
    return {f.rule for f in check_data_schema(record, index_fields(schemas), name_mapping=name_mapping)}


def _field(fid: int | None, name: str, avro_type: Any) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name, "type": avro_type}
    if fid is not None:
        f["field-id"] = fid
    return f


TS = _table(NestedField(1, "ts", TimestampType(), True))
TSTZ = _table(NestedField(1, "ts", TimestamptzType(), True))
DEC = _table(NestedField(1, "d", DecimalType(9, 2), True))
MAP_INT = _table(NestedField(1, "m", MapType(2, IntegerType(), 3, StringType(), True), True))


def test_the_avro_schema_of_a_table_schema_is_clean() -> None:
    table = _table(NestedField(1, "ts", TimestamptzType(), True), NestedField(2, "d", DecimalType(38, 10), False),
                   NestedField(3, "u", UUIDType(), False), NestedField(4, "t", TimeType(), False),
                   NestedField(5, "l", ListType(6, LongType(), False), False),
                   NestedField(7, "m", MapType(8, IntegerType(), 9, StringType(), False), False),
                   NestedField(10, "n", TimestampNanoType(), False), NestedField(11, "f", FixedType(3), True))
    assert check_data_schema(to_avro(table), index_fields([table])) == []


def test_avro_ids_missing_are_reported_where_appendix_a_puts_them() -> None:
    # "When writing data to Avro files, these IDs must be stored in the Avro schema"
    listed = _table(NestedField(1, "l", ListType(2, LongType(), True), True))
    assert _avro_rules([_field(1, "l", {"type": "array", "items": "long"})], listed) \
        == {"avro.field-id-missing"}  # element-id
    assert _avro_rules([_field(None, "ts", {"type": "long", "logicalType": "timestamp-micros"})], TS) \
        == {"avro.field-id-missing"}
    string_map = _table(NestedField(1, "m", MapType(2, StringType(), 3, IntegerType(), True), True))
    assert _avro_rules([_field(1, "m", {"type": "map", "values": "int", "value-id": 3})], string_map) \
        == {"avro.field-id-missing"}  # key-id
    kv = {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k2_v3", "fields": [
        {"name": "key", "type": "int", "field-id": 2}, {"name": "value", "type": "string"}]}}
    assert _avro_rules([_field(1, "m", kv)], MAP_INT) == {"avro.field-id-missing"}  # the value's field-id
    # with the table's name mapping a reader maps the field by name: information
    assert _avro_rules([_field(None, "ts", {"type": "long", "logicalType": "timestamp-micros"})], TS,
                       name_mapping=True) == {"avro.field-id-missing-mapped"}


@pytest.mark.parametrize("table, avro_type, rule", [
    # timestamp: {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": false}
    (TS, {"type": "long", "logicalType": "timestamp-millis"}, "avro.type-mapping"),
    (TS, {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}, "avro.type-mapping"),
    # timestamptz: ... "adjust-to-utc": true
    (TSTZ, {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}, "avro.type-mapping"),
    (TSTZ, {"type": "long", "logicalType": "timestamp-micros"}, "avro.type-mapping"),
    (TSTZ, {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}, None),
    # decimal(P,S): fixed of minBytesRequired(P) bytes (4 for P = 9)
    (DEC, {"type": "fixed", "name": "d", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2}, None),
    (DEC, {"type": "fixed", "name": "d", "size": 5, "logicalType": "decimal", "precision": 9, "scale": 2},
     "avro.decimal-fixed-size"),
    (DEC, {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}, "avro.type-mapping"),
    (DEC, {"type": "fixed", "name": "d", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 3},
     "avro.type-mapping"),
    # uuid: {"type": "fixed", "size": 16, "logicalType": "uuid"}
    (_table(NestedField(1, "u", UUIDType(), True)), {"type": "fixed", "name": "u", "size": 16, "logicalType": "uuid"},
     None),
    (_table(NestedField(1, "u", UUIDType(), True)), {"type": "string", "logicalType": "uuid"}, "avro.type-mapping"),
    # time: {"type": "long", "logicalType": "time-micros"}
    (_table(NestedField(1, "t", TimeType(), True)), {"type": "int", "logicalType": "time-millis"},
     "avro.type-mapping"),
    # timestamp_ns: timestamp-nanos
    (_table(NestedField(1, "n", TimestampNanoType(), True)),
     {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": False}, None),
    (_table(NestedField(1, "n", TimestampNanoType(), True)),
     {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}, "avro.type-mapping"),
    # "Maps with non-string keys must use an array representation with the map logical type."
    (MAP_INT, {"type": "map", "values": "string", "key-id": 2, "value-id": 3}, "avro.map-non-string-key"),
    (MAP_INT, {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k2_v3", "fields": [
        {"name": "key", "type": "int", "field-id": 2}, {"name": "value", "type": "string", "field-id": 3}]}}, None),
    # "This is the only union type allowed in Iceberg data files."
    (TS, ["null", "long", "string"], "avro.union"),
])
def test_avro_type_mapping(table: StructType, avro_type: Any, rule: str | None) -> None:
    assert _avro_rules([_field(1, table.fields[0].name, avro_type)], table) == ({rule} if rule else set())


def test_avro_column_of_a_promoted_field_may_have_its_old_type() -> None:
    old = _table(NestedField(1, "x", IntegerType(), True))
    new = _table(NestedField(1, "x", LongType(), True))
    assert _avro_rules([_field(1, "x", "int")], old, new) == set()
    assert _avro_rules([_field(1, "x", "string")], old, new) == {"avro.type-mapping"}


def _orc_field(name: str, t: Any, fid: int | None, **attrs: str) -> Any:
    meta = {f"iceberg.{k.replace('_', '-')}".encode(): v.encode() for k, v in attrs.items()}
    if fid is not None:
        meta[b"iceberg.id"] = str(fid).encode()
    return pa.field(name, t, metadata=meta)


def _orc_rules(field: Any, *schemas: StructType, name_mapping: bool = False) -> set[str]:
    return {f.rule for f in check_orc_schema(pa.schema([field]), index_fields(schemas), name_mapping=name_mapping)}


@pytest.mark.parametrize("table, field, rule", [
    # "The column IDs must be stored in ORC type attributes using the key iceberg.id"
    (TS, _orc_field("ts", pa.timestamp("ns"), None, required="true"), "orc.field-id-missing"),
    # ... "and iceberg.required to store "true" if the Iceberg column is required"
    (TS, _orc_field("ts", pa.timestamp("ns"), 1, required="false"), "orc.required-attribute"),
    (TS, _orc_field("ts", pa.timestamp("ns"), 1), "orc.required-attribute"),
    (TS, _orc_field("ts", pa.timestamp("ns"), 1, required="true", timestamp_unit="MICROS"), None),
    # timestamptz: timestamp_instant
    (TSTZ, _orc_field("ts", pa.timestamp("ns"), 1, required="true", timestamp_unit="MICROS"), "orc.type-mapping"),
    (TSTZ, _orc_field("ts", pa.timestamp("ns", "UTC"), 1, required="true", timestamp_unit="MICROS"), None),
    # timestamp: iceberg.timestamp-unit=MICROS; timestamp_ns: NANOS
    (TS, _orc_field("ts", pa.timestamp("ns"), 1, required="true", timestamp_unit="NANOS"), "orc.type-mapping"),
    (_table(NestedField(1, "ts", TimestampNanoType(), True)),
     _orc_field("ts", pa.timestamp("ns"), 1, required="true", timestamp_unit="NANOS"), None),
    # uuid: binary with iceberg.binary-type=UUID
    (_table(NestedField(1, "u", UUIDType(), True)), _orc_field("u", pa.binary(), 1, required="true"),
     "orc.type-mapping"),
    (_table(NestedField(1, "u", UUIDType(), True)),
     _orc_field("u", pa.binary(), 1, required="true", binary_type="UUID"), None),
    # fixed(L): binary with iceberg.binary-type=FIXED and iceberg.length=L
    (_table(NestedField(1, "f", FixedType(3), True)),
     _orc_field("f", pa.binary(), 1, required="true", binary_type="FIXED", length="3"), None),
    (_table(NestedField(1, "f", FixedType(3), True)),
     _orc_field("f", pa.binary(), 1, required="true", binary_type="FIXED", length="4"), "orc.type-mapping"),
    # time: long with iceberg.long-type=TIME
    (_table(NestedField(1, "t", TimeType(), True)), _orc_field("t", pa.int64(), 1, required="true", long_type="TIME"),
     None),
    (_table(NestedField(1, "t", LongType(), True)), _orc_field("t", pa.int64(), 1, required="true", long_type="TIME"),
     "orc.type-mapping"),
    # int: ORC tinyint and smallint would also map to int
    (_table(NestedField(1, "i", IntegerType(), True)), _orc_field("i", pa.int16(), 1, required="true"), None),
    # decimal(P,S): decimal
    (DEC, _orc_field("d", pa.decimal128(9, 3), 1, required="true"), "orc.type-mapping"),
])
def test_orc_type_attributes(table: StructType, field: Any, rule: str | None) -> None:
    assert _orc_rules(field, table) == ({rule} if rule else set())


def test_orc_nested_ids_and_name_mapping() -> None:
    table = _table(NestedField(1, "l", ListType(2, LongType(), False), False))
    bare = _orc_field("l", pa.list_(pa.field("item", pa.int64())), 1)
    assert _orc_rules(bare, table) == {"orc.field-id-missing"}  # the element's iceberg.id
    assert _orc_rules(bare, table, name_mapping=True) == {"orc.field-id-missing-mapped"}
    good = _orc_field("l", pa.list_(_orc_field("item", pa.int64(), 2)), 1)
    assert _orc_rules(good, table) == set()


def test_orc_timestamps_keep_no_nanoseconds() -> None:
    # "Iceberg ORC writers for Iceberg types timestamp and timestamptz must truncate nanoseconds to microseconds."
    arr = pa.array([1_000, 2_001, None, -3_000, -4_500], pa.timestamp("ns"))
    assert untruncated(TimestampType(), arr) == (2, 2_001)
    assert untruncated(TimestampNanoType(), arr) == (0, None)


# --- Avro and ORC delete files on a reference table ------------------------------------------

@pytest.fixture(params=["AVRO", "ORC"])
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _errors(md: str) -> list[Any]:
    return [f for f in check_table(md).findings if f.severity == "error"]


def test_avro_orc_position_deletes_are_read_and_applied(tmp_path: Path, fmt: str) -> None:
    from iceberg_conformance.reference.scan import scan

    # the newest data file of the reference writer's table holds ids 4, 5 at positions 0, 1
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), [1], file_format=fmt)
    findings = check_table(md).findings
    assert [f for f in findings if f.rule == "checker.not-checked"] == []
    assert [f for f in findings if f.severity == "error"] == []
    assert sorted(r["id"] for r in scan(md)) == [1, 2, 3, 4]


@pytest.mark.parametrize("positions, rule", [([1, 9], "deletes.position-out-of-range"),
                                             ([1, 0], "deletes.position-order")])
def test_avro_orc_position_delete_rules(tmp_path: Path, fmt: str, positions: list[int], rule: str) -> None:
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), positions, file_format=fmt)
    assert {f.rule for f in _errors(md)} == {rule}


@pytest.mark.parametrize("rule", ["deletes.position-order", "deletes.position-out-of-range"])
def test_damage_to_avro_orc_position_deletes_is_reported(tmp_path: Path, fmt: str, rule: str) -> None:
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), [0, 1], file_format=fmt)
    assert_damage_reported(md, tmp_path / "damaged", rule)


def test_avro_orc_equality_delete_columns(tmp_path: Path, fmt: str) -> None:
    base = small.write_reference_table(tmp_path / "a", 2)
    md = small.add_deletes(base, 2, {"data": ["e"]}, {"data": (pa.string(), 2)}, [2], file_format=fmt)
    assert _errors(md) == [] and [f for f in check_table(md).findings if f.rule == "checker.not-checked"] == []
    # equality_ids [2, 1]: the delete file holds field 2 (data) only
    md = small.add_deletes(small.write_reference_table(tmp_path / "b", 2), 2, {"data": ["e"]},
                           {"data": (pa.string(), 2)}, [2, 1], file_format=fmt)
    assert {f.rule for f in _errors(md)} == {"deletes.equality-field-missing"}
