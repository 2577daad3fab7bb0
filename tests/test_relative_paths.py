"""Paths in Metadata: "Prior to v4, all path fields must contain fully-qualified paths." A path
relative to the working directory is not fully qualified, also when it is written as a ``file:``
URI (``file://./wh/...``: the authority ``.`` is no host), as PyIceberg records every path of a
table whose warehouse is given so (apache/iceberg-python#1730)."""

from __future__ import annotations

import glob
import importlib.util
import json
from pathlib import Path

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.metadata import fully_qualified


PATHS = [
    ("/warehouse/db/t/data/a.parquet", True),           # absolute, no scheme: what Java's Hadoop catalog writes
    ("s3://bucket/db/t/data/a.parquet", True),
    ("file:/warehouse/a.parquet", True),
    ("file:///warehouse/a.parquet", True),
    ("file://host/warehouse/a.parquet", True),          # a host: well formed, not the kit's to judge
    ("data/a.parquet", False),
    ("./data/a.parquet", False),
    ("file://./wh/db/t/data/a.parquet", False),
    ("file://../wh/a.parquet", False),
    ("file:data/a.parquet", False),
    ("FILE:///warehouse/a.parquet", True),
    ("File://./a.parquet", False),
    ("file://..", False),
    ("1abc:/x", False),
    ("", False),
]


@pytest.mark.parametrize(("path", "qualified"), PATHS)
def test_a_path_is_fully_qualified_when_it_is_absolute_or_a_uri_of_an_absolute_path(path: str, qualified: bool) -> None:
    assert fully_qualified(path) is qualified


def test_the_manifest_screen_judges_paths_as_the_reference_does() -> None:
    """The columnar screen's Arrow form of the rule (checker/units/columnar.py) gives the same
    verdict on every path above, so it never certifies a manifest the record reader reports."""
    import pyarrow as pa

    from iceberg_conformance.checker.units.columnar import _fully_qualified

    got = _fully_qualified(pa.array([p for p, _ in PATHS])).tolist()
    assert got == [q for _, q in PATHS]


@pytest.mark.skipif(importlib.util.find_spec("pyiceberg") is None or importlib.util.find_spec("sqlalchemy") is None,
                    reason="PyIceberg (with sqlalchemy) is not installed")
def test_a_table_pyiceberg_writes_under_a_relative_file_uri_warehouse_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    monkeypatch.chdir(tmp_path)
    (tmp_path / "wh").mkdir()
    catalog = SqlCatalog("default", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse="file://./wh")
    catalog.create_namespace("db")
    table = catalog.create_table("db.t", schema=pa.schema([("x", pa.string())]))
    table.append(pa.table({"x": ["a"]}))
    metadata = sorted(glob.glob(str(tmp_path / "wh" / "db" / "t" / "metadata" / "*.metadata.json")))[-1]
    assert json.loads(Path(metadata).read_text(encoding="utf-8"))["location"] == "file://./wh/db/t"
    found = [f for f in check_table(metadata).findings if f.rule == "metadata.relative-path"]
    assert {f.location for f in found} >= {"/location", "/snapshots/0/manifest-list"}
    assert all(f.severity == "error" for f in found)


def _damaged(tmp_path: Path, rule: str, version: int = 2) -> tuple[Path, str]:
    from iceberg_conformance.checker.damage.selftest import write_damaged
    from iceberg_conformance.reference.writer import write_table

    table = tmp_path / "t"
    md = write_table(str(table), version)
    _paths, copies, _skipped = write_damaged(md, str(tmp_path / "out"), rules=[rule])
    assert copies, f"no damaged copy for {rule}"
    return table, copies[0].metadata


@pytest.mark.parametrize("metadata_only", [False, True])
def test_a_relative_data_file_path_is_reported_with_or_without_the_data(tmp_path: Path, metadata_only: bool) -> None:
    """The rule judges a manifest field, so a metadata-only check (no content-file units) reports it too."""
    _table, damaged = _damaged(tmp_path, "manifests.file-path-relative")
    report = check_table(damaged, metadata_only=metadata_only, allowed_roots=[str(tmp_path)])
    assert "manifests.file-path-relative" in {f.rule for f in report.findings}


@pytest.mark.parametrize("version", [1, 2])
def test_a_relative_manifest_path_is_reported_whatever_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """Run from the table's own location the relative manifest_path names a readable manifest (the
    original's): the record is still no fully-qualified path. One snapshot only, so no other
    snapshot's unit reports the record in its stead."""
    from iceberg_conformance.checker.damage.selftest import write_damaged
    from iceberg_conformance.reference.writer import write_table

    table = tmp_path / "t"
    _paths, copies, _skipped = write_damaged(write_table(str(table), version), str(tmp_path / "out"),
                                             rules=["snapshot.manifest-path-relative"])
    damaged = copies[0].metadata
    doc = json.loads(Path(damaged).read_text())
    sid = int(copies[0].where.split()[1].rstrip(":"))   # "snapshot <id>: manifests[i]..."
    doc["snapshots"] = [s for s in doc["snapshots"] if s["snapshot-id"] == sid]
    doc["snapshot-log"] = [e for e in doc.get("snapshot-log", []) if e["snapshot-id"] == sid]
    doc["current-snapshot-id"] = sid
    if "refs" in doc:
        doc["refs"] = {"main": {"snapshot-id": sid, "type": "branch"}}
    Path(damaged).write_text(json.dumps(doc))
    for cwd in (tmp_path, table):
        monkeypatch.chdir(cwd)
        report = check_table(damaged, metadata_only=True, workers=1, allowed_roots=[str(tmp_path)])
        assert "snapshot.manifest-path-relative" in {f.rule for f in report.findings}, cwd
