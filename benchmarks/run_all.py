"""Run every ``benchmarks/bench_*.py`` and write one results table.

    python benchmarks/run_all.py [--quick] [--out DIR] [--only NAME ...] [--skip NAME ...]
                                 [--runs R] [--bench-arg NAME=ARG ...]
    python benchmarks/run_all.py --render benchmarks/results/run_all.json

Each benchmark runs as a child process from the repository root. A benchmark that takes
``--json PATH`` writes its own measurements there; one that takes ``--quick`` is given it in
quick mode. A benchmark that takes neither runs ``--runs`` times (default 3; 1 in quick
mode) unless it repeats its measurements itself (``--repeat``), with its defaults, or in quick
mode with the small arguments in ``QUICK_ARGS``; one not listed there is skipped in quick mode.
Its output is kept as printed; the timings ``bench_checker.py`` prints are also parsed into
best and median.

For every child the runner records wall time, CPU time (user + system) and peak resident set
(``os.wait4``), and the load average before and after. It writes ``run_all.json`` (everything,
including each benchmark's own JSON) and ``RESULTS.md`` (the tables) to ``--out``, which
defaults to ``benchmarks/results/`` for a full run and to a new temporary directory for
``--quick``, so a smoke run never overwrites measured results.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: benchmarks that take neither --quick nor --json: arguments for quick mode
QUICK_ARGS = {"bench_checker": ["--rows", "2000", "--buckets", "4"],
              "bench_manifests": ["--entries", "500", "--repeat", "1"],
              "bench_puffin": ["--positions", "10000"]}


from _machine import cpu_model, mem_gib  # noqa: E402  (benchmarks/ is on sys.path when run)

def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def run_child(cmd: Sequence[str]) -> dict[str, Any]:
    """Run ``cmd`` from the repository root, echoing its output; wall, CPU, peak RSS, output."""
    l0 = load()
    t0 = time.perf_counter()
    p = subprocess.Popen(list(cmd), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace", bufsize=1)
    lines = []
    assert p.stdout is not None
    for line in p.stdout:
        sys.stdout.write("    " + line)
        sys.stdout.flush()
        lines.append(line.rstrip("\n"))
    p.stdout.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"cmd": [os.path.relpath(c, ROOT) if c.endswith(".py") else c for c in cmd[1:]],
            "returncode": p.returncode, "wall_s": round(time.perf_counter() - t0, 3),
            "cpu_s": round(ru.ru_utime + ru.ru_stime, 3), "rss_peak_mib": round(ru.ru_maxrss / 1024, 1),
            "load_before": l0, "load_after": load(), "output": lines}


_F = r"([0-9.]+)"


def parse_checker(lines: list[str]) -> dict[str, Any]:
    """The timings ``bench_checker.py`` prints, as numbers."""
    out: dict[str, Any] = {"per_kind": {}}
    for line in lines:
        if m := re.match(rf"wrote (\d+) rows in (\d+) buckets: {_F} s", line):
            out.update(rows=int(m[1]), buckets=int(m[2]), write_s=float(m[3]))
        elif m := re.match(rf"\s+plan: {_F} s for (\d+) units", line):
            out.update(plan_s=float(m[1]), units=int(m[2]))
        elif m := re.match(rf"\s+serial: {_F} s, (\d+) findings; (\d+) processes: {_F} s", line):
            out.update(serial_s=float(m[1]), findings=int(m[2]), workers=int(m[3]), parallel_s=float(m[4]))
        elif m := re.match(rf"\s+(\S+)\s+(\d+) units {_F} s \({_F} ms each\)", line):
            out["per_kind"][m[1]] = {"units": int(m[2]), "s": float(m[3]), "ms_each": float(m[4])}
    return out


def summarise_runs(parsed: list[dict[str, Any]]) -> dict[str, Any]:
    """Best (min) and median of every numeric field over repeated runs."""
    keys = sorted({k for p in parsed for k, v in p.items() if isinstance(v, float)})
    summary: dict[str, Any] = {}
    for k in keys:
        vals = [p[k] for p in parsed if k in p]
        summary[k] = {"best": min(vals), "median": statistics.median(vals), "runs": len(vals)}
    kinds = sorted({k for p in parsed for k in p.get("per_kind", {})})
    for kind in kinds:
        vals = [p["per_kind"][kind]["s"] for p in parsed if kind in p.get("per_kind", {})]
        units = next(p["per_kind"][kind]["units"] for p in parsed if kind in p.get("per_kind", {}))
        summary[f"kind:{kind}"] = {"best": min(vals), "median": statistics.median(vals),
                                   "runs": len(vals), "units": units}
    return summary


# --------------------------------------------------------------------------------------------
# markdown


def _ops(v: float | None) -> str:
    if v is None:
        return ""
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    if v >= 1e3:
        return f"{v / 1e3:.0f} k"
    return f"{v:.0f}"


LAYERS = ["ref", "pyiceberg", "core-arrow", "to-arrow", "reference-adapter", "pyiceberg-adapter",
          "pyiceberg-core-adapter"]


def core_tables(doc: dict[str, Any]) -> list[str]:
    res = doc["results"]
    out = []
    rows: dict[str, dict[str, Any]] = {}
    for r in res:
        if not r["name"].startswith("suite/"):
            rows.setdefault(r["name"], {})[r["layer"]] = r
    layers = [la for la in LAYERS if any(la in v for v in rows.values())]
    s = doc["settings"]
    out.append(f"Operations per CPU second (the least CPU time of {s['repeat']} runs; library "
               f"layers over {s['n']:,} values, adapter layers over {s['n_adapter']:,}). "
               "`ref wall` is the reference's operations per wall-clock second (best run) and "
               "`wall median/best` the spread of its wall times, which the machine's load "
               "inflates; `ref heap` is the reference's peak Python heap for the whole column "
               "(tracemalloc, results included); `!` marks results that differ from the "
               "reference's.\n")
    out.append("| operation | " + " | ".join(layers) + " | ref wall | wall median/best | ref heap MiB |")
    out.append("|---|" + "---:|" * (len(layers) + 3))
    for name, by in rows.items():
        cells = []
        for la in layers:
            r = by.get(la)
            mark = " !" if r is not None and r["extra"].get("differs_from_ref") else ""
            cells.append(_ops(r["cpu_ops_per_s"]) + mark if r else "")
        ref = by.get("ref")
        cells.append(_ops(ref["ops_per_s"]) if ref else "")
        spread = f"{ref['median_s'] / ref['best_s']:.2f}" if ref and ref["best_s"] else ""
        heap = f"{ref['heap_peak_mib']:.2f}" if ref and ref["heap_peak_mib"] is not None else ""
        out.append(f"| {name} | " + " | ".join(cells) + f" | {spread} | {heap} |")
    suite = [r for r in res if r["name"].startswith("suite/")]
    if suite:
        out.append("")
        out.append(f"The vector suite per target (`{suite[0]['name'][6:]}`, `-m \"not spark\"`), "
                   f"{suite[0]['runs']} runs each, child process:\n")
        out.append("| target | tests | wall best s | wall median s | CPU least s | CPU median s "
                   "| peak RSS MiB | load at end | pytest summary |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in suite:
            out.append(f"| {r['layer']} | {r['n']} | {r['best_s']:.1f} | {r['median_s']:.1f} | "
                       f"{r['cpu_min_s']:.1f} | {r['extra']['cpu_median_s']:.1f} | "
                       f"{r['rss_peak_mib']:.0f} | {r['load1']} | {r['extra']['summary']} |")
        files = sorted({f for r in suite for f in r["extra"].get("per_file_s", {})},
                       key=lambda f: -max(r["extra"].get("per_file_s", {}).get(f, 0.0) for r in suite))
        if files:
            out.append("")
            out.append("Where the suite's time goes: seconds inside each test file's tests (setup, "
                       "call and teardown, from pytest's JUnit XML of the fastest run; start-up and "
                       "collection are the rest of the wall time).\n")
            out.append("| test file | " + " | ".join(r["layer"] for r in suite) + " |")
            out.append("|---|" + "---:|" * len(suite))
            for f in files:
                out.append(f"| {f} | " + " | ".join(
                    f"{r['extra'].get('per_file_s', {}).get(f, 0.0):.1f}" for r in suite) + " |")
            out.append("| (start-up, collection) | " + " | ".join(
                f"{r['best_s'] - sum(r['extra'].get('per_file_s', {}).values()):.1f}" for r in suite) + " |")
    return out


def checker_table(entry: dict[str, Any]) -> list[str]:
    s = entry["summary"]
    first = entry["parsed"][0] if entry["parsed"] else {}
    out = [f"Table of {first.get('rows', '?'):,} rows in {first.get('buckets', '?')} bucket "
           f"partitions written by pyiceberg; {first.get('units', '?')} units; "
           f"{len(entry['parsed'])} runs; findings reported: {first.get('findings', '?')}.\n",
           "| step | best s | median s |", "|---|---:|---:|"]
    labels = {"write_s": "write the table (pyiceberg)", "plan_s": "plan units",
              "serial_s": "check all units, one process",
              "parallel_s": f"check all units, {first.get('workers', '?')} processes (incl. pool start)"}
    for k, label in labels.items():
        if k in s:
            out.append(f"| {label} | {s[k]['best']:.3f} | {s[k]['median']:.3f} |")
    for k, v in s.items():
        if k.startswith("kind:"):
            out.append(f"| {k[5:]} units ({v['units']}) | {v['best']:.3f} | {v['median']:.3f} |")
    return out


def markdown(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    out = [f"# Benchmark results ({'quick' if doc['quick'] else 'full'} run)", "",
           f"Measured {doc['started']} to {doc['finished']} on {m['cpus']} CPUs ({m['processor']}), "
           f"{m['mem_gib']} GiB, Python {m['python']}, {m['platform']}. The machine is shared: "
           f"load average (1, 5, 15 min) {doc['load_start']} at the start and {doc['load_end']} at "
           "the end. Wall times under load are upper bounds; CPU times are steadier.", ""]
    out.append("| benchmark | exit | wall s | CPU s | peak RSS MiB | load before | load after |")
    out.append("|---|---:|---:|---:|---:|---|---|")
    for name, e in doc["benchmarks"].items():
        for run in e["runs"]:
            out.append(f"| {name} | {run['returncode']} | {run['wall_s']:.1f} | {run['cpu_s']:.1f} | "
                       f"{run['rss_peak_mib']:.0f} | {run['load_before']} | {run['load_after']} |")
        if e.get("skipped"):
            out.append(f"| {name} | skipped: {e['skipped']} | | | | | |")
    for name, e in doc["benchmarks"].items():
        if e.get("skipped") or not e["runs"]:
            continue
        out += ["", f"## {name}", ""]
        if name == "bench_core" and e.get("json"):
            out += core_tables(e["json"])
        elif name == "bench_checker" and e.get("parsed"):
            out += checker_table(e)
        elif e.get("json"):
            out += ["```json", json.dumps(e["json"], indent=1)[:20000], "```"]
        else:
            for i, run in enumerate(e["runs"]):
                if len(e["runs"]) > 1:
                    out.append(f"Run {i + 1} of {len(e['runs'])}:\n")
                out += ["```", *run["output"][-60:], "```"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small volumes: a smoke run")
    ap.add_argument("--out", type=Path, help="directory for run_all.json and RESULTS.md")
    ap.add_argument("--only", action="append", default=[], help="run only this benchmark (stem or file)")
    ap.add_argument("--skip", action="append", default=[], help="do not run this benchmark")
    ap.add_argument("--runs", type=int, help="runs of benchmarks that do not repeat themselves")
    ap.add_argument("--bench-arg", action="append", default=[], metavar="NAME=ARG",
                    help="extra argument for one benchmark, e.g. bench_core=--no-suite")
    ap.add_argument("--render", type=Path, metavar="RUN_ALL_JSON",
                    help="only write RESULTS.md again (beside it) from an earlier run_all.json "
                         "(run_all_X.json gives RESULTS_X.md)")
    args = ap.parse_args(argv)
    if args.render:
        md = markdown(json.loads(args.render.read_text(encoding="utf-8")))
        # run_all.json -> RESULTS.md, run_all_<x>.json -> RESULTS_<x>.md
        target = args.render.parent / (args.render.stem.replace("run_all", "RESULTS", 1) + ".md")
        target.write_text(md, encoding="utf-8")
        print(md)
        return 0
    out_dir = args.out or (Path(tempfile.mkdtemp(prefix="bench-quick-")) if args.quick else HERE / "results")
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = args.runs or (1 if args.quick else 3)
    only, skip = {Path(n).stem for n in args.only}, {Path(n).stem for n in args.skip}
    extra: dict[str, list[str]] = {}
    for item in args.bench_arg:
        name, _, arg = item.partition("=")
        extra.setdefault(Path(name).stem, []).append(arg)

    doc: dict[str, Any] = {
        "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick, "load_start": load(),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "processor": cpu_model(),
                    "mem_gib": mem_gib()},
        "benchmarks": {},
    }
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        name = script.stem
        if (only and name not in only) or name in skip:
            continue
        source = script.read_text(encoding="utf-8")
        takes_json, takes_quick = '"--json"' in source, '"--quick"' in source
        entry: dict[str, Any] = {"script": f"benchmarks/{script.name}", "runs": []}
        doc["benchmarks"][name] = entry
        cmd = [sys.executable, str(script)]
        if args.quick:
            if takes_quick:
                cmd.append("--quick")
            elif name in QUICK_ARGS:
                cmd += QUICK_ARGS[name]
            else:
                entry["skipped"] = "takes no --quick"
                print(f"== {name}: skipped in quick mode (takes no --quick)", flush=True)
                continue
        json_path = out_dir / f"{name}.json"
        if takes_json:
            cmd += ["--json", str(json_path)]
        cmd += extra.get(name, [])
        # a benchmark that repeats its own measurements (--repeat) or writes JSON runs once
        times = 1 if takes_json or takes_quick or '"--repeat"' in source else runs
        for i in range(times):
            print(f"== {name} ({i + 1}/{times}): {' '.join(cmd[1:])}", flush=True)
            run = run_child(cmd)
            entry["runs"].append(run)
            if run["returncode"] != 0:
                failed += 1
                print(f"== {name}: exit code {run['returncode']}", flush=True)
                break
        if takes_json and json_path.exists():
            try:
                entry["json"] = json.loads(json_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as e:
                entry["json_error"] = str(e)
                failed += 1
        if name == "bench_checker":
            entry["parsed"] = [parse_checker(r["output"]) for r in entry["runs"] if r["returncode"] == 0]
            entry["summary"] = summarise_runs(entry["parsed"])
    doc["finished"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    doc["load_end"] = load()
    (out_dir / "run_all.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    md = markdown(doc)
    (out_dir / "RESULTS.md").write_text(md, encoding="utf-8")
    print(md)
    print(f"wrote {out_dir / 'run_all.json'} and {out_dir / 'RESULTS.md'}")
    return 1 if failed else 0




if __name__ == "__main__":
    sys.exit(main())
