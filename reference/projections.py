"""Projections of a predicate through a partition transform, decided per partition value.

Spec section: "Scan Planning" ("Scan predicates are converted to partition predicates using
an inclusive projection: if a scan predicate matches a row, then the partition predicate must
match that row's partition"), with the transforms of "Partition Transforms" and the predicate
semantics of ``format/expressions-spec.md`` (:mod:`reference.expressions`).

A projection is judged by what it does, not by how it is written: for a partition value ``p``
of a field with transform ``t``, the source values of ``p`` are the preimage ``{x : t(x) = p}``.

* the tightest **inclusive** projection accepts ``p`` iff some source value of ``p`` satisfies
  the predicate (accepting it is required; rejecting it when none does is the tight choice);
* the tightest **strict** projection accepts ``p`` iff every source value of ``p`` satisfies
  the predicate (rejecting it when one does not is required).

:func:`accepts` decides that for one predicate on the partition's source column: a test
(is-null, ...) or a comparison / set test of the column with constants. Preimages are intervals
for identity, truncate of numbers and the time transforms (in the source's units: days,
microseconds or nanoseconds; unscaled values for decimals), prefixes for truncate of strings
and binary (every value starting with a partition value as long as the width; a shorter one
holds only itself), hash classes for bucket, the value itself for identity, and every value,
null or not, for void (whose partition is always null).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from . import expressions as ex
from .partitioning import PartitionField, parse_partition_spec
from .schema import parse_schema
from .transforms import (
    BucketTransform, DayTransform, HourTransform, IdentityTransform, MonthTransform, Transform,
    TruncateTransform, VoidTransform, YearTransform,
)
from .types import (
    JSON, BinaryType, DateType, DecimalType, IcebergType, IntegerType, LongType, StringType, TimestampNanoType,
    TimestamptzNanoType,
)
from .values import days_from_civil, value_from_json

CLAUSE = "Scan Planning"
INCLUSIVE, STRICT = "inclusive", "strict"
_UNITS_PER_DAY = {"us": 86_400_000_000, "ns": 86_400_000_000_000}


def _unsupported(what: str) -> ex.Undecided:
    """A projection the reference does not decide: UNSUPPORTED, no verdict."""
    return ex.Undecided(f"projection not decided by the reference: {what}")


def _interval(t: Transform, source: IcebergType, p: int) -> tuple[int, int] | None:
    """The source values of partition value ``p`` as a closed interval, or None (no interval)."""
    if isinstance(t, IdentityTransform):
        return (p, p)
    if isinstance(t, TruncateTransform) and isinstance(source, (IntegerType, LongType)):
        return (p, p + t.width - 1)
    if isinstance(t, (YearTransform, MonthTransform, DayTransform, HourTransform)):
        if isinstance(t, YearTransform):
            first, after = days_from_civil(1970 + p, 1, 1), days_from_civil(1971 + p, 1, 1)
        elif isinstance(t, MonthTransform):
            y, m = divmod(p, 12)
            ny, nm = divmod(p + 1, 12)
            first, after = days_from_civil(1970 + y, m + 1, 1), days_from_civil(1970 + ny, nm + 1, 1)
        elif isinstance(t, DayTransform):
            first, after = p, p + 1
        else:
            unit = _UNITS_PER_DAY["ns" if isinstance(source, (TimestampNanoType, TimestamptzNanoType)) else "us"] // 24
            return (p * unit, (p + 1) * unit - 1)
        if isinstance(source, DateType):
            return (first, after - 1)
        per_day = _UNITS_PER_DAY["ns" if isinstance(source, (TimestampNanoType, TimestamptzNanoType)) else "us"]
        return (first * per_day, after * per_day - 1)
    return None


def _on_interval(op: str, lo: Any, hi: Any, consts: tuple[Any, ...], every: bool) -> bool:
    """Whether some (``every``: all) x in [lo, hi] satisfy ``x op consts``."""
    if op in ("in", "not-in"):
        inside = [c for c in consts if lo <= c <= hi]
        # every value of [lo, hi] is a constant: counted for integers, a single value otherwise
        covered = (hi - lo + 1 <= len(set(inside))) if isinstance(lo, int) else (lo == hi and bool(inside))
        if op == "in":
            return covered if every else bool(inside)
        return not inside if every else not covered
    v = consts[0]
    some: dict[str, bool] = {"lt": lo < v, "lt-eq": lo <= v, "gt": hi > v, "gt-eq": hi >= v,
            "eq": lo <= v <= hi, "not-eq": not lo == hi == v}
    all_: dict[str, bool] = {"lt": hi < v, "lt-eq": hi <= v, "gt": lo > v, "gt-eq": lo >= v,
            "eq": lo == hi == v, "not-eq": not lo <= v <= hi}
    return (all_ if every else some)[op]


def _on_prefix(op: str, prefix: str | bytes, consts: tuple[Any, ...], every: bool) -> bool:
    """Whether some (all) values starting with ``prefix`` (strings, compared by UTF-8 bytes, or
    binary) satisfy ``op``. The values are ``prefix`` itself and its extensions: the least is
    ``prefix``; a constant that does not extend it lies wholly above or below all of them."""
    def b(v: str | bytes) -> bytes:
        return v.encode("utf-8") if isinstance(v, str) else bytes(v)
    pre = b(prefix)
    cs = [b(c) for c in consts]
    if op in ("eq", "in"):
        return False if every else any(c.startswith(pre) for c in cs)
    if op in ("not-eq", "not-in"):
        return not any(c.startswith(pre) for c in cs) if every else True
    v = cs[0]
    extends = v.startswith(pre)          # v is itself one of the values
    if op == "starts-with":
        return pre.startswith(v) if every else (pre.startswith(v) or extends)
    if op == "not-starts-with":
        return not (pre.startswith(v) or extends) if every else not pre.startswith(v)
    above = not extends and v > pre      # every value is below v
    if op in ("lt", "lt-eq"):
        some = pre < v or (op == "lt-eq" and pre == v)
        return above if every else some
    if op in ("gt", "gt-eq"):
        return (pre > v or (op == "gt-eq" and pre == v)) if every else not above
    raise _unsupported(f"{op} through truncate is not decided here")


def _on_bucket(t: BucketTransform, source: IcebergType, p: int, op: str, consts: tuple[Any, ...], every: bool) -> bool:
    hashed = {t.apply(source, c) for c in consts}
    if op in ("eq", "in"):
        return False if every else p in hashed
    if op in ("not-eq", "not-in"):
        return p not in hashed if every else True
    return not every   # an order comparison holds for some, never all, of a hash class


def _row_with(subject: ex.BoundReference, value: JSON) -> JSON:
    """A row (JSON, keyed by field id) whose column ``subject`` is ``value``: a field of a
    struct sits inside its struct (the source of a partition field may be nested)."""
    row: JSON = value
    for fid in reversed(subject.id_path):
        row = {str(fid): row}
    return row


def accepts(schema_json: JSON, spec_json: JSON, expr_json: JSON, mode: str, partition: JSON) -> bool:
    """Whether the tightest ``mode`` projection of the predicate accepts ``partition`` (the
    partition tuple as JSON keyed by partition field id; the spec has one field)."""
    schema = parse_schema(schema_json)
    spec = parse_partition_spec(spec_json, 2)
    if len(spec.fields) != 1:
        raise _unsupported("one partition field is decided here")
    pf: PartitionField = spec.fields[0]
    bound = ex.bind(schema, ex.parse_expression(expr_json))
    every = mode == STRICT
    if isinstance(bound, ex.Constant):
        return bound.value
    if isinstance(bound, (ex.Junction, ex.Not)):
        raise _unsupported("and, or and not are projected part by part; one predicate is decided here")
    subject = bound.child if isinstance(bound, (ex.Test, ex.SetTest)) else bound.left
    if not isinstance(subject, ex.BoundReference) or subject.field_id != pf.source_id:
        raise _unsupported("a predicate on the partition's source column is decided here")
    source = subject.field_type
    result = pf.transform.result_type(source)
    raw = partition.get(str(pf.field_id)) if isinstance(partition, dict) else None
    p = None if raw is None else value_from_json(result, raw)
    t = pf.transform
    if isinstance(t, VoidTransform):
        if p is not None:
            raise _unsupported("void maps every value to null; a non-null partition value holds none")
        # every value, null or not, is in the null partition: some satisfy any one predicate on
        # the column, and some do not
        return not every
    if isinstance(t, IdentityTransform) or p is None:
        # the partition value is the source value; the null partition holds only null (transforms
        # keep null)
        return ex.evaluate(bound, {} if p is None else _row_with(subject, raw))
    if isinstance(bound, ex.Test):
        if bound.op not in ("is-null", "not-null"):
            raise _unsupported(f"{bound.op} through {t} is not decided here")
        return bound.op == "not-null"   # a non-null partition value has only non-null sources
    if isinstance(bound, ex.SetTest):
        op, consts = bound.op, tuple(lit.value for lit in bound.values)
    else:
        assert isinstance(bound, ex.Comparison) and isinstance(bound.right, ex.Literal)
        op, consts = bound.op, (bound.right.value,)
    if isinstance(t, BucketTransform):
        return _on_bucket(t, source, p, op, consts, every)
    if isinstance(t, TruncateTransform) and isinstance(source, (StringType, BinaryType)):
        length = len(p)                  # code points of a string, bytes of binary
        if length < t.width:             # only p itself truncates to a shorter p
            return ex.evaluate(bound, _row_with(subject, raw))
        return _on_prefix(op, p, consts, every)
    if isinstance(t, TruncateTransform) and isinstance(source, DecimalType):
        def unscaled(d: Decimal) -> int:
            return int(d.scaleb(source.scale))
        u = unscaled(p)
        return _on_interval(op, u, u + t.width - 1, tuple(unscaled(c) for c in consts), every)
    interval = _interval(t, source, p)
    if interval is None:
        raise _unsupported(f"{t} of {source} is not decided here")
    return _on_interval(op, *interval, consts, every)
