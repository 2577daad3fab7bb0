"""Readers the golden tables are checked with, and the canonical JSON their rows are compared in.

Each reader takes the table's metadata file and a snapshot id and returns the snapshot's rows
as Python values (Arrow's ``to_pylist`` form); :func:`canonical` turns such a value into the
spec's JSON single-value form (Appendix D) using the Iceberg type from the table metadata, the
same form ``expected/<name>.json`` holds: timestamps with 6 fraction digits (``+00:00`` for
timestamptz), decimals with their scale, binary as lowercase hex, structs keyed by field id,
maps as ``{"keys": [...], "values": [...]}``, NaN and infinities as strings.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import multiprocessing
import uuid
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from decimal import Decimal, localcontext
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, TypeVar

EPOCH = _dt.datetime(1970, 1, 1)
EPOCH_TZ = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class ReaderUnavailable(Exception):
    """The reader's library is not installed (the test skips with this reason)."""


class ReaderCrashed(Exception):
    """The engine's process died while reading (a native crash) or did not answer in time: that
    read fails, the test session goes on."""


T = TypeVar("T")
#: seconds an isolated read may take before its process is killed
ISOLATED_TIMEOUT = 600.0
_POOLS: dict[str, ProcessPoolExecutor] = {}


def _drop_pool(name: str, kill: bool) -> None:
    pool = _POOLS.pop(name, None)
    if pool is None:
        return
    if kill:   # a hung engine: end its process, shutdown() would wait for it
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def isolated(name: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker process kept for engine ``name``, so that a native crash of the
    engine (DuckDB 1.5.5 ends its process with a segmentation fault on some valid tables) fails
    this read with :class:`ReaderCrashed` instead of ending the test session. ``fn`` must be a
    module-level function; the worker is started (spawn) on first use and again after a crash."""
    pool = _POOLS.get(name)
    if pool is None:
        pool = _POOLS[name] = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        return pool.submit(fn, *args).result(timeout=ISOLATED_TIMEOUT)
    except BrokenProcessPool:
        _drop_pool(name, kill=False)
        raise ReaderCrashed(f"{name}'s process ended abruptly while reading (a native crash such as a "
                            "segmentation fault)") from None
    except FutureTimeout:
        _drop_pool(name, kill=True)
        raise ReaderCrashed(f"{name} did not answer within {ISOLATED_TIMEOUT:.0f} s; its process was killed") from None


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


def read_pyiceberg(metadata: Path, snapshot_id: int) -> list[dict[str, Any]]:
    try:
        from pyiceberg.table import StaticTable
    except ImportError:
        raise ReaderUnavailable("pyiceberg is not installed (pip install 'iceberg-conformance[pyiceberg]')") from None
    table = StaticTable.from_metadata(str(metadata))
    return arrow_rows(table.scan(snapshot_id=snapshot_id).to_arrow())


def _duckdb() -> Any:
    try:
        import duckdb
        import duckdb_extension_avro
        import duckdb_extension_iceberg
    except ImportError:
        raise ReaderUnavailable("duckdb with its avro/iceberg extension wheels is not installed "
                                "(pip install 'iceberg-conformance[duckdb]')") from None
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for pkg, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        files = sorted(Path(pkg.__file__).parent.glob(f"extensions/*/{name}.duckdb_extension"))
        if not files:
            raise ReaderUnavailable(f"the DuckDB {name} extension file is missing from {pkg.__file__}")
        con.execute(f"LOAD '{files[-1]}'")
    return con


def read_duckdb(metadata: Path, snapshot_id: int, where: str = "", reuse: bool = False) -> list[dict[str, Any]]:
    """The rows DuckDB's ``iceberg_scan`` returns, with an SQL ``WHERE`` condition when given
    (:func:`duckdb_where` writes one from a predicate), read in a process of its own
    (:func:`isolated`). ``reuse``: read through one connection kept in that process (loading the
    extensions costs more than a small scan); otherwise each read opens and closes its own."""
    _duckdb_here()       # ReaderUnavailable here, in this process, when DuckDB is missing
    return isolated("duckdb", _read_duckdb_here, metadata, snapshot_id, where, reuse)


@lru_cache(maxsize=1)
def _duckdb_here() -> None:
    _duckdb().close()


@lru_cache(maxsize=1)
def _kept_connection() -> Any:
    return _duckdb()


def _read_duckdb_here(metadata: Path, snapshot_id: int, where: str = "", reuse: bool = False) -> list[dict[str, Any]]:
    own = not reuse
    con = _duckdb() if own else _kept_connection()
    try:
        path = str(metadata).replace("'", "''")
        sql = f"SELECT * FROM iceberg_scan('{path}', snapshot_from_id => {int(snapshot_id)})"
        if where:
            con.execute("SET TimeZone = 'UTC'")
            sql += f" WHERE {where}"
        result = con.execute(sql)
        return arrow_rows(result.to_arrow_table())
    finally:
        if own:
            con.close()


class Untranslatable(Exception):
    """A predicate with no SQL translation here (the reader reports UNSUPPORTED)."""


_SQL_TYPES = {"int": "INTEGER", "long": "BIGINT", "float": "FLOAT", "double": "DOUBLE", "date": "DATE",
              "timestamp": "TIMESTAMP", "timestamptz": "TIMESTAMPTZ", "string": "VARCHAR", "boolean": "BOOLEAN"}
_SQL_CMP = {"lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">=", "eq": "=", "not-eq": "<>"}


def _sql_literal(t: str, v: Any) -> str:
    if isinstance(v, dict) and v.get("type") == "literal" and "data-type" not in v:
        v = v.get("value")
    if isinstance(v, dict) or v is None:
        raise Untranslatable(f"constant {v!r}")
    if t == "boolean":
        if not isinstance(v, bool):
            raise Untranslatable(f"{v!r} for a boolean column")
        return "TRUE" if v else "FALSE"
    if t.startswith("decimal("):
        return f"CAST('{v}' AS DECIMAL{t[len('decimal'):]})"
    if t not in _SQL_TYPES:
        raise Untranslatable(f"no SQL literal for type {t}")
    if t in ("int", "long", "float", "double"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Untranslatable(f"{v!r} for a {t} column")
        # an integer constant keeps its own type (3000000000 against an int column compares as
        # a bigint, as binding promotes the column); a float constant is the column's type
        return repr(v) if isinstance(v, int) else f"CAST({v!r} AS {_SQL_TYPES[t]})"
    text = str(v).replace("'", "''")
    return f"CAST('{text}' AS {_SQL_TYPES[t]})"


def duckdb_where(schema: dict[str, Any], expr: Any) -> str:
    """An SQL condition with the meaning of the predicate ``expr`` (JSON form of
    ``format/expressions-spec.md``) on top-level columns of ``schema``, in the spec's two-valued
    logic, written so that DuckDB can push it into ``iceberg_scan``: plain comparisons where SQL's
    unknown (a null operand) means false, which ``WHERE``, ``AND`` and ``OR`` keep; ``not-eq``,
    ``not-in``, ``not-nan``, ``not-starts-with`` hold for null (``OR col IS NULL``); ``not`` of a
    part makes that part two-valued first (``NOT coalesce(part, FALSE)``); an order comparison
    of a float column is false for NaN (SQL orders NaN above every number). :class:`Untranslatable`
    for the rest (transforms, nested columns, types without an SQL literal here)."""
    if isinstance(expr, bool):
        return "TRUE" if expr else "FALSE"
    if not isinstance(expr, dict):
        raise Untranslatable(f"predicate {expr!r}")
    kind = expr.get("type")
    if kind in ("and", "or"):
        return f"({duckdb_where(schema, expr['left'])} {kind.upper()} {duckdb_where(schema, expr['right'])})"
    if kind == "not":
        return f"(NOT coalesce({duckdb_where(schema, expr['child'])}, FALSE))"
    if "term" in expr:
        raise Untranslatable("the deprecated term form")
    ref = expr.get("child", expr.get("left"))
    if not (isinstance(ref, dict) and ref.get("type") == "reference" and isinstance(ref.get("name"), str)):
        raise Untranslatable(f"a test of {ref!r} (only column references are translated)")
    by_name = {f["name"]: f for f in schema["fields"]}
    if ref["name"] not in by_name:
        raise Untranslatable(f"no top-level column {ref['name']!r}")
    t = by_name[ref["name"]]["type"]
    if not isinstance(t, str):
        raise Untranslatable(f"column {ref['name']!r} is nested")
    col = '"' + ref["name"].replace('"', '""') + '"'
    or_null = f" OR {col} IS NULL"
    if kind == "is-null":
        return f"({col} IS NULL)"
    if kind == "not-null":
        return f"({col} IS NOT NULL)"
    if kind == "is-nan":
        return f"isnan({col})"
    if kind == "not-nan":
        return f"(NOT isnan({col}){or_null})"
    if kind in ("in", "not-in"):
        values = expr.get("values")
        if not isinstance(values, list) or not values:
            raise Untranslatable(f"values {values!r}")
        listed = ", ".join(_sql_literal(t, v) for v in values)
        return f"({col} IN ({listed}))" if kind == "in" else f"({col} NOT IN ({listed}){or_null})"
    if kind in ("starts-with", "not-starts-with"):
        if t != "string":
            raise Untranslatable(f"{kind} of a {t} column")
        test = f"starts_with({col}, {_sql_literal(t, expr['right'])})"
        return f"({test})" if kind == "starts-with" else f"(NOT {test}{or_null})"
    if kind in _SQL_CMP:
        lit = _sql_literal(t, expr["right"])
        if kind == "not-eq":
            return f"({col} <> {lit}{or_null})"
        nan_guard = f" AND NOT isnan({col})" if t in ("float", "double") and kind != "eq" else ""
        return f"({col} {_SQL_CMP[kind]} {lit}{nan_guard})"
    raise Untranslatable(f"predicate type {kind!r}")


class JavaError(Exception):
    """An exception of Iceberg Java inside Spark, told by its root cause: py4j's own message
    names a per-session object id and Spark's wrapper ("INTERNAL_ERROR ... You hit a bug"), which
    say nothing of what failed and differ from run to run."""


def _root_cause(e: BaseException) -> str | None:
    java = getattr(e, "java_exception", None)
    if java is None:
        return None
    while java.getCause() is not None:
        java = java.getCause()
    return f"{java.getClass().getName()}: {java.getMessage()}"


def read_spark(metadata: Path, snapshot_id: int, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The snapshot's rows as Iceberg Java reads them; timestamps as microseconds since the epoch
    (``unix_micros`` in the UTC session), so no Python time zone enters."""
    from iceberg_conformance.suites.spark import session

    spark = session.spark()
    df = spark.read.format("iceberg").option("snapshot-id", str(snapshot_id)).load(str(metadata))
    from pyspark.sql import functions as F

    cols = []
    for f in schema["fields"]:
        c = F.col(f"`{f['name']}`")
        if f["type"] in ("timestamp", "timestamptz"):
            c = F.unix_micros(c.cast("timestamp"))
        cols.append(c.alias(f["name"]))
    try:
        return [r.asDict(recursive=True) for r in df.select(*cols).collect()]
    except Exception as e:
        cause = _root_cause(e)
        if cause is None:
            raise
        raise JavaError(cause) from None


def read_reference(metadata: Path, snapshot_id: int) -> list[dict[str, Any]]:
    """The kit's reference reader; it returns rows in JSON single-value form already."""
    try:
        from iceberg_conformance.reference.scan import scan
    except ImportError as e:
        raise ReaderUnavailable(f"reference.scan is not importable: {e}") from None
    rows: list[dict[str, Any]] = list(scan(str(metadata), snapshot_id))
    return rows


#: readers whose rows are in JSON single-value form already (compared as they are)
JSON_READERS = frozenset({"reference"})

READERS: dict[str, Callable[[Path, int], list[dict[str, Any]]]] = {
    "pyiceberg": read_pyiceberg,
    "duckdb": read_duckdb,
    "reference": read_reference,
}
