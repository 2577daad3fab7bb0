"""The ``row`` column (2147483544) of position delete files (checker/units/datafile.py).

A reference table gets a position delete file with deleted row values: read with the table's
field ids it checks clean; a row struct naming an id the table does not have, or a delete row
without row values, is reported.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.suites.golden import small_tables as t


def _field(name: str, typ: Any, fid: int, nullable: bool = False) -> pa.Field:
    return pa.field(name, typ, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})


def _with_rows(tmp_path: Path, rows: list[dict[str, Any] | None], data_id: int = 2) -> str:
    md = t.write_reference_table(tmp_path, 2)
    target = t.newest_data_file(md)
    path = os.path.join(t.metadata_doc(md)["location"], "data", "deletes-rows.parquet")
    row_type = pa.struct([_field("id", pa.int64(), 1), _field("data", pa.string(), data_id, True)])
    schema = pa.schema([_field("file_path", pa.string(), 2147483546), _field("pos", pa.int64(), 2147483545),
                        _field("row", row_type, 2147483544, nullable=any(r is None for r in rows))])
    n = len(rows)
    pq.write_table(pa.table({"file_path": [target["file_path"]] * n, "pos": list(range(n)), "row": rows},
                            schema=schema), path)
    df = {"content": 1, "file_path": path, "file_format": "PARQUET", "partition": target["partition"],
          "record_count": n, "file_size_in_bytes": os.path.getsize(path)}
    return str(t.commit_delete_file(md, df))


def _errors(md: str) -> set[str]:
    return {f.rule for f in check_table(md).findings if f.severity == "error"}


def test_row_values_with_table_field_ids_check_clean(tmp_path: Path) -> None:
    assert _errors(_with_rows(tmp_path, [{"id": 4, "data": "d"}, {"id": 5, "data": "e"}])) == set()


def test_row_value_field_ids_are_the_table_s(tmp_path: Path) -> None:
    md = _with_rows(tmp_path, [{"id": 4, "data": "d"}, {"id": 5, "data": "e"}], data_id=77)
    assert _errors(md) == {"deletes.position-row-field-id"}


@pytest.mark.parametrize("rows", [[{"id": 4, "data": "d"}, None], [None, None]], ids=["one missing", "all missing"])
def test_every_delete_row_has_its_values(tmp_path: Path, rows: list[dict[str, Any] | None]) -> None:
    assert _errors(_with_rows(tmp_path, rows)) == {"deletes.position-row-null"}


@pytest.mark.parametrize(("metrics", "rule"), [
    ({"value_counts": {"2147483545": 2}}, None),
    ({"value_counts": {"2147483545": 1}}, "data.value-count"),
    ({"lower_bounds": {"2147483545": (1).to_bytes(8, "little").hex()}}, "data.lower-bound"),
    ({"upper_bounds": {"2147483545": (0).to_bytes(8, "little").hex()}}, "data.upper-bound"),
], ids=["counts all deletes", "counts one of two", "lower bound above a position", "upper bound below one"])
def test_delete_file_metrics_cover_every_deleted_row(tmp_path: Path, metrics: dict[str, Any], rule: str | None) -> None:
    md = t.write_reference_table(tmp_path, 2)
    target = t.newest_data_file(md)
    path = os.path.join(t.metadata_doc(md)["location"], "data", "deletes-metrics.parquet")
    schema = pa.schema([_field("file_path", pa.string(), 2147483546), _field("pos", pa.int64(), 2147483545)])
    pq.write_table(pa.table({"file_path": [target["file_path"]] * 2, "pos": [0, 1]}, schema=schema), path)
    df = {"content": 1, "file_path": path, "file_format": "PARQUET", "partition": target["partition"],
          "record_count": 2, "file_size_in_bytes": os.path.getsize(path), **metrics}
    found = _errors(str(t.commit_delete_file(md, df)))
    assert found == ({rule} if rule else set())
