"""Deletion vectors that replace position delete files, and partition statistics that count them.

A v2 table written by the reference writer (``reference/writer.py`` TableBuilder) gets position
delete files, is upgraded to v3, and then gets one Puffin file holding a deletion vector for
each of three data files, the layout Iceberg Java writes. "Delete Formats > Deletion Vectors":
"If a DV is written for a data file, it must replace all previously written position delete
files"; "Scan Planning": such a vector "must contain all deletes from existing position delete
files". The position delete files stay live (readers ignore them once a DV is present), so the
checker compares each DV with them (``dv.holds-position-deletes``).

The table, partitioned by identity(grp) (partition field 1000):

* seq 1: data file A (grp a, ids 0-3); seq 1: data file B (grp b, ids 4-7)
* seq 2: data file C (grp a, ids 8-11)
* seq 3: a partition-scoped position delete file of partition a: A pos 1, C pos 0
* seq 4: a file-scoped position delete file of B: pos 2
* upgrade to v3; seq 5: one Puffin file: DV(A) = {1, 3}, DV(B) = {1, 2}, DV(C) = {0, 2}

Partition statistics of the last snapshot, derived by hand from the field table of "Partition
Statistics File" ("Count of position deletes across position delete files and deletion
vectors"; total_record_count: "Accurate count of records in a partition after applying
deletes"):

* grp a: data_record_count 8, position_delete_record_count 2 (file) + 2 + 2 (DVs) = 6, rows
  left 8 - |{A1, A3, C0, C2}| = 4
* grp b: data_record_count 4, position_delete_record_count 1 + 2 = 3, rows left 4 - 2 = 2
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from .damage_assert import assert_damage_reported

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"},
          {"id": 2, "name": "grp", "required": False, "type": "string"}]
SPEC = [{"name": "grp", "transform": "identity", "source-id": 2, "field-id": 1000}]
RULES = ("dv.holds-position-deletes", "files.partition-statistics-position-deletes",
         "files.partition-statistics-total-records")


def _rows(grp: str, ids: range) -> list[dict[str, Any]]:
    return [{"id": i, "grp": grp} for i in ids]


def _build(location: Path, dvs: dict[str, list[int]] | None = None) -> tuple[TableBuilder, dict[str, str]]:
    """The table above; ``dvs`` (A/B/C -> positions) replaces the deletion vectors."""
    b = TableBuilder(str(location), 2, FIELDS, [SPEC])
    b.append(_rows("a", range(0, 4)) + _rows("b", range(4, 8)))
    first = dict(b.data_files)
    a = next(p for p, df in first.items() if df["partition"] == {"1000": "a"})
    bb = next(p for p, df in first.items() if df["partition"] == {"1000": "b"})
    b.append(_rows("a", range(8, 12)))
    c = next(p for p in b.data_files if p not in first)
    files = {"A": a, "B": bb, "C": c}
    b.position_deletes({a: [1], c: [0]})
    b.position_deletes({bb: [2]}, file_scoped=True)
    b.upgrade(3)
    chosen = dvs if dvs is not None else {"A": [1, 3], "B": [1, 2], "C": [0, 2]}
    b.deletion_vectors({files[k]: v for k, v in chosen.items()})
    return b, files


def _field(name: str, t: Any, fid: int, nullable: bool = False) -> pa.Field:
    return pa.field(name, t, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})


def _attach_partition_stats(b: Any, table: Any) -> Path:
    """``table`` written as the partition statistics file of the builder's current snapshot,
    named in its current metadata file (edited in place: the table is the test's own)."""
    path = Path(b.meta_dir) / "partition-stats.parquet"
    pq.write_table(table, path)
    md = Path(b.metadata_path())
    doc = json.loads(md.read_text(encoding="utf-8"))
    doc["partition-statistics"] = [{"snapshot-id": doc["current-snapshot-id"], "statistics-path": str(path),
                                    "file-size-in-bytes": path.stat().st_size}]
    md.write_text(json.dumps(doc), encoding="utf-8")
    return md


def _with_partition_stats(b: TableBuilder, rows: dict[str, tuple[int, int | None]]) -> str:
    """Register a partition statistics file for the last snapshot: grp -> (position delete
    records, total_record_count); the other fields hold the hand-derived values above."""
    data = {"a": (8, 2), "b": (4, 1)}
    pos_files = {"a": 1, "b": 1}
    schema = pa.schema([
        _field("partition", pa.struct([_field("grp", pa.string(), 1000, True)]), 1),
        _field("spec_id", pa.int32(), 2), _field("data_record_count", pa.int64(), 3),
        _field("data_file_count", pa.int32(), 4), _field("total_data_file_size_in_bytes", pa.int64(), 5),
        _field("position_delete_record_count", pa.int64(), 6), _field("position_delete_file_count", pa.int32(), 7),
        _field("equality_delete_record_count", pa.int64(), 8), _field("equality_delete_file_count", pa.int32(), 9),
        _field("total_record_count", pa.int64(), 10, True), _field("dv_count", pa.int32(), 13)])
    table = pa.Table.from_pylist([
        {"partition": {"grp": g}, "spec_id": 0, "data_record_count": data[g][0], "data_file_count": data[g][1],
         "total_data_file_size_in_bytes": 1000, "position_delete_record_count": rows[g][0],
         "position_delete_file_count": pos_files[g], "equality_delete_record_count": 0,
         "equality_delete_file_count": 0, "total_record_count": rows[g][1], "dv_count": data[g][1]}
        for g in sorted(rows)], schema=schema)
    md = _attach_partition_stats(b, table)
    return str(md)


def _errors(md: str) -> list[Any]:
    return [f for f in check_table(md).findings if f.severity == "error"]


def test_dvs_holding_earlier_position_deletes_check_clean(tmp_path: Path) -> None:
    b, _ = _build(tmp_path / "t")
    md = _with_partition_stats(b, {"a": (6, 4), "b": (3, 2)})
    assert _errors(md) == []


def test_unknown_total_record_count_written_as_null_checks_clean(tmp_path: Path) -> None:
    b, _ = _build(tmp_path / "t")
    md = _with_partition_stats(b, {"a": (6, None), "b": (3, None)})
    assert _errors(md) == []


def test_one_dv_of_a_shared_puffin_file_missing_a_position(tmp_path: Path) -> None:
    # DV(C) lacks pos 0, which the partition-scoped file deletes; DV(A) and DV(B), in the same
    # Puffin file, hold theirs
    b, files = _build(tmp_path / "t", {"A": [1, 3], "B": [1, 2], "C": [2]})
    found = [f for f in _errors(b.metadata_path())]
    assert [f.rule for f in found] == ["dv.holds-position-deletes"], found
    f = found[0]
    assert files["C"] in f.message and "pos-deletes" in f.message and ": 0" in f.message
    assert "lacks 1 position(s)" in f.message and "snapshot 1005" in f.message
    assert f.location.endswith("data_file/content_offset")


def test_dv_missing_a_file_scoped_position_delete(tmp_path: Path) -> None:
    b, files = _build(tmp_path / "t", {"A": [1, 3], "B": [1], "C": [0, 2]})
    found = _errors(b.metadata_path())
    assert [f.rule for f in found] == ["dv.holds-position-deletes"], found
    assert files["B"] in found[0].message and ": 2" in found[0].message


def test_position_deletes_of_other_data_files_are_not_required(tmp_path: Path) -> None:
    # DV(A) need not hold C's pos 0, though the partition-scoped file that deletes it applies to A
    b, _ = _build(tmp_path / "t", {"A": [1], "B": [2], "C": [0]})
    assert _errors(b.metadata_path()) == []


@pytest.mark.parametrize("rows, rule", [
    ({"a": (5, 4), "b": (3, 2)}, "files.partition-statistics-position-deletes"),  # DVs of a left out
    ({"a": (2, 4), "b": (1, 2)}, "files.partition-statistics-position-deletes"),  # only v2 files counted
    ({"a": (6, 8), "b": (3, 2)}, "files.partition-statistics-total-records"),     # unknown, not null
])
def test_wrong_partition_statistics_are_reported(tmp_path: Path, rows: dict[str, tuple[int, int | None]],
                                                 rule: str) -> None:
    b, _ = _build(tmp_path / "t")
    found = _errors(_with_partition_stats(b, rows))
    assert {f.rule for f in found} == {rule}, found
    assert all("grp" not in f.message or "1000=" in f.message for f in found)
    assert all(f.location == "/partition-statistics/0/statistics-path" for f in found)


def test_partition_statistics_position_count_also_in_metadata_only_mode(tmp_path: Path) -> None:
    b, _ = _build(tmp_path / "t")
    md = _with_partition_stats(b, {"a": (5, 4), "b": (3, 2)})
    found = [f for f in check_table(md, metadata_only=True).findings if f.rule in RULES]
    assert [f.rule for f in found] == ["files.partition-statistics-position-deletes"]
    assert "1000=\"a\"" in found[0].message and "is 5" in found[0].message and "hold 6" in found[0].message


@pytest.mark.parametrize("rule", ["dv.holds-position-deletes", "files.partition-statistics-position-deletes",
                                  "files.partition-statistics-total-records"])
def test_damage_cases_are_reported(tmp_path: Path, rule: str) -> None:
    b, _ = _build(tmp_path / "t")
    md = _with_partition_stats(b, {"a": (6, 4), "b": (3, 2)})
    assert_damage_reported(md, tmp_path / "damaged", rule)


def test_damaged_dv_is_one_blob_of_the_shared_puffin_file(tmp_path: Path) -> None:
    from iceberg_conformance.checker.damage import write_damaged

    b, _ = _build(tmp_path / "t")
    _pristine, copies, _ = write_damaged(b.metadata_path(), str(tmp_path / "damaged"),
                                         rules=["dv.holds-position-deletes"])
    found = [f for f in check_table(copies[0].metadata).findings if f.severity == "error"]
    assert [f.rule for f in found] == ["dv.holds-position-deletes"]
    assert "00006-dvs.puffin" in found[0].message and "lacks 1 position(s)" in found[0].message


@pytest.mark.parametrize("claimed, reported", [(1, False), (2, True)])
def test_partition_tuples_match_by_value_not_form(tmp_path: Path, claimed: int, reported: bool) -> None:
    # a v3 table partitioned by day(d): the manifest holds the partition as days from 1970-01-01
    # (the transform's int result, 2024-01-02 is day 19724), the Parquet file as a DATE value, as
    # Iceberg Java writes it
    fields = [{"id": 1, "name": "id", "required": True, "type": "long"},
              {"id": 2, "name": "d", "required": False, "type": "date"}]
    b = TableBuilder(str(tmp_path / "t"), 3, fields,
                     [[{"name": "d_day", "transform": "day", "source-id": 2, "field-id": 1000}]])
    b.append([{"id": 0, "d": "2024-01-02"}, {"id": 1, "d": "2024-01-02"}, {"id": 2, "d": None}])
    dated = next(p for p, df in b.data_files.items() if df["partition"] == {"1000": 19724})
    b.deletion_vectors({dated: [1]})
    schema = pa.schema([_field("partition", pa.struct([_field("d_day", pa.date32(), 1000, True)]), 1),
                        _field("spec_id", pa.int32(), 2), _field("position_delete_record_count", pa.int64(), 6)])
    import datetime

    table = pa.Table.from_pylist([{"partition": {"d_day": None}, "spec_id": 0, "position_delete_record_count": 0},
                                  {"partition": {"d_day": datetime.date(2024, 1, 2)}, "spec_id": 0,
                                   "position_delete_record_count": claimed}], schema=schema)
    md = _attach_partition_stats(b, table)
    found = [f for f in check_table(str(md), metadata_only=True).findings
             if f.rule == "files.partition-statistics-position-deletes"]
    assert bool(found) == reported, found
    if reported:
        assert "1000=19724" in found[0].message and "is 2" in found[0].message
