"""Small tables for the checker's self-tests and the damage self-test.

:func:`write_reference_table` writes a table with the reference writer (format v1, v2 or v3);
:func:`commit_delete_file`, :func:`add_deletion_vector`, :func:`add_deletes` and
:func:`add_position_deletes` commit one more snapshot onto such a table, adding a delete file in
its own delete manifest (every recorded count, length and sequence number written as the spec
says). :func:`write_pyiceberg_table` writes a partitioned v2 table of many types with PyIceberg
(the ``pyiceberg`` extra), with one row deleted.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

from iceberg_conformance.reference import manifests as m
from iceberg_conformance.reference.arrow import from_arrow
from iceberg_conformance.reference.avro import read_container, to_avro, write_container
from iceberg_conformance.reference.puffin import deletion_vector_blob, read_puffin, write_puffin
from iceberg_conformance.reference.types import NestedField, parse_type, StructType
from iceberg_conformance.reference.writer import write_table


def write_reference_table(tmp_path: Path, version: int) -> str:
    """A table the reference writer writes under ``tmp_path/t<version>``; its metadata file."""
    return write_table(str(tmp_path / f"t{version}"), version)


def metadata_doc(metadata: str) -> dict[str, Any]:
    """The metadata file as JSON."""
    with open(metadata, encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
    return doc


def current_manifest_list(metadata: str) -> str:
    """The manifest list of the current snapshot."""
    doc = metadata_doc(metadata)
    snap = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    return str(snap["manifest-list"])


def newest_data_file(md: str) -> dict[str, Any]:
    """The first entry's ``data_file`` of the current snapshot's first manifest (decoded form)."""
    version = metadata_doc(md)["format-version"]
    mfs, _ = m.read_manifest_list(current_manifest_list(md), version)
    entries, _ = m.read_manifest(mfs[0]["manifest_path"], version)
    df: dict[str, Any] = entries[0]["data_file"]
    return df


def commit_delete_file(md: str, df: dict[str, Any]) -> str:
    """A new snapshot adding delete file ``df`` (decoded ``data_file`` form) in its own delete
    manifest; returns the new metadata path (``v4``)."""
    doc = metadata_doc(md)
    version = doc["format-version"]
    meta_dir = os.path.dirname(md)
    ml = current_manifest_list(md)
    mfs, _ = m.read_manifest_list(ml, version)
    seq = doc["last-sequence-number"] + 1
    sid = 2001
    base = {"key_metadata": None, "split_offsets": None, "sort_order_id": None, "column_sizes": None,
            "value_counts": None, "null_value_counts": None, "nan_value_counts": None, "lower_bounds": None,
            "upper_bounds": None, "equality_ids": None}
    if version >= 3:
        base.update({"first_row_id": None, "referenced_data_file": None, "content_offset": None,
                     "content_size_in_bytes": None})
    df = dict(base, **df)
    _, header, _ = read_container(mfs[0]["manifest_path"])
    header = dict(header, content="deletes")
    dm_path = os.path.join(meta_dir, f"delete-manifest-{sid}.avro")
    length = m.write_manifest(dm_path, {"format_version": version, "metadata": header, "entries": [
        {"status": 1, "snapshot_id": None, "sequence_number": None, "file_sequence_number": None, "data_file": df}]})
    st = parse_type({"type": "struct", "fields": doc["schemas"][0]["fields"]})
    assert isinstance(st, StructType)
    ptype = m.partition_type(doc["partition-specs"][0]["fields"], st)
    dm = {"manifest_path": dm_path, "manifest_length": length, "partition_spec_id": 0, "content": 1,
          "sequence_number": seq, "min_sequence_number": seq, "added_snapshot_id": sid, "added_files_count": 1,
          "existing_files_count": 0, "deleted_files_count": 0, "added_rows_count": df["record_count"],
          "existing_rows_count": 0, "deleted_rows_count": 0,
          "partitions": m.summarize([{"status": 1, "data_file": df}], ptype), "key_metadata": None}
    if version >= 3:
        dm["first_row_id"] = None
    list_path = os.path.join(meta_dir, f"snap-{sid}.avro")
    _, list_header, _ = read_container(ml)
    list_header = dict(list_header, **{"snapshot-id": str(sid), "parent-snapshot-id": str(doc["current-snapshot-id"]),
                                       "sequence-number": str(seq)})
    if version >= 3:
        list_header["first-row-id"] = str(doc["next-row-id"])
    m.write_manifest_list(list_path, {"format_version": version, "metadata": list_header, "manifests": [dm] + mfs})
    snap = {"snapshot-id": sid, "parent-snapshot-id": doc["current-snapshot-id"], "sequence-number": seq,
            "timestamp-ms": doc["last-updated-ms"] + 1, "manifest-list": list_path,
            "summary": {"operation": "delete", "added-delete-files": "1"}, "schema-id": 0}
    if version >= 3:
        snap.update({"first-row-id": doc["next-row-id"], "added-rows": 0})
    doc["snapshots"].append(snap)
    doc["snapshot-log"].append({"timestamp-ms": snap["timestamp-ms"], "snapshot-id": sid})
    doc["current-snapshot-id"] = sid
    doc["refs"] = {"main": {"snapshot-id": sid, "type": "branch"}}
    doc["last-sequence-number"] = seq
    doc["last-updated-ms"] = snap["timestamp-ms"]
    out = os.path.join(meta_dir, "v4.metadata.json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    with open(os.path.join(meta_dir, "version-hint.text"), "w", encoding="utf-8") as f:
        f.write("4")
    return out


def add_deletion_vector(md: str, positions: list[int], record_count: int | None = None) -> str:
    """A new snapshot on a v3 table of :mod:`reference.writer` deleting ``positions`` of the
    current snapshot's newest data file with a deletion vector; returns the new metadata path."""
    target = newest_data_file(md)
    puffin_path = os.path.join(metadata_doc(md)["location"], "data", "dv-1.puffin")
    with open(puffin_path, "wb") as f:
        f.write(write_puffin([deletion_vector_blob(positions, target["file_path"])]))
    blob = read_puffin(puffin_path).metadata.blobs[0]
    unique = sorted(set(positions))
    return commit_delete_file(md, {
        "content": 1, "file_path": puffin_path, "file_format": "PUFFIN", "partition": target["partition"],
        "record_count": len(unique) if record_count is None else record_count,
        "file_size_in_bytes": os.path.getsize(puffin_path), "referenced_data_file": target["file_path"],
        "content_offset": blob.offset, "content_size_in_bytes": blob.length})


def add_deletes(md: str, content: int, rows: dict[str, list[Any]], types: dict[str, Any],
                equality_ids: list[int] | None = None, file_format: str = "PARQUET") -> str:
    """A new snapshot with a position (content 1) or equality (content 2) delete file in the
    newest data file's partition, written as ``file_format`` (Parquet, ORC or Avro, field ids per
    Appendix A: ``PARQUET:field_id``, the ``iceberg.id`` and ``iceberg.required`` ORC type
    attributes, Avro ``field-id``); ``types`` maps column name to (Arrow type, field id)."""
    target = newest_data_file(md)
    fmt = file_format.upper()
    path = os.path.join(metadata_doc(md)["location"], "data", f"deletes-{content}.{fmt.lower()}")
    key, extra = (b"iceberg.id", {b"iceberg.required": b"true"}) if fmt == "ORC" else (b"PARQUET:field_id", {})
    schema = pa.schema([pa.field(n, t, nullable=False, metadata={key: str(fid).encode(), **extra})
                        for n, (t, fid) in types.items()])
    table = pa.table(rows, schema=schema)
    if fmt == "AVRO":
        file_type = StructType(tuple(NestedField(fid, n, from_arrow(t), True) for n, (t, fid) in types.items()))
        with open(path, "wb") as f:
            write_container(f, to_avro(file_type), table.to_pylist(), {})
    elif fmt == "ORC":
        orc.write_table(table, path)
    else:
        pq.write_table(table, path)
    df: dict[str, Any] = {"content": content, "file_path": path, "file_format": fmt,
                          "partition": target["partition"], "record_count": len(next(iter(rows.values()))),
                          "file_size_in_bytes": os.path.getsize(path)}
    if equality_ids is not None:
        df["equality_ids"] = equality_ids
    return commit_delete_file(md, df)


def add_position_deletes(md: str, positions: list[int], file_format: str = "PARQUET") -> str:
    """A new snapshot with a position delete file deleting ``positions`` of the newest data file."""
    target = newest_data_file(md)["file_path"]
    return add_deletes(md, 1, {"file_path": [target] * len(positions), "pos": positions},
                       {"file_path": (pa.string(), 2147483546), "pos": (pa.int64(), 2147483545)},
                       file_format=file_format)


def write_pyiceberg_table(tmp_path: Path) -> str:
    """A partitioned v2 table of many types written by PyIceberg (day, bucket and truncate
    partitions; a NaN, nulls, nested types), one row deleted; its metadata file."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform, TruncateTransform
    from pyiceberg.types import (
        DecimalType, DoubleType, IntegerType, ListType, LongType, MapType, NestedField, StringType,
        StructType, TimestamptzType, UUIDType, DateType,
    )

    wh = tmp_path / "wh"
    wh.mkdir()
    cat = SqlCatalog("c", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    cat.create_namespace("db")
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "name", StringType()),
        NestedField(3, "price", DecimalType(9, 2)),
        NestedField(4, "ts", TimestamptzType()),
        NestedField(5, "d", DateType()),
        NestedField(6, "f", DoubleType()),
        NestedField(7, "tags", ListType(8, StringType(), element_required=False)),
        NestedField(9, "props", MapType(10, StringType(), 11, IntegerType(), value_required=False)),
        NestedField(12, "s", StructType(NestedField(13, "a", IntegerType()), NestedField(14, "b", StringType()))),
        NestedField(15, "u", UUIDType()),
        NestedField(16, "big", DecimalType(25, 3)),
    )
    spec = PartitionSpec(PartitionField(5, 1000, DayTransform(), "d_day"),
                         PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
                         PartitionField(2, 1002, TruncateTransform(3), "name_trunc"))
    t = cat.create_table("db.t", schema, partition_spec=spec, properties={"format-version": "2"})
    n = 12
    data = {
        "id": list(range(n)), "name": [f"name-{i}" if i % 5 else None for i in range(n)],
        "price": [decimal.Decimal(i) / 4 for i in range(n)],
        "ts": [datetime.datetime(2024, 1, 1 + i % 3, i % 24, tzinfo=datetime.timezone.utc) for i in range(n)],
        "d": [datetime.date(2024, 1, 1 + i % 3) for i in range(n)],
        "f": [float("nan") if i == 3 else i * 1.5 for i in range(n)],
        "tags": [["a", "b"] if i % 2 else [] for i in range(n)],
        "props": [[("k", i)] for i in range(n)],
        "s": [{"a": i, "b": "x"} if i % 4 else None for i in range(n)],
        "u": [uuid.UUID(int=i).bytes for i in range(n)],
        "big": [decimal.Decimal(i) * 1000 for i in range(n)],
    }
    t.append(pa.Table.from_pydict(data, schema=t.schema().as_arrow()))
    t.delete("id = 3")
    return str(t.metadata_location)


#: rows of :func:`write_variant_table`: a shredded binary field ``b`` whose largest value (20
#: bytes) is longer than the 16 bytes bounds keep, a shredded string field ``s`` holding U+FFFD,
#: U+1F600 and "a" (UTF-8 byte order: "a" < U+FFFD < U+1F600; UTF-16 order puts U+1F600 first),
#: fields left in ``value`` (an array, a nested object, one of mixed types), a variant that is
#: not an object, and a null variant
VARIANT_ROWS: list[dict[str, Any]] = [
    {"id": 1, "v": {"b": bytes(range(1, 21)), "s": "\ufffd", "tags": ["red", "blue"], "loc": {"lat": 52.5}}},
    {"id": 2, "v": {"b": b"\x01\x02", "s": "\U0001f600", "tags": [], "loc": {"lat": -33.9}, "m": "n/a"}},
    {"id": 3, "v": {"s": "a", "m": 7}},
    {"id": 4, "v": "plain"},
    {"id": 5, "v": None},
]


def write_variant_table(tmp_path: Path) -> str:
    """A v3 table with a variant column, written by the reference writer: shredded ``b`` and ``s``
    (see :data:`VARIANT_ROWS`), with bounds by normalized path, strings and binary cut to 16 and
    the upper bound rounded up (as Iceberg Java's default ``truncate(16)`` metrics); its metadata
    file."""
    from iceberg_conformance.reference.writer import TableBuilder

    b = TableBuilder(str(tmp_path / "variant"), 3,
                     [{"id": 1, "name": "id", "required": True, "type": "long"},
                      {"id": 2, "name": "v", "required": False, "type": "variant"}], bounds=True)
    b.append(VARIANT_ROWS)
    return b.metadata_path()
