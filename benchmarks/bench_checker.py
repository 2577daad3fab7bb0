"""How long the table checker takes, and where the time goes.

    python benchmarks/bench_checker.py [--rows N] [--buckets B] [--table PATH] [--workers W]

Without ``--table`` it writes a v2 table with pyiceberg (needs sqlalchemy for the SQL catalog)
into a temp directory: N rows over B bucket partitions (one data file each). It prints the
planning time, the time per unit kind, the total, and the total when the units are mapped
over W worker processes (the units are picklable; this is what an engine-side runner does).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from iceberg_conformance.checker import find_tables, plan_units  # noqa: E402
from iceberg_conformance.checker.check import run_batch, run_unit_digest  # noqa: E402
from iceberg_conformance.checker.run import CheckRun  # noqa: E402


def write_table(directory: str, rows: int, buckets: int) -> str:
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType

    cat = SqlCatalog("b", uri=f"sqlite:///{directory}/catalog.db", warehouse=f"file://{directory}")
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "name", StringType()),
                    NestedField(3, "x", DoubleType()))
    spec = PartitionSpec(PartitionField(1, 1000, BucketTransform(buckets), "b"))
    t = cat.create_table("db.t", schema, partition_spec=spec, properties={"format-version": "2"})
    t.append(pa.Table.from_pydict({"id": list(range(rows)), "name": [f"n{i % 1000}" for i in range(rows)],
                                   "x": [i * 0.5 for i in range(rows)]}, schema=t.schema().as_arrow()))
    return str(t.metadata_location)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--buckets", type=int, default=32)
    ap.add_argument("--table")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.table:
            tables = find_tables(args.table)
        else:
            t0 = time.monotonic()
            tables = [write_table(tmp, args.rows, args.buckets)]
            print(f"wrote {args.rows} rows in {args.buckets} buckets: {time.monotonic() - t0:.2f} s")
        for table in tables:
            t0 = time.monotonic()
            units = plan_units(table)
            plan_s = time.monotonic() - t0
            per_kind: dict[str, float] = collections.defaultdict(float)
            counts: collections.Counter[str] = collections.Counter()
            findings = 0
            t1 = time.monotonic()
            run = CheckRun(table, list(units[0].roots))  # one run: what it reads is read once
            for u in units:
                s = time.monotonic()
                findings += len(run_unit_digest(u, run)[0])
                per_kind[u.kind] += time.monotonic() - s
                counts[u.kind] += 1
            serial_s = time.monotonic() - t1
            t2 = time.monotonic()
            batches = [units[i:i + 4] for i in range(0, len(units), 4)]
            with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
                parallel_findings = sum(len(f) for batch in pool.map(run_batch, batches) for f, _d in batch)
            parallel_s = time.monotonic() - t2
            print(f"{table}")
            print(f"  plan: {plan_s:.3f} s for {len(units)} units")
            for kind in sorted(per_kind):
                print(f"  {kind:<12} {counts[kind]:>5} units {per_kind[kind]:.3f} s "
                      f"({per_kind[kind] / counts[kind] * 1000:.1f} ms each)")
            print(f"  serial: {serial_s:.3f} s, {findings} findings; {args.workers} processes: {parallel_s:.3f} s "
                  f"(incl. pool start), {parallel_findings} findings")


if __name__ == "__main__":
    main()
