"""The benchmark runner runs in quick mode and writes valid JSON (no timings are judged here).

Speed and memory are measured by ``benchmarks/run_all.py``, not by tests; this only keeps the
runner and ``bench_core.py`` working while the code they call changes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {"name", "layer", "n", "best_s", "median_s", "runs", "ops_per_s", "cpu_best_s", "cpu_min_s", "cpu_ops_per_s",
          "heap_peak_mib", "rss_peak_mib", "load1", "note", "extra"}


@pytest.mark.slow
def test_run_all_quick_writes_json(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick", "--out", str(tmp_path),
         "--only", "bench_core", "--bench-arg", "bench_core=--no-suite"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((tmp_path / "run_all.json").read_text(encoding="utf-8"))
    assert doc["quick"] is True
    entry = doc["benchmarks"]["bench_core"]
    assert [r["returncode"] for r in entry["runs"]] == [0]
    core = entry["json"]
    assert core == json.loads((tmp_path / "bench_core.json").read_text(encoding="utf-8"))
    assert core["quick"] is True and len(core["load_average_start"]) == 3
    results = core["results"]
    assert results, "bench_core measured nothing"
    for r in results:
        assert set(r) == FIELDS, r
        assert r["n"] > 0 and r["runs"] >= 1
    families = {r["name"].split("/")[0] for r in results}
    assert families == {"hash", "transform", "binary", "json"}
    layers = {r["layer"] for r in results}
    assert {"ref", "pyiceberg", "core-arrow", "reference-adapter"} <= layers
    assert "| operation |" in (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
