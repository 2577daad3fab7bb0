"""Appendix C and Partitioning: partition specs read from JSON, bound to a schema and written
back (capability ``partition-spec-json``).

Each ``partition-spec-json`` case gives a spec, the schema it binds to and the format version,
and either the spec as written back or the rule it breaks. Top-level keys listed in the case's
``ignore_keys`` may be added by a target when the expected spec does not have them.
"""

import pytest

from iceberg_conformance.suites.api import PARTITION_SPEC_JSON
from iceberg_conformance.suites.harness.judge import run_case, values_equal, without_ignored


@pytest.mark.vectors("partition-spec-json")
@pytest.mark.capability(PARTITION_SPEC_JSON)
def test_partition_spec_json(target, case):
    run_case(case, target.name,
             lambda: target.partition_spec_json_roundtrip(
                 case.input["spec"], case.input["schema"], case.input["format_version"]),
             equal=lambda e, a: values_equal(e, without_ignored(case, e, a)),
             reports_rules=getattr(target, "reports_rules", False))
