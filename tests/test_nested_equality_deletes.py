"""Equality deletes on a field nested in a struct, in the reference reader ("Equality Delete
Files": delete columns are identified by field id and may be nested in structs; "If a delete
column in an equality delete file is later dropped from the table, it must still be used when
applying the equality deletes"). The rows of a data file are given by field id; the delete file
is a Parquet file written here with field ids."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.scan import FileEntry, _apply_equality, _with_equality_fields
from iceberg_conformance.reference.types import LongType, NestedField, StructType


def _field(fid: int, name: str, t: pa.DataType) -> pa.Field:
    return pa.field(name, t, metadata={b"PARQUET:field_id": str(fid).encode()})


def _delete_file(tmp_path: Path, root_children: list[pa.Field], rows: list[dict[str, Any]], ids: list[int]) -> FileEntry:
    path = tmp_path / "eq-deletes.parquet"
    schema = pa.schema([_field(2, "root", pa.struct(root_children))])
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return FileEntry({"file_path": str(path), "content": 2, "equality_ids": ids}, 2, 0)


ROOT = StructType(fields=(NestedField(3, "nested", LongType(), False), NestedField(4, "nested_other", LongType(), False)))
SCHEMA = StructType(fields=(NestedField(1, "id", LongType(), True), NestedField(2, "root", ROOT, False)))
# rows by field id: root.nested = 2 in row 2; row 3 holds 2 in the sibling field; row 4's struct is null
ROWS = [{1: 1, 2: {3: 1, 4: 1}}, {1: 2, 2: {3: 2, 4: 2}}, {1: 3, 2: {3: 3, 4: 2}}, {1: 4, 2: None},
        {1: 5, 2: {3: None, 4: 5}}]


def test_a_nested_delete_column_deletes_only_equal_rows(tmp_path: Path) -> None:
    delete = _delete_file(tmp_path, [_field(3, "nested", pa.int64())], [{"root": {"nested": 2}}], [3])
    assert [r[1] for r in _apply_equality(SCHEMA, ROWS, [delete])] == [1, 3, 4, 5]


def test_a_delete_file_without_the_nested_field_it_names_is_refused(tmp_path: Path) -> None:
    """The file's struct holds field 4 only while equality_ids names field 3: the rows must not
    be compared with a null that stands for the missing column (that would delete rows 4 and 5)."""
    delete = _delete_file(tmp_path, [_field(4, "nested_other", pa.int64())], [{"root": {"nested_other": 7}}], [3])
    with pytest.raises(SpecViolation) as e:
        _apply_equality(SCHEMA, ROWS, [delete])
    assert e.value.rule == "scan.equality-delete-columns"


def test_a_nested_delete_column_dropped_later_is_still_read() -> None:
    """root.nested (field 3) was dropped after the delete was written: the read schema gains it
    back from the older schema, inside the struct root it already has, not as a second root."""
    old = {"schema-id": 0, "type": "struct", "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "root", "required": False, "type": {"type": "struct", "fields": [
            {"id": 3, "name": "nested", "required": False, "type": "long"},
            {"id": 4, "name": "nested_other", "required": False, "type": "long"}]}}]}
    current = StructType(fields=(NestedField(1, "id", LongType(), True),
                                 NestedField(2, "root", StructType(fields=(ROOT.fields[1],)), False)))
    doc = {"format-version": 2, "schemas": [old, dict(old, **{"schema-id": 1})]}
    delete = FileEntry({"file_path": "unused", "content": 2, "equality_ids": [3]}, 2, 0)
    merged = _with_equality_fields(doc, current, [delete])
    assert [f.field_id for f in merged.fields] == [1, 2]
    root = merged.fields[1].field_type
    assert isinstance(root, StructType) and sorted(f.field_id for f in root.fields) == [3, 4]


def test_a_dropped_struct_comes_back_with_the_delete_column_only() -> None:
    old = {"schema-id": 0, "type": "struct", "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "root", "required": False, "type": {"type": "struct", "fields": [
            {"id": 3, "name": "nested", "required": False, "type": "long"},
            {"id": 4, "name": "nested_other", "required": False, "type": "long"}]}}]}
    current = StructType(fields=(NestedField(1, "id", LongType(), True),))
    delete = FileEntry({"file_path": "unused", "content": 2, "equality_ids": [3]}, 2, 0)
    merged = _with_equality_fields({"format-version": 2, "schemas": [old]}, current, [delete])
    root = merged.fields[1].field_type
    assert merged.fields[1].field_id == 2 and isinstance(root, StructType)
    assert [f.field_id for f in root.fields] == [3]
