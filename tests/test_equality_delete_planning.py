"""Scan planning of equality delete files in the reference reader: a filter rules a delete file
out only by the metrics of its delete columns. "Delete columns are identified by id in the
delete file metadata column ``equality_ids``", and "Equality delete files store any subset of a
table's columns": a column stored beside the delete columns (Flink's upsert writer stored the
new row there) says nothing of the data rows the file deletes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iceberg_conformance.reference.scan import plan_files, scan
from iceberg_conformance.reference.writer import TableBuilder


def _field(fid: int, name: str, t: str, required: bool = False) -> dict[str, Any]:
    return {"id": fid, "name": name, "required": required, "type": t}


def _upserted(tmp_path: Path) -> str:
    """(1, 2021-01-01), (2, 2021-06-01); then one commit: an equality delete on id whose file
    stores (1, 2022-01-01), and the row (1, 2022-01-01)."""
    t = TableBuilder(str(tmp_path / "t"), 2, [_field(1, "id", "int", True), _field(2, "dt", "date")], bounds=True)
    t.append([{"id": 1, "dt": "2021-01-01"}, {"id": 2, "dt": "2021-06-01"}])
    new = [{"id": 1, "dt": "2022-01-01"}]
    t.equality_delete(new, ["id"], stored=("dt",), also_append=new)
    return str(t.metadata_path())


def _lt(column: str, value: Any) -> dict[str, Any]:
    return {"type": "lt", "left": {"type": "reference", "name": column}, "right": value}


def test_a_filter_on_a_stored_non_delete_column_keeps_the_delete_file(tmp_path: Path) -> None:
    metadata = _upserted(tmp_path)
    tasks = plan_files(metadata, None, _lt("dt", "2022-01-01"))
    older = [t for t in tasks if t.data.sequence_number == 1]
    # the delete file's dt bounds (2022-01-01) lie outside dt < 2022-01-01, its id bounds do not
    assert len(older) == 1 and len(older[0].equality_deletes) == 1
    assert scan(metadata, None, _lt("dt", "2022-01-01")) == [{"id": 2, "dt": "2021-06-01"}]


def test_a_filter_on_the_delete_column_may_still_rule_the_file_out(tmp_path: Path) -> None:
    metadata = _upserted(tmp_path)
    # id < 1: no row the delete (id 1) removes can match, so the file need not be read
    for task in plan_files(metadata, None, _lt("id", 1)):
        assert task.equality_deletes == []
    rows = scan(metadata, None, True)
    assert sorted((r["id"], r["dt"]) for r in rows) == [(1, "2022-01-01"), (2, "2021-06-01")]
