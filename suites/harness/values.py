"""JSON single values compared by meaning (Appendix D, JSON single-value serialization).

Where the spec allows more than one spelling of a value, two spellings mean the same value when
:func:`same_value` says so (plain Python, no use of ``reference/``):

* time, timestamp(tz), timestamp(tz)_ns: equal instants, any number of fraction digits up to
  the type's precision ("22:31:08" equals "22:31:08.000000": the spec asks for "ISO-8601
  standard time with microsecond precision", and ISO-8601 drops a zero fraction); a
  timestamptz must end in exactly ``+00:00`` and a timestamp must carry no offset ("must");
* float: the same binary32 value (``0.1`` equals ``0.10000000149011612``); double: the same
  binary64 value; ``-0.0`` differs from ``0.0``; NaN equals NaN;
* fixed and binary: hex compared case-insensitively (the spec says "hexadecimal string");
* struct: fields by id; a null field may be omitted; map: the same key/value pairs;
* geometry and geography: the same WKT, token by token: words (type names, ``Z``, ``M``,
  ``ZM``, ``EMPTY``) in any case, any white space around parentheses and commas, coordinates
  by their double value (``POINT(30 10)`` equals ``POINT (30.0 10.0)``; ``POINT Z (1 2 3)``
  differs from ``POINT (1 2 3)``).

Decimal, date and uuid strings are compared exactly: the spec fixes their spelling (scale
digits, ISO date, "the lowercase uuid string").
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?")
_TS = re.compile(r"([+-]?\d{4,}-\d{2}-\d{2})T([0-9:.]+)(.*)")
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _base(t: Any) -> str:
    return str(t["type"]) if isinstance(t, dict) else str(t).split("(")[0].split("[")[0]


def _time_units(text: Any, digits: int) -> int | None:
    """Units (10^-digits s) from midnight of ``HH:MM[:SS[.f]]``; None if not that form."""
    m = _TIME.fullmatch(text) if isinstance(text, str) else None
    if m is None or (m.group(4) and len(m.group(4)) > digits):
        return None
    seconds = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)
    return seconds * 10**digits + int((m.group(4) or "").ljust(digits, "0"))


def _timestamp(text: Any, digits: int, tz: bool) -> tuple[str, int] | None:
    m = _TS.fullmatch(text) if isinstance(text, str) else None
    if m is None or m.group(3) != ("+00:00" if tz else ""):
        return None
    units = _time_units(m.group(2), digits)
    return None if units is None else (m.group(1), units)


def _float(v: Any, fmt: str) -> bytes | None:
    v = _SPECIAL.get(v, v) if isinstance(v, str) else v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if v != v:
        return b"nan"
    try:
        return struct.pack(fmt, float(v))
    except OverflowError:
        return None


_WKT_TOKEN = re.compile(r"\s*(?:([A-Za-z]+)|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|([(),]))")


def _wkt_tokens(text: Any) -> list[Any] | None:
    """WKT as tokens: upper-case words, numbers as floats, punctuation; None if not WKT-like."""
    if not isinstance(text, str):
        return None
    out: list[Any] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        m = _WKT_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        word, number, mark = m.groups()
        out.append(word.upper() if word else float(number) if number else mark)
        pos = m.end()
    return out


def same_value(t: Any, expected: Any, actual: Any) -> bool:
    """Whether JSON single values ``expected`` and ``actual`` of type ``t`` mean the same."""
    if expected is None or actual is None:
        return expected is None and actual is None
    b = _base(t)
    if b == "struct":
        if not isinstance(actual, dict):
            return False
        ids = {str(f["id"]): f["type"] for f in t["fields"]}
        if set(actual) - set(ids):
            return False
        return all(same_value(ft, expected.get(k), actual.get(k)) for k, ft in ids.items())
    if b == "list":
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(same_value(t["element"], e, a) for e, a in zip(expected, actual)))
    if b == "map":
        if not isinstance(actual, dict) or set(actual) != {"keys", "values"}:
            return False
        ek, ev, ak, av = expected["keys"], expected["values"], actual["keys"], actual["values"]
        if not isinstance(ak, list) or not isinstance(av, list) or len(ak) != len(ek) or len(av) != len(ak):
            return False
        unmatched = list(zip(ak, av))
        for k, v in zip(ek, ev):
            hit = next((p for p in unmatched if same_value(t["key"], k, p[0])
                        and same_value(t["value"], v, p[1])), None)
            if hit is None:
                return False
            unmatched.remove(hit)
        return True
    if b == "time":
        return _time_units(actual, 6) is not None and _time_units(actual, 6) == _time_units(expected, 6)
    if b in ("timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"):
        digits, tz = (9 if b.endswith("_ns") else 6), b.startswith("timestamptz")
        got = _timestamp(actual, digits, tz)
        return got is not None and got == _timestamp(expected, digits, tz)
    if b in ("float", "double"):
        fmt = "<f" if b == "float" else "<d"
        bits = _float(actual, fmt)
        return bits is not None and bits == _float(expected, fmt)
    if b in ("fixed", "binary"):
        return isinstance(actual, str) and actual.lower() == str(expected).lower()
    if b in ("boolean", "int", "long"):
        return type(actual) is type(expected) and actual == expected
    if b in ("geometry", "geography"):
        tokens = _wkt_tokens(actual)
        return tokens is not None and tokens == _wkt_tokens(expected)
    return isinstance(actual, str) and actual == expected
