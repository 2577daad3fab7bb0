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


@pytest.mark.parametrize(("path", "qualified"), [
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
])
def test_a_path_is_fully_qualified_when_it_is_absolute_or_a_uri_of_an_absolute_path(path: str, qualified: bool) -> None:
    assert fully_qualified(path) is qualified


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
