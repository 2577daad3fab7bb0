"""A row filter in each engine's own query form.

The golden tables' row filters are predicates in the JSON form of ``format/expressions-spec.md``.
An engine is given each one the way its users write it: an SQL ``WHERE`` condition in the
engine's dialect (DuckDB, ClickHouse, DataFusion, Spark SQL), or an expression of its dataframe
API (Polars, Daft). The translation is literal: ``not-eq`` is ``<>``, ``not-in`` is ``NOT IN``,
``not`` is ``NOT``, a comparison is the engine's comparison, with literals of the column's type.
Nothing is corrected: what the engine does with nulls, NaN or -0.0 is the engine's own semantics,
and the judge (:mod:`suites.engines.filtering`) compares the engine's read of the table under the
condition with the same engine's evaluation of the same condition over rows in memory.

A predicate with no faithful form in an engine (a type the engine has no literal for, a
transform term) raises :class:`Untranslatable`; that case is UNSUPPORTED for the engine. The kit's
remainder filters (:data:`suites.golden.filters.MODULO`: ``col % k`` compared with a literal)
are the engine's ``%`` and comparison; an Iceberg expression has no form of them
(:func:`iceberg`).
"""

from __future__ import annotations

import datetime as _dt
import uuid
from decimal import Decimal
from typing import Any, Callable

from iceberg_conformance.suites.golden.filters import COMPARE, is_modulo, modulo_parts

#: comparison predicates and their SQL operators
CMP = {"lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">=", "eq": "=", "not-eq": "<>"}
#: the SQL dialects :func:`sql` writes
DIALECTS = ("duckdb", "clickhouse", "datafusion", "spark")


class Untranslatable(Exception):
    """A predicate with no faithful form in an engine's query language."""


def iceberg(expr: Any) -> Any:
    """The filter as an Iceberg expression (itself), for the engines whose filter API takes one;
    a remainder filter has none (the expressions have no arithmetic)."""
    if is_modulo(expr):
        raise Untranslatable("an Iceberg expression has no arithmetic: a remainder filter (col % k) is not "
                             "expressible")
    return expr


def _modulo_column(schema: dict[str, Any], e: dict[str, Any]) -> tuple[list[str], int, str, int]:
    """Path, modulus, comparison and literal of a remainder filter over an int or long column."""
    _name, k, op, c = modulo_parts(e)
    path, t = column(schema, e)
    if t not in ("int", "long"):
        raise Untranslatable(f"a remainder of a {t} column")
    return path, k, op, c


# --- the predicate's parts -------------------------------------------------------------------

def column(schema: dict[str, Any], expr: dict[str, Any]) -> tuple[list[str], Any]:
    """The path of names and the Iceberg type of the column a predicate tests (a top-level
    column, or a field of a struct named ``a.b``)."""
    if "term" in expr:
        raise Untranslatable("the deprecated term form")
    ref = expr.get("child", expr.get("left"))
    if isinstance(ref, str):
        ref = {"type": "reference", "name": ref}
    if not (isinstance(ref, dict) and ref.get("type") == "reference" and isinstance(ref.get("name"), str)):
        raise Untranslatable(f"a test of {ref!r} (only column references are translated)")
    name: str = ref["name"]
    fields = schema["fields"]
    top = next((f for f in fields if f["name"] == name), None)
    if top is not None:
        return [name], top["type"]
    path: list[str] = []
    t: Any = {"type": "struct", "fields": fields}
    rest = name
    while rest:
        if not (isinstance(t, dict) and t.get("type") == "struct"):
            raise Untranslatable(f"no column {name!r}")
        match = next((f for f in t["fields"] if rest == f["name"] or rest.startswith(f["name"] + ".")), None)
        if match is None:
            raise Untranslatable(f"no column {name!r}")
        path.append(match["name"])
        t = match["type"]
        rest = rest[len(match["name"]) + 1:]
    return path, t


def literal_value(v: Any) -> Any:
    """A literal of the JSON expression form: a bare JSON value or ``{"type": "literal", "value"}``."""
    if isinstance(v, dict) and v.get("type") == "literal" and "value" in v:
        return v["value"]
    if isinstance(v, dict) or v is None:
        raise Untranslatable(f"constant {v!r}")
    return v


def python_value(t: Any, v: Any) -> Any:
    """The Python value of literal ``v`` (JSON single-value form) of Iceberg type ``t``: what a
    dataframe API takes. Nanosecond timestamps are int nanoseconds since the epoch."""
    v = literal_value(v)
    if not isinstance(t, str):
        raise Untranslatable(f"a literal of a {t.get('type')} column")
    if t == "boolean":
        if not isinstance(v, bool):
            raise Untranslatable(f"{v!r} for a boolean column")
        return v
    if t in ("int", "long"):
        if isinstance(v, bool) or not isinstance(v, int):
            raise Untranslatable(f"{v!r} for a {t} column")
        return v
    if t in ("float", "double"):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Untranslatable(f"{v!r} for a {t} column")
        return float(v)
    if t.startswith("decimal("):
        return Decimal(str(v))
    if not isinstance(v, str):
        raise Untranslatable(f"{v!r} for a {t} column")
    if t == "string":
        return v
    if t == "date":
        return _dt.date.fromisoformat(v)
    if t == "time":
        return _dt.time.fromisoformat(v)
    if t in ("timestamp", "timestamptz"):
        d = _dt.datetime.fromisoformat(v)
        return d if t == "timestamptz" else d.replace(tzinfo=None)
    if t in ("timestamp_ns", "timestamptz_ns"):
        return epoch_nanos(v)
    if t == "uuid":
        return uuid.UUID(v)
    if t == "binary" or t.startswith("fixed["):
        return bytes.fromhex(v)
    raise Untranslatable(f"no literal of type {t}")


def epoch_nanos(text: str) -> int:
    """Nanoseconds since the epoch of an ISO timestamp with up to 9 fraction digits."""
    head, _, rest = text.partition(".")
    digits = rest[:len(rest) - len(rest.lstrip("0123456789"))]
    zone = rest[len(digits):]
    d = _dt.datetime.fromisoformat(head + zone)
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.timezone.utc)
    seconds = (d - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)) // _dt.timedelta(seconds=1)
    return seconds * 1_000_000_000 + int((digits + "000000000")[:9])


def walk(expr: Any, leaf: Callable[[dict[str, Any]], Any], both: Callable[[str, Any, Any], Any],
         negate: Callable[[Any], Any], const: Callable[[bool], Any]) -> Any:
    """Fold a predicate: ``leaf`` for tests of a column, ``both`` for and/or, ``negate`` for not."""
    if isinstance(expr, bool):
        return const(expr)
    if not isinstance(expr, dict):
        raise Untranslatable(f"predicate {expr!r}")
    kind = expr.get("type")
    if kind in ("true", "false"):
        return const(kind == "true")
    if kind in ("and", "or"):
        return both(kind, walk(expr["left"], leaf, both, negate, const),
                    walk(expr["right"], leaf, both, negate, const))
    if kind == "not":
        return negate(walk(expr["child"], leaf, both, negate, const))
    return leaf(expr)


def _values(expr: dict[str, Any]) -> list[Any]:
    values = expr.get("values")
    if not isinstance(values, list) or not values:
        raise Untranslatable(f"values {values!r}")
    return values


# --- SQL -------------------------------------------------------------------------------------

def _quote(text: str, dialect: str) -> str:
    if dialect in ("clickhouse", "spark"):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str, dialect: str) -> str:
    if dialect in ("clickhouse", "spark"):
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def sql_column(path: list[str], dialect: str) -> str:
    """A column, or a field of a struct column, in ``dialect``."""
    out = _ident(path[0], dialect)
    for name in path[1:]:
        if dialect == "clickhouse":
            out = f"tupleElement({out}, {_quote(name, dialect)})"
        elif dialect == "datafusion":
            out = f"{out}[{_quote(name, dialect)}]"
        else:
            out = f"{out}.{_ident(name, dialect)}"
    return out


def _decimal_type(t: str, dialect: str) -> str:
    p, s = (int(x) for x in t[len("decimal("):-1].split(","))
    return f"Decimal({p}, {s})" if dialect == "clickhouse" else f"DECIMAL({p},{s})"


def sql_literal(t: Any, v: Any, dialect: str) -> str:
    """Literal ``v`` (JSON single-value form) of Iceberg type ``t`` in ``dialect``."""
    value = python_value(t, v)          # validates the literal against the type
    raw = literal_value(v)
    if t == "boolean":
        return "TRUE" if value else "FALSE"
    if t in ("int", "long"):
        return str(value)
    if t in ("float", "double"):
        number = repr(value)
        if dialect == "clickhouse":
            return f"to{'Float32' if t == 'float' else 'Float64'}({number})"
        sql_type = {"float": "FLOAT" if dialect != "datafusion" else "REAL", "double": "DOUBLE"}[t]
        return f"CAST({number} AS {sql_type})"
    if t.startswith("decimal("):
        return f"CAST({_quote(str(raw), dialect)} AS {_decimal_type(t, dialect)})"
    if t == "string":
        return _quote(value, dialect)
    if t in ("binary",) or t.startswith("fixed["):
        hex_text = value.hex()
        if dialect == "duckdb":
            return f"from_hex({_quote(hex_text, dialect)})"
        if dialect == "clickhouse":
            return f"unhex({_quote(hex_text, dialect)})"
        return f"X'{hex_text}'"
    if t == "uuid":
        text = _quote(str(value), dialect)
        return {"duckdb": f"CAST({text} AS UUID)", "clickhouse": f"toUUID({text})", "spark": text,
                "datafusion": f"X'{value.hex}'"}[dialect]
    text = _quote(raw, dialect)
    if t == "date":
        return f"toDate32({text})" if dialect == "clickhouse" else f"DATE {text}"
    if t == "time":
        if dialect == "spark":
            raise Untranslatable("Spark SQL 3.5 has no TIME type")
        if dialect == "clickhouse":
            raise Untranslatable("ClickHouse reads an Iceberg time column as a number; it has no literal of it")
        return f"CAST({text} AS TIME)" if dialect == "datafusion" else f"TIME {text}"
    if t in ("timestamp", "timestamptz"):
        if dialect == "clickhouse":
            return f"toDateTime64({text}, 6, 'UTC')"
        if dialect == "spark":
            return f"TIMESTAMP_NTZ {text}" if t == "timestamp" else f"TIMESTAMP {text}"
        if dialect == "duckdb":
            return f"TIMESTAMP {text}" if t == "timestamp" else f"TIMESTAMPTZ {text}"
        return f"CAST({text} AS TIMESTAMP)"
    if t in ("timestamp_ns", "timestamptz_ns"):
        if dialect == "spark":
            raise Untranslatable("Spark SQL 3.5 has no nanosecond timestamps")
        if dialect == "clickhouse":
            return f"toDateTime64({text}, 9, 'UTC')"
        if dialect == "duckdb":
            if t == "timestamptz_ns":
                raise Untranslatable("DuckDB has no nanosecond timestamp with time zone")
            return f"CAST({text} AS TIMESTAMP_NS)"
        return f"CAST({text} AS TIMESTAMP)"
    raise Untranslatable(f"no {dialect} literal of type {t}")


def _starts_with(col: str, prefix: str, dialect: str) -> str:
    p = _quote(prefix, dialect)
    return {"duckdb": f"starts_with({col}, {p})", "clickhouse": f"startsWith({col}, {p})",
            "datafusion": f"starts_with({col}, {p})", "spark": f"startswith({col}, {p})"}[dialect]


def _is_nan(col: str, dialect: str) -> str:
    return f"isNaN({col})" if dialect == "clickhouse" else f"isnan({col})"


def sql(schema: dict[str, Any], expr: Any, dialect: str) -> str:
    """The SQL condition of predicate ``expr`` over ``schema``'s columns in ``dialect``."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")

    def leaf(e: dict[str, Any]) -> str:
        kind = e.get("type")
        path, t = column(schema, e)
        col = sql_column(path, dialect)
        if kind == "is-null":
            return f"({col} IS NULL)"
        if kind == "not-null":
            return f"({col} IS NOT NULL)"
        if kind in ("is-nan", "not-nan"):
            if t not in ("float", "double"):
                raise Untranslatable(f"{kind} of a {t} column")
            test = _is_nan(col, dialect)
            return f"({test})" if kind == "is-nan" else f"(NOT {test})"
        if kind in ("in", "not-in"):
            listed = ", ".join(sql_literal(t, v, dialect) for v in _values(e))
            return f"({col} {'IN' if kind == 'in' else 'NOT IN'} ({listed}))"
        if kind in ("starts-with", "not-starts-with"):
            if t != "string":
                raise Untranslatable(f"{kind} of a {t} column")
            prefix = python_value("string", e.get("right"))
            test = _starts_with(col, prefix, dialect)
            return f"({test})" if kind == "starts-with" else f"(NOT {test})"
        if is_modulo(e):
            _path, k, op, c = _modulo_column(schema, e)
            return f"(({col} % {k}) {CMP[op]} {c})"
        if kind in CMP:
            return f"({col} {CMP[kind]} {sql_literal(t, e.get('right'), dialect)})"
        raise Untranslatable(f"predicate type {kind!r}")

    return str(walk(expr, leaf, lambda k, a, b: f"({a} {k.upper()} {b})", lambda a: f"(NOT {a})",
                    lambda b: "TRUE" if b else "FALSE"))


# --- dataframe APIs --------------------------------------------------------------------------

class Frame:
    """What a dataframe API needs to say for a predicate: a column (``path``), a literal of an
    Iceberg type, a membership test; the rest (``is_null`` ...) are the column's own methods,
    named by :attr:`methods`."""

    #: the column methods for is-null, not-null, is-nan, starts-with
    methods = {"is-null": "is_null", "not-null": "is_not_null", "is-nan": "is_nan", "starts-with": "startswith"}

    def col(self, path: list[str]) -> Any:
        raise NotImplementedError

    def lit(self, t: Any, v: Any) -> Any:
        raise NotImplementedError

    def is_in(self, col: Any, t: Any, values: list[Any]) -> Any:
        raise NotImplementedError

    def const(self, b: bool) -> Any:
        raise NotImplementedError

    def starts_with(self, col: Any, prefix: str) -> Any:
        return getattr(col, self.methods["starts-with"])(prefix)

    def remainder(self, col: Any, k: int) -> Any:
        """``col % k`` truncated toward zero (the kit's remainder: the sign of ``col``), for ``k > 0``."""
        return col % k



def dataframe(schema: dict[str, Any], expr: Any, api: Frame) -> Any:
    """Predicate ``expr`` as an expression of a dataframe API: its comparison operators, ``~``,
    ``&`` and ``|``, and the column methods the API names."""
    def leaf(e: dict[str, Any]) -> Any:
        kind = str(e.get("type"))
        path, t = column(schema, e)
        col = api.col(path)
        if is_modulo(e):
            _path, k, op, c = _modulo_column(schema, e)
            return COMPARE[op](api.remainder(col, k), api.lit(t, c))
        if kind in ("is-null", "not-null"):
            return getattr(col, api.methods[kind])()
        if kind in ("is-nan", "not-nan"):
            if t not in ("float", "double"):
                raise Untranslatable(f"{kind} of a {t} column")
            test = getattr(col, api.methods["is-nan"])()
            return test if kind == "is-nan" else ~test
        if kind in ("in", "not-in"):
            test = api.is_in(col, t, [literal_value(v) for v in _values(e)])
            return test if kind == "in" else ~test
        if kind in ("starts-with", "not-starts-with"):
            if t != "string":
                raise Untranslatable(f"{kind} of a {t} column")
            test = api.starts_with(col, python_value("string", e.get("right")))
            return test if kind == "starts-with" else ~test
        if kind in COMPARE:
            return COMPARE[kind](col, api.lit(t, e.get("right")))
        raise Untranslatable(f"predicate type {kind!r}")

    return walk(expr, leaf, lambda k, a, b: (a & b) if k == "and" else (a | b), lambda a: ~a, api.const)


class PolarsFrame(Frame):
    """Polars expressions (``LazyFrame.filter``)."""

    def __init__(self) -> None:
        import polars as pl

        self.pl = pl

    def remainder(self, col: Any, k: int) -> Any:
        # Polars' % floors (the sign of k): a negative value's nonzero remainder is k more than the kit's
        floored = col % k
        return floored - self.pl.when((col < 0) & (floored != 0)).then(k).otherwise(0)

    def dtype(self, t: Any) -> Any:
        pl = self.pl
        if t.startswith("decimal("):
            p, s = (int(x) for x in t[len("decimal("):-1].split(","))
            return pl.Decimal(p, s)
        simple = {"boolean": pl.Boolean, "int": pl.Int32, "long": pl.Int64, "float": pl.Float32,
                  "double": pl.Float64, "date": pl.Date, "time": pl.Time, "timestamp": pl.Datetime("us"),
                  "timestamptz": pl.Datetime("us", "UTC"), "timestamp_ns": pl.Datetime("ns"),
                  "timestamptz_ns": pl.Datetime("ns", "UTC"), "string": pl.String, "binary": pl.Binary}
        if t in simple:
            return simple[t]
        if t.startswith("fixed["):
            return pl.Binary
        raise Untranslatable(f"no Polars literal of type {t}")

    def col(self, path: list[str]) -> Any:
        col = self.pl.col(path[0])
        for name in path[1:]:
            col = col.struct.field(name)
        return col

    def lit(self, t: Any, v: Any) -> Any:
        pl = self.pl
        value = python_value(t, v)
        if t == "uuid":
            raise Untranslatable("Polars has no UUID type")
        if t in ("timestamp_ns", "timestamptz_ns"):
            return pl.lit(value, pl.Int64).cast(self.dtype(t))
        if t == "int" and not -2**31 <= value < 2**31:
            return pl.lit(value, pl.Int64)      # beyond the column's type: compared as a long
        return pl.lit(value, self.dtype(t))

    def is_in(self, col: Any, t: Any, values: list[Any]) -> Any:
        if t in ("timestamp_ns", "timestamptz_ns", "uuid"):
            raise Untranslatable(f"a membership test of a {t} column")
        return col.is_in(self.pl.Series([python_value(t, v) for v in values], dtype=self.dtype(t)))

    def const(self, b: bool) -> Any:
        return self.pl.lit(b)

    def starts_with(self, col: Any, prefix: str) -> Any:
        return col.str.starts_with(prefix)


class DaftFrame(Frame):
    """Daft expressions (``DataFrame.where``)."""

    methods = {**Frame.methods, "not-null": "not_null"}

    def __init__(self) -> None:
        import daft

        self.daft = daft

    def col(self, path: list[str]) -> Any:
        col = self.daft.col(path[0])
        for name in path[1:]:
            col = col[name]
        return col

    def lit(self, t: Any, v: Any) -> Any:
        daft = self.daft
        value = python_value(t, v)
        if t in ("timestamp_ns", "timestamptz_ns", "uuid", "time"):
            raise Untranslatable(f"no Daft literal of type {t} here")
        if t == "float":
            return daft.lit(value).cast(daft.DataType.float32())
        if t == "int" and -2**31 <= value < 2**31:
            return daft.lit(value).cast(daft.DataType.int32())
        return daft.lit(value)

    def is_in(self, col: Any, t: Any, values: list[Any]) -> Any:
        self.lit(t, values[0])          # the type has a Daft literal
        return col.is_in([python_value(t, v) for v in values])

    def const(self, b: bool) -> Any:
        return self.daft.lit(b)


def polars(schema: dict[str, Any], expr: Any) -> Any:
    """The Polars expression of predicate ``expr`` (``LazyFrame.filter``)."""
    return dataframe(schema, expr, PolarsFrame())


def daft(schema: dict[str, Any], expr: Any) -> Any:
    """The Daft expression of predicate ``expr`` (``DataFrame.where``)."""
    return dataframe(schema, expr, DaftFrame())
