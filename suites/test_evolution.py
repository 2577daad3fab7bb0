"""Schema Evolution and Partition Evolution: is a change allowed (capability ``evolution``)?

``schema-evolution`` cases give an old and a new schema and the format version, and for a
promoted partition source field the table's partition specs (``partition_specs``);
``partition-evolution`` cases give an old and a new partition spec, the schema they bind to
and the format version. ``expected`` is ``null`` for an allowed change, ``error`` names the
rule a forbidden change breaks.
"""

import inspect

import pytest

from iceberg_conformance.suites.api import EVOLUTION
from iceberg_conformance.suites.harness.judge import run_case
from iceberg_conformance.suites.harness.outcomes import unsupported


@pytest.mark.vectors("schema-evolution")
@pytest.mark.capability(EVOLUTION)
def test_schema_evolution(target, case):
    i = case.input
    extra = {}
    if "partition_specs" in i:  # a promoted partition source: the table's specs are part of the input
        if "partition_specs" not in inspect.signature(target.check_schema_evolution).parameters:
            unsupported(target.name, "check_schema_evolution takes no partition_specs")
        extra["partition_specs"] = i["partition_specs"]
    run_case(case, target.name,
             lambda: target.check_schema_evolution(i["old"], i["new"], i["format_version"], **extra),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("partition-evolution")
@pytest.mark.capability(EVOLUTION)
def test_partition_evolution(target, case):
    i = case.input
    run_case(case, target.name,
             lambda: target.check_partition_evolution(i["old"], i["new"], i["schema"], i["format_version"]),
             reports_rules=getattr(target, "reports_rules", False))
