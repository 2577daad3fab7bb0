"""Rows as engines return them, in the canonical JSON form they are compared in.

An engine's rows are Python values (Arrow's ``to_pylist`` form); :func:`canonical` turns such a
value into the spec's JSON single-value form (Appendix D) using the Iceberg type from the table
metadata, the same form ``expected/<name>.json`` holds: timestamps with 6 fraction digits
(``+00:00`` for timestamptz), decimals with their scale, binary as lowercase hex, structs keyed
by field id, maps as ``{"keys": [...], "values": [...]}``, NaN and infinities as strings.
Rows are compared as multisets (:func:`diff_rows`).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import uuid
from decimal import Decimal, localcontext
from typing import Any

EPOCH = _dt.datetime(1970, 1, 1)
EPOCH_TZ = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)

def _micros_text(micros: int) -> str:
    d = EPOCH + _dt.timedelta(microseconds=micros)
    return d.strftime("%Y-%m-%dT%H:%M:%S.%f") if d.year >= 1000 else (
        f"{d.year:04d}-" + d.strftime("%m-%dT%H:%M:%S.%f"))


def canonical(t: Any, v: Any) -> Any:
    """Python value ``v`` read from a column of Iceberg type ``t`` -> spec JSON single-value form."""
    if v is None:
        return None
    if isinstance(t, dict):
        kind = t["type"]
        if kind == "struct":
            if not isinstance(v, dict):
                raise TypeError(f"struct value is {type(v).__name__}")
            return {str(f["id"]): canonical(f["type"], v.get(f["name"])) for f in t["fields"]}
        if kind == "list":
            return [canonical(t["element"], e) for e in v]
        if kind == "map":
            # a dict, (key, value) pairs, or {"key": k, "value": v} entries (a map as a list of structs)
            pairs = list(v.items()) if isinstance(v, dict) else [
                (p["key"], p["value"]) if isinstance(p, dict) else tuple(p) for p in v]
            return {"keys": [canonical(t["key"], k) for k, _ in pairs],
                    "values": [canonical(t["value"], x) for _, x in pairs]}
        raise TypeError(f"unknown type {kind}")
    if t in ("float", "double"):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "Infinity" if f > 0 else "-Infinity"
        if t == "float":   # the shortest decimal that reads back as the same float (not its double's)
            import numpy

            return float(str(numpy.float32(f)))
        return f
    if t in ("int", "long"):
        return int(v)
    if t == "boolean":
        return bool(v)
    if t.startswith("decimal("):
        scale = int(t[len("decimal("):-1].split(",")[1])
        d = v if isinstance(v, Decimal) else Decimal(str(v))
        with localcontext() as ctx:
            ctx.prec = 100          # decimal(38, s) needs more than the default 28 digits
            return f"{d.quantize(Decimal(1).scaleb(-scale)):f}"
    if t == "date":
        if isinstance(v, _dt.datetime):
            v = v.date()
        return f"{v.year:04d}-{v.month:02d}-{v.day:02d}"
    if t == "timestamp":
        if isinstance(v, _dt.datetime):
            if v.tzinfo is not None:      # some readers hand back UTC-aware values
                v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            return _micros_text((v - EPOCH) // _dt.timedelta(microseconds=1))
        return _micros_text(int(v))
    if t == "timestamptz":
        if isinstance(v, _dt.datetime):
            if v.tzinfo is None:
                v = v.replace(tzinfo=_dt.timezone.utc)
            return _micros_text((v - EPOCH_TZ) // _dt.timedelta(microseconds=1)) + "+00:00"
        return _micros_text(int(v)) + "+00:00"
    if t in ("timestamp_ns", "timestamptz_ns"):   # read as int64 nanoseconds (see arrow_rows)
        if isinstance(v, _dt.datetime):            # a reader that hands back a datetime (microseconds)
            if v.tzinfo is not None:
                v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            v = (v - EPOCH) // _dt.timedelta(microseconds=1) * 1000
        secs, nanos = divmod(int(v), 1_000_000_000)
        text = _micros_text(secs * 1_000_000)[:-7] + f".{nanos:09d}"
        return text + "+00:00" if t == "timestamptz_ns" else text
    if t == "unknown":
        raise TypeError(f"an unknown-typed column holds {v!r}, not null")
    if t == "string":   # some readers hand back the UTF-8 bytes (ClickHouse's String is bytes)
        return bytes(v).decode("utf-8") if isinstance(v, (bytes, bytearray)) else str(v)
    if t == "uuid":
        return str(uuid.UUID(bytes=bytes(v))) if isinstance(v, (bytes, bytearray)) else str(v).lower()
    if t == "binary" or t.startswith("fixed["):
        return bytes(v).hex()
    if t == "time":
        if isinstance(v, _dt.time):
            return v.strftime("%H:%M:%S.%f")
        return _micros_text(int(v))[11:]
    raise TypeError(f"no canonical form for type {t!r}")


def canonical_rows(schema: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows keyed by top-level column name, values canonical; columns absent from the schema are
    kept under their name (so an extra column shows up in the diff)."""
    by_name = {f["name"]: f for f in schema["fields"]}
    out = []
    for r in rows:
        out.append({k: canonical(by_name[k]["type"], v) if k in by_name else v for k, v in r.items()})
    return out


def _row_key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def diff_rows(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    """Multiset difference of two row lists, as readable lines ([] when equal); the missing and
    the unexpected rows are each sorted, so the lines do not depend on the order rows were read in."""
    lines = []
    exp_cols = sorted({k for r in expected for k in r})
    act_cols = sorted({k for r in actual for k in r})
    if actual and exp_cols and exp_cols != act_cols:
        lines.append(f"columns: expected {exp_cols}, read {act_cols}")
    remaining: dict[str, int] = {}
    for r in actual:
        remaining[_row_key(r)] = remaining.get(_row_key(r), 0) + 1
    missing = []
    for r in expected:
        k = _row_key(r)
        if remaining.get(k):
            remaining[k] -= 1
        else:
            missing.append(k)
    extra = [k for k, n in remaining.items() for _ in range(n)]
    if len(expected) != len(actual):
        lines.append(f"row count: expected {len(expected)}, read {len(actual)}")
    lines += [f"  - missing:    {k}" for k in sorted(missing)]
    lines += [f"  + unexpected: {k}" for k in sorted(extra)]
    return lines


# --- readers -----------------------------------------------------------------------------

def arrow_rows(table: Any) -> list[dict[str, Any]]:
    """An Arrow table's rows; nanosecond timestamps as int64 (Python's datetime has microseconds)."""
    import pyarrow as pa

    for i, f in enumerate(table.schema):
        if pa.types.is_timestamp(f.type) and f.type.unit == "ns":
            table = table.set_column(i, f.name, table.column(i).cast(pa.int64()))
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows

