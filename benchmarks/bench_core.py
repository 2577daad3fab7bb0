"""Throughput and peak memory of the reference's hot paths, beside pyiceberg and pyiceberg-core.

    python benchmarks/bench_core.py [--quick] [--json PATH] [--repeat R] [--n N] [--n-adapter N]
                                    [--only SUBSTRING] [--no-suite] [--suite-repeat R]
                                    [--targets reference,pyiceberg,pyiceberg-core]

What is measured (each over a column of generated values, seeded, so every run sees the same
data):

* ``hash``       Appendix B hash of one value (``reference.hashing.hash_value``): long, int,
                 ASCII strings, strings with non-BMP code points, decimal(38, 10), uuid.
* ``transform``  ``parse_transform(t).apply(source, value)``: bucket[16] of long, string,
                 decimal and uuid; truncate[10] of long, string and decimal; day and hour of
                 timestamptz.
* ``binary``     Appendix D ``to_bytes`` / ``from_bytes`` of long, double, string, decimal,
                 uuid, timestamptz.
* ``json``       JSON single values ``from_json`` / ``to_json`` of the same types.
* ``suite``      the whole vector suite (``pytest suites -m "not spark" --target X``) per target,
                 as a child process: wall time, CPU time, peak RSS of the child, test counts
                 and seconds per test file (``--junitxml``). Quick mode runs only
                 ``suites/test_hash.py`` for the first target.

Each operation runs in several *layers*:

* ``ref``: the reference library on its Python values (the hot path itself).
* ``pyiceberg``: the same operation in PyIceberg's library on its native values.
* ``core-arrow``: pyiceberg-core (iceberg-rust) on one pyarrow array of all values.
* ``to-arrow``: building that pyarrow array from the Python list (what a Python caller pays
  before ``core-arrow``).
* ``<target>-adapter`` (``reference-adapter``, ``pyiceberg-adapter``,
  ``pyiceberg-core-adapter``): the target adapter from ``suites.targets.load_target``, JSON
  single values in and out, one value per call, as the suite calls it.

Per measurement it prints one line: name, layer, n, best and median wall seconds over R runs,
ops/s (from the best wall time), the least CPU seconds of a run and ops per CPU second (the
steadier figure on a loaded machine: a run that waits for a core does not count the wait),
peak Python heap in MiB (tracemalloc, measured in a separate untimed run: the result list plus
temporaries) and the peak resident set of the whole process in MiB during the timed runs
(``VmHWM`` after resetting it through ``/proc/self/clear_refs``; elsewhere ``ru_maxrss``, which
never goes down). tracemalloc does not see memory allocated by Arrow or Rust: for
``core-arrow`` and ``to-arrow`` only the process peak says anything. Where a layer's outputs
differ from the reference's for the same inputs, the count is printed and recorded
(``extra.differs_from_ref``). The one-minute load average is recorded with every measurement:
the machine is shared, and a loaded machine makes wall times longer (CPU seconds less so).

Results are written as JSON (``--json``, default ``benchmarks/results/bench_core.json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from iceberg_conformance.reference import types as rt  # noqa: E402
from iceberg_conformance.reference.binary import from_bytes as ref_from_bytes  # noqa: E402
from iceberg_conformance.reference.binary import to_bytes as ref_to_bytes  # noqa: E402
from iceberg_conformance.reference.hashing import hash_value  # noqa: E402
from iceberg_conformance.reference.transforms import parse_transform  # noqa: E402
from iceberg_conformance.reference.values import from_json as ref_from_json  # noqa: E402
from iceberg_conformance.reference.values import to_json as ref_to_json  # noqa: E402

MiB = 1024 * 1024


# --------------------------------------------------------------------------------------------
# measuring


from _machine import cpu_model, mem_gib  # noqa: E402  (benchmarks/ is on sys.path when run)

def load1() -> float:
    return round(os.getloadavg()[0], 2)


def _clear_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _hwm_mib() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@dataclass
class Result:
    name: str
    layer: str
    n: int
    best_s: float
    median_s: float
    runs: int
    ops_per_s: float
    cpu_best_s: float
    cpu_min_s: float
    cpu_ops_per_s: float
    heap_peak_mib: float | None
    rss_peak_mib: float
    load1: float
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class Bench:
    def __init__(self, repeat: int, only: str | None) -> None:
        self.repeat = repeat
        self.only = only
        self.results: list[Result] = []

    def wanted(self, name: str, layer: str) -> bool:
        return self.only is None or self.only in f"{name} {layer}"

    def measure(self, name: str, layer: str, n: int, fn: Callable[[], Any], *,
                heap: bool = True, note: str = "") -> Any:
        """Run ``fn`` (which processes ``n`` values) ``repeat`` times; record and print it."""
        if not self.wanted(name, layer):
            return None
        out = fn()                      # warm-up (imports, caches); its result is returned
        walls, cpus = [], []
        gc.collect()
        _clear_hwm()
        for _ in range(self.repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            t1, c1 = time.perf_counter(), time.process_time()
            walls.append(t1 - t0)
            cpus.append(c1 - c0)
        rss = _hwm_mib()
        heap_mib = None
        if heap:
            tracemalloc.start()
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            keep = fn()
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            del keep
            heap_mib = (peak - base) / MiB
        best, cpu_min = min(walls), min(cpus)
        r = Result(name, layer, n, best, statistics.median(walls), len(walls),
                   n / best if best > 0 else float("inf"), cpus[walls.index(best)],
                   cpu_min, n / cpu_min if cpu_min > 0 else float("inf"),
                   heap_mib, rss, load1(), note)
        self.results.append(r)
        heap_txt = f"{heap_mib:8.2f}" if heap_mib is not None else "       -"
        print(f"{name:<37} {layer:<22} n={n:<7} best {best:8.4f} s  median {r.median_s:8.4f} s  "
              f"{r.ops_per_s:>12,.0f} ops/s  cpu {cpu_min:7.4f} s {r.cpu_ops_per_s:>12,.0f} ops/cpu-s  heap {heap_txt} MiB  "
              f"rss {rss:7.1f} MiB  load {r.load1}", flush=True)
        return out


# --------------------------------------------------------------------------------------------
# data: one seeded column per type

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
NON_BMP = "\U0001F600\U0001F680\U00010348\U0001D11E\U0002070E"   # emoji, Gothic, music, CJK ext B


def columns(n: int, seed: int = 20261121) -> dict[str, tuple[Any, list[Any]]]:
    """``{label: (reference type, python values)}``."""
    rnd = random.Random(seed)
    ascii_letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"
    # timestamps 1900..2100 in micros, both sides of the epoch
    lo, hi = -2_208_988_800_000_000, 4_102_444_800_000_000
    return {
        "long": (rt.LongType(), [rnd.randint(-2**63, 2**63 - 1) for _ in range(n)]),
        "int": (rt.IntegerType(), [rnd.randint(-2**31, 2**31 - 1) for _ in range(n)]),
        "double": (rt.DoubleType(), [rnd.uniform(-1e12, 1e12) for _ in range(n)]),
        "string": (rt.StringType(), ["".join(rnd.choices(ascii_letters, k=rnd.randint(5, 40)))
                                     for _ in range(n)]),
        "string-non-bmp": (rt.StringType(), ["".join(rnd.choices(ascii_letters + NON_BMP * 4,
                                                                 k=rnd.randint(5, 40)))
                                             for _ in range(n)]),
        "decimal(38,10)": (rt.DecimalType(38, 10),
                           [Decimal(f"{rnd.randint(-10**37, 10**37)}E-10") for _ in range(n)]),
        "uuid": (rt.UUIDType(), [uuid.UUID(int=rnd.getrandbits(128), version=4) for _ in range(n)]),
        "timestamptz": (rt.TimestamptzType(), [rnd.randint(lo, hi) for _ in range(n)]),
    }


def type_json(t: rt.IcebergType) -> str:
    return rt.type_to_json(t)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# the layers


def pyiceberg_type(t: rt.IcebergType) -> Any:
    from pyiceberg.types import IcebergType

    return IcebergType.model_validate(type_json(t))


def arrow_array(t: rt.IcebergType, values: list[Any]) -> Any:
    import pyarrow as pa

    if isinstance(t, rt.LongType):
        return pa.array(values, pa.int64())
    if isinstance(t, rt.IntegerType):
        return pa.array(values, pa.int32())
    if isinstance(t, rt.StringType):
        return pa.array(values, pa.string())
    if isinstance(t, rt.DecimalType):
        return pa.array(values, pa.decimal128(t.precision, t.scale))
    if isinstance(t, rt.UUIDType):
        return pa.array([u.bytes for u in values], pa.binary(16))
    if isinstance(t, rt.TimestamptzType):
        return pa.array(values, pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    raise ValueError(f"no arrow array for {t}")


def bench_hash(b: Bench, cols: dict[str, Any], n_adapter: int, targets: dict[str, Any]) -> None:
    from pyiceberg.transforms import BucketTransform

    for label in ("long", "int", "string", "string-non-bmp", "decimal(38,10)", "uuid"):
        t, values = cols[label]
        name = f"hash/{label}"
        n = len(values)
        ref = b.measure(name, "ref", n, lambda: [hash_value(t, v) for v in values])
        h = BucketTransform(1).transform(pyiceberg_type(t), bucket=False)
        pyi = b.measure(name, "pyiceberg", n, lambda: [h(v) for v in values])
        _agree(b, ref, pyi)
        js = [ref_to_json(t, v) for v in values[:n_adapter]]
        tj = type_json(t)
        for tname, target in targets.items():
            if hasattr(target, "hash"):
                b.measure(name, f"{tname}-adapter", len(js), lambda: [target.hash(tj, v) for v in js])


def _agree(b: Bench, ref: Any, other: Any, normalise: Callable[[Any], Any] = lambda x: x) -> None:
    """Record on the last result how many outputs differ from the reference's."""
    if ref is None or other is None or not b.results:
        return
    diff = sum(1 for x, y in zip(ref, other) if normalise(x) != normalise(y))
    b.results[-1].extra["differs_from_ref"] = diff
    if diff:
        print(f"  ! {diff} of {len(ref)} results differ from the reference's", flush=True)


TRANSFORMS = [
    ("bucket[16]", "long"), ("bucket[16]", "string"), ("bucket[16]", "string-non-bmp"),
    ("bucket[16]", "decimal(38,10)"), ("bucket[16]", "uuid"),
    ("truncate[10]", "long"), ("truncate[10]", "string"), ("truncate[10]", "string-non-bmp"),
    ("truncate[10]", "decimal(38,10)"),
    ("day", "timestamptz"), ("hour", "timestamptz"),
]


def _core_fn(transform: str) -> Callable[[Any], Any]:
    from pyiceberg_core import transform as core

    m = re.fullmatch(r"(bucket|truncate)\[(\d+)\]", transform)
    if m:
        f, p = getattr(core, m.group(1)), int(m.group(2))
        return lambda arr: f(arr, p)
    g = getattr(core, transform)
    return lambda arr: g(arr)


def _core_normalise(x: Any) -> Any:
    if isinstance(x, dt.date) and not isinstance(x, dt.datetime):
        return (x - dt.date(1970, 1, 1)).days   # pyarrow's date32 as days
    return x   # Decimals compare by value (exactly), whatever their exponents


def bench_transforms(b: Bench, cols: dict[str, Any], n_adapter: int, targets: dict[str, Any]) -> None:
    from pyiceberg.transforms import parse_transform as pyi_parse

    for transform, label in TRANSFORMS:
        t, values = cols[label]
        name = f"transform/{transform}/{label}"
        n = len(values)
        tr = parse_transform(transform)
        ref = b.measure(name, "ref", n, lambda: [tr.apply(t, v) for v in values])
        f = pyi_parse(transform).transform(pyiceberg_type(t))
        pyi = b.measure(name, "pyiceberg", n, lambda: [f(v) for v in values])
        _agree(b, ref, pyi, _core_normalise)
        arr = b.measure(name, "to-arrow", n, lambda: arrow_array(t, values), heap=False,
                        note="pyarrow array from a Python list")
        if arr is not None:
            cf = _core_fn(transform)
            out = b.measure(name, "core-arrow", n, lambda: cf(arr), heap=False,
                            note="one call over the whole array")
            if out is not None:
                _agree(b, ref, out.to_pylist(), _core_normalise)
        js = [ref_to_json(t, v) for v in values[:n_adapter]]
        tj = type_json(t)
        for tname, target in targets.items():
            if hasattr(target, "transform"):
                b.measure(name, f"{tname}-adapter", len(js),
                          lambda: [target.transform(transform, tj, v) for v in js])


CONVERSIONS = ("long", "double", "string", "decimal(38,10)", "uuid", "timestamptz")


def bench_binary(b: Bench, cols: dict[str, Any], n_adapter: int, targets: dict[str, Any]) -> None:
    from pyiceberg import conversions

    for label in CONVERSIONS:
        t, values = cols[label]
        n = len(values)
        pt = pyiceberg_type(t)
        enc = b.measure(f"binary/to_bytes/{label}", "ref", n, lambda: [ref_to_bytes(t, v) for v in values])
        b.measure(f"binary/to_bytes/{label}", "pyiceberg", n,
                  lambda: [conversions.to_bytes(pt, v) for v in values])
        data = enc if enc is not None else [ref_to_bytes(t, v) for v in values]
        b.measure(f"binary/from_bytes/{label}", "ref", n, lambda: [ref_from_bytes(t, d) for d in data])
        b.measure(f"binary/from_bytes/{label}", "pyiceberg", n,
                  lambda: [conversions.from_bytes(pt, d) for d in data])
        js = [ref_to_json(t, v) for v in values[:n_adapter]]
        tj = type_json(t)
        for tname, target in targets.items():
            if hasattr(target, "to_bytes"):
                b.measure(f"binary/to_bytes/{label}", f"{tname}-adapter", len(js),
                          lambda: [target.to_bytes(tj, v) for v in js])
                b.measure(f"binary/from_bytes/{label}", f"{tname}-adapter", len(js),
                          lambda: [target.from_bytes(tj, d) for d in data[:n_adapter]])


def bench_json(b: Bench, cols: dict[str, Any], n_adapter: int, targets: dict[str, Any]) -> None:
    from pyiceberg import conversions

    for label in CONVERSIONS:
        t, values = cols[label]
        n = len(values)
        pt = pyiceberg_type(t)
        js = b.measure(f"json/to_json/{label}", "ref", n, lambda: [ref_to_json(t, v) for v in values])
        if js is None:
            js = [ref_to_json(t, v) for v in values]
        b.measure(f"json/from_json/{label}", "ref", n, lambda: [ref_from_json(t, j) for j in js])
        # PyIceberg's from_json gives its own Python forms (datetime for timestamptz); its to_json
        # is measured on those forms, as a PyIceberg caller holds them.
        native = b.measure(f"json/from_json/{label}", "pyiceberg", n,
                           lambda: [conversions.from_json(pt, j) for j in js])
        if native is None:
            native = [conversions.from_json(pt, j) for j in js]
        b.measure(f"json/to_json/{label}", "pyiceberg", n,
                  lambda: [conversions.to_json(pt, v) for v in native])
        tj = type_json(t)
        for tname, target in targets.items():
            if hasattr(target, "value_json_roundtrip"):
                b.measure(f"json/roundtrip/{label}", f"{tname}-adapter", min(n, n_adapter),
                          lambda: [target.value_json_roundtrip(tj, j) for j in js[:n_adapter]])


# --------------------------------------------------------------------------------------------
# the whole vector suite per target, as a child process

_COUNT = re.compile(r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?|warnings?)")


def run_child(cmd: Sequence[str], cwd: Path) -> dict[str, Any]:
    """Run ``cmd``; wall time, CPU and peak RSS of that child alone (``os.wait4``)."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    tail = text.strip().splitlines()[-1] if text.strip() else ""
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "rss_peak_mib": ru.ru_maxrss / 1024,
            "returncode": p.returncode, "summary": tail,
            "counts": {k.rstrip("s") if k.startswith(("error", "warning")) else k: int(v)
                       for v, k in _COUNT.findall(tail)}}


def per_file_times(junit: Path) -> dict[str, float]:
    """Seconds spent in each test file's tests (setup, call, teardown; not collection)."""
    import xml.etree.ElementTree as ET

    if not junit.exists():
        return {}
    totals: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        module = case.get("classname", "?").split("::")[0]
        totals[module] = totals.get(module, 0.0) + float(case.get("time") or 0.0)
    return {k: round(v, 3) for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}


def bench_suite(b: Bench, targets: Sequence[str], repeat: int, paths: Sequence[str]) -> None:
    for target in targets:
        name = f"suite/{' '.join(paths)}"
        if not b.wanted(name, target):
            continue
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:
                junit = Path(tmp) / "junit.xml"
                cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *paths,
                       "-m", "not spark", "--target", target, f"--junitxml={junit}"]
                l0 = load1()
                r = run_child(cmd, ROOT)
                r["load1_before"] = l0
                r["per_file_s"] = per_file_times(junit)
            runs.append(r)
        walls = [r["wall_s"] for r in runs]
        best = runs[walls.index(min(walls))]
        res = Result(name, target, sum(best["counts"].get(k, 0) for k in ("passed", "failed", "skipped",
                                                                            "xfailed", "xpassed", "error")),
                     min(walls), statistics.median(walls), len(runs),
                     0.0, best["cpu_s"], min(r["cpu_s"] for r in runs), 0.0, None,
                     max(r["rss_peak_mib"] for r in runs), load1(),
                     note="n = tests run; cpu = user+sys of the child",
                     extra={"runs": runs, "cpu_median_s": statistics.median(r["cpu_s"] for r in runs),
                            "summary": best["summary"], "counts": best["counts"],
                            "per_file_s": best["per_file_s"]})
        res.ops_per_s = res.n / res.best_s if res.best_s else 0.0
        res.cpu_ops_per_s = res.n / res.cpu_min_s if res.cpu_min_s else 0.0
        b.results.append(res)
        print(f"{name:<37} {target:<22} tests={res.n:<5} best {res.best_s:8.2f} s  median "
              f"{res.median_s:8.2f} s  cpu {res.cpu_best_s:7.2f} s  rss {res.rss_peak_mib:7.1f} MiB  "
              f"load {res.load1}  [{best['summary']}]", flush=True)


# --------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    mem = mem_gib()
    versions: dict[str, str | None] = {}
    for mod in ("pyiceberg", "pyiceberg_core", "pyarrow", "mmh3"):
        try:
            from importlib.metadata import version
            versions[mod] = version(mod.replace("_", "-"))
        except Exception:  # noqa: BLE001 - a missing package is reported as missing
            versions[mod] = None
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "cpus": os.cpu_count(), "mem_gib": mem,
            "processor": cpu_model(), "versions": versions}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small volumes, 2 runs: a smoke run in seconds")
    ap.add_argument("--n", type=int, help="values per column for the library layers")
    ap.add_argument("--n-adapter", type=int, help="values per column for the adapter layers")
    ap.add_argument("--repeat", type=int, help="timed runs per measurement (best and median reported)")
    ap.add_argument("--only", help="run only measurements whose 'name layer' contains this")
    ap.add_argument("--no-suite", action="store_true", help="skip timing the vector suite")
    ap.add_argument("--suite-repeat", type=int, help="runs of the suite per target")
    ap.add_argument("--targets", default="reference,pyiceberg,pyiceberg-core",
                    help="targets for the adapter layers and the suite (comma-separated)")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "bench_core.json")
    args = ap.parse_args(argv)

    n = args.n or (300 if args.quick else 50_000)
    n_adapter = args.n_adapter or (30 if args.quick else 5_000)
    repeat = args.repeat or (2 if args.quick else 5)
    suite_repeat = args.suite_repeat or (1 if args.quick else 3)
    target_names = [x for x in args.targets.split(",") if x]

    from iceberg_conformance.suites.targets import load_target

    targets = {name: load_target(name) for name in target_names}
    started = dt.datetime.now(dt.timezone.utc)
    load_start = os.getloadavg()
    print(f"bench_core: n={n}, adapter n={n_adapter}, {repeat} runs each; "
          f"load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}", flush=True)
    b = Bench(repeat, args.only)
    cols = columns(n)
    bench_hash(b, cols, n_adapter, targets)
    bench_transforms(b, cols, n_adapter, targets)
    bench_binary(b, cols, n_adapter, targets)
    bench_json(b, cols, n_adapter, targets)
    del cols
    if not args.no_suite:
        paths = ["suites/test_hash.py"] if args.quick else ["suites"]
        bench_suite(b, target_names if not args.quick else target_names[:1], suite_repeat, paths)
    load_end = os.getloadavg()
    doc = {
        "benchmark": "bench_core",
        "started": started.isoformat(timespec="seconds"),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick,
        "settings": {"n": n, "n_adapter": n_adapter, "repeat": repeat, "suite_repeat": suite_repeat,
                     "targets": target_names, "only": args.only},
        "machine": machine(),
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in load_end],
        "process_ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "results": [asdict(r) for r in b.results],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"bench_core: {len(b.results)} measurements, load average at end "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; wrote {args.json}", flush=True)
    return 0



if __name__ == "__main__":
    sys.exit(main())
