"""Hostile tables: the checker opens only regular files under the table, never hangs, and
answers with a finding and an exit code (1 findings, 2 nothing readable), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iceberg_conformance.reference.writer import write_table

SECRET = "not-a-table-file-s3cr3t"


def _check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iceberg_conformance.checker", "--quiet", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)


def _table(tmp_path: Path, version: int = 2) -> tuple[str, dict]:
    md = write_table(str(tmp_path / "t"), version)
    with open(md, encoding="utf-8") as f:
        return md, json.load(f)


def _rewrite(md: str, doc: dict) -> None:
    with open(md, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def _outside_file(tmp_path: Path) -> Path:
    p = tmp_path / "elsewhere" / "secret.avro"
    p.parent.mkdir()
    p.write_text(SECRET * 10)
    return p


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_metadata_file_that_is_a_fifo(tmp_path: Path) -> None:
    meta = tmp_path / "t" / "metadata"
    meta.mkdir(parents=True)
    os.mkfifo(meta / "v1.metadata.json")
    run = _check(str(tmp_path / "t"))
    assert run.returncode in (1, 2), run.stderr
    assert "files.not-regular" in run.stdout and "Traceback" not in run.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_data_file_that_is_a_fifo(tmp_path: Path) -> None:
    from iceberg_conformance.reference import manifests as m

    md, doc = _table(tmp_path)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    mfs, _ = m.read_manifest_list(snap["manifest-list"], 2)
    entries, _ = m.read_manifest(mfs[0]["manifest_path"], 2)
    victim = entries[0]["data_file"]["file_path"]
    os.replace(victim, victim + ".moved")
    os.mkfifo(victim)
    run = _check(md, "--json")
    assert run.returncode == 1, run.stderr
    rules = {f["rule"] for t in json.loads(run.stdout)["tables"] for f in t["findings"]}
    assert "files.not-regular" in rules


@pytest.mark.parametrize("where", ["manifest-list", "statistics", "manifest"])
def test_paths_outside_the_table_are_not_read(tmp_path: Path, where: str) -> None:
    md, doc = _table(tmp_path)
    outside = str(_outside_file(tmp_path))
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    if where == "manifest-list":
        snap["manifest-list"] = outside
    elif where == "statistics":
        doc["statistics"] = [{"snapshot-id": snap["snapshot-id"], "statistics-path": outside,
                              "file-size-in-bytes": os.path.getsize(outside), "file-footer-size-in-bytes": 10,
                              "blob-metadata": []}]
    else:
        from iceberg_conformance.reference import manifests as m

        mfs, _ = m.read_manifest_list(snap["manifest-list"], 2)
        mfs[0]["manifest_path"] = outside
        snap["manifest-list"] = str(Path(md).parent / "list-naming-outside.avro")
        m.write_manifest_list(snap["manifest-list"], {"format_version": 2, "metadata": {}, "manifests": mfs})
    _rewrite(md, doc)
    run = _check(md, "--json")
    assert SECRET not in run.stdout + run.stderr, "a file outside the table was read"
    rules = {f["rule"] for t in json.loads(run.stdout)["tables"] for f in t["findings"]}
    assert "files.outside-table" in rules, rules
    allowed = _check(md, "--json", "--allow-root", str(Path(outside).parent))
    rules = {f["rule"] for t in json.loads(allowed.stdout)["tables"] for f in t["findings"]}
    assert "files.outside-table" not in rules


def test_symlink_out_of_the_table_is_outside(tmp_path: Path) -> None:
    md, doc = _table(tmp_path)
    outside = _outside_file(tmp_path)
    link = Path(md).parent / "innocent.avro"
    link.symlink_to(outside)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    snap["manifest-list"] = str(link)
    _rewrite(md, doc)
    run = _check(md)
    assert "files.outside-table" in run.stdout and SECRET not in run.stdout


def test_version_hint_of_five_thousand_digits(tmp_path: Path) -> None:
    md, _doc = _table(tmp_path)
    (Path(md).parent / "version-hint.text").write_text("9" * 5000)
    run = _check(str(tmp_path / "t"))
    assert run.returncode in (0, 1, 2) and "Traceback" not in run.stderr, run.stderr
