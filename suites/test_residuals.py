"""Residuals (capability ``residual``): what remains of a row filter for the rows of one
partition ("Scan Planning", note 1: strict and inclusive projections "are used to calculate
the residual predicates for each file in a scan"). Vectors: ``vectors/expressions/residual.json``.

Each case gives a filter, a partition tuple and a few rows of that partition, each with whether
the filter matches it (written by hand). Two tests judge the target's residual:

* ``test_residual`` (the case's level, ``must``): soundness. The residual, read and bound by
  the kit (``reference.expressions``: the current or the deprecated term form), is evaluated on
  every row and must agree with the filter there: a residual that rejects a matching row loses
  it ("Data files that match the query filter must be read by the scan."), one that accepts a
  row the filter rejects returns it. An equivalent residual written differently passes.
* ``test_residual_tight`` (level ``should``): the tightest form. Where the projections decide
  the whole filter the residual is ``true`` or ``false``; otherwise it has no constant below its
  root and no more predicates than the expected residual (a target that keeps a predicate the
  partition decides is ADVISORY).
"""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.suites.api import RESIDUAL
from iceberg_conformance.suites.harness.judge import fail, run_case
from iceberg_conformance.suites.harness.residuals import sound, tight


def _ask(target: Any, case: Any) -> Any:
    i = case.input
    return target.residual(i["schema"], i["spec"], i["expression"], i["partition"], i.get("case_sensitive", True))


@pytest.mark.vectors("residual")
@pytest.mark.capability(RESIDUAL)
def test_residual(target: Any, case: Any) -> None:
    residual = run_case(case, target.name, lambda: _ask(target, case), check=False,
                        reports_rules=getattr(target, "reports_rules", False))
    if case.expects_error:
        return
    wrong = sound(case.input, residual)
    if wrong:
        fail(case, target.name, "the residual and the filter disagree on rows of the partition",
             expected=case.expected, actual=residual, rows=wrong)


@pytest.mark.vectors("residual", select=lambda c: not c.expects_error)
@pytest.mark.capability(RESIDUAL)
@pytest.mark.level("should")
def test_residual_tight(target: Any, case: Any) -> None:
    residual = run_case(case, target.name, lambda: _ask(target, case), check=False,
                        reports_rules=getattr(target, "reports_rules", False))
    if not tight(case.input, case.expected, residual):
        fail(case, target.name, "the residual keeps a predicate or constant the partition decides",
             expected=case.expected, actual=residual)
