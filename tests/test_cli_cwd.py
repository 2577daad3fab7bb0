"""The command line works from any directory: nothing resolves the kit's files through the
current directory (a checkout's top-level folders are not importable from elsewhere)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_check_from_another_directory(tmp_path: Path) -> None:
    from iceberg_conformance.reference.writer import write_table

    md = write_table(str(tmp_path / "t"), 3)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance", "check", md, "--json", "--quiet"],
                         cwd=elsewhere, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads(run.stdout)
    rules = {f["rule"] for t in report["tables"] for f in t["findings"]}
    assert "checker.internal-error" not in rules, run.stdout[-2000:]
