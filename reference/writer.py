"""A small deterministic table writer: Parquet data, manifests, manifest lists, metadata.

Spec sections: "Manifests", "Manifest Lists", "Snapshots", "Table Metadata", "File System
Tables", "Appendix A / Parquet" (field ids stored in the Parquet schema), "Row Lineage" (v3).

:func:`write_table` writes a table of format version 1, 2 or 3 under a directory with fixed
ids, timestamps and UUIDs, so that writing it again yields the same bytes: three metadata
versions (``v1`` empty, ``v2`` after the first append, ``v3`` after the second), one Parquet data
file and one manifest per append, a manifest list per snapshot. Avro sync markers are derived
from the file name. The table is partitioned by ``identity(dt)``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import uuid
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from . import manifests
from .binary import to_bytes
from .commit import VERSION_HINT
from .types import DateType, IcebergType, LongType, StringType, StructType, parse_type

TABLE_UUID = str(uuid.UUID(int=0x1CEB3A6))
BASE_MS = 1_700_000_000_000
SCHEMA: dict[str, Any] = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"},
    {"id": 3, "name": "dt", "required": False, "type": "date"},
]}
SPEC_FIELDS = [{"source-id": 3, "field-id": 1000, "name": "dt", "transform": "identity"}]
_EPOCH = _dt.date(1970, 1, 1)
_TYPES: dict[int, IcebergType] = {1: LongType(), 2: StringType(), 3: DateType()}

#: the two appends: (snapshot id, partition value in days, rows)
APPENDS: list[tuple[int, int, list[tuple[int, str | None]]]] = [
    (1001, 17486, [(1, "a"), (2, "b"), (3, None)]),   # 2017-11-16
    (1002, 17487, [(4, "d"), (5, "e")]),              # 2017-11-17
]


def _sync(name: str) -> bytes:
    return hashlib.sha256(name.encode()).digest()[:16]


def _arrow_schema() -> pa.Schema:
    def f(name: str, t: pa.DataType, fid: int, nullable: bool) -> pa.Field:
        return pa.field(name, t, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})
    return pa.schema([f("id", pa.int64(), 1, False), f("data", pa.string(), 2, True), f("dt", pa.date32(), 3, True)])


def _write_parquet(path: str, day: int, rows: list[tuple[int, str | None]]) -> dict[str, Any]:
    """Write the data file; return its metrics in the decoded ``data_file`` form."""
    table = pa.table({"id": [r[0] for r in rows], "data": [r[1] for r in rows], "dt": pa.array([day] * len(rows),
                      pa.date32())}, schema=_arrow_schema())
    pq.write_table(table, path, compression="NONE", write_statistics=True, store_schema=False)
    meta = pq.ParquetFile(path).metadata
    rg = meta.row_group(0)
    sizes: dict[str, int] = {}
    values: dict[str, int] = {}
    nulls: dict[str, int] = {}
    lower: dict[str, str] = {}
    upper: dict[str, str] = {}
    for i in range(rg.num_columns):
        col = rg.column(i)
        fid = i + 1
        sizes[str(fid)] = col.total_compressed_size
        values[str(fid)] = rg.num_rows
        stats = col.statistics
        nulls[str(fid)] = stats.null_count if stats is not None else 0
        if stats is not None and stats.has_min_max:
            lo, hi = stats.min, stats.max
            if isinstance(_TYPES[fid], DateType):
                lo, hi = (lo - _EPOCH).days, (hi - _EPOCH).days
            lower[str(fid)] = to_bytes(_TYPES[fid], lo).hex()
            upper[str(fid)] = to_bytes(_TYPES[fid], hi).hex()
    return {"record_count": meta.num_rows, "file_size_in_bytes": os.path.getsize(path),
            "column_sizes": sizes, "value_counts": values, "null_value_counts": nulls, "nan_value_counts": {},
            "lower_bounds": lower, "upper_bounds": upper, "split_offsets": [rg.column(0).data_page_offset]}



def _data_file(version: int, path: str, day: int, metrics: dict[str, Any]) -> dict[str, Any]:
    df: dict[str, Any] = {}
    if version >= 2:
        df["content"] = 0
    df.update({"file_path": path, "file_format": "PARQUET", "partition": {"1000": (_EPOCH + _dt.timedelta(days=day)).isoformat()},
               "record_count": metrics["record_count"], "file_size_in_bytes": metrics["file_size_in_bytes"],
               "column_sizes": metrics["column_sizes"], "value_counts": metrics["value_counts"],
               "null_value_counts": metrics["null_value_counts"], "nan_value_counts": metrics["nan_value_counts"],
               "lower_bounds": metrics["lower_bounds"], "upper_bounds": metrics["upper_bounds"],
               "key_metadata": None, "split_offsets": metrics["split_offsets"]})
    if version >= 2:
        df["equality_ids"] = None
    df["sort_order_id"] = 0
    if version >= 3:
        df["first_row_id"] = None
    if version >= 2:
        df["referenced_data_file"] = None
    if version >= 3:
        df["content_offset"] = None
        df["content_size_in_bytes"] = None
    return df


def _metadata(version: int, location: str, snapshots: list[dict[str, Any]], log: list[dict[str, Any]],
              next_row_id: int) -> dict[str, Any]:
    current = snapshots[-1]["snapshot-id"] if snapshots else None
    m: dict[str, Any] = {"format-version": version, "table-uuid": TABLE_UUID, "location": location}
    if version >= 2:
        m["last-sequence-number"] = len(snapshots)
    m.update({"last-updated-ms": BASE_MS + len(snapshots), "last-column-id": 3})
    if version == 1:
        m["schema"] = {k: v for k, v in SCHEMA.items() if k != "schema-id"} | {"schema-id": 0}
    m.update({"current-schema-id": 0, "schemas": [SCHEMA]})
    if version == 1:
        m["partition-spec"] = SPEC_FIELDS
    m.update({"default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": SPEC_FIELDS}],
              "last-partition-id": 1000, "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
              "properties": {}, "current-snapshot-id": current if current is not None else -1,
              "snapshots": snapshots, "snapshot-log": log, "metadata-log": []})
    if version >= 2:
        m["refs"] = {"main": {"snapshot-id": current, "type": "branch"}} if current is not None else {}
    if version >= 3:
        m["next-row-id"] = next_row_id
    return m


def write_table(directory: str, version: int) -> str:
    """Write the table under ``directory`` (its location); returns the current metadata path."""
    if version not in (1, 2, 3):
        raise ValueError(f"format version {version}: 1, 2 or 3")
    location = os.path.abspath(directory)
    data_dir, meta_dir = os.path.join(location, "data"), os.path.join(location, "metadata")
    os.makedirs(data_dir, exist_ok=True)
    os.makedirs(meta_dir, exist_ok=True)
    header = {"schema": json.dumps(SCHEMA, separators=(",", ":")), "schema-id": "0",
              "partition-spec": json.dumps(SPEC_FIELDS, separators=(",", ":")), "partition-spec-id": "0",
              "format-version": str(version)}
    if version >= 2:
        header["content"] = "data"
    schema = parse_type(SCHEMA)
    assert isinstance(schema, StructType)
    ptype = manifests.partition_type(SPEC_FIELDS, schema)
    versions = [_metadata(version, location, [], [], 0)]
    snapshots: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    list_entries: list[dict[str, Any]] = []
    next_row_id = 0
    for n, (snapshot_id, day, rows) in enumerate(APPENDS):
        seq = n + 1
        data_path = os.path.join(data_dir, f"dt={(_EPOCH + _dt.timedelta(days=day)).isoformat()}",
                                 f"{n:05d}-{snapshot_id}.parquet")
        os.makedirs(os.path.dirname(data_path), exist_ok=True)
        metrics = _write_parquet(data_path, day, rows)
        entry: dict[str, Any] = {"status": 1, "snapshot_id": snapshot_id if version == 1 else None}
        if version >= 2:
            entry.update({"sequence_number": None, "file_sequence_number": None})
        entry["data_file"] = _data_file(version, data_path, day, metrics)
        manifest_name = f"manifest-{snapshot_id}.avro"
        manifest_path = os.path.join(meta_dir, manifest_name)
        length = manifests.write_manifest(manifest_path, {"format_version": version, "metadata": header,
                                                          "entries": [entry]}, sync=_sync(manifest_name))
        mf: dict[str, Any] = {"manifest_path": manifest_path, "manifest_length": length, "partition_spec_id": 0}
        if version >= 2:
            mf.update({"content": 0, "sequence_number": seq, "min_sequence_number": seq})
        mf.update({"added_snapshot_id": snapshot_id, "added_files_count": 1, "existing_files_count": 0,
                   "deleted_files_count": 0, "added_rows_count": len(rows), "existing_rows_count": 0,
                   "deleted_rows_count": 0, "partitions": manifests.summarize([entry], ptype), "key_metadata": None})
        if version >= 3:
            mf["first_row_id"] = next_row_id
        list_entries = [mf] + list_entries
        list_name = f"snap-{snapshot_id}.avro"
        list_path = os.path.join(meta_dir, list_name)
        list_meta = {"snapshot-id": str(snapshot_id), "format-version": str(version)}
        if snapshots:
            list_meta["parent-snapshot-id"] = str(snapshots[-1]["snapshot-id"])
        if version >= 2:
            list_meta["sequence-number"] = str(seq)
        if version >= 3:
            list_meta["first-row-id"] = str(next_row_id)
        manifests.write_manifest_list(list_path, {"format_version": version, "metadata": list_meta,
                                                  "manifests": list_entries}, sync=_sync(list_name))
        snap: dict[str, Any] = {"snapshot-id": snapshot_id}
        if snapshots:
            snap["parent-snapshot-id"] = snapshots[-1]["snapshot-id"]
        if version >= 2:
            snap["sequence-number"] = seq
        snap.update({"timestamp-ms": BASE_MS + seq, "manifest-list": list_path,
                     "summary": {"operation": "append", "added-data-files": "1", "added-records": str(len(rows))},
                     "schema-id": 0})
        if version >= 3:
            snap.update({"first-row-id": next_row_id, "added-rows": len(rows)})
            next_row_id += len(rows)
        snapshots.append(snap)
        log.append({"timestamp-ms": BASE_MS + seq, "snapshot-id": snapshot_id})
        versions.append(_metadata(version, location, list(snapshots), list(log), next_row_id))
    for i, doc in enumerate(versions, start=1):
        with open(os.path.join(meta_dir, f"v{i}.metadata.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2) + "\n")
    with open(os.path.join(meta_dir, VERSION_HINT), "w", encoding="utf-8") as f:
        f.write(str(len(versions)))
    return os.path.join(meta_dir, f"v{len(versions)}.metadata.json")


def table_files(directory: str) -> dict[str, bytes]:
    """Every file of a written table, by path relative to ``directory`` (for byte comparison)."""
    out = {}
    for root, _, names in os.walk(directory):
        for name in sorted(names):
            p = os.path.join(root, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, directory)] = f.read()
    return out
