"""Data-file metrics evaluation: whether a file's column bounds and counts rule a predicate in
or out.

Spec section: "Scan Planning" ("Scan predicates are also used to filter data and delete files
using column bounds and counts that are stored by field id in manifests."; "Data files that
match the query filter must be read by the scan."), with the ``data_file`` fields of
"Manifests" (``record_count``, ``value_counts``, ``null_value_counts``, ``nan_value_counts``,
``lower_bounds`` / ``upper_bounds``: "Each value must be less than or equal to all non-null,
non-NaN values in the column for the file"), bounds in the binary single-value form of
Appendix D, decoded by their length after a type promotion ("Schema Evolution"), and the
predicate semantics of ``format/expressions-spec.md`` (:mod:`reference.expressions`).

The metrics are read as what they say and nothing more: they describe a *set* of possible
column contents. A value of the column is null, NaN (float and double only) or a "regular"
value, and a regular value lies between the bounds (bounds are bounds, not the minimum and
maximum: a truncated upper bound is greater than every value but need not be one). A class
is possible unless the counts exclude it (a null count of 0, a NaN count of 0, value count
equal to the null count plus the NaN count); an absent count excludes nothing.

* the tightest **inclusive** answer ("rows might match") is true iff some possible value
  satisfies the predicate; answering true is always allowed, answering false when some
  possible value matches would skip a file with matching rows;
* the tightest **strict** answer ("rows must match") is true iff every possible value
  satisfies it; answering false is always allowed.

A file with no records has no possible values (inclusive false, strict true). :func:`evaluate`
decides one predicate on one column (a test, a comparison or set test of a column with
constants) or a constant; ``and``/``or``/``not`` are not decided here (their tight answer
needs the joint distribution of columns).

:func:`manifest_might_match` decides the same for a manifest from the partition field
summaries of its manifest-list entry ("Manifests that contain no matching files, determined
using either file counts or partition summaries, may be skipped."): a summary allows null
partition values when ``contains_null``, NaN when ``contains_nan`` is true or absent (float and
double results), and values between ``lower_bound`` and ``upper_bound`` ("or null if all values
are null or NaN": without bounds there are no other values). The manifest may hold a matching
file iff one of these partition values may hold a matching source value, which is the tight
inclusive projection of :mod:`reference.projections`: identity compares the values
themselves; bucket, truncate of integers and the time transforms enumerate the partition
values between the bounds (at most 4096).
"""

from __future__ import annotations

import math
from typing import Any

from . import expressions as ex
from .binary import from_bytes
from .errors import SpecViolation
from .schema import parse_schema
from .partitioning import parse_partition_spec
from .projections import accepts
from .transforms import BucketTransform, IdentityTransform, TruncateTransform
from .values import value_to_json
from .types import (
    JSON, BooleanType, DateType, DoubleType, FloatType, IcebergType, IntegerType, LongType, StringType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType,
)

CLAUSE = "Scan Planning"
INCLUSIVE, STRICT = "inclusive", "strict"
_DISCRETE = (BooleanType, IntegerType, LongType, DateType, TimeType, TimestampType, TimestamptzType,
             TimestampNanoType, TimestamptzNanoType)


def _unsupported(what: str) -> ex.Undecided:
    """What the reference does not decide: no verdict (UNSUPPORTED), never a refusal."""
    return ex.Undecided(f"{what} (the reference's metrics evaluation leaves this undecided)")


def _count(file: dict[str, Any], key: str, fid: int) -> int | None:
    counts = file.get(key)
    if not isinstance(counts, dict) or str(fid) not in counts:
        return None
    return int(counts[str(fid)])


def _bound(file: dict[str, Any], key: str, fid: int, t: IcebergType) -> Any:
    bounds = file.get(key)
    if not isinstance(bounds, dict) or str(fid) not in bounds:
        return None
    return from_bytes(t, bytes.fromhex(bounds[str(fid)]))


def _key(t: IcebergType, v: Any) -> Any:
    return ex._key(t, v)


def _some(t: IcebergType, lo: Any, hi: Any, op: str, consts: tuple[Any, ...]) -> bool:
    """Whether some regular value x with lo <= x <= hi (None: unbounded) satisfies ``op``."""
    k = [_key(t, c) for c in consts]
    kl = None if lo is None else _key(t, lo)
    kh = None if hi is None else _key(t, hi)
    single = kl is not None and kl == kh
    if op == "lt":
        return kl is None or kl < k[0]
    if op == "lt-eq":
        return kl is None or kl <= k[0]
    if op == "gt":
        return kh is None or kh > k[0]
    if op == "gt-eq":
        return kh is None or kh >= k[0]
    if op in ("eq", "in"):
        return any((kl is None or kl <= c) and (kh is None or c <= kh) for c in k)
    if op == "not-eq":
        return not (single and kl == k[0])
    if op == "not-in":
        return not _every(t, lo, hi, "in", consts)
    if op == "starts-with":
        p = k[0]
        return (kl is None or kl[:len(p)] == p or kl < p) and (kh is None or kh >= p)
    if op == "not-starts-with":
        return not _every(t, lo, hi, "starts-with", consts)
    raise _unsupported(f"{op} is not decided here")


def _every(t: IcebergType, lo: Any, hi: Any, op: str, consts: tuple[Any, ...]) -> bool:
    """Whether every regular value x with lo <= x <= hi satisfies ``op``."""
    k = [_key(t, c) for c in consts]
    kl = None if lo is None else _key(t, lo)
    kh = None if hi is None else _key(t, hi)
    if op in ("not-eq", "not-in"):
        return not _some(t, lo, hi, "in", consts)
    if op == "not-starts-with":
        return not _some(t, lo, hi, "starts-with", consts)
    if kl is None and op in ("gt", "gt-eq", "eq", "in", "starts-with"):
        return False
    if kh is None and op in ("lt", "lt-eq", "eq", "in", "starts-with"):
        return False
    if op == "lt":
        return bool(kh < k[0])
    if op == "lt-eq":
        return bool(kh <= k[0])
    if op == "gt":
        return bool(kl > k[0])
    if op == "gt-eq":
        return bool(kl >= k[0])
    if op in ("eq", "in"):
        assert kl is not None and kh is not None
        if isinstance(t, _DISCRETE):   # every integer of [lo, hi] is one of the constants
            lo_i, hi_i = int(kl), int(kh)
            return hi_i - lo_i < 4096 and all(x in k for x in range(lo_i, hi_i + 1))
        return bool(kl == kh and kl in k)
    if op == "starts-with":
        assert kl is not None and kh is not None
        return bool(kl[:len(k[0])] == k[0] and kh[:len(k[0])] == k[0])
    raise _unsupported(f"{op} is not decided here")


def _possible(t: IcebergType, required: bool, file: dict[str, Any], fid: int) -> tuple[bool, bool, bool]:
    """Which kinds of value the column may hold: (null, NaN, regular)."""
    rc = int(file["record_count"])
    if rc <= 0:
        return False, False, False
    vc = _count(file, "value_counts", fid)
    nulls = 0 if required else _count(file, "null_value_counts", fid)
    floating = isinstance(t, (FloatType, DoubleType))
    nans = _count(file, "nan_value_counts", fid) if floating else 0
    null = nulls is None or nulls > 0
    nan = floating and (nans is None or nans > 0)
    regular = True
    if vc is not None and nulls is not None and nans is not None:
        regular = vc - nulls - nans > 0
    return null, nan, regular


def _decide(t: IcebergType, required: bool, file: dict[str, Any], fid: int, every: bool,
            on_value: Any, on_regular: Any) -> bool:
    null, nan, regular = _possible(t, required, file, fid)
    answers = []
    if null:
        answers.append(on_value(None))
    if nan:
        answers.append(on_value(float("nan")))
    if regular:
        lo = _bound(file, "lower_bounds", fid, t)
        hi = _bound(file, "upper_bounds", fid, t)
        answers.append(on_regular(lo, hi))
    return all(answers) if every else any(answers)


def evaluate(schema_json: JSON, file: JSON, expr_json: JSON, mode: str) -> bool:
    """The tightest ``mode`` answer for the predicate on a data file with metrics ``file``
    (``record_count`` and maps keyed by field id; bounds as hex of the binary single-value
    form): inclusive "rows might match", strict "rows must match"."""
    if not isinstance(file, dict) or not isinstance(file.get("record_count"), int):
        raise SpecViolation("expressions.metrics-file", "a data file needs an integer record_count", clause=CLAUSE)
    schema = parse_schema(schema_json)
    bound = ex.bind(schema, ex.parse_expression(expr_json))
    every = mode == STRICT
    if isinstance(bound, ex.Constant):
        if int(file["record_count"]) <= 0:
            return every
        return bound.value
    if isinstance(bound, (ex.Junction, ex.Not)):
        raise _unsupported("and, or and not are not decided here")
    subject = bound.child if isinstance(bound, (ex.Test, ex.SetTest)) else bound.left
    if not isinstance(subject, ex.BoundReference) or len(subject.id_path) != 1:
        raise _unsupported("a predicate on a top-level column is decided here")
    t, fid = subject.field_type, subject.field_id
    required = any(f.field_id == fid and f.required for f in schema.fields)

    def on_value(v: Any) -> bool:
        return ex.evaluate(bound, {} if v is None else {str(fid): _json(v)})

    if isinstance(bound, ex.Test):
        op = bound.op
        return _decide(t, required, file, fid, every, on_value,
                       lambda lo, hi: op in ("not-null", "not-nan"))
    if isinstance(bound, ex.SetTest):
        op, consts = bound.op, tuple(lit.value for lit in bound.values)
    else:
        assert isinstance(bound.right, ex.Literal)
        op, consts = bound.op, (bound.right.value,)
    if op in ("starts-with", "not-starts-with") and not isinstance(t, StringType):
        raise _unsupported(f"{op} of {t}")
    return _decide(t, required, file, fid, every, on_value,
                   lambda lo, hi: (_every if every else _some)(t, lo, hi, op, consts))


def _json(v: Any) -> Any:
    """A NaN as the JSON single-value form reads it back."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return v


def manifest_might_match(schema_json: JSON, spec_json: JSON, summaries: JSON, expr_json: JSON) -> bool:
    """Whether a manifest whose manifest-list entry has the partition field ``summaries``
    (``contains_null``, ``contains_nan``, ``lower_bound`` / ``upper_bound`` as hex of the
    binary single-value form of the partition type) may hold a file matching the predicate
    on the spec's one source column."""
    schema = parse_schema(schema_json)
    spec = parse_partition_spec(spec_json, 2)
    if len(spec.fields) != 1 or not isinstance(summaries, list) or len(summaries) != 1:
        raise _unsupported("one partition field is decided here")
    pf, summary = spec.fields[0], summaries[0]
    bound = ex.bind(schema, ex.parse_expression(expr_json))
    if isinstance(bound, ex.Constant):
        return bound.value
    if isinstance(bound, (ex.Junction, ex.Not)):
        raise _unsupported("and, or and not are not decided here")
    subject = bound.child if isinstance(bound, (ex.Test, ex.SetTest)) else bound.left
    if not isinstance(subject, ex.BoundReference) or subject.field_id != pf.source_ids[0]:
        raise _unsupported("a predicate on the partition's source column is decided here")
    source = subject.field_type
    t = pf.transform
    result = t.result_type(source)
    fid = str(pf.field_id)

    def raw(key: str) -> Any:
        v = summary.get(key)
        return None if v is None else from_bytes(result, bytes.fromhex(v))

    lo, hi = raw("lower_bound"), raw("upper_bound")
    answers = []
    if summary.get("contains_null"):
        answers.append(ex.evaluate(bound, {}))
    if isinstance(result, (FloatType, DoubleType)) and summary.get("contains_nan") is not False:
        answers.append(ex.evaluate(bound, {str(subject.field_id): "NaN"}))
    if lo is not None and hi is not None:
        if isinstance(t, IdentityTransform):
            if isinstance(bound, ex.Test):
                answers.append(bound.op in ("not-null", "not-nan"))
            else:
                if isinstance(bound, ex.SetTest):
                    op, consts = bound.op, tuple(lit.value for lit in bound.values)
                else:
                    assert isinstance(bound.right, ex.Literal)
                    op, consts = bound.op, (bound.right.value,)
                answers.append(_some(source, lo, hi, op, consts))
        elif isinstance(lo, int) and isinstance(hi, int) and hi - lo < 4096:
            step = t.width if isinstance(t, TruncateTransform) else 1
            first = lo + (-lo) % step
            values = [p for p in range(first, hi + 1, step)
                      if not isinstance(t, BucketTransform) or 0 <= p < t.num_buckets]
            answers.append(any(accepts(schema_json, spec_json, expr_json, INCLUSIVE, {fid: value_to_json(result, p)})
                               for p in values))
        else:
            raise _unsupported(f"{t} summaries are not decided here")
    return any(answers)
