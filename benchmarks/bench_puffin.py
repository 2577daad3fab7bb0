"""Memory and time of the reference Puffin reader.

    python benchmarks/bench_puffin.py [--positions N]

1. Bounded memory: for each invalid golden file whose footer or blob frame claims gigabytes
   (``vectors/puffin/files/*claims*``, ``footer-size-huge``, ``dv-huge-bitmap-count``) it
   prints the rule the reader refused by and the peak Python allocation while reading
   (``tracemalloc``); the claim is refused before anything of that size is allocated.
2. Throughput: it writes a deletion vector of N positions spread over 4 keys (one above
   2^32) with the reference writer, then times reading it back (decode + CRC) and prints
   positions per second and the peak allocation.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from iceberg_conformance.reference.errors import SpecViolation  # noqa: E402
from iceberg_conformance.reference.puffin import deletion_vector_blob, read_form, write_puffin  # noqa: E402

FILES = Path(__file__).resolve().parent.parent / "vectors" / "puffin" / "files"


def peak_while(fn: object) -> tuple[str, int]:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        outcome = "read"
    except SpecViolation as e:
        outcome = f"refused [{e.rule}]"
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return outcome, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=1_000_000)
    args = ap.parse_args()
    print("size claims (peak Python allocation while reading):")
    names = sorted(FILES.glob("*claims*.puffin")) + [FILES / "footer-size-huge.puffin",
                                                     FILES / "dv-huge-bitmap-count.puffin"]
    for f in names:
        outcome, peak = peak_while(lambda f=f: read_form(f))
        print(f"  {f.name:<32} {outcome:<34} peak {peak / 1024:8.1f} KiB")
    n = args.positions
    step = 7
    positions = [k * (1 << 32 if k == 3 else 1 << 20) + i * step for k in range(4) for i in range(n // 4)]
    data = write_puffin([deletion_vector_blob(positions, "s3://b/data.parquet")])
    t0 = time.perf_counter()
    outcome, peak = peak_while(lambda: read_form(data))
    t1 = time.perf_counter()
    print(f"deletion vector of {len(positions)} positions ({len(data)} bytes): {outcome}, "
          f"{(t1 - t0):.3f} s with tracemalloc ({len(positions) / (t1 - t0):,.0f} positions/s), "
          f"peak {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
