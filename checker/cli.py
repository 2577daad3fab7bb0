"""``python -m iceberg_conformance.checker`` / ``iceberg-conformance-check``: check Iceberg tables on disk.

Exit status: 0 when no finding reaches ``--fail-on`` (default ``error``), 1 when one does,
2 for a usage error or when no table can be found or read at PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import NoReturn, Sequence

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.find import find_tables
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.checker.report import render_text, to_json
BIG_TABLE_FILES = 10_000


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="iceberg-conformance-check",
        description="Check Iceberg tables (metadata, manifests, data and delete files) against the spec.")
    ap.add_argument("paths", nargs="+", metavar="PATH",
                    help="a metadata file, a table directory or a warehouse directory")
    ap.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    ap.add_argument("--fail-on", choices=("error", "warning", "info"), default="error",
                    help="lowest severity that makes the exit status 1 (default: error)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ap.add_argument("--metadata-only", action="store_true",
                    help="check metadata, manifest lists and manifests only (every entry's rules, counts, bounds "
                         "encodings, summaries, inheritance); data and delete files are not opened")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="run the checks in N local processes (default 1)")
    ap.add_argument("--allow-root", action="append", default=[], metavar="DIR",
                    help="also read files under DIR (by default only files under the table's location and "
                         "directory are read; others are reported as files.outside-table)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code not in (0, None) else 0
    tables: list[str] = []
    for p in args.paths:
        found = find_tables(p)
        if not found:
            print(f"iceberg-conformance-check: no Iceberg table at {p} (expected a metadata file, a table "
                  "directory with metadata/, or a warehouse)", file=sys.stderr)
            return 2
        tables.extend(found)
    show = not args.quiet and sys.stderr.isatty()

    started = [0.0]

    def planned(units: list[Unit]) -> None:
        started[0] = time.monotonic()
        files = sum(u.kind in ("data-file", "delete-file") for u in units)
        if not args.quiet and not args.metadata_only and files >= BIG_TABLE_FILES:
            print(f"  {files} data and delete files will be opened and read; progress shows the time left. "
                  "--metadata-only checks metadata, manifest lists and manifests without opening them.",
                  file=sys.stderr)

    def progress(i: int, n: int, u: Unit) -> None:
        if show and (n > 20 and i % max(1, n // 50) == 0):
            elapsed = time.monotonic() - started[0]
            left = f", about {elapsed / i * (n - i):.0f} s left" if i and elapsed > 2 else ""
            print(f"\r  {i}/{n} {u.kind:<12}{left}   ", end="", file=sys.stderr, flush=True)

    results = []
    for t in tables:
        if not args.quiet:
            print(f"checking {t}", file=sys.stderr)
        results.append(check_table(t, progress=progress, planned=planned, allowed_roots=args.allow_root,
                                   metadata_only=args.metadata_only, workers=max(1, args.workers)))
        if show:
            print("\r", end="", file=sys.stderr)
    unreadable = [r for r in results if any(f.rule in ("metadata.json-syntax", "metadata.file-unreadable",
                                                       "metadata.file-too-large", "metadata.gzip")
                                            and f.file == r.table for f in r.findings) and r.units <= 1]
    if args.json:
        print(json.dumps(to_json(results), indent=2))
    else:
        print(render_text(results))
    if unreadable and len(unreadable) == len(results):
        return 2
    levels = {"error": ("error",), "warning": ("error", "warning"), "info": ("error", "warning", "info")}[args.fail_on]
    return 1 if any(f.severity in levels for r in results for f in r.findings) else 0


def exit_hard(code: int) -> NoReturn:
    """End the process with ``code`` once the output is flushed, without running native
    libraries' exit-time destructors: a thread pool torn down at interpreter exit can abort the
    process ("terminate called without an active exception", exit 134) after a complete report,
    which a CI gate would read as a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away (e.g. `| head`)
            pass
    os._exit(code)


def entry() -> None:
    """The ``iceberg-conformance-check`` command."""
    exit_hard(main())
