"""The writer matrix report: ``matrix-writers.{json,md,html}`` from the cells the tests wrote.

Rows are writers, columns the op-logs' operations by format version (``delete:position v2``);
each cell PASS / ADVISORY / FAIL / KNOWN-FAILURE / UNSUPPORTED, or NOT-RUN where no test wrote a
record; with the consumer matrix's records of the written tables (``--consumer-cells``), who
reads what each writer wrote. The HTML links every cell to its evidence: the cell record (problems with the rule,
file and location; advisories; the snapshots read; the known-failure entry and its upstream
link), copied beside the report as ``writers-evidence/<writer>--<op-log>.json``.

``python -m iceberg_conformance.suites.writers.report --cells DIR --out DIR``
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.writers import oplogs
from iceberg_conformance.suites.writers.registry import WRITERS

NOT_RUN = "NOT-RUN"
COLORS = {"PASS": "#2e7d32", "ADVISORY": "#9e9d24", "FAIL": "#c62828", "KNOWN-FAILURE": "#ef6c00",
          "UNSUPPORTED": "#9e9e9e", NOT_RUN: "#ffffff"}


def load_cells(cells: Path) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for p in sorted(cells.glob("*.json")) if cells.is_dir() else []:
        c = json.loads(p.read_text(encoding="utf-8"))
        out[(c["writer"], c["oplog"])] = c
    return out


def readers(consumer_cells: Path | None) -> dict[str, Any]:
    """The written tables read by the consumers (records of suites/test_matrix.py's ``written``
    tests): per writer and consumer, the count of each status and the failing tables."""
    out: dict[str, Any] = {}
    for p in sorted(consumer_cells.glob("written--*.json")) if consumer_cells and consumer_cells.is_dir() else []:
        r = json.loads(p.read_text(encoding="utf-8"))
        writer = str(r["producer"]).removeprefix("writer:")
        cell = out.setdefault(writer, {}).setdefault(r["consumer"], {"counts": {}, "failing": [], "writer_fault": 0})
        cell["counts"][r["status"]] = cell["counts"].get(r["status"], 0) + 1
        cell["writer_fault"] += (r.get("known") or {}).get("fault") == "writer"
        if r["status"] != "PASS":
            cell["failing"].append({"table": r["table"], "status": r["status"], "lines": r.get("lines", [])[:6]})
    return out


def build(cells: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    logs = oplogs.load_all()
    columns = sorted(logs, key=lambda i: (logs[i]["operation"], logs[i]["format-version"], i))
    rows = []
    totals: dict[str, int] = {}
    for w in WRITERS.values():
        row: dict[str, Any] = {"writer": w.name, "title": w.title, "notes": w.notes, "cells": {}}
        for o in columns:
            c = cells.get((w.name, o))
            status = c["status"] if c else NOT_RUN
            totals[status] = totals.get(status, 0) + 1
            row["cells"][o] = {"status": status, "message": (c or {}).get("message", ""),
                               "version": (c or {}).get("version", ""),
                               "problems": sorted((c or {}).get("problems", {})),
                               "advisories": sorted((c or {}).get("advisories", {})),
                               "upstream": [e.get("upstream", "") for e in (c or {}).get("known", [])],
                               "evidence": f"writers-evidence/{w.name}--{o}.json" if c else None}
        rows.append(row)
    return {"columns": [{"oplog": o, "operation": logs[o]["operation"], "format_version": logs[o]["format-version"],
                         "title": logs[o]["title"], "spec": logs[o]["spec"]} for o in columns],
            "writers": rows, "totals": totals, "test": "suites/test_writers.py"}


def markdown(m: dict[str, Any]) -> str:
    cols = m["columns"]
    lines = ["# Writer matrix", "", "Each writer runs each op-log (vectors/oplogs); the table it writes is judged by "
             "the checker, by the reference reader's rows per snapshot and by the op-log's relations.", "",
             "Totals: " + ", ".join(f"{k} {v}" for k, v in sorted(m["totals"].items())), "",
             "| writer | " + " | ".join(f"{c['operation']} v{c['format_version']}" for c in cols) + " |",
             "|---|" + "---|" * len(cols)]
    for r in m["writers"]:
        lines.append(f"| {r['writer']} | " + " | ".join(r["cells"][c["oplog"]]["status"] for c in cols) + " |")
    if m.get("readers"):
        consumers = sorted({c for per in m["readers"].values() for c in per})
        lines += ["", "## Who reads what the writers wrote", "",
                  "Tables written from the op-logs, read by each consumer (suites/test_matrix.py, written tests): "
                  "PASS/total, and how many of the others are the writer's fault (known-failures-written.json: the "
                  "writer's cell shows the problem behind the failure; the rest are the reader's).",
                  "", "| writer | " + " | ".join(consumers) + " |", "|---|" + "---|" * len(consumers)]
        for w, per in sorted(m["readers"].items()):
            lines.append(f"| {w} | " + " | ".join(
                f"{per[c]['counts'].get('PASS', 0)}/{sum(per[c]['counts'].values())}"
                + (f" ({per[c]['writer_fault']} writer's)" if per[c]["writer_fault"] else "") if c in per else ""
                for c in consumers) + " |")
    lines += ["", "## Failures and known failures", ""]
    for r in m["writers"]:
        for c in cols:
            cell = r["cells"][c["oplog"]]
            if cell["status"] in ("FAIL", "KNOWN-FAILURE"):
                lines.append(f"- **{r['writer']} / {c['oplog']}** {cell['status']}: {', '.join(cell['problems'])} "
                             f"— {cell['message'][:400]}")
    return "\n".join(lines) + "\n"


def page(m: dict[str, Any]) -> str:
    cols = m["columns"]
    head = "".join(f"<th title='{html.escape(c['title'])}'>{html.escape(c['operation'])}<br>v{c['format_version']}"
                   f"<br><small>{html.escape(c['oplog'])}</small></th>" for c in cols)
    body = []
    for r in m["writers"]:
        tds = []
        for c in cols:
            cell = r["cells"][c["oplog"]]
            tip = html.escape((cell["message"] or cell["status"])[:800], quote=True)
            label = html.escape(cell["status"])
            if cell["evidence"]:
                label = f"<a href='{cell['evidence']}'>{label}</a>"
            tds.append(f"<td style='background:{COLORS.get(cell['status'], '#fff')}' title='{tip}'>{label}</td>")
        body.append(f"<tr><th title='{html.escape(r['notes'], quote=True)}'>{html.escape(r['writer'])}</th>{''.join(tds)}</tr>")
    totals = ", ".join(f"{html.escape(k)} {v}" for k, v in sorted(m["totals"].items()))
    return ("<!doctype html><meta charset='utf-8'><title>Writer matrix</title><style>body{font-family:sans-serif}.scroll{overflow-x:auto;max-width:100%}"
            "td,th{border:1px solid #ccc;padding:4px;font-size:12px}td a{color:#fff}td{color:#fff}</style>"
            f"<h1>Writer matrix</h1><p>{totals}. Each cell links to its evidence.</p>"
            f"<div class='scroll'><table><tr><th>writer</th>{head}</tr>{''.join(body)}</table></div>")


def write(cells_dir: Path, out: Path, consumer_cells: Path | None = None) -> dict[str, Any]:
    cells = load_cells(cells_dir)
    m = build(cells)
    m["readers"] = readers(consumer_cells)
    out.mkdir(parents=True, exist_ok=True)
    ev = out / "writers-evidence"
    ev.mkdir(exist_ok=True)
    for p in cells_dir.glob("*.json") if cells_dir.is_dir() else []:
        shutil.copy(p, ev / p.name)
    (out / "matrix-writers.json").write_text(json.dumps(m, indent=1) + "\n", encoding="utf-8")
    (out / "matrix-writers.md").write_text(markdown(m), encoding="utf-8")
    (out / "matrix-writers.html").write_text(page(m), encoding="utf-8")
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--consumer-cells", type=Path, help="records of the consumer matrix's written tests")
    a = ap.parse_args(argv)
    m = write(a.cells, a.out, a.consumer_cells)
    print("matrix-writers: " + ", ".join(f"{k} {v}" for k, v in sorted(m["totals"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
