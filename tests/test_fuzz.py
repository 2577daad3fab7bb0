"""The fuzz suite, bounded (issue 13): a few hundred mutants per target, seeded from the vectors
and from reference-written tables with position deletes and a deletion vector. No mutant may
raise anything but the kit's own rejections, reach ``checker.internal-error``, take over 5 s or
yield an error finding without a file and a location. The long run and replaying one input:
``python -m tests.fuzz --help`` (tests/fuzz.py)."""

from __future__ import annotations

import os

from tests import fuzz

#: inputs per target (about 25 s on 2 cores)
COUNT = int(os.environ.get("ICEBERG_CONFORMANCE_FUZZ_COUNT", "600"))


def test_fuzz_bounded() -> None:
    summary = fuzz.run(list(fuzz.TARGETS), COUNT * len(fuzz.TARGETS), seed=20261123, jobs=2, timeout=5.0)
    report = summary.render()
    print(report)
    assert all(summary.per_target[t] == COUNT for t in fuzz.TARGETS), report
    assert not summary.failures, report


def test_mutators_are_deterministic() -> None:
    import random

    seed = b'{"a": [1, 2, {"b": "c"}], "format-version": 2}'
    for i in range(50):
        a = fuzz._json_or_bytes(random.Random(f"x:{i}"), seed, seed)
        b = fuzz._json_or_bytes(random.Random(f"x:{i}"), seed, seed)
        assert a == b


def test_deep_and_huge_json_are_written() -> None:
    text = fuzz.dumps({"n": fuzz.BigNum("9" * 5000), "deep": fuzz._deep(__import__("random").Random(3))})
    assert b"9" * 5000 in text


#: inputs a long run found (seed, target, index), replayed on every run once they are fixed:
#: a 5,000-digit partition-spec-id header (int() over Python's digit limit), a manifest-list
#: record whose partitions field is an int; manifests whose Avro schema names a type Avro does
#: not have (Polars' reader panicked: a BaseException), snapshot ids that are an object or an
#: array (the planner used them as dict keys), a metadata-log that is a number
FOUND = [(9, "table", 8999), (9, "table", 10997), (9, "manifest-list", 11232), (1, "table", 1567),
         (4, "table", 506), (2, "table", 315), (4, "table", 1516), (4, "table", 1659)]


def test_inputs_found_by_long_runs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seeds = fuzz.load_seeds(tmp_path)
    for seed, target, index in FOUND:
        data, t, fi = fuzz.make_input(seeds, target, seed, index)
        scratch = tmp_path / f"scratch-{target}-{index}"
        scratch.mkdir()
        outcome, detail = fuzz.run_input(seeds, target, data, t, fi, scratch)
        assert outcome in ("ok", "rejected"), (seed, target, index, outcome, detail)
