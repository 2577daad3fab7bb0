"""The Java and JavaScript harnesses answer through the protocol (skipped where the JDK and
the Iceberg runtime jar, or node and icebird, are not installed). Expected values are the
spec's: Appendix B's hash examples, Appendix D's binary forms, the golden tables' rows."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.api import Rejected, Unsupported
from iceberg_conformance.suites.targets import TargetLoadError, load_target
from iceberg_conformance.suites.targets.subprocess.check import check


def _load(name: str) -> Any:
    try:
        return load_target(name)
    except TargetLoadError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def java() -> Any:
    t = _load("harness-java")
    yield t
    t.close()


def test_java_harness_declares_only_what_it_implements(java: Any) -> None:
    assert java.name == "harness-java" and java.language == "java"
    assert java.capabilities == frozenset(
        {"hash", "transform", "binary", "value-json", "schema-json", "partition-spec-json", "metadata",
         "avro-schema", "delete-planning"})
    report = check(java.command)
    assert report.problems == [], report.text()


def test_java_harness_answers_with_iceberg_java(java: Any) -> None:
    # Appendix B: "34" (int) hashes to 2017239379; "iceberg" (string) to 1210000089
    assert java.hash("int", 34) == 2017239379
    assert java.hash("string", "iceberg") == 1210000089
    # Appendix D: a long is 8 bytes little-endian
    assert java.to_bytes("long", 1) == bytes.fromhex("0100000000000000")
    assert java.transform("day", "date", "2017-11-16") == 17486
    with pytest.raises(Rejected):
        java.result_type("day", "string")
    with pytest.raises(Unsupported):
        java.hash("boolean", True)
    with pytest.raises(Unsupported, match="does not implement"):
        java.call("residual", {}, {}, True, {}, True)


def test_js_harness_reads_golden_tables_unfiltered() -> None:
    golden = os.environ.get("ICEBERG_CONFORMANCE_GOLDEN")
    if not golden or not (Path(golden) / "expected" / "v2_statistics.json").is_file():
        pytest.skip("needs $ICEBERG_CONFORMANCE_GOLDEN with the golden table v2_statistics")
    js = _load("harness-js")
    try:
        assert js.capabilities == frozenset({"table-scan"}) and js.language == "javascript"
        doc = json.loads((Path(golden) / "expected" / "v2_statistics.json").read_text(encoding="utf-8"))
        metadata = str(Path(golden) / "warehouse" / doc["metadata"])
        for snap in doc["snapshots"]:
            if not snap["expired"]:
                rows = js.scan(metadata, snap["snapshot_id"], True)
                key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
                assert sorted(map(key, rows)) == sorted(map(key, snap["rows"])), snap["label"]
        with pytest.raises(Unsupported, match="no row filter"):
            js.scan(metadata, None, {"type": "eq", "term": "id", "value": 1})
    finally:
        js.close()
