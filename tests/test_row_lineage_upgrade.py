"""``metadata.upgrade-row-lineage`` on metadata chains written here by hand.

"Row Lineage for Upgraded Tables": when a table is upgraded to v3, its ``next-row-id`` starts
at 0 and the snapshots written before keep ``first-row-id`` unset. The chain below is the one
Iceberg Java writes (a v2 file, then the upgrade as a commit of its own, then an append that
assigns ids to every row of the table); each damaged copy breaks one of those facts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.units.lineage import check_upgrade

from .damage_assert import assert_damage_reported


def _snap(sid: int, seq: int, op: str, lineage: tuple[int, int] | None = None) -> dict[str, Any]:
    s: dict[str, Any] = {"snapshot-id": sid, "sequence-number": seq, "timestamp-ms": 1000 + seq,
                         "summary": {"operation": op}, "manifest-list": f"/t/metadata/snap-{sid}.avro"}
    if lineage is not None:
        s["first-row-id"], s["added-rows"] = lineage
    return s


def _chain(tmp: Path, upgrade: dict[str, Any] | None = None) -> tuple[dict[str, Any], str]:
    """(current v3 metadata, its path): v1.metadata.json (v2, snapshots 1 and 2),
    v2.metadata.json (the upgrade: v3, next-row-id 0), and the current one after an append
    that assigned ids to the 5 rows of the table (first-row-id 0, added-rows 5)."""
    v2 = {"format-version": 2, "snapshots": [_snap(1, 1, "append"), _snap(2, 2, "append")]}
    up = {"format-version": 3, "next-row-id": 0, "snapshots": copy.deepcopy(v2["snapshots"])}
    if upgrade is not None:
        up.update(upgrade)
    (tmp / "v1.metadata.json").write_text(json.dumps(v2), encoding="utf-8")
    (tmp / "v2.metadata.json").write_text(json.dumps(up), encoding="utf-8")
    current = {"format-version": 3, "next-row-id": 5,
               "snapshots": copy.deepcopy(v2["snapshots"]) + [_snap(3, 3, "append", (0, 5))],
               "metadata-log": [{"timestamp-ms": 1, "metadata-file": str(tmp / "v1.metadata.json")},
                                {"timestamp-ms": 2, "metadata-file": str(tmp / "v2.metadata.json")}]}
    return current, str(tmp / "v3.metadata.json")


def _rules(doc: dict[str, Any], path: str) -> list[str]:
    return [f.rule for f in check_upgrade(doc, path, lambda p: p)]


def test_upgraded_chain_passes(tmp_path: Path) -> None:
    doc, path = _chain(tmp_path)
    assert _rules(doc, path) == []


def test_upgrade_committed_with_an_append_passes(tmp_path: Path) -> None:
    """The upgrade in the same commit as an append: next-row-id is 0 plus the rows that append
    assigned."""
    doc, path = _chain(tmp_path, {"next-row-id": 5, "snapshots": [_snap(1, 1, "append"), _snap(2, 2, "append"),
                                                                  _snap(3, 3, "append", (0, 5))]})
    assert _rules(doc, path) == []


def test_upgrade_next_row_id_not_zero_is_reported(tmp_path: Path) -> None:
    doc, path = _chain(tmp_path, {"next-row-id": 7})
    found = check_upgrade(doc, path, lambda p: p)
    assert [f.rule for f in found] == ["metadata.upgrade-row-lineage"]
    assert "next-row-id is 7" in found[0].message and "/metadata-log/1/metadata-file" in found[0].location


@pytest.mark.parametrize("where", ["current", "upgrade"])
def test_pre_upgrade_snapshot_with_first_row_id_is_reported(tmp_path: Path, where: str) -> None:
    if where == "upgrade":  # the upgrade itself assigned ids to an existing snapshot
        doc, path = _chain(tmp_path, {"snapshots": [_snap(1, 1, "append", (0, 0)), _snap(2, 2, "append")]})
    else:
        doc, path = _chain(tmp_path)
        doc["snapshots"][1].update({"first-row-id": 0, "added-rows": 0})
    found = check_upgrade(doc, path, lambda p: p)
    assert [f.rule for f in found] == ["metadata.upgrade-row-lineage"]
    assert f"snapshot {1 if where == 'upgrade' else 2} was written before the upgrade" in found[0].message


def test_missing_or_unreadable_log_files_are_not_judged(tmp_path: Path) -> None:
    doc, path = _chain(tmp_path, {"next-row-id": 7})
    (tmp_path / "v1.metadata.json").unlink()  # the v2 file is gone: nothing shows the upgrade
    assert _rules(doc, path) == []
    doc, path = _chain(tmp_path, {"next-row-id": 7})
    assert _rules(doc, path) != []
    assert check_upgrade(doc, path, lambda p: None) == []  # files the checker may not read


def test_table_created_as_v3_is_not_judged(tmp_path: Path) -> None:
    first = {"format-version": 3, "next-row-id": 0, "snapshots": []}
    (tmp_path / "v1.metadata.json").write_text(json.dumps(first), encoding="utf-8")
    doc = {"format-version": 3, "next-row-id": 4, "snapshots": [_snap(1, 1, "append", (0, 4))],
           "metadata-log": [{"timestamp-ms": 1, "metadata-file": str(tmp_path / "v1.metadata.json")}]}
    assert _rules(doc, str(tmp_path / "v2.metadata.json")) == []


@pytest.fixture(scope="module")
def upgraded_table(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The reference writer's v2 table upgraded to v3 (golden table ref_v3_upgraded_row_lineage)."""
    from iceberg_conformance.suites.golden.generate import generate

    out = tmp_path_factory.mktemp("upgraded")
    summary = generate(out, ["ref_v3_upgraded_row_lineage"])
    assert not summary.get("skipped"), summary
    return str(out / "warehouse" / "db" / "ref_v3_upgraded_row_lineage")


def test_upgraded_reference_table_passes_and_its_damage_is_reported(upgraded_table: str, tmp_path: Path) -> None:
    """The written table (v2 metadata, the upgrade, a v3 append) passes; a copy whose current
    metadata gives the v2 snapshot a first-row-id is reported, with only the declared consequence."""
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.find import latest_metadata

    md = latest_metadata(upgraded_table)
    assert md is not None
    assert [f for f in check_table(md).findings if f.severity == "error"] == []
    assert_damage_reported(upgraded_table, tmp_path / "damaged", "metadata.upgrade-row-lineage")


def test_next_row_id_is_not_judged_across_a_missing_log_file(tmp_path: Path) -> None:
    """The log names the v2 file, the upgrade and a later v3 file, but the upgrade's file is
    gone: the next readable v3 file follows an append (snapshot 3, ids 0..4) and one more
    (snapshot 4, id 5) after snapshot 3 expired, so its next-row-id 6 is more than the rows of
    its snapshots with a first-row-id, and no finding. A pre-upgrade snapshot given a
    first-row-id there is still reported."""
    doc, path = _chain(tmp_path)
    doc["snapshots"] = doc["snapshots"][:2] + [_snap(4, 4, "append", (5, 1))]
    doc["next-row-id"] = 6
    later = copy.deepcopy(doc)
    del later["metadata-log"]
    (tmp_path / "v3.metadata.json").write_text(json.dumps(later), encoding="utf-8")
    doc["metadata-log"].append({"timestamp-ms": 3, "metadata-file": str(tmp_path / "v3.metadata.json")})
    (tmp_path / "v2.metadata.json").unlink()
    assert _rules(doc, str(tmp_path / "v4.metadata.json")) == []
    later["snapshots"][0].update({"first-row-id": 0, "added-rows": 0})
    (tmp_path / "v3.metadata.json").write_text(json.dumps(later), encoding="utf-8")
    assert _rules(doc, str(tmp_path / "v4.metadata.json")) == ["metadata.upgrade-row-lineage"]
