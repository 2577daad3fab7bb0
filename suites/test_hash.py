"""Appendix B: the 32-bit hash of every type (capability ``hash``)."""

import pytest

from suites.api import HASH
from suites.conformance import run_case


@pytest.mark.vectors("hash")
@pytest.mark.capability(HASH)
def test_hash(target, case):
    run_case(case, target.name, lambda: target.hash(case.input["type"], case.input["value"]),
             reports_rules=getattr(target, "reports_rules", False))
