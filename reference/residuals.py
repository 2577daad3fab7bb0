"""Residual evaluation: what remains of a row filter for the rows of one partition.

Spec section: "Scan Planning", note 1 ("An alternative, *strict projection*, creates a
partition predicate that will match a file if all of the rows in the file must match the scan
predicate. These projections are used to calculate the residual predicates for each file in a
scan."), with the inclusive projection of the same section ("if a scan predicate matches a
row, then the partition predicate must match that row's partition"), the transforms of
"Partition Transforms" and the predicate semantics of ``format/expressions-spec.md``
(:mod:`reference.expressions`).

The residual of a filter for a partition tuple is the filter with each predicate the
partition decides replaced by a constant:

* a predicate on a column that a partition field's transform projects becomes ``true`` when
  the strict projection accepts the partition value (every source value of the partition
  satisfies it), ``false`` when the inclusive projection rejects it (none does), and stays as
  written otherwise; the decision per partition value is :func:`reference.projections.accepts`
  (the tightest projections), except for identity, whose partition value *is* the column's
  value (the predicate is evaluated on it, NaN included), and for a null partition value of
  any other transform but ``void``, which holds only null source values (transforms keep
  null), so the predicate is evaluated on a null;
* ``void`` and unknown transforms decide nothing (a void partition value is null whatever the
  source value is); predicates on other columns, and on a transform term, stay;
* ``and``/``or``/``not`` are simplified: ``true and x`` is ``x``, ``false and x`` is
  ``false``, ``true or x`` is ``true``, ``false or x`` is ``x``, ``not true`` is ``false``.

The residual keeps the filter's own predicates as written (named references stay names), in
the current JSON form. It agrees with the filter on every row of the partition (that is what
makes it sound); it is the tightest one because a predicate is replaced wherever a projection
decides it. Predicates the projections do not decide (see :mod:`reference.projections`: e.g.
an order comparison through truncate of strings) stay, which is sound, only less tight.
"""

from __future__ import annotations

from . import expressions as ex
from .errors import SpecViolation
from .partitioning import PartitionField, PartitionSpec, bind_problems, parse_partition_spec, partition_field_to_json
from .projections import INCLUSIVE, STRICT, accepts
from .schema import Schema, parse_schema
from .transforms import IdentityTransform, UnknownTransform, VoidTransform
from .types import JSON
from .values import value_from_json

CLAUSE = "Scan Planning"


def _row_with(ref: ex.BoundReference, value: JSON) -> JSON:
    """A row (JSON, keyed by field id) holding ``value`` at ``ref`` (nested through structs)."""
    row: JSON = value
    for fid in reversed(ref.id_path):
        row = {str(fid): row}
    return row


def _decide(schema_json: JSON, pf: PartitionField, leaf: ex.Expression, partition: JSON) -> bool | None:
    """What the partition value of ``pf`` says of the bound predicate ``leaf``: True (every
    source value of the partition satisfies it), False (none does), None (undecided)."""
    if isinstance(pf.transform, (VoidTransform, UnknownTransform)):
        return None
    subject = leaf.left if isinstance(leaf, ex.Comparison) else leaf.child  # type: ignore[union-attr]
    assert isinstance(subject, ex.BoundReference)
    raw = partition.get(str(pf.field_id)) if isinstance(partition, dict) else None
    if isinstance(pf.transform, IdentityTransform) or raw is None:
        if raw is not None:
            # the JSON single value read as the source type: a malformed one is refused here
            value_from_json(subject.field_type, raw)
        return ex.evaluate(leaf, _row_with(subject, raw))
    one = {"spec-id": 0, "fields": [partition_field_to_json(pf)]}
    expr = ex.expression_to_json(leaf)
    try:
        if accepts(schema_json, one, expr, STRICT, partition):
            return True
        if not accepts(schema_json, one, expr, INCLUSIVE, partition):
            return False
    except ex.Undecided:
        return None
    return None


def _leaf(schema: Schema, schema_json: JSON, spec: PartitionSpec, e: ex.Expression, partition: JSON,
          cs: bool, where: str) -> ex.Expression:
    bound = ex.bind(schema, e, cs, where)
    subject = bound.left if isinstance(bound, ex.Comparison) else bound.child  # type: ignore[union-attr]
    if isinstance(bound, ex.Comparison) and not isinstance(bound.right, ex.Literal):
        return e   # a comparison of two value expressions: no partition decides it here
    if not isinstance(subject, ex.BoundReference):
        return e   # a predicate on a transform term or a constant: kept
    for pf in spec.fields:
        if pf.source_id != subject.field_id:
            continue
        decided = _decide(schema_json, pf, bound, partition)
        if decided is not None:
            return ex.Constant(decided)
    return e


def _and(left: ex.Expression, right: ex.Expression) -> ex.Expression:
    if isinstance(left, ex.Constant):
        return right if left.value else left
    if isinstance(right, ex.Constant):
        return left if right.value else right
    return ex.Junction("and", left, right)


def _or(left: ex.Expression, right: ex.Expression) -> ex.Expression:
    if isinstance(left, ex.Constant):
        return left if left.value else right
    if isinstance(right, ex.Constant):
        return right if right.value else left
    return ex.Junction("or", left, right)


def _residual(schema: Schema, schema_json: JSON, spec: PartitionSpec, e: ex.Expression, partition: JSON,
              cs: bool, where: str) -> ex.Expression:
    if isinstance(e, ex.Constant):
        return e
    if isinstance(e, ex.Junction):
        left = _residual(schema, schema_json, spec, e.left, partition, cs, f"{where}/left")
        right = _residual(schema, schema_json, spec, e.right, partition, cs, f"{where}/right")
        return _and(left, right) if e.op == "and" else _or(left, right)
    if isinstance(e, ex.Not):
        child = _residual(schema, schema_json, spec, e.child, partition, cs, f"{where}/child")
        return ex.Constant(not child.value) if isinstance(child, ex.Constant) else ex.Not(child)
    return _leaf(schema, schema_json, spec, e, partition, cs, where)


def residual(schema_json: JSON, spec_json: JSON, expr_json: JSON, partition: JSON,
             case_sensitive: bool = True) -> ex.Expression:
    """The residual of the row filter ``expr_json`` (bound to the schema) for the partition
    tuple ``partition`` (JSON single values keyed by partition field id; an absent key is
    null) of a partition spec; the kept predicates are the filter's own, unbound."""
    schema = parse_schema(schema_json)
    spec = parse_partition_spec(spec_json, 2)
    problems = bind_problems(spec, schema)
    if problems:
        raise problems[0]
    if partition is not None and not isinstance(partition, dict):
        raise SpecViolation("partition.json-shape", f"a partition tuple is a JSON object keyed by field id, "
                            f"got {partition!r}", clause=CLAUSE, where="partition")
    expr = ex.parse_expression(expr_json)
    ex.bind(schema, expr, case_sensitive)   # the whole filter binds, or it is refused
    return _residual(schema, schema_json, spec, expr, partition or {}, case_sensitive, "")


def residual_json(schema_json: JSON, spec_json: JSON, expr_json: JSON, partition: JSON,
                  case_sensitive: bool = True) -> JSON:
    """:func:`residual` written in the current JSON form (Appendix B)."""
    return ex.expression_to_json(residual(schema_json, spec_json, expr_json, partition, case_sensitive))
