"""Statistics files against the metadata that registers them (checker/units/statistics.py).

A reference table gets a Puffin statistics file and a Parquet partition statistics file, both
registered in its metadata the way the spec's field tables describe them; the checker reports
nothing about them. Each test then breaks one recorded fact and expects its rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.puffin import theta_blob, write_puffin
from iceberg_conformance.reference.writer import write_table

RULES = ("files.statistics-footer", "files.partition-statistics-fields", "files.partition-statistics-order")


def _field(name: str, t: Any, fid: int, nullable: bool = False) -> pa.Field:
    return pa.field(name, t, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})


def _partition_stats(path: Path, version: int, days: list[int | None], drop: int | None = None) -> None:
    """A partition statistics file: one row per partition value, the fields of the spec's table."""
    fields = [
        (1, _field("partition", pa.struct([_field("ts_day", pa.int32(), 1000, True)]), 1), lambda d: {"ts_day": d}),
        (2, _field("spec_id", pa.int32(), 2), lambda d: 0),
        (3, _field("data_record_count", pa.int64(), 3), lambda d: 2),
        (4, _field("data_file_count", pa.int32(), 4), lambda d: 1),
        (5, _field("total_data_file_size_in_bytes", pa.int64(), 5), lambda d: 100),
    ]
    if version >= 3:
        fields += [(fid, _field(name, t, fid), lambda d: 0) for fid, name, t in (
            (6, "position_delete_record_count", pa.int64()), (7, "position_delete_file_count", pa.int32()),
            (8, "equality_delete_record_count", pa.int64()), (9, "equality_delete_file_count", pa.int32()),
            (13, "dv_count", pa.int32()))]
    kept = [(f, fn) for fid, f, fn in fields if fid != drop]
    schema = pa.schema([f for f, _ in kept])
    table = pa.Table.from_pylist([{f.name: fn(d) for f, fn in kept} for d in days], schema=schema)
    pq.write_table(table, path)


def _table(tmp_path: Path, version: int, **change: Any) -> str:
    md = Path(write_table(str(tmp_path / "t"), version))
    doc = json.loads(md.read_text(encoding="utf-8"))
    snap = doc["snapshots"][-1]
    sid, seq = snap["snapshot-id"], snap.get("sequence-number", 0)
    blob = theta_blob([b"\x01\x00\x00\x00\x00\x00\x00\x00"], [1], sid, seq)
    puffin = tmp_path / "t" / "metadata" / "stats.puffin"
    data = write_puffin([blob])
    puffin.write_bytes(data)
    footer = len(data) - data.rindex(b"PFA1", 0, len(data) - 4)
    entry = {"snapshot-id": sid, "statistics-path": str(puffin), "file-size-in-bytes": len(data),
             "file-footer-size-in-bytes": change.get("footer", footer),
             "blob-metadata": [{"type": change.get("blob_type", "apache-datasketches-theta-v1"), "snapshot-id": sid,
                                "sequence-number": seq, "fields": [1],
                                "properties": change.get("properties", {"ndv": "1"})}]}
    pstats = tmp_path / "t" / "metadata" / "partition-stats.parquet"
    _partition_stats(pstats, version, change.get("days", [None, 19000, 19001]), change.get("drop"))
    doc["statistics"] = [entry]
    doc["partition-statistics"] = [{"snapshot-id": sid, "statistics-path": str(pstats),
                                    "file-size-in-bytes": pstats.stat().st_size}]
    md.write_text(json.dumps(doc), encoding="utf-8")
    return str(md)


def _rules(md: str) -> list[str]:
    return [f.rule for f in check_table(md, metadata_only=True).findings if f.rule in RULES]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_registered_statistics_files_check_clean(tmp_path: Path, version: int) -> None:
    assert _rules(_table(tmp_path, version)) == []


def test_footer_size_is_compared_with_the_puffin_footer(tmp_path: Path) -> None:
    clean = _table(tmp_path / "a", 2)
    footer = json.loads(Path(clean).read_text())["statistics"][0]["file-footer-size-in-bytes"]
    assert _rules(_table(tmp_path / "b", 2, footer=footer + 4)) == ["files.statistics-footer"]


def test_blob_metadata_names_a_blob_of_the_footer(tmp_path: Path) -> None:
    assert _rules(_table(tmp_path / "a", 2, blob_type="apache-datasketches-kll-v1")) == ["files.statistics-footer"]
    assert _rules(_table(tmp_path / "b", 2, properties={"ndv": "2"})) == ["files.statistics-footer"]
    assert _rules(_table(tmp_path / "c", 2, properties={})) == []  # the empty subset


@pytest.mark.parametrize("version, drop", [(1, 4), (2, 1), (3, 13), (3, 8)])
def test_a_required_partition_statistics_field_is_missing(tmp_path: Path, version: int, drop: int) -> None:
    assert _rules(_table(tmp_path, version, drop=drop)) == ["files.partition-statistics-fields"]


@pytest.mark.parametrize("days", [[19001, 19000], [19000, None]])
def test_partition_statistics_rows_sort_ascending_nulls_first(tmp_path: Path, days: list[int | None]) -> None:
    assert _rules(_table(tmp_path, 2, days=days)) == ["files.partition-statistics-order"]


@pytest.mark.parametrize(("earlier_uuid", "exists", "found"), [
    (None, True, []),                                       # the same table-uuid
    ("0d9c4c33-0d4c-4b4e-8e0c-2b3c5a1e9f00", True, ["metadata.table-uuid-changed"]),
    ("0d9c4c33-0d4c-4b4e-8e0c-2b3c5a1e9f00", False, []),     # a log entry whose file is gone
], ids=["same uuid", "other uuid", "file gone"])
def test_metadata_log_files_keep_the_table_uuid(tmp_path: Path, earlier_uuid: str | None, exists: bool,
                                                found: list[str]) -> None:
    md = Path(write_table(str(tmp_path / "t"), 2))
    doc = json.loads(md.read_text(encoding="utf-8"))
    earlier = dict(doc, **({"table-uuid": earlier_uuid} if earlier_uuid else {}))
    old = md.parent / "00000-earlier.metadata.json"
    if exists:
        old.write_text(json.dumps(earlier), encoding="utf-8")
    doc["metadata-log"] = [{"metadata-file": str(old), "timestamp-ms": doc["last-updated-ms"] - 1}]
    md.write_text(json.dumps(doc), encoding="utf-8")
    rules = [f.rule for f in check_table(str(md), metadata_only=True).findings if f.rule == "metadata.table-uuid-changed"]
    assert rules == found


def test_statistics_blobs_are_computed_for_table_field_ids(tmp_path: Path) -> None:
    md = Path(write_table(str(tmp_path / "t"), 2))
    doc = json.loads(md.read_text(encoding="utf-8"))
    snap = doc["snapshots"][-1]
    puffin = md.parent / "stats-unknown-field.puffin"
    data = write_puffin([theta_blob([b"\x01"], [999], snap["snapshot-id"], snap.get("sequence-number", 0))])
    puffin.write_bytes(data)
    doc["statistics"] = [{"snapshot-id": snap["snapshot-id"], "statistics-path": str(puffin),
                          "file-size-in-bytes": len(data),
                          "file-footer-size-in-bytes": len(data) - data.rindex(b"PFA1", 0, len(data) - 4),
                          "blob-metadata": []}]
    md.write_text(json.dumps(doc), encoding="utf-8")
    rules = [f.rule for f in check_table(str(md), metadata_only=True).findings if f.rule.startswith("files.statistics")]
    assert rules == ["files.statistics-fields"]


def test_partition_statistics_of_a_snapshot_from_before_the_upgrade_keep_the_v2_fields(tmp_path: Path) -> None:
    """A v2 table's partition statistics file (no dv_count, which only v3 requires) stays
    registered for its snapshot when the table is upgraded to v3: that snapshot has no
    first-row-id ("existing snapshots are not modified"), so the file is judged by the v2 table.
    A snapshot of the v3 table (first-row-id set) still needs the v3 fields."""
    md = Path(_table(tmp_path / "a", 2))
    doc = json.loads(md.read_text(encoding="utf-8"))
    doc["format-version"], doc["next-row-id"] = 3, 0
    md.write_text(json.dumps(doc), encoding="utf-8")
    assert _rules(str(md)) == []
    doc["snapshots"][-1]["first-row-id"], doc["snapshots"][-1]["added-rows"] = 0, 0
    md.write_text(json.dumps(doc), encoding="utf-8")
    # fields 6, 7, 8, 9 (optional in v2) and 13 (v3 only) are missing
    assert _rules(str(md)) == ["files.partition-statistics-fields"] * 5
