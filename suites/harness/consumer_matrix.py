"""Judging a consumer's reading of a table, and the producer x consumer x capability report.

A *cell record* is what one test (table x consumer) found: its status, the normalized problems
(:mod:`.harness`), their digest and the known-failure entry that matched. Statuses:

* ``PASS`` - every live snapshot read with exactly the expected rows;
* ``FAIL`` - something differs and no known-failure entry has that digest (or an entry exists
  and the consumer now reads the table: the entry is stale);
* ``KNOWN-FAILURE`` - a known bug of the engine: an entry of ``known-failures-consumers.json``
  (``kind: "bug"``) with the same table, consumer and digest;
* ``UNSUPPORTED`` - the engine says it does not do this (``kind: "unsupported"``), or the
  adapter declares it (time travel for consumers that read only the current snapshot);
* ``NOT-RUN`` - the engine could not be run at all (``not-run.json``).

A capability cell (producer x consumer x capability) combines the records of the tables of that
producer that exercise the capability: the worst status wins (FAIL, KNOWN-FAILURE, UNSUPPORTED,
PASS). A known failure counts only for the capabilities its entry names; for a table's other
capabilities it says nothing, and a cell all of whose tables are in that case is ``UNTESTED``.

``python -m iceberg_conformance.suites.harness.consumer_matrix --cells DIR --out DIR`` writes
``matrix-consumers.json``, ``.md`` and ``.html`` (a self-contained heat-map) from the records
the tests wrote.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from iceberg_conformance.suites import engines
from iceberg_conformance.suites.harness.known import KnownFailure, first_match

#: the engines' data: capabilities, known failures and engines not run
HERE = Path(engines.__file__).resolve().parent
KNOWN_FILE = HERE / "known-failures-consumers.json"
#: known failures of consumers on the tables the writers wrote (test ``written``), each saying whose
#: fault it is: ``fault: writer`` (the writer broke the spec: ``writer_problem`` names the problem of
#: the writer's cell, a checker error or wrong rows) or ``fault: reader``
WRITTEN_KNOWN_FILE = HERE / "known-failures-written.json"
CAPABILITIES_FILE = HERE / "capabilities.json"
NOT_RUN_FILE = HERE / "not-run.json"

PASS, FAIL, KNOWN, UNSUPPORTED, UNTESTED, NOT_RUN = (
    "PASS", "FAIL", "KNOWN-FAILURE", "UNSUPPORTED", "UNTESTED", "NOT-RUN")
#: worst first: a cell takes the first of these its tables have
PRECEDENCE = (FAIL, KNOWN, UNSUPPORTED, PASS)
STATUSES = (PASS, FAIL, KNOWN, UNSUPPORTED, UNTESTED, NOT_RUN)
TEST_FILE = "suites/test_matrix.py"


def load_json(path: Path, key: str) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))[key]
    return data


def known_failures(path: Path = KNOWN_FILE) -> list[dict[str, Any]]:
    return load_json(path, "known_failures")


def capabilities(path: Path = CAPABILITIES_FILE) -> list[dict[str, Any]]:
    return load_json(path, "capabilities")


def not_run(path: Path = NOT_RUN_FILE) -> list[dict[str, Any]]:
    return load_json(path, "not_run")


# --- judging one table x consumer -----------------------------------------------------------

@dataclass
class Verdict:
    status: str
    message: str
    entry: dict[str, Any] | None = None


def subject(table: str, consumer: str, test: str = "table", row_filter: str = "") -> str:
    """What a consumer-matrix known failure is matched against (its ``table`` and ``filter`` may
    be globs): ``table: T > C``, ``plain-paths: T > C``, ``filter: T > F > C``, ``projection: T > P > C``
    (an entry's ``filter`` names the projection then)."""
    if test in ("filter", "projection"):
        return f"{test}: {table} > {row_filter or '*'} > {consumer}"
    return f"{test}: {table} > {consumer}"


def as_known(entry: dict[str, Any]) -> KnownFailure:
    """A consumer-matrix entry as a known failure of the one matcher."""
    return KnownFailure(subject(entry["table"], entry["consumer"], entry.get("test", "table"), entry.get("filter", "*")),
                        entry.get("reason", ""), entry.get("upstream", ""), None, entry)


def find_entry(known: list[dict[str, Any]], table: str, consumer: str, test: str = "table",
               row_filter: str = "") -> dict[str, Any] | None:
    """The known-failure entry for this table, consumer, test (and filter). Entries about filter
    cases list their cases (``digests``): the first entry listing this case."""
    if test in ("filter", "written", "projection"):
        subj = subject(table, consumer, test, row_filter)
        return next((e for e in known if e.get("test") == test and as_known(e).matches(subj)
                     and recorded_digest(e, table, row_filter) is not None), None)
    k = first_match((as_known(e) for e in known), subject(table, consumer, test))
    return k.entry if k is not None else None


def case_key(table: str, row_filter: str) -> str:
    """How an entry of filter cases (or of written tables: the table) names one case in its ``digests``."""
    return f"{table} > {row_filter}" if row_filter else table


def recorded_digest(entry: dict[str, Any], table: str, row_filter: str = "") -> list[str] | None:
    """The digests an entry records for this table (and filter): an entry about filter cases
    holds one digest per case in ``digests``; an entry about a table holds one, or a list where
    the engine stops at the first of several failures and which comes first varies: the order its
    parallel reads finish (icebird reads a snapshot's manifests at once), or the order of files
    in manifests the producer writes anew each generation."""
    if "digests" in entry:
        found = entry["digests"].get(case_key(table, row_filter))
        if found is None:
            return None
        return [str(d) for d in found] if isinstance(found, list) else [str(found)]
    recorded = entry["digest"]
    return [str(d) for d in recorded] if isinstance(recorded, list) else [str(recorded)]


def judge(known: list[dict[str, Any]], table: str, consumer: str, problems: list[dict[str, Any]],
          digest: str, test: str = "table", row_filter: str = "") -> Verdict:
    """The status of a consumer test from its problems and the known-failure data."""
    entry = find_entry(known, table, consumer, test, row_filter)
    what = f"{table} > {row_filter}" if test in ("filter", "projection") else table
    if not problems:
        if entry is not None:
            return Verdict(FAIL, f"known-failures-consumers.json lists {consumer} on {what} ({entry['reason']}), "
                                 "but it read every snapshot with the expected rows: remove the entry", entry)
        return Verdict(PASS, "")
    if entry is None:
        return Verdict(FAIL, "no known-failure entry matches")
    recorded = recorded_digest(entry, table, row_filter) or []
    if digest not in recorded:
        return Verdict(FAIL, f"the known failure of {consumer} on {what} is recorded with digest {' or '.join(recorded)}, "
                             f"these problems have digest {digest}: the engine now fails differently", entry)
    status = UNSUPPORTED if entry["kind"] == "unsupported" else KNOWN
    if entry.get("fault") == "writer":
        return Verdict(status, f"the writer broke the spec ({entry['writer_problem']}): {entry['reason']}", entry)
    return Verdict(status, entry["reason"], entry)


def upstream(entry: dict[str, Any]) -> str:
    return str(entry.get("upstream") or "none exists yet")


# --- the matrix ------------------------------------------------------------------------------

def tables_for(cap: dict[str, Any], features: dict[str, set[str]]) -> list[str]:
    """The golden tables exercising a capability: those with any of its ``features``; a
    capability without ``features`` lists its tables itself (``derive`` says how they were found)."""
    if "features" not in cap:
        return list(cap.get("tables", []))
    want = set(cap["features"])
    return [t for t, fs in features.items() if fs & want]


def cell_status(records: list[dict[str, Any]], cap_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The status of a capability cell from the records of its tables, and the records that count."""
    counted = []
    for r in records:
        if r["status"] in (KNOWN, UNSUPPORTED) and r.get("known") and cap_id not in (r.get("capabilities") or []):
            continue   # a known failure about another capability of this table says nothing here
        if r["status"] == UNTESTED:
            continue   # a filter case with no unfiltered read to judge against (the table cell says why)
        counted.append(r)
    if not records:
        return "", []
    if not counted:
        return UNTESTED, []
    for s in PRECEDENCE:
        if any(r["status"] == s for r in counted):
            return s, counted
    return NOT_RUN, counted


def build(records: list[dict[str, Any]], caps: list[dict[str, Any]], consumers: dict[str, dict[str, Any]],
          skipped: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The matrix document: per-table records, capability cells, counts."""
    table_records = [r for r in records if r.get("test", "table") == "table"]
    path_records = [r for r in records if r.get("test") == "plain-paths"]
    # the written tables' writers have a section of their own (written_cells), not capability rows
    producers = sorted({r["producer"] for r in records if r.get("test") != "written"}, key=lambda p: (p != "spark", p))
    consumer_names = [c for c in consumers if any(r["consumer"] == c for r in records)]
    for s in skipped or []:
        if s["consumer"] not in consumer_names:
            consumer_names.append(s["consumer"])
    cells = []
    for cap in caps:
        for producer in producers:
            for consumer in consumer_names:
                info = consumers.get(consumer, {})
                if cap["id"] == "time-travel" and info.get("time_travel") is False:
                    rs = [r for r in table_records if r["consumer"] == consumer and r["producer"] == producer
                          and r["table"] in cap["tables"]]
                    if rs:
                        cells.append({"capability": cap["id"], "producer": producer, "consumer": consumer,
                                      "status": UNSUPPORTED, "tables": [r["table"] for r in rs],
                                      "note": f"{consumer} reads the current snapshot only; the other snapshots "
                                              "were read through metadata pinned to them"})
                    continue
                source = table_records
                if cap["id"] == "plain-paths" and info.get("paths", "plain") != "plain":
                    source = path_records
                rs = [r for r in source if r["consumer"] == consumer and r["producer"] == producer
                      and r["table"] in cap["tables"]]
                if not rs:
                    continue
                status, counted = cell_status(rs, cap["id"])
                cells.append({"capability": cap["id"], "producer": producer, "consumer": consumer,
                              "status": status, "tables": [r["table"] for r in rs],
                              "counted": [r["table"] for r in counted],
                              "failing": [r["table"] for r in counted if r["status"] != PASS]})
    for s in skipped or []:
        for cap in caps:
            for producer in producers:
                cells.append({"capability": cap["id"], "producer": producer, "consumer": s["consumer"],
                              "status": NOT_RUN, "tables": [], "note": s["reason"]})
    counts = {s: sum(1 for r in table_records if r["status"] == s) for s in STATUSES}
    cell_counts = {s: sum(1 for c in cells if c["status"] == s) for s in STATUSES}
    filter_records = [r for r in records if r.get("test") == "filter"]
    filter_cells = []
    for cap in caps:
        for producer in producers:
            for consumer in consumer_names:
                rs = [r for r in filter_records if r["consumer"] == consumer and r["producer"] == producer
                      and r["table"] in cap["tables"]]
                if not rs:
                    continue
                status, counted = cell_status(rs, cap["id"])
                filter_cells.append({"capability": cap["id"], "producer": producer, "consumer": consumer,
                                     "status": status, "cases": case_counts(counted),
                                     "failing": [[r["table"], r["filter"]] for r in counted if r["status"] != PASS]})
    written = [r for r in records if r.get("test") == "written"]
    return {"consumers": {c: consumers.get(c, {}) for c in consumer_names}, "producers": producers,
            "written_cells": written_cells(written, consumer_names),
            "tables": sorted({r["table"] for r in table_records}),
            "capabilities": [{k: cap[k] for k in ("id", "title", "group", "tables", "missing") if k in cap} for cap in caps],
            "records": sorted(records, key=lambda r: (r["table"], r["consumer"], r.get("test", "table"), r.get("filter", ""))),
            "cells": cells, "filter_cells": filter_cells, "not_run": skipped or [],
            "counts": {"table_x_consumer": counts, "capability_cells": cell_counts,
                       "filter_tests": {s: sum(1 for r in filter_records if r["status"] == s) for s in STATUSES},
                       "filter_cases": case_counts(filter_records),
                       "projection_tests": {s: sum(1 for r in records if r.get("test") == "projection" and r["status"] == s)
                                            for s in STATUSES},
                       "filter_cases_by_consumer": {c: case_counts([r for r in filter_records if r["consumer"] == c])
                                                    for c in consumer_names}}}


def written_cells(records: list[dict[str, Any]], consumer_names: list[str]) -> list[dict[str, Any]]:
    """The tables the writers wrote from the op-logs (``written`` records; producer
    ``writer:<name>``), one cell per writer x consumer: the worst status of its tables, the count
    of each status and the tables not passing."""
    out = []
    for producer in sorted({r["producer"] for r in records}):
        for consumer in consumer_names:
            rs = [r for r in records if r["producer"] == producer and r["consumer"] == consumer]
            if not rs:
                continue
            status = next((s for s in PRECEDENCE if any(r["status"] == s for r in rs)), NOT_RUN)
            writer = sum(1 for r in rs if (r.get("known") or {}).get("fault") == "writer")
            out.append({"producer": producer, "consumer": consumer, "status": status,
                        "counts": {s: n for s in STATUSES if (n := sum(1 for r in rs if r["status"] == s))},
                        "writer_fault": writer,
                        "failing": sorted(r["table"] for r in rs if r["status"] != PASS)})
    return out


def _written_rows(doc: dict[str, Any], consumers: list[str]) -> list[list[dict[str, Any] | None]]:
    by = {(c["producer"], c["consumer"]): c for c in doc.get("written_cells", [])}
    return [[by.get((p, k)) for k in consumers] for p in sorted({c["producer"] for c in doc.get("written_cells", [])})]


def _written_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "–"
    writer = f", writer's fault {cell['writer_fault']}" if cell.get("writer_fault") else ""
    return f"{cell['status']} ({cell['counts'].get(PASS, 0)}/{sum(cell['counts'].values())}{writer})"


#: what the cases of filter tests came to (suites.engines.filtering): judged and of those correct
#: or wrong, unsupported (no translation), not judged (no unfiltered read to judge against)
CASE_KINDS = ("judged", "correct", "wrong", "unsupported", "not-judged")


def case_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    return {k: sum(int((r.get("cases") or {}).get(k, 0)) for r in records) for k in CASE_KINDS}


# --- rendering -------------------------------------------------------------------------------

COLORS = {PASS: "#2e9d4f", FAIL: "#d7263d", KNOWN: "#f29e4c", UNSUPPORTED: "#8d99ae",
          UNTESTED: "#e5e5e5", NOT_RUN: "#4a4e69", "": "#ffffff"}
SHORT = {PASS: "✓", FAIL: "✗", KNOWN: "K", UNSUPPORTED: "U", UNTESTED: "·", NOT_RUN: "N", "": ""}


def anchor(table: str, consumer: str, test: str = "table", row_filter: str = "") -> str:
    return f"r-{test}-{table}-{row_filter + '-' if row_filter else ''}{consumer}"


TEST_FUNCTIONS = {"table": "test_consumer_reads_golden_table", "plain-paths": "test_consumer_reads_plain_paths",
                  "filter": "test_consumer_filters_golden_table", "written": "test_consumer_reads_written_table",
                  "projection": "test_consumer_projects_golden_table"}


def nodeid(table: str, consumer: str, test: str = "table", row_filter: str = "") -> str:
    param = f"{table}-{row_filter}-{consumer}" if test in ("filter", "projection") else f"{table}-{consumer}"
    return f"{TEST_FILE}::{TEST_FUNCTIONS[test]}[{param}]"


def render_md(doc: dict[str, Any]) -> str:
    consumers = list(doc["consumers"])
    lines = ["# Producer x consumer x capability", ""]
    c = doc["counts"]["table_x_consumer"]
    lines.append(f"{len(consumers)} consumers, {len(doc['tables'])} golden tables, "
                 f"{sum(c.values())} table x consumer tests: " + ", ".join(f"{k} {v}" for k, v in c.items() if v))
    cc = doc["counts"]["capability_cells"]
    lines.append(f"{sum(cc.values())} capability cells: " + ", ".join(f"{k} {v}" for k, v in cc.items() if v))
    lines.append("")
    by = {(x["capability"], x["producer"], x["consumer"]): x for x in doc["cells"]}
    for producer in doc["producers"]:
        lines += [f"## Tables written by {producer}", "",
                  "| capability | " + " | ".join(consumers) + " |", "|---|" + "---|" * len(consumers)]
        for cap in doc["capabilities"]:
            row = [by.get((cap["id"], producer, k), {}).get("status", "") for k in consumers]
            if any(row):
                lines.append(f"| {cap['title']} | " + " | ".join(s or "–" for s in row) + " |")
        lines.append("")
    fc = doc["counts"].get("filter_cases") or {}
    if fc.get("judged") or fc.get("unsupported") or fc.get("not-judged"):
        fby = {(x["capability"], x["producer"], x["consumer"]): x for x in doc.get("filter_cells", [])}
        lines += ["## Under row filters", "",
                  f"{sum(doc['counts']['filter_tests'].values())} table x filter x consumer tests; "
                  f"(table, snapshot, filter) cases: " + ", ".join(f"{k} {v}" for k, v in fc.items()), "",
                  "| consumer | " + " | ".join(CASE_KINDS) + " |", "|---|" + "---|" * len(CASE_KINDS)]
        for k in consumers:
            by_kind = doc["counts"]["filter_cases_by_consumer"].get(k, {})
            lines.append(f"| {k} | " + " | ".join(str(by_kind.get(x, 0)) for x in CASE_KINDS) + " |")
        lines.append("")
        for producer in doc["producers"]:
            lines += [f"### Filtered reads of tables written by {producer}", "",
                      "| capability | " + " | ".join(consumers) + " |", "|---|" + "---|" * len(consumers)]
            for cap in doc["capabilities"]:
                row = [fby.get((cap["id"], producer, k)) for k in consumers]
                if any(row):
                    lines.append(f"| {cap['title']} | " + " | ".join(_filter_cell_text(x) for x in row) + " |")
            lines.append("")
    written = _written_rows(doc, consumers)
    if written:
        lines += ["## Tables the writers wrote from the op-logs", "",
                  "Producer = writer (suites/test_writers.py); each table read at its current snapshot and the "
                  "snapshots its branches and tags name, unfiltered and under its fixed filters: the worst status "
                  "(passing/tables). A failing table's checker verdict says whether the writer broke the spec.", "",
                  "| writer | " + " | ".join(consumers) + " |", "|---|" + "---|" * len(consumers)]
        for row in written:
            producer = next(c for c in row if c is not None)["producer"]
            lines.append(f"| {producer} | " + " | ".join(_written_text(c) for c in row) + " |")
        lines.append("")
    lines += ["## Table x consumer", "", "| table | " + " | ".join(consumers) + " |", "|---|" + "---|" * len(consumers)]
    rec = {(r["table"], r["consumer"]): r for r in doc["records"] if r.get("test", "table") == "table"}
    for t in doc["tables"]:
        lines.append(f"| {t} | " + " | ".join(rec.get((t, k), {}).get("status", "–") for k in consumers) + " |")
    lines += ["", "## Not passing", ""]
    quiet = []
    for r in doc["records"]:
        if r["status"] == PASS:
            continue
        if r.get("test") == "filter" and r["status"] in (UNSUPPORTED, UNTESTED) and not r.get("problems"):
            quiet.append(r)
            continue
        k = r.get("known") or {}
        lines.append(f"### {r['status']}: {r['consumer']} on {_subject_text(r)}")
        lines.append(f"test: `{nodeid(r['table'], r['consumer'], r.get('test', 'table'), r.get('filter', ''))}`")
        if k:
            lines.append(f"reason: {k['reason']}  ")
            lines.append(f"upstream: {upstream(k)}  ")
        lines.append(f"digest: {r.get('digest', '')}")
        lines.append("```")
        lines += r.get("lines", [])[:30]
        lines += ["```", ""]
    if quiet:
        lines += ["## Filter cases not judged", "", "| status | consumer | table > filter | why |", "|---|---|---|---|"]
        lines += [f"| {r['status']} | {r['consumer']} | {r['table']} > {r['filter']} | {r.get('message', '')[:200]} |"
                  for r in quiet]
        lines.append("")
    for s in doc["not_run"]:
        lines.append(f"- NOT-RUN {s['consumer']}: {s['reason']} (`{s.get('error', '')}`)")
    return "\n".join(lines) + "\n"


def _subject_text(r: dict[str, Any]) -> str:
    test = r.get("test", "table")
    if test == "filter":
        return f"{r['table']} under filter {r['filter']}"
    if test == "projection":
        return f"{r['table']} read as projection {r['filter']}"
    return r["table"] + (" (paths as written)" if test == "plain-paths" else "")


def _filter_cell_text(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "–"
    c = cell["cases"]
    if cell["status"] in (FAIL, KNOWN):
        return f"{cell['status']} ({c['wrong']} wrong of {c['judged']})"
    return f"{cell['status']} ({c['judged']} cases)" if c["judged"] else cell["status"]


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}
.scroll{overflow-x:auto;max-width:100%}table.hm{border-collapse:collapse;font-size:12px}
table.hm th{font-weight:600;padding:3px 6px;text-align:center;white-space:nowrap}
table.hm th.cap{text-align:left}
table.hm th.sub{font-weight:400;color:#777;padding:0;font-size:10px}
table.hm td{width:22px;height:20px;text-align:center;border:2px solid #fff;color:#fff;font-weight:700}
table.hm td.lbl{width:auto;min-width:14em;max-width:24em;text-align:left;color:#222;font-weight:400;padding-right:10px}
table.hm td a{color:inherit;text-decoration:none;display:block}
tr.grp td{background:#f4f4f4;color:#555;font-weight:600;text-align:left;padding:4px}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;color:#fff;border-radius:3px;font-size:12px}
.rec{border-left:4px solid #ccc;padding:4px 12px;margin:10px 0}
.rec pre{background:#f7f7f7;padding:8px;overflow-x:auto;font-size:12px}
.summary td,.summary th{padding:2px 10px;text-align:right}
"""


def _td(status: str, title: str, href: str = "", text: str | None = None) -> str:
    color = COLORS.get(status, "#fff")
    inner = html.escape(SHORT.get(status, "") if text is None else text)
    if href:
        inner = f'<a href="#{html.escape(href)}">{inner}</a>'
    fg = "#666" if status == UNTESTED else "#fff"
    return f'<td style="background:{color};color:{fg}" title="{html.escape(title)}">{inner}</td>'


def render_html(doc: dict[str, Any]) -> str:
    consumers = list(doc["consumers"])
    producers = doc["producers"]
    by = {(x["capability"], x["producer"], x["consumer"]): x for x in doc["cells"]}
    rec = {(r["table"], r["consumer"], r.get("test", "table")): r for r in doc["records"]}
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Iceberg producer x consumer matrix</title>",
           f"<style>{CSS}</style></head><body>", "<h1>Which engines read which tables</h1>"]
    c = doc["counts"]["table_x_consumer"]
    out.append(f"<p>{len(consumers)} consumers read {len(doc['tables'])} golden tables written by "
               f"{len(producers)} producers ({', '.join(producers)}), every live snapshot compared with the "
               f"expected rows: {sum(c.values())} tests.</p>")
    out.append("<table class='summary'><tr>" + "".join(f"<th>{s}</th>" for s in STATUSES) + "</tr><tr>"
               + "".join(f"<td>{c[s]}</td>" for s in STATUSES) + "</tr></table>")
    out.append("<p class='legend'>" + "".join(
        f"<span style='background:{COLORS[s]};color:{'#666' if s == UNTESTED else '#fff'}'>{SHORT[s]} {s}</span>"
        for s in STATUSES) + "</p>")
    out.append("<h2>Capability x consumer</h2><p>One square per producer of the tables: "
               + ", ".join(f"{p[:1].upper()} = {html.escape(p)}" for p in producers)
               + ". Hover for the tables; a coloured square that is not a pass links to its test and rows.</p>")
    def table_cell(cap: dict[str, Any], k: str, p: str) -> str:
        cell = by.get((cap["id"], p, k))
        if cell is None:
            return _td("", f"{k} / {p}: no golden table of {p} exercises this")
        failing = cell.get("failing") or []
        title = (f"{cap['title']} - {k} reading tables of {p}: {cell['status']}\n"
                 f"tables: {', '.join(cell['tables'])}" + (f"\nnot passing: {', '.join(failing)}" if failing else "")
                 + (f"\n{cell['note']}" if cell.get("note") else ""))
        return _td(cell["status"], title, anchor(failing[0], k) if failing else "")

    out += _capability_rows(doc, consumers, producers, table_cell, lambda cap: True)
    out += _filter_heatmap_html(doc, consumers, producers)
    written = _written_rows(doc, consumers)
    if written:
        out.append("<h2>Tables the writers wrote from the op-logs</h2><p>Producer = writer; the worst status of "
                   "its tables (passing/tables); hover for the tables not passing.</p><div class='scroll'><table class='hm'><tr>"
                   "<th class='cap'>writer</th>" + "".join(f"<th>{html.escape(k)}</th>" for k in consumers) + "</tr>")
        for cells in written:
            producer = next(c for c in cells if c is not None)["producer"]
            tds = [_td(c["status"], f"{producer} / {k}: {_written_text(c)}"
                       + (f"\nnot passing: {', '.join(c['failing'])}" if c["failing"] else ""),
                       anchor(c["failing"][0], k, "written") if c["failing"] else "") if c else _td("", "")
                   for c, k in zip(cells, consumers)]
            out.append(f"<tr><td class='lbl'>{html.escape(producer)}</td>{''.join(tds)}</tr>")
        out.append("</table></div>")
    out.append("<h2>Table x consumer</h2><div class='scroll'><table class='hm'><tr><th class='cap'>table (producer)</th>"
               + "".join(f"<th>{html.escape(k)}</th>" for k in consumers) + "</tr>")
    producer_of = {r["table"]: r["producer"] for r in doc["records"]}
    for t in doc["tables"]:
        row = [f"<td class='lbl'>{html.escape(t)} <small>({html.escape(producer_of.get(t, ''))})</small></td>"]
        for k in consumers:
            r = rec.get((t, k, "table"))
            if r is None:
                row.append(_td("", "not run"))
                continue
            title = f"{t} read by {k}: {r['status']}" + (f"\n{r['known']['reason']}" if r.get("known") else "")
            row.append(_td(r["status"], title, anchor(t, k) if r["status"] != PASS else ""))
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</table></div>")
    out.append("<h2>Not passing: the test and the rows that differ</h2>")
    for r in doc["records"]:
        if r["status"] == PASS:
            continue
        test = r.get("test", "table")
        row_filter = r.get("filter", "")
        k = r.get("known") or {}
        link = upstream(k) if k else ""
        link_html = (f"<a href='{html.escape(link)}'>{html.escape(link)}</a>" if link.startswith("http")
                     else html.escape(link))
        out.append(f"<div class='rec' id='{html.escape(anchor(r['table'], r['consumer'], test, row_filter))}' "
                   f"style='border-color:{COLORS.get(r['status'], '#ccc')}'>"
                   f"<b>{html.escape(r['status'])}</b>: {html.escape(r['consumer'])} on {html.escape(_subject_text(r))}"
                   # the test's node id, to run it (no link: the report folder is read wherever it is copied)
                   + f"<br>test: <code>{html.escape(nodeid(r['table'], r['consumer'], test, row_filter))}</code>"
                   + (f"<br>reason: {html.escape(k['reason'])}<br>upstream: {link_html}" if k else "")
                   + (f"<br>{html.escape(r['message'])}" if r.get("message") and not k else "")
                   + f"<br>digest: <code>{html.escape(r.get('digest', ''))}</code>"
                   + f"<pre>{html.escape(chr(10).join(r.get('lines', [])[:40]))}</pre></div>")
    for s in doc["not_run"]:
        out.append(f"<div class='rec' style='border-color:{COLORS[NOT_RUN]}'><b>NOT-RUN</b>: {html.escape(s['consumer'])}: "
                   f"{html.escape(s['reason'])}<pre>{html.escape(s.get('error', ''))}</pre></div>")
    out.append("<h2>Consumers</h2><ul>" + "".join(
        f"<li><b>{html.escape(k)}</b>: {html.escape(str(v.get('title', '')))} ({html.escape(str(v.get('version', '')))})"
        + (" - reads the current snapshot only" if v.get("time_travel") is False else "")
        + (f" - reads a copy relocated to {html.escape(str(v.get('paths')))} paths" if v.get("paths", "plain") != "plain" else "")
        + "</li>" for k, v in doc["consumers"].items()) + "</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _filter_heatmap_html(doc: dict[str, Any], consumers: list[str], producers: list[str]) -> list[str]:
    """Capability x consumer under row filters: a square per producer, the number of wrong cases
    in it; each non-passing square links to the first failing (table, filter) test."""
    cells = {(x["capability"], x["producer"], x["consumer"]): x for x in doc.get("filter_cells", [])}
    if not cells:
        return []
    fc = doc["counts"]["filter_cases"]
    out = ["<h2>Capability x consumer under row filters</h2>",
           f"<p>Every consumer reads every (table, snapshot, filter) case in its own query form and is judged "
           f"with its own semantics against its own unfiltered read: {fc['judged']} cases judged, "
           f"{fc['wrong']} wrong, {fc['unsupported']} unsupported, {fc['not-judged']} not judged "
           "(the snapshot cannot be read at all). A square shows the number of wrong cases (✓ when none).</p>",
           "<div class='scroll'><table class='summary'><tr><th>consumer</th>" + "".join(f"<th>{k}</th>" for k in CASE_KINDS) + "</tr>"]
    for k in consumers:
        by_kind = doc["counts"]["filter_cases_by_consumer"].get(k, {})
        out.append(f"<tr><td>{html.escape(k)}</td>" + "".join(f"<td>{by_kind.get(x, 0)}</td>" for x in CASE_KINDS) + "</tr>")
    out.append("</table></div>")
    def filter_cell(cap: dict[str, Any], k: str, p: str) -> str:
        cell = cells.get((cap["id"], p, k))
        if cell is None:
            return _td("", f"{k} / {p}: no filtered case")
        c = cell["cases"]
        failing = cell.get("failing") or []
        title = (f"{cap['title']} - {k} reading tables of {p} under filters: {cell['status']}\n"
                 + ", ".join(f"{x} {c[x]}" for x in CASE_KINDS)
                 + (f"\nnot passing: {', '.join(t + ' > ' + f for t, f in failing[:8])}" if failing else ""))
        href = anchor(failing[0][0], k, "filter", failing[0][1]) if failing else ""
        return _td(cell["status"], title, href, str(c["wrong"]) if c["wrong"] else None)

    return out + _capability_rows(doc, consumers, producers, filter_cell,
                                  lambda cap: any((cap["id"], p, k) in cells for p in producers for k in consumers))


def _capability_rows(doc: dict[str, Any], consumers: list[str], producers: list[str],
                     cell: Callable[[dict[str, Any], str, str], str], shown: Callable[[dict[str, Any]], bool]) -> list[str]:
    """A capability x consumer heat-map, a square per producer under each consumer."""
    out = ["<div class='scroll'><table class='hm'><tr><th class='cap'>capability</th>"
           + "".join(f"<th colspan='{len(producers)}' title='{html.escape(str(doc['consumers'].get(k, {}).get('title', k)))}'>"
                     f"{html.escape(k)}</th>" for k in consumers) + "</tr>",
           "<tr><th></th>" + "".join(f"<th class='sub' title='{html.escape(p)}'>{html.escape(p[:1].upper())}</th>"
                                     for _ in consumers for p in producers) + "</tr>"]
    group = None
    for cap in doc["capabilities"]:
        if not shown(cap):
            continue
        if cap.get("group") != group:
            group = cap.get("group")
            out.append(f"<tr class='grp'><td colspan='{1 + len(consumers) * len(producers)}'>{html.escape(str(group))}</td></tr>")
        label = html.escape(cap["title"]) + (" <small>(no golden table)</small>" if not cap["tables"] else "")
        row = [f"<td class='lbl' title='{html.escape(', '.join(cap['tables']) or cap.get('missing', ''))}'>{label}</td>"]
        row += [cell(cap, k, p) for k in consumers for p in producers]
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</table></div>")
    return out


def write(doc: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "matrix-consumers.json", out / "matrix-consumers.md", out / "matrix-consumers.html"]
    paths[0].write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    paths[1].write_text(render_md(doc), encoding="utf-8")
    paths[2].write_text(render_html(doc), encoding="utf-8")
    return paths


def read_cells(cells: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    records, consumers = [], {}
    for p in sorted(cells.glob("*.json")):
        r = json.loads(p.read_text(encoding="utf-8"))
        consumers[r["consumer"]] = r.pop("consumer_info", {})
        records.append(r)
    return records, consumers


def suggest(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skeletons of the known-failure entries the failing records need: one per table test, one
    per consumer for its failing filter cases, and one for its failing projection cases (split
    them by cause before committing them)."""
    out: list[dict[str, Any]] = []
    by_consumer: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if r["status"] != FAIL or not r.get("digest"):
            continue
        skeleton = {"consumer": r["consumer"], "kind": "bug", "capabilities": [], "reason": "", "upstream": ""}
        if r.get("test") in ("filter", "projection"):
            entry = by_consumer.setdefault((r["consumer"], r["test"]), {
                **skeleton, "test": r["test"], "table": "*", "filter": "*", "digests": {}, "differs": {}})
            case = case_key(r["table"], r["filter"])
            entry["digests"][case] = r["digest"]
            entry["differs"][case] = r["lines"][:12]
        else:
            out.append({**skeleton, "table": r["table"], **({"test": r["test"]} if r.get("test", "table") != "table" else {}),
                        "digest": r["digest"], "differs": r["lines"][:12]})
    return out + list(by_consumer.values())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m iceberg_conformance.suites.harness.consumer_matrix", description=__doc__.split("\n")[0])
    ap.add_argument("--cells", required=True, type=Path, help="directory of cell records the tests wrote")
    ap.add_argument("--golden", type=Path, help="golden directory (for the record; not read)")
    ap.add_argument("--out", type=Path, help="directory for matrix-consumers.{json,md,html}")
    ap.add_argument("--suggest", action="store_true",
                    help="print, for every failing test, the known-failure entry it would need (reason, "
                         "capabilities and upstream left for you to write), one consumer's filter cases together")
    args = ap.parse_args(argv)
    records, consumers = read_cells(args.cells)
    if not records:
        print(f"no cell records in {args.cells}", file=sys.stderr)
        return 1
    if args.suggest:
        print(json.dumps(suggest(records), indent=1, ensure_ascii=False))
        return 0
    if args.out is None:
        ap.error("--out is required (or --suggest)")
    from iceberg_conformance.suites.engines.registry import ENGINES

    order = {n: i for i, n in enumerate(ENGINES)}
    consumers = dict(sorted(consumers.items(), key=lambda kv: order.get(kv[0], 99)))
    doc = build(records, capabilities(), consumers, not_run())
    for p in write(doc, args.out):
        print(p)
    c = doc["counts"]
    print("table x consumer:", ", ".join(f"{k} {v}" for k, v in c["table_x_consumer"].items()))
    print("capability cells:", ", ".join(f"{k} {v}" for k, v in c["capability_cells"].items()))
    print("filter cases:", ", ".join(f"{k} {v}" for k, v in c["filter_cases"].items()))
    if doc.get("written_cells"):
        # the tables the writers wrote: their reads, summed over the writer x consumer cells
        reads: dict[str, int] = {}
        for cell in doc["written_cells"]:
            for k, v in cell["counts"].items():
                reads[k] = reads.get(k, 0) + int(v)
        print("written tables, reads:", ", ".join(f"{k} {v}" for k, v in reads.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
