"""First Row ID Assignment over a manifest written before an upgrade to v3 that holds a DELETED
entry (``snapshot.manifest-first-row-id-range``).

Iceberg Java's DELETE on a v1/v2 table rewrites the manifest with the removed file DELETED and
the others EXISTING, all without first_row_id. After the upgrade, the next commit assigns that
manifest a first_row_id and counts its ``added_rows_count + existing_rows_count`` ("A simple
and valid approach"); DELETED entries are no data files of the snapshot and inherit no row id
(Iceberg Java reads the file after the DELETED one with ids continuing from the one before it).
So the manifest assigns ids to its live files only.

The table (reference writer): v2, snapshot 1001 appends files A, B and C (partitions a, b, c,
2 rows each, one manifest); snapshot 1002 removes B (the manifest rewritten: A and C EXISTING,
B DELETED); upgrade to v3; snapshot 1003 appends D (1 row): first-row-id 0, D's manifest gets 0
and the rewritten one 1, added-rows 1 + 4 = 5 (A's ids 1..2, C's 3..4).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"},
          {"id": 2, "name": "grp", "required": False, "type": "string"}]
SPEC = [{"name": "grp", "transform": "identity", "source-id": 2, "field-id": 1000}]


def _table(location: Path) -> str:
    b = TableBuilder(str(location), 2, FIELDS, [SPEC])
    b.append([{"id": i, "grp": "abc"[i // 2]} for i in range(6)])
    mf = b.manifests[0]
    entries: list[dict[str, Any]] = []
    for e in b.entries[mf["manifest_path"]]:
        df = e["data_file"]
        removed = df["partition"] == {"1000": "b"}
        entries.append({"status": 2 if removed else 0, "snapshot_id": 1002 if removed else 1001,
                        "sequence_number": 1, "file_sequence_number": 1, "data_file": dict(df)})
    b._commit("delete", {}, replace=(mf["manifest_path"], 0, entries))
    b.upgrade(3)
    b.append([{"id": 6, "grp": "d"}])
    return b.metadata_path()


def test_deleted_entries_take_no_row_ids(tmp_path: Path) -> None:
    md = _table(tmp_path / "t")
    snap = json.loads(Path(md).read_text(encoding="utf-8"))["snapshots"][-1]
    assert (snap["first-row-id"], snap["added-rows"]) == (0, 5)
    assert [f for f in check_table(md).findings if f.severity == "error"] == []


def test_a_range_too_short_for_the_live_files_is_still_reported(tmp_path: Path) -> None:
    """added-rows 4 leaves C's second row (id 4) outside the snapshot's range."""
    md = _table(tmp_path / "t")
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    doc["snapshots"][-1]["added-rows"], doc["next-row-id"] = 4, 4
    Path(md).write_text(json.dumps(doc), encoding="utf-8")
    rules = {f.rule for f in check_table(md).findings if f.severity == "error"}
    assert "snapshot.manifest-first-row-id-range" in rules
