"""Partition transforms (capability ``transform``): values and result types.

Spec sections: "Partitioning / Partition Transforms", "Bucket Transform Details",
"Truncate Transform Details". Vectors: ``vectors/transforms/*.json``.
"""

import re

import pytest

from iceberg_conformance.suites.api import TRANSFORM
from iceberg_conformance.suites.harness.judge import run_case, values_equal
from iceberg_conformance.suites.harness.values import same_value


def _same_type(expected, actual):
    """Type strings compare ignoring whitespace (``decimal(9,2)`` is ``decimal(9, 2)``)."""
    if isinstance(expected, str) and isinstance(actual, str):
        return re.sub(r"\s+", "", expected) == re.sub(r"\s+", "", actual)
    return values_equal(expected, actual)


_HEX_TYPES = re.compile(r"binary|fixed\[\d+\]")


def _same_value(case):
    """Results compare as JSON values; this suite judges what the transform computed, not how
    the result is spelled (the value-json vectors judge spelling). So hex strings of
    binary/fixed results ignore letter case, and an identity result, whose type is the source
    type, compares by meaning (:func:`iceberg_conformance.suites.harness.values.same_value`: a
    timestamp written with a zero fraction dropped is the same instant)."""
    transform = case.input["transform"].split("[")[0]
    hex_result = isinstance(case.input.get("type"), str) and _HEX_TYPES.fullmatch(case.input["type"]) \
        and transform in ("identity", "truncate")

    def equal(expected, actual):
        if transform == "identity" and expected is not None:
            return same_value(case.input["type"], expected, actual)
        if hex_result and isinstance(expected, str) and isinstance(actual, str):
            return expected.lower() == actual.lower()
        return values_equal(expected, actual)
    return equal


@pytest.mark.vectors("transform")
@pytest.mark.capability(TRANSFORM)
def test_transform(target, case):
    i = case.input
    run_case(case, target.name, lambda: target.transform(i["transform"], i["type"], i["value"]),
             equal=_same_value(case), reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("transform-result-type")
@pytest.mark.capability(TRANSFORM)
def test_transform_result_type(target, case):
    i = case.input
    run_case(case, target.name, lambda: target.result_type(i["transform"], i["type"]),
             equal=_same_type, reports_rules=getattr(target, "reports_rules", False))
