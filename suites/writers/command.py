"""``iceberg-conformance write --writer NAME OPLOG DIR``: run one op-log with one writer into DIR
and judge the table (checker, rows per snapshot, relations); ``--list`` names the writers (with
what they declare) and the op-logs.

Exit codes: 0 PASS or ADVISORY (warnings only), 1 FAIL or KNOWN-FAILURE (the table or its rows
are wrong either way; the known-failure entry is printed), 3 UNSUPPORTED (the writer does not
declare an operation the op-log needs), 4 the writer cannot run here, 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


from iceberg_conformance.suites.writers import judge, oplogs
from iceberg_conformance.suites.writers.registry import WRITERS, WriterUnavailable

EXIT = {judge.PASS: 0, judge.ADVISORY: 0, judge.FAIL: 1, judge.KNOWN: 1, judge.UNSUPPORTED: 3}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("oplog", nargs="?", help="an op-log id (see --list) or an op-log JSON file")
    p.add_argument("dir", nargs="?", help="an empty directory the writer writes the table into")
    p.add_argument("--writer", help="the writer (see --list)")
    p.add_argument("--list", action="store_true", help="list the writers and op-logs")
    p.add_argument("--json", action="store_true", help="print the cell record as JSON")


def _listing() -> str:
    lines = ["writers:"]
    for w in WRITERS.values():
        ops = ", ".join(f"{k} v{'/'.join(map(str, v))}" for k, v in sorted(w.supports.items()))
        lines.append(f"  {w.name:<20} {w.title}\n  {'':<20} declares: {ops}")
    lines.append("op-logs:")
    for i, o in sorted(oplogs.load_all().items()):
        lines.append(f"  {i:<28} v{o['format-version']} {o['operation']:<24} {o['title']}")
    return "\n".join(lines)


def main_args(a: argparse.Namespace) -> int:
    if a.list:
        print(_listing())
        return 0
    if not (a.writer and a.oplog and a.dir):
        print("write: --writer NAME OPLOG DIR are required (or --list)", file=sys.stderr)
        return 2
    if a.writer not in WRITERS:
        print(f"write: unknown writer {a.writer!r}; known: {', '.join(WRITERS)}", file=sys.stderr)
        return 2
    try:
        doc = oplogs.load(a.oplog)
    except (KeyError, ValueError) as e:
        print(f"write: {e}", file=sys.stderr)
        return 2
    if os.path.isdir(a.dir) and os.listdir(a.dir):
        print(f"write: {a.dir} is not empty", file=sys.stderr)
        return 2
    try:
        cell = judge.run_cell(WRITERS[a.writer], doc, os.path.abspath(a.dir))
    except WriterUnavailable as e:
        print(f"write: {a.writer} cannot run here: {e}", file=sys.stderr)
        return 4
    if a.json:
        print(json.dumps(cell.to_json(), indent=1))
    else:
        print(_text(cell))
    return EXIT[cell.status]


def _text(cell: judge.Cell) -> str:
    out = [f"{cell.status}: {cell.writer} ({cell.version}) on {cell.oplog} (v{cell.format_version}, {cell.operation})"]
    if cell.table:
        out.append(f"table: {cell.table}")
    if cell.message:
        out.append(cell.message)
    for k, v in sorted(cell.problems.items()):
        out.append(f"  problem  {k}: {v}")
    for k, v in sorted(cell.advisories.items()):
        out.append(f"  advisory {k}: {v}")
    for s in cell.snapshots:
        out.append(f"  step {s['step']} ({s['op']}): snapshot {s['snapshot']}")
    for e in cell.known:
        out.append(f"  known: {e['reason']} ({e.get('upstream') or 'no upstream issue yet'})")
    return "\n".join(out)


