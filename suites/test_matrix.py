"""The producer x consumer matrix: every consumer reads every golden table, snapshot by snapshot.

One test per golden table x consumer (:data:`suites.engines.consumers.CONSUMERS`): every live
snapshot is read and compared, as a multiset of rows in the spec's JSON single-value form, with
the rows its generator put there. A mismatch fails naming the table, snapshot, consumer and the
rows that differ. Known bugs and unsupported features of an engine are data
(``suites/engines/known-failures-consumers.json``), matched by table, consumer and the digest of
the normalized problems: KNOWN-FAILURE (an xfail) or UNSUPPORTED (a skip) while the engine fails
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
from pathlib import Path
from typing import Any, Iterator

import pytest

from iceberg_conformance.reference.metadata import schema_by_id
from iceberg_conformance.suites.harness import consumer_matrix as report
from iceberg_conformance.suites.engines.consumers import CONSUMERS, Consumer, ReadRequest
from iceberg_conformance.suites.engines.workspace import Workspace, digest, problem_lines, read_table
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.harness.outcomes import not_judged
from iceberg_conformance.suites.engines.readers import ReaderUnavailable


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
    given = os.environ.get(ENV, "all")
    if given.strip() in ("", "all"):
        return list(CONSUMERS)
    names = [n.strip() for n in given.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONSUMERS]
    if unknown:
        raise pytest.UsageError(f"${ENV}: unknown consumer(s) {unknown}; known: {list(CONSUMERS)}")
    return names


def _params() -> list[Any]:
    return [pytest.param(t, c, id=f"{t}-{c}") for t in golden.REGISTRY for c in _selected()]


def _plain_params() -> list[Any]:
    """For each consumer that reads relocated copies: the first table of each producer, as written."""
    firsts: dict[str, str] = {}
    for name, t in golden.REGISTRY.items():
        firsts.setdefault(t.producer, name)
    return [pytest.param(t, c, id=f"{t}-{c}") for c in _selected() if CONSUMERS[c].paths != "plain"
            for t in firsts.values()]


@pytest.fixture(scope="session")
def workspace(golden_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    ws = Workspace(golden_dir, tmp_path_factory.mktemp("consumers"))
    yield ws
    ws.close()


def _consumer_info(c: Consumer) -> dict[str, Any]:
    try:
        version = c.version()
    except Exception as e:  # a version lookup never fails the matrix
        version = f"unknown ({type(e).__name__})"
    return {"title": c.title, "version": version, "packages": list(c.packages),
            "time_travel": c.time_travel, "paths": c.paths}


def _record(table: str, consumer: Consumer, test: str, verdict: report.Verdict, problems: list[dict[str, Any]],
            dig: str, read: int) -> None:
    out = os.environ.get(CELLS_ENV)
    if not out:
        return
    entry = verdict.entry
    rec = {"table": table, "consumer": consumer.name, "producer": golden.REGISTRY[table].producer, "test": test,
           "status": verdict.status, "message": verdict.message, "snapshots_read": read,
           "problems": problems, "lines": problem_lines(problems), "digest": dig if problems else "",
           "capabilities": list(entry.get("capabilities", [])) if entry else [],
           "known": {k: entry[k] for k in ("kind", "reason", "upstream") if k in entry} if entry else None,
           "nodeid": report.nodeid(table, consumer.name, test), "consumer_info": _consumer_info(consumer)}
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / f"{test}--{table}--{consumer.name}.json").write_text(json.dumps(rec, indent=1, ensure_ascii=False),
                                                                     encoding="utf-8")


def _conclude(table: str, consumer: Consumer, test: str, problems: list[dict[str, Any]], read: int,
              head: str) -> None:
    if not problems and read == 0:
        pytest.fail(f"{head}\nproblem:  no snapshot was read (the expected contents list no live snapshot)",
                    pytrace=False)
    dig = digest(problems)
    verdict = report.judge(report.known_failures(), table, consumer.name, problems, dig, test)
    _record(table, consumer, test, verdict, problems, dig, read)
    if verdict.status == report.PASS:
        return
    body = "\n".join(problem_lines(problems, limit=40))
    if verdict.status == report.KNOWN:
        pytest.xfail(f"known failure of {consumer.name}: {verdict.message} (upstream: {report.upstream(verdict.entry or {})})")
    if verdict.status == report.UNSUPPORTED:
        not_judged(f"UNSUPPORTED by {consumer.name}: {verdict.message}")
    pytest.fail(f"{head}\nproblem:  {verdict.message}\ndigest:   {dig}\n{body}", pytrace=False)


def _unavailable(consumer: str, e: Exception) -> None:
    """A selected consumer whose engine is absent fails: the matrix would silently lose a column."""
    pytest.fail(f"{consumer} was selected (${ENV}) but is not installed: {e}", pytrace=False)


@pytest.mark.parametrize(("table", "consumer"), _params())
def test_consumer_reads_golden_table(golden_dir: Path, workspace: Workspace, table: str, consumer: str) -> None:
    c = CONSUMERS[consumer]
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
    c = CONSUMERS[consumer]
    doc = golden.load_expected(golden_dir, table, required=True)
    metadata = workspace.table_copy(doc, "plain")   # the golden file, or a copy if the directory moved
    md = golden.read_metadata(metadata)
    snap = next(s for s in doc["snapshots"] if s["snapshot_id"] == md.get("current-snapshot-id"))
    request = ReadRequest(metadata=metadata, location=str(metadata), snapshot_id=snap["snapshot_id"],
                          schema=schema_by_id(md)[snap["schema_id"]], table_metadata=md,
                          root=metadata.parents[len(Path(doc["metadata"]).parts) - 1])
    places = workspace.places(doc)
    from iceberg_conformance.suites.engines.workspace import diff_rows, normalize, normalize_error
    from iceberg_conformance.suites.engines.readers import canonical_rows

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


def test_capabilities_derived_from_expected_rows(golden_dir: Path) -> None:
    """capabilities.json's tables for "time travel" are the golden tables with two or more live
    snapshots in expected/<name>.json (those derived from features: tests/test_consumer_matrix.py)."""
    cap = next(c for c in report.capabilities() if c["id"] == "time-travel")
    live = [t for t in golden.REGISTRY
            if sum(1 for s in golden.load_expected(golden_dir, t, required=True)["snapshots"] if not s["expired"]) >= 2]
    assert cap["tables"] == live
