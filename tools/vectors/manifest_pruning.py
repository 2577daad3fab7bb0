"""Generate ``manifest-pruning.json`` of this directory (operation ``manifest-evaluate``).

Run: ``python -m tools.vectors.manifest_pruning [--agree [--java]]``. Expected
values are written by hand below from "Scan Planning" and the field summaries of "Manifest
Lists", each with its derivation; bucket numbers come from the Appendix B hashes of
``vectors/hash`` (mod 16). ``derived.agreed`` as in :mod:`tools.vectors.metrics`.
"""
from tools.vectors.metrics import SCHEMA, i4, f4, st, cmp, test, setp, write

from tools.vectors import VECTORS

def spec(source, transform, name="p"):
    return {"spec-id": 0, "fields": [{"source-id": source, "field-id": 1000, "name": name, "transform": transform}]}
def S(null=False, nan="absent", lo=None, hi=None):
    s = {"contains_null": null}
    if nan != "absent": s["contains_nan"] = nan
    if lo is not None: s["lower_bound"] = lo
    if hi is not None: s["upper_bound"] = hi
    return [s]

TESTS = []
def case(group, desc, sp, summ, expr, expected, why):
    TESTS.append((group, desc, sp, summ, expr, expected, why))

I, STR, FL, B, T, DAY, YEAR = spec(2, "identity"), spec(3, "identity"), spec(4, "identity"), spec(1, "bucket[16]"), spec(2, "truncate[10]"), spec(7, "day"), spec(7, "year")
G = "identity(i), summary 30..79, no nulls"
A = S(lo=i4(30), hi=i4(79))
for d, e, x, why in [
    ("i < 30", cmp("lt", "i", 30), False, "every partition value >= 30"),
    ("i < 31", cmp("lt", "i", 31), True, "partition 30 may be present"),
    ("i = 29", cmp("eq", "i", 29), False, "below the lower bound"),
    ("i = 30", cmp("eq", "i", 30), True, "the lower bound may be a partition value"),
    ("i = 79", cmp("eq", "i", 79), True, "the upper bound may be a partition value"),
    ("i = 80", cmp("eq", "i", 80), False, "above the upper bound"),
    ("i > 79", cmp("gt", "i", 79), False, "every partition value <= 79"),
    ("i >= 79", cmp("gt-eq", "i", 79), True, "partition 79 may be present"),
    ("i in (1, 2)", setp("in", "i", [1, 2]), False, "both below 30"),
    ("i in (29, 30)", setp("in", "i", [29, 30]), True, "30 may be present"),
    ("i not in (30)", setp("not-in", "i", [30]), True, "31 may be present"),
    ("i != 50", cmp("not-eq", "i", 50), True, "30 may be present"),
    ("i is null", test("is-null", "i"), False, "contains_null is false"),
    ("i not null", test("not-null", "i"), True, "partition values between the bounds"),
]:
    case(G, d, I, A, e, x, why)
G = "identity(i), summary with nulls"
AN = S(null=True, lo=i4(30), hi=i4(79))
case(G, "i is null (contains_null)", I, AN, test("is-null", "i"), True, "contains_null: a null partition holds null values")
case(G, "i = 80 (contains_null)", I, AN, cmp("eq", "i", 80), False, "80 above the bounds; null = 80 is false")
case(G, "i < 30 (contains_null)", I, AN, cmp("lt", "i", 30), False, "values >= 30; null < 30 is false")
case(G, "i != 5 (contains_null)", I, AN, cmp("not-eq", "i", 5), True, "values differ from 5")
NB = S(null=True)
case(G, "i = 5 (only null partitions)", I, NB, cmp("eq", "i", 5), False, "no bounds: every partition value is null; null = 5 is false")
case(G, "i < 5 (only null partitions)", I, NB, cmp("lt", "i", 5), False, "null < 5 is false")
case(G, "i is null (only null partitions)", I, NB, test("is-null", "i"), True, "null partitions")
case(G, "i not null (only null partitions)", I, NB, test("not-null", "i"), False, "every partition value is null")
case(G, "i != 5 (only null partitions)", I, NB, cmp("not-eq", "i", 5), True, "null != 5 is true (null-safe)")
case(G, "i not in (1) (only null partitions)", I, NB, setp("not-in", "i", [1]), True, "null not in (1) is true")
E = S()
case(G, "i = 5 (no nulls, no bounds)", I, E, cmp("eq", "i", 5), False, "no null, no NaN, no bounds: no partition values")
case(G, "i not null (no nulls, no bounds)", I, E, test("not-null", "i"), False, "no partition values")

G = "identity(f) summaries and NaN"
FN = S(nan=True, lo=f4(1.5), hi=f4(2.5))
case(G, "f is nan (contains_nan)", FL, FN, test("is-nan", "f"), True, "contains_nan")
case(G, "f not nan (contains_nan)", FL, FN, test("not-nan", "f"), True, "values between the bounds")
case(G, "f > 2.5 (contains_nan)", FL, FN, cmp("gt", "f", 2.5), False, "values <= 2.5; NaN > 2.5 is false")
case(G, "f < 3.0 (contains_nan)", FL, FN, cmp("lt", "f", 3.0), True, "1.5 < 3")
case(G, "f = 3.0 (contains_nan)", FL, FN, cmp("eq", "f", 3.0), False, "above the bounds; NaN = 3 is false")
case(G, "f != 3.0 (contains_nan)", FL, FN, cmp("not-eq", "f", 3.0), True, "NaN != 3 is true")
case(G, "f is nan (contains_nan absent)", FL, S(lo=f4(1.5), hi=f4(2.5)), test("is-nan", "f"), True, "an absent contains_nan (v1) does not exclude NaN")
case(G, "f is nan (contains_nan false)", FL, S(nan=False, lo=f4(1.5), hi=f4(2.5)), test("is-nan", "f"), False, "contains_nan is false")
FA = S(nan=True)
case(G, "f is nan (only NaN partitions)", FL, FA, test("is-nan", "f"), True, "NaN partitions")
case(G, "f = 1.0 (only NaN partitions)", FL, FA, cmp("eq", "f", 1.0), False, "no bounds: every value is NaN (no nulls); NaN = 1 is false")
case(G, "f not nan (only NaN partitions)", FL, FA, test("not-nan", "f"), False, "every value is NaN")
case(G, "f != 1.0 (only NaN partitions)", FL, FA, cmp("not-eq", "f", 1.0), True, "NaN != 1 is true")

G = "identity(s) summaries"
SS = S(lo=st("apple"), hi=st("banana"))
for d, e, x, why in [
    ("s starts with 'b'", cmp("starts-with", "s", "b"), True, "'b' is between the bounds"),
    ("s starts with 'c'", cmp("starts-with", "s", "c"), False, "every 'c...' > 'banana'"),
    ("s starts with 'aa'", cmp("starts-with", "s", "aa"), False, "every 'aa...' < 'apple'"),
    ("s = 'b'", cmp("eq", "s", "b"), True, "'apple' <= 'b' <= 'banana'"),
    ("s not starts with 'a'", cmp("not-starts-with", "s", "a"), True, "'banana' may be a partition value"),
    ("s not starts with 'c'", cmp("not-starts-with", "s", "c"), True, "no value starts with 'c'"),
    ("s < 'apple'", cmp("lt", "s", "apple"), False, "every value >= 'apple'"),
]:
    case(G, d, STR, SS, e, x, why)
ST = S(lo=st("abc"), hi=st("abd"))
case(G, "s starts with 'abd' (bounds 'abc'..'abd')", STR, ST, cmp("starts-with", "s", "abd"), True, "the upper bound 'abd' may be a value")
case(G, "s starts with 'abe' (bounds 'abc'..'abd')", STR, ST, cmp("starts-with", "s", "abe"), False, "every 'abe...' > 'abd'")
case(G, "s not starts with 'ab' (bounds 'abc'..'abd')", STR, ST, cmp("not-starts-with", "s", "ab"), False, "every string in ['abc', 'abd'] starts with 'ab'")

G = "bucket[16](id) summaries"
case(G, "id = 34 (buckets 3..5)", B, S(lo=i4(3), hi=i4(5)), cmp("eq", "id", 34), True, "Appendix B: hash(34) = 2017239379, bucket 2017239379 mod 16 = 3")
case(G, "id = 34 (buckets 4..5)", B, S(lo=i4(4), hi=i4(5)), cmp("eq", "id", 34), False, "bucket 3 is below 4")
case(G, "id in (0, -1) (buckets 9..11)", B, S(lo=i4(9), hi=i4(11)), setp("in", "id", [0, -1]), False, "hash(0) = 1669671676 -> 12, hash(-1) = 1651860712 -> 8")
case(G, "id in (0, -1) (buckets 8..8)", B, S(lo=i4(8), hi=i4(8)), setp("in", "id", [0, -1]), True, "-1 is in bucket 8")
case(G, "id < 5 (buckets 4..5)", B, S(lo=i4(4), hi=i4(5)), cmp("lt", "id", 5), True, "bucket does not keep order: any bucket may hold ids < 5")

G = "truncate[10](i) summaries"
TR = S(lo=i4(20), hi=i4(40))
for d, e, x, why in [
    ("i = 49 (partitions 20..40)", cmp("eq", "i", 49), True, "partition 40 holds 40..49"),
    ("i = 50 (partitions 20..40)", cmp("eq", "i", 50), False, "50 is in partition 50 > 40"),
    ("i = 19 (partitions 20..40)", cmp("eq", "i", 19), False, "19 is in partition 10 < 20"),
    ("i < 20 (partitions 20..40)", cmp("lt", "i", 20), False, "every source value >= 20"),
    ("i < 21 (partitions 20..40)", cmp("lt", "i", 21), True, "20 may be present"),
    ("i > 49 (partitions 20..40)", cmp("gt", "i", 49), False, "every source value <= 49"),
    ("i > 48 (partitions 20..40)", cmp("gt", "i", 48), True, "49 may be present"),
]:
    case(G, d, T, TR, e, x, why)
TN = S(lo=i4(-10), hi=i4(-10))
case(G, "i = -1 (partition -10)", T, TN, cmp("eq", "i", -1), True, "truncate(10, -1) = -10: partition -10 holds -10..-1")
case(G, "i = 0 (partition -10)", T, TN, cmp("eq", "i", 0), False, "0 is in partition 0")
case(G, "i = -11 (partition -10)", T, TN, cmp("eq", "i", -11), False, "-11 is in partition -20")

G = "day(ts) and year(ts) summaries"
DY = S(lo=i4(17486), hi=i4(17487))
case(G, "ts = 2017-11-17T23:59:59.999999 (days 2017-11-16..17)", DAY, DY, cmp("eq", "ts", "2017-11-17T23:59:59.999999"), True, "day 17487 is 2017-11-17")
case(G, "ts = 2017-11-18T00:00 (days 2017-11-16..17)", DAY, DY, cmp("eq", "ts", "2017-11-18T00:00:00"), False, "day 17488 > 17487")
case(G, "ts < 2017-11-16T00:00 (days 2017-11-16..17)", DAY, DY, cmp("lt", "ts", "2017-11-16T00:00:00"), False, "every source value >= midnight of day 17486")
case(G, "ts < 2017-11-16T00:00:00.000001 (days 2017-11-16..17)", DAY, DY, cmp("lt", "ts", "2017-11-16T00:00:00.000001"), True, "midnight of 2017-11-16 may be present")
case(G, "ts > 2017-11-17T23:59:59.999999 (days 2017-11-16..17)", DAY, DY, cmp("gt", "ts", "2017-11-17T23:59:59.999999"), False, "every source value < 2017-11-18")
DN = S(lo=i4(-1), hi=i4(-1))
case(G, "ts = 1969-12-31T12:00 (day -1)", DAY, DN, cmp("eq", "ts", "1969-12-31T12:00:00"), True, "day -1 is 1969-12-31")
case(G, "ts = 1970-01-01T00:00 (day -1)", DAY, DN, cmp("eq", "ts", "1970-01-01T00:00:00"), False, "day 0")
case(G, "ts >= 1970-01-01T00:00 (day -1)", DAY, DN, cmp("gt-eq", "ts", "1970-01-01T00:00:00"), False, "every source value < 1970-01-01")
YR = S(lo=i4(47), hi=i4(47))
case(G, "ts = 2017-06-01T00:00 (year 2017)", YEAR, YR, cmp("eq", "ts", "2017-06-01T00:00:00"), True, "year 47 is 2017")
case(G, "ts = 2018-01-01T00:00 (year 2017)", YEAR, YR, cmp("eq", "ts", "2018-01-01T00:00:00"), False, "year 48")
YN = S(lo=i4(-1), hi=i4(-1))
case(G, "ts < 1969-01-01T00:00 (year 1969)", YEAR, YN, cmp("lt", "ts", "1969-01-01T00:00:00"), False, "year -1 holds 1969 only")
case(G, "ts = 1969-12-31T23:59:59.999999 (year 1969)", YEAR, YN, cmp("eq", "ts", "1969-12-31T23:59:59.999999"), True, "year -1 is 1969")

HEADER = {
    "description": "Manifests skipped by their partition field summaries: whether a manifest may hold a file matching a predicate",
    "operation": "manifest-evaluate",
    "spec": [{"section": "Scan Planning", "source": "current"},
             {"section": "Manifest Lists", "source": "current"}],
    "format_versions": [1, 2, 3],
    "notes": ("input: {schema, spec (one partition field, id 1000), partitions (the manifest-list entry's field summaries: contains_null, contains_nan "
              "(absent in v1 manifests), lower_bound / upper_bound as hex of the binary single-value form of the partition type), expression (on the "
              "source column)}; expected: whether the manifest may hold a file with a matching row. The summaries allow null partition values when "
              "contains_null, NaN when contains_nan is true or absent, and values between the bounds (absent bounds: 'null if all values are null or "
              "NaN'). A partition value stands for its source values (its preimage under the transform). Levels: true is must (skipping a manifest "
              "that may hold a matching file loses rows), false is should (skipping is optional)."),
}

def main():
    tests = []
    for group, desc, sp, summ, expr, expected, why in TESTS:
        t = {"description": f"{sp['fields'][0]['transform']}: {desc} {'might match' if expected else 'cannot match'}",
             "input": {"schema": SCHEMA, "spec": sp, "partitions": summ, "expression": expr},
             "expected": expected, "derived": {"from": f"{group}: {why}", "agreed": []}}
        if not expected:
            t["level"] = "should"
        tests.append(t)
    doc = dict(HEADER); doc["tests"] = tests
    write(VECTORS / "expressions" / "manifest-pruning.json", doc, "manifest_might_match",
          ["schema", "spec", "partitions", "expression"])


if __name__ == "__main__":
    main()
