"""Appendix D: binary single-value serialization (capability ``binary``) and bound
serialization (capability ``bound``).

A vector with ``input.bytes`` and ``expected``: reading the bytes gives the value (JSON
single-value form, compared by meaning as in :mod:`suites.test_value_json`), and, unless the
test says ``"roundtrip": false``, writing that value gives exactly the same bytes. A vector
with an ``error``: the target refuses the bytes (``input.bytes``) or the value
(``input.value``).
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

from iceberg_conformance.suites.api import BINARY, BOUND
from iceberg_conformance.suites.harness.judge import fail, run_case
from iceberg_conformance.suites.harness.values import same_value


@pytest.mark.vectors("binary")
@pytest.mark.capability(BINARY)
def test_binary(target, case):
    t = case.input["type"]
    rules = getattr(target, "reports_rules", False)
    if "bytes" not in case.input:  # a value to write
        run_case(case, target.name, lambda: target.to_bytes(t, case.input["value"]), reports_rules=rules)
        return
    data = bytes.fromhex(case.input["bytes"])
    value = run_case(case, target.name, lambda: target.from_bytes(t, data), reports_rules=rules, check=False)
    if case.expects_error:
        return
    if not same_value(t, case.expected, value):
        fail(case, target.name, "reading the bytes gives another value", expected=case.expected, actual=value)
    if case.extra.get("roundtrip", True):
        written = run_case(case, target.name, lambda: target.to_bytes(t, case.expected), check=False)
        if written != data:
            fail(case, target.name, "writing the value gives other bytes", expected=data, actual=written)


def _coordinates(data: Any) -> list[bytes] | None:
    """The 8-byte coordinates of a point bound, NaNs made alike (any NaN means the same)."""
    if not isinstance(data, (bytes, bytearray)) or len(data) % 8:
        return None
    out = []
    for i in range(0, len(data), 8):
        (f,) = struct.unpack_from("<d", data, i)
        out.append(b"nan" if f != f else bytes(data[i:i + 8]))
    return out


def _geo(t: Any) -> bool:
    return str(t).split("(")[0].strip() in ("geometry", "geography")


def same_bound(t: Any, expected: Any, actual: Any) -> bool:
    """Whether bounds ``expected`` and ``actual`` (the ``bound`` capability's JSON form) mean
    the same: a point has the same coordinates set, each the same double (NaN equals NaN)."""
    if not _geo(t):
        return same_value(t, expected, actual)
    if not isinstance(actual, dict) or set(actual) != set(expected):
        return False
    return all(same_value("double", expected[k], actual[k]) for k in expected)


@pytest.mark.vectors("bound")
@pytest.mark.capability(BOUND)
def test_bound(target, case):
    """A vector with ``input.bytes`` and ``expected``: the bound bytes read as the bound (a point
    ``{"x", "y"[, "z"][, "m"]}`` for geometry/geography), and unless ``"roundtrip": false``
    writing it gives the same bytes (a NaN coordinate may be any NaN). With an ``error``: the
    target refuses the bytes, or the value (``input.value``)."""
    t = case.input["type"]
    rules = getattr(target, "reports_rules", False)
    if "bytes" not in case.input:
        run_case(case, target.name, lambda: target.bound_to_bytes(t, case.input["value"]), reports_rules=rules)
        return
    data = bytes.fromhex(case.input["bytes"])
    value = run_case(case, target.name, lambda: target.bound_from_bytes(t, data), reports_rules=rules, check=False)
    if case.expects_error:
        return
    if not same_bound(t, case.expected, value):
        fail(case, target.name, "reading the bound gives another value", expected=case.expected, actual=value)
    if case.extra.get("roundtrip", True):
        written = run_case(case, target.name, lambda: target.bound_to_bytes(t, case.expected), check=False)
        coords = _coordinates(data) if _geo(t) else None
        same = written == data or (coords is not None and _coordinates(written) == coords)
        if not same:
            fail(case, target.name, "writing the bound gives other bytes", expected=data, actual=written)
