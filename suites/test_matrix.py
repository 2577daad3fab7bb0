"""The producer x consumer matrix: every consumer reads every golden table, snapshot by snapshot,
unfiltered and under every row filter.

One test per golden table x consumer (:data:`suites.engines.registry.ENGINES`): every live
snapshot is read and compared, as a multiset of rows in the spec's JSON single-value form, with
the rows its generator put there. A mismatch fails naming the table, snapshot, consumer and the
rows that differ.

One test per golden table x row filter x consumer (``suites/golden/filters.json``): every live
snapshot whose schema binds the filter is read under it, in the engine's own query form (SQL
``WHERE``, a dataframe expression, the Iceberg expression), and judged with the engine's own
semantics against its own unfiltered read of the snapshot (:mod:`suites.engines.filtering`).

One test per golden table x projection x consumer (``suites/golden/projections.json``): every live
snapshot holding the projection's columns is read whole and then, in the same session, as the
projection (columns in the order it asks); the projected rows must be the expected rows cut to
those columns (a multiset). A consumer the kit reads whole is UNSUPPORTED there, never a pass. Known bugs and unsupported features of an engine are data
(``suites/engines/known-failures-consumers.json``), matched by table (and filter), consumer and
the digest of the normalized problems: KNOWN-FAILURE (an xfail) or UNSUPPORTED (a skip) while the engine fails
exactly so, FAIL when it fails otherwise or no longer fails.

The suite runs when ``$ICEBERG_CONFORMANCE_CONSUMERS`` is set (``all``, or consumer names
separated by ``,``): the consumers lane (``tox -e consumers``) sets it, and there an engine that
is not installed fails. Elsewhere the suite is skipped with that reason. Each test writes its
cell record into ``$ICEBERG_CONFORMANCE_MATRIX_CELLS`` when set, for the report
(``python -m iceberg_conformance.suites.harness.consumer_matrix``).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

import pytest

from iceberg_conformance.reference.metadata import schema_by_id
from iceberg_conformance.suites.engines.filtering import JUDGED, judge_case
from iceberg_conformance.suites.engines.process import ReaderCrashed, ReaderUnavailable
from iceberg_conformance.suites.engines.registry import (
    ENGINES, CaseRead, Engine, ReadRequest, SnapshotRead, error_text,
)
from iceberg_conformance.suites.engines.rows import canonical_rows, diff_rows
from iceberg_conformance.suites.engines.workspace import (
    Workspace, compare_read, digest, normalize, normalize_error, problem_lines, read_table,
)
from iceberg_conformance.suites.golden import filters as golden_filters
from iceberg_conformance.suites.golden import projections as golden_projections
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.golden.filters import expected_rows
from iceberg_conformance.suites.harness import consumer_matrix as report
from iceberg_conformance.suites.harness.outcomes import not_judged
from iceberg_conformance.suites.harness.selection import selected
from iceberg_conformance.suites.writers import produce


ENV = "ICEBERG_CONFORMANCE_CONSUMERS"
CELLS_ENV = "ICEBERG_CONFORMANCE_MATRIX_CELLS"

pytestmark = [
    pytest.mark.spark, pytest.mark.area("consumer-matrix"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.skipif(not os.environ.get(ENV), reason=f"the producer x consumer matrix runs in the consumers lane "
                       f"(tox -e consumers, or set ${ENV}=all with the `consumers` extra installed)"),
]


def _selected() -> list[str]:
    """The consumers ``$ICEBERG_CONFORMANCE_CONSUMERS`` asks for; none when it is unset (each test
    function is then one skip with the reason, not one skip per table, filter and engine)."""
    if not os.environ.get(ENV):
        return []
    return selected(ENV, ENGINES, "consumer")


def _group(consumer: str) -> Any:
    """Tests of one consumer run in one worker under ``pytest -n N --dist loadgroup`` (the lane's
    way): an engine's process, its reads of a table and the Spark session are made once. Spark
    SQL and Iceberg Java's generic reader share Spark's JVM."""
    return pytest.mark.xdist_group("jvm" if consumer in ("spark-sql", "java") else consumer)


def _params() -> list[Any]:
    return [pytest.param(t, c, id=f"{t}-{c}", marks=_group(c)) for t in golden.REGISTRY for c in _selected()]


def _filter_params() -> list[Any]:
    """One param per table x consumer x filter, grouped so that one table's reads by one consumer
    are made once (:func:`_scans`)."""
    filters = golden_filters.load()
    return [pytest.param(t, f["id"], c, id=f"{t}-{f['id']}-{c}", marks=_group(c))
            for t in golden.REGISTRY for c in _selected() for f in filters.get(t, [])]


def _projection_params() -> list[Any]:
    """One param per table x consumer x projection, grouped as the filter params are."""
    projections = golden_projections.load()
    return [pytest.param(t, p["id"], c, id=f"{t}-{p['id']}-{c}", marks=_group(c))
            for t in golden.REGISTRY for c in _selected() for p in projections.get(t, [])]


def _plain_params() -> list[Any]:
    """For each consumer that reads relocated copies: the first table of each producer, as written."""
    firsts: dict[str, str] = {}
    for name, t in golden.REGISTRY.items():
        firsts.setdefault(t.producer, name)
    return [pytest.param(t, c, id=f"{t}-{c}", marks=_group(c)) for c in _selected() if ENGINES[c].paths != "plain"
            for t in firsts.values()]


#: the tables the writers wrote ($ICEBERG_CONFORMANCE_WRITTEN, suites/writers/produce.py), by name
_WRITTEN = produce.written_tables(Path(os.environ[produce.WRITTEN_ENV])) if os.environ.get(produce.WRITTEN_ENV) else {}
_WRITTEN_PRODUCERS = {name: str(doc["producer"]) for name, doc in _WRITTEN.items()}


def _written_params() -> list[Any]:
    """One param per written table x consumer: the writers as producers."""
    return [pytest.param(t, c, id=f"{t}-{c}", marks=_group(c)) for t in _WRITTEN for c in _selected()]


@pytest.fixture(scope="session")
def written_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    ws = Workspace(Path(os.environ[produce.WRITTEN_ENV]), tmp_path_factory.mktemp("written"))
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def workspace(golden_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    ws = Workspace(golden_dir, tmp_path_factory.mktemp("consumers"))
    yield ws
    ws.close()


def _consumer_info(c: Engine) -> dict[str, Any]:
    try:
        version = c.version()
    except Exception as e:  # a version lookup never fails the matrix
        version = f"unknown ({type(e).__name__})"
    return {"title": c.title, "version": version, "packages": list(c.packages),
            "time_travel": c.time_travel, "paths": c.paths}


def _record(table: str, consumer: Engine, test: str, verdict: report.Verdict, problems: list[dict[str, Any]],
            dig: str, read: int, row_filter: str = "", cases: dict[str, int] | None = None) -> None:
    out = os.environ.get(CELLS_ENV)
    if not out:
        return
    entry = verdict.entry
    producer = golden.REGISTRY[table].producer if table in golden.REGISTRY else _WRITTEN_PRODUCERS.get(table, "?")
    rec = {"table": table, "consumer": consumer.name, "producer": producer, "test": test,
           "status": verdict.status, "message": verdict.message, "snapshots_read": read,
           "problems": problems, "lines": problem_lines(problems), "digest": dig if problems else "",
           "capabilities": list(entry.get("capabilities", [])) if entry else [],
           "known": {k: entry[k] for k in ("kind", "reason", "upstream", "fault", "writer_problem") if k in entry}
           if entry else None,
           "nodeid": report.nodeid(table, consumer.name, test, row_filter), "consumer_info": _consumer_info(consumer)}
    if test in ("filter", "projection"):
        rec["filter"] = row_filter      # the case: a filter id, or a projection id
    if cases is not None:
        rec["cases"] = dict(cases)
    Path(out).mkdir(parents=True, exist_ok=True)
    name = f"{test}--{table}--{row_filter + '--' if row_filter else ''}{consumer.name}.json"
    (Path(out) / name).write_text(json.dumps(rec, indent=1, ensure_ascii=False), encoding="utf-8")


def _conclude(table: str, consumer: Engine, test: str, problems: list[dict[str, Any]], read: int,
              head: str, row_filter: str = "", cases: dict[str, int] | None = None,
              writer_problems: list[str] | None = None) -> None:
    if not problems and read == 0:
        pytest.fail(f"{head}\nproblem:  no snapshot was read (the expected contents list no live snapshot)",
                    pytrace=False)
    dig = digest(problems)
    known = report.known_failures(report.WRITTEN_KNOWN_FILE if test == "written" else report.KNOWN_FILE)
    verdict = report.judge(known, table, consumer.name, problems, dig, test, row_filter)
    entry = verdict.entry or {}
    if verdict.status != report.FAIL and entry.get("fault") == "writer" and \
            entry.get("writer_problem") not in (writer_problems or []):
        # the attribution holds only while the writer's cell shows the problem it names
        verdict = report.Verdict(report.FAIL, f"attributed to the writer's {entry.get('writer_problem')}, which its "
                                 f"cell no longer shows (its problems: {', '.join(writer_problems or []) or 'none'})",
                                 entry)
    _record(table, consumer, test, verdict, problems, dig, read, row_filter, cases)
    if verdict.status == report.PASS:
        return
    body = "\n".join(problem_lines(problems, limit=40))
    if verdict.status == report.KNOWN:
        pytest.xfail(f"known failure of {consumer.name}: {verdict.message} (upstream: {report.upstream(verdict.entry or {})})")
    if verdict.status == report.UNSUPPORTED:
        not_judged(f"UNSUPPORTED by {consumer.name}: {verdict.message}")
    pytest.fail(f"{head}\nproblem:  {verdict.message}\ndigest:   {dig}\n{body}", pytrace=False)


def _unavailable(consumer: str, e: Exception) -> NoReturn:
    """A selected consumer whose engine is absent fails: the matrix would silently lose a column."""
    pytest.fail(f"{consumer} was selected (${ENV}) but is not installed: {e}", pytrace=False)


@pytest.mark.parametrize(("table", "consumer"), _params())
def test_consumer_reads_golden_table(golden_dir: Path, workspace: Workspace, table: str, consumer: str) -> None:
    c = ENGINES[consumer]
    doc = golden.load_expected(golden_dir, table, required=True)
    try:
        problems, read = read_table(c, workspace, doc)
    except ReaderUnavailable as e:
        _unavailable(consumer, e)
        return
    head = (f"consumer: {consumer} ({c.title})\ntable:    {table} ({golden.REGISTRY[table].producer}, "
            f"v{doc['format_version']}: {doc['description']})")
    _conclude(table, c, "table", problems, read, head)


@pytest.mark.parametrize(("table", "consumer"), _plain_params())
def test_consumer_reads_plain_paths(golden_dir: Path, workspace: Workspace, table: str, consumer: str) -> None:
    """A consumer that is given relocated copies is also given the table as written (absolute
    paths without a URI scheme, as Iceberg Java's Hadoop catalog and PyIceberg write them for a
    plain warehouse path): its current snapshot, named by the metadata file's plain path."""
    c = ENGINES[consumer]
    doc = golden.load_expected(golden_dir, table, required=True)
    metadata = workspace.table_copy(doc, "plain")   # the golden file, or a copy if the directory moved
    md = golden.read_metadata(metadata)
    snap = next(s for s in doc["snapshots"] if s["snapshot_id"] == md.get("current-snapshot-id"))
    request = ReadRequest(metadata=metadata, location=str(metadata), snapshot_id=snap["snapshot_id"],
                          schema=schema_by_id(md)[snap["schema_id"]], table_metadata=md,
                          root=metadata.parents[len(Path(doc["metadata"]).parts) - 1])
    places = workspace.places(doc)
    problems: list[dict[str, Any]] = []
    read = 0
    try:
        rows = canonical_rows(request.schema, c.read(request))
        read = 1
        d = diff_rows(snap["rows"], rows)
        if d:
            problems.append({"snapshot": snap["label"], "rows": [normalize(x.strip(), places) for x in d]})
    except ReaderUnavailable as e:
        _unavailable(consumer, e)
        return
    except Exception as e:
        first = " ".join(str(e).split())[:600]
        problems.append({"snapshot": snap["label"], "error": normalize_error(f"{type(e).__name__}: {first}", places)})
    head = f"consumer: {consumer} ({c.title}), given the table as written\ntable:    {table} ({metadata})"
    _conclude(table, c, "plain-paths", problems, read, head)


def _normalized(problem: dict[str, Any], places: dict[str, str], error: Callable[[str], str]) -> dict[str, Any]:
    """A filter case's problem with its error (through ``error``) or rows normalized."""
    p = dict(problem)
    if "error" in p:
        p["error"] = error(p["error"])
    else:
        p["rows"] = [normalize(x, places) for x in p["rows"]]
    return p


#: the scans of the table and consumer the last filter test read (tests are grouped by both)
_SCANS: dict[tuple[str, str], dict[int, SnapshotRead]] = {}


def _scan(consumer: Engine, request: ReadRequest, filters: dict[str, Any]) -> SnapshotRead:
    """The snapshot read unfiltered and under each filter. An engine process that dies reading the
    batch is asked again filter by filter, so a crash is the case of the filter that causes it."""
    try:
        return consumer.scan(request, filters)
    except ReaderUnavailable:
        raise
    except ReaderCrashed as crash:
        try:
            out = consumer.scan(request, {})
        except ReaderCrashed as e:
            return SnapshotRead(base_error=f"ReaderCrashed: {e}", cases={key: CaseRead() for key in filters})
        for key, expr in filters.items():
            try:
                out.cases[key] = consumer.scan(request, {key: expr}).cases[key]
            except ReaderCrashed as e:
                out.cases[key] = CaseRead(pushed_error=f"ReaderCrashed: {e}", memory_error=f"ReaderCrashed: {crash}")
        return out
    except Exception as e:   # the engine failed before reading (opening the table): no base to judge with
        # every filter is a case of the snapshot still: judged "cannot read the snapshot without a
        # filter" (the table cell reports the failure), not a filter that binds no snapshot
        return SnapshotRead(base_error=error_text(e), cases={key: CaseRead() for key in filters})


def _per_snapshot(cache: dict[tuple[str, str], dict[int, SnapshotRead]], workspace: Workspace, doc: dict[str, Any],
                  consumer: Engine, cases: Callable[[ReadRequest, dict[str, Any]], dict[str, Any]],
                  read: Callable[[ReadRequest, dict[str, Any]], SnapshotRead]) -> dict[int, SnapshotRead]:
    """``read(request, cases)`` of every live snapshot of the table with cases, once per table
    and consumer (``cache`` keeps the last table and consumer read)."""
    key = (doc["name"], consumer.name)
    if key not in cache:
        cache.clear()
        out: dict[int, SnapshotRead] = {}
        for snap in doc["snapshots"]:
            if snap["expired"]:
                continue
            request = workspace.request(consumer, doc, snap["snapshot_id"])
            wanted = cases(request, snap)
            if wanted:
                out[snap["snapshot_id"]] = read(request, wanted)
        cache[key] = out
    return cache[key]


def _scans(workspace: Workspace, doc: dict[str, Any], consumer: Engine) -> dict[int, SnapshotRead]:
    """Every live snapshot of the table read by the consumer unfiltered and under each filter
    that binds the snapshot's schema, once per table and consumer."""
    filters = golden_filters.load().get(doc["name"], [])
    return _per_snapshot(_SCANS, workspace, doc, consumer, lambda request, snap: {
        f["id"]: f["filter"] for f in filters if expected_rows(request.schema, snap["rows"], f["filter"]) is not None},
        lambda request, binding: _scan(consumer, request, binding))


def _reads_of(read: Callable[[Workspace, dict[str, Any], Engine], dict[int, SnapshotRead]], golden_dir: Path,
              workspace: Workspace, doc: dict[str, Any],
              c: Engine) -> tuple[dict[int, SnapshotRead], dict[str, str], dict[int, dict[str, Any]]]:
    """``read``'s snapshots of the table by the consumer (an absent engine fails the test), the
    places its messages are normalized with, and the table's schemas by id."""
    try:
        reads = read(workspace, doc, c)
    except ReaderUnavailable as e:
        _unavailable(c.name, e)
    return reads, workspace.places(doc), schema_by_id(golden.read_metadata(golden_dir / "warehouse" / doc["metadata"]))


def _cases_of(doc: dict[str, Any], reads: dict[int, SnapshotRead],
              case_id: str) -> Iterator[tuple[dict[str, Any], str, SnapshotRead, CaseRead]]:
    """Each snapshot read with case ``case_id``: the snapshot, its label, its read and the case."""
    for snap in doc["snapshots"]:
        got = reads.get(snap["snapshot_id"])
        if got is not None and case_id in got.cases:
            yield snap, snap["label"] + (f" [{snap['ref']}]" if snap["ref"] != "main" else ""), got, got.cases[case_id]


@pytest.mark.parametrize(("table", "filter_id", "consumer"), _filter_params())
def test_consumer_filters_golden_table(golden_dir: Path, workspace: Workspace, table: str, filter_id: str,
                                       consumer: str) -> None:
    """The consumer reads every live snapshot that binds the filter under it, in its own query
    form; the rows must be its own unfiltered rows kept by its own evaluation of the condition."""
    c = ENGINES[consumer]
    doc = golden.load_expected(golden_dir, table, required=True)
    f = next(x for x in golden_filters.load()[table] if x["id"] == filter_id)
    scans, places, schemas = _reads_of(_scans, golden_dir, workspace, doc, c)
    problems: list[dict[str, Any]] = []
    cases: Counter[str] = Counter()
    reasons: list[str] = []
    conditions: set[str] = set()
    for snap, label, read, case in _cases_of(doc, scans, filter_id):
        verdict = judge_case(c, schemas[snap["schema_id"]], snap["rows"], f["filter"], read, case, label)
        cases[verdict.outcome] += 1
        if case.condition:
            conditions.add(case.condition)
        if verdict.problem is not None:
            cases["wrong"] += 1
            problems.append(_normalized(verdict.problem, places, lambda e: normalize_error(e, places)))
        elif verdict.outcome == JUDGED:
            cases["correct"] += 1
        else:
            reasons.append(f"{label}: {verdict.reason}")
    if not sum(cases.values()):
        pytest.fail(f"{table} > {filter_id}: the filter binds no live snapshot of the table", pytrace=False)
    head = (f"consumer: {consumer} ({c.title})\ntable:    {table} ({golden.REGISTRY[table].producer}, "
            f"v{doc['format_version']}: {doc['description']})\n"
            f"filter:   {filter_id}: {f['description']} ({json.dumps(f['filter'], ensure_ascii=False)})\n"
            f"as:       {' | '.join(sorted(conditions)) or '-'}\ntrap:     {f['trap']}")
    if problems and c.filters == "none":
        # no filter API: judged as a full read, whose differences are the table cell's
        entry = report.find_entry(report.known_failures(), table, consumer)
        if entry is not None:
            status = report.UNSUPPORTED if entry["kind"] == "unsupported" else report.KNOWN
            inherited = report.Verdict(status, f"judged as a full read: {entry['reason']}", entry)
            _record(table, c, "filter", inherited, problems, digest(problems), cases[JUDGED], filter_id, cases)
            if status == report.KNOWN:
                pytest.xfail(f"known failure of {consumer} (its full read, table cell): {entry['reason']}")
            not_judged(f"UNSUPPORTED by {consumer} (its full read, table cell): {entry['reason']}")
    if not problems and not cases[JUDGED]:
        # no translation, or no unfiltered read to judge against (the table cell reports that)
        status = report.UNSUPPORTED if cases["unsupported"] else report.UNTESTED
        _record(table, c, "filter", report.Verdict(status, "; ".join(reasons)), [], "", 0, filter_id, cases)
        not_judged(f"{status} for {consumer}: " + "; ".join(reasons)[:1500])
    _conclude(table, c, "filter", problems, cases[JUDGED], head, filter_id, cases)


#: the projected reads of the table and consumer the last projection test read
_PROJECTED: dict[tuple[str, str], dict[int, SnapshotRead]] = {}


def _projected(workspace: Workspace, doc: dict[str, Any], consumer: Engine) -> dict[int, SnapshotRead]:
    """Every live snapshot of the table read whole and then as each projection its schema holds,
    in one session of the consumer, once per table and consumer."""
    projections = golden_projections.load().get(doc["name"], [])

    def project(request: ReadRequest, wanted: dict[str, Any]) -> SnapshotRead:
        try:
            return consumer.project(request, wanted)
        except ReaderUnavailable:
            raise
        except Exception as e:   # the engine failed before reading (or its process died)
            return SnapshotRead(base_error=error_text(e), cases={k: CaseRead(pushed_error=error_text(e)) for k in wanted})

    return _per_snapshot(_PROJECTED, workspace, doc, consumer, lambda request, snap: {
        p["id"]: p["columns"] for p in projections if golden_projections.binds(request.schema, p["columns"])}, project)


@pytest.mark.parametrize(("table", "projection_id", "consumer"), _projection_params())
def test_consumer_projects_golden_table(golden_dir: Path, workspace: Workspace, table: str, projection_id: str,
                                        consumer: str) -> None:
    """The consumer reads every live snapshot holding the projection's columns whole and then,
    in the same session, as the projection: its rows must be the expected rows cut to those
    columns, as a multiset."""
    c = ENGINES[consumer]
    doc = golden.load_expected(golden_dir, table, required=True)
    p = next(x for x in golden_projections.load()[table] if x["id"] == projection_id)
    if c.project_here is None:
        reason = f"{consumer} is read whole by the kit (no projected read): the projection is not judged"
        _record(table, c, "projection", report.Verdict(report.UNSUPPORTED, reason), [], "", 0, projection_id)
        not_judged(f"UNSUPPORTED for {consumer}: {reason}")
    reads, places, schemas = _reads_of(_projected, golden_dir, workspace, doc, c)
    problems: list[dict[str, Any]] = []
    read = 0
    queries: set[str] = set()
    for snap, label, _got, case in _cases_of(doc, reads, projection_id):
        queries.add(case.condition)
        if case.pushed is None:
            problems.append({"snapshot": label, "error": normalize_error(case.pushed_error or "no rows", places)})
            continue
        read += 1
        schema = golden_projections.projected_schema(schemas[snap["schema_id"]], p["columns"])
        problem = compare_read(c, schema, case.pushed, golden_projections.projected_rows(snap["rows"], p["columns"]),
                               label, places)
        if problem is not None:
            problems.append(problem)
    if not problems and not read:
        pytest.fail(f"{table} > {projection_id}: no live snapshot of the table holds the columns {p['columns']}",
                    pytrace=False)
    head = (f"consumer: {consumer} ({c.title})\ntable:    {table} ({golden.REGISTRY[table].producer}, "
            f"v{doc['format_version']}: {doc['description']})\n"
            f"projection: {projection_id}: {p['columns']} (after a full read, same session)\n"
            f"as:       {' | '.join(sorted(queries)) or '-'}\ntrap:     {p['trap']}")
    _conclude(table, c, "projection", problems, read, head, projection_id)


def test_capabilities_derived_from_expected_rows(golden_dir: Path) -> None:
    """capabilities.json's tables for "time travel" are the golden tables with two or more live
    snapshots in expected/<name>.json (those derived from features: tests/test_consumer_matrix.py)."""
    cap = next(c for c in report.capabilities() if c["id"] == "time-travel")
    live = [t for t in golden.REGISTRY
            if sum(1 for s in golden.load_expected(golden_dir, t, required=True)["snapshots"] if not s["expired"]) >= 2]
    assert cap["tables"] == live


def _written_error(raw: str, places: dict[str, str]) -> str:
    """An engine's error, normalized. An error cut at its length limit before normalization
    (``registry.error_text``) ends where the lengths of the paths before the cut put it, which
    differ with the directory the tables were written to: it is kept up to its first file."""
    text = normalize_error(raw, places)
    if len(raw) < 600:
        return text
    first = re.search(r"<file>(\.\w+)?", text)
    return (text[:first.end()] if first else text) + " [cut]"


def _label(snap: dict[str, Any]) -> str:
    return snap["label"] + "".join(f" [{r}]" for r in snap["refs"] if r != "main")


@pytest.mark.parametrize(("table", "consumer"), _written_params())
def test_consumer_reads_written_table(written_workspace: Workspace, table: str, consumer: str) -> None:
    """A table a writer wrote from an op-log ($ICEBERG_CONFORMANCE_WRITTEN): its current snapshot
    and those the op-log's branches and tags name (:func:`produce.read_snapshots`) are read once
    unfiltered, compared with the op-log's rows after that step, and under the table's fixed
    filters (:func:`produce.filters_for`: eq, range, is-null, in on its columns), each judged as
    the golden tables' filter cases are. The checker's verdict on the table (in the message) says
    whether the writer or the reader broke the spec."""
    c = ENGINES[consumer]
    doc = _WRITTEN[table]
    places = written_workspace.places(doc)
    filters = {f["id"]: f["filter"] for f in doc.get("filters", [])}
    problems: list[dict[str, Any]] = []
    cases: Counter[str] = Counter()
    read = 0
    for snap in produce.read_snapshots(doc):
        label = _label(snap)
        try:
            request = written_workspace.request(c, doc, snap["snapshot_id"])
            binding = {k: f for k, f in filters.items() if expected_rows(request.schema, snap["rows"], f) is not None}
            scanned = _scan(c, request, binding)
        except ReaderUnavailable as e:
            _unavailable(consumer, e)
            return
        if scanned.base is None:
            problems.append({"snapshot": label, "error": _written_error(scanned.base_error or "no rows", places)})
            continue
        read += 1
        problem = compare_read(c, request.schema, scanned.base, snap["rows"], label, places)
        if problem is not None:
            problems.append(problem)
            if "error" in problem:   # values without a canonical form: no rows to judge the filters with
                continue
        for key, case in scanned.cases.items():
            v = judge_case(c, request.schema, snap["rows"], binding[key], scanned, case, f"{label} > {key}")
            cases[v.outcome] += 1
            if v.problem is not None:
                problems.append(_normalized(v.problem, places, lambda e: _written_error(e, places)))
    verdict = ("checker errors on the table: " + ", ".join(doc["checker_errors"])) if doc["checker_errors"] \
        else "the checker finds no error in the table"
    head = (f"consumer: {consumer} ({c.title})\ntable:    {table} ({doc['producer']}, v{doc['format_version']}: "
            f"{doc['description']})\nwriter:   {verdict}\nfilters:  {', '.join(filters) or '-'}")
    _conclude(table, c, "written", problems, read, head, cases=dict(cases),
              writer_problems=list(doc.get("writer_problems", [])))
