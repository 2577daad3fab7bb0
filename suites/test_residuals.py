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

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.api import RESIDUAL
from iceberg_conformance.suites.conformance import fail, run_case, values_equal


def _ask(target: Any, case: Any) -> Any:
    i = case.input
    return target.residual(i["schema"], i["spec"], i["expression"], i["partition"], i.get("case_sensitive", True))


def _bind(i: dict[str, Any], residual: Any) -> ex.Expression:
    """The target's residual read (current or deprecated term form) and bound to the schema."""
    return ex.bind(parse_schema(i["schema"]), ex.parse_expression(residual), i.get("case_sensitive", True))


def sound(i: dict[str, Any], residual: Any) -> list[Any]:
    """Where the residual and the filter disagree on the rows of the case input ``i`` (each row
    with what the residual gives); ``[]`` when it is sound. A residual the kit cannot read or
    bind disagrees everywhere."""
    try:
        bound = _bind(i, residual)
    except (SpecViolation, ex.Undecided) as e:
        return [f"the residual is not a predicate that binds to the schema: {e}"]
    return [{**r, "residual gives": not r["matches"]} for r in i["rows"] if ex.evaluate(bound, r["row"]) != r["matches"]]


def _leaves(e: ex.Expression) -> int:
    if isinstance(e, ex.Constant):
        return 0
    if isinstance(e, ex.Junction):
        return _leaves(e.left) + _leaves(e.right)
    if isinstance(e, ex.Not):
        return _leaves(e.child)
    return 1


def _inner_constant(e: ex.Expression) -> bool:
    if isinstance(e, ex.Junction):
        return any(isinstance(c, ex.Constant) or _inner_constant(c) for c in (e.left, e.right))
    if isinstance(e, ex.Not):
        return isinstance(e.child, ex.Constant) or _inner_constant(e.child)
    return False


def tight(i: dict[str, Any], expected: Any, residual: Any) -> bool:
    """Whether a residual is as tight as the expected one: the same constant where the partition
    decides the filter; otherwise no constant below the root and no more predicates."""
    if isinstance(expected, bool):
        return values_equal(expected, residual)
    try:
        actual = _bind(i, residual)
    except (SpecViolation, ex.Undecided):
        return False
    return not (isinstance(actual, ex.Constant) or _inner_constant(actual)
                or _leaves(actual) > _leaves(ex.parse_expression(expected)))


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
