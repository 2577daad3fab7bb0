"""Partition values of data files without field ids, read through ``schema.name-mapping.default``.

PyIceberg's ``add_files`` registers Parquet files written without field ids in a partitioned
table and sets the name mapping ("Column Projection": "Values for field ids which are not
present in a data file must be resolved according to ... name mapping"). The checker cannot
match such a file's columns to the partition sources by field id, so it does not compare the
partition values with the rows (before, it read every source column as missing and reported
``data.partition-value`` on valid tables). Without a mapping the file is reported as lacking
field ids.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"},
          {"id": 2, "name": "grp", "required": False, "type": "string"}]
SPEC = [{"name": "grp", "transform": "identity", "source-id": 2, "field-id": 1000}]
MAPPING = [{"field-id": 1, "names": ["id"]}, {"field-id": 2, "names": ["grp"]}]


class _WithoutFieldIds(TableBuilder):
    """The reference writer, its data files written again without field ids."""

    def _write_parquet(self, path: str, fields: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
        out = super()._write_parquet(path, fields, rows)
        table = pq.read_table(path)
        table = table.cast(pa.schema([f.remove_metadata() for f in table.schema]))
        pq.write_table(table, path, compression="NONE", store_schema=False)
        out["file_size_in_bytes"] = os.path.getsize(path)
        return out


def _table(location: Path, mapped: bool) -> str:
    b = _WithoutFieldIds(str(location), 2, FIELDS, [SPEC])
    if mapped:
        b.properties["schema.name-mapping.default"] = json.dumps(MAPPING)
    b.append([{"id": 0, "grp": "a"}, {"id": 1, "grp": "b"}])
    return b.metadata_path()


def _errors(md: str) -> list[str]:
    return sorted({f.rule for f in check_table(md).findings if f.severity == "error"})


def test_name_mapped_files_of_a_partitioned_table_pass(tmp_path: Path) -> None:
    md = _table(tmp_path / "t", mapped=True)
    assert all(not pq.read_schema(p).field(0).metadata for p in (tmp_path / "t" / "data").rglob("*.parquet"))
    assert _errors(md) == []


def test_without_a_mapping_the_missing_field_ids_are_reported(tmp_path: Path) -> None:
    assert _errors(_table(tmp_path / "t", mapped=False)) == ["parquet.field-id-missing"]
