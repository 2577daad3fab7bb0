"""The reference scan ignores a stored column of an ``unknown`` field.

Appendix A (Parquet): "When reading an `unknown` column, any corresponding column must be
ignored and replaced with `null` values." A writer should not store such a column ("Omit from
data files"), but a reader that meets one returns null, not the stored values.
"""

from __future__ import annotations

from pathlib import Path

from iceberg_conformance.reference.scan import FileEntry, file_rows
from iceberg_conformance.reference.types import StructType, parse_type


def test_stored_unknown_column_reads_null(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = str(tmp_path / "data.parquet")
    schema = pa.schema([pa.field("id", pa.int64(), False, metadata={b"PARQUET:field_id": b"1"}),
                        pa.field("u", pa.int64(), True, metadata={b"PARQUET:field_id": b"2"})])
    pq.write_table(pa.Table.from_arrays([pa.array([1, 2]), pa.array([7, 8])], schema=schema), path)
    table = parse_type({"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "u", "required": False, "type": "unknown"}]})
    assert isinstance(table, StructType)
    doc = {"format-version": 3, "partition-specs": [{"spec-id": 0, "fields": []}]}
    entry = FileEntry({"file_path": path, "file_format": "PARQUET", "content": 0, "record_count": 2}, 1, 0)
    assert file_rows(doc, table, entry) == [{1: 1, 2: None}, {1: 2, 2: None}]
    # the same column under a long field is read (the file itself is fine)
    as_long = parse_type({"type": "struct", "fields": [
        {"id": 1, "name": "id", "required": True, "type": "long"},
        {"id": 2, "name": "u", "required": False, "type": "long"}]})
    assert isinstance(as_long, StructType)
    assert file_rows(doc, as_long, entry) == [{1: 1, 2: 7}, {1: 2, 2: 8}]
