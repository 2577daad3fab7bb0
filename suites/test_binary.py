"""Appendix D: binary single-value serialization (capability ``binary``).

A vector with ``input.bytes`` and ``expected``: reading the bytes gives the value (JSON
single-value form, compared by meaning as in :mod:`suites.test_value_json`), and, unless the
test says ``"roundtrip": false``, writing that value gives exactly the same bytes. A vector
with an ``error``: the target refuses the bytes (``input.bytes``) or the value
(``input.value``).
"""

import pytest

from iceberg_conformance.suites.api import BINARY
from iceberg_conformance.suites.conformance import fail, run_case
from iceberg_conformance.suites.test_value_json import same_value


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
