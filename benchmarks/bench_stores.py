"""The checker against PyIceberg and a plain pyarrow read, on the same rows written in few and in
many commits (issue 25's yardstick).

    python benchmarks/bench_stores.py TABLE_DIR [TABLE_DIR ...] [--rounds R] [--workers W]
    python benchmarks/bench_stores.py --write DIR [--rows N] [--commits 60,600,6000]
    python benchmarks/bench_stores.py --one OPERATION TABLE_DIR   # one operation, for an outside timer
    python benchmarks/bench_stores.py TABLE ... --tree new=PYTHON:REPO --tree old=PYTHON:REPO  # pairs
    python benchmarks/bench_stores.py s3://BUCKET/TABLE ... --s3-endpoint http://127.0.0.1:PORT

Without a table it writes small ones into a temporary directory (``--rows 60000 --commits
6,60`` unless given) and measures one round. ``--write`` writes one table per commit count with ``make_history_table.py`` (the same rows:
``N`` rows in day partitions, one data file per commit) and prints their directories. A
measurement runs every operation on every table as its own child process, round-robin (``R``
rounds, so drift in the machine's speed spreads over all of them), and prints per operation the
median wall time, CPU time (user + system) and peak resident set of the child, and the load
average before and after. Operations:

* ``pyarrow``: ``pyarrow.parquet.read_table`` of every data file the current snapshot lists;
* ``plan_files``: PyIceberg ``StaticTable.from_metadata(...).scan().plan_files()``;
* ``to_arrow``: PyIceberg ``...scan().to_arrow()``;
* ``check-metadata``: ``iceberg-conformance check --metadata-only``;
* ``check-full``: ``iceberg-conformance check --workers W``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OPERATIONS = ("pyarrow", "plan_files", "to_arrow", "check-metadata", "check-full")


def _s3(endpoint: str) -> Any:
    import pyarrow.fs as pafs

    return pafs.S3FileSystem(endpoint_override=endpoint.split("://", 1)[1], scheme=endpoint.split("://", 1)[0],
                             access_key=os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
                             secret_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
                             region=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))


def _metadata(table_dir: str, endpoint: str | None) -> str:
    if table_dir.startswith("s3://"):
        import pyarrow.fs as pafs

        listed = _s3(str(endpoint)).get_file_info(pafs.FileSelector(table_dir[len("s3://"):] + "/metadata"))
        names = sorted(i.path for i in listed if i.path.endswith(".metadata.json"))
        if not names:
            raise SystemExit(f"no table at {table_dir}")
        return "s3://" + names[-1]  # PyIceberg's names begin with the zero-padded version
    from iceberg_conformance.checker.find import current_metadata

    got = current_metadata(table_dir)
    if got is None:
        raise SystemExit(f"no table at {table_dir}")
    return got.path


def one(operation: str, table_dir: str, workers: int, endpoint: str | None = None) -> int:
    """Run one operation on one table (in this process)."""
    md = _metadata(table_dir, endpoint)
    if operation in ("pyarrow", "plan_files", "to_arrow"):
        from pyiceberg.table import StaticTable

        props = {} if endpoint is None else {
            "s3.endpoint": endpoint, "s3.access-key-id": os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
            "s3.secret-access-key": os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
            "s3.region": os.environ.get("AWS_DEFAULT_REGION", "us-east-1")}
        scan = StaticTable.from_metadata(md, properties=props).scan()
        if operation == "plan_files":
            print(len(list(scan.plan_files())))
        elif operation == "to_arrow":
            print(scan.to_arrow().num_rows)
        else:
            import pyarrow.parquet as pq

            fs = _s3(endpoint) if endpoint is not None else None
            rows = 0
            for task in scan.plan_files():
                path = task.file.file_path
                for scheme in ("file://", "s3://"):
                    path = path[len(scheme):] if path.startswith(scheme) else path
                rows += pq.read_table(path, filesystem=fs).num_rows
            print(rows)
        return 0
    from iceberg_conformance.cli import main

    where = [table_dir, "--s3-endpoint", endpoint] if endpoint is not None else [md]
    args = ["check", *where, "--quiet"] + (["--metadata-only"] if operation == "check-metadata" else
                                          ["--workers", str(workers)])
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        code = main(args)
    return 0 if code in (0, 1, 3) else code


def measure(tables: list[str], rounds: int, workers: int, operations: list[str],
            trees: list[tuple[str, str, str]] | None = None, endpoint: str | None = None,
            out: str | None = None) -> None:
    """``trees``: (label, python, repository) of each checkout to measure side by side (default:
    this one); the operations of PyIceberg and pyarrow run under the first one only."""
    trees = trees or [("", sys.executable, str(HERE.parent))]
    results: dict[tuple[str, str, str], list[tuple[float, float, int, float]]] = {}
    load_before = os.getloadavg()
    for _ in range(rounds):
        for t in tables:
            for op in operations:
                for k, (label, python, repo) in enumerate(trees):
                    if k and not op.startswith("check"):
                        continue
                    cmd = [python, os.path.join(repo, "benchmarks", "bench_stores.py"), "--one", op, t,
                           "--workers", str(workers)] + (["--s3-endpoint", endpoint] if endpoint else [])
                    load = os.getloadavg()[0]
                    start = time.monotonic()
                    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, cwd=repo)
                    _pid, status, usage = os.wait4(proc.pid, 0)
                    wall = time.monotonic() - start
                    proc.returncode = os.waitstatus_to_exitcode(status)
                    if proc.returncode != 0:
                        raise SystemExit(f"{op} on {t} ({label or repo}) failed: exit {proc.returncode}")
                    # children of the child (the check's worker processes) are not in wait4's figure: wall is
                    cpu = usage.ru_utime + usage.ru_stime
                    results.setdefault((t, label, op), []).append((wall, cpu, usage.ru_maxrss, load))
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f}; {rounds} rounds, medians; "
          f"check-full with {workers} workers")
    print(f"{'table':<40} {'tree':<6} {'operation':<15} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'load':>5}")
    rows = []
    for (t, label, op), runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rss = max(r[2] for r in runs) / 1024
        load = statistics.median(r[3] for r in runs)
        print(f"{t:<40} {label:<6} {op:<15} {wall:8.2f} {cpu:8.2f} {rss:9.0f} {load:5.1f}")
        rows.append({"table": t, "tree": label, "operation": op, "wall_s": wall, "cpu_s": cpu, "peak_mib": rss,
                     "load_at_start": load, "runs": runs})
    if out:
        import json

        with open(out, "w") as f:
            json.dump({"load_before": load_before, "load_after": load_after, "rounds": rounds, "workers": workers,
                       "endpoint": endpoint, "results": rows}, f, indent=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tables", nargs="*")
    ap.add_argument("--one", metavar="OPERATION", choices=OPERATIONS)
    ap.add_argument("--write", metavar="DIR")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--commits")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--operations", default=",".join(OPERATIONS))
    ap.add_argument("--s3-endpoint", help="the tables are s3:// URIs at this endpoint (credentials from "
                    "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, default testing)")
    ap.add_argument("--tree", action="append", default=[], metavar="LABEL=PYTHON:REPO",
                    help="also measure the checker of another checkout with its interpreter, pair by pair "
                    "(repeatable; the first is the reference for the other operations)")
    ap.add_argument("--json", metavar="FILE", help="write the measurements there too")
    a = ap.parse_args(argv)
    if a.one:
        return one(a.one, a.tables[0], a.workers, a.s3_endpoint)
    trees = []
    for spec in a.tree:
        label, rest = spec.split("=", 1)
        python, repo = rest.split(":", 1)
        trees.append((label, python, repo))
    if a.write:
        for t in _write_tables(a.write, a.rows or 6_000_000, a.commits or "60,600"):
            print(t)
        return 0
    if not a.tables:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            tables = _write_tables(tmp, a.rows or 60_000, a.commits or "6,60")
            measure(tables, a.rounds or 1, a.workers, a.operations.split(","))
        return 0
    measure(a.tables, a.rounds or 3, a.workers, a.operations.split(","), trees, a.s3_endpoint, a.json)
    return 0


def _write_tables(directory: str, rows: int, commits: str) -> list[str]:
    """The tables of ``commits`` (comma-separated counts); a count above 600 is written by
    ``make_history_table.py``'s fast mode (PyIceberg's appends slow down with the history)."""
    sys.path.insert(0, str(HERE))
    from make_history_table import write, write_fast

    out = []
    for c in (int(x) for x in commits.split(",")):
        target = os.path.join(directory, f"t{c}")
        (write_fast if c > 600 else write)(target, rows, c, 10)
        out.append(os.path.join(target, "db", "events"))
    return out


if __name__ == "__main__":
    sys.exit(main())
