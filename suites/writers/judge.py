"""A written table judged three ways, and the cell's status.

1. The checker (``checker.check.check_table``) on the table as the writer left it: an error is a
   problem of the writer (``checker:<rule>``), a warning an advisory.
2. The reference reader's rows of the snapshot each data step left, read by id from the final
   metadata (time travel), against the op-log's rows after that step (its ``expect``, which a
   test holds equal to :func:`oplogs.replay`):
   ``rows:step<i>``; a step the writer failed is ``error:step<i>`` (``error:create``).
3. The op-log's relations, on the rows read (not the expected ones): ``time-travel`` (the
   snapshot read through the metadata file current after its step equals it read from the
   final metadata), ``delete-is-set-difference`` (a delete's rows are the previous rows less those
   its filter selects), ``compaction-preserves-rows`` (a compaction's rows are the previous ones)
   and ``summary-totals`` (a snapshot without delete files whose summary has ``total-records``
   holds that many rows; the totals are a recommendation: advisory).

Statuses: PASS; ADVISORY (passes, with warnings); FAIL; KNOWN-FAILURE (every problem is named by
an entry of ``known-failures-writers.json`` for this writer and op-log, and every problem an
entry names is there: a stale entry fails); UNSUPPORTED (the writer does not declare an
operation the op-log needs).
"""

from __future__ import annotations

import fnmatch
import json
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.engines.rows import diff_rows
from iceberg_conformance.suites.writers import oplogs
from iceberg_conformance.suites.writers.drivers import common
from iceberg_conformance.suites.writers.registry import Writer

KNOWN_FILE = Path(__file__).resolve().parent / "known-failures-writers.json"
PASS, ADVISORY, FAIL, KNOWN, UNSUPPORTED = "PASS", "ADVISORY", "FAIL", "KNOWN-FAILURE", "UNSUPPORTED"
STATUSES = (PASS, ADVISORY, FAIL, KNOWN, UNSUPPORTED)


@dataclass
class Cell:
    writer: str
    oplog: str
    operation: str
    format_version: int
    status: str = PASS
    message: str = ""
    #: problem key -> detail (the writer's failures)
    problems: dict[str, str] = field(default_factory=dict)
    #: advisory key -> detail (checker warnings, relations that are recommendations)
    advisories: dict[str, str] = field(default_factory=dict)
    known: list[dict[str, Any]] = field(default_factory=list)
    version: str = ""
    table: str = ""
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    #: second readers of a known failure, read again (:func:`second_reads`)
    second_readers: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def known_failures(path: Path = KNOWN_FILE) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["known_failures"]
    return data


def _multiset(rows: list[dict[str, Any]]) -> Counter[str]:
    return Counter(json.dumps(r, sort_keys=True) for r in rows)


def _read(metadata: str, snapshot: int | None) -> list[dict[str, Any]]:
    from iceberg_conformance.reference.scan import scan
    if snapshot is None:
        return []
    return scan(metadata, snapshot)


def check(table: str, cell: Cell) -> None:
    """The checker on the table: errors are problems, warnings advisories (first finding's text)."""
    from iceberg_conformance.checker.check import check_table
    result = check_table(table)
    for f in result.findings:
        target = cell.problems if f.severity == "error" else cell.advisories
        key = f"checker:{f.rule}"
        if key not in target:
            target[key] = f"{f.file} at {f.location}: {f.message}"[:600]


def judge_rows(oplog: dict[str, Any], steps: list[dict[str, Any]], final: str, cell: Cell) -> None:
    """Rows per data step against the op-log, and the relations."""
    expected = {i: oplogs.canonical_rows(oplogs.fields_after(oplog, i), s["expect"])
                for i, s in enumerate(oplog["steps"]) if "expect" in s}
    relations = set(oplog.get("relations", []))
    by_index = {s["index"]: s for s in steps}
    read: dict[int, list[dict[str, Any]]] = {}
    previous: int | None = None
    failed = [s["index"] for s in steps if s.get("error")]
    for i, step in enumerate(oplog["steps"]):
        if step["op"] not in oplogs.DATA_STEPS:
            continue
        if i not in by_index and not any(f < i for f in failed):
            # no step before it failed, yet the writer reported nothing for it: a driver that
            # stopped early or lost a step's record is not a pass
            cell.problems[f"missing:step{i}"] = f"step {i} ({step['op']}): the writer reported no result for it"
            continue
        if i not in by_index or by_index[i]["error"]:
            continue
        done = by_index[i]
        sid = done["snapshot"]
        cell.snapshots.append({"step": i, "op": step["op"], "snapshot": sid})
        try:
            rows = _read(final, sid)
        except Exception as e:  # the reference cannot read what the writer wrote
            cell.problems[f"read:step{i}"] = f"snapshot {sid}: {type(e).__name__}: {' '.join(str(e).split())[:400]}"
            previous = None
            continue
        read[i] = rows
        diff = diff_rows(expected[i], rows)
        if diff:
            cell.problems[f"rows:step{i}"] = f"snapshot {sid} after step {i} ({step['op']}): " + "; ".join(diff)[:600]
        if "time-travel" in relations and done.get("metadata") and done["metadata"] != final:
            try:
                then = _read(done["metadata"], sid)
                if _multiset(then) != _multiset(rows):
                    cell.problems[f"relation:time-travel:step{i}"] = (
                        f"snapshot {sid} read through {done['metadata']} differs from it read by id from {final}")
            except Exception as e:
                cell.problems[f"relation:time-travel:step{i}"] = f"{done['metadata']}: {type(e).__name__}: {e}"[:400]
        if previous is not None and previous in read:
            before = read[previous]
            if step["op"] == "delete" and "delete-is-set-difference" in relations:
                fields = oplogs.fields_after(oplog, i)
                kept = [r for r in before if not oplogs.matches(fields, step["where"], r)]
                if _multiset(kept) != _multiset(rows):
                    cell.problems[f"relation:delete-is-set-difference:step{i}"] = (
                        f"rows after the delete are not the previous snapshot's rows less those {step['where']} selects: "
                        + "; ".join(diff_rows(kept, rows))[:500])
            if step["op"] == "compact" and "compaction-preserves-rows" in relations and _multiset(before) != _multiset(rows):
                cell.problems[f"relation:compaction-preserves-rows:step{i}"] = (
                    "the compaction changed the rows: " + "; ".join(diff_rows(before, rows))[:500])
        if "summary-totals" in relations:
            _summary(final, sid, len(rows), i, cell)
        previous = i


def _summary(metadata: str, sid: int | None, count: int, i: int, cell: Cell) -> None:
    doc = json.loads(Path(metadata).read_text(encoding="utf-8"))
    snap = next((s for s in doc.get("snapshots", []) if s.get("snapshot-id") == sid), None)
    summary = (snap or {}).get("summary") or {}
    if "total-records" not in summary:
        return
    deletes = sum(int(summary.get(k, "0") or 0) for k in ("total-delete-files", "total-position-deletes",
                                                         "total-equality-deletes"))
    if deletes == 0 and int(summary["total-records"]) != count:
        cell.advisories[f"relation:summary-totals:step{i}"] = (
            f"snapshot {sid}: summary total-records {summary['total-records']} but {count} rows (no delete files)")


def _names(entry: dict[str, Any], oplog: str) -> bool:
    """Whether a known-failure entry is about this op-log (``oplog``: a glob or a list of globs)."""
    globs = entry["oplog"] if isinstance(entry["oplog"], list) else [entry["oplog"]]
    return any(fnmatch.fnmatchcase(oplog, g) for g in globs)


def _apply_known(cell: Cell, entries: list[dict[str, Any]]) -> None:
    """The cell's status from its problems and the known failures of this writer and op-log.
    An entry names ``problems`` (the writer's errors it explains) and may name ``advisories``
    (checker warnings it records, with the rule and upstream link); each named key must be
    seen, else the entry is stale and the cell FAILS. ``intermittent`` names problems the writer
    shows on some runs only: covered when seen, not required."""
    mine = [e for e in entries if e["writer"] == cell.writer and _names(e, cell.oplog)]
    failing = set(cell.problems)
    named = [p for e in mine for p in e["problems"]]
    # problems a writer shows on some runs only (seen, recorded with the rate): covered when seen,
    # never stale when not
    sometimes = [p for e in mine for p in e.get("intermittent", [])]
    named_adv = [a for e in mine for a in e.get("advisories", [])]

    def covers(e: dict[str, Any], k: str, patterns: list[str]) -> bool:
        # an entry with error_match explains a step's error only when the error says that text,
        # so another exception at the same step (a bug of the driver, another refusal) is no
        # known failure
        if not any(fnmatch.fnmatchcase(k, p) for p in patterns):
            return False
        return not (k.startswith("error:") and e.get("error_match")) or e["error_match"] in cell.problems[k]

    uncovered = sorted(k for k in failing
                       if not any(covers(e, k, e["problems"] + e.get("intermittent", [])) for e in mine))
    stale = sorted(p for e in mine for p in e["problems"] if not any(covers(e, k, [p]) for k in failing))
    stale += sorted(a for a in named_adv if not any(fnmatch.fnmatchcase(k, a) for k in cell.advisories))
    cell.known = mine
    if uncovered or stale:
        cell.status = FAIL
        parts = []
        if uncovered:
            parts.append("not a known failure: "
                         + "; ".join(f"{k}: {cell.problems[k]}" for k in uncovered))
        if stale:
            parts.append("stale known failure (not seen): " + ", ".join(stale))
        cell.message = " | ".join(parts)[:1500]
    elif failing:
        cell.status = KNOWN
        cell.message = "; ".join(f"{e['reason']} ({e.get('upstream') or 'no upstream issue yet'})" for e in mine)[:1500]
    else:
        cell.status = ADVISORY if cell.advisories else PASS
        if mine:
            cell.message = "; ".join(f"{e['reason']} ({e.get('upstream') or 'no upstream issue yet'})" for e in mine)[:1500]


def run_cell(writer: Writer, oplog: dict[str, Any], root: str,
             known: list[dict[str, Any]] | None = None) -> Cell:
    """Run the op-log with the writer into ``root`` and judge it (UNSUPPORTED without running)."""
    cell = Cell(writer.name, oplog["id"], oplog["operation"], int(oplog["format-version"]))
    missing = writer.missing(oplog)
    if missing:
        cell.status = UNSUPPORTED
        cell.message = f"{writer.name} does not declare {', '.join(missing)} for v{oplog['format-version']}"
        return cell
    start = time.monotonic()
    result = writer.run(oplog, root)
    cell.version = str(result.get("version", ""))
    steps = result["steps"]
    for s in steps:
        if s.get("error"):
            where = "create" if s["index"] < 0 else f"step{s['index']}"
            cell.problems[f"error:{where}"] = f"{s['op']}: {s['error']}"
    table = common.find_table(root)
    final = common.latest_metadata(table) if table else None
    if final is None:
        if not cell.problems:
            cell.problems["error:create"] = "the writer left no table metadata"
    else:
        cell.table = table or ""
        check(final, cell)
        judge_rows(oplog, steps, final, cell)
    cell.seconds = round(time.monotonic() - start, 2)
    _apply_known(cell, known_failures() if known is None else known)
    return cell


def second_reads(cell: Cell) -> list[dict[str, Any]]:
    """The second readers a known-failure entry names (``second_readers``: an engine of the
    consumer registry and the outcome it was seen to have on this writer's table: ``error``
    with a ``match`` text, ``same-rows`` or ``other-rows`` than the op-log's last step), read
    now: each with ``seen`` and ``ok`` (seen as recorded). A finding of the checker that a
    reader trips on is confirmed; one every reader accepts stays a finding of the spec alone."""
    from iceberg_conformance.suites.engines.registry import ENGINES, ReadRequest, error_text

    out: list[dict[str, Any]] = []
    last = cell.snapshots[-1] if cell.snapshots else None
    final = common.latest_metadata(cell.table) if cell.table else None
    for e in cell.known:
        for want in e.get("second_readers", []):
            seen = {"engine": want["engine"], "outcome": want["outcome"], "match": want.get("match", "")}
            if last is None or final is None:
                out.append(dict(seen, seen="no snapshot to read", ok=False))
                continue
            try:
                rows = ENGINES[want["engine"]].read(ReadRequest.at(Path(final), int(last["snapshot"])))
                expected = _expected_rows(cell, last["step"])
                if not ENGINES[want["engine"]].json_rows:
                    rows = _json_rows(final, last["snapshot"], rows)
                got = "same-rows" if not diff_rows(expected, rows) else "other-rows"
                text = got
            except Exception as ex:  # the engine refused or crashed: that is the outcome
                got, text = "error", error_text(ex)
            ok = got == want["outcome"] and (got != "error" or want.get("match", "") in text)
            out.append(dict(seen, seen=text[:600], ok=ok))
    return out


def _expected_rows(cell: Cell, step: int) -> list[dict[str, Any]]:
    doc = oplogs.load(cell.oplog)
    return oplogs.canonical_rows(oplogs.fields_after(doc, step), doc["steps"][step]["expect"])


def _json_rows(metadata: str, snapshot: int, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An engine's rows in the spec's JSON single-value form, by the snapshot's schema."""
    from iceberg_conformance.suites.engines.registry import ReadRequest
    from iceberg_conformance.suites.engines.rows import canonical_rows
    schema = ReadRequest.at(Path(metadata), int(snapshot)).schema
    return canonical_rows(schema, rows)
