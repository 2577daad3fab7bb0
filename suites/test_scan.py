"""Scans with filters: what a reader returns for a row filter on the golden tables.

For every golden table, ``suites/spark/filters.json`` lists row filters in the JSON form of
``format/expressions-spec.md``, each with the reason it is a trap for scan planning (pre-1970
temporal partitions, truncate at its boundaries, buckets, NaN and null, columns renamed, added
or promoted, partition evolution, position/equality deletes and deletion vectors, v3 defaults).
One test per (table, filter, reader) reads every live snapshot of the table whose schema binds
the filter and compares, as a multiset of rows in the spec's JSON single-value form, what the
reader returns with the expected rows: the rows the generator recorded for that snapshot where
the filter holds (see the file's ``notes``). "Data files that match the query filter must be
read by the scan." A missing row is a file or partition pruned wrongly, a delete applied to the
wrong file, or a row filtered with the wrong semantics; an extra row is a filter not applied or
a delete not applied.

Readers: the kit's reference (``reference.scan.scan``), PyIceberg (``StaticTable.scan(row_filter=
..., snapshot_id=...)``), Iceberg Java's generic reader through the Spark session's JVM (both
through their ``table-scan`` adapters, :mod:`suites.targets`), and DuckDB's ``iceberg_scan``
with a ``WHERE`` condition (scan only; a predicate with no SQL translation is UNSUPPORTED).

Known reader bugs are data: ``suites/spark/known-failures-scan.json`` (strict xfails: an entry
that starts passing fails). Without golden tables (``$ICEBERG_CONFORMANCE_GOLDEN`` or Spark to
generate them) the tests SKIP with the reason, like ``suites/test_tables.py``.
"""

from __future__ import annotations

import fnmatch
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.api import Rejected, Unsupported
from iceberg_conformance.suites.spark import golden
from iceberg_conformance.suites.spark import tables as _tables  # noqa: F401  (registers the generators)
from iceberg_conformance.suites.spark import producers as _producers  # noqa: F401, I001  (after Spark's)
from iceberg_conformance.suites.spark.readers import (
    ReaderUnavailable, Untranslatable, canonical_rows, diff_rows, duckdb_where, read_duckdb,
)
from iceberg_conformance.suites.test_tables import _load, _schemas, golden_dir  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.spark, pytest.mark.area("scan"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

FILTERS_FILE = Path(__file__).parent / "spark" / "filters.json"
KNOWN_FILE = Path(__file__).parent / "spark" / "known-failures-scan.json"
SCAN_READERS = ("reference", "pyiceberg", "java", "duckdb")
#: at least this many (table, snapshot, filter) cases, and this share of them selecting a
#: non-empty proper subset of the snapshot's rows
MIN_CASES, MIN_PROPER_SHARE = 200, 0.5


def _filters() -> dict[str, list[dict[str, Any]]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(FILTERS_FILE.read_text(encoding="utf-8"))["tables"]
    return data


def _known() -> list[dict[str, str]]:
    data: list[dict[str, str]] = json.loads(KNOWN_FILE.read_text(encoding="utf-8"))["known_failures"]
    return data


def _params() -> list[Any]:
    known = _known()
    out = []
    for table, filters in _filters().items():
        for f in filters:
            for reader in SCAN_READERS:
                cid = f"test_scan: {table} > {f['id']} > {reader}"
                marks = [pytest.mark.xfail(reason=f"known failure of {reader}: {k['reason']} ({k['link']})", strict=True)
                         for k in known if fnmatch.fnmatchcase(cid, k["match"])][:1]
                out.append(pytest.param(table, f["id"], reader, id=f"{table}-{f['id']}-{reader}", marks=marks))
    return out


def expected_rows(schema: dict[str, Any], rows: list[dict[str, Any]], row_filter: Any) -> list[dict[str, Any]] | None:
    """The recorded rows of a snapshot where ``row_filter`` holds, or None when the snapshot's
    schema lacks a column of the filter (no case). The reference's evaluator decides, bound to
    the snapshot's schema, on each row keyed by field id."""
    try:
        bound = ex.bind(parse_schema(schema), ex.parse_expression(row_filter))
    except SpecViolation as e:
        if e.rule == "expressions.bind-unknown-field":
            return None
        raise
    ids = {f["name"]: str(f["id"]) for f in schema["fields"]}
    return [r for r in rows if ex.evaluate(bound, {ids[k]: v for k, v in r.items()})]


@lru_cache(maxsize=None)
def _target(name: str) -> Any:
    from iceberg_conformance.suites.targets import TargetLoadError, load_target

    try:
        return load_target(name)
    except TargetLoadError as e:
        pytest.skip(f"{name}: {e}")


@lru_cache(maxsize=None)
def _duckdb_connection() -> Any:
    """One DuckDB connection for the session (loading the extensions costs more than a scan)."""
    from iceberg_conformance.suites.spark.readers import _duckdb

    return _duckdb()


def read(reader: str, metadata: Path, snapshot_id: int, schema: dict[str, Any], row_filter: Any) -> list[dict[str, Any]]:
    """The rows ``reader`` returns for the filter, in JSON single-value form."""
    if reader == "duckdb":
        try:
            where = duckdb_where(schema, row_filter)
        except Untranslatable as e:
            raise Unsupported(f"no SQL translation: {e}") from None
        return canonical_rows(schema, read_duckdb(metadata, snapshot_id, where, _duckdb_connection()))
    rows: list[dict[str, Any]] = _target(reader).scan(str(metadata), snapshot_id, row_filter)
    return rows


def _files_of(metadata: Path, snapshot_id: int, expected: list[dict[str, Any]], rows: list[dict[str, Any]]) -> str:
    """Where the rows that differ live: the data file of each missing or unexpected row that is
    a row of the snapshot, with the delete files that apply to it, as the reference plans it."""
    from iceberg_conformance.reference import scan as ref

    def key(r: dict[str, Any]) -> str:
        return json.dumps(r, sort_keys=True, ensure_ascii=False)

    differ = {key(r) for r in expected} ^ {key(r) for r in rows}
    try:
        doc = ref._metadata(str(metadata))
        snap = ref._snapshot(doc, snapshot_id)
        assert snap is not None
        schema = ref._schema_for(doc, snap)
        from iceberg_conformance.reference.values import value_to_json

        files: dict[str, set[str]] = {}
        for task in ref.plan(doc, snap):
            deletes = [x.path for x in task.position_deletes + task.equality_deletes]
            if task.deletion_vector is not None:
                deletes.append(f"{task.deletion_vector.path} (deletion vector)")
            label = task.data.path + (f" (deletes: {', '.join(deletes)})" if deletes else "")
            for row in ref.read_task(doc, schema, task):
                k = key({f.name: value_to_json(f.field_type, row.get(f.field_id)) for f in schema.fields})
                if k in differ:
                    files.setdefault(label, set()).add(k)
    except Exception as e:  # the message stays useful without the file names
        return f"\n  (data files not found: {type(e).__name__}: {e})"
    return "".join(f"\n  data file {f}: {len(ks)} of the rows above" for f, ks in sorted(files.items()))


def test_filters_file_names_golden_tables_and_parses() -> None:
    """Every filter names a registered golden table, has a unique id there, a description and a
    trap, and is a predicate the reference reads."""
    problems = []
    for table, filters in _filters().items():
        if table not in golden.REGISTRY:
            problems.append(f"{table}: no such golden table")
        ids = [f["id"] for f in filters]
        if len(ids) != len(set(ids)):
            problems.append(f"{table}: duplicate filter ids")
        for f in filters:
            if not f.get("description") or not f.get("trap"):
                problems.append(f"{table} > {f['id']}: description and trap are required")
            try:
                ex.parse_expression(f["filter"])
            except SpecViolation as e:
                problems.append(f"{table} > {f['id']}: {e}")
    assert not problems, "\n".join(problems)


def test_filters_make_enough_cases(golden_dir: Path) -> None:  # noqa: F811
    """At least MIN_CASES (table, snapshot, filter) cases; every filter binds on some snapshot;
    at least MIN_PROPER_SHARE of the cases select a non-empty proper subset of the rows."""
    cases = proper = 0
    unbound = []
    for table, filters in _filters().items():
        doc = _load(golden_dir, table)
        schemas = _schemas(golden.read_metadata(golden_dir / "warehouse" / doc["metadata"]))
        for f in filters:
            n = 0
            for snap in doc["snapshots"]:
                if snap["expired"]:
                    continue
                rows = expected_rows(schemas[snap["schema_id"]], snap["rows"], f["filter"])
                if rows is None:
                    continue
                n += 1
                proper += 0 < len(rows) < len(snap["rows"])
            if not n:
                unbound.append(f"{table} > {f['id']}")
            cases += n
    assert not unbound, f"filters that bind on no live snapshot: {unbound}"
    assert cases >= MIN_CASES, f"{cases} (table, snapshot, filter) cases, fewer than {MIN_CASES}"
    assert proper >= MIN_PROPER_SHARE * cases, f"only {proper} of {cases} cases select a non-empty proper subset"


@pytest.mark.parametrize(("table", "filter_id", "reader"), _params())
def test_scan(golden_dir: Path, table: str, filter_id: str, reader: str) -> None:  # noqa: F811
    f = next(x for x in _filters()[table] if x["id"] == filter_id)
    doc = _load(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    schemas = _schemas(golden.read_metadata(metadata))
    problems, cases = [], 0
    for snap in doc["snapshots"]:
        if snap["expired"]:
            continue
        schema = schemas[snap["schema_id"]]
        expected = expected_rows(schema, snap["rows"], f["filter"])
        if expected is None:
            continue
        cases += 1
        where = f"snapshot {snap['snapshot_id']} ({snap['label']}; ref {snap['ref']})"
        try:
            rows = read(reader, metadata, snap["snapshot_id"], schema, f["filter"])
        except (ReaderUnavailable, Unsupported) as e:
            pytest.skip(f"UNSUPPORTED: {reader}: {e}")
        except Rejected as e:
            problems.append(f"{where}: {reader} refused the filter, which binds to the snapshot's schema: {e}")
            continue
        except Exception as e:  # a reader crash on a valid table and filter is a failure
            problems.append(f"{where}: {reader} raised {type(e).__name__}: {str(e)[:500]}")
            continue
        d = diff_rows(expected, rows)
        if d:
            problems.append(f"{where}: {len(expected)} of {len(snap['rows'])} rows match\n" + "\n".join(d)
                            + _files_of(metadata, snap["snapshot_id"], expected, rows))
    assert cases, f"{table} > {filter_id}: the filter binds on no live snapshot"
    if problems:
        pytest.fail(f"reader:   {reader}\ntable:    {table} (v{doc['format_version']}: {doc['description']})\n"
                    f"filter:   {filter_id}: {f['description']} ({json.dumps(f['filter'], ensure_ascii=False)})\n"
                    f"trap:     {f['trap']}\nmetadata: {metadata}\n" + "\n".join(problems), pytrace=False)
