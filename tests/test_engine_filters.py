"""The row filters in each engine's own query form (suites/engines/query.py) and the judge of a
filtered read (suites/engines/filtering.py), without Iceberg tables.

The translation is checked where it matters: an engine evaluating the translated condition over
rows in memory must keep exactly the rows the spec's evaluator keeps, except rows holding a null,
NaN or signed zero in a tested column (SQL's three-valued logic, NaN ordering and IEEE's
-0.0 = 0.0 differ from the spec there). DuckDB and Polars run in every lane; ClickHouse (chdb),
DataFusion and Daft where the consumers extra is installed (otherwise SKIP with the reason).
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any, Callable

import pytest

from iceberg_conformance.reference.arrow import to_arrow
from iceberg_conformance.suites.engines import query
from iceberg_conformance.suites.engines.filtering import JUDGED, NOT_JUDGED, UNSUPPORTED, judge_case, semantics_gap
from iceberg_conformance.suites.engines.registry import ENGINES, CaseRead, SnapshotRead
from iceberg_conformance.suites.engines.rows import canonical_rows
from iceberg_conformance.suites.golden.filters import expected_rows

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": False, "type": "int"},
    {"id": 2, "name": "l", "required": False, "type": "long"},
    {"id": 3, "name": "f", "required": False, "type": "float"},
    {"id": 4, "name": "d", "required": False, "type": "double"},
    {"id": 5, "name": "dec", "required": False, "type": "decimal(9, 2)"},
    {"id": 6, "name": "dt", "required": False, "type": "date"},
    {"id": 7, "name": "ts", "required": False, "type": "timestamp"},
    {"id": 8, "name": "tstz", "required": False, "type": "timestamptz"},
    {"id": 9, "name": "s", "required": False, "type": "string"},
    {"id": 10, "name": "bin", "required": False, "type": "binary"},
    {"id": 11, "name": "b", "required": False, "type": "boolean"},
    {"id": 12, "name": "p", "required": False, "type": {"type": "struct", "fields": [
        {"id": 13, "name": "x", "required": False, "type": "long"}]}},
]}
ROWS: list[dict[str, Any]] = [
    {"id": 1, "l": -9223372036854775808, "f": -0.0, "d": "NaN", "dec": "-1.28", "dt": "1969-12-31",
     "ts": "1969-12-31T23:59:59.999999", "tstz": "1969-12-31T23:59:59.999999+00:00", "s": "Straße", "bin": "00ff",
     "b": True, "p": {"13": -1}},
    {"id": 2, "l": 0, "f": 1.5, "d": 3.25, "dec": "14.20", "dt": "1970-01-01", "ts": "1970-01-01T00:00:00.000000",
     "tstz": "2017-11-16T22:31:08.123456+00:00", "s": "iceberg", "bin": "", "b": False, "p": {"13": 7}},
    {"id": 3, "l": 9223372036854775807, "f": "Infinity", "d": "-Infinity", "dec": "0.00", "dt": "2024-02-29",
     "ts": "2024-02-29T12:34:56.000001", "tstz": "1900-01-01T00:00:00.000001+00:00", "s": "", "bin": "01",
     "b": True, "p": None},
    {"id": 4, "l": None, "f": None, "d": None, "dec": None, "dt": None, "ts": None, "tstz": None, "s": None,
     "bin": None, "b": None, "p": {"13": None}},
    {"id": 5, "l": 34, "f": 0.0, "d": 0.0, "dec": "-0.05", "dt": "0001-01-01", "ts": "1900-01-01T00:00:00.000000",
     "tstz": "1970-01-01T00:00:00.000000+00:00", "s": "ice", "bin": "0001", "b": False, "p": {"13": 0}},
]


def _ref(name: str) -> dict[str, Any]:
    return {"type": "reference", "name": name}


def _predicates() -> list[tuple[str, Any]]:
    """Every predicate kind on every column, at values the rows hold (and NOT of each comparison)."""
    out: list[tuple[str, Any]] = []
    for f in SCHEMA["fields"]:
        name, t = f["name"], f["type"]
        if not isinstance(t, str):
            continue
        values = [r[name] for r in ROWS if r[name] is not None and r[name] not in ("NaN", "Infinity", "-Infinity")]
        pivot = values[len(values) // 2]
        for kind in ("lt", "lt-eq", "gt", "gt-eq", "eq", "not-eq"):
            if t == "boolean" and kind not in ("eq", "not-eq"):
                continue
            e = {"type": kind, "left": _ref(name), "right": pivot}
            out.append((f"{name} {kind} {pivot}", e))
            out.append((f"not ({name} {kind} {pivot})", {"type": "not", "child": e}))
        out.append((f"{name} in", {"type": "in", "child": _ref(name), "values": values[:2]}))
        out.append((f"{name} not-in", {"type": "not-in", "child": _ref(name), "values": values[:2]}))
        out.append((f"{name} is-null", {"type": "is-null", "child": _ref(name)}))
        out.append((f"{name} not-null", {"type": "not-null", "child": _ref(name)}))
        if t in ("float", "double"):
            out.append((f"{name} is-nan", {"type": "is-nan", "child": _ref(name)}))
            out.append((f"{name} not-nan", {"type": "not-nan", "child": _ref(name)}))
        if t == "string":
            out.append((f"{name} starts-with ice", {"type": "starts-with", "left": _ref(name), "right": "ice"}))
            out.append((f"{name} not-starts-with ice", {"type": "not-starts-with", "left": _ref(name), "right": "ice"}))
    out.append(("p.x lt 1", {"type": "lt", "left": _ref("p.x"), "right": 1}))
    out.append(("id lt 3 or s eq ''", {"type": "or", "left": {"type": "lt", "left": _ref("id"), "right": 3},
                                       "right": {"type": "eq", "left": _ref("s"), "right": ""}}))
    return out


PREDICATES = _predicates()


def _arrow_table() -> Any:
    import pyarrow as pa

    from iceberg_conformance.reference.schema import parse_schema

    schema = parse_schema(SCHEMA)
    columns = {}
    for f in schema.fields:
        t = f.field_type
        arrow_type = to_arrow(t)
        if isinstance(SCHEMA["fields"][f.field_id - 1]["type"], dict):
            values = [None if r["p"] is None else {"x": r["p"]["13"]} for r in ROWS]
        else:
            values = [None if r[f.name] is None else
                      float(r[f.name]) if str(t) in ("float", "double") else query.python_value(str(t), r[f.name])
                      for r in ROWS]
        columns[f.name] = pa.array(values, type=arrow_type)
    return pa.table(columns)


def _duckdb(cond: str) -> list[dict[str, Any]]:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.register("arrow_rows", _arrow_table())
    con.execute("CREATE TABLE memory AS SELECT * FROM arrow_rows")   # a DuckDB table, as the engine's own read is
    rows: list[dict[str, Any]] = con.execute(f"SELECT * FROM memory WHERE {cond}").to_arrow_table().to_pylist()
    return rows


def _polars(expr: Any) -> list[dict[str, Any]]:
    pl = pytest.importorskip("polars")
    rows: list[dict[str, Any]] = pl.from_arrow(_arrow_table()).filter(expr).to_arrow().to_pylist()
    return rows


def _chdb(cond: str) -> list[dict[str, Any]]:
    import chdb

    memory = _arrow_table()   # chdb's Python() table function finds the table by its variable's name
    rows: list[dict[str, Any]] = chdb.query(f"SELECT * FROM Python(memory) WHERE {cond} "
                                            "SETTINGS session_timezone = 'UTC', output_format_arrow_string_as_string = 0",
                                            "ArrowTable").to_pylist()
    assert memory.num_rows == len(ROWS)
    return rows


def _datafusion(cond: str) -> list[dict[str, Any]]:
    import datafusion

    ctx = datafusion.SessionContext()
    ctx.register_record_batches("memory", [_arrow_table().to_batches()])
    rows: list[dict[str, Any]] = ctx.sql(f"SELECT * FROM memory WHERE {cond}").to_arrow_table().to_pylist()
    return rows


def _daft(expr: Any) -> list[dict[str, Any]]:
    import daft

    rows: list[dict[str, Any]] = daft.from_arrow(_arrow_table()).where(expr).to_arrow().to_pylist()
    return rows


ENGINE_FORMS: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], list[dict[str, Any]]]]] = {
    "duckdb": ("duckdb", lambda e: query.sql(SCHEMA, e, "duckdb"), _duckdb),
    "polars": ("polars", lambda e: query.polars(SCHEMA, e), _polars),
    "chdb": ("chdb", lambda e: query.sql(SCHEMA, e, "clickhouse"), _chdb),
    "datafusion": ("datafusion", lambda e: query.sql(SCHEMA, e, "datafusion"), _datafusion),
    "daft": ("daft", lambda e: query.daft(SCHEMA, e), _daft),
}


@pytest.mark.parametrize("engine", list(ENGINE_FORMS))
def test_engines_keep_the_rows_the_spec_keeps_apart_from_nulls_nan_and_signed_zero(engine: str) -> None:
    """Every predicate kind on every column type, translated and evaluated by the engine over the
    same rows in memory: where the engine and the spec disagree, the row holds a null, NaN or
    signed zero in a tested column. Anything else is a wrong translation."""
    module, translate, run = ENGINE_FORMS[engine]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (the consumers extra)")
    problems = []
    for label, expr in PREDICATES:
        try:
            condition = translate(expr)
        except query.Untranslatable:
            continue
        try:
            kept = canonical_rows(SCHEMA, run(condition))
        except pytest.skip.Exception:
            raise
        except Exception as e:
            problems.append(f"{label}: {condition}: {type(e).__name__}: {str(e)[:200]}")
            continue
        spec = expected_rows(SCHEMA, ROWS, expr)
        assert spec is not None
        gap = semantics_gap(SCHEMA, expr, kept, spec)
        if gap:
            problems.append(f"{label}: {condition}\n" + "\n".join(gap))
    assert not problems, f"{engine}: translations that keep other rows than the spec:\n" + "\n".join(problems)


def test_translations_never_correct_the_engine() -> None:
    """Literal translations: SQL's own operators, no null or NaN guards added."""
    d = {"type": "not-eq", "left": _ref("d"), "right": 3.25}
    assert query.sql(SCHEMA, d, "duckdb") == '("d" <> CAST(3.25 AS DOUBLE))'
    assert query.sql(SCHEMA, d, "clickhouse") == "(`d` <> toFloat64(3.25))"
    assert query.sql(SCHEMA, {"type": "lt", "left": _ref("d"), "right": 1.0}, "spark") == "(`d` < CAST(1.0 AS DOUBLE))"
    assert query.sql(SCHEMA, {"type": "not-in", "child": _ref("id"), "values": [1, 2]}, "datafusion") == '("id" NOT IN (1, 2))'
    assert query.sql(SCHEMA, {"type": "not", "child": {"type": "is-nan", "child": _ref("f")}}, "duckdb") == '(NOT (isnan("f")))'
    assert query.sql(SCHEMA, {"type": "eq", "left": _ref("p.x"), "right": 1}, "clickhouse") == "(tupleElement(`p`, 'x') = 1)"
    assert query.sql(SCHEMA, {"type": "eq", "left": _ref("s"), "right": "it's \\"}, "spark") == "(`s` = 'it\\'s \\\\')"


def test_what_has_no_faithful_form_is_untranslatable() -> None:
    with pytest.raises(query.Untranslatable):
        query.sql({"fields": [{"id": 1, "name": "t", "type": "time"}]},
                  {"type": "eq", "left": _ref("t"), "right": "10:00:00"}, "spark")
    with pytest.raises(query.Untranslatable):
        query.sql(SCHEMA, {"type": "eq", "term": {"type": "transform", "transform": "day", "term": "ts"},
                           "value": 1}, "duckdb")
    with pytest.raises(query.Untranslatable):
        query.sql(SCHEMA, {"type": "eq", "left": _ref("nope"), "right": 1}, "duckdb")


def test_nanosecond_literals_keep_every_digit() -> None:
    assert query.epoch_nanos("1969-12-31T23:59:59.999999999") == -1
    assert query.epoch_nanos("2262-01-01T00:00:00.000000000+00:00") == 9214646400000000000
    assert query.epoch_nanos("1970-01-01T00:00:00.000000001+00:00") == 1


# --- judging one case ------------------------------------------------------------------------

def _case(**kw: Any) -> CaseRead:
    return CaseRead(condition="c", **kw)


LT = {"type": "lt", "left": _ref("id"), "right": 3}


def test_a_filtered_read_is_judged_against_the_engines_own_unfiltered_read() -> None:
    duck = ENGINES["duckdb"]
    base = [{"id": 1}, {"id": 2}, {"id": 5}]
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "int"}]}
    right = judge_case(duck, schema, base, LT, SnapshotRead(base=base), _case(pushed=base[:2], memory=base[:2]), "s")
    assert right.outcome == JUDGED and right.problem is None and (right.expected, right.of) == (2, 3)
    pruned = judge_case(duck, schema, base, LT, SnapshotRead(base=base), _case(pushed=base[:1], memory=base[:2]), "s")
    assert pruned.outcome == JUDGED and pruned.problem == {"snapshot": "s", "rows": [
        "row count: expected 2, read 1", '- missing:    {"id": 2}']}
    crashed = judge_case(duck, schema, base, LT, SnapshotRead(base=base), _case(pushed_error="E: boom", memory=base[:2]), "s")
    assert crashed.problem == {"snapshot": "s", "error": "E: boom"}


def test_cases_without_a_translation_or_an_unfiltered_read_are_not_judged() -> None:
    duck = ENGINES["duckdb"]
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "int"}]}
    assert judge_case(duck, schema, [], LT, SnapshotRead(base=[]), CaseRead(untranslatable="no"), "s").outcome == UNSUPPORTED
    assert judge_case(duck, schema, [], LT, SnapshotRead(base_error="E"), _case(), "s").outcome == NOT_JUDGED
    refused = judge_case(duck, schema, [], LT, SnapshotRead(base=[]), _case(memory_error="E: no"), "s")
    assert refused.outcome == UNSUPPORTED
    # Iceberg Java reads a timestamp column of a file written isAdjustedToUTC=true with an offset,
    # which a timestamp (without zone) cannot hold: the table cell reports the values
    ts = {"type": "struct", "fields": [{"id": 1, "name": "ts", "required": False, "type": "timestamp"}]}
    zoned = [{"ts": "2024-01-01T10:00:00.000000+00:00"}]
    is_null = {"type": "is-null", "child": _ref("ts")}
    odd = judge_case(ENGINES["java"], ts, [], is_null, SnapshotRead(base=zoned), _case(pushed=zoned), "s")
    assert odd.outcome == NOT_JUDGED and "cannot take" in odd.reason


def test_a_translation_the_engine_evaluates_unlike_the_spec_is_a_problem() -> None:
    duck = ENGINES["duckdb"]
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "int"}]}
    base = [{"id": 1}, {"id": 2}, {"id": 5}]
    wrong = judge_case(duck, schema, base, LT, SnapshotRead(base=base), _case(pushed=base[2:], memory=base[2:]), "s")
    assert wrong.problem is not None and "disagree" in json.dumps(wrong.problem)
    nulls = [{"id": 1}, {"id": None}]
    not_eq = {"type": "not-eq", "left": _ref("id"), "right": 1}
    sql_like = judge_case(duck, schema, nulls, not_eq, SnapshotRead(base=nulls), _case(pushed=[], memory=[]), "s")
    assert sql_like.problem is None, "SQL's not-eq drops the null row: the engine's semantics, not a problem"


def test_the_iceberg_form_is_judged_with_the_spec_and_no_filter_api_as_a_full_read() -> None:
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "int"}]}
    base = [{"id": 1}, {"id": None}]
    not_eq = {"type": "not-eq", "left": _ref("id"), "right": 1}
    drops_null = judge_case(ENGINES["reference"], schema, base, not_eq, SnapshotRead(base=base), _case(pushed=[]), "s")
    assert drops_null.problem is not None, "the spec's not-eq keeps the null row"
    truth = [{"id": 1}, {"id": 2}]
    full = judge_case(ENGINES["icebird"], schema, truth, LT, SnapshotRead(base=[{"id": 1}]), _case(), "s")
    assert full.problem == {"snapshot": "s", "rows": ["row count: expected 2, read 1", '- missing:    {"id": 2}']}


MOD = {"type": "kit-modulo", "left": _ref("id"), "modulus": 8, "op": "eq", "right": 2}


def test_a_remainder_filter_keeps_the_rows_of_its_definition() -> None:
    """``col % k op c``, the remainder truncated toward zero, a null never kept (filters.py)."""
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}
    rows = [{"id": i} for i in (0, 2, 10, 11, 49, -6, -14)] + [{"id": None}]
    assert [r["id"] for r in expected_rows(schema, rows, MOD) or []] == [2, 10]
    le = dict(MOD, op="lt-eq", right=-6)
    assert [r["id"] for r in expected_rows(schema, rows, le) or []] == [-6, -14]
    ne = dict(MOD, op="not-eq")
    assert [r["id"] for r in expected_rows(schema, rows, ne) or []] == [0, 11, 49, -6, -14]
    other = {"type": "struct", "fields": [{"id": 1, "name": "x", "required": False, "type": "long"}]}
    assert expected_rows(other, rows, MOD) is None, "a schema without the column binds no case"
    with pytest.raises(ValueError):
        expected_rows(schema, rows, dict(MOD, modulus=0))


def test_a_remainder_filter_is_sql_and_dataframe_arithmetic_and_no_iceberg_expression() -> None:
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "long"},
                                           {"id": 2, "name": "s", "required": False, "type": "string"}]}
    assert query.sql(schema, MOD, "duckdb") == '(("id" % 8) = 2)'
    assert query.sql(schema, dict(MOD, op="gt-eq"), "spark") == "((`id` % 8) >= 2)"
    with pytest.raises(query.Untranslatable):
        query.iceberg(MOD)
    with pytest.raises(query.Untranslatable):
        query.sql(schema, dict(MOD, left=_ref("s")), "duckdb")
    assert query.iceberg(LT) is LT


def test_an_engine_that_cannot_express_a_remainder_filter_is_never_judged() -> None:
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}
    truth = [{"id": 2}, {"id": 3}]
    full = judge_case(ENGINES["icebird"], schema, truth, MOD, SnapshotRead(base=truth), _case(), "s")
    assert full.outcome == UNSUPPORTED and full.problem is None
    untranslated = CaseRead(untranslatable="an Iceberg expression has no arithmetic")
    lib = judge_case(ENGINES["pyiceberg"], schema, truth, MOD, SnapshotRead(base=truth), untranslated, "s")
    assert lib.outcome == UNSUPPORTED
    duck = judge_case(ENGINES["duckdb"], schema, truth, MOD, SnapshotRead(base=truth), _case(pushed=[], memory=truth[:1]), "s")
    assert duck.outcome == JUDGED and duck.problem is not None, "a pruned matching row is wrong rows"


@pytest.mark.parametrize("api", ["polars", "daft", "duckdb"])
def test_a_remainder_filter_means_the_same_in_every_engine_on_negative_values(api: str) -> None:
    """The kit's remainder has the sign of the value (-7 % 8 is -7); Polars' own ``%`` floors
    (-7 % 8 is 1), so its translation corrects for it; Daft's and SQL's truncate."""
    if importlib.util.find_spec(api) is None:
        pytest.skip(f"{api} is not installed (the consumers extra)")
    schema = {"type": "struct", "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}
    rows = [{"id": i} for i in (-17, -9, -8, -7, -1, 0, 1, 2, 7, 9, 10, 15)] + [{"id": None}]
    for f in (MOD, dict(MOD, right=-1), dict(MOD, op="lt", right=0), dict(MOD, op="gt-eq", right=1),
              dict(MOD, op="not-eq", right=-7)):
        want = sorted(r["id"] for r in expected_rows(schema, rows, f) or [])
        values = [r["id"] for r in rows]
        if api == "polars":
            import polars as pl
            got = pl.DataFrame({"id": values}, schema={"id": pl.Int64}).filter(query.polars(schema, f))["id"].to_list()
        elif api == "daft":
            import daft
            got = daft.from_pydict({"id": values}).where(query.daft(schema, f)).to_pydict()["id"]
        else:
            import duckdb
            con = duckdb.connect()
            con.execute("CREATE TABLE t (id BIGINT)")
            con.executemany("INSERT INTO t VALUES (?)", [[v] for v in values])
            got = [r[0] for r in con.execute(f"SELECT id FROM t WHERE {query.sql(schema, f, 'duckdb')}").fetchall()]
        assert sorted(got) == want, f
