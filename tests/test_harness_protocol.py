"""The harness protocol (docs/harness-protocol.md): its schema, the target that speaks it,
harness-check on broken harnesses, and the Python harness giving the reference's outcomes."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from iceberg_conformance.harnesses.compare import compare
from iceberg_conformance.suites.api import CAPABILITY_PROTOCOLS, Rejected
from iceberg_conformance.suites.targets import TargetLoadError, load_target
from iceberg_conformance.suites.targets.subprocess import (
    HarnessCrashed, HarnessTarget, HarnessTimeout, MalformedReply, protocol_schema,
)
from iceberg_conformance.suites.targets.subprocess.check import check
from iceberg_conformance.suites.targets.subprocess.protocol import OPERATIONS, schema_text

ROOT = Path(__file__).resolve().parent.parent
TOY = Path(__file__).resolve().parent / "harnesses" / "toy.py"


def toy(mode: str) -> list[str]:
    return [sys.executable, str(TOY), mode]


def test_schema_file_is_the_operation_table() -> None:
    assert (ROOT / "harnesses" / "protocol.schema.json").read_text(encoding="utf-8") == schema_text(), (
        "regenerate harnesses/protocol.schema.json from suites/targets/subprocess/protocol.py")


def test_every_protocol_method_is_an_operation_with_its_parameters() -> None:
    methods = {}
    for cap, proto in CAPABILITY_PROTOCOLS.items():
        for name, fn in inspect.getmembers(proto, inspect.isfunction):
            if not name.startswith("_"):
                methods[name] = (cap, [p for p in inspect.signature(fn).parameters if p != "self"])
    assert set(methods) <= set(OPERATIONS), f"methods without an operation: {set(methods) - set(OPERATIONS)}"
    for op in OPERATIONS.values():
        target_params = [p for p in inspect.signature(getattr(HarnessTarget, op.op)).parameters if p != "self"]
        assert [p.rstrip("_") for p in target_params] == list(op.params), op.op
        if op.op in methods:
            cap, params = methods[op.op]
            assert cap == op.capability and [p.rstrip("_") for p in params] == list(op.params), op.op
        else:
            assert op.optional, f"{op.op} is no Protocol method, so it must be optional"


def test_documented_operations_are_the_table() -> None:
    doc = (ROOT / "docs" / "harness-protocol.md").read_text(encoding="utf-8")
    for op in OPERATIONS:
        assert f"`{op}`" in doc, f"docs/harness-protocol.md does not describe {op}"


def test_the_schema_refuses_a_request_with_an_unknown_argument() -> None:
    from jsonschema import Draft202012Validator

    v = Draft202012Validator(protocol_schema())
    assert v.is_valid({"op": "hash", "id": 1, "type": "int", "value": 34})
    assert not v.is_valid({"op": "hash", "id": 1, "type": "int", "value": 34, "seed": 0})
    assert not v.is_valid({"op": "to_bytes", "id": 1, "type": "int"})
    assert not v.is_valid({"op": "scan", "id": 1, "metadata_path": "m.json", "snapshot_id": 5, "row_filter": True})


# --- harness-check on broken harnesses ------------------------------------------------------

@pytest.mark.parametrize(("mode", "said"), [
    ("bad-json-start", "the harness replied malformed: not JSON"),
    ("no-language", "'language' is a required property"),
    ("wrong-id", "the reply's id is 3, but it answers request 2"),
    ("string-hash", "is not of type 'integer', 'null'"),
    ("crash", "the harness exited (exit code 3) instead of answering 'hash'"),
    ("hang", "the harness did not answer 'hash' within 2 s"),
    ("no-exit", "the harness did not exit within 5 s of stop"),
    ("print-junk", "not JSON"),
])
def test_harness_check_names_what_is_wrong(mode: str, said: str) -> None:
    report = check(toy(mode), timeout=2)
    assert report.problems, report.text()
    assert any(said in p for p in report.problems), report.text()


def test_harness_check_passes_a_well_formed_harness() -> None:
    report = check(toy("good"), timeout=5)
    assert report.problems == [], report.text()
    assert "hash: well-formed result" in report.text()


def test_harness_check_command_line_exit_codes() -> None:
    cli = [sys.executable, "-m", "iceberg_conformance", "harness-check"]
    good = subprocess.run(cli + toy("good"), capture_output=True, text=True, timeout=60)
    bad = subprocess.run(cli + toy("wrong-id"), capture_output=True, text=True, timeout=60)
    assert good.returncode == 0, good.stdout + good.stderr
    assert bad.returncode == 1 and "PROBLEM" in bad.stdout, bad.stdout + bad.stderr


# --- the target ----------------------------------------------------------------------------------

def test_target_declares_what_the_harness_declared() -> None:
    t = HarnessTarget(toy("good"))
    try:
        assert t.name == "harness:toy" and t.capabilities == frozenset({"hash"})
        assert "python" in t.version
        assert t.hash("int", 34) == 2017239379
    finally:
        t.close()


def test_a_crash_fails_that_request_and_the_harness_is_restarted() -> None:
    t = HarnessTarget(toy("crash-on-13"))
    try:
        first = t._proc
        with pytest.raises(HarnessCrashed, match="exit code 3"):
            t.hash("int", 13)
        assert t.hash("int", 34) == 2017239379
        assert t._proc is not None and t._proc is not first
    finally:
        t.close()


def test_a_hang_times_out_and_the_harness_is_restarted() -> None:
    t = HarnessTarget(toy("hang-on-13"), timeout=1)
    try:
        with pytest.raises(HarnessTimeout, match="within 1 s"):
            t.hash("int", 13)
        assert t.hash("int", 34) == 2017239379
    finally:
        t.close()


def test_a_malformed_reply_is_named_as_such() -> None:
    t = HarnessTarget(toy("string-hash"))
    try:
        with pytest.raises(MalformedReply, match="the harness replied malformed"):
            t.hash("int", 34)
    finally:
        t.close()


def test_harness_prefix_loads_and_reports_a_broken_start() -> None:
    cmd = subprocess.list2cmdline(toy("good"))
    t = load_target(f"harness:{cmd}")
    t.close()
    with pytest.raises(TargetLoadError, match="required property"):
        load_target(f"harness:{subprocess.list2cmdline(toy('no-language'))}")
    with pytest.raises(TargetLoadError, match="needs a command"):
        load_target("harness:")


def test_python_harness_carries_refusals_with_their_rule() -> None:
    t = load_target("harness-python")
    try:
        assert t.reports_rules
        with pytest.raises(Rejected) as e:
            t.result_type("day", "string")
        assert e.value.rule == "transforms.source-type"
        assert t.to_bytes("long", 1) == bytes.fromhex("0100000000000000")
    finally:
        t.close()


# --- through the suites ----------------------------------------------------------------------

def _run(tmp_path: Path, *targets: str, suite: str = "suites/test_hash.py") -> tuple[subprocess.CompletedProcess[str], Path]:
    junit = tmp_path / "junit.xml"
    args = [sys.executable, "-m", "pytest", suite, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
    for t in targets:
        args += ["--target", t]
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=600), junit


def test_a_malformed_reply_fails_the_case_in_the_suites(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, f"harness:{subprocess.list2cmdline(toy('string-hash'))}")
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "the harness replied malformed" in proc.stdout


def test_python_harness_gives_the_reference_outcomes(tmp_path: Path) -> None:
    """The protocol's conformance test on one suite (the CI lane runs every vector suite)."""
    proc, junit = _run(tmp_path, "reference", "harness-python")
    assert proc.returncode == 0, proc.stdout[-3000:]
    compared, problems, counts = compare(junit, "reference", "harness-python")
    assert compared > 50 and problems == [], problems[:10]


def test_compare_finds_a_harness_that_answers_otherwise(tmp_path: Path) -> None:
    name = f"harness:{subprocess.list2cmdline(toy('good'))}"
    _, junit = _run(tmp_path, "reference", name)
    compared, problems, _ = compare(junit, "reference", "harness:toy")
    assert compared > 50
    # the toy hashes only int 34 right: every other hash case differs from the reference
    assert any(": reference PASS, harness:toy FAIL" in p for p in problems), problems[:5]
    assert not any("::test_hash[hash/appendix-b > int 34 hashes to 2017239379]" in p for p in problems)
    # it declares no transform: the bucket tests are not generated for it (a capability it does
    # not declare), so only the reference ran them
    assert any("test_hash_via_bucket[" in p and "only reference ran it" in p for p in problems)
    # where both run, those are left out: what remains is the hashes the toy gets wrong
    _, both, _ = compare(junit, "reference", "harness:toy", where_both_run=True)
    assert both and not any("only reference ran it" in p for p in both)
    assert any(": reference PASS, harness:toy FAIL" in p for p in both)


def test_compare_reads_outcomes_per_test(tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    case = ('<testcase classname="suites.test_hash" name="test_hash[{t}-hash/x &gt; {c}]">'
            '<properties><property name="outcome" value="{o}"/></properties></testcase>')
    junit.write_text("<testsuites><testsuite>" + "".join([
        case.format(t="a", c="one", o="PASS"), case.format(t="b", c="one", o="PASS"),
        case.format(t="a", c="two", o="PASS"), case.format(t="b", c="two", o="FAIL"),
        case.format(t="a", c="three", o="UNSUPPORTED"), case.format(t="b", c="three", o="PASS"),
        case.format(t="a", c="four", o="PASS"),
    ]) + "</testsuite></testsuites>", encoding="utf-8")
    compared, problems, _ = compare(junit, "a", "b")
    assert compared == 3 and len(problems) == 3
    assert "suites.test_hash::test_hash[hash/x > two]: a PASS, b FAIL" in problems
    assert any("four" in p and "only a ran it" in p for p in problems)
    compared, problems, _ = compare(junit, "a", "b", where_both_run=True)
    assert compared == 2 and problems == ["suites.test_hash::test_hash[hash/x > two]: a PASS, b FAIL"]

