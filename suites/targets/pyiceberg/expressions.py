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
``inclusive_projection`` / ``strict_projection`` evaluated on the partition tuple; their
constants are built from the JSON single-value form of the column's type, like the partition
values (PyIceberg reads a JSON string constant as a ``StringLiteral``, which does not convert to
binary or fixed). Metrics are
``visitors._InclusiveMetricsEvaluator`` / ``_StrictMetricsEvaluator`` (empty files not included)
on a ``DataFile.from_args`` holding the case's counts and bound bytes as given.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.suites.api import EXPRESSIONS, MANIFEST_PRUNING, METRICS, PROJECTION, Rejected, Unsupported
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


_PREDICATES = {"lt": "LessThan", "lt-eq": "LessThanOrEqual", "gt": "GreaterThan", "gt-eq": "GreaterThanOrEqual",
               "eq": "EqualTo", "not-eq": "NotEqualTo", "starts-with": "StartsWith",
               "not-starts-with": "NotStartsWith", "in": "In", "not-in": "NotIn"}


def _typed_predicate(schema: Any, term_form: Any) -> Any:
    """A predicate of a column with constants (term form) as a PyIceberg expression whose
    literals are built from the constants' JSON single-value form for the column's type
    (:func:`to_native`), so that projection is asked without PyIceberg's own reading of JSON
    constants (a hex string is no ``StringLiteral`` of a binary column). Other expressions are
    parsed as given."""
    from pyiceberg import expressions as pe
    from pyiceberg.expressions.literals import literal

    if not (isinstance(term_form, dict) and isinstance(term_form.get("term"), str)
            and term_form.get("type") in _PREDICATES and ("value" in term_form or "values" in term_form)):
        return _parse(term_form)
    name = term_form["term"]
    with _refusing():
        field_type = str(schema.find_field(name).field_type)
    if field_type in ("timestamp_ns", "timestamptz_ns"):
        raise Unsupported(f"pyiceberg.expressions.literals has no {field_type} literal (none converts to it)")
    with _refusing():
        cls = getattr(pe, _PREDICATES[term_form["type"]])
        if "values" in term_form:
            return cls(name, tuple(literal(to_native(field_type, v)) for v in term_form["values"]))
        return cls(name, literal(to_native(field_type, term_form["value"])))


def _hex_leaf(schema: Any, e: Any) -> bool:
    """A predicate (term form) comparing a binary or fixed column with constants."""
    if not (isinstance(e, dict) and isinstance(e.get("term"), str) and ("value" in e or "values" in e)):
        return False
    try:
        t = str(schema.find_field(e["term"]).field_type)
    except ValueError:
        return False
    return t == "binary" or t.startswith("fixed[")


def scan_filter(schema: Any, term_form: Any) -> Any:
    """A scan's filter as a PyIceberg expression: predicates with constants of binary and fixed
    columns (hex in the JSON single-value form) are built by :func:`_typed_predicate`, through
    and/or/not; a filter without them is parsed as given, so that the scan is judged and not
    PyIceberg's reading of JSON constants."""
    from pyiceberg import expressions as pe

    def has_hex(e: Any) -> bool:
        return isinstance(e, dict) and (_hex_leaf(schema, e) or any(has_hex(e.get(k)) for k in ("left", "right", "child")))

    def build(e: Any) -> Any:
        if not has_hex(e):
            return _parse(e)
        if e.get("type") in ("and", "or"):
            return (pe.And if e["type"] == "and" else pe.Or)(build(e["left"]), build(e["right"]))
        if e.get("type") == "not":
            return pe.Not(build(e["child"]))
        return _typed_predicate(schema, e)

    return build(term_form)


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS, PROJECTION, METRICS, MANIFEST_PRUNING})

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

        s = _schema(schema)
        e = _typed_predicate(s, to_term_form(expr))
        with _refusing():
            ps = PartitionSpec.model_validate(spec)
            project = strict_projection if mode == "strict" else inclusive_projection
            projected = project(s, ps)(e)
            ptype = ps.partition_type(s)
            evaluate = expression_evaluator(Schema(*ptype.fields), projected, True)
            return bool(evaluate(_partition_record(ptype, partition)))

    def metrics_evaluate(self, schema: Any, file: Any, expr: Any, mode: str) -> bool:
        from pyiceberg.expressions.visitors import _InclusiveMetricsEvaluator, _StrictMetricsEvaluator
        from pyiceberg.manifest import DataFile, DataFileContent, FileFormat

        def ints(key: str) -> dict[int, int] | None:
            m = file.get(key)
            return None if m is None else {int(k): int(v) for k, v in m.items()}

        def raw(key: str) -> dict[int, bytes] | None:
            m = file.get(key)
            return None if m is None else {int(k): bytes.fromhex(v) for k, v in m.items()}

        s, e = _schema(schema), _parse(to_term_form(expr))
        data_file = DataFile.from_args(
            content=DataFileContent.DATA, file_path="/conformance/data.parquet", file_format=FileFormat.PARQUET,
            partition={}, record_count=file["record_count"], file_size_in_bytes=1024,
            value_counts=ints("value_counts"), null_value_counts=ints("null_value_counts"),
            nan_value_counts=ints("nan_value_counts"), lower_bounds=raw("lower_bounds"),
            upper_bounds=raw("upper_bounds"))
        evaluator = _StrictMetricsEvaluator if mode == "strict" else _InclusiveMetricsEvaluator
        with _refusing():
            return bool(evaluator(s, e, True).eval(data_file))

    def manifest_might_match(self, schema: Any, spec: Any, partitions: Any, expr: Any) -> bool:
        from pyiceberg.expressions.visitors import inclusive_projection, manifest_evaluator
        from pyiceberg.manifest import ManifestContent, ManifestFile, PartitionFieldSummary
        from pyiceberg.partitioning import PartitionSpec

        s, e = _schema(schema), _parse(to_term_form(expr))
        def raw(p: Any, key: str) -> bytes | None:
            return None if p.get(key) is None else bytes.fromhex(p[key])

        # a Record: contains_null, contains_nan, lower_bound, upper_bound in field order
        summaries = [PartitionFieldSummary(p["contains_null"], p.get("contains_nan"), raw(p, "lower_bound"),
                                           raw(p, "upper_bound")) for p in partitions]
        with _refusing():
            ps = PartitionSpec.model_validate(spec)
            manifest = ManifestFile.from_args(
                manifest_path="/conformance/manifest.avro", manifest_length=1024, partition_spec_id=ps.spec_id,
                content=ManifestContent.DATA, sequence_number=1, min_sequence_number=1, added_snapshot_id=1,
                added_files_count=1, existing_files_count=0, deleted_files_count=0, added_rows_count=10,
                existing_rows_count=0, deleted_rows_count=0, partitions=summaries)
            return bool(manifest_evaluator(ps, s, inclusive_projection(s, ps)(e), True)(manifest))
