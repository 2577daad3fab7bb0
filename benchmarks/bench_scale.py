"""The checker at production size: a synthetic table of M manifests x E entries.

    python benchmarks/bench_scale.py [--manifests 100] [--entries 1000] [--workers 1 2] [--no-spark]
                                     [--out FILE]

Writes a v2 table whose data files are absent (metadata only), its manifests written the way
Iceberg Java writes them (deflate, a new Avro block every 64 KB of records, full column metrics:
value, null and NaN counts, column sizes, lower and upper bounds for every column), then times,
each in its own process so peak RSS is its own:

* the checker, ``--metadata-only``, with 1 and with 2 local worker processes;
* PyIceberg's ``StaticTable.scan().plan_files()`` (needs the ``pyiceberg`` extra);
* in one Spark process (``local[2]``, needs the ``spark`` extra and Java 17): Iceberg Java's
  ``TableScan.planFiles()`` through Spark's JVM on a ``StaticTableOperations`` table, run three
  times (the first cold, the best of the others warm), and the checker with its units as Spark
  tasks (``suites.spark.distributed.spark_mapper``, metadata only), also three times (the first
  starts Spark's Python workers and imports the kit in them; the best of the others warm).

For each: wall time, CPU time (user + system, children included; for Spark the JVM and its
Python workers) and peak RSS, with the load average at the start. The checker run must find
the data files absent *only* where it was asked to (metadata-only never opens them), so it
reports nothing but the header warning.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "name", "required": False, "type": "string"},
    {"id": 3, "name": "x", "required": False, "type": "double"},
    {"id": 4, "name": "d", "required": False, "type": "date"}]}


def _write_manifest(job: tuple[str, int, int, int]) -> dict[str, Any]:
    """Write manifest ``m`` of the synthetic table; returns its manifest-list record."""
    import struct

    from iceberg_conformance.reference.manifests import manifest_bytes

    root, m, entries, block_bytes = job
    header = {"schema": json.dumps(SCHEMA), "partition-spec": "[]", "partition-spec-id": "0", "format-version": "2",
              "content": "data"}
    rows = []
    for e in range(entries):
        n = m * entries + e
        rows.append({"status": 1, "snapshot_id": None, "sequence_number": None, "file_sequence_number": None,
                     "data_file": {
                         "content": 0, "file_path": f"{root}/data/{m:05d}/{n:09d}.parquet", "file_format": "PARQUET",
                         "partition": {}, "record_count": 100, "file_size_in_bytes": 4096 + e,
                         "column_sizes": {"1": 800, "2": 900, "3": 800, "4": 400},
                         "value_counts": {"1": 100, "2": 100, "3": 100, "4": 100},
                         "null_value_counts": {"1": 0, "2": 3, "3": 0, "4": 1}, "nan_value_counts": {"3": 0},
                         "lower_bounds": {"1": struct.pack("<q", n * 100).hex(), "2": f"a{n:09d}".encode().hex(),
                                          "3": struct.pack("<d", -1.5 - e).hex(), "4": struct.pack("<i", 18000).hex()},
                         "upper_bounds": {"1": struct.pack("<q", n * 100 + 99).hex(), "2": f"z{n:09d}".encode().hex(),
                                          "3": struct.pack("<d", 1e6 + e).hex(), "4": struct.pack("<i", 19000).hex()},
                         "key_metadata": None, "split_offsets": [4], "equality_ids": None, "sort_order_id": 0,
                         "referenced_data_file": None}})
    data = manifest_bytes({"format_version": 2, "metadata": header, "entries": rows}, codec="deflate",
                          block_bytes=block_bytes)
    path = os.path.join(root, "metadata", f"m{m:05d}.avro")
    with open(path, "wb") as f:
        f.write(data)
    return {"manifest_path": path, "manifest_length": len(data), "partition_spec_id": 0, "content": 0,
            "sequence_number": 1, "min_sequence_number": 1, "added_snapshot_id": 1,
            "added_files_count": entries, "existing_files_count": 0, "deleted_files_count": 0,
            "added_rows_count": entries * 100, "existing_rows_count": 0, "deleted_rows_count": 0,
            "partitions": [], "key_metadata": None}


def write_table(root: str, manifests: int, entries: int, block_bytes: int = 64 * 1024,
                processes: int | None = None) -> str:
    """The synthetic table under ``root`` (manifests written by ``processes`` processes, default
    one per core; 1 writes them in this process); returns its metadata file."""
    import multiprocessing

    from iceberg_conformance.reference.manifests import manifest_list_bytes

    meta_dir = os.path.join(root, "metadata")
    os.makedirs(meta_dir, exist_ok=True)
    snapshot_id = 1
    work = [(root, m, entries, block_bytes) for m in range(manifests)]
    processes = processes or os.cpu_count() or 1
    if processes == 1:
        listed = [_write_manifest(w) for w in work]
    else:
        # spawned children import this module by name: the caller must have it importable
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            listed = pool.map(_write_manifest, work, chunksize=4)
    ml = os.path.join(meta_dir, "snap-1.avro")
    with open(ml, "wb") as f:
        f.write(manifest_list_bytes({"format_version": 2, "metadata": {}, "manifests": listed}, codec="deflate"))
    total = manifests * entries
    doc = {"format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1", "location": root,
           "last-sequence-number": 1, "last-updated-ms": 1700000000000, "last-column-id": 4,
           "current-schema-id": 0, "schemas": [SCHEMA], "default-spec-id": 0,
           "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
           "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
           "current-snapshot-id": snapshot_id,
           "snapshots": [{"snapshot-id": snapshot_id, "sequence-number": 1, "timestamp-ms": 1700000000000,
                          "manifest-list": ml, "schema-id": 0,
                          "summary": {"operation": "append", "total-data-files": str(total),
                                      "total-records": str(total * 100)}}],
           "snapshot-log": [{"snapshot-id": snapshot_id, "timestamp-ms": 1700000000000}], "metadata-log": [],
           "refs": {"main": {"snapshot-id": snapshot_id, "type": "branch"}}}
    md = os.path.join(meta_dir, "v1.metadata.json")
    with open(md, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return md


CHILD = r"""
import json, resource, sys, time
what, md, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.monotonic()
if what == "checker":
    from iceberg_conformance.checker.report import group
    from iceberg_conformance.checker.check import check_table
    r = check_table(md, metadata_only=True, workers=workers)
    detail = {"units": r.units, "groups": [(g.rule, g.severity, g.count) for g in group(r.findings)]}
else:
    from pyiceberg.table import StaticTable
    tasks = list(StaticTable.from_metadata(md).scan().plan_files())
    detail = {"tasks": len(tasks)}
wall = time.monotonic() - t0
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                  "rss_mib": max(me.ru_maxrss, kids.ru_maxrss) / 1024, **detail}))
"""


SPARK_CHILD = r"""
import json, os, resource, sys, time
md = sys.argv[1]

def tree_cpu(pid):
    # user + system seconds of a process and all its descendants (Linux /proc)
    ticks = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for t in os.listdir(f"/proc/{p}/task"):
                todo.extend(int(c) for c in open(f"/proc/{p}/task/{t}/children").read().split())
        except OSError:
            pass
    return total

def self_cpu():
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime

from iceberg_conformance.suites.spark import session
spark = session.spark()
jvm = spark._jvm
pid = int(jvm.java.lang.ProcessHandle.current().pid())
io = jvm.org.apache.iceberg.hadoop.HadoopFileIO(spark._jsc.hadoopConfiguration())
table = jvm.org.apache.iceberg.BaseTable(jvm.org.apache.iceberg.StaticTableOperations(md, io), "bench")
Iterables = jvm.org.apache.iceberg.relocated.com.google.common.collect.Iterables
java_runs = []
for _ in range(3):
    c0, t0 = tree_cpu(pid), time.monotonic()
    n = Iterables.size(table.newScan().planFiles())
    java_runs.append({"wall": time.monotonic() - t0, "cpu": tree_cpu(pid) - c0, "tasks": int(n)})
from iceberg_conformance.checker.report import group
from iceberg_conformance.checker.check import check_table
from iceberg_conformance.suites.spark.distributed import spark_mapper
checker_runs = []
for _ in range(3):
    c0, s0, t0 = tree_cpu(pid), self_cpu(), time.monotonic()
    r = check_table(md, mapper=spark_mapper(spark), metadata_only=True)
    checker_runs.append({"wall": time.monotonic() - t0, "cpu": tree_cpu(pid) - c0 + self_cpu() - s0,
                         "units": r.units, "groups": [(g.rule, g.severity, g.count) for g in group(r.findings)]})
rss = session.peak_rss_mib()
print(json.dumps({"java": java_runs, "checker": checker_runs, "rss": rss}))
sys.stdout.flush()
os._exit(0)
"""


def measure(what: str, md: str, workers: int = 1) -> dict[str, Any]:
    load = os.getloadavg()[0]
    run = subprocess.run([sys.executable, "-c", CHILD, what, md, str(workers)], capture_output=True, text=True)
    if run.returncode != 0:
        return {"what": what, "error": run.stderr[-600:], "load": load}
    out: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    out.update({"what": what if what != "checker" else f"checker --metadata-only --workers {workers}",
                "load": round(load, 2)})
    return out


def measure_spark(md: str) -> list[dict[str, Any]]:
    """Iceberg Java's planFiles (cold and warm) and the checker on Spark, in one Spark process."""
    load = round(os.getloadavg()[0], 2)
    env = dict(os.environ, ICEBERG_CONFORMANCE_SPARK_MEMORY=os.environ.get("ICEBERG_CONFORMANCE_SPARK_MEMORY", "2g"))
    run = subprocess.run([sys.executable, "-c", SPARK_CHILD, md], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        return [{"what": "spark", "error": run.stderr[-600:], "load": load}]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    rss = out["rss"]
    jvm = rss.get("jvm", 0.0)
    cold, warm = out["java"][0], min(out["java"][1:], key=lambda r: r["wall"])
    return [
        {"what": "Iceberg Java planFiles() (cold, first run)", "wall": cold["wall"], "cpu": cold["cpu"],
         "rss_mib": jvm, "tasks": cold["tasks"], "load": load},
        {"what": "Iceberg Java planFiles() (warm, best of 2 more)", "wall": warm["wall"], "cpu": warm["cpu"],
         "rss_mib": jvm, "tasks": warm["tasks"], "load": load},
    ] + [{"what": f"checker --metadata-only on Spark local[2] ({label})", "wall": run["wall"], "cpu": run["cpu"],
          "rss_mib": rss.get("python", 0.0), "rss_note": f"JVM {jvm:.0f} MiB", "groups": run["groups"], "load": load}
         for label, run in (("cold: first run, Python workers starting", out["checker"][0]),
                            ("warm, best of 2 more", min(out["checker"][1:], key=lambda r: r["wall"])))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifests", type=int, default=100)
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-spark", action="store_true", help="leave out the Spark measurements")
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    from _machine import cpu_model, mem_gib  # type: ignore[import-not-found]

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        md = write_table(tmp, args.manifests, args.entries)
        print(f"wrote {args.manifests} manifests x {args.entries} entries in {time.monotonic() - t0:.1f} s",
              file=sys.stderr, flush=True)
        results = []
        for w in args.workers:
            results.append(measure("checker", md, w))
            print(f"  measured the checker with {w} worker(s)", file=sys.stderr, flush=True)
        results.append(measure("pyiceberg", md))
        print("  measured PyIceberg", file=sys.stderr, flush=True)
        if not args.no_spark:
            results.extend(measure_spark(md))
            print("  measured Iceberg Java and the checker on Spark", file=sys.stderr, flush=True)
    print("| run | wall s | cpu s | peak RSS MiB | load | result |\n|---|---:|---:|---:|---:|---|")
    for r in results:
        if "error" in r:
            print(f"| {r['what']} | - | - | - | {r['load']} | error: {r['error'].splitlines()[-1] if r['error'] else ''} |")
            continue
        result = r.get("groups") if "groups" in r else f"{r.get('tasks')} tasks"
        rss = f"{r['rss_mib']:.0f}" + (f" ({r['rss_note']})" if r.get("rss_note") else "")
        print(f"| {r['what']} | {r['wall']:.1f} | {r['cpu']:.1f} | {rss} | {r['load']} | {result} |")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "mem_gib": mem_gib()},
                       "manifests": args.manifests, "entries": args.entries, "results": results}, f, indent=2)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
