"""JSON single-value serialization: values of Iceberg types to and from their JSON form.

Spec section: "Appendix D: Single-value serialization / JSON single-value serialization"
(current spec; the v1 seed has no such section). Values live in the reference as their
physical Python form:

===================  ====================================================
type                 Python value
===================  ====================================================
boolean              ``bool``
int, long            ``int`` (range-checked)
float, double        ``float`` (float: representable in binary32)
decimal(P, S)        ``decimal.Decimal`` with exponent ``-S``
date                 ``int`` days from 1970-01-01
time                 ``int`` microseconds from midnight
timestamp(tz)        ``int`` microseconds from 1970-01-01T00:00:00 (UTC)
timestamp(tz)_ns     ``int`` nanoseconds from 1970-01-01T00:00:00 (UTC)
string               ``str``
uuid                 ``uuid.UUID``
fixed(L), binary     ``bytes``
geometry, geography  ``bytes`` (WKB; the JSON form is WKT, see :mod:`reference.geo`)
struct, list, map    ``dict`` by field id, ``list``, ``dict`` of keys to values
===================  ====================================================

JSON has no NaN or infinities; this kit writes them as the strings ``"NaN"``,
``"Infinity"`` and ``"-Infinity"`` (an extension the spec does not define).

Decisions where the spec leaves room:

* timestamptz / timestamptz_ns: the spec says the offset "must be '+00:00'", so ``Z``,
  ``-00:00`` and every other offset are refused (``values.timestamp-offset``), as is an offset
  on a timestamp without zone; writers write ``+00:00``.
* time and timestamps: reading accepts 0 to 6 (9 for ``_ns``) fraction digits and a missing
  seconds part; writing always gives 6 (9) digits.
* float: a JSON number is rounded to the nearest binary32 value (``0.1`` reads as 0.1f);
  writing gives the shortest decimal that reads back as the same binary32 value.
* decimal: written in plain notation with exactly S fraction digits, also for 38 digits and
  for small values (never ``1E-10``).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import struct
import uuid
from decimal import Context, Decimal, InvalidOperation
from functools import singledispatch
from typing import Any

from .errors import SpecViolation
from .geo import wkb_from_wkt, wkt_from_wkb
from .types import (
    JSON, BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    GeographyType, GeometryType, IcebergType, IntegerType, ListType, LongType, MapType, StringType, StructType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType,
    UnknownType,
)

CLAUSE = "Appendix D: Single-value serialization / JSON single-value serialization"
EPOCH_DATE = dt.date(1970, 1, 1)
INT_RANGE = (-(2**31), 2**31 - 1)
LONG_RANGE = (-(2**63), 2**63 - 1)
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _bad(t: IcebergType, value: Any, why: str) -> SpecViolation:
    return SpecViolation("values.json-form", f"{value!r} is not a {t} JSON value: {why}", clause=CLAUSE)


def _int_in(t: IcebergType, v: Any, bounds: tuple[int, int]) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(t, v, "expected a JSON integer")
    if not bounds[0] <= v <= bounds[1]:
        raise _bad(t, v, f"out of range {bounds[0]}..{bounds[1]}")
    return v


def float_value(t: IcebergType, v: Any) -> float:
    """A float or double from a JSON number (or the NaN/Infinity strings of this kit)."""
    if isinstance(v, str) and v in _NON_FINITE:
        return _NON_FINITE[v]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _bad(t, v, "expected a JSON number")
    f = float(v)
    if isinstance(t, FloatType) and math.isfinite(f):
        # A JSON number is decimal text: a float is the nearest binary32 value (0.1 -> 0.1f).
        try:
            f = float(struct.unpack("<f", struct.pack("<f", f))[0])
        except OverflowError:
            raise _bad(t, v, "outside the range of a 32-bit float") from None
    return f


def shortest_float32(f: float) -> float:
    """The double with the fewest significant digits that rounds to binary32 ``f`` (0.1f -> 0.1)."""
    if not math.isfinite(f) or f == 0.0:
        return f
    for digits in range(1, 10):
        candidate = float(f"{f:.{digits}g}")
        try:
            if struct.unpack("<f", struct.pack("<f", candidate))[0] == f:
                return candidate
        except OverflowError:  # rounding up past the largest float
            continue
    return f


_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?")
_TS = re.compile(r"([+-]?\d{4,})-(\d{2})-(\d{2})T(.+?)(Z|[+-]\d{2}:\d{2})?")


def _fraction(digits: str | None, unit_digits: int, t: IcebergType, v: Any) -> int:
    if not digits:
        return 0
    if len(digits) > unit_digits:
        if digits[unit_digits:].strip("0"):
            raise _bad(t, v, f"more precision than {unit_digits} fractional digits")
        digits = digits[:unit_digits]
    return int(digits.ljust(unit_digits, "0"))


def parse_time(t: IcebergType, v: Any, unit_digits: int = 6) -> int:
    """Time of day in units of 10^-unit_digits s from ``HH:MM[:SS[.fff...]]``."""
    if not isinstance(v, str) or not (m := _TIME.fullmatch(v)):
        raise _bad(t, v, "expected an ISO-8601 time HH:MM:SS[.ffffff]")
    h, mi, s = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    if h > 23 or mi > 59 or s > 59:
        raise _bad(t, v, "hour, minute or second out of range")
    scale: int = 10**unit_digits
    return (h * 3600 + mi * 60 + s) * scale + _fraction(m.group(4), unit_digits, t, v)


_DATE = re.compile(r"([+-]?)(\d{4,})-(\d{2})-(\d{2})")


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 of a proleptic Gregorian date, for any year (not just 1..9999)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01 (proleptic Gregorian, any year)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def format_date(days: int) -> str:
    """ISO-8601 date; years outside 0000..9999 use the expanded form with a sign
    (``+10000-01-01``, ``-0001-12-31``), as ``java.time`` writes them."""
    y, m, d = civil_from_days(days)
    year = f"{y:04d}" if 0 <= y <= 9999 else f"{'+' if y > 0 else '-'}{abs(y):04d}"
    return f"{year}-{m:02d}-{d:02d}"


def parse_date(t: IcebergType, v: Any) -> int:
    """Days from 1970-01-01 of ``YYYY-MM-DD`` (or an expanded year ``+YYYYY``/``-YYYY``)."""
    m = _DATE.fullmatch(v) if isinstance(v, str) else None
    if m is None or (len(m.group(2)) > 4 and not m.group(1)) or (m.group(1) == "+" and len(m.group(2)) == 4):
        raise _bad(t, v, "expected an ISO-8601 date YYYY-MM-DD")
    year = int(m.group(1) + m.group(2))
    month, day = int(m.group(3)), int(m.group(4))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    length = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not 1 <= month <= 12 or not 1 <= day <= length[month - 1]:
        raise _bad(t, v, "month or day out of range")
    days = days_from_civil(year, month, day)
    if not INT_RANGE[0] <= days <= INT_RANGE[1]:
        raise _bad(t, v, "outside the range of a date (a 32-bit day count)")
    return days


def parse_timestamp(t: IcebergType, v: Any, *, tz: bool, unit_digits: int) -> int:
    """Units from the epoch; ``tz`` requires an offset, which the spec says is ``+00:00``."""
    if not isinstance(v, str) or not (m := _TS.fullmatch(v)):
        raise _bad(t, v, "expected an ISO-8601 timestamp YYYY-MM-DDTHH:MM:SS[.f]")
    offset = m.group(5)
    # "must include a zone offset and it must be '+00:00'" / "must not include a zone offset":
    # Z, -00:00 and other offsets are not the spec's form, so they are refused.
    if tz and offset != "+00:00":
        raise SpecViolation(
            "values.timestamp-offset",
            f"{v!r} is not a {t} JSON value: the zone offset must be +00:00"
            + (f", got {offset!r}" if offset else ", got none"),
            clause=CLAUSE,
        )
    if not tz and offset is not None:
        raise SpecViolation(
            "values.timestamp-offset",
            f"{v!r} is not a {t} JSON value: a timestamp without time zone must not include "
            f"a zone offset, got {offset!r}",
            clause=CLAUSE,
        )
    days = parse_date(t, f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
    scale: int = 10**unit_digits
    units = days * 86400 * scale + parse_time(t, m.group(4), unit_digits)
    if not LONG_RANGE[0] <= units <= LONG_RANGE[1]:
        raise _bad(t, v, "outside the range of a timestamp (a 64-bit count from the epoch)")
    return units


def parse_decimal(t: DecimalType, v: Any) -> Decimal:
    if not isinstance(v, str):
        raise _bad(t, v, "a decimal is a JSON string")
    try:
        d = Decimal(v)
    except InvalidOperation:
        raise _bad(t, v, "not a decimal number") from None
    if not d.is_finite():
        raise _bad(t, v, "not a finite decimal")
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    if -exponent != t.scale:
        raise _bad(t, v, f"has scale {-exponent}, the type's scale is {t.scale}")
    if len(d.as_tuple().digits) > t.precision and d != 0:
        raise _bad(t, v, f"has more than {t.precision} digits")
    return d


def parse_hex(t: IcebergType, v: Any) -> bytes:
    if not isinstance(v, str) or len(v) % 2 or not re.fullmatch(r"[0-9a-fA-F]*", v):
        raise _bad(t, v, "expected a hexadecimal string")
    data = bytes.fromhex(v)
    if isinstance(t, FixedType) and len(data) != t.length:
        raise _bad(t, v, f"fixed[{t.length}] holds exactly {t.length} bytes, got {len(data)}")
    return data


@singledispatch
def from_json(t: IcebergType, v: JSON) -> Any:
    """The Python value of JSON single-value ``v`` of type ``t`` (``None`` for JSON null)."""
    raise SpecViolation("values.unsupported-type", f"no JSON single-value form for {t}", clause=CLAUSE)


def value_from_json(t: IcebergType, v: JSON) -> Any:
    """Like :func:`from_json` but with null passed through for every type."""
    return None if v is None else from_json(t, v)


@from_json.register
def _(t: BooleanType, v: JSON) -> bool:
    if not isinstance(v, bool):
        raise _bad(t, v, "expected true or false")
    return v


@from_json.register
def _(t: IntegerType, v: JSON) -> int:
    return _int_in(t, v, INT_RANGE)


@from_json.register
def _(t: LongType, v: JSON) -> int:
    return _int_in(t, v, LONG_RANGE)


@from_json.register(FloatType)
@from_json.register(DoubleType)
def _(t: IcebergType, v: JSON) -> float:
    return float_value(t, v)


@from_json.register
def _(t: DecimalType, v: JSON) -> Decimal:
    return parse_decimal(t, v)


@from_json.register
def _(t: DateType, v: JSON) -> int:
    return parse_date(t, v)


@from_json.register
def _(t: TimeType, v: JSON) -> int:
    return parse_time(t, v)


@from_json.register
def _(t: TimestampType, v: JSON) -> int:
    return parse_timestamp(t, v, tz=False, unit_digits=6)


@from_json.register
def _(t: TimestamptzType, v: JSON) -> int:
    return parse_timestamp(t, v, tz=True, unit_digits=6)


@from_json.register
def _(t: TimestampNanoType, v: JSON) -> int:
    return parse_timestamp(t, v, tz=False, unit_digits=9)


@from_json.register
def _(t: TimestamptzNanoType, v: JSON) -> int:
    return parse_timestamp(t, v, tz=True, unit_digits=9)


@from_json.register
def _(t: StringType, v: JSON) -> str:
    if not isinstance(v, str):
        raise _bad(t, v, "expected a JSON string")
    return v


@from_json.register
def _(t: UUIDType, v: JSON) -> uuid.UUID:
    if not isinstance(v, str) or not re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", v):
        raise _bad(t, v, "expected a UUID string 8-4-4-4-12")
    return uuid.UUID(v)


@from_json.register(FixedType)
@from_json.register(BinaryType)
def _(t: IcebergType, v: JSON) -> bytes:
    return parse_hex(t, v)


@from_json.register(GeometryType)
@from_json.register(GeographyType)
def _(t: IcebergType, v: JSON) -> bytes:
    return wkb_from_wkt(t, v)  # "Stored using WKT representation"


@from_json.register
def _(t: UnknownType, v: JSON) -> None:
    raise _bad(t, v, "an unknown-typed value is always null")


@from_json.register
def _(t: StructType, v: JSON) -> dict[int, Any]:
    if not isinstance(v, dict):
        raise _bad(t, v, "a struct is a JSON object keyed by field id")
    out = {}
    for f in t.fields:
        key = str(f.field_id)
        out[f.field_id] = value_from_json(f.field_type, v.get(key))
    unknown = set(v) - {str(f.field_id) for f in t.fields}
    if unknown:
        raise _bad(t, v, f"keys {sorted(unknown)} are not field ids of the struct")
    return out


@from_json.register
def _(t: ListType, v: JSON) -> list[Any]:
    if not isinstance(v, list):
        raise _bad(t, v, "a list is a JSON array")
    return [value_from_json(t.element_type, e) for e in v]


@from_json.register
def _(t: MapType, v: JSON) -> dict[Any, Any]:
    if not isinstance(v, dict) or set(v) != {"keys", "values"}:
        raise _bad(t, v, 'a map is a JSON object {"keys": [...], "values": [...]}')
    keys, values = v["keys"], v["values"]
    if not isinstance(keys, list) or not isinstance(values, list) or len(keys) != len(values):
        raise _bad(t, v, "keys and values are arrays of equal length")
    return {from_json(t.key_type, k): value_from_json(t.value_type, x) for k, x in zip(keys, values)}


# --- writing ---------------------------------------------------------------------------

def _format_time(units: int, unit_digits: int) -> str:
    seconds, frac = divmod(units, 10**unit_digits)
    h, rem = divmod(seconds, 3600)
    return f"{h:02d}:{rem // 60:02d}:{rem % 60:02d}.{frac:0{unit_digits}d}"


def _format_timestamp(units: int, unit_digits: int, tz: bool) -> str:
    days, in_day = divmod(units, 86400 * 10**unit_digits)
    return f"{format_date(days)}T{_format_time(in_day, unit_digits)}" + ("+00:00" if tz else "")


def _format_float(f: float) -> JSON:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    return f


@singledispatch
def to_json(t: IcebergType, v: Any) -> JSON:
    """The JSON single-value form of Python value ``v`` of type ``t`` (``None`` stays null)."""
    raise SpecViolation("values.unsupported-type", f"no JSON single-value form for {t}", clause=CLAUSE)


def value_to_json(t: IcebergType, v: Any) -> JSON:
    return None if v is None else to_json(t, v)


@to_json.register(BooleanType)
@to_json.register(IntegerType)
@to_json.register(LongType)
@to_json.register(StringType)
def _(t: IcebergType, v: Any) -> JSON:
    return v  # type: ignore[no-any-return]


@to_json.register
def _(t: FloatType, v: float) -> JSON:
    return _format_float(shortest_float32(v))


@to_json.register
def _(t: DoubleType, v: float) -> JSON:
    return _format_float(v)


@to_json.register
def _(t: DecimalType, v: Decimal) -> JSON:
    # quantize under a context wide enough for 38 digits (the default context has 28)
    quantized = v.quantize(Decimal(1).scaleb(-t.scale), context=Context(prec=80)) if t.scale >= 0 else v
    # "f" keeps plain notation with exactly S fraction digits (str() would give 1E-10)
    return f"{quantized:f}" if t.scale >= 0 else f"{v:E}"


@to_json.register
def _(t: DateType, v: int) -> JSON:
    return format_date(v)


@to_json.register
def _(t: TimeType, v: int) -> JSON:
    return _format_time(v, 6)


@to_json.register
def _(t: TimestampType, v: int) -> JSON:
    return _format_timestamp(v, 6, tz=False)


@to_json.register
def _(t: TimestamptzType, v: int) -> JSON:
    return _format_timestamp(v, 6, tz=True)


@to_json.register
def _(t: TimestampNanoType, v: int) -> JSON:
    return _format_timestamp(v, 9, tz=False)


@to_json.register
def _(t: TimestamptzNanoType, v: int) -> JSON:
    return _format_timestamp(v, 9, tz=True)


@to_json.register
def _(t: UUIDType, v: uuid.UUID) -> JSON:
    return str(v)


@to_json.register(FixedType)
@to_json.register(BinaryType)
def _(t: IcebergType, v: bytes) -> JSON:
    return v.hex()


@to_json.register(GeometryType)
@to_json.register(GeographyType)
def _(t: IcebergType, v: bytes) -> JSON:
    return wkt_from_wkb(t, v)


@to_json.register
def _(t: StructType, v: dict[int, Any]) -> JSON:
    return {str(f.field_id): value_to_json(f.field_type, v.get(f.field_id)) for f in t.fields}


@to_json.register
def _(t: ListType, v: list[Any]) -> JSON:
    return [value_to_json(t.element_type, e) for e in v]


@to_json.register
def _(t: MapType, v: dict[Any, Any]) -> JSON:
    return {"keys": [to_json(t.key_type, k) for k in v],
            "values": [value_to_json(t.value_type, x) for x in v.values()]}
