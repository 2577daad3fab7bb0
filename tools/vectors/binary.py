"""Generate the ``binary`` vector files of this directory from the spec's rules.

Run: ``python -m tools.vectors.binary`` (rewrites ``*.json`` here). The bytes come from
the rules of "Appendix D: Binary single-value serialization", computed with the Python
standard library only (``struct``, ``uuid``, ``decimal``, ``datetime``); this kit's
``reference/`` is not used. Each valid case is also checked against
``pyiceberg.conversions`` when PyIceberg is installed: the case records it under
``derived.agreed`` only where PyIceberg gives the same bytes and value, and the script prints
every disagreement (those are findings about PyIceberg, not reasons to change a vector).

With ``--java`` the script also runs each case through Iceberg Java (the kit's ``java`` target,
which starts a local Spark JVM) and adds ``java 1.10.2`` where Java gives the same result.

Case format (operation ``binary``):

* ``input: {"type", "bytes"}`` with ``expected`` = the value in JSON single-value form: reading
  ``bytes`` gives the value; unless the test says ``"roundtrip": false``, writing the value
  gives exactly ``bytes`` again.
* ``input: {"type", "bytes"}`` with ``error``: a reader refuses the bytes.
* ``input: {"type", "value"}`` with ``error``: a writer refuses the value.
"""

from __future__ import annotations

import datetime as dt
import json
import struct
import uuid
from decimal import Decimal
from typing import Any

from tools.vectors import VECTORS

HERE = VECTORS / "binary"
D = "Appendix D: Single-value serialization / Binary single-value serialization"
ROWS = {
    "boolean": "`0x00` for false, non-zero byte for true",
    "int": "Stored as 4-byte little-endian",
    "long": "Stored as 8-byte little-endian",
    "float": "Stored as 4-byte little-endian",
    "double": "Stored as 8-byte little-endian",
    "date": "Stores days from the 1970-01-01 in an 4-byte little-endian int",
    "time": "Stores microseconds from midnight in an 8-byte little-endian long",
    "timestamp": "Stores microseconds from 1970-01-01 00:00:00.000000 in an 8-byte little-endian long",
    "timestamptz": "Stores microseconds from 1970-01-01 00:00:00.000000 UTC in an 8-byte little-endian long",
    "timestamp_ns": "Stores nanoseconds from 1970-01-01 00:00:00.000000000 in an 8-byte little-endian long",
    "timestamptz_ns": "Stores nanoseconds from 1970-01-01 00:00:00.000000000 UTC in an 8-byte little-endian long",
    "string": "UTF-8 bytes (without length)",
    "uuid": "16-byte big-endian value, see example in Appendix B",
    "fixed": "Binary value",
    "binary": "Binary value (without length)",
    "decimal": "Stores unscaled value as two’s-complement big-endian binary, using the minimum number of bytes for the value",
}
PROMOTION = ("Schema Evolution", "To correctly decode the value, the original type at the time the file was written "
             "must be inferred according to the following table:")
STDLIB = "python-stdlib 3.11 struct/uuid/decimal/datetime"
EPOCH = dt.datetime(1970, 1, 1)


def row(t: str) -> str:
    base = t.split("(")[0].split("[")[0]
    return ROWS[base]


#: the type column of the spec's table, where it differs from the type's name
LABELS = {"fixed": "fixed(L)", "decimal": "decimal(P, S)"}


def row_spec(t: Any) -> list[dict[str, str]]:
    """The spec table row of a test's type, verbatim (cells joined by " | "): the sentence the
    test exercises."""
    base = str(t["type"]) if isinstance(t, dict) else t.split("(")[0].split("[")[0]
    text = ROWS.get(base, "Not supported")
    return [{"section": D, "quote": f"`{LABELS.get(base, base)}` | {text}", "source": "current"}]


# --- bytes from the spec's rules, with the standard library -----------------------------------

def i32(n: int) -> bytes:
    return struct.pack("<i", n)


def i64(n: int) -> bytes:
    return struct.pack("<q", n)


def days(s: str) -> int:
    """Days from 1970-01-01; years outside 1..9999 (ISO-8601 expanded form, +YYYYY / -YYYY) by
    the 400-year Gregorian cycle of 146097 days, moving the year into datetime's range."""
    sign = -1 if s.startswith("-") else 1
    year_text, month_day = s.lstrip("+-").split("-", 1)
    year = sign * int(year_text)
    cycles = (year - 2000) // 400
    inside = dt.date.fromisoformat(f"{year - 400 * cycles:04d}-{month_day}")
    return (inside - dt.date(1970, 1, 1)).days + cycles * 146097


def micros(s: str) -> int:
    s = s.removesuffix("+00:00")
    if "T" not in s:  # a time of day
        t = dt.time.fromisoformat(s)
        return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond
    date, time = s.split("T")
    return days(date) * 86_400_000_000 + micros(time)


def nanos(s: str) -> int:
    s = s.removesuffix("+00:00")
    head, frac = s.split(".")
    return micros(f"{head}.{frac[:6]}") * 1000 + int(frac[6:9])


def unscaled(s: str) -> int:
    sign, digits, _ = Decimal(s).as_tuple()
    n = int("".join(map(str, digits)))
    return -n if sign else n


def min_twos(n: int) -> bytes:
    """Smallest big-endian two's complement: the first width whose signed range holds n."""
    width = 1
    while not -(1 << (8 * width - 1)) <= n < (1 << (8 * width - 1)):
        width += 1
    return n.to_bytes(width, "big", signed=True)


def encode(t: str, v: Any) -> bytes:
    """Spec rule per type, applied to the JSON single value ``v``."""
    base = t.split("(")[0].split("[")[0]
    if base == "boolean":
        return b"\x01" if v else b"\x00"
    if base == "int":
        return i32(v)
    if base == "long":
        return i64(v)
    if base == "float":
        return struct.pack("<f", {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.get(v, v))
    if base == "double":
        return struct.pack("<d", {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.get(v, v))
    if base == "date":
        return i32(days(v))
    if base in ("time", "timestamp", "timestamptz"):
        return i64(micros(v))
    if base in ("timestamp_ns", "timestamptz_ns"):
        return i64(nanos(v))
    if base == "string":
        return v.encode("utf-8")
    if base == "uuid":
        return uuid.UUID(v).bytes
    if base in ("fixed", "binary"):
        return bytes.fromhex(v)
    if base == "decimal":
        return min_twos(unscaled(v))
    raise ValueError(t)


# --- cross-check with pyiceberg ---------------------------------------------------------------

def native(t: str, v: Any) -> Any:
    """The PyIceberg-native value of JSON ``v`` (ints for temporal types, as pyiceberg uses)."""
    base = t.split("(")[0].split("[")[0]
    special = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
    if base in ("float", "double"):
        return special.get(v, v)
    if base == "date":
        return days(v)
    if base in ("time", "timestamp", "timestamptz"):
        return micros(v)
    if base in ("timestamp_ns", "timestamptz_ns"):
        return nanos(v)
    if base == "uuid":
        return uuid.UUID(v)
    if base in ("fixed", "binary"):
        return bytes.fromhex(v)
    if base == "decimal":
        return Decimal(v)
    return v


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and struct.pack("<d", a) == struct.pack("<d", b))
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return a.as_tuple() == b.as_tuple()
    return type(a) is type(b) and a == b


def pyiceberg_agrees(t: str, data: bytes, v: Any, roundtrip: bool) -> bool | None:
    try:
        from pyiceberg import conversions
        from pyiceberg.types import IcebergType
    except ImportError:
        return None
    try:
        pt = IcebergType.handle_primitive_type(t, None)
        got = conversions.from_bytes(pt, data)
        want = native(t, v)
        if t == "uuid" and isinstance(got, bytes):
            got = uuid.UUID(bytes=got)  # pyiceberg returns a uuid's 16 bytes
        ok = same(want, got)
        if roundtrip:
            ok = ok and conversions.to_bytes(pt, want) == data
    except Exception as e:  # noqa: BLE001 - a disagreement, reported below
        print(f"  pyiceberg raised {type(e).__name__}: {e} for {t} {data.hex()}")
        return False
    if not ok:
        print(f"  pyiceberg disagrees: {t} {data.hex()} -> {got!r}")
    return ok


def pyiceberg_version() -> str:
    try:
        import pyiceberg
        return f"pyiceberg {pyiceberg.__version__}"
    except ImportError:
        return "pyiceberg"


# --- the cases --------------------------------------------------------------------------------

def show(v: Any) -> str:
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=True)
        return text if len(text) <= 48 else text[:45] + '..."'
    return json.dumps(v)


def valid(t: str, v: Any, what: str = "", *, data: bytes | None = None, roundtrip: bool = True,
          how: str = "", spec: list[dict[str, str]] | None = None) -> dict[str, Any]:
    data = encode(t, v) if data is None else data
    desc = f"{t} {what or show(v)} is {data.hex() or '(empty)'}"
    if not roundtrip:
        desc = f"{t} {data.hex() or '(empty)'} reads as {what or show(v)}"
    agreed = [STDLIB]
    if pyiceberg_agrees(t, data, v, roundtrip):
        agreed.append(pyiceberg_version())
    case: dict[str, Any] = {
        "description": desc,
        "input": {"type": t, "bytes": data.hex()},
        "expected": v,
        "derived": {"from": how or f"spec rule for {t.split('(')[0].split('[')[0]}: {row(t)}", "agreed": agreed},
    }
    if not roundtrip:
        case["roundtrip"] = False
    if "_ns" in t:
        case["format_versions"] = [3]
    if spec:
        case["spec"] = spec
    return case


WIDTHS = {"boolean": 1, "int": 4, "date": 4, "float": 4, "long": 8, "double": 8, "time": 8,
          "timestamp": 8, "timestamptz": 8, "timestamp_ns": 8, "timestamptz_ns": 8, "uuid": 16}


def stdlib_refuses(t: Any, data: bytes) -> bool:
    """The standard library's reading of the spec rule refuses ``data`` too."""
    if not isinstance(t, str):
        return False
    b = t.split("(")[0].split("[")[0]
    try:
        if b == "string":
            data.decode("utf-8")
        elif b == "fixed":
            return len(data) != int(t[6:-1])
        elif b in WIDTHS:
            if b == "uuid":
                uuid.UUID(bytes=data)
            else:
                struct.unpack({1: "<?", 4: "<i", 8: "<q"}[WIDTHS[b]], data)
        else:
            return False
    except (ValueError, struct.error):
        return True
    return False


def pyiceberg_refuses(t: Any, data: bytes) -> bool:
    try:
        from pyiceberg import conversions
        from pyiceberg.types import IcebergType
        pt = IcebergType.model_validate(t) if isinstance(t, dict) else IcebergType.handle_primitive_type(t, None)
        got = conversions.from_bytes(pt, data)
    except Exception:  # noqa: BLE001 - any refusal
        return True
    print(f"  pyiceberg accepts invalid {t} {data.hex()} -> {got!r}")
    return False


def bad_bytes(t: Any, data: bytes, rule: str, reason: str, desc: str = "") -> dict[str, Any]:
    shown = t if isinstance(t, str) else t["type"]
    agreed = []
    if stdlib_refuses(t, data):
        agreed.append(STDLIB)
    if pyiceberg_refuses(t, data):
        agreed.append(pyiceberg_version())
    return {
        "description": desc or f"{shown} {data.hex() or '(empty)'} ({len(data)} bytes) is refused",
        "input": {"type": t, "bytes": data.hex()},
        "error": {"rule": rule, "reason": reason},
        "derived": {"from": reason, "agreed": agreed},
    }


JAVA: list[Any] = []  # the java target, when run with --java


def java_agrees(test: dict[str, Any]) -> bool:
    """Iceberg Java (through the kit's java target) gives the test's result."""
    from iceberg_conformance.suites.api import Rejected
    from iceberg_conformance.suites.harness.values import same_value

    target, inp = JAVA[0], test["input"]
    try:
        if "bytes" not in inp:
            target.to_bytes(inp["type"], inp["value"])
            return False
        data = bytes.fromhex(inp["bytes"])
        got = target.from_bytes(inp["type"], data)
        if "error" in test:
            return False
        ok = same_value(inp["type"], test["expected"], got)
        if ok and test.get("roundtrip", True):
            ok = target.to_bytes(inp["type"], test["expected"]) == data
        return bool(ok)
    except Rejected:
        return "error" in test
    except Exception:  # noqa: BLE001 - a crash or an unsupported input is no agreement
        return False


def file(name: str, description: str, tests: list[dict[str, Any]], *, versions: list[int],
         notes: str = "", extra_spec: list[dict[str, str]] | None = None) -> None:
    doc: dict[str, Any] = {
        "description": description,
        "operation": "binary",
        "spec": [{"section": D, "source": "current"}] + (extra_spec or []),
        "format_versions": versions,
    }
    for t in tests:  # each test quotes the table row of its own type
        t.setdefault("spec", row_spec(t["input"]["type"]))
    if notes:
        doc["notes"] = notes
    doc["tests"] = tests
    descs = [t["description"] for t in tests]
    assert len(descs) == len(set(descs)), [d for d in descs if descs.count(d) > 1]
    if JAVA:
        for t in tests:
            if java_agrees(t):
                t["derived"]["agreed"].append("java 1.10.2")
            else:
                print(f"  java disagrees: {t['description']}")
    (HERE / f"{name}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{name}.json: {len(tests)} tests")


def main() -> None:
    nan32_neg = bytes.fromhex("0000c0ff")
    file("numbers", "Binary single values of boolean, int, long, float and double", [
        valid("boolean", False),
        valid("boolean", True),
        valid("boolean", True, "true", data=b"\x02", roundtrip=False,
              how="any non-zero byte is true; writers write 01"),
        valid("boolean", True, "true", data=b"\xff", roundtrip=False,
              how="any non-zero byte is true; writers write 01"),
        valid("int", 0),
        valid("int", 34),
        valid("int", -1),
        valid("int", -2147483648, "min -2147483648"),
        valid("int", 2147483647, "max 2147483647"),
        valid("long", 0),
        valid("long", 34),
        valid("long", -1),
        valid("long", -9223372036854775808, "min -9223372036854775808"),
        valid("long", 9223372036854775807, "max 9223372036854775807"),
        valid("float", 1.0),
        valid("float", 0.0),
        valid("float", -0.0),
        valid("float", -1.5),
        valid("float", 3.4028234663852886e38, "max 3.4028234663852886e38"),
        valid("float", 1.401298464324817e-45, "smallest subnormal 1.4e-45"),
        valid("float", "Infinity"),
        valid("float", "-Infinity"),
        valid("float", "NaN", data=struct.pack("<f", float("nan")), roundtrip=False,
              how="IEEE 754 quiet NaN; the spec fixes no NaN bit pattern, so only reading is checked"),
        valid("float", "NaN", "NaN (sign bit set)", data=nan32_neg, roundtrip=False,
              how="IEEE 754: any exponent-all-ones, non-zero mantissa pattern is NaN"),
        valid("double", 1.0),
        valid("double", 0.0),
        valid("double", -0.0),
        valid("double", 0.1),
        valid("double", -1.2345678901234567e-300),
        valid("double", 1.7976931348623157e308, "max 1.7976931348623157e308"),
        valid("double", 5e-324, "smallest subnormal 5e-324"),
        valid("double", "Infinity"),
        valid("double", "-Infinity"),
        valid("double", "NaN", data=struct.pack("<d", float("nan")), roundtrip=False,
              how="IEEE 754 quiet NaN; the spec fixes no NaN bit pattern, so only reading is checked"),
    ], versions=[1, 2, 3])

    file("decimal", "Binary single values of decimal(P, S): minimal two's complement of the unscaled value", [
        valid("decimal(9, 2)", "14.20"),
        valid("decimal(9, 2)", "-14.20"),
        valid("decimal(4, 2)", "0.00"),
        valid("decimal(1, 0)", "0"),
        valid("decimal(3, 2)", "-0.01"),
        valid("decimal(3, 2)", "0.01"),
        valid("decimal(5, 2)", "-1.28"),
        valid("decimal(5, 2)", "1.27"),
        valid("decimal(5, 2)", "1.28"),
        valid("decimal(5, 2)", "-1.29"),
        valid("decimal(3, 0)", "255"),
        valid("decimal(3, 0)", "-256"),
        valid("decimal(5, 0)", "32767"),
        valid("decimal(5, 0)", "32768"),
        valid("decimal(5, 0)", "-32768"),
        valid("decimal(5, 0)", "-32769"),
        valid("decimal(1, 0)", "9"),
        valid("decimal(1, 0)", "-9"),
        valid("decimal(18, 0)", "999999999999999999"),
        valid("decimal(38, 0)", "9" * 38, "max 10^38-1"),
        valid("decimal(38, 0)", "-" + "9" * 38, "min -(10^38-1)"),
        valid("decimal(38, 38)", "0." + "9" * 38),
        valid("decimal(38, 10)", "-0.0000000001"),
        valid("decimal(38, 19)", "1234567890123456789.1234567890123456789"),
        valid("decimal(9, 2)", "14.20", "14.20 (padded 00 05 8c)", data=bytes.fromhex("00058c"), roundtrip=False,
              how="sign-extended bytes hold the same two's complement value; writers use the minimum (058c)"),
        valid("decimal(5, 2)", "-1.28", "-1.28 (padded ff 80)", data=bytes.fromhex("ff80"), roundtrip=False,
              how="sign-extended bytes hold the same two's complement value; writers use the minimum (80)"),
        valid("decimal(4, 2)", "0.00", "0.00 (padded 00 00)", data=bytes.fromhex("0000"), roundtrip=False,
              how="sign-extended bytes hold the same two's complement value; writers use the minimum (00)"),
        valid("decimal(38, 0)", "-1", "-1 (16 bytes ff)", data=b"\xff" * 16, roundtrip=False,
              how="a 16-byte fixed-width writer pads -1 to ff x 16; the value is still -1"),
        bad_bytes("decimal(9, 2)", b"", "binary.length",
                  "a two's complement number needs at least one byte; 0 is written as 00"),
        bad_bytes("decimal(2, 0)", bytes.fromhex("64"), "binary.decimal-precision",
                  "unscaled 100 has 3 digits: not a value of decimal(2, 0), whose precision is 2",
                  "decimal(2, 0) 64 (unscaled 100, 3 digits) is refused"),
        bad_bytes("decimal(38, 0)", bytes.fromhex("4b3b4ca85a86c47a098a224000000000"), "binary.decimal-precision",
                  "unscaled 10^38 has 39 digits; decimal precision is at most 38",
                  "decimal(38, 0) of unscaled 10^38 (39 digits) is refused"),
    ], versions=[1, 2, 3],
        notes="Reading accepts sign-extended (non-minimal) bytes: the value is unambiguous. Writers "
              "must produce the minimum number of bytes, which the round-trip tests check. "
              "Negative scales are not covered: the types of this kit require 0 <= S <= P.")

    ts = "2017-11-16T22:31:08.123456"
    file("temporal", "Binary single values of date, time and the timestamp types, incl. pre-1970 values", [
        valid("date", "1970-01-01"),
        valid("date", "2017-11-16"),
        valid("date", "1969-12-31"),
        valid("date", "1900-01-01"),
        valid("date", "0001-01-01"),
        valid("date", "9999-12-31"),
        valid("date", "+5881580-07-11", "max int day +5881580-07-11",
              how="2^31-1 days; years beyond 9999 take the ISO-8601 expanded form with a sign"),
        valid("date", "-5877641-06-23", "min int day -5877641-06-23",
              how="-2^31 days; years before 0000 take the ISO-8601 expanded form with a sign"),
        valid("time", "00:00:00.000000"),
        valid("time", "22:31:08.123456"),
        valid("time", "23:59:59.999999"),
        valid("timestamp", "1970-01-01T00:00:00.000000"),
        valid("timestamp", ts),
        valid("timestamp", "1969-12-31T23:59:59.999999"),
        valid("timestamp", "1900-01-01T00:00:00.000000"),
        valid("timestamp", "0001-01-01T00:00:00.000000"),
        valid("timestamp", "+294247-01-10T04:00:54.775807", "max long +294247-01-10T04:00:54.775807",
              how="2^63-1 microseconds; the year takes the ISO-8601 expanded form"),
        valid("timestamp", "-290308-12-21T19:59:05.224192", "min long -290308-12-21T19:59:05.224192",
              how="-2^63 microseconds; the year takes the ISO-8601 expanded form"),
        valid("timestamptz", "1970-01-01T00:00:00.000000+00:00"),
        valid("timestamptz", ts + "+00:00"),
        valid("timestamptz", "1969-12-31T23:59:59.999999+00:00"),
        valid("timestamptz", "1960-02-29T12:00:00.000001+00:00"),
        valid("timestamp_ns", "1970-01-01T00:00:00.000000000"),
        valid("timestamp_ns", "2017-11-16T22:31:08.123456789"),
        valid("timestamp_ns", "1969-12-31T23:59:59.999999999"),
        valid("timestamp_ns", "1677-09-21T00:12:43.145224192", "min 1677-09-21T00:12:43.145224192"),
        valid("timestamp_ns", "2262-04-11T23:47:16.854775807", "max 2262-04-11T23:47:16.854775807"),
        valid("timestamptz_ns", "2017-11-16T22:31:08.123456789+00:00"),
        valid("timestamptz_ns", "1969-12-31T23:59:59.999999999+00:00"),
    ], versions=[1, 2, 3],
        notes="timestamp_ns and timestamptz_ns are v3 types; their tests carry format_versions [3].")

    file("strings-and-bytes", "Binary single values of string, uuid, fixed and binary", [
        valid("string", ""),
        valid("string", "iceberg"),
        valid("string", "é", "\"é\" (U+00E9)"),
        valid("string", "😀", "U+1F600 (non-BMP, 4 UTF-8 bytes)"),
        valid("string", "a\u0000b", "\"a\\u0000b\" (embedded NUL)"),
        valid("string", "日本語"),
        valid("uuid", "f79c3e09-677c-4bbd-a479-3f349cb785e7"),
        valid("uuid", "00000000-0000-0000-0000-000000000000"),
        valid("uuid", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
        valid("fixed[4]", "000102ff"),
        valid("fixed[1]", "00"),
        valid("fixed[16]", "00112233445566778899aabbccddeeff"),
        valid("binary", ""),
        valid("binary", "000102ff"),
        valid("binary", "00"),
    ], versions=[1, 2, 3])

    file("promoted-bounds", "Bounds written before a type promotion: the old type is inferred from the length", [
        valid("long", 34, "34 (4-byte int bound)", data=i32(34), roundtrip=False,
              how="Schema Evolution table: long with 4 bytes was written as int", spec=[SE]),
        valid("long", -2147483648, "-2147483648 (4-byte int bound)", data=i32(-2147483648), roundtrip=False,
              how="Schema Evolution table: long with 4 bytes was written as int", spec=[SE]),
        valid("double", 1.5, "1.5 (4-byte float bound)", data=struct.pack("<f", 1.5), roundtrip=False,
              how="Schema Evolution table: double with 4 bytes was written as float", spec=[SE]),
        valid("double", -0.0, "-0.0 (4-byte float bound)", data=struct.pack("<f", -0.0), roundtrip=False,
              how="Schema Evolution table: double with 4 bytes was written as float", spec=[SE]),
        dict(valid("timestamp", "2017-11-16T00:00:00.000000", "2017-11-16T00:00:00.000000 (4-byte date bound)",
                   data=i32(days("2017-11-16")), roundtrip=False, spec=[SE],
                   how="Schema Evolution table (v3): timestamp with 4 bytes was written as date; "
                       "the date is midnight of that day"), format_versions=[3]),
        dict(valid("timestamp", "1969-12-31T00:00:00.000000", "1969-12-31T00:00:00.000000 (4-byte date bound)",
                   data=i32(-1), roundtrip=False, spec=[SE],
                   how="Schema Evolution table (v3): timestamp with 4 bytes was written as date"), format_versions=[3]),
        valid("decimal(38, 2)", "12.34", "12.34 (a decimal(9, 2) bound, 2 bytes)", data=min_twos(1234), spec=[SE],
              how="Schema Evolution table: a decimal(P, S) bound of any length reads as decimal(P', S), P' <= P; "
                  "the unscaled value 1234 is the same at either precision"),
        valid("decimal(38, 2)", "-0.01", "-0.01 (a decimal(3, 2) bound, 1 byte)", data=min_twos(-1), spec=[SE],
              how="Schema Evolution table: a decimal(P, S) bound of any length reads as decimal(P', S), P' <= P"),
        dict(valid("timestamp_ns", "2017-11-16T00:00:00.000000000", "2017-11-16T00:00:00.000000000 (4-byte date bound)",
                   data=i32(days("2017-11-16")), roundtrip=False, spec=[SE],
                   how="Schema Evolution table (v3): timestamp_ns with 4 bytes was written as date"),
             format_versions=[3]),
    ], versions=[1, 2, 3], extra_spec=[SE])

    length = "binary.length"
    file("invalid", "Bytes that are not the binary single value of their type", [
        bad_bytes("boolean", b"", length, "a boolean is one byte"),
        bad_bytes("boolean", b"\x00\x00", length, "a boolean is one byte"),
        bad_bytes("int", i64(34), length, "an int is 4 bytes; an int bound written 8 bytes wide is a writer bug",
                  "int 34 written 8 bytes wide (2200000000000000) is refused"),
        bad_bytes("int", b"\x22\x00\x00", length, "an int is exactly 4 bytes"),
        bad_bytes("date", i64(17486), length, "a date is a 4-byte int; 8 bytes is the int-bound-as-long bug",
                  "date 2017-11-16 written 8 bytes wide (4e44000000000000) is refused"),
        bad_bytes("long", b"\x22" + b"\x00" * 4, length, "a long is 8 bytes (4 only for a promoted int bound)"),
        bad_bytes("long", b"\x22" + b"\x00" * 8, length, "a long is exactly 8 bytes"),
        bad_bytes("float", struct.pack("<d", 1.0), length, "a float is 4 bytes"),
        bad_bytes("float", b"\x00\x00\x80", length, "a float is 4 bytes"),
        bad_bytes("double", b"\x00" * 5, length, "a double is 8 bytes (4 only for a promoted float bound)"),
        bad_bytes("time", i32(1000), length, "a time is an 8-byte long; no promotion to time exists"),
        bad_bytes("timestamptz", i32(17486), length,
                  "date may not be promoted to timestamptz, so a 4-byte timestamptz bound is invalid",
                  "timestamptz 4 bytes (a date) is refused: date -> timestamptz is no valid promotion"),
        bad_bytes("timestamp", b"\x00" * 6, length, "a timestamp is 8 bytes (4 only for a promoted date bound)"),
        bad_bytes("uuid", bytes.fromhex("f79c3e09677c4bbda4793f349cb785"), length, "a uuid is 16 bytes"),
        bad_bytes("fixed[4]", bytes.fromhex("000102"), length, "fixed[4] holds exactly 4 bytes"),
        bad_bytes("fixed[4]", bytes.fromhex("000102ff00"), length, "fixed[4] holds exactly 4 bytes"),
        bad_bytes("string", b"\xff", "binary.utf8", "strings are UTF-8; ff never occurs in UTF-8"),
        bad_bytes("string", bytes.fromhex("eda080"), "binary.utf8",
                  "ed a0 80 encodes the surrogate U+D800, which UTF-8 forbids"),
        bad_bytes("string", bytes.fromhex("c0af"), "binary.utf8", "c0 af is an overlong encoding of '/', invalid UTF-8"),
    ], versions=[1, 2, 3])

    struct_t = {"type": "struct", "fields": [{"id": 1, "name": "a", "type": "int", "required": False}]}
    list_t = {"type": "list", "element-id": 1, "element": "int", "element-required": False}
    map_t = {"type": "map", "key-id": 1, "key": "string", "value-id": 2, "value": "int", "value-required": False}
    unsupported = "binary.unsupported-type"
    file("unsupported", "Types without a binary single-value form", [
        {"description": "struct value {\"1\": 1} has no binary form", "input": {"type": struct_t, "value": {"1": 1}},
         "error": {"rule": unsupported, "reason": "struct: Not supported"},
         "derived": {"from": "spec table row struct: Not supported", "agreed": []}},
        {"description": "list value [1, 2] has no binary form", "input": {"type": list_t, "value": [1, 2]},
         "error": {"rule": unsupported, "reason": "list: Not supported"},
         "derived": {"from": "spec table row list: Not supported", "agreed": []}},
        {"description": "map value {\"a\": 1} has no binary form",
         "input": {"type": map_t, "value": {"keys": ["a"], "values": [1]}},
         "error": {"rule": unsupported, "reason": "map: Not supported"},
         "derived": {"from": "spec table row map: Not supported", "agreed": []}},
        dict(bad_bytes(struct_t, b"\x01", unsupported, "struct: Not supported", "struct bytes 01 are refused"),),
        dict(bad_bytes("unknown", b"", unsupported, "unknown: Not supported; an unknown value is always null",
                       "unknown (empty bytes) is refused"), format_versions=[3]),
        dict(bad_bytes("variant", b"\x01\x00\x00", unsupported,
                       "variant: Not supported as a single value (bounds use the Bound serialization)",
                       "variant bytes 01 00 00 are refused"), format_versions=[3]),
    ], versions=[1, 2, 3])


SE = {"section": PROMOTION[0], "quote": PROMOTION[1], "source": "current"}

if __name__ == "__main__":
    import sys

    if "--java" in sys.argv:
        from iceberg_conformance.suites.targets import load_target

        JAVA.append(load_target("java"))
    main()
