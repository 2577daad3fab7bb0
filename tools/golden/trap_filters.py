"""Generate ``suites/golden/trap-filters.json``: the row filters over the trap tables.

Run: ``python -m tools.golden.trap_filters`` from the repository root. The tables and their
values are :mod:`suites.golden.trap_tables` (``TYPE_TRAPS``: one table per source type whose
spec evolves through every transform the type takes; ``EXTRA_TRAPS``: partition evolution in
v2, a column dropped and added again, nested fields, a rename). For each trap column the grid
is, at the column's boundary literals (values of the column, see ``TrapColumn.literals``):

* =, < and > at every literal, and !=, <=, >= at one literal each, in turn (all six at each
  literal of a column with fewer than three);
* each comparison once more under ``not`` (the literals taken in turn), and ``not`` of every
  other predicate: in, not-in, is-null, not-null, is-nan / not-nan (float and double),
  starts-with / not-starts-with (strings);
* in and not-in over two literals; is-null and not-null; is-nan and not-nan (float, double);
  starts-with and not-starts-with at the column's prefixes (string);
* the type's extremes: <= its lowest value and >= its highest.

Only valid expressions of ``format/expressions-spec.md`` are written: literals in the JSON
single-value form of the column's type (no NaN or infinite literal: NaN is tested with is-nan,
and the infinities sit beyond the largest finite literal), references to top-level or nested
(``a.b``) columns, no transform terms. The filters of the extra tables are written below by
hand. Every filter of a type table selects a non-empty proper subset of its column's values
(nulls included), by the reference's evaluator; the expected rows of a scan are not written
here: ``suites/test_scan.py`` takes them from each table's recorded rows.
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.golden.trap_tables import DOUBLE_MAX, EXTRA_TRAPS, FLOAT_MAX, TYPE_TRAPS, TrapColumn
from tools.golden import GOLDEN

OUT = GOLDEN / "trap-filters.json"

CMP = ("eq", "not-eq", "lt", "lt-eq", "gt", "gt-eq")
#: an operation's name in filter ids ("not-" is kept for a negated filter)
ID = {"eq": "eq", "not-eq": "ne", "lt": "lt", "lt-eq": "le", "gt": "gt", "gt-eq": "ge", "in": "in", "not-in": "notin",
      "is-null": "isnull", "not-null": "notnull", "is-nan": "isnan", "not-nan": "notnan",
      "starts-with": "startswith", "not-starts-with": "notstartswith"}
SYMBOL = {"eq": "=", "not-eq": "!=", "lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">=", "in": "in",
          "not-in": "not in", "is-null": "is null", "not-null": "is not null", "is-nan": "is NaN",
          "not-nan": "is not NaN", "starts-with": "starts with", "not-starts-with": "does not start with"}

#: what each predicate exposes when a reader prunes a data file with it
TRAP = {
    "lt": "a projection of v < c to T(v) < T(c) instead of T(v) <= T(c) drops the rows below c inside c's own "
          "partition; a lower bound compared in the wrong order drops a file that holds values below c",
    "lt-eq": "the partition T(c) must be kept, and a file whose lower bound is c",
    "gt": "a projection of v > c to T(v) > T(c) instead of T(v) >= T(c) drops the rows above c inside c's own "
          "partition; an upper bound compared in the wrong order drops a file that holds values above c",
    "gt-eq": "the partition T(c) must be kept, and a file whose upper bound is c",
    "eq": "only the partition T(c) holds c: computing T(c) otherwise than the writer (rounding, sign, unit, hash "
          "input, code points) prunes the one partition that holds it",
    "not-eq": "only a file holding nothing but c (identity partition, bounds c..c, no null) may be pruned; "
              "nulls satisfy it",
    "in": "each value's own partition must be kept (the projection is the set of T(c))",
    "not-in": "only a file holding nothing but these values may be pruned; nulls satisfy it",
    "is-null": "null rows are in the null partition of every transform and counted in null_value_counts; a void "
               "field's partition value is always null and must not be read as a null column",
    "not-null": "a file with some non-null value must be kept: a void field's null partition value says nothing "
                "about the column",
    "is-nan": "NaN is in nan_value_counts, never in the bounds: a file whose bounds exclude everything may hold NaN",
    "not-nan": "a file of NaN only may be pruned, no other: bounds say nothing about NaN",
    "starts-with": "the projection through truncate[W] compares the first W code points of the prefix; string "
                   "bounds cut at 16 characters (the upper one incremented) are bounds, not values",
    "not-starts-with": "a file may be pruned only when every value starts with the prefix: truncated bounds that "
                       "share it prove nothing; nulls satisfy it",
    "not": "not is rewritten by pushing it down (not(v < c) is v >= c): in the spec's two-valued logic a null "
           "satisfies not(v < c), so the rewrite must keep the null rows; the pushed-down predicate is then "
           "projected like the others",
}


def ref(column: str) -> dict[str, Any]:
    return {"type": "reference", "name": column}


def predicate(op: str, column: str, value: Any = None) -> dict[str, Any]:
    if op in ("in", "not-in"):
        return {"type": op, "child": ref(column), "values": list(value)}
    if op in ("is-null", "not-null", "is-nan", "not-nan"):
        return {"type": op, "child": ref(column)}
    return {"type": op, "left": ref(column), "right": value}


def negate(e: dict[str, Any]) -> dict[str, Any]:
    return {"type": "not", "child": e}


def shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(shown(v) for v in value) + ")"
    return json.dumps(value, ensure_ascii=False)


def slug(value: Any) -> str:
    """An id-safe rendering of a literal: ASCII letters and digits kept, '-' for separators,
    'minus-' for a leading minus sign, other characters by code point (u1f600), 'max' for
    the largest finite float or double."""
    if isinstance(value, (list, tuple)):
        return "-".join(slug(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and abs(value) in (FLOAT_MAX, DOUBLE_MAX):   # the largest value of the table
        return "minus-max" if value < 0 else "max"
    text = str(value).removesuffix("+00:00")
    if re.match(r"\d{4}-\d\d-\d\dT", text):      # timestamps without zero fractions and seconds
        text = re.sub(r"(:00)?(\.0+)?$", "", text)
    if text == "":
        return "empty"
    out = "minus-" if text.startswith("-") else ""
    text = text[1:] if out else text
    for ch in text:
        if ch.isascii() and ch.isalnum():
            out += ch.lower()
        elif ch.isascii():
            out += "-" if not out.endswith("-") else ""
        else:
            out += f"u{ord(ch):x}"
    return out.strip("-")


class Grid:
    """The filters of one table, ids unique."""

    def __init__(self) -> None:
        self.filters: list[dict[str, Any]] = []

    def add(self, fid: str, description: str, trap: str, expression: dict[str, Any]) -> None:
        ids = {f["id"] for f in self.filters}
        base, n = fid, 2
        while fid in ids:
            fid, n = f"{base}-{n}", n + 1
        self.filters.append({"id": fid, "description": description, "trap": trap, "filter": expression})


def _ordered(col: TrapColumn) -> list[Any]:
    """The column's values sorted in the spec's order (by the reference's evaluator)."""
    schema = parse_schema({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "v", "required": False, "type": col.type}]})
    out: list[Any] = []
    for v in col.values:
        if v == "NaN" or v in ("Infinity", "-Infinity") and col.type in ("float", "double"):
            continue
        below = [i for i, o in enumerate(out)
                 if ex.evaluate(ex.bind(schema, ex.parse_expression(predicate("lt", "v", v))), {"1": o})]
        out.insert(len(below), v)
    return out


def column_grid(grid: Grid, col: TrapColumn, where: str) -> None:
    """The grid of one column (``where``: the transforms and table the trap text names). A
    comparison that selects nothing or everything of the column (v < false) is left out; the
    literal of a negated comparison is the next one that selects a proper subset."""
    c = col.name
    proper = selects_proper_subset(col)
    prefix = "" if c == "v" else slug(c) + "-"
    lits = [v for v, _ in col.literals]
    note = {json.dumps(v, ensure_ascii=False): why for v, why in col.literals}

    def why(v: Any) -> str:
        return f"{shown(v)}: {note[json.dumps(v, ensure_ascii=False)]}" if json.dumps(v, ensure_ascii=False) in note else shown(v)

    for i, v in enumerate(lits):
        # =, < and > at every literal (the transform boundaries), the other three in turn
        ops = CMP if len(lits) < 3 else ("eq", "lt", "gt", ("not-eq", "lt-eq", "gt-eq")[i % 3])
        for op in ops:
            if proper(predicate(op, c, v)):
                grid.add(f"{prefix}{ID[op]}-{slug(v)}", f"{c} {SYMBOL[op]} {shown(v)}",
                         f"{TRAP[op]} ({where}). {why(v)}", predicate(op, c, v))
    for i, op in enumerate(("lt", "gt-eq", "eq", "gt", "lt-eq", "not-eq")):
        v = next(x for x in lits[i % len(lits):] + lits if proper(predicate(op, c, x)))
        grid.add(f"not-{prefix}{ID[op]}-{slug(v)}", f"not ({c} {SYMBOL[op]} {shown(v)})",
                 f"{TRAP['not']}; {TRAP[op]} ({where}). {why(v)}", negate(predicate(op, c, v)))
    pair = [lits[0], lits[-1]]
    middle = [lits[len(lits) // 2]] if len(lits) > 2 else [lits[0]]
    for op, values, negated in (("in", pair, False), ("not-in", middle, False),
                                ("in", middle, True), ("not-in", pair, True)):
        e = predicate(op, c, values)
        grid.add(f"{'not-' if negated else ''}{prefix}{ID[op]}-{slug(values)}",
                 f"{'not (' if negated else ''}{c} {SYMBOL[op]} {shown(values)}{')' if negated else ''}",
                 f"{TRAP['not'] + '; ' if negated else ''}{TRAP[op]} ({where}). " + "; ".join(why(v) for v in values),
                 negate(e) if negated else e)
    tests = ["is-null", "not-null"] + (["is-nan", "not-nan"] if col.type in ("float", "double") else [])
    for op in tests:
        grid.add(f"{prefix}{ID[op]}", f"{c} {SYMBOL[op]}", f"{TRAP[op]} ({where})", predicate(op, c))
        grid.add(f"not-{prefix}{ID[op]}", f"not ({c} {SYMBOL[op]})", f"{TRAP['not']}; {TRAP[op]} ({where})",
                 negate(predicate(op, c)))
    for i, (p, p_why) in enumerate(col.prefixes):
        for op in ("starts-with", "not-starts-with"):
            if op == "not-starts-with" and i == len(col.prefixes) - 1:
                continue
            grid.add(f"{prefix}{ID[op]}-{slug(p)}", f"{c} {SYMBOL[op]} {shown(p)}", f"{TRAP[op]} ({where}). {p_why}",
                     predicate(op, c, p))
    if col.prefixes:
        for op, (p, p_why) in (("starts-with", col.prefixes[-1]), ("not-starts-with", col.prefixes[0])):
            grid.add(f"not-{prefix}{ID[op]}-{slug(p)}", f"not ({c} {SYMBOL[op]} {shown(p)})",
                     f"{TRAP['not']}; {TRAP[op]} ({where}). {p_why}", negate(predicate(op, c, p)))
    ordered = _ordered(col)
    low, high = ordered[0], ordered[-1]
    if col.type != "boolean":
        grid.add(f"{prefix}le-lowest", f"{c} <= {shown(low)} (the lowest value)",
                 f"the type's extreme: the file or partition of the lowest value must be kept ({where})",
                 predicate("lt-eq", c, low))
        grid.add(f"{prefix}ge-highest", f"{c} >= {shown(high)} (the highest value)",
                 f"the type's extreme: the file or partition of the highest value must be kept ({where})",
                 predicate("gt-eq", c, high))


def selects_proper_subset(col: TrapColumn) -> Any:
    """Whether a filter on ``col`` alone selects a non-empty proper subset of its values and
    null, by the reference's evaluator (a struct around a nested column is never null here)."""
    parts = col.name.split(".")
    fields: list[dict[str, Any]] = [{"id": 1, "name": parts[-1], "required": False, "type": col.type}]
    for i, name in enumerate(reversed(parts[:-1])):
        fields = [{"id": 10 + i, "name": name, "required": False, "type": {"type": "struct", "fields": fields}}]
    schema = parse_schema({"type": "struct", "schema-id": 0, "fields": fields})

    def row(v: Any) -> dict[str, Any]:
        r: dict[str, Any] = {"1": v}
        for i in range(len(parts) - 1):
            r = {str(10 + i): r}
        return r

    def proper(expression: dict[str, Any]) -> bool:
        bound = ex.bind(schema, ex.parse_expression(expression))
        return 0 < sum(ex.evaluate(bound, row(v)) for v in [*col.values, None]) < len(col.values) + 1
    return proper


def type_grids() -> dict[str, list[dict[str, Any]]]:
    out = {}
    for trap in TYPE_TRAPS:
        grid = Grid()
        column_grid(grid, trap.column, f"{trap.table}: {', '.join(trap.transforms)}, void")
        proper = selects_proper_subset(trap.column)
        wrong = [f["id"] for f in grid.filters if not proper(f["filter"])]
        if wrong:
            raise SystemExit(f"{trap.table}: filters that select no proper subset of the values: {wrong}")
        out[trap.table] = grid.filters
    return out


# --- the extra tables, by hand -----------------------------------------------------------------

def _and(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {"type": "and", "left": a, "right": b}


def _or(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {"type": "or", "left": a, "right": b}


EPOCH, LAST_MICRO, HOUR_23 = "1970-01-01T00:00:00.000000+00:00", "1969-12-31T23:59:59.999999+00:00", "1969-12-31T23:00:00.000000+00:00"


def extra_grids() -> dict[str, list[dict[str, Any]]]:
    P = "partition evolution in v2: each file must be pruned by the spec it was written with"
    evo = Grid()
    for fid, desc, trap, e in [
        ("ts-lt-epoch", "ts < 1970-01-01", "day -1 (spec 0), hour -1 (spec 1) and year -1 (spec 3) hold the rows",
         predicate("lt", "ts", EPOCH)),
        ("ts-eq-last-micro", "ts = 1969-12-31T23:59:59.999999", "hour -1, day -1, year -1 (floor) under specs 0, 1, 3",
         predicate("eq", "ts", LAST_MICRO)),
        ("ts-gt-2300", "ts > 1969-12-31T23:00:00", "hour -1 also holds 23:59:59.999999 (mid literal): a projection "
         "to hour > -1 drops it", predicate("gt", "ts", HOUR_23)),
        ("ts-lt-eq-2300", "ts <= 1969-12-31T23:00:00", "day -1 holds both rows of 1969", predicate("lt-eq", "ts", HOUR_23)),
        ("ts-gt-eq-epoch", "ts >= 1970-01-01", "day 0, hour 0, year 0 and 54", predicate("gt-eq", "ts", EPOCH)),
        ("ts-is-null", "ts is null", "null partitions of day, hour and year; spec 2 has no ts field",
         predicate("is-null", "ts")),
        ("cat-eq-a", "cat = 'a'", "identity (specs 0 and 3: field 1001 dropped and re-added with its id), bucket[4] "
         "(spec 1), none (spec 2)", predicate("eq", "cat", "a")),
        ("cat-not-eq-a", "cat != 'a'", "nulls satisfy it; no spec but identity can prune", predicate("not-eq", "cat", "a")),
        ("cat-in-b-emoji", "cat in ('b', '😀')", "the bucket of a non-ASCII string: hash of its UTF-8 bytes",
         predicate("in", "cat", ["b", "😀"])),
        ("cat-is-null", "cat is null", "the null partition of identity and bucket", predicate("is-null", "cat")),
        ("cat-starts-with-emoji", "cat starts with '😀'", "identity partition 😀; no projection through bucket",
         predicate("starts-with", "cat", "😀")),
        ("n-eq-minus-1", "n = -1", "truncate[16](-1) is -16 (spec 2 only)", predicate("eq", "n", -1)),
        ("n-gt-0", "n > 0", "truncate[16] partition 0 holds 0 and 15 (mid literal)", predicate("gt", "n", 0)),
        ("n-lt-16", "n < 16", "partition 16 may be pruned, partitions -32, -16 and 0 not", predicate("lt", "n", 16)),
        ("and-ts-from-epoch-cat-a", "ts >= 1970-01-01 and cat = 'a'", "two columns pruned by different fields of "
         "each spec", _and(predicate("gt-eq", "ts", EPOCH), predicate("eq", "cat", "a"))),
        ("or-cat-b-n-negative", "cat = 'b' or n < 0", "an or must keep a file either side may match: spec 2 has no cat "
         "field, spec 0 no n field", _or(predicate("eq", "cat", "b"), predicate("lt", "n", 0))),
        ("or-ts-before-epoch-n-above-15", "ts < 1970-01-01 or n > 15", "an or over a time transform and truncate",
         _or(predicate("lt", "ts", EPOCH), predicate("gt", "n", 15))),
        ("not-and-cat-a-n-minus-1", "not (cat = 'a' and n = -1)", "not over and: pushed down as cat != 'a' or n != -1",
         negate(_and(predicate("eq", "cat", "a"), predicate("eq", "n", -1)))),
        ("and-cat-null-ts-null", "cat is null and ts is null", "the all-null row, in the null partition of each field",
         _and(predicate("is-null", "cat"), predicate("is-null", "ts"))),
    ]:
        evo.add(fid, desc, f"{P}: {trap}", e)

    D = ("column c dropped and added again under the same name: the files written before hold the old c (another "
         "field id) with its bounds and counts; read by field id, c is null there")
    drop = Grid()
    for fid, desc, trap, e in [
        ("c-eq-3", "c = 3", "old files hold c = 3 under the old id: a reader matching by name returns id 3 on the "
         "newer snapshot", predicate("eq", "c", 3)),
        ("c-is-null", "c is null", "the old files' null count of the old c is 0: pruning with it drops ids 1 .. 5",
         predicate("is-null", "c")),
        ("not-c-is-null", "not (c is null)", "the new c is null in every old file", negate(predicate("is-null", "c"))),
        ("c-lt-2", "c < 2", "old bounds 1 .. 2 (grp x) under the old id", predicate("lt", "c", 2)),
        ("c-gt-2", "c > 2", "old bounds 3 .. 30 (grp y) under the old id", predicate("gt", "c", 2)),
        ("c-not-eq-3", "c != 3", "nulls satisfy it", predicate("not-eq", "c", 3)),
        ("c-in-1-30", "c in (1, 30)", "values of the old c only", predicate("in", "c", [1, 30])),
        ("grp-x-and-c-null", "grp = 'x' and c is null", "identity partition x and the null count of the new c",
         _and(predicate("eq", "grp", "x"), predicate("is-null", "c"))),
    ]:
        drop.add(fid, desc, f"{D}: {trap}", e)

    N = "nested fields as filter columns and partition sources (identity(s.a), year(s.t.d), then truncate[16](s.a))"
    nested = Grid()
    LONG = "iceberg-conformance-"
    for fid, desc, trap, e in [
        ("s-a-eq-minus-1", "s.a = -1", "identity -1, truncate[16] -16 (floor)", predicate("eq", "s.a", -1)),
        ("s-a-lt-0", "s.a < 0", "truncate[16] partition -16", predicate("lt", "s.a", 0)),
        ("s-a-gt-0", "s.a > 0", "truncate[16] partition 0 holds 0 and 15 (mid literal)", predicate("gt", "s.a", 0)),
        ("s-a-lt-eq-15", "s.a <= 15", "truncate[16] partition 0", predicate("lt-eq", "s.a", 15)),
        ("s-a-gt-eq-16", "s.a >= 16", "truncate[16] partition 16", predicate("gt-eq", "s.a", 16)),
        ("s-a-not-eq-0", "s.a != 0", "nulls (a null field, a null struct) satisfy it", predicate("not-eq", "s.a", 0)),
        ("s-a-in-minus-1-16", "s.a in (-1, 16)", "two partitions", predicate("in", "s.a", [-1, 16])),
        ("s-a-is-null", "s.a is null", "a null field and a null struct: both null partitions",
         predicate("is-null", "s.a")),
        ("s-a-not-null", "s.a is not null", "the partitions of non-null values", predicate("not-null", "s.a")),
        ("not-s-a-lt-0", "not (s.a < 0)", "not over a nested field; nulls satisfy it", negate(predicate("lt", "s.a", 0))),
        ("s-b-starts-with-long-prefix", f"s.b starts with '{LONG}'", "a nested string's bounds cut at 16 characters",
         predicate("starts-with", "s.b", LONG)),
        ("s-b-eq-e-acute", "s.b = 'é'", "a non-ASCII value of a nested field", predicate("eq", "s.b", "é")),
        ("s-b-lt-abc", "s.b < 'abc'", "bounds of a nested string", predicate("lt", "s.b", "abc")),
        ("s-b-is-null", "s.b is null", "null field, null struct", predicate("is-null", "s.b")),
        ("s-b-not-starts-with-ab", "s.b does not start with 'ab'", "nulls satisfy it",
         predicate("not-starts-with", "s.b", "ab")),
        ("s-t-d-lt-epoch", "s.t.d < 1970-01-01", "year(s.t.d) -1 and -2 (floor), a field of a struct in a struct",
         predicate("lt", "s.t.d", "1970-01-01")),
        ("s-t-d-eq-1969-12-31", "s.t.d = 1969-12-31", "year -1: rounding toward zero puts it in year 0",
         predicate("eq", "s.t.d", "1969-12-31")),
        ("s-t-d-gt-eq-1969-12-31", "s.t.d >= 1969-12-31", "year -1 must be kept",
         predicate("gt-eq", "s.t.d", "1969-12-31")),
        ("s-t-d-is-null", "s.t.d is null", "null at three levels: the date, its struct, the outer struct",
         predicate("is-null", "s.t.d")),
        ("s-t-d-not-null", "s.t.d is not null", "year partitions of non-null dates", predicate("not-null", "s.t.d")),
        ("and-s-a-from-0-s-t-d-null", "s.a >= 0 and s.t.d is null", "two nested partition sources",
         _and(predicate("gt-eq", "s.a", 0), predicate("is-null", "s.t.d"))),
    ]:
        nested.add(fid, desc, f"{N}: {trap}", e)

    R = ("column a renamed to b and a new column a added: a is field 2 in the older snapshot and field 3 in the newer, "
         "b is field 2 (partitioned by truncate[16], the partition field still named a_trunc)")
    renamed = Grid()
    for fid, desc, trap, e in [
        ("a-eq-5", "a = 5", "bound to the current schema, the older snapshot's a = 5 reads field 3", predicate("eq", "a", 5)),
        ("a-lt-0", "a < 0", "field 2 (older snapshot, partitioned) or field 3 (newer, not a partition source)",
         predicate("lt", "a", 0)),
        ("a-gt-eq-16", "a >= 16", "the partition a_trunc 16 is of field 2, which the newer snapshot calls b",
         predicate("gt-eq", "a", 16)),
        ("a-is-null", "a is null", "the new a is null in every file written before it", predicate("is-null", "a")),
        ("a-not-eq-5", "a != 5", "nulls satisfy it", predicate("not-eq", "a", 5)),
        ("not-a-is-null", "not (a is null)", "the new a has values only in the newest file", negate(predicate("is-null", "a"))),
        ("b-eq-5", "b = 5", "b (field 2) partitioned by a_trunc: truncate[16] partition 0", predicate("eq", "b", 5)),
        ("b-lt-0", "b < 0", "partitions -16 and -32 (floor)", predicate("lt", "b", 0)),
        ("b-gt-16", "b > 16", "truncate[16] partition 16 holds 16 and 17 (mid literal)", predicate("gt", "b", 16)),
        ("b-is-null", "b is null", "the null partition of a_trunc", predicate("is-null", "b")),
        ("a-eq-5-or-b-eq-5", "a = 5 or b = 5", "two fields that were one name: rows 2 (b) and 5 (a)",
         _or(predicate("eq", "a", 5), predicate("eq", "b", 5))),
    ]:
        renamed.add(fid, desc, f"{R}: {trap}", e)
    grids = {"trap_v2_partition_evolution": evo.filters, "trap_v2_dropped_readded": drop.filters,
             "trap_v2_nested": nested.filters, "trap_v2_renamed": renamed.filters}
    assert set(grids) == set(EXTRA_TRAPS)
    return grids


HEADER = {
    "description": "Row filters over the trap tables (suites/golden/trap_tables.py), generated by "
                   "python -m tools.golden.trap_filters, in the JSON form of format/expressions-spec.md, each with "
                   "the pruning bug it exposes. Same format and semantics as filters.json, whose notes apply; "
                   "suites/golden/filters.py loads both files.",
    "notes": [
        "A type table's column v holds the same values and a null once under each partition spec it evolved "
        "through, so one filter meets every transform of the type: a missing row's id (100 * spec + i) names "
        "the spec whose files were pruned wrongly.",
        "T is the transform of the spec a file was written with; c the literal. Literals are values of the "
        "column; 'mid' literals sit inside a partition that also holds a value on their other side.",
        "No literal is NaN or infinite, and no float or double filter compares at 0 (see filters.json).",
    ],
}


def main() -> int:
    tables = type_grids() | extra_grids()
    doc = dict(HEADER, tables=tables)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is not what the generator writes: run python -m tools.golden.trap_filters")
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {sum(len(f) for f in tables.values())} filters over {len(tables)} tables")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
