"""The reference reader resolves columns without field ids through ``schema.name-mapping.default``
(Column Projection): top-level columns by any of their names, struct children, a list's
``element``, a map's ``key`` and ``value``, whatever the file calls them; a column with a field id
keeps it; an unmapped or absent column reads as null. The golden table
``pyiceberg_v2_name_mapping`` checks the same rule on every reader (struct and renames); this
checks the nested shapes it does not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.scan import FileEntry, file_rows
from iceberg_conformance.reference.types import StructType, parse_type

SCHEMA = {"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": False, "type": "long"},
    {"id": 2, "name": "tags", "required": False,
     "type": {"type": "list", "element-id": 3, "element": "string", "element-required": False}},
    {"id": 4, "name": "attrs", "required": False,
     "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6, "value": "int", "value-required": False}},
    {"id": 7, "name": "gone", "required": False, "type": "string"},
]}
MAPPING = [
    {"names": ["id", "old_id"], "field-id": 1},
    {"names": ["tags"], "field-id": 2, "fields": [{"names": ["element"], "field-id": 3}]},
    {"names": ["attrs"], "field-id": 4, "fields": [{"names": ["key"], "field-id": 5},
                                                   {"names": ["value"], "field-id": 6}]},
    {"names": ["gone"], "field-id": 7},
    {"names": ["not_in_schema"]},
]


def _rows(tmp_path: Path, table: pa.Table, mapping: object) -> list[dict[int, object]]:
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    doc = {"format-version": 2, "partition-specs": [{"spec-id": 0, "fields": []}],
           "properties": {} if mapping is None else {"schema.name-mapping.default": json.dumps(mapping)}}
    schema = parse_type(SCHEMA)
    assert isinstance(schema, StructType)
    entry = FileEntry({"file_path": str(path), "file_format": "PARQUET", "partition": {}}, 1, 0)
    return file_rows(doc, schema, entry)


def test_nested_columns_without_field_ids_resolve_through_the_mapping(tmp_path: Path) -> None:
    table = pa.table({
        "old_id": pa.array([7], pa.int64()),                       # an alias of field 1
        "tags": pa.array([["x", None]], pa.list_(pa.string())),    # Arrow calls the element "item"
        "attrs": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int32())),
        "not_in_schema": ["ignored"],
    })
    rows = _rows(tmp_path, table, MAPPING)
    assert rows == [{1: 7, 2: ["x", None], 4: {"k": 1}, 7: None}]


def test_without_a_mapping_columns_without_ids_read_as_null(tmp_path: Path) -> None:
    rows = _rows(tmp_path, pa.table({"id": pa.array([7], pa.int64())}), None)
    assert rows == [{1: None, 2: None, 4: None, 7: None}]


def test_a_field_id_in_the_file_wins_over_the_mapping(tmp_path: Path) -> None:
    # the column is named like field 1 in the mapping but carries field id 7 itself
    field = pa.field("id", pa.string(), metadata={b"PARQUET:field_id": b"7"})
    rows = _rows(tmp_path, pa.Table.from_arrays([pa.array(["s"])], schema=pa.schema([field])), MAPPING)
    assert rows == [{1: None, 2: None, 4: None, 7: "s"}]


def test_a_mapping_that_is_not_json_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"id": pa.array([7], pa.int64())}), path)
    doc = {"format-version": 2, "partition-specs": [{"spec-id": 0, "fields": []}],
           "properties": {"schema.name-mapping.default": "[{"}}
    schema = parse_type(SCHEMA)
    assert isinstance(schema, StructType)
    with pytest.raises(SpecViolation, match="name-mapping.default: not JSON"):
        file_rows(doc, schema, FileEntry({"file_path": str(path), "file_format": "PARQUET", "partition": {}}, 1, 0))
