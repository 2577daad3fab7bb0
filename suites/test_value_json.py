"""Appendix D: JSON single-value serialization (capability ``value-json``).

Each vector gives a type and a JSON value. The target reads the value into its own form and
writes it back; the result must equal ``expected``, or the target must refuse the value.

Written-back values are compared *by meaning* where the spec allows more than one spelling
(times and timestamps by instant with any number of fraction digits up to the type's precision,
floats by their binary value, hex case-insensitively, structs by field id, WKT token by token): see
:func:`iceberg_conformance.suites.harness.values.same_value` (plain Python, no use of ``reference/``).
Decimal, date and uuid strings are compared exactly: the spec fixes their spelling.
"""

from __future__ import annotations

import json

import pytest

from iceberg_conformance.suites.api import VALUE_JSON
from iceberg_conformance.suites.harness.judge import fail, run_case
from iceberg_conformance.suites.harness.values import same_value


@pytest.mark.vectors("value-json")
@pytest.mark.capability(VALUE_JSON)
def test_value_json(target, case):
    t = case.input["type"]
    actual = run_case(case, target.name, lambda: target.value_json_roundtrip(t, case.input["value"]),
                      reports_rules=getattr(target, "reports_rules", False), check=False)
    if case.expects_error:
        return
    if not same_value(t, case.expected, actual):
        fail(case, target.name, "the value written back differs from the expected value "
             "(compared by meaning, see suites/harness/values.py)", expected=case.expected, actual=actual)
    # the written value is JSON: it survives json.dumps (no Decimal, bytes, datetime objects)
    try:
        json.dumps(actual)
    except (TypeError, ValueError) as e:
        fail(case, target.name, f"the value written back is not JSON: {e}", actual=repr(actual))
