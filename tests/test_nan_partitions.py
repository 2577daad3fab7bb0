"""Partition values are compared by the spec's meaning: a NaN partition of NaN rows is right.

A table identity-partitioned by a float or double column whose rows hold NaN has the partition
value NaN (JSON single value "NaN"): identity keeps the value. Python's ``==`` says NaN differs
from NaN, which made the checker report ``data.partition-value`` on such valid tables (Spark,
Iceberg Java 1.10.2, writes them). A NaN row in a partition that is not NaN is still reported.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from iceberg_conformance.checker import check_table
from iceberg_conformance.reference import manifests as m
from iceberg_conformance.reference.avro import read_container
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "int"},
          {"id": 2, "name": "d", "required": False, "type": "double"},
          {"id": 3, "name": "f", "required": False, "type": "float"}]
SPEC = [{"source-id": 2, "field-id": 1000, "name": "d", "transform": "identity"},
        {"source-id": 3, "field-id": 1001, "name": "f", "transform": "identity"}]
ROWS = [{"id": 1, "d": "NaN", "f": "NaN"}, {"id": 2, "d": "NaN", "f": 1.5}, {"id": 3, "d": -0.0, "f": -0.0},
        {"id": 4, "d": None, "f": None}, {"id": 5, "d": "Infinity", "f": "-Infinity"}]


def _table(tmp_path: Path, version: int) -> TableBuilder:
    t = TableBuilder(str(tmp_path / f"nan-v{version}"), version, FIELDS, [SPEC])
    t.append(ROWS)
    return t


def _errors(metadata: str) -> list[Any]:
    return [f for f in check_table(metadata).findings if f.severity == "error"]


def test_nan_partitions_of_nan_rows_are_clean(tmp_path: Path) -> None:
    for version in (2, 3):
        t = _table(tmp_path, version)
        partitions = [df["partition"] for df in t.data_files.values()]
        assert {"1000": "NaN", "1001": "NaN"} in partitions  # the premise: a NaN partition exists
        assert _errors(t.metadata_path()) == [], version


def test_nan_row_in_a_number_partition_is_reported(tmp_path: Path) -> None:
    t = _table(tmp_path, 2)
    snap = json.loads(Path(t.metadata_path()).read_text(encoding="utf-8"))["snapshots"][-1]
    mfs, _ = m.read_manifest_list(snap["manifest-list"], 2)
    path = mfs[0]["manifest_path"]
    entries, _ = m.read_manifest(path, 2)
    _, header, _ = read_container(path)
    victim = next(e for e in entries if e["data_file"]["partition"].get("1000") == "NaN")
    victim["data_file"]["partition"]["1000"] = 2.5  # the rows are NaN, the partition says 2.5
    length = m.write_manifest(path, {"format_version": 2, "metadata": header, "entries": entries})
    mfs[0]["manifest_length"] = length
    _, list_header, _ = read_container(snap["manifest-list"])
    m.write_manifest_list(snap["manifest-list"], {"format_version": 2, "metadata": list_header, "manifests": mfs})
    found = _errors(t.metadata_path())
    assert {f.rule for f in found} >= {"data.partition-value"}, found
    assert any("nan" in f.message.lower() and os.path.basename(victim["data_file"]["file_path"]) in f.message
               for f in found if f.rule == "data.partition-value")
