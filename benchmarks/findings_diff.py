"""Record the checker's findings on many tables, and compare two such records (a change meant to
make the checker faster must not change a single finding).

    python benchmarks/findings_diff.py record OUT.json ROOT [ROOT ...] [--metadata-only] [--workers N]
    python benchmarks/findings_diff.py diff BEFORE.json AFTER.json

``record`` checks every table under each ROOT (a directory holding ``metadata/*.metadata.json``,
found at any depth; a damage output directory holds one copy per case) in this process and
writes, per table, its findings (rule, severity, file, location, message, clause), sorted, the
counts of findings left out, and the verdict. ``diff`` prints every table whose findings differ
and exits 1 if any does (or a table is in one record only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any


def tables_under(root: str) -> list[str]:
    """Table directories under ``root`` (directories holding ``metadata/*.metadata.json``)."""
    out = []
    for here, dirs, files in os.walk(root):
        if os.path.basename(here) == "metadata" and any(f.endswith(".metadata.json") for f in files):
            out.append(os.path.dirname(here))
            dirs[:] = []
    return sorted(out)


def record(roots: list[str], metadata_only: bool, workers: int) -> dict[str, Any]:
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.find import current_metadata

    out: dict[str, Any] = {}
    for root in roots:
        for table in tables_under(root):
            current = current_metadata(table)
            if current is None:
                continue
            result = check_table(current, metadata_only=metadata_only, workers=workers)
            out[table] = {
                "findings": sorted([f.rule, f.severity, f.file, f.location, f.message, f.clause]
                                   for f in result.findings),
                "omitted": sorted([r, s, n] for (r, s), n in result.omitted.items()),
                "verdict": result.verdict(),
            }
    return out


def diff(before: dict[str, Any], after: dict[str, Any]) -> int:
    bad = 0
    for table in sorted(set(before) | set(after)):
        a, b = before.get(table), after.get(table)
        if a == b:
            continue
        bad += 1
        print(f"== {table}")
        if a is None or b is None:
            print("   only in", "AFTER" if a is None else "BEFORE")
            continue
        gone = [f for f in a["findings"] if f not in b["findings"]]
        new = [f for f in b["findings"] if f not in a["findings"]]
        for f in gone:
            print("   -", f)
        for f in new:
            print("   +", f)
        if a["omitted"] != b["omitted"] or a["verdict"] != b["verdict"]:
            print(f"   omitted/verdict {a['omitted']} {a['verdict']} -> {b['omitted']} {b['verdict']}")
    print(f"{len(set(before) | set(after))} tables, {bad} differ")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out")
    r.add_argument("roots", nargs="+")
    r.add_argument("--metadata-only", action="store_true")
    r.add_argument("--workers", type=int, default=1)
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    a = ap.parse_args(argv)
    if a.cmd == "diff":
        with open(a.before) as fa, open(a.after) as fb:
            return diff(json.load(fa), json.load(fb))
    start = time.monotonic()
    got = record(a.roots, a.metadata_only, a.workers)
    with open(a.out, "w") as f:
        json.dump(got, f, indent=0, sort_keys=True)
    print(f"{len(got)} tables, {sum(len(v['findings']) for v in got.values())} findings, "
          f"{time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
