"""PyIceberg target: capability ``expressions`` (``pyiceberg.expressions``).

Parsing and writing are PyIceberg's pydantic models (``BooleanExpression.model_validate`` and
``model_dump_json``). Binding is ``pyiceberg.expressions.visitors.bind``; PyIceberg writes no
JSON for a bound expression, so this adapter writes it: the field's full name from the schema,
literals in the JSON single-value form of the field's type. Rows are evaluated with
``expression_evaluator`` on a ``Record`` built from the row's JSON single values. PyIceberg's
expressions have no transform terms (its parser takes a term to be a column name): an input with
one is UNSUPPORTED. PyIceberg 0.12 reads only the deprecated term form of
``format/expressions-spec.md``: binding and evaluation are asked in that form
(:mod:`suites.targets._term_form`), parsing as the case gives it. Projections are
``inclusive_projection`` / ``strict_projection`` evaluated on the partition tuple.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.suites.api import EXPRESSIONS, PROJECTION, Rejected, Unsupported
from iceberg_conformance.suites.targets._term_form import to_term_form
from iceberg_conformance.suites.targets.pyiceberg._convert import from_native, to_native

#: what PyIceberg raises when it refuses an expression: ValueError (pydantic's ValidationError is
#: one) and PyIceberg's own ValidationError. A TypeError is a crash, not a refusal (README: only
#: Rejected counts as refusing).
_REFUSALS: tuple[type[Exception], ...] = (ValueError,)


@contextmanager
def _refusing() -> Iterator[None]:
    from pyiceberg.exceptions import ValidationError

    try:
        yield
    except (*_REFUSALS, ValidationError) as e:
        raise Rejected(f"{type(e).__name__}: {e}") from e


def _has_transform_term(expr: Any) -> bool:
    if isinstance(expr, dict):
        term = expr.get("term")
        if isinstance(term, dict) and term.get("type") == "transform":
            return True
        return any(_has_transform_term(expr.get(k)) for k in ("left", "right", "child"))
    return False


def _parse(expr: Any) -> Any:
    from pyiceberg.expressions import BooleanExpression

    if _has_transform_term(expr):
        raise Unsupported("pyiceberg.expressions has no transform terms")
    with _refusing():
        return BooleanExpression.model_validate(expr)


def _schema(schema: Any) -> Any:
    from pyiceberg.schema import Schema

    with _refusing():
        return Schema.model_validate(schema)


def _bound_json(schema: Any, e: Any) -> Any:
    """The JSON form of a PyIceberg bound expression (the unbound form, with bound values)."""
    from pyiceberg import expressions as pe
    from pyiceberg.types import PrimitiveType

    if isinstance(e, (pe.AlwaysTrue, pe.AlwaysFalse)):
        return isinstance(e, pe.AlwaysTrue)
    if isinstance(e, (pe.And, pe.Or)):
        return {"type": "and" if isinstance(e, pe.And) else "or",
                "left": _bound_json(schema, e.left), "right": _bound_json(schema, e.right)}
    if isinstance(e, pe.Not):
        return {"type": "not", "child": _bound_json(schema, e.child)}
    field = e.term.ref().field
    out: dict[str, Any] = {"type": _OPS[type(e).__name__], "term": schema.find_column_name(field.field_id)}
    type_json = str(field.field_type) if isinstance(field.field_type, PrimitiveType) else None
    if isinstance(e, pe.BoundLiteralPredicate):
        out["value"] = from_native(type_json, e.literal.value)
    elif isinstance(e, pe.BoundSetPredicate):
        out["values"] = [from_native(type_json, lit.value) for lit in e.literals]
    return out


_OPS = {"BoundIsNull": "is-null", "BoundNotNull": "not-null", "BoundIsNaN": "is-nan", "BoundNotNaN": "not-nan",
        "BoundLessThan": "lt", "BoundLessThanOrEqual": "lt-eq", "BoundGreaterThan": "gt",
        "BoundGreaterThanOrEqual": "gt-eq", "BoundEqualTo": "eq", "BoundNotEqualTo": "not-eq",
        "BoundStartsWith": "starts-with", "BoundNotStartsWith": "not-starts-with", "BoundIn": "in",
        "BoundNotIn": "not-in"}


def _partition_record(partition_type: Any, partition: Any) -> Any:
    """The partition tuple as a PyIceberg ``Record``; a day value is the table spec's int."""
    from pyiceberg.typedef import Record
    from pyiceberg.types import DateType

    values = []
    for f in partition_type.fields:
        v = partition.get(str(f.field_id))
        if v is None or (isinstance(f.field_type, DateType) and isinstance(v, int)):
            values.append(v)
        else:
            values.append(to_native(str(f.field_type), v))
    return Record(*values)


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS, PROJECTION})

    def expression_roundtrip(self, expr: Any) -> Any:
        parsed = _parse(expr)
        return json.loads(parsed.model_dump_json(by_alias=True))

    def expression_bind(self, schema: Any, expr: Any, case_sensitive: bool) -> Any:
        from pyiceberg.expressions.visitors import bind

        s, e = _schema(schema), _parse(to_term_form(expr))
        with _refusing():
            bound = bind(s, e, case_sensitive)
        return _bound_json(s, bound)

    def expression_evaluate(self, schema: Any, expr: Any, row: Any, case_sensitive: bool) -> bool:
        from pyiceberg.expressions.visitors import expression_evaluator

        s, e = _schema(schema), _parse(to_term_form(expr))
        record = to_native(schema, row)
        with _refusing():
            return bool(expression_evaluator(s, e, case_sensitive)(record))

    def projection_accepts(self, schema: Any, spec: Any, expr: Any, mode: str, partition: Any) -> bool:
        from pyiceberg.partitioning import PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.expressions.visitors import expression_evaluator, inclusive_projection, strict_projection

        s, e = _schema(schema), _parse(to_term_form(expr))
        with _refusing():
            ps = PartitionSpec.model_validate(spec)
            project = strict_projection if mode == "strict" else inclusive_projection
            projected = project(s, ps)(e)
            ptype = ps.partition_type(s)
            evaluate = expression_evaluator(Schema(*ptype.fields), projected, True)
            return bool(evaluate(_partition_record(ptype, partition)))
