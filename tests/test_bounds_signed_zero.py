"""Float bounds and signed zeros in data files (checker/units/metrics.py compare_stats): -0.0
precedes +0.0 (IEEE 754 totalOrder), so a lower bound +0.0 does not cover a -0.0 in the data and
an upper bound -0.0 does not cover +0.0."""

from __future__ import annotations

import struct

import pyarrow as pa
import pytest

from iceberg_conformance.checker.units.metrics import ColumnStats, accumulate, compare_stats
from iceberg_conformance.reference.types import DoubleType


def _found(data: list[float], lower: float, upper: float) -> list[str]:
    s = ColumnStats()
    accumulate(s, DoubleType(), pa.array(data, pa.float64()), want_partition=False)
    df = {"lower_bounds": {"1": struct.pack("<d", lower).hex()}, "upper_bounds": {"1": struct.pack("<d", upper).hex()},
          "value_counts": {"1": len(data)}, "null_value_counts": {"1": 0}, "nan_value_counts": {"1": 0}}
    out: list[str] = []
    compare_stats(df, 1, DoubleType(), False, s, lambda r, m, c, loc: out.append(r), strict_counts=True,
                  bound_types=[DoubleType()])
    return out


@pytest.mark.parametrize(("data", "lower", "upper"), [
    ([-0.0, 1.0, 0.0], -0.0, 1.0), ([0.0, 2.0], 0.0, 2.0), ([-3.0, -0.0], -3.0, -0.0), ([-0.0, 0.0], -0.0, 0.0),
    ([0.0], -0.0, 0.0),
], ids=["-0.0 lower", "+0.0 lower", "-0.0 upper", "both", "wider"])
def test_zero_bounds_that_cover_the_data(data: list[float], lower: float, upper: float) -> None:
    assert _found(data, lower, upper) == []


@pytest.mark.parametrize(("data", "lower", "upper", "rule"), [
    ([-0.0, 1.0], 0.0, 1.0, "data.lower-bound"), ([-1.0, 0.0], -1.0, -0.0, "data.upper-bound"),
    ([-0.0, 0.0], 0.0, 0.0, "data.lower-bound"),
], ids=["lower +0.0 over -0.0", "upper -0.0 under +0.0", "both zeros, +0.0 bounds"])
def test_zero_bounds_of_the_wrong_sign(data: list[float], lower: float, upper: float, rule: str) -> None:
    assert _found(data, lower, upper) == [rule]
