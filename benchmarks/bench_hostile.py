"""Peak memory of the checker on hostile inputs: decompression bombs and sparse giant files.

    python benchmarks/bench_hostile.py [--json FILE] [--quick]

For a pristine reference table and for each case of ``tests/hostile.py`` (a 1 GiB deflate bomb
in a manifest, 500 MiB LZ4 and zstd bombs and size lies in a Puffin statistics file, 1000 MiB
sparse manifest, data and Puffin files; and, not hostile, valid 200 MiB LZ4 and zstd blobs that
must pass), writes the table in a temporary directory and runs
``iceberg-conformance-check`` on it in a child process, recording wall time, exit code, the
rule that reported the damage and the child's peak RSS (``os.wait4``). The kit's bound for a
single input is 256 MiB above the pristine table's figure; each row says whether it held.
``--quick`` is accepted for the benchmark runner (the cases are the same: each takes under
a few seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BOUND_MIB = 256


def run_checker(md: str) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "iceberg_conformance", "check", "--json", "--quiet", md],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    try:
        rules = sorted({f["rule"] for t in json.loads(out)["tables"] for f in t["findings"] if f["severity"] == "error"})
    except ValueError:
        rules = ["(no JSON report)"]
    return {"exit": proc.returncode, "wall_s": round(wall, 2), "rss_peak_mib": round(usage.ru_maxrss / 1024, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "error_rules": rules}


def build(case: str, directory: str) -> str:
    """The metadata path of a reference table damaged by ``case`` (``pristine``: undamaged),
    written by a child process."""
    code = ("import sys, os; from tests import hostile; from iceberg_conformance.reference.writer import write_table; "
            "c, d = sys.argv[1:]; md = write_table(d, 2) if c == 'pristine' else hostile.build(c, d)[0]; "
            "print(md); sys.stdout.flush(); os._exit(0)")
    out = subprocess.run([sys.executable, "-c", code, case, directory], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout
    return out.strip().splitlines()[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the measurements here")
    ap.add_argument("--quick", action="store_true", help="accepted for run_all.py; the cases are the same")
    args = ap.parse_args()
    # This process imports nothing heavy and builds each table in a child: a child's peak RSS
    # (ru_maxrss) starts from its parent's, so a large parent would inflate every figure.
    from tests.hostile import CASES

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = run_checker(build("pristine", os.path.join(tmp, "pristine")))
        rows.append({"case": "pristine table", "expected_rule": None, **base, "within_bound": True})
        print(f"{'case':32} {'exit':>4} {'wall s':>7} {'peak RSS MiB':>13}  rules", flush=True)
        print(f"{'pristine table':32} {base['exit']:>4} {base['wall_s']:>7} {base['rss_peak_mib']:>13}  "
              f"{','.join(base['error_rules']) or '-'}", flush=True)
        for name, (_, rule) in CASES.items():
            md = build(name, os.path.join(tmp, name))
            r = run_checker(md)
            ok = r["rss_peak_mib"] <= base["rss_peak_mib"] + BOUND_MIB
            rows.append({"case": name, "expected_rule": rule, **r, "within_bound": ok})
            print(f"{name:32} {r['exit']:>4} {r['wall_s']:>7} {r['rss_peak_mib']:>13}  {','.join(r['error_rules'])}"
                  f"{'' if (rule in r['error_rules'] if rule else r['exit'] == 0) else '  (expected ' + str(rule) + ' MISSING)'}"
                  f"{'' if ok else '  OVER THE BOUND'}", flush=True)
    doc = {"bound_mib_above_pristine": BOUND_MIB, "load_average_start": list(os.getloadavg()), "results": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    bad = [r for r in rows[1:] if not r["within_bound"] or (
        r["expected_rule"] not in r["error_rules"] if r["expected_rule"] else r["exit"] != 0)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
