"""The report is the run: every outcome pytest counts is in the target x area matrix, the totals
equal pytest's with and without xdist, and ``matrix.json`` carries the overall status and the
exit code it implies, which is the exit code of the run (also of ``iceberg-conformance run``).

A tiny test module written here holds one test of each kind pytest tells apart (passed, failed,
an error in a fixture's setup, an error in its teardown, skipped, an input the target cannot handle,
xfailed, xpassed; a test of a capability the target lacks is not generated), two tests that judge no target, and a module that cannot be imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

TINY = '''
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("teardown broke")

def test_passes(target): pass
def test_fails(target): assert False
def test_fixture_error(target, broken): pass
def test_teardown_error(target, bad_teardown): pass
def test_skipped(target): pytest.skip("not here")
@pytest.mark.capability("no-such-capability")
def test_undeclared_capability(target): pass
def test_unsupported(target):
    from iceberg_conformance.suites.harness.outcomes import unsupported
    unsupported(target.name, "this input")
@pytest.mark.xfail(reason="expected", strict=True)
def test_xfail(target): assert False
@pytest.mark.xfail(reason="not strict", strict=False)
def test_xpass(target): pass
def test_kit_passes(): pass
def test_kit_fixture_error(broken): pass
'''

XDIST = {"serial": [], "xdist": ["-n", "2"]}


@pytest.fixture
def tiny(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")  # nothing of the repository's configuration applies
    pytester.makepyfile(test_tiny=TINY, test_broken_module="import no_such_module_anywhere\n")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--target", "reference",
                                           "--conformance-report", str(report), *args)
    return result, json.loads((report / "matrix.json").read_text())


def row(matrix: dict[str, Any], target: str, area: str) -> dict[str, int]:
    found = [r for r in matrix["rows"] if (r["target"], r["area"]) == (target, area)]
    assert len(found) == 1, matrix["rows"]
    return {k: v for k, v in found[0].items() if k not in ("target", "area") and v}


@pytest.mark.parametrize("mode", XDIST)
def test_every_outcome_is_in_the_matrix(tiny: pytest.Pytester, mode: str) -> None:
    result, matrix = run(tiny, "--continue-on-collection-errors", *XDIST[mode])
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    pytest_counts = result.parseoutcomes()
    # a test of a capability no target declares is not generated: deselected, with a count (an
    # xdist controller does not sum its workers' deselections; the plugin's line below says it)
    assert pytest_counts == {"passed": 3, "failed": 1, "errors": 4, "skipped": 2, "xfailed": 1, "xpassed": 1,
                             **({"deselected": 1} if mode == "serial" else {})}, text
    assert matrix["not_declared"] == {"reference": {"no-such-capability": 1}}
    assert "reference: 1 tests not generated for capabilities it does not declare: no-such-capability (1)" in text
    # the matrix's totals are pytest's: passed and xpassed are PASS, errors ERROR, skipped
    # UNSUPPORTED or SKIP, xfailed KNOWN-FAILURE or ADVISORY
    totals = matrix["totals"]
    assert totals["PASS"] == pytest_counts["passed"] + pytest_counts["xpassed"]
    assert totals["FAIL"] == pytest_counts["failed"]
    assert totals["ERROR"] == pytest_counts["errors"]
    assert totals["UNSUPPORTED"] + totals["SKIP"] == pytest_counts["skipped"]
    assert totals["KNOWN-FAILURE"] + totals["ADVISORY"] == pytest_counts["xfailed"]
    assert totals == {o: sum(r[o] for r in matrix["rows"]) for o in totals}
    # where each outcome is: the target's row, the kit's own tests, the module not collected
    assert row(matrix, "reference", "kit") == {"PASS": 3, "FAIL": 1, "ERROR": 2, "UNSUPPORTED": 1,
                                               "KNOWN-FAILURE": 1, "SKIP": 1}
    assert row(matrix, "(kit)", "kit") == {"PASS": 1, "ERROR": 1}
    assert row(matrix, "(kit)", "collection") == {"ERROR": 1}
    assert (matrix["status"], matrix["exit_code"]) == ("failed", result.ret)
    # matrix.md says the same, and the terminal shows the matrix (under xdist too)
    md = (tiny.path / "report" / "matrix.md").read_text()
    assert md.startswith("**status: failed (exit code 1):"), md
    assert "| reference | kit | 3 | 1 | 2 | 1 | 1 | 0 | 1 |" in md, md
    assert "iceberg-conformance: target x area" in text and "status: failed (exit code 1)" in text, text[-3000:]


@pytest.mark.parametrize("mode", XDIST)
def test_green_run_is_green(tiny: pytest.Pytester, mode: str) -> None:
    result, matrix = run(tiny, "--ignore=test_broken_module.py", "-k", "passes", *XDIST[mode])
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert {k: v for k, v in result.parseoutcomes().items() if k != "deselected"} == {"passed": 2}
    assert (matrix["status"], matrix["exit_code"]) == ("passed", 0)
    assert matrix["totals"]["PASS"] == 2 and sum(matrix["totals"].values()) == 2


def test_collection_error_interrupts_and_says_so(tiny: pytest.Pytester) -> None:
    result, matrix = run(tiny)
    assert result.ret == 2, result.stdout.str()[-3000:]
    assert (matrix["status"], matrix["exit_code"]) == ("interrupted", 2)
    assert matrix["totals"]["ERROR"] == result.parseoutcomes()["errors"] == 1


def test_a_run_that_ends_before_its_report_leaves_no_earlier_report(tiny: pytest.Pytester) -> None:
    """A green matrix of an earlier run must not stand for a run that ends before writing its
    own (here an unknown target, a usage error): plain pytest with --conformance-report too."""
    result, matrix = run(tiny, "--ignore=test_broken_module.py", "-k", "passes")
    assert matrix["status"] == "passed"
    again = tiny.runpytest_subprocess("-p", "no:cacheprovider", "--target", "no.such.module:Target",
                                      "--conformance-report", str(tiny.path / "report"))
    assert again.ret == 4, again.stderr.str()[-2000:]
    assert not any((tiny.path / "report" / f).exists() for f in ("matrix.json", "matrix.md", "matrix.html"))


def test_run_command_exits_with_pytests_code(tmp_path: Path) -> None:
    """``iceberg-conformance run`` exits with pytest's exit code: 1 for a target that fails, with
    the matrix saying so; 5 when the selection runs nothing (no longer turned into 1)."""
    def run_command(report: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "iceberg_conformance", "run", "--report", str(report), *args],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)

    failing = run_command(tmp_path / "failing", "--target", "tests.broken_targets:SignedModuloBucket",
                          "--", "-k", "test_transforms and bucket")
    assert failing.returncode == 1, failing.stdout[-3000:] + failing.stderr[-3000:]
    matrix = json.loads((tmp_path / "failing" / "matrix.json").read_text())
    assert (matrix["status"], matrix["exit_code"]) == ("failed", 1) and matrix["totals"]["FAIL"] > 0, matrix
    # the report folder: the matrix links its coverage page and the failing cases (with their text)
    page = (tmp_path / "failing" / "matrix.html").read_text()
    assert 'href="coverage.html"' in page and "MUST coverage: " in (tmp_path / "failing" / "coverage.html").read_text()
    cases = page.split("Cases that did not pass", 1)[1]
    assert 'class="o-FAIL">FAIL</span>' in cases and "test_transforms.py::" in cases and "bucket" in cases
    nothing = run_command(tmp_path / "nothing", "--", "-k", "no_such_test_anywhere")
    assert nothing.returncode == 5, nothing.stdout[-3000:] + nothing.stderr[-3000:]
    matrix = json.loads((tmp_path / "nothing" / "matrix.json").read_text())
    assert (matrix["status"], matrix["exit_code"]) == ("no tests ran", 5), matrix


def test_xdist_matrix_counts_every_pass_of_a_real_suite(pytester: pytest.Pytester) -> None:
    """With ``-n 2`` the matrix counts every test the workers passed (not one
    worker's share) and the controller prints it."""
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(
        str(ROOT / "suites" / "test_hash.py"), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
        "-p", "no:cacheprovider", "--target", "reference", "-n", "2", "--conformance-report", str(report))
    text = result.stdout.str()
    assert result.ret == 0, text[-3000:]
    passed = result.parseoutcomes()["passed"]
    md_rows = [line.split("|")[1:-1] for line in (report / "matrix.md").read_text().splitlines()
               if line.startswith("| ") and not line.startswith("| target")]
    assert sum(int(cells[2]) for cells in md_rows) == passed > 100, (passed, md_rows)
    assert "iceberg-conformance: target x area" in text and "reference  hash" in text, text[-3000:]


def test_a_crashed_worker_is_a_failure_in_the_matrix(pytester: pytest.Pytester) -> None:
    """xdist reports a test whose worker died as failed; no test's hook saw that report, and the
    matrix still counts it (row ``(kit)``, area ``unattributed``): a crash never leaves it green."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_crash="import os\n\ndef test_ok(target): pass\n\ndef test_crash(target): os._exit(1)\n")
    result, matrix = run(pytester, "-n", "2")
    assert result.ret == 1, result.stdout.str()[-3000:]
    assert result.parseoutcomes() == {"failed": 1, "passed": 1}
    assert row(matrix, "(kit)", "unattributed") == {"FAIL": 1}
    assert (matrix["status"], matrix["exit_code"]) == ("failed", 1)
