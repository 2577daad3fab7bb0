"""``manifests.first-row-id-changed`` on a table upgraded to v3 with two branches.

"Row Lineage for Upgraded Tables": "After upgrading, new snapshots in different branches will
assign disjoint ID ranges to existing data files, based on the table's `next-row-id` when the
snapshot is committed. For a data file in multiple branches, a writer may write the
`first_row_id` from another branch or may assign a new `first_row_id` to the data file". Iceberg
Java does the latter: a manifest written before the upgrade (no first_row_id) is listed by the
first commit on each branch with another manifest first_row_id, so its files inherit other ids
on each branch. The checker compares a file's ids along each snapshot's ancestry only.

The table (reference writer): v2, snapshot 1001 appends A (3 rows); upgrade to v3; snapshot 1002
on main appends B (2 rows) and assigns A the ids 2..4; snapshot 1003 on branch ``b`` (parent
1001) appends C (1 row) and assigns A the ids 6..8 (next-row-id was 5).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"}]
RULE = "manifests.first-row-id-changed"


def _rows(ids: range) -> list[dict[str, Any]]:
    return [{"id": i} for i in ids]


def _branched(location: Path) -> str:
    b = TableBuilder(str(location), 2, FIELDS, [[]])
    b.append(_rows(range(0, 3)))
    b.upgrade(3)
    before = copy.deepcopy(b.manifests)
    b.append(_rows(range(3, 5)))
    main = b.snapshots[-1]
    b.manifests = before             # the branch starts from snapshot 1001
    b.snapshots = [main, b.snapshots[0]]  # the next commit's parent is 1001, its id 1003
    b.append(_rows(range(5, 6)))
    md = Path(b.metadata_path())
    doc = json.loads(md.read_text(encoding="utf-8"))
    branch = doc["snapshots"][-1]
    assert branch["snapshot-id"] == 1003 and branch["parent-snapshot-id"] == 1001
    doc["snapshots"] = sorted(doc["snapshots"], key=lambda s: s["snapshot-id"])
    doc["current-snapshot-id"] = main["snapshot-id"]
    doc["refs"] = {"main": {"snapshot-id": main["snapshot-id"], "type": "branch"},
                   "b": {"snapshot-id": 1003, "type": "branch"}}
    doc["snapshot-log"] = [x for x in doc["snapshot-log"] if x["snapshot-id"] != 1003]
    md.write_text(json.dumps(doc), encoding="utf-8")
    return str(md)


def test_branches_after_an_upgrade_may_assign_other_ids(tmp_path: Path) -> None:
    md = _branched(tmp_path / "t")
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    assert [(s["snapshot-id"], s.get("first-row-id"), s.get("added-rows")) for s in doc["snapshots"]] == \
        [(1001, None, None), (1002, 0, 5), (1003, 5, 4)]
    errors = [f for f in check_table(md).findings if f.severity == "error"]
    assert errors == []


def test_ids_are_compared_along_each_snapshots_ancestry() -> None:
    """A snapshot against its nearest ancestor listing the file (an EXISTING file keeps its id);
    two branches are not compared. (The damage case of the rule, an EXISTING entry's id raised by
    one, is run in tests/test_row_lineage_damage.py.)"""
    from iceberg_conformance.checker.plan import _changed_first_row_ids

    parents = {1001: None, 1002: 1001, 1003: 1001, 1004: 1002, 1005: 1004}
    main, branch = {2: ["m", 0, 1002]}, {6: ["m", 0, 1003]}
    assert len(_changed_first_row_ids({1002: main, 1003: branch}, parents)) == 1
    assert sorted(_changed_first_row_ids({1002: main, 1004: {3: ["n", 0, 1004]}}, parents)) == [2, 3]
    # 1004 does not list the file: 1005 is compared with 1002
    assert sorted(_changed_first_row_ids({1002: main, 1005: {3: ["n", 0, 1005]}}, parents)) == [2, 3]
    assert len(_changed_first_row_ids({1002: main, 1005: {2: ["n", 0, 1005]}}, parents)) == 1
    # two values within one snapshot
    assert sorted(_changed_first_row_ids({1002: {2: ["m", 0, 1002], 7: ["n", 1, 1002]}}, parents)) == [2, 7]
