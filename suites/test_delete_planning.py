"""Delete planning (capability ``delete-planning``): which delete files apply to a data file.

Source: the table spec's "Scan Planning" (position deletes, equality deletes, global equality
deletes of an unpartitioned spec, file-scoped deletes) with v3 deletion vectors. Vectors:
``vectors/scan/delete-planning.json``.
"""

import pytest

from iceberg_conformance.suites.api import DELETE_PLANNING
from iceberg_conformance.suites.harness.judge import run_case


@pytest.mark.vectors("delete-planning")
@pytest.mark.capability(DELETE_PLANNING)
def test_delete_planning(target, case):
    i = case.input
    run_case(case, target.name,
             lambda: target.applicable_deletes(i["schema"], i["specs"], i["data_file"], i["delete_files"]),
             reports_rules=getattr(target, "reports_rules", False))
