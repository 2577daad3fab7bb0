"""The suites catch broken implementations, with failures that explain themselves.

Each broken target (tests/broken_targets.py) is run through the real suites in a subprocess;
the tests assert which cases fail and that the failure text names the vector file, the spec
clause, the expected and the actual value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_suite(pytester: pytest.Pytester, suite: str, target: str, *extra: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        str(ROOT / "suites" / suite), "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
        "-p", "no:cacheprovider", "--target", f"tests.broken_targets:{target}", "-q", "-rN", *extra)


def failed_ids(result: pytest.RunResult) -> list[str]:
    return [line.split(" - ")[0] for line in result.outlines if line.startswith("FAILED ")]


def test_signed_modulo_bucket_fails_on_negative_hashes(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "test_transforms.py", "SignedModuloBucket", "-k", "bucket", "-rf")
    text = result.stdout.str()
    failed = [line for line in result.outlines if line.startswith("FAILED")]
    assert result.ret == 1, text[-3000:]
    assert failed, "a signed-modulo bucket passed every bucket vector"
    assert all("bucket" in line for line in failed), f"unrelated failures: {failed[:5]}"
    # the failure explains itself: vector file, spec clause, expected and actual
    assert "vectors/transforms/" in text and "Bucket Transform Details" in text, text[-3000:]
    assert "expected:" in text and "actual:" in text
    # ...and a bucket that agrees with the spec on non-negative hashes is not flagged there
    result_ok = run_suite(pytester, "test_transforms.py", "SignedModuloBucket", "-k", "identity")
    assert result_ok.ret == 0, result_ok.stdout.str()[-2000:]


def test_little_endian_uuid_fails_uuid_serialization(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "test_binary.py", "LittleEndianUuid", "-rf")
    text = result.stdout.str()
    failed = [line for line in result.outlines if line.startswith("FAILED")]
    assert result.ret == 1, text[-3000:]
    assert failed and all("uuid" in line.lower() for line in failed), f"failures: {failed[:8]}"
    assert "f79c3e09677c4bbda4793f349cb785e7" in text.lower(), "the expected big-endian bytes are not shown"
    assert "Appendix D" in text


def test_crash_is_not_a_rejection(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "test_schema_json.py", "CrashInsteadOfReject", "-rf")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    assert "the target crashed with AttributeError (expected a rejection)" in text


def test_hash_read_through_bucket_says_so(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "test_hash.py", "LittleEndianUuidBucket", "-k", "via_bucket", "-rf")
    text = result.stdout.str()
    failed = failed_ids(result)
    assert result.ret == 1, text[-3000:]
    assert failed and all("uuid" in line for line in failed), f"failures: {failed[:8]}"
    assert "via:      the hash was read through the transform bucket[2147483647]" in text, text[-3000:]


def test_property_failure_names_its_clause(pytester: pytest.Pytester) -> None:
    result = run_suite(pytester, "test_properties.py", "SignedModuloBucket", "-k", "bucket_in_range")
    text = result.stdout.str()
    assert result.ret == 1, text[-3000:]
    assert "iceberg-conformance: spec clause" in text and "Bucket Transform Details" in text, text[-3000:]



def test_property_tests_alone_catch_every_classic_value_bug(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Each classic value bug (tests/broken_targets.VALUE_BUGS) is caught by the property test
    of suites/test_properties.py named for it, run alone (no vector is loaded; one run, every
    broken target): the test fails with the spec clause and a failing example of the bug's type
    kind."""
    from xml.etree import ElementTree

    from tests.broken_targets import VALUE_BUGS, __dict__ as classes

    ids = {broken: f"{prop}[{classes[broken].name}]" for broken, (prop, _) in VALUE_BUGS.items()}
    targets = [a for broken in VALUE_BUGS for a in ("--target", f"tests.broken_targets:{broken}")]
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest_subprocess(
        *(f"{ROOT / 'suites' / 'test_properties.py'}::{i}" for i in ids.values()), *targets,
        "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), "-p", "no:cacheprovider", "-q",
        f"--junitxml={junit}")
    cases = {c.get("name"): c for c in ElementTree.parse(junit).iter("testcase")}
    missed = {}
    for broken, (prop, kind) in VALUE_BUGS.items():
        case = cases.get(ids[broken])
        failure = None if case is None else case.find("failure")
        text = "" if failure is None else (failure.get("message") or "") + (failure.text or "")
        if failure is None or "example: prop(" not in text or f'type="{kind}' not in text:
            missed[broken] = f"{ids[broken]}: " + ("not run" if case is None else "passed" if failure is None
                                                   else f"no failing example of type {kind!r}")
    assert not missed, f"classic value bugs the property tests do not catch: {missed}\n" + result.stdout.str()[-3000:]
    assert result.ret == 1
