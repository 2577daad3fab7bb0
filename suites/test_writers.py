"""The writer matrix: every writer runs every op-log, and what it wrote is judged.

One test per writer x op-log (:data:`suites.writers.registry.WRITERS` x ``vectors/oplogs``): the
writer runs the op-log into a fresh directory; the table is judged by the checker, by the
reference reader's rows of each step's snapshot against the op-log's rows, and by the op-log's
relations (:mod:`suites.writers.judge`). An op-log needing an operation the writer does not
declare is UNSUPPORTED; a cell whose problems are exactly those of entries in
``suites/writers/known-failures-writers.json`` is a KNOWN-FAILURE (a strict xfail); any other
problem, or a known failure no longer seen, FAILS; checker warnings alone are ADVISORY.

``$ICEBERG_CONFORMANCE_WRITERS`` selects the writers (``all`` or names separated by ``,``); the
writers lane (``tox -e writers``) sets ``all``, and there a writer that cannot run fails. Unset,
only the reference writer runs (it needs nothing but the kit). Each test writes its cell into
``$ICEBERG_CONFORMANCE_WRITER_CELLS`` when set, for the report
(``python -m iceberg_conformance.suites.writers.report``). With ``$ICEBERG_CONFORMANCE_WRITTEN``
the tables are written there and recorded as producers of the consumer matrix
(:mod:`suites.writers.produce`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.harness.outcomes import advisory, not_judged
from iceberg_conformance.suites.harness.selection import selected
from iceberg_conformance.suites.writers import judge, oplogs, produce
from iceberg_conformance.suites.writers.registry import WRITERS, WriterUnavailable

ENV = "ICEBERG_CONFORMANCE_WRITERS"
CELLS_ENV = "ICEBERG_CONFORMANCE_WRITER_CELLS"

pytestmark = [pytest.mark.area("writer-matrix"), pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]


def _selected() -> list[str]:
    """Unset: the reference writer alone (it needs nothing but the kit)."""
    if not os.environ.get(ENV, "").strip():
        return ["reference"]
    return selected(ENV, WRITERS, "writer")


def _params() -> list[Any]:
    out = []
    for w in _selected():
        marks = [pytest.mark.xdist_group(w)]
        if w == "spark":
            marks.append(pytest.mark.spark)
        out += [pytest.param(w, o, id=f"{w}-{o}", marks=marks) for o in sorted(oplogs.load_all())]
    return out


def _record(cell: judge.Cell) -> None:
    out = os.environ.get(CELLS_ENV)
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"{cell.writer}--{cell.oplog}.json").write_text(json.dumps(cell.to_json(), indent=1) + "\n",
                                                                       encoding="utf-8")


@pytest.mark.parametrize(("writer", "oplog"), _params())
def test_writer_runs_oplog(writer: str, oplog: str, tmp_path: Path) -> None:
    w = WRITERS[writer]
    doc = oplogs.load(oplog)
    written = os.environ.get(produce.WRITTEN_ENV)
    root = Path(written) / "warehouse" / produce.table_name(writer, oplog) if written else tmp_path / "table"
    try:
        cell = judge.run_cell(w, doc, str(root))
    except WriterUnavailable as e:
        pytest.fail(f"{writer} was selected but cannot run: {e}", pytrace=False)
        return
    if cell.status == judge.KNOWN or cell.known:
        # each second reader a known failure names must still meet the table as recorded
        cell.second_readers = judge.second_reads(cell)
    _record(cell)
    if written:
        produce.export(Path(written), cell, doc)
    wrong = [r for r in cell.second_readers if not r["ok"]]
    head = f"writer: {writer} ({w.title}, {cell.version})\nop-log: {oplog} (v{cell.format_version}, {cell.operation})"
    if wrong:
        pytest.fail(f"{head}\nsecond readers not as recorded: " + "; ".join(
            f"{r['engine']}: expected {r['outcome']} {r['match']!r}, saw {r['seen']}" for r in wrong), pytrace=False)
    if cell.status == judge.UNSUPPORTED:
        not_judged(f"UNSUPPORTED by {writer}: {cell.message}")
    if cell.status == judge.KNOWN:
        pytest.xfail(f"known failure of {writer}: {cell.message}")
    if cell.status == judge.FAIL:
        pytest.fail(f"{head}\ntable:  {cell.table}\nproblem: {cell.message}", pytrace=False)
    if cell.status == judge.ADVISORY:
        advisory(f"{writer} on {oplog}: " + "; ".join(f"{k}: {v}" for k, v in sorted(cell.advisories.items()))[:1500])
    assert cell.status == judge.PASS, cell.status
