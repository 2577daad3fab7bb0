"""Scans with filters: what a reader returns for a row filter on the golden tables.

For every golden table, ``suites/golden/filters.json`` lists row filters in the JSON form of
``format/expressions-spec.md``, each with the reason it is a trap for scan planning (pre-1970
temporal partitions, truncate at its boundaries, buckets, NaN and null, columns renamed, added
or promoted, partition evolution, position/equality deletes and deletion vectors, v3 defaults);
``suites/golden/trap-filters.json`` adds the generated grid over the trap tables (every
transform x every source type at its boundary values, :mod:`suites.golden.trap_tables`).
One test per (table, filter, reader) reads every live snapshot of the table whose schema binds
the filter and compares, as a multiset of rows in the spec's JSON single-value form, what the
reader returns with the expected rows: the rows the generator recorded for that snapshot where
the filter holds (see the file's ``notes``). "Data files that match the query filter must be
read by the scan." A missing row is a file or partition pruned wrongly, a delete applied to the
wrong file, or a row filtered with the wrong semantics; an extra row is a filter not applied or
a delete not applied.

Readers: the targets with the ``table-scan`` capability, whose filter is the Iceberg expression
itself and whose semantics are therefore the spec's: the kit's reference (``reference.scan.scan``),
PyIceberg (``StaticTable.scan(row_filter=..., snapshot_id=...)``) and Iceberg Java's generic reader
(``IcebergGenerics``) through the Spark session's JVM (:mod:`suites.targets`, the same adapters
the engine registry reads them with). Engines that take a filter in a query form of their own
(SQL ``WHERE``, a dataframe expression: DuckDB, ClickHouse, DataFusion, Spark SQL, Polars, Daft)
are judged with their own semantics in the consumer matrix (``suites/test_matrix.py``).

``test_plan`` judges the same scans' tasks (capability ``scan-plan``: each data file with the
delete files attached to it) of the reference, PyIceberg and Iceberg Java: every data file holding
a matching row is planned, with every delete file that applies to it and removes a matching row
and none that does not apply; a planned file the partition projection and metrics prove cannot
match is ADVISORY (pruning missed), never FAIL.

Known reader bugs are data: ``suites/engines/known-failures-scan.json`` (strict xfails: an entry
that starts passing fails). Without golden tables (``$ICEBERG_CONFORMANCE_GOLDEN`` or Spark to
generate them) the tests SKIP with the reason, like ``suites/test_tables.py``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.metadata import schema_by_id
from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.api import Rejected, Unsupported
from iceberg_conformance.suites.golden import filters as golden_filters
from iceberg_conformance.suites.golden.filters import expected_rows
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.harness import known
from iceberg_conformance.suites.harness.outcomes import advisory, unsupported
from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.rows import diff_rows

pytestmark = [
    pytest.mark.spark, pytest.mark.area("table-scan"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

KNOWN_FILE = Path(__file__).parent / "engines" / "known-failures-scan.json"
SCAN_READERS = ("reference", "pyiceberg", "java")
#: at least this many (table, snapshot, filter) cases, and this share of them selecting a
#: non-empty proper subset of the snapshot's rows
MIN_CASES, MIN_PROPER_SHARE = 200, 0.5


@lru_cache(maxsize=1)
def _filters() -> dict[str, list[dict[str, Any]]]:
    """The Iceberg expressions of the golden tables' filters: the readers here take one (the
    kit's remainder filters have no form in them; the consumer matrix reads those)."""
    out = {t: [f for f in fs if not golden_filters.is_modulo(f["filter"])] for t, fs in golden_filters.load().items()}
    return {t: fs for t, fs in out.items() if fs}


def _params(test: str = "test_scan", implementations: tuple[str, ...] | None = None) -> list[Any]:
    """One param per (table, filter, reader or planner), a strict xfail where a known failure
    (``known-failures-scan.json``) matches ``<test>: <table> > <filter id> > <name>``."""
    entries = known.load(KNOWN_FILE)
    out = []
    for table, filters in _filters().items():
        for f in filters:
            for name in implementations or SCAN_READERS:
                marks = known.xfail_marks(entries, f"{test}: {table} > {f['id']} > {name}", name)
                out.append(pytest.param(table, f["id"], name, id=f"{table}-{f['id']}-{name}", marks=marks))
    return out


@lru_cache(maxsize=None)
def _target(name: str) -> Any:
    from iceberg_conformance.suites.targets import TargetLoadError, load_target

    try:
        return load_target(name)
    except TargetLoadError as e:
        pytest.skip(f"{name}: {e}")


def read(reader: str, metadata: Path, snapshot_id: int, schema: dict[str, Any], row_filter: Any) -> list[dict[str, Any]]:
    """The rows ``reader`` returns for the filter, in JSON single-value form."""
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
        schema = ref.schema_for(doc, snap)
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


def test_filters_make_enough_cases(golden_dir: Path) -> None:
    """At least MIN_CASES (table, snapshot, filter) cases; every filter binds on some snapshot;
    at least MIN_PROPER_SHARE of the cases select a non-empty proper subset of the rows."""
    cases = proper = 0
    unbound = []
    for table, filters in _filters().items():
        doc = golden.load_expected(golden_dir, table)
        schemas = schema_by_id(golden.read_metadata(golden_dir / "warehouse" / doc["metadata"]))
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


def _extra_readers(config: pytest.Config) -> tuple[str, ...]:
    """The targets named with ``--target`` that declare ``table-scan`` and are not built-in
    readers above (a harness, your own adapter): read like those."""
    from iceberg_conformance.suites.api import TABLE_SCAN
    from iceberg_conformance.suites.harness.plugin import TARGETS_KEY

    return tuple(t.name for t in config.stash.get(TARGETS_KEY, [])
                 if TABLE_SCAN in t.capabilities and t.name not in SCAN_READERS)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    extra = _extra_readers(metafunc.config)
    if metafunc.function is test_scan:
        metafunc.parametrize(("table", "filter_id", "reader"), _params("test_scan", SCAN_READERS + extra))
    elif metafunc.function is test_scan_unfiltered:
        metafunc.parametrize(("table", "reader"), _unfiltered_params(metafunc.config))


def _unfiltered_params(config: pytest.Config) -> list[Any]:
    """One param per (golden table, extra reader); a strict xfail where the consumer matrix knows
    the implementation behind the reader (``implementation`` of a harness target, else its name)
    to fail the table's full read (``suites/engines/known-failures-consumers.json``): the same
    library read through a harness must fail and pass on the same tables."""
    from iceberg_conformance.suites.harness import consumer_matrix
    from iceberg_conformance.suites.harness.plugin import TARGETS_KEY

    entries = consumer_matrix.known_failures()
    out = []
    for t in config.stash.get(TARGETS_KEY, []):
        if t.name not in _extra_readers(config):
            continue
        implementation = getattr(t, "implementation", t.name)
        for table in _filters():
            e = consumer_matrix.find_entry(entries, table, implementation)
            marks = [] if e is None else [pytest.mark.xfail(
                reason=f"known failure of {implementation}: {e.get('reason')} ({e.get('upstream')})", strict=True)]
            out.append(pytest.param(table, t.name, id=f"{table}-{t.name}", marks=marks))
    return out


def test_scan(golden_dir: Path, table: str, filter_id: str, reader: str) -> None:
    _judge_scan(golden_dir, table, next(x for x in _filters()[table] if x["id"] == filter_id), reader)


#: the filter of test_scan_unfiltered
UNFILTERED = {"id": "unfiltered", "filter": True, "description": "every row (no filter)",
              "trap": "none: the whole snapshot, deletes applied"}


def test_scan_unfiltered(golden_dir: Path, table: str, reader: str) -> None:
    """Every live snapshot read without a filter holds the rows the generator recorded for it:
    the scans of the targets named with ``--target`` beyond the built-in readers (whose
    unfiltered reads ``suites/test_tables.py`` judges), so that a reader without a filter API is
    judged too."""
    _judge_scan(golden_dir, table, UNFILTERED, reader)


def _judge_scan(golden_dir: Path, table: str, f: dict[str, Any], reader: str) -> None:
    """Read every live snapshot of ``table`` whose schema binds filter ``f`` with ``reader``
    and compare with the generator's rows where the filter holds."""
    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    schemas = schema_by_id(golden.read_metadata(metadata))
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
            unsupported(reader, str(e))
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
    assert cases, f"{table} > {f['id']}: the filter binds on no live snapshot"
    if problems:
        pytest.fail(f"reader:   {reader}\ntable:    {table} (v{doc['format_version']}: {doc['description']})\n"
                    f"filter:   {f['id']}: {f['description']} ({json.dumps(f['filter'], ensure_ascii=False)})\n"
                    f"trap:     {f['trap']}\nmetadata: {metadata}\n" + "\n".join(problems), pytrace=False)


# --- scan planning: which data files and delete files a scan reads ---------------------------

PLANNERS = ("reference", "pyiceberg", "java")


def _plan_truth(metadata: Path, snapshot_id: int, schema_json: dict[str, Any], row_filter: Any) -> dict[str, Any]:
    """What a plan of the snapshot must hold, from the reference's reading of every live data
    file with the delete files that apply to it (Scan Planning's scope rules; both checked
    elsewhere: the rows against the generator's model by test_tables, the scope rules by the
    delete-planning vectors): per data file, its live rows matching the filter, the delete files
    that apply to it, and those of them that remove a row matching the filter."""
    from iceberg_conformance.reference import scan as ref
    from iceberg_conformance.reference.values import value_to_json

    doc = ref._metadata(str(metadata))
    snap = ref._snapshot(doc, snapshot_id)
    assert snap is not None
    schema = ref.schema_for(doc, snap)
    bound = ex.bind(parse_schema(schema_json), ex.parse_expression(row_filter))

    def as_json(row: dict[int, Any]) -> dict[str, Any]:
        return {str(f.field_id): value_to_json(f.field_type, row.get(f.field_id)) for f in schema.fields}

    def named(row: dict[int, Any]) -> str:
        return json.dumps({f.name: value_to_json(f.field_type, row.get(f.field_id)) for f in schema.fields},
                          sort_keys=True, ensure_ascii=False)

    files: dict[str, dict[str, Any]] = {}
    for task in ref.plan(doc, snap):
        raw = ref.file_rows(doc, schema, task.data)
        matching = [named(r) for r in ref.read_task(doc, schema, task) if ex.evaluate(bound, as_json(r))]
        deletes = {ref._local(x.path): x for x in task.position_deletes + task.equality_deletes}
        if task.deletion_vector is not None:
            deletes[ref._local(task.deletion_vector.path)] = task.deletion_vector
        needed = set()
        for path, x in deletes.items():
            if x.content == 2:
                kept = {id(r) for r in ref._apply_equality(schema, raw, [x])}
                removed = [r for r in raw if id(r) not in kept]
            else:
                one = ref.Task(task.data, deletion_vector=x) if x.is_dv else ref.Task(task.data, position_deletes=[x])
                gone = ref.deleted_positions(one)
                removed = [r for i, r in enumerate(raw) if i in gone]
            if any(ex.evaluate(bound, as_json(r)) for r in removed):
                needed.add(path)
        files[ref._local(task.data.path)] = {
            "rows": matching, "applies": set(deletes), "needed": needed,
            "prunable": not ref.might_match(doc, schema_json, task.data, row_filter)}
    return files


@lru_cache(maxsize=8)
def _plan_truth_of(metadata: str, snapshot_id: int, schema_json: str, row_filter: str) -> dict[str, Any]:
    """:func:`_plan_truth` once per (snapshot, filter) for the planners judged one after the other
    (arguments as JSON text)."""
    return _plan_truth(Path(metadata), snapshot_id, json.loads(schema_json), json.loads(row_filter))


def _judge_plan(truth: dict[str, Any], planned: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(problems, advisories) of a plan against the truth of :func:`_plan_truth`."""
    from iceberg_conformance.reference import scan as ref

    problems, advisories = [], []
    got = {ref._local(str(t["data_file"])): {ref._local(str(d)) for d in t["delete_files"]} for t in planned}
    for path, t in sorted(truth.items()):
        if t["rows"] and path not in got:
            problems.append(f"  data file {path} holds {len(t['rows'])} matching row(s) but is not planned: "
                            + "; ".join(t["rows"][:5]))
    for path, attached in sorted(got.items()):
        t = truth.get(path)
        if t is None:
            problems.append(f"  planned data file {path} is not a live data file of the snapshot")
            continue
        for d in sorted(t["needed"] - attached):
            problems.append(f"  data file {path}: delete file {d} applies to it and removes a matching row, "
                            "but is not attached")
        for d in sorted(attached - t["applies"]):
            problems.append(f"  data file {path}: delete file {d} is attached but does not apply to it "
                            "(scope: sequence number, partition, referenced data file)")
        if t["prunable"]:
            advisories.append(f"data file {path} is planned although its partition and metrics prove that "
                              "no row matches (pruning missed)")
    return problems, advisories


@pytest.mark.area("scan-plan")
@pytest.mark.parametrize(("table", "filter_id", "planner"), _params("test_plan", PLANNERS))
def test_plan(golden_dir: Path, table: str, filter_id: str, planner: str) -> None:
    """The planned data files include every file holding a matching row; each carries every
    delete file that applies to it and removes a matching row, and none that does not apply.
    A planned file that the partition projection and metrics prove cannot match is ADVISORY."""
    f = next(x for x in _filters()[table] if x["id"] == filter_id)
    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    schemas = schema_by_id(golden.read_metadata(metadata))
    problems, advisories = [], []
    for snap in doc["snapshots"]:
        if snap["expired"]:
            continue
        schema = schemas[snap["schema_id"]]
        if expected_rows(schema, snap["rows"], f["filter"]) is None:
            continue
        where = f"snapshot {snap['snapshot_id']} ({snap['label']}; ref {snap['ref']})"
        truth = _plan_truth_of(str(metadata), snap["snapshot_id"], json.dumps(schema), json.dumps(f["filter"]))
        try:
            planned = _target(planner).plan_files(str(metadata), snap["snapshot_id"], f["filter"])
        except Unsupported as e:
            unsupported(planner, str(e))
        except Rejected as e:
            problems.append(f"{where}: {planner} refused the filter, which binds to the snapshot's schema: {e}")
            continue
        except Exception as e:
            problems.append(f"{where}: {planner} raised {type(e).__name__}: {str(e)[:500]}")
            continue
        p, a = _judge_plan(truth, planned)
        if p:
            problems.append(f"{where}:\n" + "\n".join(p))
        advisories += [f"{where}: {x}" for x in a]
    if problems:
        pytest.fail(f"planner:  {planner}\ntable:    {table} (v{doc['format_version']}: {doc['description']})\n"
                    f"filter:   {f['id']}: {f['description']} ({json.dumps(f['filter'], ensure_ascii=False)})\n"
                    f"trap:     {f['trap']}\nmetadata: {metadata}\n" + "\n".join(problems), pytrace=False)
    if advisories:
        advisory(f"{planner} plans files it could prune: " + "; ".join(advisories[:3]))
