"""Appendix B: the 32-bit hash of every type (capability ``hash``), also seen through bucket[N].

``test_hash`` asks a target for the hash directly. ``test_hash_via_bucket`` checks the same
vectors through the partition transform ``bucket[2147483647]`` for every target with capability
``transform`` (whether or not it exposes the hash): the expected bucket is derived from the
vector's expected hash as ``(hash & 0x7fffffff) % N`` (spec: Bucket Transform Details), so a
target that only exposes transforms is still checked against every hash vector of a bucket
source type.
"""

import pytest

from iceberg_conformance.suites.api import HASH, TRANSFORM
from iceberg_conformance.suites.harness.judge import run_case

#: the largest bucket count keeps all 31 bits of the masked hash (only 2^31-1 itself maps to 0)
BUCKETS = 2147483647

#: what a failure of test_hash_via_bucket says about how the hash was read
VIA = (f"the hash was read through the transform bucket[{BUCKETS}]: expected is the bucket "
       f"(hash & 0x7fffffff) % {BUCKETS} of the case's hash (Partitioning / Bucket Transform Details: "
       "\"The hash mod N must produce a positive value by first discarding the sign bit of the hash value.\")")

#: source types the bucket transform accepts (spec: Partition Transforms table)
BUCKET_SOURCES = ("int", "long", "decimal", "date", "time", "timestamp", "timestamptz",
                  "timestamp_ns", "timestamptz_ns", "string", "uuid", "fixed", "binary")


def _bucket_source(case):
    type_ = case.input["type"]
    return isinstance(type_, str) and type_.split("(")[0].split("[")[0] in BUCKET_SOURCES


@pytest.mark.vectors("hash")
@pytest.mark.capability(HASH)
def test_hash(target, case):
    run_case(case, target.name, lambda: target.hash(case.input["type"], case.input["value"]),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("hash", select=_bucket_source)  # other types' hashes bucket[N] cannot show
@pytest.mark.capability(TRANSFORM)
def test_hash_via_bucket(target, case):
    type_ = case.input["type"]
    expected = None if case.expects_error else (case.expected & 0x7FFFFFFF) % BUCKETS
    run_case(case, target.name,
             lambda: target.transform(f"bucket[{BUCKETS}]", type_, case.input["value"]),
             expected=expected, reports_rules=False, via=VIA)
