"""A snapshot's operation against the manifests it added (checker/units/snapshot.py)."""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.checker.units.snapshot import check_operation


def _snap(op: str) -> dict[str, Any]:
    return {"snapshot-id": 7, "summary": {"operation": op}}


def _mf(content: int = 0, added: int | None = 0, deleted: int | None = 0, by: int = 7) -> dict[str, Any]:
    return {"manifest_path": "m.avro", "added_snapshot_id": by, "content": content,
            "added_files_count": added, "deleted_files_count": deleted}


@pytest.mark.parametrize(("op", "manifests"), [
    ("append", [_mf(added=2)]),
    ("append", [_mf(added=2), _mf(deleted=3, by=6)]),      # an older manifest's counts are not this snapshot's
    ("delete", [_mf(deleted=1)]),
    ("delete", [_mf(content=1, added=1)]),                  # delete files added
    ("overwrite", [_mf(added=1, deleted=1)]),
    ("replace", [_mf(content=1, added=1, deleted=1)]),
    ("append", [_mf(added=None, deleted=None)]),            # null counts are not judged
], ids=["append adds", "older manifest", "delete removes", "delete adds deletes", "overwrite", "replace", "null counts"])
def test_operation_matches_its_files(op: str, manifests: list[dict[str, Any]]) -> None:
    assert check_operation(_snap(op), manifests, "t") == []


@pytest.mark.parametrize(("op", "manifests"), [
    ("append", [_mf(added=1, deleted=1)]),
    ("append", [_mf(added=1), _mf(content=1, added=1)]),
    ("delete", [_mf(added=1, deleted=1)]),
], ids=["append removes", "append adds deletes", "delete adds data"])
def test_operation_contradicted_by_its_files(op: str, manifests: list[dict[str, Any]]) -> None:
    assert [f.rule for f in check_operation(_snap(op), manifests, "t")] == ["snapshot.operation-files"]


def _lm(path: str, frid: int | None, content: int = 0) -> dict[str, Any]:
    return {"manifest_path": path, "first_row_id": frid, "content": content}


@pytest.mark.parametrize(("parent", "now", "rules"), [
    ([_lm("a", 0)], [_lm("a", 0), _lm("b", 10)], []),                       # kept; b assigned at first-row-id
    ([_lm("a", 0)], [_lm("a", 3), _lm("b", 10)], ["kept"]),                  # a's id changed
    ([_lm("a", None)], [_lm("a", 10)], []),                                  # assigned now (upgrade)
    ([_lm("a", None)], [_lm("a", 4)], ["kept"]),                             # assigned below first-row-id
    ([], [_lm("b", 9)], ["kept"]),                                           # a new manifest below it
    ([_lm("d", 0, content=1)], [_lm("d", None, content=1)], []),             # delete manifests have none
], ids=["kept and assigned", "changed", "assigned after upgrade", "assigned low", "new and low", "deletes"])
def test_first_row_ids_against_the_parent_list(parent: list[dict[str, Any]], now: list[dict[str, Any]],
                                               rules: list[str]) -> None:
    from iceberg_conformance.checker.units.snapshot import check_first_row_ids_kept

    snap = {"snapshot-id": 8, "first-row-id": 10, "added-rows": 5}
    found = check_first_row_ids_kept(snap, now, parent, "t")
    assert [f.rule for f in found] == ["snapshot.manifest-first-row-id-kept" for _ in rules]
