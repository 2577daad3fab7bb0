"""Commit protocol: file-system and metastore commits, conflict resolution and retry.

Spec: "Commit Conflict Resolution and Retry", "File System Tables", "Metastore Tables".

* ``test_commit`` runs the ``commit`` vectors: given base and current metadata and an
  operation, the retry rules say whether the commit can be reapplied (expected
  ``{"retry": true}``) or conflicts (an error naming the rule). Targets need the optional
  method ``commit_retry(input)``; others are UNSUPPORTED.
* The other tests exercise the reference's commit mechanisms: a lost race fails instead of
  overwriting, and 8 processes x 50 appends end in 400 commits with a linear history.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import uuid
from pathlib import Path

import pytest

from iceberg_conformance.reference import commit as c
from iceberg_conformance.suites.api import COMMIT_RETRY
from iceberg_conformance.suites.harness.judge import run_case


@pytest.mark.vectors("commit")
@pytest.mark.capability(COMMIT_RETRY)
def test_commit(target, case):
    run_case(case, target.name, lambda: target.commit_retry(case.input),
             reports_rules=getattr(target, "reports_rules", False))


def _new_fs_table(tmp_path: Path) -> str:
    loc = str(tmp_path / "t")
    c.commit_file_system(loc, 0, c.initial_metadata(loc, str(uuid.UUID(int=1))))
    return loc


@pytest.mark.area("commit")
def test_file_system_commit_lost_race_does_not_overwrite(tmp_path: Path):
    loc = _new_fs_table(tmp_path)
    base = c.read_version(loc, 1)
    c.commit_file_system(loc, 1, c.with_appended_snapshot(base, 11))
    with pytest.raises(c.CommitConflict):
        c.commit_file_system(loc, 1, c.with_appended_snapshot(base, 22))
    assert c.read_version(loc, 2)["current-snapshot-id"] == 11
    assert c.current_version(loc) == 2
    assert sorted(os.listdir(Path(loc) / "metadata")) == ["v1.metadata.json", "v2.metadata.json", "version-hint.text"]


@pytest.mark.area("commit")
def test_file_system_version_hint_is_only_a_hint(tmp_path: Path):
    loc = _new_fs_table(tmp_path)
    c.commit_file_system(loc, 1, c.with_appended_snapshot(c.read_version(loc, 1), 11))
    (Path(loc) / "metadata" / c.VERSION_HINT).write_text("1")
    assert c.current_version(loc) == 2


@pytest.mark.area("commit")
def test_metastore_check_and_put(tmp_path: Path):
    db = str(tmp_path / "catalog.db")
    c.create_metastore(db)
    loc = str(tmp_path / "t")
    first = c.commit_metastore_file(db, "t", loc, None, 0, c.initial_metadata(loc, str(uuid.UUID(int=2))))
    base = json.loads(Path(first).read_text())
    second = c.commit_metastore_file(db, "t", loc, first, 1, c.with_appended_snapshot(base, 11))
    with pytest.raises(c.CommitConflict):
        c.commit_metastore_file(db, "t", loc, first, 1, c.with_appended_snapshot(base, 22))
    assert c.metastore_location(db, "t") == second
    assert os.path.basename(second).startswith("00002-")
    assert len(list((Path(loc) / "metadata").iterdir())) == 2  # the loser's file is removed


WRITERS, APPENDS = 8, 50


def _check_history(meta: dict, commits: int) -> None:
    snaps = meta["snapshots"]
    assert len(snaps) == commits, f"{len(snaps)} snapshots for {commits} commits"
    assert meta["last-sequence-number"] == commits
    for i, s in enumerate(snaps):
        assert s["sequence-number"] == i + 1
        if i:
            assert s["parent-snapshot-id"] == snaps[i - 1]["snapshot-id"], f"snapshot {i} does not follow {i - 1}"
    want = {w * 1000 + i for w in range(1, WRITERS + 1) for i in range(APPENDS)}
    assert {s["snapshot-id"] for s in snaps} == want, "a commit was lost or duplicated"


@pytest.mark.slow
@pytest.mark.area("commit")
@pytest.mark.parametrize("style", ["fs", "metastore"])
def test_concurrent_appends_are_linear(tmp_path: Path, style: str):
    """8 writer processes x 50 appends each: 400 commits, each snapshot's parent the previous."""
    loc = str(tmp_path / "t")
    db = str(tmp_path / "catalog.db")
    if style == "fs":
        _new_fs_table(tmp_path)
    else:
        c.create_metastore(db)
        c.commit_metastore_file(db, "t", loc, None, 0, c.initial_metadata(loc, str(uuid.UUID(int=3))))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WRITERS) as pool:
        jobs = [pool.apply_async(c.append_many, (style, loc, db, "t",
                                                 [w * 1000 + i for i in range(APPENDS)]))
                for w in range(1, WRITERS + 1)]
        conflicts = [j.get(timeout=120) for j in jobs]
    if style == "fs":
        final = c.read_version(loc, c.current_version(loc))
        assert c.current_version(loc) == WRITERS * APPENDS + 1
    else:
        final = json.loads(Path(c.metastore_location(db, "t") or "").read_text())
    _check_history(final, WRITERS * APPENDS)
    assert sum(conflicts) > 0, "no writer ever lost a race: the test did not exercise concurrency"
