"""A verdict says what it could not check: parts of a table left unread make it incomplete.

A table whose manifests all lie outside its location was reported clean with exit 0 (the
manifests were, rightly, not read). Now the check's verdict is ``incomplete``: the report says
so, the JSON carries ``verdict`` and ``not_read``, and the exit code is 3 (never 0); a finding at
or above ``--fail-on`` still makes it 1. ``--allow-root`` reads the outside files, and the same
table is then clean (exit 0).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from iceberg_conformance.cli import EXIT_INCOMPLETE
from iceberg_conformance.reference import manifests as m
from iceberg_conformance.reference.avro import read_container
from iceberg_conformance.reference.writer import write_table


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iceberg_conformance", "check", "--quiet", *args],
                          capture_output=True, text=True, timeout=120)


def _manifests_moved_outside(tmp_path: Path) -> tuple[str, Path]:
    """A valid v2 table whose current snapshot's manifests were moved to a directory beside it
    (the manifest list names them there, with their lengths): valid, but outside the table."""
    md = write_table(str(tmp_path / "t"), 2)
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for snap in doc["snapshots"]:
        mfs, _ = m.read_manifest_list(snap["manifest-list"], 2)
        for mf in mfs:
            target = elsewhere / Path(mf["manifest_path"]).name
            if not target.exists():
                shutil.copy(mf["manifest_path"], target)
            mf["manifest_path"] = str(target)
        _, header, _ = read_container(snap["manifest-list"])
        m.write_manifest_list(snap["manifest-list"], {"format_version": 2, "metadata": header, "manifests": mfs})
    return md, elsewhere


def test_manifests_outside_the_table_make_the_verdict_incomplete(tmp_path: Path) -> None:
    md, _elsewhere = _manifests_moved_outside(tmp_path)
    run = _check(md, "--json")
    assert run.returncode == EXIT_INCOMPLETE == 3, run.stdout[-2000:] + run.stderr[-2000:]
    report = json.loads(run.stdout)
    assert report["verdict"] == "incomplete" and report["tables"][0]["not_read"] > 0
    assert report["counts"]["error"] == 0
    text = _check(md)
    assert text.returncode == 3 and "INCOMPLETE" in text.stdout


def test_allowed_root_reads_them_and_the_table_is_clean(tmp_path: Path) -> None:
    md, elsewhere = _manifests_moved_outside(tmp_path)
    run = _check(md, "--json", "--allow-root", str(elsewhere))
    assert run.returncode == 0, run.stdout[-2000:]
    assert json.loads(run.stdout)["verdict"] == "clean"


def test_a_finding_outranks_an_incomplete_verdict(tmp_path: Path) -> None:
    md, _elsewhere = _manifests_moved_outside(tmp_path)
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    doc["last-column-id"] = 0  # below the schema's highest field id: an error
    Path(md).write_text(json.dumps(doc), encoding="utf-8")
    run = _check(md, "--json")
    assert run.returncode == 1, run.stdout[-2000:]
    assert json.loads(run.stdout)["verdict"] == "findings"
