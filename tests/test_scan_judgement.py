"""The scan suites catch readers and planners that lose rows or misplace deletes, with failures
that name the table, the filter, the data file and the rows that differ.

A plugin (written into the run's directory) wraps the reference's ``table-scan`` and
``scan-plan`` adapters the way real bugs behave: a reader that prunes the partition cat=b, a
planner that drops that partition's data files, and a planner that attaches every delete file of
the snapshot to every data file. ``suites/test_scan.py`` runs against them in a subprocess over
a reference-written golden table made here without Spark (``ref_v2_equality_deletes``: two
partitions, equality deletes scoped to one partition and global)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TABLE = "ref_v2_equality_deletes"

PLUGIN = '''
import os

BUG = os.environ["SCAN_BUG"]


def partition_b(metadata, snapshot_id):
    """The data files of partition cat=b (partition field 1000), as the manifests record them."""
    from iceberg_conformance.reference import scan as ref

    doc = ref._metadata(metadata)
    tasks = ref.plan(doc, ref._snapshot(doc, snapshot_id))
    return {t.data.path for t in tasks if (t.data.data_file.get("partition") or {}).get("1000") == "b"}


class Broken:
    def __init__(self, inner):
        self.inner = inner

    def scan(self, metadata, snapshot_id, row_filter=True):
        rows = self.inner.scan(metadata, snapshot_id, row_filter)
        return [r for r in rows if r.get("cat") != "b"] if BUG == "drop-partition" else rows

    def plan_files(self, metadata, snapshot_id, row_filter=True):
        tasks = self.inner.plan_files(metadata, snapshot_id, row_filter)
        if BUG == "drop-partition":
            return [t for t in tasks if str(t["data_file"]) not in partition_b(metadata, snapshot_id)]
        if BUG == "deletes-everywhere":
            every = sorted({d for t in tasks for d in t["delete_files"]})
            return [dict(t, delete_files=every) for t in tasks]
        return tasks


def pytest_collection_modifyitems(items):
    for module in {item.module for item in items if hasattr(item, "module")}:
        if hasattr(module, "_target") and not getattr(module, "_broken", False):
            original = module._target
            module._target = lambda name, original=original: Broken(original(name))
            module._broken = True
'''


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from iceberg_conformance.suites.golden.generate import generate

    out = tmp_path_factory.mktemp("golden")
    summary = generate(out, [TABLE])
    assert TABLE not in summary.get("skipped", {}), summary
    return out


def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, golden: Path, bug: str,
        select: str) -> pytest.RunResult:
    pytester.makepyfile(broken_scan=PLUGIN)
    monkeypatch.setenv("ICEBERG_CONFORMANCE_GOLDEN", str(golden))
    monkeypatch.setenv("SCAN_BUG", bug)
    return pytester.runpytest_subprocess(
        str(ROOT / "suites" / "test_scan.py"), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
        "-p", "no:cacheprovider", "-p", "broken_scan", "-q", "-rf", "-k", select)


def test_the_adapters_as_they_are_pass(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                       golden: Path) -> None:
    result = run(pytester, monkeypatch, golden, "none", f"{TABLE} and reference")
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.assert_outcomes(passed=14)


def test_a_reader_that_prunes_a_partition_fails_naming_table_filter_file_rows(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, golden: Path) -> None:
    result = run(pytester, monkeypatch, golden, "drop-partition", f"test_scan and {TABLE} and reference")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    failed = [line for line in result.outlines if line.startswith("FAILED")]
    # every filter with a matching row in cat=b fails; cat = 'a' does not
    assert any("cat-eq-b" in line for line in failed) and not any("cat-eq-a" in line for line in failed), failed
    assert f"table:    {TABLE}" in text and "filter:   cat-eq-b: cat = 'b'" in text, text[-3000:]
    assert '- missing:    {"cat": "b"' in text, text[-3000:]
    assert "data file /" in text and "of the rows above" in text, text[-3000:]


def test_a_planner_that_drops_a_partition_fails_naming_the_file(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, golden: Path) -> None:
    result = run(pytester, monkeypatch, golden, "drop-partition", f"test_plan and {TABLE} and reference")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    assert "matching row(s) but is not planned" in text, text[-3000:]
    assert f"table:    {TABLE}" in text and "filter:   cat-eq-b" in text, text[-3000:]
    failed = [line for line in result.outlines if line.startswith("FAILED")]
    assert not any("cat-eq-a" in line for line in failed), failed


def test_a_planner_that_attaches_deletes_out_of_scope_fails(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, golden: Path) -> None:
    result = run(pytester, monkeypatch, golden, "deletes-everywhere", f"test_plan and {TABLE} and reference")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    assert "is attached but does not apply to it" in text, text[-3000:]
    assert "eq-deletes" in text, text[-3000:]
