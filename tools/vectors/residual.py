"""Generate ``residual.json`` of this directory (operation ``residual``).

Run: ``python -m tools.vectors.residual [--agree [--java]]``. Each case is a row
filter, a partition tuple and a few rows of that partition; the expected residual and whether the
filter matches each row are written by hand below from "Scan Planning" (note 1: the strict and
inclusive projections "are used to calculate the residual predicates for each file in a scan"),
"Partition Transforms" and the null-safe comparisons of ``format/expressions-spec.md``, each with
its derivation; this kit's ``reference/`` is not used. Bucket numbers come from the Appendix B
hash of 34 (2017239379, bucket[16] 3) and from the 32-bit Murmur3 hashes named in the
derivations (``vectors/hash`` has how a long is hashed).

``derived.agreed`` is kept from the existing file; with ``--agree`` it is recomputed: PyIceberg
(and with ``--java`` Iceberg Java, through the kit's ``java`` target, which starts a local Spark
JVM) is asked every case and named where its residual is both sound (it agrees with the filter on
every row of the case) and as tight as the expected one (the judgement of
``suites/test_residuals.py``), or, for an error case, where it refuses the filter.
"""
import json
import sys

from tools.vectors.metrics import cmp, ref, setp, test  # noqa: E402

from tools.vectors import VECTORS


def fld(i, n, t, req=False):
    return {"id": i, "name": n, "required": req, "type": t}


SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    fld(1, "id", "long", True), fld(2, "i", "int"), fld(3, "s", "string"), fld(4, "f", "float"),
    fld(5, "dt", "date"), fld(6, "ts", "timestamp"), fld(7, "data", "string"), fld(8, "n", "int")]}
FID = {f["name"]: str(f["id"]) for f in SCHEMA["fields"]}


def spec(*fields):
    """A spec of (source column, transform) fields, field ids 1000, 1001, ..."""
    return {"spec-id": 0, "fields": [
        {"source-id": int(FID[c]), "field-id": 1000 + k, "name": f"{c}_{t.split('[')[0]}", "transform": t}
        for k, (c, t) in enumerate(fields)]}


def part(*values):
    """A partition tuple: values for fields 1000, 1001, ...; None is a null (left out)."""
    return {str(1000 + k): v for k, v in enumerate(values) if v is not None}


def row(matches, **cols):
    return {"row": {FID[c]: v for c, v in cols.items() if v is not None}, "matches": matches}


def AND(a, b): return {"type": "and", "left": a, "right": b}
def OR(a, b): return {"type": "or", "left": a, "right": b}
def NOT(a): return {"type": "not", "child": a}


_SYM = {"lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">=", "eq": "=", "not-eq": "!="}


def show(e):
    """A short text form of a predicate for descriptions."""
    if isinstance(e, bool):
        return str(e).lower()
    t = e["type"]
    if t in ("and", "or"):
        return f"({show(e['left'])} {t} {show(e['right'])})"
    if t == "not":
        return f"not {show(e['child'])}"
    if "values" in e:
        return f"{e['child']['name']} {t} ({', '.join(json.dumps(v) for v in e['values'])})"
    if "child" in e:
        return f"{e['child']['name']} {t}"
    return f"{e['left']['name']} {_SYM.get(t, t)} {json.dumps(e['right'])}"


TESTS = []


def case(sp, partition, expr, expected, rows, why, case_sensitive=None):
    TESTS.append((sp, partition, expr, expected, rows, why, case_sensitive))


# ---- identity(i): the partition value is the column's value -------------------------------
ID = spec(("i", "identity"))
X = cmp("eq", "data", "x")
case(ID, part(5), cmp("eq", "i", 5), True, [row(True, i=5, data="x"), row(True, i=5)], "every row of p=5 has i = 5")
case(ID, part(6), cmp("eq", "i", 5), False, [row(False, i=6, data="x")], "every row of p=6 has i = 6 != 5")
case(ID, part(4), cmp("lt", "i", 5), True, [row(True, i=4)], "i = 4 < 5 on every row")
case(ID, part(4), cmp("gt-eq", "i", 5), False, [row(False, i=4)], "4 >= 5 is false")
case(ID, part(5), setp("in", "i", [1, 5]), True, [row(True, i=5)], "5 is in (1, 5)")
case(ID, part(6), setp("in", "i", [1, 5]), False, [row(False, i=6)], "6 is not in (1, 5)")
case(ID, part(5), setp("not-in", "i", [1, 5]), False, [row(False, i=5)], "5 is in (1, 5), so not-in is false")
case(ID, part(5), cmp("not-eq", "i", 5), False, [row(False, i=5)], "i = 5 on every row")
case(ID, part(5), AND(cmp("eq", "i", 5), X), X,
     [row(True, i=5, data="x"), row(False, i=5, data="y"), row(False, i=5)],
     "i = 5 is true for p=5, true and x is x; data is no partition source, so data = 'x' stays")
case(ID, part(6), AND(cmp("eq", "i", 5), X), False, [row(False, i=6, data="x"), row(False, i=6, data="y")],
     "i = 5 is false for p=6; false and x is false")
case(ID, part(5), OR(cmp("eq", "i", 5), X), True, [row(True, i=5, data="x"), row(True, i=5, data="y")],
     "i = 5 is true for p=5; true or x is true")
case(ID, part(6), OR(cmp("eq", "i", 5), X), X, [row(True, i=6, data="x"), row(False, i=6, data="y")],
     "i = 5 is false for p=6; false or x is x")
case(ID, part(5), NOT(cmp("eq", "i", 5)), False, [row(False, i=5)], "not true is false")
case(ID, part(6), NOT(cmp("eq", "i", 5)), True, [row(True, i=6)], "not false is true")
case(ID, part(5), NOT(AND(cmp("eq", "i", 5), X)), NOT(X),
     [row(False, i=5, data="x"), row(True, i=5, data="y"), row(True, i=5)],
     "not (true and x) is not x; null = 'x' is false, so a null data matches not x")
case(ID, part(8), AND(OR(cmp("lt", "i", 3), cmp("gt", "i", 7)), {"type": "starts-with", "left": ref("data"), "right": "a"}),
     {"type": "starts-with", "left": ref("data"), "right": "a"},
     [row(True, i=8, data="ab"), row(False, i=8, data="b")],
     "i < 3 false and i > 7 true for p=8: (false or true) is true; true and x is x")
case(ID, part(5), X, X, [row(True, i=5, data="x"), row(False, i=5, data="y")],
     "data is no partition source column: the predicate stays")
case(ID, part(5), True, True, [row(True, i=5)], "a constant filter is its own residual")
case(ID, part(5), AND(cmp("eq", "I", 5), cmp("eq", "DATA", "x")), cmp("eq", "DATA", "x"),
     [row(True, i=5, data="x"), row(False, i=5, data="y")],
     "case-insensitive binding: I is i, true for p=5; DATA = 'x' stays as written", case_sensitive=False)

# ---- null partition values -----------------------------------------------------------------
case(ID, part(None), test("is-null", "i"), True, [row(True, data="x"), row(True)],
     "p=null holds only null i (identity keeps null)")
case(ID, part(None), test("not-null", "i"), False, [row(False, data="x")], "every i of p=null is null")
case(ID, part(None), cmp("lt", "i", 5), False, [row(False), row(False, data="x")],
     "null < 5 is false: comparisons are null-safe and a null is less than no value")
case(ID, part(None), cmp("not-eq", "i", 5), True, [row(True)], "null != 5 is true (the negation of null = 5, false)")
case(ID, part(None), NOT(cmp("lt", "i", 5)), True, [row(True)], "not (null < 5) is not false, true")
case(ID, part(None), setp("not-in", "i", [1, 2]), True, [row(True)], "null is not in (1, 2)")
case(ID, part(None), setp("in", "i", [1, 2]), False, [row(False)], "null is in no set of constants")
case(ID, part(None), AND(test("is-null", "i"), X), X, [row(True, data="x"), row(False, data="y")],
     "i is-null is true for p=null; true and x is x")
DAY = spec(("ts", "day"))
case(DAY, part(None), cmp("gt", "ts", "2017-11-16T00:00:00"), False, [row(False), row(False, i=1)],
     "day(null) is null: p=null holds only null ts, and null > X is false")
case(DAY, part(None), test("is-null", "ts"), True, [row(True)], "p=null holds only null ts")

# ---- NaN: identity(f) ----------------------------------------------------------------------
IDF = spec(("f", "identity"))
case(IDF, part("NaN"), test("is-nan", "f"), True, [row(True, f="NaN")], "p=NaN holds only NaN")
case(IDF, part("NaN"), test("not-nan", "f"), False, [row(False, f="NaN")], "p=NaN holds only NaN")
case(IDF, part("NaN"), cmp("gt", "f", 3.0), False, [row(False, f="NaN")],
     "NaN is neither less nor greater than any value: NaN > 3.0 is false")
case(IDF, part("NaN"), cmp("lt", "f", 3.0), False, [row(False, f="NaN")], "NaN < 3.0 is false")
case(IDF, part("NaN"), cmp("not-eq", "f", 3.0), True, [row(True, f="NaN")], "NaN != 3.0 is true (NaN = 3.0 is false)")
case(IDF, part(None), test("not-nan", "f"), True, [row(True)], "p=null holds only null f; a null is not NaN")
case(IDF, part(None), test("is-nan", "f"), False, [row(False)], "p=null holds only null f; a null is not NaN")
case(IDF, part(2.5), test("is-nan", "f"), False, [row(False, f=2.5)], "p=2.5 holds only 2.5")
case(IDF, part("NaN"), OR(cmp("gt", "f", 3.0), test("is-nan", "f")), True, [row(True, f="NaN")],
     "NaN > 3.0 false, is-nan true: false or true is true")

# ---- bucket[16](i) -------------------------------------------------------------------------
# bucket[16](34) = 2017239379 mod 16 = 3 (Appendix B); in bucket 3 also 7 (Murmur3 -137604029)
# and 51 (142596179); in bucket 4: 1 (1392991556) and 12 (916721908).
BK = spec(("i", "bucket[16]"))
case(BK, part(3), cmp("eq", "i", 34), cmp("eq", "i", 34), [row(True, i=34), row(False, i=7)],
     "34 hashes to bucket 3, as 7 does: p=3 holds i = 34 and other values, so i = 34 stays")
case(BK, part(4), cmp("eq", "i", 34), False, [row(False, i=1), row(False, i=12)],
     "34 is in bucket 3, never in p=4: i = 34 is false")
case(BK, part(4), cmp("not-eq", "i", 34), True, [row(True, i=1), row(True, i=12)],
     "no value of p=4 is 34: i != 34 is true")
case(BK, part(3), cmp("lt", "i", 50), cmp("lt", "i", 50), [row(True, i=34), row(False, i=51)],
     "a hash class holds values on both sides of 50 (34 and 51 in bucket 3): order comparisons stay")
case(BK, part(4), AND(cmp("eq", "i", 34), X), False, [row(False, i=1, data="x")],
     "i = 34 false for p=4; false and x is false")

# ---- truncate[10](i) -----------------------------------------------------------------------
TR = spec(("i", "truncate[10]"))
case(TR, part(10), cmp("lt", "i", 15), cmp("lt", "i", 15), [row(True, i=12), row(False, i=17)],
     "p=10 holds 10..19: some < 15, some not")
case(TR, part(10), cmp("lt", "i", 20), True, [row(True, i=10), row(True, i=19)], "every value of 10..19 is < 20")
case(TR, part(10), cmp("lt", "i", 10), False, [row(False, i=10), row(False, i=19)], "no value of 10..19 is < 10")
case(TR, part(10), cmp("gt-eq", "i", 10), True, [row(True, i=10), row(True, i=15)], "every value of 10..19 is >= 10")
case(TR, part(10), cmp("eq", "i", 15), cmp("eq", "i", 15), [row(True, i=15), row(False, i=11)], "15 is one of 10..19")
case(TR, part(10), cmp("eq", "i", 25), False, [row(False, i=10), row(False, i=19)], "25 is outside 10..19")
case(TR, part(-10), cmp("lt", "i", 0), True, [row(True, i=-10), row(True, i=-1)],
     "truncate[10] of -1 is -10 (v - (v mod 10), mod rounding down): p=-10 holds -10..-1, all < 0")
case(TR, part(-10), cmp("gt-eq", "i", -5), cmp("gt-eq", "i", -5), [row(True, i=-5), row(False, i=-6)],
     "p=-10 holds -10..-1: -5 >= -5, -6 is not")
case(TR, part(10), setp("in", "i", [3, 13]), setp("in", "i", [3, 13]), [row(True, i=13), row(False, i=14)],
     "13 is one of 10..19, 3 is not: some rows match")
case(TR, part(10), setp("not-in", "i", [1, 2]), True, [row(True, i=10), row(True, i=19)], "neither 1 nor 2 is in 10..19")

# ---- truncate[3](s) ------------------------------------------------------------------------
TS = spec(("s", "truncate[3]"))
SW = lambda v: {"type": "starts-with", "left": ref("s"), "right": v}  # noqa: E731
NSW = lambda v: {"type": "not-starts-with", "left": ref("s"), "right": v}  # noqa: E731
case(TS, part("abc"), SW("ab"), True, [row(True, s="abc"), row(True, s="abcdef")],
     "p='abc' holds the strings starting with 'abc', all start with 'ab'")
case(TS, part("abc"), SW("abcd"), SW("abcd"), [row(True, s="abcd"), row(False, s="abce")],
     "some strings starting with 'abc' start with 'abcd', some do not")
case(TS, part("abc"), SW("b"), False, [row(False, s="abc"), row(False, s="abcz")], "no string starting with 'abc' starts with 'b'")
case(TS, part("abc"), NSW("ab"), False, [row(False, s="abc"), row(False, s="abcx")], "every string of p='abc' starts with 'ab'")
case(TS, part("abc"), cmp("eq", "s", "abd"), False, [row(False, s="abc")], "'abd' does not start with 'abc'")
case(TS, part("abc"), cmp("eq", "s", "abc"), cmp("eq", "s", "abc"), [row(True, s="abc"), row(False, s="abcd")],
     "'abc' is one of the strings of p='abc'")
case(TS, part("ab"), cmp("eq", "s", "ab"), True, [row(True, s="ab")],
     "a partition value shorter than the width is the whole string: p='ab' holds only 'ab'")
case(TS, part("abc"), setp("in", "s", ["abcx", "zzz"]), setp("in", "s", ["abcx", "zzz"]),
     [row(True, s="abcx"), row(False, s="abcy")], "'abcx' starts with 'abc', 'zzz' does not")
IDS = spec(("s", "identity"))
case(IDS, part("abc"), SW("ab"), True, [row(True, s="abc")], "identity: 'abc' starts with 'ab'")
case(IDS, part("bb"), NSW("a"), True, [row(True, s="bb")], "identity: 'bb' does not start with 'a'")
case(IDS, part("abc"), NSW("a"), False, [row(False, s="abc")], "identity: 'abc' starts with 'a'")
case(TS, part("abc"), NSW("b"), True, [row(True, s="abc"), row(True, s="abcz")], "no string starting with 'abc' starts with 'b'")

# ---- year / month / day / hour, after and before 1970 --------------------------------------
YD = spec(("dt", "year"))
case(YD, part(47), cmp("gt-eq", "dt", "2017-01-01"), True, [row(True, dt="2017-01-01"), row(True, dt="2017-12-31")],
     "year 47 is 2017: every date of 2017 is >= 2017-01-01")
case(YD, part(47), cmp("lt", "dt", "2017-07-01"), cmp("lt", "dt", "2017-07-01"),
     [row(True, dt="2017-06-30"), row(False, dt="2017-07-01")], "2017 has dates on both sides of 2017-07-01")
case(YD, part(47), cmp("lt", "dt", "2017-01-01"), False, [row(False, dt="2017-01-01")], "no date of 2017 is before 2017-01-01")
case(YD, part(-1), cmp("lt", "dt", "1970-01-01"), True, [row(True, dt="1969-01-01"), row(True, dt="1969-12-31")],
     "year -1 is 1969 (years from 1970): every date of it is before 1970-01-01")
case(YD, part(-1), cmp("gt-eq", "dt", "1969-06-01"), cmp("gt-eq", "dt", "1969-06-01"),
     [row(True, dt="1969-06-01"), row(False, dt="1969-05-31")], "1969 has dates on both sides of 1969-06-01")
case(YD, part(-1), cmp("gt", "dt", "1969-12-31"), False, [row(False, dt="1969-12-31")], "no date of 1969 is after 1969-12-31")
MD = spec(("dt", "month"))
case(MD, part(-1), AND(cmp("gt-eq", "dt", "1969-12-01"), cmp("lt-eq", "dt", "1969-12-31")), True,
     [row(True, dt="1969-12-01"), row(True, dt="1969-12-31")],
     "month -1 is 1969-12: both bounds hold for every date of it; true and true is true")
case(MD, part(-1), cmp("lt", "dt", "1969-12-15"), cmp("lt", "dt", "1969-12-15"),
     [row(True, dt="1969-12-14"), row(False, dt="1969-12-15")], "1969-12 has dates on both sides of 1969-12-15")
case(MD, part(-1), cmp("eq", "dt", "1970-01-01"), False, [row(False, dt="1969-12-01")], "1970-01-01 is in month 0, not -1")
MT = spec(("ts", "month"))
case(MT, part(574), cmp("lt", "ts", "2017-12-01T00:00:00"), True,
     [row(True, ts="2017-11-01T00:00:00"), row(True, ts="2017-11-30T23:59:59.999999")],
     "month 574 = 47 * 12 + 10 is 2017-11: every timestamp of it is before 2017-12-01")
case(DAY, part(17486), cmp("gt-eq", "ts", "2017-11-16T00:00:00"), True,
     [row(True, ts="2017-11-16T00:00:00"), row(True, ts="2017-11-16T23:59:59.999999")],
     "day 17486 is 2017-11-16: every timestamp of it is >= its midnight")
case(DAY, part(17486), cmp("gt", "ts", "2017-11-16T12:00:00"), cmp("gt", "ts", "2017-11-16T12:00:00"),
     [row(True, ts="2017-11-16T12:00:00.000001"), row(False, ts="2017-11-16T12:00:00")], "2017-11-16 has timestamps on both sides of noon")
case(DAY, part(17486), cmp("lt", "ts", "2017-11-16T00:00:00"), False, [row(False, ts="2017-11-16T00:00:00")],
     "no timestamp of 2017-11-16 is before its midnight")
A12, B18 = cmp("gt", "ts", "2017-11-16T12:00:00"), cmp("lt", "ts", "2017-11-16T18:00:00")
case(DAY, part(17486), AND(A12, B18), AND(A12, B18),
     [row(True, ts="2017-11-16T15:00:00"), row(False, ts="2017-11-16T11:00:00"), row(False, ts="2017-11-16T19:00:00")],
     "both bounds fall inside 2017-11-16: neither is decided, both stay")
A15 = cmp("gt", "ts", "2017-11-15T12:00:00")
case(DAY, part(17486), AND(A15, B18), B18,
     [row(True, ts="2017-11-16T00:00:00"), row(False, ts="2017-11-16T19:00:00")],
     "ts > 2017-11-15T12:00 holds for all of 2017-11-16 (true and x is x); ts < 18:00 stays")
case(DAY, part(-1), cmp("lt", "ts", "1970-01-01T00:00:00"), True,
     [row(True, ts="1969-12-31T00:00:00"), row(True, ts="1969-12-31T23:59:59.999999")],
     "day -1 is 1969-12-31 (days from 1970-01-01, rounding down): all of it is before 1970")
case(DAY, part(-1), cmp("gt-eq", "ts", "1969-12-31T00:00:00"), True,
     [row(True, ts="1969-12-31T00:00:00"), row(True, ts="1969-12-31T12:00:00")], "every timestamp of 1969-12-31 is >= its midnight")
case(DAY, part(-1), cmp("lt", "ts", "1969-12-31T12:00:00"), cmp("lt", "ts", "1969-12-31T12:00:00"),
     [row(True, ts="1969-12-31T11:59:59"), row(False, ts="1969-12-31T12:00:00")], "1969-12-31 has timestamps on both sides of noon")
case(DAY, part(-1), cmp("gt", "ts", "1969-12-31T23:59:59.999999"), False,
     [row(False, ts="1969-12-31T23:59:59.999999")], "the last microsecond of 1969-12-31 is its greatest timestamp")
case(DAY, part(-1), cmp("lt", "ts", "1969-12-31T00:00:00"), False, [row(False, ts="1969-12-31T00:00:00")],
     "no timestamp of 1969-12-31 is before its midnight")
HR = spec(("ts", "hour"))
case(HR, part(-1), cmp("gt-eq", "ts", "1969-12-31T23:00:00"), True,
     [row(True, ts="1969-12-31T23:00:00"), row(True, ts="1969-12-31T23:59:59.999999")],
     "hour -1 is 1969-12-31T23:00 to 23:59:59.999999, all >= 23:00")
case(HR, part(-1), cmp("lt", "ts", "1969-12-31T23:30:00"), cmp("lt", "ts", "1969-12-31T23:30:00"),
     [row(True, ts="1969-12-31T23:29:59"), row(False, ts="1969-12-31T23:30:00")], "hour -1 has timestamps on both sides of 23:30")
case(HR, part(-1), cmp("lt", "ts", "1969-12-31T23:00:00"), False, [row(False, ts="1969-12-31T23:00:00")],
     "no timestamp of hour -1 is before 23:00")
case(HR, part(419674), AND(cmp("gt-eq", "ts", "2017-11-16T10:00:00"), cmp("lt", "ts", "2017-11-16T11:00:00")), True,
     [row(True, ts="2017-11-16T10:00:00"), row(True, ts="2017-11-16T10:59:59.999999")],
     "hour 419674 = 17486 * 24 + 10 is 2017-11-16T10: both bounds hold for all of it")
YT = spec(("ts", "year"))
case(YT, part(-1), cmp("lt", "ts", "1970-01-01T00:00:00"), True,
     [row(True, ts="1969-01-01T00:00:00"), row(True, ts="1969-12-31T23:59:59.999999")], "year -1 is 1969: all of it is before 1970")

# ---- void: the partition value is null whatever the source value is ------------------------
VD = spec(("n", "void"))
case(VD, part(None), test("is-null", "n"), test("is-null", "n"), [row(True), row(False, n=3)],
     "void maps every value to null: a null void partition value says nothing of n, so n is-null stays")
case(VD, part(None), cmp("eq", "n", 3), cmp("eq", "n", 3), [row(True, n=3), row(False, n=4), row(False)],
     "void decides nothing: n = 3 stays")
VI = spec(("n", "void"), ("i", "identity"))
case(VI, part(None, 5), AND(cmp("eq", "n", 3), cmp("eq", "i", 5)), cmp("eq", "n", 3),
     [row(True, n=3, i=5), row(False, n=4, i=5)], "identity(i) = 5 decides i = 5 true; void(n) decides nothing")

# ---- several partition fields ----------------------------------------------------------------
IDD = spec(("i", "identity"), ("ts", "day"))
case(IDD, part(5, 17486), AND(cmp("eq", "i", 5), cmp("gt-eq", "ts", "2017-11-16T00:00:00")), True,
     [row(True, i=5, ts="2017-11-16T08:00:00")], "i = 5 true by the identity field, ts >= midnight true by the day field")
case(IDD, part(5, 17486), AND(cmp("eq", "i", 5), A12), A12,
     [row(True, i=5, ts="2017-11-16T13:00:00"), row(False, i=5, ts="2017-11-16T08:00:00")],
     "i = 5 true; ts > noon undecided by day 17486: it stays")
case(IDD, part(6, 17486), OR(cmp("eq", "i", 5), A12), A12,
     [row(True, i=6, ts="2017-11-16T13:00:00"), row(False, i=6, ts="2017-11-16T08:00:00")],
     "i = 5 false for i=6: false or x is x")
case(IDD, part(None, 17486), AND(test("is-null", "i"), cmp("lt", "ts", "2017-11-17T00:00:00")), True,
     [row(True, ts="2017-11-16T08:00:00")], "the identity field is null (i is null on every row); all of day 17486 is before 2017-11-17")
MDT = spec(("ts", "month"), ("ts", "day"))
case(MDT, part(574, 17486), cmp("lt", "ts", "2017-11-17T00:00:00"), True,
     [row(True, ts="2017-11-16T00:00:00"), row(True, ts="2017-11-16T23:00:00")],
     "two fields on ts: month 574 (2017-11) does not decide it, day 17486 (2017-11-16) does: true")
case(MDT, part(574, 17486), cmp("gt-eq", "ts", "2017-12-01T00:00:00"), False, [row(False, ts="2017-11-16T00:00:00")],
     "month 574 (2017-11) decides it: no timestamp of November 2017 is in December")

ERRORS = [
    (ID, part(5), cmp("eq", "x", 5), "expressions.bind-unknown-field", "the schema has no column x",
     "a filter naming a column the schema lacks does not bind"),
]

HEADER = {
    "description": "Residuals: what remains of a row filter for the rows of one partition",
    "operation": "residual",
    "spec": [
        {"section": "Scan Planning", "source": "current",
         "quote": "For each manifest, scan predicates, which filter data rows, are converted to partition predicates, which filter partition tuples."},
        {"section": "Scan Planning, note 1", "source": "current",
         "quote": "These projections are used to calculate the residual predicates for each file in a scan."},
        {"section": "Scan Planning", "source": "current",
         "quote": "Data files that match the query filter must be read by the scan."},
    ],
    "format_versions": [1, 2, 3],
    "notes": ("input: {schema, spec (partition fields ids 1000, 1001, ...), expression (the row filter), partition (the partition tuple "
              "keyed by partition field id, JSON single values; an absent key is null; a day value is the table spec's int), "
              "case_sensitive (absent: true), rows (rows of that partition keyed by field id, each with whether the filter matches "
              "it)}; expected: the tightest residual, in the current JSON form with the filter's own names: a predicate on a column "
              "a partition field's transform projects is true where the strict projection accepts the partition value, false where "
              "the inclusive projection rejects it, and stays otherwise; and/or/not simplified. Void decides nothing. "
              "Levels: soundness is must: the target's residual, read and bound by the kit, must agree with the filter on every row "
              "(a residual that rejects a matching row loses it: 'Data files that match the query filter must be read by the scan'); "
              "so an equivalent residual written differently passes. The tightest form is should (suites/test_residuals.py "
              "test_residual_tight): true/false where the partition decides the whole filter, otherwise no constant below the root "
              "and no more predicates than the expected residual; keeping a predicate the partition decides is ADVISORY. Comparisons "
              "are the null-safe ones of the expressions spec (null < 5 is false, null != 5 true; NaN is neither less nor greater "
              "than any value)."),
}


def _agreement(doc, java):
    """Name in each case the implementations whose residual passes both judgements."""
    from iceberg_conformance.suites.targets.pyiceberg import PyIcebergTarget
    from iceberg_conformance.suites.harness.residuals import sound, tight
    targets = {"pyiceberg 0.12.0": PyIcebergTarget()}
    if java:
        from iceberg_conformance.suites.targets.java import JavaTarget
        targets["java 1.10.2"] = JavaTarget()
    from iceberg_conformance.suites.api import Rejected
    for t in doc["tests"]:
        i, agreed = t["input"], []
        for name, target in targets.items():
            try:
                out = target.residual(i["schema"], i["spec"], i["expression"], i["partition"], i.get("case_sensitive", True))
            except Rejected:
                if "error" in t:
                    agreed.append(name)
                continue
            except BaseException:   # UNSUPPORTED or a crash: no agreement
                continue
            if "error" not in t and not sound(i, out) and tight(i, t["expected"], out):
                agreed.append(name)
        t["derived"]["agreed"] = agreed


def main():
    tests = []
    for sp, partition, expr, expected, rows, why, cs in TESTS:
        fields = ", ".join(f"{f['transform']}({f['name'].split('_')[0]})" for f in sp["fields"])
        shown = ", ".join("null" if str(1000 + k) not in partition else json.dumps(partition[str(1000 + k)])
                          for k in range(len(sp["fields"])))
        inp = {"schema": SCHEMA, "spec": sp, "expression": expr, "partition": partition}
        if cs is not None:
            inp["case_sensitive"] = cs
        inp["rows"] = rows
        tests.append({"description": f"{fields} p=({shown}): {show(expr)} -> {show(expected) if expected != expr else 'stays'}", "input": inp,
                      "expected": expected, "derived": {"from": why, "agreed": []}})
    for sp, partition, expr, rule, reason, why in ERRORS:
        tests.append({"description": f"{show(expr)} with no column x is refused",
                      "input": {"schema": SCHEMA, "spec": sp, "expression": expr, "partition": partition, "rows": []},
                      "error": {"rule": rule, "reason": reason, "pointer": "/left"}, "derived": {"from": why, "agreed": []}})
    doc = dict(HEADER)
    doc["tests"] = tests
    out = VECTORS / "expressions" / "residual.json"
    old = {}
    if out.exists():
        old = {t["description"]: t["derived"].get("agreed", []) for t in json.loads(out.read_text())["tests"]}
    for t in tests:
        t["derived"]["agreed"] = old.get(t["description"], [])
    if "--agree" in sys.argv:
        _agreement(doc, "--java" in sys.argv)
    out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"{out}: {len(tests)} cases")


if __name__ == "__main__":
    main()
