"""What judging a table's schema and partition history costs the checker's metadata unit.

    python benchmarks/bench_history.py [--schemas N] [--specs M] [--columns C] [--runs R]

Writes a v2 metadata file (no snapshots) with N schemas grown from C columns by a seeded mix of
the changes writers make (add a column, drop one, rename one, promote int -> long, add a field
to a struct column) and M partition specs (add, drop, rename and re-add partition fields), then
times (CPU time, best of R runs): the metadata unit as the checker runs it (load, validate, history), the
same unit with the history left out, and the history check alone. Nothing is judged here.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _metadata(schemas: int, specs: int, columns: int, seed: int = 20240901) -> dict[str, Any]:
    rnd = random.Random(seed)
    fields: list[dict[str, Any]] = [{"id": i, "name": f"c{i}", "required": i == 1,
                                     "type": "int" if i % 3 else "string"} for i in range(1, columns + 1)]
    fields.append({"id": columns + 1, "name": "s", "required": False,
                   "type": {"type": "struct", "fields": [{"id": columns + 2, "name": "x", "required": False,
                                                          "type": "long"}]}})
    last = columns + 2
    out = [{"type": "struct", "schema-id": 0, "fields": json.loads(json.dumps(fields))}]
    for sid in range(1, schemas):
        step = rnd.choice(("add", "drop", "rename", "promote", "nested"))
        top = [f for f in fields if isinstance(f["type"], str) and f["id"] != 1]
        if step == "add" or not top:
            last += 1
            fields.append({"id": last, "name": f"c{last}", "required": False, "type": "string"})
        elif step == "drop":
            fields.remove(rnd.choice(top))
        elif step == "rename":
            f = rnd.choice(top)
            f["name"] = f"{f['name']}_r{sid}"
        elif step == "promote":
            ints = [f for f in top if f["type"] == "int"]
            if ints:
                rnd.choice(ints)["type"] = "long"
        else:
            last += 1
            struct = next(f for f in fields if f["name"] == "s")
            struct["type"]["fields"].append({"id": last, "name": f"x{last}", "required": False, "type": "int"})
        out.append({"type": "struct", "schema-id": sid, "fields": json.loads(json.dumps(fields))})
    spec_fields: list[dict[str, Any]] = [{"source-id": 2, "field-id": 1000, "name": "p2", "transform": "bucket[4]"}]
    pid = 1000
    spec_list = [{"spec-id": 0, "fields": list(spec_fields)}]
    for k in range(1, specs):
        if len(spec_fields) > 1 and rnd.random() < 0.4:
            spec_fields.pop(0)
        else:
            pid += 1
            spec_fields.append({"source-id": 1, "field-id": pid, "name": f"p{pid}", "transform": f"bucket[{k + 1}]"})
        spec_list.append({"spec-id": k, "fields": [dict(f) for f in spec_fields]})
    return {"format-version": 2, "table-uuid": "5b6e9f0e-5a53-4a4e-8f0b-7f1d2b1d1c11", "location": "/tmp/bench-history",
            "last-sequence-number": 0, "last-updated-ms": 1_700_000_000_000, "last-column-id": last,
            "current-schema-id": schemas - 1, "schemas": out, "default-spec-id": specs - 1,
            "partition-specs": spec_list, "last-partition-id": pid, "default-sort-order-id": 0,
            "sort-orders": [{"order-id": 0, "fields": []}], "properties": {}, "current-snapshot-id": None,
            "snapshots": [], "snapshot-log": [], "metadata-log": []}


def _best(fn: Callable[[], Any], runs: int) -> float:
    """The least CPU time (this process) of ``runs`` calls: less disturbed by other load than
    wall time."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schemas", type=int, default=1000)
    ap.add_argument("--specs", type=int, default=100)
    ap.add_argument("--columns", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="100 schemas, 10 specs, 2 runs")
    a = ap.parse_args(argv)
    if a.quick:
        a.schemas, a.specs, a.runs = 100, 10, 2

    from iceberg_conformance.checker.plan import Unit
    from iceberg_conformance.checker.run import CheckRun
    from iceberg_conformance.checker.units import metadata as unit

    doc = _metadata(a.schemas, a.specs, a.columns)
    with tempfile.TemporaryDirectory() as tmp:
        md = str(Path(tmp) / "v1.metadata.json")
        Path(md).write_text(json.dumps(doc), encoding="utf-8")
        u = Unit("metadata", md, md)
        findings = unit.check_metadata(CheckRun(md), u)
        errors = sorted({f.rule for f in findings if f.severity == "error"})
        with_history = _best(lambda: unit.check_metadata(CheckRun(md), u), a.runs)
        run = CheckRun(md)
        history = _best(lambda: unit.check_history(run, md), a.runs)
        real = unit.check_history
        unit.check_history = lambda run, table: []  # type: ignore[assignment]
        try:
            without = _best(lambda: unit.check_metadata(CheckRun(md), u), a.runs)
        finally:
            unit.check_history = real
    nodes = sum(len(s["fields"]) for s in doc["schemas"])
    print(f"{a.schemas} schemas ({nodes} top-level fields in all), {a.specs} specs, "
          f"{Path(md).name} of {len(json.dumps(doc)) / 1e6:.1f} MB; errors: {errors or 'none'}")
    print(f"metadata unit with the history:    {with_history * 1000:8.1f} ms (CPU, best of {a.runs})")
    print(f"metadata unit without the history: {without * 1000:8.1f} ms")
    print(f"history check alone:               {history * 1000:8.1f} ms "
          f"(+{100 * (with_history - without) / without:.0f} % on the unit)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
