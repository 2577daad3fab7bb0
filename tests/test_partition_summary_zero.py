"""Partition summaries of float fields and signed zeros (reference/manifests.py
check_against_list_entry): -0.0 precedes +0.0, so a lower bound +0.0 excludes a -0.0 value and
an upper bound -0.0 excludes +0.0."""

from __future__ import annotations

import struct

import pytest

from iceberg_conformance.reference.manifests import check_against_list_entry
from iceberg_conformance.reference.types import FloatType, NestedField, StructType

PTYPE = StructType((NestedField(1000, "x", FloatType(), False),))


def _summary_findings(values: list[float], lower: float, upper: float) -> list[str]:
    entries = [{"status": 1, "data_file": {"content": 0, "partition": {"1000": v}, "record_count": 1}}
               for v in values]
    mf = {"added_files_count": len(values), "added_rows_count": len(values), "partition_spec_id": 0,
          "partitions": [{"contains_null": False, "contains_nan": False,
                          "lower_bound": struct.pack("<f", lower).hex(), "upper_bound": struct.pack("<f", upper).hex()}]}
    return [f.rule for f in check_against_list_entry(entries, mf, PTYPE, 2, {}, "m.avro")]


@pytest.mark.parametrize(("values", "lower", "upper"), [
    ([-0.0, 0.0], -0.0, 0.0), ([0.0], 0.0, 0.0), ([-0.0], -0.0, -0.0), ([0.0], -0.0, 0.0), ([-1.0, 2.0], -1.0, 2.0),
], ids=["both zeros", "+0.0 only", "-0.0 only", "wider lower", "no zeros"])
def test_bounds_that_cover_the_zeros(values: list[float], lower: float, upper: float) -> None:
    assert _summary_findings(values, lower, upper) == []


@pytest.mark.parametrize(("values", "lower", "upper"), [
    ([-0.0, 0.0], 0.0, 0.0), ([-0.0, 0.0], -0.0, -0.0), ([-0.0], 0.0, 0.0),
], ids=["lower +0.0 with -0.0", "upper -0.0 with +0.0", "-0.0 bounded by +0.0"])
def test_bounds_of_the_wrong_zero(values: list[float], lower: float, upper: float) -> None:
    assert "manifests.partition-summary" in _summary_findings(values, lower, upper)
