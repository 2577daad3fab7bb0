"""Generate ``metrics.json`` of this directory (operation ``metrics-evaluate``).

Run: ``python -m tools.vectors.metrics [--agree [--java]]``. Expected values are
written by hand below from "Scan Planning" and the ``data_file`` fields of "Manifests", each with
its derivation (``derived.from``); this kit's ``reference/`` is not used (the suites check it
against the file). ``derived.agreed`` is kept from the existing file; with ``--agree`` it is
recomputed: PyIceberg (and with ``--java`` Iceberg Java, through the kit's ``java`` target,
which starts a local Spark JVM) is asked every case, and named where it gives the expected
value. Levels: an inclusive true and a strict false are ``must``, the pruning answers ``should``.

The helpers here (schema, hex encoders, expression builders, :func:`write`) are shared by
``generate_manifest_pruning.py`` and ``../scan/generate.py``.
"""
import json, struct, sys
from pathlib import Path

from tools.vectors import VECTORS

def fld(i, n, t, req=False): return {"id": i, "name": n, "required": req, "type": t}
SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    fld(1, "id", "long", True), fld(2, "i", "int"), fld(3, "s", "string"), fld(4, "f", "float"),
    fld(5, "d", "double"), fld(6, "dt", "date"), fld(7, "ts", "timestamp"), fld(8, "dec", "decimal(9, 2)"),
    fld(9, "l", "long"), fld(10, "dd", "double"), fld(11, "tsp", "timestamp"), fld(12, "r", "int", True)]}
FID = {f["name"]: f["id"] for f in SCHEMA["fields"]}

def i4(v): return struct.pack("<i", v).hex()
def i8(v): return struct.pack("<q", v).hex()
def f4(v): return struct.pack("<f", v).hex()
def f8(v): return struct.pack("<d", v).hex()
def st(v): return v.encode("utf-8").hex()
def dec(unscaled): return unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True).hex()

def F(col, rc=10, vc="rc", nulls=0, nans=None, lo=None, hi=None):
    fid = str(FID[col]); f = {"record_count": rc}
    if vc == "rc": vc = rc
    if vc is not None: f["value_counts"] = {fid: vc}
    if nulls is not None: f["null_value_counts"] = {fid: nulls}
    if nans is not None: f["nan_value_counts"] = {fid: nans}
    if lo is not None: f["lower_bounds"] = {fid: lo}
    if hi is not None: f["upper_bounds"] = {fid: hi}
    return f

def ref(c): return {"type": "reference", "name": c}
def cmp(op, c, v): return {"type": op, "left": ref(c), "right": v}
def test(op, c): return {"type": op, "child": ref(c)}
def setp(op, c, vs): return {"type": op, "child": ref(c), "values": vs}

TESTS = []
def case(group, desc, file, expr, mode, expected, why):
    TESTS.append((group, desc, file, expr, mode, expected, why))

def both(group, what, file, expr, inc, strict, why_inc, why_strict):
    case(group, what, file, expr, "inclusive", inc, why_inc)
    case(group, what, file, expr, "strict", strict, why_strict)

# ---- ints: i in [30, 79], no nulls --------------------------------------------------------
G = "int bounds [30, 79], no nulls"
A = F("i", lo=i4(30), hi=i4(79))
both(G, "i < 30", A, cmp("lt", "i", 30), False, False, "every value >= 30", "no value < 30")
both(G, "i < 31", A, cmp("lt", "i", 31), True, False, "30 may be present", "79 may be present")
both(G, "i < 80", A, cmp("lt", "i", 80), True, True, "every value <= 79", "every value <= 79 < 80, no nulls")
both(G, "i < 79", A, cmp("lt", "i", 79), True, False, "30 < 79", "the upper bound 79 may be a value")
both(G, "i <= 29", A, cmp("lt-eq", "i", 29), False, False, "every value >= 30", "no value <= 29")
both(G, "i <= 30", A, cmp("lt-eq", "i", 30), True, False, "30 may be present", "values up to 79")
both(G, "i <= 79", A, cmp("lt-eq", "i", 79), True, True, "values <= 79", "every value <= 79")
both(G, "i > 79", A, cmp("gt", "i", 79), False, False, "every value <= 79", "no value > 79")
both(G, "i > 78", A, cmp("gt", "i", 78), True, False, "79 may be present", "30 may be present")
both(G, "i > 29", A, cmp("gt", "i", 29), True, True, "values > 29", "every value >= 30 > 29")
both(G, "i >= 80", A, cmp("gt-eq", "i", 80), False, False, "every value <= 79", "no value >= 80")
both(G, "i >= 79", A, cmp("gt-eq", "i", 79), True, False, "79 may be present", "30 may be present")
both(G, "i >= 30", A, cmp("gt-eq", "i", 30), True, True, "values >= 30", "every value >= 30")
both(G, "i = 29", A, cmp("eq", "i", 29), False, False, "29 < lower bound 30", "29 is below the bounds")
both(G, "i = 30", A, cmp("eq", "i", 30), True, False, "30 is the lower bound, may be present", "other values may be present")
both(G, "i = 79", A, cmp("eq", "i", 79), True, False, "79 is the upper bound, may be present", "other values may be present")
both(G, "i = 80", A, cmp("eq", "i", 80), False, False, "80 > upper bound 79", "80 is above the bounds")
both(G, "i = 50", A, cmp("eq", "i", 50), True, False, "30 <= 50 <= 79", "other values may be present")
both(G, "i != 50", A, cmp("not-eq", "i", 50), True, False, "31 may be present", "50 may be present")
both(G, "i != 29", A, cmp("not-eq", "i", 29), True, True, "every value differs from 29", "no value can be 29, no nulls")
both(G, "i in (1, 2, 29)", A, setp("in", "i", [1, 2, 29]), False, False, "all below 30", "none in the bounds")
both(G, "i in (29, 30)", A, setp("in", "i", [29, 30]), True, False, "30 may be present", "31 may be present")
both(G, "i in (80, 81)", A, setp("in", "i", [80, 81]), False, False, "both above 79", "none in the bounds")
both(G, "i not in (29, 80)", A, setp("not-in", "i", [29, 80]), True, True, "any value is outside the set", "neither 29 nor 80 can be present")
both(G, "i not in (30)", A, setp("not-in", "i", [30]), True, False, "31 may be present", "30 may be present")
both(G, "i is null", A, test("is-null", "i"), False, False, "null count 0", "null count 0")
both(G, "i not null", A, test("not-null", "i"), True, True, "10 non-null values", "null count 0")

G = "int column holding one value"
B = F("i", lo=i4(42), hi=i4(42))
both(G, "i = 42 (bounds 42..42)", B, cmp("eq", "i", 42), True, True, "42 is every value", "lower = upper = 42, no nulls")
both(G, "i in (41, 42) (bounds 42..42)", B, setp("in", "i", [41, 42]), True, True, "42 is in the set", "every value is 42")
both(G, "i != 42 (bounds 42..42)", B, cmp("not-eq", "i", 42), False, False, "every value is 42", "every value is 42")
both(G, "i not in (42) (bounds 42..42)", B, setp("not-in", "i", [42]), False, False, "every value is 42", "every value is 42")
both(G, "i < 42 (bounds 42..42)", B, cmp("lt", "i", 42), False, False, "every value is 42", "every value is 42")
C = F("i", lo=i4(5), hi=i4(6))
both(G, "i in (5, 6) (bounds 5..6)", C, setp("in", "i", [5, 6]), True, True, "5 may be present", "an int in [5, 6] is 5 or 6")
both(G, "i not in (5, 6) (bounds 5..6)", C, setp("not-in", "i", [5, 6]), False, False, "an int in [5, 6] is 5 or 6", "every value is 5 or 6")

G = "int column with nulls"
N = F("i", nulls=3, lo=i4(30), hi=i4(79))
both(G, "i < 50 (3 nulls)", N, cmp("lt", "i", 50), True, False, "30 may be present", "null < 50 is false")
both(G, "i < 80 (3 nulls)", N, cmp("lt", "i", 80), True, False, "values < 80", "null < 80 is false")
both(G, "i != 29 (3 nulls)", N, cmp("not-eq", "i", 29), True, True, "values differ from 29", "null != 29 is true (null-safe), no value is 29")
both(G, "i not in (29) (3 nulls)", N, setp("not-in", "i", [29]), True, True, "values outside the set", "null not in (29) is true, no value is 29")
both(G, "i is null (3 nulls)", N, test("is-null", "i"), True, False, "null count 3", "7 values are not null")
both(G, "i not null (3 nulls)", N, test("not-null", "i"), True, False, "7 values", "null count 3")
both(G, "i = 80 (3 nulls)", N, cmp("eq", "i", 80), False, False, "80 above the bounds; null = 80 is false", "80 above the bounds")

G = "all-null int column"
AN = F("i", nulls=10)
both(G, "i = 5 (all null)", AN, cmp("eq", "i", 5), False, False, "null = 5 is false for every row", "null = 5 is false")
both(G, "i < 5 (all null)", AN, cmp("lt", "i", 5), False, False, "null < 5 is false", "null < 5 is false")
both(G, "i is null (all null)", AN, test("is-null", "i"), True, True, "every value is null", "null count = value count")
both(G, "i not null (all null)", AN, test("not-null", "i"), False, False, "every value is null", "every value is null")
both(G, "i != 5 (all null)", AN, cmp("not-eq", "i", 5), True, True, "null != 5 is true (null-safe)", "null != 5 is true for every row")
both(G, "i not in (1, 2) (all null)", AN, setp("not-in", "i", [1, 2]), True, True, "null not in (1, 2) is true", "true for every row")
both(G, "i in (1, 2) (all null)", AN, setp("in", "i", [1, 2]), False, False, "null in (1, 2) is false", "false for every row")

G = "missing counts and bounds"
NC = F("i", nulls=None, lo=i4(30), hi=i4(79))
both(G, "i is null (no null count)", NC, test("is-null", "i"), True, False, "nulls may be present", "values may be present")
both(G, "i not null (no null count)", NC, test("not-null", "i"), True, False, "values may be present", "nulls may be present")
both(G, "i < 80 (no null count)", NC, cmp("lt", "i", 80), True, False, "values < 80", "a null may be present; null < 80 is false")
both(G, "i = 80 (no null count)", NC, cmp("eq", "i", 80), False, False, "80 above the bounds, null = 80 false", "80 above the bounds")
NV = F("i", vc=None, lo=i4(30), hi=i4(79))
both(G, "i < 80 (no value count, null count 0)", NV, cmp("lt", "i", 80), True, True, "values < 80", "no nulls, every value <= 79")
NB = F("i")
both(G, "i = 5 (no bounds)", NB, cmp("eq", "i", 5), True, False, "unbounded values", "unbounded values")
both(G, "i < 5 (no bounds)", NB, cmp("lt", "i", 5), True, False, "unbounded values", "unbounded values")
both(G, "i not null (no bounds)", NB, test("not-null", "i"), True, True, "10 values", "null count 0")
NONE = {"record_count": 10}
both(G, "i = 5 (no metrics at all)", NONE, cmp("eq", "i", 5), True, False, "anything may be present", "anything may be present")
both(G, "i is null (no metrics at all)", NONE, test("is-null", "i"), True, False, "nulls may be present", "values may be present")
LO = F("i", lo=i4(30))
both(G, "i < 30 (lower bound only)", LO, cmp("lt", "i", 30), False, False, "every value >= 30", "no value < 30")
both(G, "i > 1000 (lower bound only)", LO, cmp("gt", "i", 1000), True, False, "no upper bound", "30 may be present")
both(G, "i > 29 (lower bound only)", LO, cmp("gt", "i", 29), True, True, "values > 29", "every value >= 30, no nulls")
HI = F("i", hi=i4(79))
both(G, "i > 79 (upper bound only)", HI, cmp("gt", "i", 79), False, False, "every value <= 79", "no value > 79")
both(G, "i < 80 (upper bound only)", HI, cmp("lt", "i", 80), True, True, "values < 80", "every value <= 79, no nulls")
both(G, "i < 0 (upper bound only)", HI, cmp("lt", "i", 0), True, False, "no lower bound", "79 may be present")
R = {"record_count": 10, "lower_bounds": {"12": i4(1)}, "upper_bounds": {"12": i4(5)}}
both(G, "required r is null (no counts)", R, test("is-null", "r"), False, False, "a required column holds no nulls", "no nulls")
both(G, "required r < 6 (no counts)", R, cmp("lt", "r", 6), True, True, "values < 6", "required: no nulls; every value <= 5")
E = F("i", rc=0, vc=0, nulls=0)
both(G, "i = 5 (empty file)", E, cmp("eq", "i", 5), False, True, "no records", "no records: every record matches")

# ---- floats ---------------------------------------------------------------------------
G = "float bounds without NaN"
FL = F("f", nans=0, lo=f4(1.5), hi=f4(2.5))
both(G, "f < 1.5", FL, cmp("lt", "f", 1.5), False, False, "every value >= 1.5", "none < 1.5")
both(G, "f < 1.6", FL, cmp("lt", "f", 1.6), True, False, "1.5 may be present", "2.5 may be present")
both(G, "f > 2.5", FL, cmp("gt", "f", 2.5), False, False, "every value <= 2.5", "none > 2.5")
both(G, "f = 2.0", FL, cmp("eq", "f", 2.0), True, False, "1.5 <= 2 <= 2.5", "other values")
both(G, "f < 3.0", FL, cmp("lt", "f", 3.0), True, True, "values < 3", "no NaN, no null, every value <= 2.5")
both(G, "f is nan (nan count 0)", FL, test("is-nan", "f"), False, False, "NaN count 0", "NaN count 0")
both(G, "f not nan (nan count 0)", FL, test("not-nan", "f"), True, True, "10 values", "NaN count 0")
G = "float with NaN values"
FN = F("f", nans=2, lo=f4(1.5), hi=f4(2.5))
both(G, "f is nan (2 NaN)", FN, test("is-nan", "f"), True, False, "NaN count 2", "8 other values")
both(G, "f not nan (2 NaN)", FN, test("not-nan", "f"), True, False, "8 values", "2 NaN")
both(G, "f < 3.0 (2 NaN)", FN, cmp("lt", "f", 3.0), True, False, "values < 3", "NaN < 3 is false")
both(G, "f > 2.5 (2 NaN)", FN, cmp("gt", "f", 2.5), False, False, "bounds <= 2.5; NaN > 2.5 is false", "none > 2.5")
both(G, "f != 2.0 (2 NaN)", FN, cmp("not-eq", "f", 2.0), True, False, "NaN != 2 is true", "2.0 may be present")
both(G, "f != 3.0 (2 NaN)", FN, cmp("not-eq", "f", 3.0), True, True, "values differ from 3", "NaN != 3 true, values <= 2.5")
both(G, "f = 3.0 (2 NaN)", FN, cmp("eq", "f", 3.0), False, False, "3 above the bounds, NaN = 3 false", "3 above the bounds")
FU = F("f", nans=None, lo=f4(1.5), hi=f4(2.5))
both(G, "f is nan (no NaN count)", FU, test("is-nan", "f"), True, False, "NaN may be present", "values present")
both(G, "f not nan (no NaN count)", FU, test("not-nan", "f"), True, False, "values may be present", "NaN may be present")
both(G, "f < 3.0 (no NaN count)", FU, cmp("lt", "f", 3.0), True, False, "values < 3", "a NaN may be present; NaN < 3 false")
both(G, "f > 2.5 (no NaN count)", FU, cmp("gt", "f", 2.5), False, False, "bounds <= 2.5; NaN > 2.5 false", "none > 2.5")
G = "all-NaN float column, bounds absent"
FA = F("f", nans=10)
both(G, "f is nan (all NaN)", FA, test("is-nan", "f"), True, True, "every value is NaN", "NaN count = value count")
both(G, "f not nan (all NaN)", FA, test("not-nan", "f"), False, False, "every value is NaN", "every value is NaN")
both(G, "f = 1.0 (all NaN)", FA, cmp("eq", "f", 1.0), False, False, "NaN = 1 is false", "NaN = 1 is false")
both(G, "f < 1.0 (all NaN)", FA, cmp("lt", "f", 1.0), False, False, "NaN < 1 is false", "NaN < 1 is false")
both(G, "f != 1.0 (all NaN)", FA, cmp("not-eq", "f", 1.0), True, True, "NaN != 1 is true", "true for every row")
G = "float bounds absent because of NaN"
FB = F("f", nans=4)
both(G, "f = 1.0 (4 NaN, no bounds)", FB, cmp("eq", "f", 1.0), True, False, "6 values of unknown range", "NaN present")
both(G, "f < 1.0 (4 NaN, no bounds)", FB, cmp("lt", "f", 1.0), True, False, "6 values of unknown range", "NaN < 1 false")
both(G, "f not nan (4 NaN, no bounds)", FB, test("not-nan", "f"), True, False, "6 values", "4 NaN")
G = "double bounds"
D = F("d", nans=0, lo=f8(-1.0), hi=f8(1.0))
both(G, "d >= 1.0", D, cmp("gt-eq", "d", 1.0), True, False, "1.0 may be present", "-1.0 may be present")
both(G, "d > 1.0", D, cmp("gt", "d", 1.0), False, False, "every value <= 1", "none > 1")
both(G, "d <= -1.0", D, cmp("lt-eq", "d", -1.0), True, False, "-1.0 may be present", "1.0 may be present")
both(G, "d < -1.0", D, cmp("lt", "d", -1.0), False, False, "every value >= -1", "none < -1")
both(G, "d >= -1.0", D, cmp("gt-eq", "d", -1.0), True, True, "values >= -1", "every value >= -1, no NaN, no null")
both(G, "d in (-2.0, 2.0)", D, setp("in", "d", [-2.0, 2.0]), False, False, "both outside [-1, 1]", "both outside")
both(G, "d not in (0.5)", D, setp("not-in", "d", [0.5]), True, False, "other values", "0.5 may be present")
both(G, "d not in (2.0)", D, setp("not-in", "d", [2.0]), True, True, "values differ from 2", "2.0 is outside the bounds")
DI = F("d", nans=0, lo=f8(float("-inf")), hi=f8(float("inf")))
both(G, "d = 1e300 (bounds -inf..inf)", DI, cmp("eq", "d", 1e300), True, False, "within the bounds", "other values")
both(G, "d < 1e300 (bounds -inf..inf)", DI, cmp("lt", "d", 1e300), True, False, "-inf < 1e300", "inf may be present")

# ---- strings --------------------------------------------------------------------------
G = "string bounds apple..banana"
S = F("s", lo=st("apple"), hi=st("banana"))
both(G, "s = 'apple'", S, cmp("eq", "s", "apple"), True, False, "the lower bound may be a value", "other values")
both(G, "s = 'aardvark'", S, cmp("eq", "s", "aardvark"), False, False, "'aardvark' < 'apple'", "below the bounds")
both(G, "s = 'cherry'", S, cmp("eq", "s", "cherry"), False, False, "'cherry' > 'banana'", "above the bounds")
both(G, "s = 'b'", S, cmp("eq", "s", "b"), True, False, "'apple' <= 'b' <= 'banana'", "other values")
both(G, "s < 'apple'", S, cmp("lt", "s", "apple"), False, False, "every value >= 'apple'", "none < 'apple'")
both(G, "s < 'apples'", S, cmp("lt", "s", "apples"), True, False, "'apple' < 'apples'", "'banana' may be present")
both(G, "s > 'banana'", S, cmp("gt", "s", "banana"), False, False, "every value <= 'banana'", "none > 'banana'")
both(G, "s starts with 'a'", S, cmp("starts-with", "s", "a"), True, False, "'apple' starts with 'a'", "'banana' may be present")
both(G, "s starts with 'b'", S, cmp("starts-with", "s", "b"), True, False, "'b' is in the bounds", "'apple' may be present")
both(G, "s starts with 'c'", S, cmp("starts-with", "s", "c"), False, False, "every 'c...' > 'banana'", "none")
both(G, "s starts with 'aa'", S, cmp("starts-with", "s", "aa"), False, False, "every 'aa...' < 'apple'", "none")
both(G, "s starts with 'ba'", S, cmp("starts-with", "s", "ba"), True, False, "'ba' <= 'banana'", "'apple' may be present")
both(G, "s starts with 'bb'", S, cmp("starts-with", "s", "bb"), False, False, "every 'bb...' > 'banana'", "none")
both(G, "s not starts with 'c'", S, cmp("not-starts-with", "s", "c"), True, True, "no value starts with 'c'", "no value can start with 'c', no nulls")
both(G, "s not starts with 'a'", S, cmp("not-starts-with", "s", "a"), True, False, "'banana' may be present", "'apple' may be present")
both(G, "s in ('aardvark', 'cherry')", S, setp("in", "s", ["aardvark", "cherry"]), False, False, "both outside the bounds", "both outside")
both(G, "s in ('b', 'zz')", S, setp("in", "s", ["b", "zz"]), True, False, "'b' is inside", "other values")
both(G, "s not in ('apple')", S, setp("not-in", "s", ["apple"]), True, False, "'banana' may be present", "'apple' may be present")
both(G, "s not in ('cherry')", S, setp("not-in", "s", ["cherry"]), True, True, "values differ", "'cherry' outside the bounds, no nulls")
G = "truncated string upper bound"
T = F("s", lo=st("abc"), hi=st("abd"))
both(G, "s starts with 'abc' (upper 'abd' truncated)", T, cmp("starts-with", "s", "abc"), True, False, "'abc' may be present", "'abd' may be present")
both(G, "s starts with 'ab' (upper 'abd' truncated)", T, cmp("starts-with", "s", "ab"), True, True, "values", "every string in ['abc', 'abd'] starts with 'ab'")
both(G, "s < 'abd' (upper 'abd' truncated)", T, cmp("lt", "s", "abd"), True, False, "'abc' < 'abd'", "an upper bound may be a value")
both(G, "s = 'abd' (upper 'abd' truncated)", T, cmp("eq", "s", "abd"), True, False, "an upper bound may be a value", "'abc' may be present")
both(G, "s <= 'abd' (upper 'abd' truncated)", T, cmp("lt-eq", "s", "abd"), True, True, "values", "every value <= the upper bound")
both(G, "s > 'abd' (upper 'abd' truncated)", T, cmp("gt", "s", "abd"), False, False, "every value <= 'abd'", "none")
both(G, "s starts with 'abe' (upper 'abd' truncated)", T, cmp("starts-with", "s", "abe"), False, False, "every 'abe...' > 'abd'", "none")
both(G, "s not starts with 'ab' (upper 'abd' truncated)", T, cmp("not-starts-with", "s", "ab"), False, False, "every value starts with 'ab'", "none")
both(G, "s not starts with 'abc' (upper 'abd' truncated)", T, cmp("not-starts-with", "s", "abc"), True, False, "'abd' may be present", "'abc' may be present")
P = F("s", lo=st("a"), hi=st("b"))
both(G, "s starts with 'b' (bounds 'a'..'b')", P, cmp("starts-with", "s", "b"), True, False, "'b' itself", "'a' may be present")
both(G, "s starts with 'bb' (bounds 'a'..'b')", P, cmp("starts-with", "s", "bb"), False, False, "every 'bb...' > 'b'", "none")
both(G, "s starts with 'az' (bounds 'a'..'b')", P, cmp("starts-with", "s", "az"), True, False, "'az' < 'b'", "'a' may be present")
both(G, "s = 'az' (bounds 'a'..'b')", P, cmp("eq", "s", "az"), True, False, "'a' < 'az' < 'b'", "other values")
G = "strings ordered by UTF-8 bytes"
U = F("s", lo=st("\uf900"), hi=st("\U0001f600"))
both(G, "s = U+FFFD (bounds U+F900..U+1F600)", U, cmp("eq", "s", "\ufffd"), True, False, "UTF-8 ef a4 80 <= ef bf bd <= f0 9f 98 80", "other values")
both(G, "s = U+1F601 (bounds U+F900..U+1F600)", U, cmp("eq", "s", "\U0001f601"), False, False, "f0 9f 98 81 > f0 9f 98 80", "above the bounds")
both(G, "s < U+FFFD (bounds U+F900..U+1F600)", U, cmp("lt", "s", "\ufffd"), True, False, "U+F900 < U+FFFD", "U+1F600 may be present")
U2 = F("s", lo=st("a"), hi=st("\u00e9"))
both(G, "s starts with 'z' (bounds 'a'..U+00E9)", U2, cmp("starts-with", "s", "z"), True, False, "7a < c3 a9", "'a' may be present")
both(G, "s = U+00FF (bounds 'a'..U+00E9)", U2, cmp("eq", "s", "\u00ff"), False, False, "c3 bf > c3 a9", "above the bounds")
G = "strings with nulls"
SN = F("s", nulls=2, lo=st("apple"), hi=st("banana"))
both(G, "s not starts with 'c' (2 nulls)", SN, cmp("not-starts-with", "s", "c"), True, True, "values", "null does not start with 'c' (null-safe), no value does")
both(G, "s starts with 'a' (2 nulls)", SN, cmp("starts-with", "s", "a"), True, False, "'apple'", "a null does not start with 'a'")
SA = F("s", nulls=10)
both(G, "s starts with 'a' (all null)", SA, cmp("starts-with", "s", "a"), False, False, "no value starts with 'a'", "none")
both(G, "s not starts with 'a' (all null)", SA, cmp("not-starts-with", "s", "a"), True, True, "null does not start with 'a'", "true for every row")

# ---- dates, timestamps, decimals --------------------------------------------------------
G = "dates and timestamps around 1970"
DT = F("dt", lo=i4(-2), hi=i4(1))
both(G, "dt < 1969-12-30 (bounds 1969-12-30..1970-01-02)", DT, cmp("lt", "dt", "1969-12-30"), False, False, "lower bound -2 is 1969-12-30", "none")
both(G, "dt = 1969-12-31 (bounds 1969-12-30..1970-01-02)", DT, cmp("eq", "dt", "1969-12-31"), True, False, "-1 in [-2, 1]", "other values")
both(G, "dt > 1970-01-02 (bounds 1969-12-30..1970-01-02)", DT, cmp("gt", "dt", "1970-01-02"), False, False, "upper bound 1 is 1970-01-02", "none")
both(G, "dt >= 1969-12-30 (bounds 1969-12-30..1970-01-02)", DT, cmp("gt-eq", "dt", "1969-12-30"), True, True, "values", "every value >= -2, no nulls")
TS = F("ts", lo=i8(-1), hi=i8(1))
both(G, "ts = 1970-01-01T00:00 (bounds -1us..1us)", TS, cmp("eq", "ts", "1970-01-01T00:00:00"), True, False, "0 in [-1, 1]", "other values")
both(G, "ts < 1969-12-31T23:59:59.999999 (bounds -1us..1us)", TS, cmp("lt", "ts", "1969-12-31T23:59:59.999999"), False, False, "lower bound -1", "none")
both(G, "ts in the three microseconds -1, 0, 1", TS, setp("in", "ts", ["1969-12-31T23:59:59.999999", "1970-01-01T00:00:00", "1970-01-01T00:00:00.000001"]), True, True, "values", "a timestamp in [-1, 1] us is one of them")
G = "decimal bounds"
DC = F("dec", lo=dec(100), hi=dec(250))
both(G, "dec = 2.50 (bounds 1.00..2.50)", DC, cmp("eq", "dec", "2.50"), True, False, "unscaled 250 is the upper bound", "other values")
both(G, "dec = 2.51 (bounds 1.00..2.50)", DC, cmp("eq", "dec", "2.51"), False, False, "251 > 250", "none")
both(G, "dec < 1.00 (bounds 1.00..2.50)", DC, cmp("lt", "dec", "1.00"), False, False, "every value >= 1.00", "none")
both(G, "dec > 0.99 (bounds 1.00..2.50)", DC, cmp("gt", "dec", "0.99"), True, True, "values", "every value >= 1.00, no nulls")

# ---- promoted types ---------------------------------------------------------------------
G = "long bounds written as int (4 bytes)"
L = F("l", lo=i4(-5), hi=i4(79))
both(G, "l = -5 (int bounds -5..79)", L, cmp("eq", "l", -5), True, False, "4-byte lower bound reads as int -5", "other values")
both(G, "l < -5 (int bounds -5..79)", L, cmp("lt", "l", -5), False, False, "every value >= -5", "none")
both(G, "l > 78 (int bounds -5..79)", L, cmp("gt", "l", 78), True, False, "79 may be present", "-5 may be present")
both(G, "l < 80 (int bounds -5..79)", L, cmp("lt", "l", 80), True, True, "values", "every value <= 79, no nulls")
both(G, "l = 4294967291 (int bounds -5..79)", L, cmp("eq", "l", 4294967291), False, False, "above 79 (the unsigned reading of fbffffff)", "none")
both(G, "l > -6 (int bounds -5..79)", L, cmp("gt", "l", -6), True, True, "values", "every value >= -5")
G = "double bounds written as float (4 bytes)"
DD = F("dd", nans=0, lo=f4(1.5), hi=f4(2.5))
both(G, "dd = 1.5 (float bounds 1.5..2.5)", DD, cmp("eq", "dd", 1.5), True, False, "4-byte lower bound reads as 1.5", "other values")
both(G, "dd < 1.5 (float bounds 1.5..2.5)", DD, cmp("lt", "dd", 1.5), False, False, "every value >= 1.5", "none")
both(G, "dd >= 2.5 (float bounds 1.5..2.5)", DD, cmp("gt-eq", "dd", 2.5), True, False, "2.5 may be present", "1.5 may be present")
both(G, "dd > 2.5 (float bounds 1.5..2.5)", DD, cmp("gt", "dd", 2.5), False, False, "every value <= 2.5", "none")
DP = F("dd", nans=0, lo=f4(0.1), hi=f4(0.1))
both(G, "dd = 0.1 (float bound 0.1 both ends)", DP, cmp("eq", "dd", 0.1), False, False, "the float 0.1 is 0.100000001490116..., above the double 0.1", "none")
both(G, "dd > 0.1 (float bound 0.1 both ends)", DP, cmp("gt", "dd", 0.1), True, True, "values", "every value is the float 0.1 > double 0.1")
G = "timestamp bounds written as date (4 bytes)"
TP = F("tsp", lo=i4(17486), hi=i4(17487))
both(G, "tsp = 2017-11-16T00:00 (date bounds 2017-11-16..17)", TP, cmp("eq", "tsp", "2017-11-16T00:00:00"), True, False, "day 17486 reads as 2017-11-16 midnight", "other values")
both(G, "tsp = 2017-11-17T00:00 (date bounds 2017-11-16..17)", TP, cmp("eq", "tsp", "2017-11-17T00:00:00"), True, False, "day 17487 is the upper bound", "other values")
both(G, "tsp = 2017-11-17T12:00 (date bounds 2017-11-16..17)", TP, cmp("eq", "tsp", "2017-11-17T12:00:00"), False, False, "noon is after the upper bound midnight", "none")
both(G, "tsp < 2017-11-16T00:00 (date bounds 2017-11-16..17)", TP, cmp("lt", "tsp", "2017-11-16T00:00:00"), False, False, "every value >= midnight of 2017-11-16", "none")
both(G, "tsp >= 2017-11-16T00:00 (date bounds 2017-11-16..17)", TP, cmp("gt-eq", "tsp", "2017-11-16T00:00:00"), True, True, "values", "every value >= the lower bound")
both(G, "tsp > 2017-11-16T23:00 (date bounds 2017-11-16..17)", TP, cmp("gt", "tsp", "2017-11-16T23:00:00"), True, False, "2017-11-17 midnight may be present", "the lower bound may be present")
TQ = F("tsp", lo=i4(-1), hi=i4(-1))
both(G, "tsp = 1969-12-31T00:00 (date bound -1 both ends)", TQ, cmp("eq", "tsp", "1969-12-31T00:00:00"), True, True, "day -1 reads as 1969-12-31 midnight", "every value is that midnight, no nulls")
both(G, "tsp < 1970-01-01T00:00 (date bound -1 both ends)", TQ, cmp("lt", "tsp", "1970-01-01T00:00:00"), True, True, "values", "every value is before 1970")

HEADER = {
    "description": "Data-file metrics: whether bounds and counts let a predicate match rows (inclusive) or prove it matches all (strict)",
    "operation": "metrics-evaluate",
    "spec": [
        {"section": "Scan Planning", "quote": "Scan predicates are also used to filter data and delete files using column bounds and counts that are stored by field id in manifests.", "source": "current"},
        {"section": "Manifests", "source": "current"},
    ],
    "format_versions": [1, 2, 3],
    "notes": ("input: {schema, file (record_count, value_counts, null_value_counts, nan_value_counts, lower_bounds, upper_bounds: maps keyed by field id, "
              "bounds as hex of the binary single-value form; an absent map or key is an absent metric), expression, mode}; expected: inclusive: whether rows "
              "might match (false: the file cannot hold a matching row); strict: whether every row must match. The metrics describe a set of possible "
              "contents: a value is null, NaN (float/double) or lies between the bounds (a bound may be a value, a truncated upper bound is not the maximum); "
              "an absent count excludes nothing; a required column has no nulls. Comparisons are the null-safe two-valued ones of the expressions spec. "
              "Levels: an inclusive true and a strict false are must ('Data files that match the query filter must be read by the scan': skipping a file "
              "that may hold a matching row loses rows; a strict true when a row may not match is wrong); an inclusive false and a strict true are "
              "should (pruning is optional). Bounds written before a type promotion are decoded by their length (Schema Evolution)."),
}

def write(out, doc, method, keys):
    """Write ``doc`` to ``out``, keeping or (``--agree``) recomputing ``derived.agreed``."""
    old = {}
    if Path(out).exists():
        old = {t["description"]: t["derived"].get("agreed", []) for t in json.loads(Path(out).read_text())["tests"]}
    for t in doc["tests"]:
        t["derived"]["agreed"] = old.get(t["description"], [])
    if "--agree" in sys.argv:
        record_agreement(doc, method, keys, "--java" in sys.argv)
    Path(out).parent.mkdir(exist_ok=True)
    Path(out).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"{out}: {len(doc['tests'])} cases")


def record_agreement(doc, method, keys, java):
    """Name in each case the implementations whose answer is the expected value."""
    from iceberg_conformance.suites.targets.pyiceberg import PyIcebergTarget
    targets = {"pyiceberg 0.12.0": PyIcebergTarget()}
    if java:
        from iceberg_conformance.suites.targets.java import JavaTarget
        targets["java 1.10.2"] = JavaTarget()
    for t in doc["tests"]:
        agreed = []
        for name, target in targets.items():
            try:
                result = getattr(target, method)(*[t["input"][k] for k in keys])
            except BaseException:   # a refusal, UNSUPPORTED or a crash: no agreement
                continue
            if result == t["expected"]:
                agreed.append(name)
        t["derived"]["agreed"] = agreed


# strict answers the spec leaves open: what an absent count means
UNSETTLED = {"strict: f < 3.0 (no NaN count) might not match", "strict: i < 80 (no null count) might not match"}
UNSETTLED_NOTE = ("level should: the spec defines no strict evaluation of metrics and does not say what an absent count means; "
                  "taking it as zero (Iceberg Java for NaN counts, PyIceberg for both) can prove a file all-matching that holds a "
                  "null or NaN row, so the kit expects 'might not match' and reports the other answer as ADVISORY")


def main():
    tests = []
    for group, desc, file, expr, mode, expected, why in TESTS:
        safe = (mode == "inclusive") == expected
        t = {"description": f"{mode}: {desc} {'might match' if mode == 'inclusive' and expected else 'cannot match' if mode == 'inclusive' else 'must match' if expected else 'might not match'}",
             "input": {"schema": SCHEMA, "file": file, "expression": expr, "mode": mode},
             "expected": expected,
             "derived": {"from": f"{group}: {why}", "agreed": []}}
        if not safe:
            t["level"] = "should"
        if t["description"] in UNSETTLED:
            t["level"] = "should"
            t["derived"]["from"] += f" ({UNSETTLED_NOTE})"
        tests.append(t)
    doc = dict(HEADER); doc["tests"] = tests
    write(VECTORS / "expressions" / "metrics.json", doc, "metrics_evaluate", ["schema", "file", "expression", "mode"])


if __name__ == "__main__":
    main()
