"""Generate the ``value-json`` vector files of this directory from the spec's table.

Run: ``python -m tools.vectors.value_json`` (rewrites ``*.json`` here). Expected values are
written by hand from "Appendix D: JSON single-value serialization"; this script checks each
valid case with the Python standard library (``datetime``, ``decimal``, ``uuid``, ``struct``,
``bytes.fromhex``) and, when installed, with ``pyiceberg.conversions`` (``from_json`` then
``to_json``), and records under ``derived.agreed`` who gave the same value (compared by
meaning: see ``suites/test_value_json.py``). This kit's ``reference/`` is not used.

With ``--java`` each case also runs through Iceberg Java (the kit's ``java`` target, which
starts a local Spark JVM); ``java 1.10.2`` is added where Java gives the same result.

Case format (operation ``value-json``): ``input: {"type", "value"}``; ``expected`` is the
value a writer produces after reading ``value`` (the canonical form of the spec's table), or
``error`` when ``value`` is not a JSON single value of ``type``.

Levels (``vectors/README.md``, "Normative levels"): a refusal is ``must`` where the value is not
a value of the type at all (out of range, beyond the type's precision, not a number, not hex,
not a calendar date, keys and values that do not pair up): a reader that returns something
made it up. It is ``should`` (``lenient=True`` below) where the value has a definite meaning
and only its spelling breaks the table's form, which binds writers (the spec does not say a
reader must refuse it): ``Z`` or ``-00:00`` for ``+00:00``, numbers as strings, a JSON number
for a decimal, ``14.2`` for scale 2, a uuid without hyphens. Reading upper-case hex is
``should`` too (the spec's form is lowercase; accepting it is not required).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import uuid
from decimal import Context, Decimal
from typing import Any

from tools.vectors import VECTORS

HERE = VECTORS / "value-json"
SECTION = "Appendix D: Single-value serialization / JSON single-value serialization"
TABLE = {
    "boolean": "boolean: JSON boolean, e.g. true",
    "int": "int: JSON int, e.g. 34",
    "long": "long: JSON long, e.g. 34",
    "float": "float: JSON number, e.g. 1.0",
    "double": "double: JSON number, e.g. 1.0",
    "decimal": "decimal(P,S): JSON string, e.g. \"14.20\", \"2E+20\". Stores the string representation of the "
               "decimal value, specifically, for values with a positive scale, the number of digits to the right "
               "of the decimal point is used to indicate scale",
    "date": "date: JSON string, e.g. \"2017-11-16\". Stores ISO-8601 standard date",
    "time": "time: JSON string, e.g. \"22:31:08.123456\". Stores ISO-8601 standard time with microsecond precision",
    "timestamp": "timestamp: JSON string, e.g. \"2017-11-16T22:31:08.123456\". Stores ISO-8601 standard timestamp "
                 "with microsecond precision; must not include a zone offset",
    "timestamptz": "timestamptz: JSON string, e.g. \"2017-11-16T22:31:08.123456+00:00\". Stores ISO-8601 standard "
                   "timestamp with microsecond precision; must include a zone offset and it must be '+00:00'",
    "timestamp_ns": "timestamp_ns: JSON string, e.g. \"2017-11-16T22:31:08.123456789\". Stores ISO-8601 standard "
                    "timestamp with nanosecond precision; must not include a zone offset",
    "timestamptz_ns": "timestamptz_ns: JSON string, e.g. \"2017-11-16T22:31:08.123456789+00:00\". Stores ISO-8601 "
                      "standard timestamp with nanosecond precision; must include a zone offset and it must be "
                      "'+00:00'",
    "string": "string: JSON string, e.g. \"iceberg\"",
    "uuid": "uuid: JSON string, e.g. \"f79c3e09-677c-4bbd-a479-3f349cb785e7\". Stores the lowercase uuid string",
    "fixed": "fixed(L): JSON string, e.g. \"000102ff\". Stored as a hexadecimal string",
    "binary": "binary: JSON string, e.g. \"000102ff\". Stored as a hexadecimal string",
    "struct": "struct: JSON object by field ID, e.g. {\"1\": 1, \"2\": \"bar\"}. Stores struct fields using the "
              "field ID as the JSON field name; field values are stored using this JSON single-value format",
    "list": "list: JSON array of values, e.g. [1, 2, 3]. Stores a JSON array of values that are serialized "
            "using this JSON single-value format",
    "map": "map: JSON object of key and value arrays, e.g. { \"keys\": [\"a\", \"b\"], \"values\": [1, 2] }. "
           "Stores arrays of keys and values; individual keys and values are serialized using this JSON "
           "single-value format",
}
#: the rows of the spec's table, verbatim (cells joined by " | "): the sentence each test exercises
ROWS = {
    "boolean": "`boolean` | `JSON boolean` | `true`",
    "int": "`int` | `JSON int` | `34`",
    "long": "`long` | `JSON long` | `34`",
    "float": "`float` | `JSON number` | `1.0`",
    "double": "`double` | `JSON number` | `1.0`",
    "decimal": "`decimal(P,S)` | `JSON string` | `\"14.20\"`, `\"2E+20\"` | Stores the string representation of the "
               "decimal value, specifically, for values with a positive scale, the number of digits to the right of "
               "the decimal point is used to indicate scale",
    "date": "`date` | `JSON string` | `\"2017-11-16\"` | Stores ISO-8601 standard date",
    "time": "`time` | `JSON string` | `\"22:31:08.123456\"` | Stores ISO-8601 standard time with microsecond precision",
    "timestamp": "`timestamp` | `JSON string` | `\"2017-11-16T22:31:08.123456\"` | Stores ISO-8601 standard timestamp "
                 "with microsecond precision; must not include a zone offset",
    "timestamptz": "`timestamptz` | `JSON string` | `\"2017-11-16T22:31:08.123456+00:00\"` | Stores ISO-8601 standard "
                   "timestamp with microsecond precision; must include a zone offset and it must be '+00:00'",
    "timestamp_ns": "`timestamp_ns` | `JSON string` | `\"2017-11-16T22:31:08.123456789\"` | Stores ISO-8601 standard "
                    "timestamp with nanosecond precision; must not include a zone offset",
    "timestamptz_ns": "`timestamptz_ns` | `JSON string` | `\"2017-11-16T22:31:08.123456789+00:00\"` | Stores ISO-8601 "
                      "standard timestamp with nanosecond precision; must include a zone offset and it must be '+00:00'",
    "string": "`string` | `JSON string` | `\"iceberg\"`",
    "uuid": "`uuid` | `JSON string` | `\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"` | Stores the lowercase uuid string",
    "fixed": "`fixed(L)` | `JSON string` | `\"000102ff\"` | Stored as a hexadecimal string",
    "binary": "`binary` | `JSON string` | `\"000102ff\"` | Stored as a hexadecimal string",
    "struct": "`struct` | `JSON object by field ID` | `{\"1\": 1, \"2\": \"bar\"}` | Stores struct fields using the field "
              "ID as the JSON field name; field values are stored using this JSON single-value format",
    "list": "`list` | `JSON array of values` | `[1, 2, 3]` | Stores a JSON array of values that are serialized using "
            "this JSON single-value format",
    "map": "`map` | `JSON object of key and value arrays` | `{ \"keys\": [\"a\", \"b\"], \"values\": [1, 2] }` | Stores "
           "arrays of keys and values; individual keys and values are serialized using this JSON single-value format",
}
FORM = "values.json-form"
OFFSET = "values.timestamp-offset"
STDLIB = "python-stdlib 3.11 datetime/decimal/uuid/struct"


def base(t: Any) -> str:
    if isinstance(t, dict):
        return str(t["type"])
    return str(t).split("(")[0].split("[")[0]


# --- independent checks -----------------------------------------------------------------------

def expanded_date(v: str) -> str:
    """Validate and write back an ISO-8601 date, also with an expanded year (+YYYYY, -YYYY):
    the month and day are checked by datetime in the same place of the 400-year cycle."""
    m = re.fullmatch(r"([+-]?)(\d{4,})-(\d{2}-\d{2})", v)
    four = m is not None and len(m.group(2)) == 4
    if m is None or (four and m.group(1) == "+") or (not four and not m.group(1)):
        raise ValueError(f"{v!r}: 4-digit year (optionally -), or a signed expanded year")
    year = int(m.group(1) + m.group(2))
    cycles = (year - 2000) // 400
    inside = dt.date.fromisoformat(f"{year - 400 * cycles:04d}-{m.group(3)}")
    text = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):04d}"
    return f"{text}-{inside.isoformat()[5:]}"


def stdlib_canonical(t: Any, v: Any) -> Any:
    """The canonical JSON form of ``v`` computed with the standard library (primitives only)."""
    b = base(t)
    if v is None:
        return None
    if b == "struct":
        return {str(f["id"]): stdlib_canonical(f["type"], v.get(str(f["id"]))) for f in t["fields"]}
    if b == "list":
        return [stdlib_canonical(t["element"], e) for e in v]
    if b == "map":
        return {"keys": [stdlib_canonical(t["key"], k) for k in v["keys"]],
                "values": [stdlib_canonical(t["value"], x) for x in v["values"]]}
    if b in ("boolean", "int", "long", "string"):
        return v
    if b in ("float", "double"):
        return v
    if b == "decimal":
        scale = int(re.findall(r"-?\d+", str(t))[1])
        return f"{Decimal(v).quantize(Decimal(1).scaleb(-scale), context=Context(prec=80)):f}"
    if b == "date":
        return expanded_date(v)
    if b == "time":
        return dt.time.fromisoformat(v).isoformat(timespec="microseconds")
    if b in ("timestamp", "timestamptz"):
        d = dt.datetime.fromisoformat(v)
        return d.replace(tzinfo=None).isoformat(timespec="microseconds") + ("+00:00" if b == "timestamptz" else "")
    if b in ("timestamp_ns", "timestamptz_ns"):
        body = v.removesuffix("+00:00")
        head, _, frac = body.partition(".")
        d = dt.datetime.fromisoformat(head)
        return d.isoformat(timespec="seconds") + "." + frac.ljust(9, "0") + ("+00:00" if b == "timestamptz_ns" else "")
    if b == "uuid":
        return str(uuid.UUID(v))
    if b in ("fixed", "binary"):
        return bytes.fromhex(v).hex()
    raise KeyError(b)


def pyiceberg_roundtrip(t: Any, v: Any) -> Any:
    from pyiceberg import conversions
    from pyiceberg.types import IcebergType

    pt = IcebergType.handle_primitive_type(t, None)
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    if base(t) in ("float", "double") and v in special:
        v = special[v]
    out = conversions.to_json(pt, conversions.from_json(pt, v))
    if isinstance(out, float) and not math.isfinite(out):
        return "NaN" if out != out else ("Infinity" if out > 0 else "-Infinity")
    return out


def agree(t: Any, v: Any, expected: Any) -> list[str]:
    from iceberg_conformance.suites.harness.values import same_value  # the suite's comparison by meaning (no reference/)

    who = []
    try:
        if same_value(t, expected, stdlib_canonical(t, v)):
            who.append(STDLIB)
        else:
            print(f"  stdlib disagrees: {t} {v!r} -> {stdlib_canonical(t, v)!r}")
    except Exception as e:  # noqa: BLE001
        print(f"  stdlib raised {type(e).__name__}: {e} for {t} {v!r}")
    if not isinstance(t, dict):
        try:
            got = pyiceberg_roundtrip(t, v)
            if same_value(t, expected, got):
                import pyiceberg
                who.append(f"pyiceberg {pyiceberg.__version__}")
            else:
                print(f"  pyiceberg disagrees: {t} {v!r} -> {got!r}")
        except Exception as e:  # noqa: BLE001
            print(f"  pyiceberg raised {type(e).__name__}: {e} for {t} {v!r}")
    return who


def pyiceberg_rejects(t: Any, v: Any) -> list[str]:
    if isinstance(t, dict):
        return []
    try:
        got = pyiceberg_roundtrip(t, v)
    except Exception:  # noqa: BLE001 - any refusal
        import pyiceberg
        return [f"pyiceberg {pyiceberg.__version__}"]
    print(f"  pyiceberg accepts invalid {t} {v!r} -> {got!r}")
    return []


# --- cases ------------------------------------------------------------------------------------

def show(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=True)
    return text if len(text) <= 50 else text[:47] + "..."


def tname(t: Any) -> str:
    return t if isinstance(t, str) else str(t.get("name", t["type"]))


SHOULD = {"level": "should"}


def ok(t: Any, v: Any, expected: Any = None, desc: str = "", how: str = "",
       lenient: bool = False) -> dict[str, Any]:
    expected = v if expected is None else expected
    shown = tname(t)
    if desc:
        d = desc
    elif expected == v and type(expected) is type(v):
        d = f"{shown} {show(v)} round-trips"
    else:
        d = f"{shown} {show(v)} is written back as {show(expected)}"
    case: dict[str, Any] = {
        "description": d,
        "input": {"type": _plain_type(t), "value": v},
        "expected": expected,
        "derived": {"from": how or f"spec table: {TABLE[base(t)]}", "agreed": agree(_plain_type(t), v, expected)},
    }
    if "_ns" in str(t):
        case["format_versions"] = [3]
    if lenient:
        case.update(SHOULD)
    return case


def bad(t: Any, v: Any, reason: str, rule: str = FORM, desc: str = "", lenient: bool = False) -> dict[str, Any]:
    """A value that is refused; ``lenient``: its meaning is definite and only the spelling breaks
    the form writers use, so refusing it is recommended, not required (level should)."""
    case: dict[str, Any] = {
        "description": desc or f"{tname(t)} {show(v)} is refused",
        "input": {"type": _plain_type(t), "value": v},
        "error": {"rule": rule, "reason": reason},
        "derived": {"from": f"{reason}; spec table: {TABLE[base(t)]}", "agreed": pyiceberg_rejects(_plain_type(t), v)},
    }
    if "_ns" in str(t):
        case["format_versions"] = [3]
    if lenient:
        case.update(SHOULD)
    return case


def _plain_type(t: Any) -> Any:
    if isinstance(t, dict) and "name" in t:
        return {k: x for k, x in t.items() if k != "name"}
    return t


JAVA: list[Any] = []  # the java target, when run with --java


def java_agrees(test: dict[str, Any]) -> bool:
    from iceberg_conformance.suites.api import Rejected
    from iceberg_conformance.suites.harness.values import same_value

    inp = test["input"]
    try:
        got = JAVA[0].value_json_roundtrip(inp["type"], inp["value"])
    except Rejected:
        return "error" in test
    except Exception:  # noqa: BLE001 - a crash or an unsupported input is no agreement
        return False
    return "error" not in test and same_value(inp["type"], test["expected"], got)


def write(name: str, description: str, rows: list[str], tests: list[dict[str, Any]], notes: str = "") -> None:
    doc: dict[str, Any] = {
        "description": description,
        "operation": "value-json",
        "spec": [{"section": SECTION, "source": "current"}],
        "format_versions": [1, 2, 3],
    }
    for t in tests:  # each test quotes the table row of its own type
        assert base(t["input"]["type"]) in rows, t["description"]
        t["spec"] = [{"section": SECTION, "quote": ROWS[base(t["input"]["type"])], "source": "current"}]
    if any(t.get("level") == "should" for t in tests):
        notes = (notes + " " if notes else "") + LEVEL_NOTE
    if notes:
        doc["notes"] = notes
    doc["tests"] = tests
    descs = [t["description"] for t in tests]
    assert len(descs) == len(set(descs)), [d for d in descs if descs.count(d) > 1]
    assert all(len(d) <= 120 for d in descs), [d for d in descs if len(d) > 120]
    if JAVA:
        for t in tests:
            if java_agrees(t):
                t["derived"]["agreed"].append("java 1.10.2")
            else:
                print(f"  java disagrees: {t['description']}")
    (HERE / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{name}.json: {len(tests)} tests")


LEVEL_NOTE = (
    "Levels (vectors/README.md, Normative levels): refusing a value whose meaning is definite and whose "
    "spelling only breaks the form writers use is level should (the spec does not say a reader must refuse "
    "it), as is reading upper-case hex; refusing a value that is no value of the type (out of range, beyond "
    "its precision, not a number, not hex, not a date) stays must.")
COMPARE_NOTE = (
    "Written-back values are compared by meaning where the spec allows several spellings "
    "(suites/test_value_json.py, same_value): times and timestamps by their value, with any number of "
    "fraction digits up to the type's precision (Java writes 22:31:08 for 22:31:08.000000), but a "
    "timestamptz must end in +00:00 and a timestamp must have no offset; floats by their binary32 value; "
    "hex case-insensitively; struct fields that are null may be omitted. Decimals, dates and uuids are "
    "compared as exact strings: the spec fixes their spelling (scale digits, lowercase).")


def main() -> None:
    write("primitives", "JSON single values of boolean, numbers, string, uuid, fixed and binary",
          ["boolean", "int", "long", "float", "double", "string", "uuid", "fixed", "binary"], [
              ok("boolean", True), ok("boolean", False),
              bad("boolean", 1, "a boolean is a JSON boolean, not a number", lenient=True),
              bad("boolean", "true", "a boolean is a JSON boolean, not a string", lenient=True),
              ok("int", 34), ok("int", 0), ok("int", -2147483648), ok("int", 2147483647),
              bad("int", 2147483648, "2^31 is outside the 32-bit int range"),
              bad("int", -2147483649, "-2^31-1 is outside the 32-bit int range"),
              bad("int", "34", "an int is a JSON number, not a string", lenient=True),
              bad("int", 1.5, "an int has no fraction"),
              bad("int", True, "an int is a JSON number, not a boolean", lenient=True),
              ok("long", 34), ok("long", -9223372036854775808), ok("long", 9223372036854775807),
              bad("long", 9223372036854775808, "2^63 is outside the 64-bit long range"),
              bad("long", "34", "a long is a JSON number, not a string", lenient=True),
              ok("float", 1.0), ok("float", -0.0), ok("float", 0.1,
                 how="JSON 0.1 read as a float is the nearest binary32 value 0.100000001490116; it is written "
                     "back as any number with that binary32 value (0.1 or 0.10000000149011612)"),
              ok("float", 3.4028234663852886e38), ok("float", "NaN"), ok("float", "-Infinity"),
              bad("float", "1.0", "a float is a JSON number, not a string", lenient=True),
              ok("double", 1.0), ok("double", -0.0), ok("double", 0.1), ok("double", 1.7976931348623157e308),
              ok("double", 5e-324), ok("double", -1.5e-300), ok("double", "NaN"), ok("double", "Infinity"),
              ok("double", 34, 34.0, "double 34 (a JSON integer) reads as 34.0",
                 how="a JSON number without fraction is a JSON number too"),
              bad("double", "abc", "a double is a JSON number"),
              ok("string", "iceberg"), ok("string", ""),
              ok("string", "😀", desc="string U+1F600 (non-BMP) round-trips"),
              ok("string", "a\u0000b", desc="string with embedded U+0000 round-trips"),
              bad("string", 34, "a string is a JSON string", lenient=True),
              ok("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
              ok("uuid", "F79C3E09-677C-4BBD-A479-3F349CB785E7", "f79c3e09-677c-4bbd-a479-3f349cb785e7",
                 how="uppercase hex is the same UUID; writers store the lowercase uuid string", lenient=True),
              bad("uuid", "f79c3e09677c4bbda4793f349cb785e7", "a uuid string has hyphens 8-4-4-4-12", lenient=True),
              bad("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785", "a uuid has 32 hex digits"),
              ok("fixed[4]", "000102ff"),
              ok("fixed[4]", "000102FF", "000102ff", how="hex digits are case-insensitive; written lowercase "
                 "like the spec's example (compared case-insensitively)", lenient=True),
              bad("fixed[4]", "000102", "fixed[4] holds exactly 4 bytes"),
              bad("fixed[4]", "000102ff00", "fixed[4] holds exactly 4 bytes"),
              ok("binary", "000102ff"), ok("binary", ""),
              bad("binary", "abc", "a hexadecimal string of bytes has an even number of digits"),
              bad("binary", "0g", "g is not a hexadecimal digit"),
          ], notes=COMPARE_NOTE + " NaN and infinities are the strings NaN, Infinity, -Infinity of this kit "
                                  "(JSON has no literal for them; the spec does not say).")

    write("decimal", "JSON single values of decimal(P, S): a string with exactly S fraction digits",
          ["decimal"], [
              ok("decimal(4, 2)", "14.20"), ok("decimal(4, 2)", "-14.20"), ok("decimal(4, 2)", "0.00"),
              ok("decimal(3, 2)", "-0.01"), ok("decimal(3, 0)", "123"), ok("decimal(1, 0)", "0"),
              ok("decimal(38, 0)", "9" * 38), ok("decimal(38, 0)", "-" + "9" * 38),
              ok("decimal(38, 38)", "0." + "9" * 38),
              ok("decimal(38, 10)", "-0.0000000001"), ok("decimal(7, 7)", "0.0000001"),
              ok("decimal(10, 0)", "1000000000"),
              bad("decimal(4, 2)", "14.2", "14.2 shows scale 1; the number of digits right of the point is the "
                  "scale, which is 2 (write 14.20)", lenient=True),
              bad("decimal(4, 2)", "14.200", "14.200 shows scale 3, the type's scale is 2", lenient=True),
              bad("decimal(4, 2)", "14", "14 shows scale 0, the type's scale is 2", lenient=True),
              bad("decimal(4, 2)", "123.45", "123.45 has 5 digits; precision is 4"),
              bad("decimal(4, 2)", 14.2, "a decimal is a JSON string, not a number", lenient=True),
              bad("decimal(4, 2)", "abc", "not a decimal number"),
              bad("decimal(2, 0)", "1E+1", "1E+1 has scale -1 (scientific notation is for negative scales); "
                  "the type's scale is 0", lenient=True),
          ], notes="Decimals are compared as exact strings: the spec makes the digits after the point the "
                   "scale. Negative scales (\"2E+20\") are not covered: this kit's types require 0 <= S <= P.")

    ts = "2017-11-16T22:31:08.123456"
    write("temporal", "JSON single values of date, time and timestamps; timestamptz offsets are +00:00",
          ["date", "time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"], [
              ok("date", "2017-11-16"), ok("date", "1969-12-31"), ok("date", "1900-01-01"),
              ok("date", "0001-01-01"), ok("date", "9999-12-31"), ok("date", "2000-02-29"),
              ok("date", "+10000-01-01", how="years beyond 9999 take the ISO-8601 expanded form with a sign"),
              ok("date", "-0001-12-31", how="years before 0000 take the ISO-8601 expanded form with a sign"),
              ok("timestamp", "+10000-01-01T00:00:00.000000",
                 how="years beyond 9999 take the ISO-8601 expanded form with a sign"),
              bad("date", "10000-01-01", "a year of more than 4 digits is the ISO-8601 expanded form, which has a "
                  "sign: +10000-01-01", lenient=True),
              bad("date", "2017-02-29", "2017 is not a leap year"),
              bad("date", "2017-13-01", "there is no month 13"),
              bad("date", "20171116", "the JSON form is the extended ISO-8601 date YYYY-MM-DD", lenient=True),
              bad("date", 17486, "a date is a JSON string, not a day number", lenient=True),
              bad("date", "2017-11-16T00:00:00", "a date has no time of day", lenient=True),
              ok("time", "22:31:08.123456"), ok("time", "00:00:00.000000"), ok("time", "23:59:59.999999"),
              ok("time", "22:31:08", "22:31:08.000000", how="ISO-8601 time without fraction; Java writes this "
                 "form for whole seconds"),
              ok("time", "22:31:08.1", "22:31:08.100000", how="ISO-8601 time with one fraction digit"),
              bad("time", "24:00:00.000000", "hour 24 is not a time of day of this type (microseconds from midnight, "
                  "less than one day)"),
              bad("time", "22:31:08.1234567", "a 7th fraction digit is beyond microsecond precision"),
              bad("time", "22:31:08.123456+00:00", "a time has no zone offset", rule=FORM, lenient=True),
              ok("timestamp", ts), ok("timestamp", "1970-01-01T00:00:00.000000"),
              ok("timestamp", "1969-12-31T23:59:59.999999"), ok("timestamp", "1900-01-01T00:00:00.000000"),
              ok("timestamp", "2017-11-16T22:31:08", "2017-11-16T22:31:08.000000",
                 how="ISO-8601 timestamp without fraction; Java writes this form for whole seconds"),
              bad("timestamp", ts + "+00:00", "timestamp must not include a zone offset", rule=OFFSET, lenient=True),
              bad("timestamp", ts + "Z", "timestamp must not include a zone offset (Z)", rule=OFFSET, lenient=True),
              bad("timestamp", "2017-11-16 22:31:08.123456", "ISO-8601 separates date and time with T", lenient=True),
              bad("timestamp", "2017-11-16T22:31:08.1234567", "a 7th fraction digit is beyond microsecond precision"),
              ok("timestamptz", ts + "+00:00"), ok("timestamptz", "1969-12-31T23:59:59.999999+00:00"),
              ok("timestamptz", "1960-02-29T12:00:00.000001+00:00"),
              bad("timestamptz", ts, "timestamptz must include a zone offset", rule=OFFSET, lenient=True),
              bad("timestamptz", ts + "Z", "the offset must be '+00:00'; Z is another spelling of UTC, which "
                  "writers do not write", rule=OFFSET,
                  desc="timestamptz with Z instead of +00:00 is refused", lenient=True),
              bad("timestamptz", "2017-11-16T23:31:08.123456+01:00", "the offset must be '+00:00'", rule=OFFSET, lenient=True),
              bad("timestamptz", ts + "-00:00", "the offset must be '+00:00' (-00:00 means an unknown offset "
                  "in RFC 3339)", rule=OFFSET, lenient=True),
              ok("timestamp_ns", "2017-11-16T22:31:08.123456789"), ok("timestamp_ns", "1969-12-31T23:59:59.999999999"),
              ok("timestamp_ns", "1677-09-21T00:12:43.145224192"), ok("timestamp_ns", "2262-04-11T23:47:16.854775807"),
              ok("timestamp_ns", ts, ts + "000", how="six fraction digits are nanoseconds 123456000"),
              bad("timestamp_ns", "2017-11-16T22:31:08.123456789+00:00", "timestamp_ns must not include a zone offset",
                  rule=OFFSET, lenient=True),
              bad("timestamp_ns", "2017-11-16T22:31:08.1234567891", "a 10th fraction digit is beyond nanosecond "
                  "precision"),
              ok("timestamptz_ns", "2017-11-16T22:31:08.123456789+00:00"),
              ok("timestamptz_ns", "1969-12-31T23:59:59.999999999+00:00"),
              bad("timestamptz_ns", "2017-11-16T22:31:08.123456789Z", "the offset must be '+00:00'", rule=OFFSET,
                  desc="timestamptz_ns with Z instead of +00:00 is refused", lenient=True),
              bad("timestamptz_ns", "2017-11-16T22:31:08.123456789", "timestamptz_ns must include a zone offset",
                  rule=OFFSET, lenient=True),
          ], notes=COMPARE_NOTE + " The spec's 'must include a zone offset and it must be +00:00' makes any "
                                  "other spelling of UTC (Z, -00:00) and any other offset invalid: writers write "
                                  "+00:00. The spec does not say a reader must refuse the other spellings, whose "
                                  "instant is definite, so those refusals are level should (a lenient reader is "
                                  "ADVISORY); values beyond the type's precision or range stay must.")

    st = {"type": "struct", "fields": [{"id": 1, "name": "a", "type": "int", "required": False},
                                       {"id": 2, "name": "b", "type": "string", "required": False}]}
    nested = {"type": "struct", "fields": [
        {"id": 1, "name": "p", "required": False, "type": {"type": "struct", "fields": [
            {"id": 2, "name": "x", "type": "decimal(4, 2)", "required": False},
            {"id": 3, "name": "t", "type": "timestamptz", "required": False}]}}]}
    lst = {"type": "list", "element-id": 1, "element": "int", "element-required": False}
    dlst = {"type": "list", "element-id": 1, "element": "decimal(4, 2)", "element-required": True}
    mp = {"type": "map", "key-id": 1, "key": "string", "value-id": 2, "value": "int", "value-required": False}
    ump = {"type": "map", "key-id": 1, "key": "uuid", "value-id": 2, "value": "date", "value-required": True}

    def named(t: dict[str, Any], name: str) -> dict[str, Any]:
        return {**t, "name": name}

    write("nested", "JSON single values of struct (by field id), list and map (keys and values arrays)",
          ["struct", "list", "map"], [
              ok(named(st, "struct<1: int, 2: string>"), {"1": 1, "2": "bar"}),
              ok(named(st, "struct<1: int, 2: string>"), {"1": None, "2": "bar"}),
              ok(named(st, "struct<1: int, 2: string>"), {"2": "bar"}, {"1": None, "2": "bar"},
                 desc="struct with field 1 missing reads it as null",
                 how="a field without a JSON value is null; a writer may write the null or omit the field"),
              ok(named(nested, "struct<1: struct<2: decimal(4, 2), 3: timestamptz>>"),
                 {"1": {"2": "14.20", "3": "2017-11-16T22:31:08.123456+00:00"}}),
              bad(named(st, "struct<1: int, 2: string>"), [1, "bar"], "a struct is a JSON object keyed by field id"),
              bad(named(st, "struct<1: int, 2: string>"), {"1": "x"}, "field 1 is an int"),
              ok(named(lst, "list<int>"), [1, 2, 3]), ok(named(lst, "list<int>"), []),
              ok(named(lst, "list<int>"), [None, 1]),
              ok(named(dlst, "list<decimal(4, 2)>"), ["14.20", "-0.01"]),
              bad(named(dlst, "list<decimal(4, 2)>"), ["14.2"], "element 14.2 shows scale 1, the scale is 2", lenient=True),
              bad(named(lst, "list<int>"), {"1": 1}, "a list is a JSON array"),
              ok(named(mp, "map<string, int>"), {"keys": ["a", "b"], "values": [1, 2]}),
              ok(named(mp, "map<string, int>"), {"keys": [], "values": []}),
              ok(named(mp, "map<string, int>"), {"keys": ["a"], "values": [None]}),
              ok(named(ump, "map<uuid, date>"), {"keys": ["f79c3e09-677c-4bbd-a479-3f349cb785e7"],
                                                 "values": ["2017-11-16"]}),
              bad(named(mp, "map<string, int>"), {"a": 1}, "a map is an object of key and value arrays", lenient=True),
              bad(named(mp, "map<string, int>"), {"keys": ["a", "b"], "values": [1]},
                  "keys and values pair up: the arrays have the same length"),
          ], notes=COMPARE_NOTE)


if __name__ == "__main__":
    import sys

    if "--java" in sys.argv:
        from iceberg_conformance.suites.targets import load_target

        JAVA.append(load_target("java"))
    main()
