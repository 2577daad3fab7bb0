"""How fast the reference reads and checks manifests, and how big a manifest gets.

    python benchmarks/bench_manifests.py [--entries N] [--repeat R]

Writes one v2 data manifest of N entries (the golden v2 entry, repeated with distinct paths)
with the reference writer, then times ``read_manifest`` (decode only) and ``check_manifest``
with its manifest-list entry (decode + every check), R times each, and prints entries/second.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from iceberg_conformance.reference import manifests as m  # noqa: E402
from iceberg_conformance.reference.types import StructType, parse_type  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "vectors", "manifests", "files", "v2-data.sidecar.json")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with open(GOLDEN, encoding="utf-8") as f:
        golden = json.load(f)
    first = golden["entries"][0]
    entries = []
    for i in range(args.entries):
        e = json.loads(json.dumps(first))
        e["data_file"]["file_path"] = f"s3://bucket/t/data/{i:08d}.parquet"
        entries.append(e)
    doc = {"format_version": 2, "metadata": golden["metadata"], "entries": entries}
    schema = parse_type(json.loads(golden["metadata"]["schema"]))
    assert isinstance(schema, StructType)
    ptype = m.partition_type(json.loads(golden["metadata"]["partition-spec"]), schema)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.avro")
        t0 = time.perf_counter()
        length = m.write_manifest(path, doc)
        write_s = time.perf_counter() - t0
        mf = {"manifest_path": path, "manifest_length": length, "partition_spec_id": 0, "content": 0,
              "sequence_number": 1, "min_sequence_number": 1, "added_snapshot_id": 1,
              "added_files_count": args.entries, "existing_files_count": 0, "deleted_files_count": 0,
              "added_rows_count": 3 * args.entries, "existing_rows_count": 0, "deleted_rows_count": 0,
              "partitions": m.summarize(entries, ptype), "key_metadata": None}
        print(f"manifest: {args.entries} entries, {length} bytes ({length / args.entries:.0f} B/entry), "
              f"written in {write_s:.3f}s")
        for name, run in (("read_manifest", lambda: m.read_manifest(path, 2)),
                          ("check_manifest", lambda: m.check_manifest(path, m.ManifestContext(2, manifest_file=mf)))):
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                run()
                best = min(best, time.perf_counter() - t0)
            print(f"{name}: best of {args.repeat}: {best:.3f}s, {args.entries / best:,.0f} entries/s")


if __name__ == "__main__":
    main()
