"""A ``replace`` snapshot changes no table data (checker/units/replace.py): its rows, read with the
reference reader, are its parent's. Iceberg Java's rewrite that committed its rewritten file at the
commit's sequence number, above equality deletes of the rows it replaced (apache/iceberg#3842), is
reported; the same rewrite at the replaced file's data sequence number (the fix: the rewrite's
starting sequence number) is not, and the check is bounded and runs in full checks only."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.damage import DAMAGES
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.plan import plan_units
from iceberg_conformance.checker.units import replace
from iceberg_conformance.suites.writers import judge, oplogs
from iceberg_conformance.suites.writers.drivers import common
from iceberg_conformance.suites.writers.registry import WRITERS

CASE = "iceberg-java-3842-merge-manifests-lost-sequence-number"
RULE = "snapshot.replace-changes-rows"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A v2 table the reference writer wrote with equality deletes that remove rows."""
    root = tmp_path_factory.mktemp("eq") / "t"
    cell = judge.run_cell(WRITERS["reference"], oplogs.load("v2-delete-equality"), str(root), known=[])
    assert cell.status == judge.PASS, cell.message
    path = common.latest_metadata(cell.table)
    assert path is not None
    return path


def _rewrite(table: str, out: Path, keep_sequence_number: bool) -> str:
    o = Overlay(table)
    case = next(d for d in DAMAGES if d.name == CASE)
    assert case.apply(o, random.Random(0)) is not None
    if keep_sequence_number:
        merged = o.manifest(next(p for p in o.dirty_manifests if p.endswith("rewrite-merged-m0.avro")))
        old = next(e for e in merged.records if e["status"] == 2)
        new = next(e for e in merged.records if e["status"] == 1)
        new["sequence_number"] = old["sequence_number"]   # the rewrite's starting sequence number
    return o.write(str(out))


def _rules(metadata: str, table: str, **kw: object) -> list[str]:
    result = check_table(metadata, allowed_roots=[str(Path(table).parent.parent)], **kw)  # type: ignore[arg-type]
    return [f.rule for f in result.findings if f.severity == "error"]


def test_rewrite_above_the_equality_deletes_changes_rows(table: str, tmp_path: Path) -> None:
    assert _rules(_rewrite(table, tmp_path / "bug", False), table) == [RULE]


def test_rewrite_at_the_replaced_files_sequence_number_keeps_rows(table: str, tmp_path: Path) -> None:
    assert _rules(_rewrite(table, tmp_path / "fixed", True), table) == []


def test_replace_rows_run_in_full_checks_only_and_within_the_bound(table: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    damaged = _rewrite(table, tmp_path / "bug", False)
    roots = [str(Path(table).parent.parent)]
    assert [u.kind for u in plan_units(damaged, roots)].count("replace-rows") == 1
    assert "replace-rows" not in [u.kind for u in plan_units(damaged, roots, metadata_only=True)]
    assert RULE not in _rules(damaged, table, metadata_only=True)
    monkeypatch.setattr(replace, "MAX_ROWS", 1)   # more rows than the check reads: not guessed, and said so
    over = check_table(damaged, allowed_roots=[str(Path(table).parent.parent)]).findings
    assert RULE not in [f.rule for f in over]
    said = [f for f in over if f.rule == "snapshot.replace-rows-not-compared"]
    assert len(said) == 1 and said[0].severity == "info" and "200,000" not in said[0].message, over
    assert "at most 1 rows" in said[0].message


def _replace_list(metadata: str) -> Path:
    import json

    doc = json.loads(Path(metadata).read_text())
    snap = next(s for s in doc["snapshots"] if s["summary"]["operation"] == "replace")
    return Path(snap["manifest-list"].removeprefix("file:"))


def test_an_unreadable_manifest_list_is_no_change_of_rows(table: str, tmp_path: Path) -> None:
    """A cut manifest list is reported by its own rule; the replace snapshot is not read as a
    snapshot of no rows."""
    fixed = _rewrite(table, tmp_path / "cut", True)
    listed = _replace_list(fixed)
    listed.write_bytes(listed.read_bytes()[:40])
    rules = _rules(fixed, table)
    assert "avro.list-unreadable" in rules and RULE not in rules, rules


def test_the_comparison_reads_no_manifest_list_outside_the_table(table: str, tmp_path: Path) -> None:
    """A replace snapshot whose manifest list lies outside the directories the run may read is
    not compared (files.outside-table says so), and that list is never opened."""
    import json
    import shutil
    import sys

    fixed = _rewrite(table, tmp_path / "out", True)
    listed = _replace_list(fixed)
    elsewhere = tmp_path / "elsewhere" / listed.name
    elsewhere.parent.mkdir()
    shutil.copy(listed, elsewhere)
    doc = json.loads(Path(fixed).read_text())
    for s in doc["snapshots"]:
        if s["summary"]["operation"] == "replace":
            s["manifest-list"] = str(elsewhere)
    Path(fixed).write_text(json.dumps(doc))
    opened: list[str] = []

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and isinstance(args[0], str) and args[0] == str(elsewhere):
            opened.append(args[0])
    sys.addaudithook(hook)
    result = check_table(fixed, allowed_roots=[str(Path(fixed).parent.parent)], workers=1)
    rules = [f.rule for f in result.findings]
    assert "files.outside-table" in rules and RULE not in rules, rules
    assert not opened, opened
