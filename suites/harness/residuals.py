"""Judging a residual (capability ``residual``): is it sound, is it tight?

A residual is read and bound by the kit (``reference.expressions``: the current or the
deprecated term form) and evaluated on the rows of the case's partition: :func:`sound` lists
the rows where it disagrees with the filter; :func:`tight` says whether it is as tight as the
expected residual (the same constant where the partition decides the filter, otherwise no
constant below its root and no more predicates).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.harness.judge import values_equal


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
