"""The reference's expressions under hostile input: nesting is bounded before any recursion,
and what the reference does not implement is no verdict.

``reference/expressions.py`` reads, binds, evaluates and writes a predicate by recursion, one
frame per JSON level; ``expressions.json-too-deep`` (a kit limit, ``reference/rules.json``)
refuses JSON nested deeper than ``MAX_DEPTH`` before any of that starts.
"""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.projections import accepts

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "i", "required": False, "type": "int"},
    {"id": 2, "name": "dec", "required": False, "type": "decimal(9, 2)"}]}
LT = {"type": "lt", "left": {"type": "reference", "name": "i"}, "right": 5}


def _nots(n: int, inner: Any = True) -> Any:
    for _ in range(n):
        inner = {"type": "not", "child": inner}
    return inner


def _ands(n: int) -> Any:
    e: Any = LT
    for _ in range(n):
        e = {"type": "and", "left": e, "right": LT}
    return e


@pytest.mark.parametrize("expr", [_nots(100_000), _ands(100_000), _nots(ex.MAX_DEPTH)],
                         ids=["100000 not", "100000 and", "MAX_DEPTH not"])
def test_deep_nesting_is_refused_not_a_recursion_error(expr: Any) -> None:
    for call in (lambda: ex.parse_expression(expr), lambda: ex.bind_json(SCHEMA, expr),
                 lambda: ex.evaluate_json(SCHEMA, expr, {}), lambda: ex.roundtrip(expr)):
        with pytest.raises(SpecViolation) as e:
            call()
        assert e.value.rule == "expressions.json-too-deep"


def test_deep_apply_arguments_are_refused() -> None:
    arg: Any = {"type": "reference", "name": "i"}
    for _ in range(100_000):
        arg = {"type": "apply", "function": "identity", "arguments": [arg]}
    with pytest.raises(SpecViolation) as e:
        ex.parse_expression({"type": "eq", "left": arg, "right": 1})
    assert e.value.rule == "expressions.json-too-deep"


def test_nesting_within_the_limit_is_read_bound_evaluated_written_and_projected() -> None:
    expr = _nots(ex.MAX_DEPTH - 4, LT)   # the comparison, its reference and the name are three more levels
    assert ex.roundtrip(expr) == _nots(ex.MAX_DEPTH - 4, LT)
    assert ex.evaluate_json(SCHEMA, expr, {"1": 3}) is True   # an even number of not
    spec = {"spec-id": 0, "fields": [{"source-id": 1, "field-id": 1000, "name": "p", "transform": "identity"}]}
    with pytest.raises(ex.Undecided):   # and, or, not are not projected by the reference
        accepts(SCHEMA, spec, expr, "inclusive", {"1000": 3})


def test_apply_with_a_predicate_argument_is_undecided_not_a_verdict() -> None:
    expr = {"type": "eq", "left": {"type": "apply", "function": "if_else",
                                   "arguments": [LT, {"type": "reference", "name": "i"}, 0]}, "right": 3}
    with pytest.raises(ex.Undecided) as e:
        ex.parse_expression(expr)
    assert "expression/left/arguments/0" in str(e.value)


def test_a_test_of_an_untyped_constant_names_the_member() -> None:
    with pytest.raises(SpecViolation) as e:
        ex.bind_json(SCHEMA, {"type": "in", "child": 5, "values": [1]})
    assert e.value.rule == "expressions.bind-type-mismatch"
    assert "'child' of in is a constant with no data-type" in str(e.value)
    assert "None" not in str(e.value)


@pytest.mark.parametrize("right", ["14.234", {"type": "literal", "value": "14.234", "data-type": "decimal(9, 3)"},
                                   {"type": "literal", "value": "12345678901.5", "data-type": "decimal(38, 1)"}])
def test_a_decimal_is_never_rounded_or_overflowed_into_the_column(right: Any) -> None:
    with pytest.raises(SpecViolation) as e:
        ex.bind_json(SCHEMA, {"type": "eq", "left": {"type": "reference", "name": "dec"}, "right": right})
    assert e.value.rule == "expressions.bind-type-mismatch"
