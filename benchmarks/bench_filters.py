"""What every engine's filtered reads of the golden tables cost: the consumer matrix's filter cells.

For each engine of the registry (``suites/engines/registry.py``), every live snapshot of every
golden table is read unfiltered and under every row filter that binds it (``Engine.scan``: one
call per snapshot, as ``suites/test_matrix.py`` makes it), and the wall time, the number of
(table, snapshot, filter) cases and the cases per second are printed. Engines that are not
installed are listed as such. Needs golden tables (``$ICEBERG_CONFORMANCE_GOLDEN`` or
``--golden``) and, for the engines beyond the kit's own extras, the ``consumers`` extra.

    python benchmarks/bench_filters.py --golden DIR [--engine duckdb --engine chdb ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.registry import ENGINES
from iceberg_conformance.suites.engines.workspace import Workspace
from iceberg_conformance.suites.golden import filters as golden_filters
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.golden.filters import expected_rows


def bench(engine: str, golden_dir: Path, work: Path) -> dict[str, Any]:
    e = ENGINES[engine]
    filters = golden_filters.load()
    ws = Workspace(golden_dir, work)
    cases = snapshots = errors = 0
    start = time.perf_counter()
    try:
        for table in golden.REGISTRY:
            doc = golden.load_expected(golden_dir, table, required=True)
            for snap in doc["snapshots"]:
                if snap["expired"]:
                    continue
                request = ws.request(e, doc, snap["snapshot_id"])
                binding = {f["id"]: f["filter"] for f in filters.get(table, [])
                           if expected_rows(request.schema, snap["rows"], f["filter"]) is not None}
                if not binding:
                    continue
                try:
                    read = e.scan(request, binding)
                except ReaderUnavailable:
                    raise
                except Exception:   # a crash of the engine is a case of the matrix, not of the benchmark
                    errors += 1
                    continue
                snapshots += 1
                cases += len(read.cases)
    finally:
        ws.close()
    wall = time.perf_counter() - start
    return {"engine": engine, "snapshots": snapshots, "cases": cases, "crashed_snapshots": errors,
            "wall_s": round(wall, 2), "cases_per_s": round(cases / wall, 1) if wall else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--golden", type=Path, default=os.environ.get(golden.GOLDEN_ENV))
    ap.add_argument("--engine", action="append", default=[], help=f"repeatable; default all: {', '.join(ENGINES)}")
    ap.add_argument("--json", type=Path, help="write the measurements here")
    ap.add_argument("--quick", action="store_true", help="(run_all.py's smoke mode: nothing to do)")
    args = ap.parse_args(argv)
    if args.quick:
        print("bench_filters: no quick mode (needs golden tables); skipped")
        return 0
    if args.golden is None or not (Path(args.golden) / "expected").is_dir():
        print(f"bench_filters: no golden tables (--golden DIR or ${golden.GOLDEN_ENV}); skipped")
        return 0
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    results = []
    for name in args.engine or list(ENGINES):
        with tempfile.TemporaryDirectory(prefix="bench-filters-") as tmp:
            try:
                got = bench(name, Path(args.golden), Path(tmp))
            except ReaderUnavailable as e:
                got = {"engine": name, "unavailable": str(e)[:200]}
        results.append(got)
        if "unavailable" in got:
            print(f"{name:11} not installed: {got['unavailable']}")
        else:
            print(f"{name:11} {got['cases']:6} cases in {got['snapshots']:4} snapshots: {got['wall_s']:8.2f} s "
                  f"({got['cases_per_s']} cases/s; {got['crashed_snapshots']} snapshots crashed the engine)")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps({"results": results, "load_after": os.getloadavg()}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
