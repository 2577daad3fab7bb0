"""Hostile tables: the checker opens only regular files under the table, never hangs, and
answers with a finding and an exit code (1 findings, 2 nothing readable), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.writer import write_table

SECRET = "not-a-table-file-s3cr3t"


def _check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iceberg_conformance", "check", "--quiet", *args],
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


def _first_data_file(md: str) -> str:
    from iceberg_conformance.reference import manifests as m

    with open(md, encoding="utf-8") as f:
        doc = json.load(f)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    mfs, _ = m.read_manifest_list(snap["manifest-list"], doc["format-version"])
    entries, _ = m.read_manifest(mfs[0]["manifest_path"], doc["format-version"])
    path: str = entries[0]["data_file"]["file_path"]
    return path


def test_corrupt_parquet_page_names_its_row_group_and_column(tmp_path: Path) -> None:
    """A page header that does not decode (found by tests/fuzz.py: pyarrow's OSError came out as
    checker.internal-error) is data.unreadable at the row group and column chunk."""
    from iceberg_conformance.checker.check import check_table

    md, _doc = _table(tmp_path)
    victim = _first_data_file(md)
    data = bytearray(Path(victim).read_bytes())
    data[4:24] = b"\xff" * 20  # the first page header
    Path(victim).write_bytes(bytes(data))
    found = [f for f in check_table(md).findings if f.file == victim]
    assert [f.rule for f in found] == ["data.unreadable"], found
    assert found[0].location.startswith("row group 0, column ")


def test_nul_byte_in_a_manifest_path(tmp_path: Path) -> None:
    """A manifest path holding a NUL byte is a missing manifest, not a ValueError (fuzz)."""
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.reference import manifests as m

    md, doc = _table(tmp_path)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    mfs, _ = m.read_manifest_list(snap["manifest-list"], 2)
    mfs[0]["manifest_path"] = mfs[0]["manifest_path"] + "\0x"
    m.write_manifest_list(snap["manifest-list"], {"format_version": 2, "metadata": {}, "manifests": mfs})
    rules = {f.rule for f in check_table(md).findings}
    assert "checker.internal-error" not in rules and "files.manifest-missing" in rules, rules


def test_avro_rejections_are_located(tmp_path: Path) -> None:
    """An Avro file that does not decode names the header key, byte or data block (issue 13)."""
    from iceberg_conformance.reference import manifests as m

    md, _doc = _table(tmp_path)
    with open(md, encoding="utf-8") as f:
        doc = json.load(f)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    good = Path(snap["manifest-list"]).read_bytes()
    cases = {"truncated": good[:len(good) // 2], "no-magic": b"Obj\x02" + good[4:], "body": good[:-30] + b"\xff" * 30}
    for name, data in cases.items():
        path = tmp_path / f"{name}.avro"
        path.write_bytes(data)
        _, findings = m.read_manifest_list(str(path), 2)
        errors = [f for f in findings if f.severity == "error"]
        assert errors and all(f.file and f.location for f in errors), (name, errors)
        assert all("IndexError" not in f.message and "KeyError" not in f.message for f in errors), errors


@pytest.mark.parametrize("edit", [
    {"snapshots": 1.5}, {"current-schema-id": {"a": 1}}, {"default-spec-id": [0]}, {"current-snapshot-id": "x"},
    {"schemas": [{"schema-id": "", "type": "struct", "fields": []}]},
])
def test_metadata_of_the_wrong_shape_is_a_finding(tmp_path: Path, edit: dict) -> None:
    """Ids and lists of the wrong JSON type (found by tests/fuzz.py) are metadata findings; the
    checker plans and runs the rest without an internal error."""
    from iceberg_conformance.checker.check import check_table

    md, doc = _table(tmp_path)
    doc.update(edit)
    _rewrite(md, doc)
    findings = check_table(md).findings
    rules = {f.rule for f in findings}
    assert "checker.internal-error" not in rules, [str(f) for f in findings]
    assert any(f.severity == "error" and f.rule.startswith("metadata.") for f in findings), rules


@pytest.mark.parametrize("damage", sorted(__import__("tests.hostile", fromlist=["CASES"]).CASES))
def test_bombs_and_sparse_giant_files(tmp_path: Path, damage: str) -> None:
    """Decompression bombs and sparse giant files (tests/hostile.py): a finding by the case's rule,
    exit code 1, no traceback, the damaged file untouched. Their peak memory is measured by
    benchmarks/bench_hostile.py."""
    from tests import hostile

    md, victim = hostile.build(damage, str(tmp_path / "t"))
    before = os.stat(victim)
    run = _check(md, "--json")
    rule = hostile.CASES[damage][1]
    assert run.returncode == (0 if rule is None else 1) and "Traceback" not in run.stderr, run.stderr[-2000:]
    findings = [f for t in json.loads(run.stdout)["tables"] for f in t["findings"]]
    if rule is None:  # a valid large input, checked streamed: no error
        assert not [f for f in findings if f["severity"] == "error"], findings
    else:
        hits = [f for f in findings if f["rule"] == rule]
        assert hits and all(f["file"] == victim and f["location"] for f in hits), findings
    after = os.stat(victim)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns), "the checker changed its input"


def _resolve(doc: dict, pointer: str) -> str:
    """``pointer`` with a ``-1`` step (the last item) replaced by its index in ``doc``."""
    steps, node, out = pointer.strip("/").split("/"), doc, []
    for step in steps:
        if isinstance(node, list):
            step = str(int(step) % len(node))
            node = node[int(step)]
        else:
            node = node[step]
        out.append(step)
    return "/" + "/".join(out)


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize(("pointer", "value"), [
    ("/metadata-log", 5), ("/metadata-log", 1.5),
    ("/snapshots/0/snapshot-id", {"id": 1}), ("/snapshots/-1/snapshot-id", [1]),
    ("/snapshots/-1/parent-snapshot-id", [1]),
])
def test_logs_and_snapshot_ids_of_the_wrong_json_type(tmp_path: Path, version: int, pointer: str, value: object) -> None:
    """A metadata-log that is a number, snapshot ids that are objects or arrays (found by
    tests/fuzz.py: a TypeError in the checker's planner, checker.internal-error in its metadata
    unit) are metadata.shape findings at their JSON pointer; the rest of the table is checked."""
    from iceberg_conformance.checker.check import check_table

    md, doc = _table(tmp_path, version)
    where = _resolve(doc, pointer)
    *parent, last = where.strip("/").split("/")
    node: Any = doc
    for step in parent:
        node = node[int(step)] if isinstance(node, list) else node[step]
    node[last] = value
    _rewrite(md, doc)
    findings = check_table(md).findings
    assert "checker.internal-error" not in {f.rule for f in findings}, [str(f) for f in findings]
    shape = [f for f in findings if f.rule == "metadata.shape"]
    assert [(f.file, f.location, f.severity) for f in shape] == [(md, where, "error")], [str(f) for f in findings]


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("damage", sorted(__import__("tests.hostile", fromlist=["SCHEMA_CASES"]).SCHEMA_CASES))
def test_avro_schemas_of_the_wrong_shape(tmp_path: Path, version: int, damage: str) -> None:
    """Avro schemas Polars' reader panics on (a type name that does not exist, a record naming a
    field twice; found by tests/fuzz.py) and a manifest header schema with a list for a field id:
    the damaged file is reported by the case's rule at a location, never a panic or an internal
    error, and the columnar screen leaves the file to the record reader."""
    from iceberg_conformance.checker.check import check_table
    from tests import hostile

    md = write_table(str(tmp_path / "t"), version)
    builder, rule = hostile.SCHEMA_CASES[damage]
    victim = builder(md)
    findings = check_table(md).findings
    assert "checker.internal-error" not in {f.rule for f in findings}, [str(f) for f in findings]
    hits = [f for f in findings if f.rule == rule and f.file == victim]
    assert hits and all(f.severity == "error" and f.location for f in hits), [str(f) for f in findings]


def test_roots_resolve_as_realpath_does(tmp_path: Path) -> None:
    """Confinement resolves a file's directory once for the files in it: a symbolic link to a
    file, one to a directory, ``..``, a file that is not there and a loop are judged as
    ``os.path.realpath`` judges them."""
    from iceberg_conformance.checker.find import Roots

    table, away = tmp_path / "table", tmp_path / "away"
    (table / "metadata").mkdir(parents=True)
    away.mkdir()
    (away / "secret.avro").write_bytes(b"x")
    (table / "metadata" / "plain.avro").write_bytes(b"x")
    (table / "metadata" / "to-secret.avro").symlink_to(away / "secret.avro")
    (table / "linked-dir").symlink_to(away)
    (table / "metadata" / "loop.avro").symlink_to(table / "metadata" / "loop.avro")
    paths = [table / "metadata" / "plain.avro", table / "metadata" / "to-secret.avro",
             table / "linked-dir" / "secret.avro", table / "metadata" / ".." / ".." / "away" / "secret.avro",
             table / "metadata" / "not-there.avro", table / "linked-dir" / "not-there.avro",
             table / "metadata" / "loop.avro", table / "metadata" / ".."]
    roots = Roots([str(table)])
    for _ in range(2):  # the second time through the directories known
        got = [roots.outside(str(p)) for p in paths]
        want = [not (os.path.realpath(p) + os.sep).startswith(str(table) + os.sep) for p in paths]
        assert got == want == [False, True, True, True, False, True, False, False]


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_a_record_that_does_not_decode_is_named_by_its_place(tmp_path: Path, bad: int) -> None:
    """The location of a data block that does not decode names the record that failed, not the
    last one read before it."""
    from iceberg_conformance.reference.avro import read_container, write_container
    from iceberg_conformance.reference.errors import SpecViolation

    schema = {"type": "record", "name": "r", "fields": [{"name": "k", "type": {"type": "enum", "name": "e",
                                                                            "symbols": ["a", "b"]}}]}
    out = tmp_path / "r.avro"
    with open(out, "wb") as f:
        write_container(f, schema, [{"k": "a"}, {"k": "b"}, {"k": "a"}], {})
    data = bytearray(out.read_bytes())
    # the block is its count, its length, the three one-byte records, then the sync marker
    at = len(data) - 16 - 3 + bad
    assert data[at] in (0, 2)  # an enum index, zigzag-encoded
    data[at] = 0x0A  # index 5: no such symbol
    out.write_bytes(bytes(data))
    with pytest.raises(SpecViolation) as caught:
        read_container(str(out))
    assert caught.value.where.endswith(f"record {bad}"), caught.value.where


@pytest.mark.parametrize(("size", "stated", "too_large"), [
    (100, 100, False), (101, 101, True),   # at the limit, one byte over
    (100, 10, False), (101, 10, True),     # a file that grew after its size was asked
])
def test_a_metadata_file_is_read_to_the_limit_and_no_further(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             size: int, stated: int, too_large: bool) -> None:
    from iceberg_conformance.reference import metadata as md

    monkeypatch.setattr(md, "MAX_METADATA_BYTES", 100)
    path = tmp_path / "v1.metadata.json"
    path.write_bytes(b"{" + b" " * (size - 2) + b"}")
    real = Path.stat

    def stat(self: Path, *a: Any, **k: Any) -> Any:
        got = real(self, *a, **k)
        if self == path:
            return os.stat_result((got.st_mode, got.st_ino, got.st_dev, got.st_nlink, got.st_uid, got.st_gid,
                                   stated, got.st_atime, got.st_mtime, got.st_ctime))
        return got

    monkeypatch.setattr(Path, "stat", stat)
    data, findings = md.read_metadata_bytes(path)
    assert ("metadata.file-too-large" in {f.rule for f in findings}) is too_large, findings
    assert (data is None) is too_large and (too_large or len(data or b"") == size)
