"""Normative levels: a target that fails a ``should`` case is ADVISORY (exit code 0), one that
fails a ``must`` case FAILs (exit code 1).

The suites run in a subprocess over a two-case vector tree written here (one ``should`` case, one
``must`` case of ``value-json``), against broken targets from ``tests/broken_targets.py``:
``LenientZulu`` accepts ``Z`` for ``+00:00`` when reading (the should case), ``ZuluWriter``
writes ``Z`` (breaking the must case). The residual suite runs the same way over three cases
of ``expressions/residual.json``: its tightness test, marked ``level("should")``, lowers the
cases it runs, so a residual that keeps every predicate is ADVISORY there and passes the
soundness test, while an unsound one FAILs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.vectors.cases import vectors_root

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "description": "timestamptz JSON values: +00:00 is the stored form",
    "operation": "value-json",
    "spec": [{"section": "Appendix D: Single-value serialization / JSON single-value serialization",
              "source": "current",
              "quote": "must include a zone offset and it must be '+00:00'"}],
    "format_versions": [1, 2, 3],
    "tests": [
        {"description": "timestamptz with Z instead of +00:00 is refused", "level": "should",
         "input": {"type": "timestamptz", "value": "2017-11-16T22:31:08.123456Z"},
         "error": {"rule": "values.timestamp-offset", "reason": "the stored form is +00:00"},
         "derived": {"from": "spec table", "agreed": []}},
        {"description": "timestamptz with +00:00 round-trips",
         "input": {"type": "timestamptz", "value": "2017-11-16T22:31:08.123456+00:00"},
         "expected": "2017-11-16T22:31:08.123456+00:00",
         "derived": {"from": "spec table", "agreed": []}},
    ],
}


@pytest.fixture
def vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "vectors"
    (root / "value-json").mkdir(parents=True)
    shutil.copy(vectors_root() / "case.schema.json", root / "case.schema.json")
    (root / "value-json" / "temporal.json").write_text(json.dumps(CASES), encoding="utf-8")
    monkeypatch.setenv("ICEBERG_CONFORMANCE_VECTORS", str(root))  # inherited by the subprocess
    return root


def run(pytester: pytest.Pytester, vectors: Path, target: str, report: Path) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        str(ROOT / "suites" / "test_value_json.py"), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
        "-p", "no:cacheprovider", "--target", f"tests.broken_targets:{target}", "-q", "-rx",
        "--conformance-report", str(report), f"--junitxml={report / 'junit.xml'}")


def matrix(report: Path) -> dict[str, Any]:
    rows = json.loads((report / "matrix.json").read_text())["rows"]
    assert len(rows) == 1, rows
    return dict(rows[0])


def test_failing_should_case_is_advisory_and_exit_0(pytester: pytest.Pytester, vectors: Path,
                                                   tmp_path: Path) -> None:
    report = tmp_path / "report"
    result = run(pytester, vectors, "LenientZulu", report)
    text = result.stdout.str()
    assert result.ret == 0, text[-3000:]
    row = matrix(report)
    assert (row["ADVISORY"], row["PASS"], row["FAIL"]) == (1, 1, 0), row
    assert "ADVISORY: a should-level case is not met" in text, text[-3000:]
    assert "| ADVISORY |" in (report / "matrix.md").read_text()
    assert "1 advisory" in (report / "matrix.html").read_text()
    junit = (report / "junit.xml").read_text()
    assert 'name="outcome" value="ADVISORY"' in junit and 'name="level" value="should"' in junit


def test_failing_must_case_still_fails(pytester: pytest.Pytester, vectors: Path, tmp_path: Path) -> None:
    report = tmp_path / "report"
    result = run(pytester, vectors, "ZuluWriter", report)
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    row = matrix(report)
    # the should case (Z refused, as the reference does) is a plain PASS; the must case FAILs
    assert (row["FAIL"], row["PASS"], row["ADVISORY"]) == (1, 1, 0), row
    assert "timestamptz with +00:00 round-trips" in text


def _residual_cases(*descriptions: str) -> dict[str, Any]:
    doc = json.loads((vectors_root() / "expressions" / "residual.json").read_text(encoding="utf-8"))
    doc["tests"] = [t for t in doc["tests"] if t["description"] in descriptions]
    assert len(doc["tests"]) == len(descriptions)
    return doc


RESIDUAL_CASES = ("truncate[10](i) p=(10): i < 20 -> true", "truncate[10](i) p=(10): i < 15 -> stays",
                  "identity(i) p=(null): i < 5 -> false")


def run_residuals(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> tuple[
        pytest.RunResult, dict[str, Any]]:
    """The residual suite on three cases: its soundness test takes the cases' level (must), its
    tightness test is marked level("should"), which lowers them."""
    root = tmp_path / "vectors"
    (root / "expressions").mkdir(parents=True)
    shutil.copy(vectors_root() / "case.schema.json", root / "case.schema.json")
    (root / "expressions" / "residual.json").write_text(json.dumps(_residual_cases(*RESIDUAL_CASES)), encoding="utf-8")
    monkeypatch.setenv("ICEBERG_CONFORMANCE_VECTORS", str(root))
    report = tmp_path / "report"
    result = pytester.runpytest_subprocess(
        str(ROOT / "suites" / "test_residuals.py"), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
        "-p", "no:cacheprovider", "--target", f"tests.broken_targets:{target}", "-q", "-rx",
        "--conformance-report", str(report), f"--junitxml={report / 'junit.xml'}")
    return result, matrix(report)


def test_level_marker_lowers_the_cases_of_a_vector_test(pytester: pytest.Pytester, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    result, row = run_residuals(pytester, tmp_path, monkeypatch, "KeepsEveryPredicate")
    text = result.stdout.str()
    assert result.ret == 0, text[-3000:]
    # sound everywhere (3 PASS); not tight where the partition decides the filter (2 ADVISORY)
    assert (row["PASS"], row["ADVISORY"], row["FAIL"]) == (4, 2, 0), row
    assert "keeps a predicate or constant the partition decides" in text, text[-3000:]


def test_unsound_residual_fails(pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result, row = run_residuals(pytester, tmp_path, monkeypatch, "NullsFirstResidual")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    assert (row["FAIL"], row["ADVISORY"]) == (1, 1), row
    assert "the residual and the filter disagree on rows of the partition" in text, text[-3000:]
