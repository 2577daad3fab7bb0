"""Build the golden manifest and manifest-list files of ``vectors/manifests/files/``.

The decoded meaning of every file is written here by hand, from the spec's field tables
("Manifests", "Manifest Lists"), as data: it becomes the ``*.sidecar.json``. The ``.avro``
bytes are produced by the kit's deterministic writer (``reference.manifests``), and then
decoded again here with fastavro alone (no code from ``reference/``) and compared with the
sidecar, so a writer bug cannot slip into a sidecar. Bounds are packed with ``struct``
following Appendix D, independently of ``reference.binary``. Invalid files are valid files
with one thing broken, named by the rule they break.

Run: ``python -m tools.vectors.manifests`` (rewrites ``files/``; the output is byte-stable).
"""

from __future__ import annotations

import copy
import datetime as dt
import io
import json
import struct
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro

from iceberg_conformance.reference import avro as ref_avro  # the writer under test of determinism
from iceberg_conformance.reference import manifests as ref_manifests
from iceberg_conformance.reference import types as ref_types
from tools.vectors import VECTORS

HERE = VECTORS / "manifests"
FILES = HERE / "files"

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"},
    {"id": 3, "name": "dt", "required": False, "type": "date"},
    {"id": 4, "name": "amount", "required": False, "type": "decimal(9, 2)"},
]}
SPEC_V1 = [{"source-id": 3, "field-id": 1000, "name": "dt", "transform": "identity"},
           {"source-id": 2, "field-id": 1001, "name": "data", "transform": "identity"}]
SPEC = SPEC_V1 + [{"source-id": 4, "field-id": 1002, "name": "amount", "transform": "identity"}]
# v3: identity partitions on a uuid and a timestamp_ns column, whose Avro forms (Appendix A) are
# fixed(16) with logicalType uuid and a long of nanoseconds with logicalType timestamp-nanos;
# iceberg-rust could not write a uuid partition value (apache/iceberg-rust#2913), PyIceberg did not
# convert a timestamp_ns partition value to nanoseconds (apache/iceberg-python#3652)
SCHEMA_UUID_NS = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "u", "required": False, "type": "uuid"},
    {"id": 3, "name": "ts", "required": False, "type": "timestamp_ns"},
]}
SPEC_UUID_NS = [{"source-id": 2, "field-id": 1000, "name": "u", "transform": "identity"},
                {"source-id": 3, "field-id": 1001, "name": "ts", "transform": "identity"}]


def le_long(v: int) -> str:
    return struct.pack("<q", v).hex()


def le_int(v: int) -> str:
    return struct.pack("<i", v).hex()


def days(iso: str) -> int:
    return (dt.date.fromisoformat(iso) - dt.date(1970, 1, 1)).days


def header(version: int, content: str, spec: list[dict[str, Any]],
           schema: dict[str, Any] | None = None) -> dict[str, str]:
    h = {"schema": json.dumps(schema or SCHEMA, separators=(",", ":")), "schema-id": "0",
         "partition-spec": json.dumps(spec, separators=(",", ":")), "partition-spec-id": "0",
         "format-version": str(version)}
    if version >= 2:
        h["content"] = content
    return h


def data_file(version: int, path: str, partition: dict[str, Any], records: int, size: int, **kw: Any) -> dict[str, Any]:
    df: dict[str, Any] = {}
    if version >= 2:
        df["content"] = kw.pop("content", 0)
    df.update({"file_path": path, "file_format": kw.pop("file_format", "PARQUET"), "partition": partition,
               "record_count": records, "file_size_in_bytes": size,
               "column_sizes": kw.pop("column_sizes", None), "value_counts": kw.pop("value_counts", None),
               "null_value_counts": kw.pop("null_value_counts", None),
               "nan_value_counts": kw.pop("nan_value_counts", None),
               "lower_bounds": kw.pop("lower_bounds", None), "upper_bounds": kw.pop("upper_bounds", None),
               "key_metadata": kw.pop("key_metadata", None), "split_offsets": kw.pop("split_offsets", None)})
    if version >= 2:
        df["equality_ids"] = kw.pop("equality_ids", None)
    df["sort_order_id"] = kw.pop("sort_order_id", None)
    if version >= 3:
        df["first_row_id"] = kw.pop("first_row_id", None)
    if version >= 2:
        df["referenced_data_file"] = kw.pop("referenced_data_file", None)
    if version >= 3:
        df["content_offset"] = kw.pop("content_offset", None)
        df["content_size_in_bytes"] = kw.pop("content_size_in_bytes", None)
    assert not kw, kw
    return df


def entry(version: int, status: int, snapshot_id: int | None, seq: int | None, fseq: int | None,
          df: dict[str, Any]) -> dict[str, Any]:
    e: dict[str, Any] = {"status": status, "snapshot_id": snapshot_id}
    if version >= 2:
        e["sequence_number"] = seq
        e["file_sequence_number"] = fseq
    e["data_file"] = df
    return e


W = "s3://bucket/warehouse/db/t"


def part(version: int, day: str | None, data: str | None, amount: str | None = None) -> dict[str, Any]:
    p: dict[str, Any] = {"1000": day, "1001": data}
    if version >= 2:
        p["1002"] = amount
    return p


METRICS = {
    "column_sizes": {"1": 52, "2": 61}, "value_counts": {"1": 3, "2": 3}, "null_value_counts": {"1": 0, "2": 1},
    "nan_value_counts": {}, "lower_bounds": {"1": le_long(1), "2": "616263"},
    "upper_bounds": {"1": le_long(3), "2": "78797a"},
}


def manifests() -> dict[str, dict[str, Any]]:
    """The golden manifests' decoded form (sidecars), by file stem."""
    out: dict[str, dict[str, Any]] = {}
    v = 1
    out["v1-data"] = {"format_version": 1, "metadata": header(1, "data", SPEC_V1), "entries": [
        entry(v, 1, 1001, None, None, data_file(v, f"{W}/data/dt=2017-11-16/data=abc/00000-0.parquet",
                                                part(v, "2017-11-16", "abc"), 3, 1024, split_offsets=[4],
                                                sort_order_id=0, **METRICS)),
        entry(v, 1, 1001, None, None, data_file(v, f"{W}/data/dt=2017-11-17/data=null/00001-0.parquet",
                                                part(v, "2017-11-17", None), 1, 512)),
    ]}
    v = 2
    out["v2-data"] = {"format_version": 2, "metadata": header(2, "data", SPEC), "entries": [
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/00000-0.parquet", part(v, "2017-11-16", "abc", "14.20"),
                                                3, 1024, split_offsets=[4, 400], sort_order_id=0, **METRICS)),
        entry(v, 0, 2001, 1, 1, data_file(v, f"{W}/data/00001-0.parquet", part(v, "2017-11-15", "def", "-0.01"),
                                          5, 2048, key_metadata="00ff")),
        entry(v, 2, 2003, 1, 1, data_file(v, f"{W}/data/00002-0.parquet", part(v, "1969-12-31", None, None),
                                          7, 4096)),
    ]}
    out["v2-deletes"] = {"format_version": 2, "metadata": header(2, "deletes", SPEC), "entries": [
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/00000-pos.parquet", part(v, "2017-11-16", "abc", "14.20"),
                                                2, 800, content=1,
                                                referenced_data_file=f"{W}/data/00000-0.parquet")),
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/00000-eq.parquet", part(v, "2017-11-16", "abc", "14.20"),
                                                1, 700, content=2, equality_ids=[1], sort_order_id=0)),
    ]}
    v = 3
    out["v3-data"] = {"format_version": 3, "metadata": header(3, "data", SPEC), "entries": [
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/00010-0.parquet", part(v, "2017-11-16", "abc", "14.20"),
                                                3, 1024, **METRICS)),
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/00011-0.parquet", part(v, "2017-11-16", "xyz", "0.00"),
                                                4, 1100)),
        entry(v, 0, 3001, 1, 1, data_file(v, f"{W}/data/00001-0.parquet", part(v, "2017-11-15", "def", "-0.01"),
                                          5, 2048, first_row_id=0)),
    ]}
    out["v3-data-uuid-ns"] = {"format_version": 3, "metadata": header(3, "data", SPEC_UUID_NS, SCHEMA_UUID_NS),
                              "entries": [
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/u=f79c3e09/00000-0.parquet",
                                                {"1000": "f79c3e09-677c-4bbd-a479-3f349cb785e7",
                                                 "1001": "2020-01-01T00:00:00.000000000"}, 3, 1024)),
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/u=null/00001-0.parquet",
                                                {"1000": None, "1001": "1969-12-31T23:59:59.999999999"}, 1, 512)),
    ]}
    out["v3-deletes"] = {"format_version": 3, "metadata": header(3, "deletes", SPEC), "entries": [
        entry(v, 1, None, None, None, data_file(v, f"{W}/data/dv-00000.puffin", part(v, "2017-11-16", "abc", "14.20"),
                                                2, 120, content=1, file_format="PUFFIN",
                                                referenced_data_file=f"{W}/data/00010-0.parquet",
                                                content_offset=4, content_size_in_bytes=42)),
    ]}
    return out


def manifest_lists(lengths: dict[str, int]) -> dict[str, dict[str, Any]]:
    """Golden manifest lists; counts and summaries worked out by hand from ``manifests()``."""
    def summary(null: bool, lo: str | None, hi: str | None, nan: bool | None = False) -> dict[str, Any]:
        return {"contains_null": null, "contains_nan": nan, "lower_bound": lo, "upper_bound": hi}

    d = days
    out: dict[str, dict[str, Any]] = {}
    out["v1-list"] = {"format_version": 1, "metadata": {"snapshot-id": "1001", "format-version": "1"}, "manifests": [{
        "manifest_path": f"{W}/metadata/v1-data.avro", "manifest_length": lengths["v1-data"], "partition_spec_id": 0,
        "added_snapshot_id": 1001, "added_files_count": 2, "existing_files_count": 0, "deleted_files_count": 0,
        "added_rows_count": 4, "existing_rows_count": 0, "deleted_rows_count": 0,
        "partitions": [summary(False, le_int(d("2017-11-16")), le_int(d("2017-11-17"))),
                       summary(True, "616263", "616263")],
        "key_metadata": None}]}
    amount_lo = (-1).to_bytes(1, "big", signed=True).hex()   # -0.01: unscaled -1, minimal bytes
    amount_hi = (1420).to_bytes(2, "big", signed=True).hex()  # 14.20: unscaled 1420
    out["v2-list"] = {"format_version": 2, "metadata": {"snapshot-id": "2003", "parent-snapshot-id": "2002",
                                                        "sequence-number": "2", "format-version": "2"}, "manifests": [
        {"manifest_path": f"{W}/metadata/v2-data.avro", "manifest_length": lengths["v2-data"],
         "partition_spec_id": 0, "content": 0, "sequence_number": 2, "min_sequence_number": 1,
         "added_snapshot_id": 2003, "added_files_count": 1, "existing_files_count": 1, "deleted_files_count": 1,
         "added_rows_count": 3, "existing_rows_count": 5, "deleted_rows_count": 7,
         "partitions": [summary(False, le_int(d("1969-12-31")), le_int(d("2017-11-16"))),
                        summary(True, "616263", "646566"), summary(True, amount_lo, amount_hi)],
         "key_metadata": None},
        {"manifest_path": f"{W}/metadata/v2-deletes.avro", "manifest_length": lengths["v2-deletes"],
         "partition_spec_id": 0, "content": 1, "sequence_number": 2, "min_sequence_number": 2,
         "added_snapshot_id": 2003, "added_files_count": 2, "existing_files_count": 0, "deleted_files_count": 0,
         "added_rows_count": 3, "existing_rows_count": 0, "deleted_rows_count": 0,
         "partitions": [summary(False, le_int(d("2017-11-16")), le_int(d("2017-11-16"))),
                        summary(False, "616263", "616263"), summary(False, amount_hi, amount_hi)],
         "key_metadata": None},
    ]}
    zero = (0).to_bytes(1, "big", signed=True).hex()
    out["v3-list"] = {"format_version": 3, "metadata": {"snapshot-id": "3003", "parent-snapshot-id": "3001",
                                                        "sequence-number": "2", "first-row-id": "5",
                                                        "format-version": "3"}, "manifests": [
        {"manifest_path": f"{W}/metadata/v3-data.avro", "manifest_length": lengths["v3-data"],
         "partition_spec_id": 0, "content": 0, "sequence_number": 2, "min_sequence_number": 1,
         "added_snapshot_id": 3003, "added_files_count": 2, "existing_files_count": 1, "deleted_files_count": 0,
         "added_rows_count": 7, "existing_rows_count": 5, "deleted_rows_count": 0,
         "partitions": [summary(False, le_int(d("2017-11-15")), le_int(d("2017-11-16"))),
                        summary(False, "616263", "78797a"), summary(False, amount_lo, amount_hi)],
         "key_metadata": None, "first_row_id": 5},
        {"manifest_path": f"{W}/metadata/v3-deletes.avro", "manifest_length": lengths["v3-deletes"],
         "partition_spec_id": 0, "content": 1, "sequence_number": 2, "min_sequence_number": 2,
         "added_snapshot_id": 3003, "added_files_count": 1, "existing_files_count": 0, "deleted_files_count": 0,
         "added_rows_count": 2, "existing_rows_count": 0, "deleted_rows_count": 0,
         "partitions": [summary(False, le_int(d("2017-11-16")), le_int(d("2017-11-16"))),
                        summary(False, "616263", "616263"), summary(False, amount_hi, amount_hi)],
         "key_metadata": None, "first_row_id": None},
    ]}
    _ = zero
    return out


# --- independent decoding with fastavro -----------------------------------------------------------

def _logical(schema: Any) -> str | None:
    """The logicalType of an Avro field type (the non-null branch of an optional union)."""
    branches = schema if isinstance(schema, list) else [schema]
    return next((b.get("logicalType") for b in branches if isinstance(b, dict)), None)


def _fa_value(schema: Any, v: Any) -> Any:
    """fastavro's logical-type value as the JSON single-value form (by hand, per the spec).
    fastavro leaves a uuid on fixed(16) as bytes and timestamp-nanos as the long: Appendix D's
    JSON forms are a hyphenated lowercase uuid and an ISO-8601 timestamp with nanoseconds."""
    if v is None:
        return None
    if _logical(schema) == "uuid" and isinstance(v, bytes):
        return str(uuid.UUID(bytes=v))
    if _logical(schema) == "timestamp-nanos" and isinstance(v, int):
        seconds, nanos = divmod(v, 1_000_000_000)
        return (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)).isoformat() + f".{nanos:09d}"
    if isinstance(v, dt.datetime):
        return v.isoformat(timespec="microseconds")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, bytes):
        return v.hex()
    return v


def fastavro_manifest(path: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        meta = {k: v.decode() if isinstance(v, bytes) else v for k, v in r.metadata.items() if not k.startswith("avro.")}
        recs = list(r)
        data_file_type = next(f for f in r.writer_schema["fields"] if f["name"] == "data_file")["type"]
        avro_part = next(f for f in data_file_type["fields"] if f["name"] == "partition")["type"]
        part_types = {f["name"]: f["type"] for f in avro_part["fields"]}
    out = []
    for rec in recs:
        e = dict(rec)
        df = dict(e.pop("data_file"))
        df.pop("block_size_in_bytes", None)
        df["partition"] = {}
        raw_part = rec["data_file"]["partition"]
        spec = json.loads(meta["partition-spec"])
        for pf in spec:
            df["partition"][str(pf["field-id"])] = _fa_value(part_types[pf["name"]], raw_part[pf["name"]])
        for k in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts"):
            if df.get(k) is not None:
                df[k] = {str(kv["key"]): kv["value"] for kv in df[k]}
        for k in ("lower_bounds", "upper_bounds"):
            if df.get(k) is not None:
                df[k] = {str(kv["key"]): kv["value"].hex() for kv in df[k]}
        if df.get("key_metadata") is not None:
            df["key_metadata"] = df["key_metadata"].hex()
        e["data_file"] = df
        out.append(e)
    return meta, out


def fastavro_list(path: Path) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        recs = list(fastavro.reader(f))
    for r in recs:
        for s in r.get("partitions") or []:
            for k in ("lower_bound", "upper_bound"):
                if s.get(k) is not None:
                    s[k] = s[k].hex()
        if r.get("key_metadata") is not None:
            r["key_metadata"] = r["key_metadata"].hex()
    return recs


def _normal(doc: Any) -> Any:
    """Date partition values come back as dates; timestamps none here. Compare as JSON."""
    return json.loads(json.dumps(doc, sort_keys=True))


# --- invalid files --------------------------------------------------------------------------------

def _strip_ids(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip_ids(s) for s in schema]
    if isinstance(schema, dict):
        return {k: _strip_ids(v) for k, v in schema.items() if k not in ("field-id", "element-id", "key-id", "value-id")}
    return schema


def _raw_write(path: Path, schema: Any, records: list[dict[str, Any]], meta: dict[str, str]) -> None:
    buf = io.BytesIO()
    ref_avro.write_container(buf, schema, records, meta)
    path.write_bytes(buf.getvalue())


def _null_partition_fields(schema: Any) -> Any:
    out = copy.deepcopy(schema)
    dfs = next(f for f in out["fields"] if f["name"] == "data_file")["type"]
    part = next(f for f in dfs["fields"] if f["name"] == "partition")["type"]
    part["fields"] = None
    return out


def _replace_schema(path: Path, schema: Any) -> None:
    """Rewrite ``path`` with ``schema`` as its header's avro.schema, the data blocks unchanged."""
    data = path.read_bytes()
    header, body_at = ref_avro._read_header(data)
    header["avro.schema"] = json.dumps(schema, separators=(",", ":")).encode()
    out = bytearray(ref_avro.MAGIC) + ref_avro._zigzag(len(header))
    for k, v in header.items():
        out += ref_avro._avro_bytes(k.encode()) + ref_avro._avro_bytes(v)
    out += ref_avro._zigzag(0) + data[body_at:]
    path.write_bytes(bytes(out))


def _list_records(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for mf in doc["manifests"]:
        r = dict(mf)
        r["partitions"] = [{k: (bytes.fromhex(v) if k.endswith("bound") and v is not None else v) for k, v in s.items()}
                           for s in mf["partitions"]]
        out.append(r)
    return out


def invalid(goldens: dict[str, dict[str, Any]], lengths: dict[str, int]) -> dict[str, str]:
    """Write the invalid manifests; returns {file stem: how it is broken}."""
    made: dict[str, str] = {}
    base = goldens["v2-data"]
    ptype = ref_manifests.partition_type(SPEC, ref_types.parse_type(SCHEMA))  # type: ignore[arg-type]
    schema = ref_manifests.manifest_avro_schema(2, ptype)
    records = [ref_manifests.encode_entry(e, 2, ptype) for e in base["entries"]]

    _raw_write(FILES / "invalid-v2-no-field-ids.avro", _strip_ids(schema), records, base["metadata"])
    made["invalid-v2-no-field-ids"] = "the Avro schema has no field-id/element-id properties"

    meta = dict(base["metadata"])
    del meta["partition-spec-id"]
    _raw_write(FILES / "invalid-v2-no-partition-spec-id.avro", schema, records, meta)
    made["invalid-v2-no-partition-spec-id"] = "v2 header lacks partition-spec-id"

    meta = dict(base["metadata"])
    del meta["schema"]
    _raw_write(FILES / "invalid-v2-no-schema.avro", schema, records, meta)
    made["invalid-v2-no-schema"] = "header lacks schema"

    meta = dict(base["metadata"])
    meta["content"] = "inserts"
    _raw_write(FILES / "invalid-v2-content-key.avro", schema, records, meta)
    made["invalid-v2-content-key"] = "header content is neither data nor deletes"

    bad = copy.deepcopy(records)
    bad[0]["status"] = 3
    _raw_write(FILES / "invalid-v2-status.avro", schema, bad, base["metadata"])
    made["invalid-v2-status"] = "an entry has status 3"

    bad = copy.deepcopy(records)
    bad[1]["sequence_number"] = None
    _raw_write(FILES / "invalid-v2-existing-null-seq.avro", schema, bad, base["metadata"])
    made["invalid-v2-existing-null-seq"] = "an EXISTING entry has a null sequence_number"

    nofile = copy.deepcopy(schema)
    df = next(f for f in nofile["fields"] if f["name"] == "data_file")
    df["type"]["fields"] = [f for f in df["type"]["fields"] if f["name"] != "record_count"]
    bad = copy.deepcopy(records)
    for r in bad:
        del r["data_file"]["record_count"]
    _raw_write(FILES / "invalid-v2-no-record-count.avro", nofile, bad, base["metadata"])
    made["invalid-v2-no-record-count"] = "data_file lacks required field 103 record_count"

    bad = copy.deepcopy(records)
    bad[0]["data_file"]["lower_bounds"] = [{"key": 1, "value": struct.pack("<q", 1)[:4] + b"\x00\x00"}]
    _raw_write(FILES / "invalid-v2-bound-width.avro", schema, bad, base["metadata"])
    made["invalid-v2-bound-width"] = "a long column's lower bound is 6 bytes"

    bad = copy.deepcopy(records)
    bad[0]["data_file"]["lower_bounds"] = [{"key": 1, "value": struct.pack("<q", 9)}]
    _raw_write(FILES / "invalid-v2-bounds-order.avro", schema, bad, base["metadata"])
    made["invalid-v2-bounds-order"] = "lower bound 9 above upper bound 3"

    dels = goldens["v2-deletes"]
    dschema = ref_manifests.manifest_avro_schema(2, ptype)
    drecs = [ref_manifests.encode_entry(e, 2, ptype) for e in dels["entries"]]
    drecs[1]["data_file"]["equality_ids"] = None
    _raw_write(FILES / "invalid-v2-eq-delete-no-ids.avro", dschema, drecs, dels["metadata"])
    made["invalid-v2-eq-delete-no-ids"] = "an equality delete file without equality_ids"

    meta = dict(base["metadata"])
    meta["content"] = "deletes"
    _raw_write(FILES / "invalid-v2-data-in-delete-manifest.avro", schema, records, meta)
    made["invalid-v2-data-in-delete-manifest"] = "a delete manifest lists data files"

    v3 = goldens["v3-deletes"]
    v3schema = ref_manifests.manifest_avro_schema(3, ptype)
    v3recs = [ref_manifests.encode_entry(e, 3, ptype) for e in v3["entries"]]
    v3recs[0]["data_file"]["referenced_data_file"] = None
    _raw_write(FILES / "invalid-v3-dv-fields.avro", v3schema, v3recs, v3["metadata"])
    made["invalid-v3-dv-fields"] = "a deletion vector entry lacks referenced_data_file"

    lists = manifest_lists(lengths)
    l2 = lists["v2-list"]
    lschema = ref_manifests.manifest_list_avro_schema(2)
    buf = io.BytesIO()
    ref_manifests.write_manifest_list  # records below use the writer's field names
    lrecs = _list_records(l2)
    _raw_write(FILES / "invalid-v2-list-no-field-ids.avro", _strip_ids(lschema), lrecs, l2["metadata"])
    made["invalid-v2-list-no-field-ids"] = "manifest list schema without field ids"
    noseq = copy.deepcopy(lschema)
    noseq["fields"] = [f for f in noseq["fields"] if f["name"] != "sequence_number"]
    _raw_write(FILES / "invalid-v2-list-no-sequence-number.avro", noseq,
               [{k: v for k, v in r.items() if k != "sequence_number"} for r in lrecs], l2["metadata"])
    made["invalid-v2-list-no-sequence-number"] = "v2 manifest list without required field 515 sequence_number"
    bad = copy.deepcopy(lrecs)
    bad[0]["content"] = 2
    _raw_write(FILES / "invalid-v2-list-content.avro", lschema, bad, l2["metadata"])
    made["invalid-v2-list-content"] = "a manifest-list entry with content 2"
    nonull = copy.deepcopy(lschema)
    parts = next(f for f in nonull["fields"] if f["name"] == "partitions")
    arr = next(t for t in parts["type"] if isinstance(t, dict)) if isinstance(parts["type"], list) else parts["type"]
    arr["items"]["fields"] = [f for f in arr["items"]["fields"] if f.get("field-id") != 509]
    _raw_write(FILES / "invalid-v2-list-no-contains-null.avro", nonull,
               [dict(r, partitions=[{k: v for k, v in p.items() if k != "contains_null"} for p in r["partitions"]])
                for r in lrecs], l2["metadata"])
    made["invalid-v2-list-no-contains-null"] = "field_summary without required field 509 contains_null"
    # found by tests/fuzz.py (seed 9): a manifest list whose partitions field is an int
    pint = copy.deepcopy(lschema)
    for f in pint["fields"]:
        if f["name"] == "partitions":
            f["type"] = ["null", "int"]
    _raw_write(FILES / "invalid-v2-list-partitions-int.avro", pint,
               [dict(r, partitions=7) for r in lrecs], l2["metadata"])
    made["invalid-v2-list-partitions-int"] = "manifest list whose partitions field 507 is an int"
    _ = buf

    # format versions: no row-level deletes in v1, no deletion vectors before v3; field id 141
    # is reserved on data_file
    bad = [ref_manifests.encode_entry(e, 2, ptype) for e in dels["entries"]]
    bad[0]["data_file"]["file_format"] = "PUFFIN"
    _raw_write(FILES / "invalid-v2-puffin-delete.avro", dschema, bad, dels["metadata"])
    made["invalid-v2-puffin-delete"] = "a v2 delete manifest lists a Puffin position delete file"
    p1 = ref_manifests.partition_type(SPEC_V1, ref_types.parse_type(SCHEMA))  # type: ignore[arg-type]
    v1c = copy.deepcopy(ref_manifests.manifest_avro_schema(1, p1))
    df1 = next(f for f in v1c["fields"] if f["name"] == "data_file")["type"]
    df1["fields"].insert(0, {"name": "content", "type": "int", "field-id": 134})
    r1 = [ref_manifests.encode_entry(e, 1, p1) for e in goldens["v1-data"]["entries"]]
    for r in r1:
        r["data_file"]["content"] = 1
    _raw_write(FILES / "invalid-v1-deletes.avro", v1c, r1, goldens["v1-data"]["metadata"])
    made["invalid-v1-deletes"] = "a v1 manifest whose data_file content is 1 (position deletes)"
    l1 = lists["v1-list"]
    l1schema = copy.deepcopy(ref_manifests.manifest_list_avro_schema(1))
    l1schema["fields"].insert(3, {"name": "content", "type": "int", "field-id": 517})
    _raw_write(FILES / "invalid-v1-list-content.avro", l1schema, [dict(r, content=1) for r in _list_records(l1)],
               l1["metadata"])
    made["invalid-v1-list-content"] = "a v1 manifest list entry with content 1 (deletes)"
    r141 = copy.deepcopy(schema)
    dfs = next(f for f in r141["fields"] if f["name"] == "data_file")["type"]
    dfs["fields"].append({"name": "reserved_141", "type": ["null", "long"], "default": None, "field-id": 141})
    _raw_write(FILES / "invalid-v2-field-141.avro", r141, [dict(r, data_file=dict(r["data_file"], reserved_141=None))
                                                         for r in records], base["metadata"])
    made["invalid-v2-field-141"] = "data_file has a field with the reserved id 141"
    nodef = copy.deepcopy(schema)
    dfn = next(f for f in nodef["fields"] if f["name"] == "data_file")["type"]
    km = next(f for f in dfn["fields"] if f["name"] == "key_metadata")
    km.pop("default", None)
    _raw_write(FILES / "invalid-v2-optional-no-default.avro", nodef, records, base["metadata"])
    made["invalid-v2-optional-no-default"] = "the optional field key_metadata has no Avro default"
    nob = copy.deepcopy(ref_manifests.manifest_avro_schema(1, p1))
    dfb = next(f for f in nob["fields"] if f["name"] == "data_file")["type"]
    dfb["fields"] = [f for f in dfb["fields"] if f.get("field-id") != 105]
    rb = [ref_manifests.encode_entry(e, 1, p1) for e in goldens["v1-data"]["entries"]]
    for r in rb:
        r["data_file"].pop("block_size_in_bytes", None)
    _raw_write(FILES / "invalid-v1-no-block-size.avro", nob, rb, goldens["v1-data"]["metadata"])
    made["invalid-v1-no-block-size"] = "a v1 data_file without block_size_in_bytes (105)"

    # hostile inputs found by tests/fuzz.py: header JSON of the wrong shape or depth, an Avro
    # schema whose record fields are null, a decimal without precision
    meta = dict(base["metadata"], **{"partition-spec": "[1, 2]"})
    _raw_write(FILES / "invalid-v2-partition-spec-shape.avro", schema, records, meta)
    made["invalid-v2-partition-spec-shape"] = "header partition-spec is [1, 2], not partition field objects"
    meta = dict(base["metadata"], **{"partition-spec": "[" * 10000 + "]" * 10000})
    _raw_write(FILES / "invalid-v2-partition-spec-deep.avro", schema, records, meta)
    made["invalid-v2-partition-spec-deep"] = "header partition-spec nested 10,000 arrays deep"
    dec = copy.deepcopy(schema)
    dfs = next(f for f in dec["fields"] if f["name"] == "data_file")["type"]
    km = next(f for f in dfs["fields"] if f["name"] == "key_metadata")
    km["type"] = ["null", {"type": "bytes", "logicalType": "decimal", "scale": 2}]
    _raw_write(FILES / "invalid-v2-decimal-no-precision.avro", dec, records, base["metadata"])
    made["invalid-v2-decimal-no-precision"] = "key_metadata typed as a decimal without precision"
    _raw_write(FILES / "invalid-v2-fields-null.avro", schema, records, base["metadata"])
    _replace_schema(FILES / "invalid-v2-fields-null.avro", _null_partition_fields(schema))
    made["invalid-v2-fields-null"] = "the partition record's fields is null in avro.schema"
    meta = dict(base["metadata"], **{"partition-spec-id": "9" * 5000})
    _raw_write(FILES / "invalid-v2-partition-spec-id-huge.avro", schema, records, meta)
    made["invalid-v2-partition-spec-id-huge"] = "header partition-spec-id of 5,000 digits"

    # v1 as the seed described it: optional 106 file_ordinal, 107 sort_columns, 111 distinct_counts
    # written (all deprecated now). Valid: readers ignore them; decodes like v1-data.
    v1 = goldens["v1-data"]
    p1 = ref_manifests.partition_type(SPEC_V1, ref_types.parse_type(SCHEMA))  # type: ignore[arg-type]
    s1 = ref_manifests.manifest_avro_schema(1, p1)
    df1 = next(f for f in s1["fields"] if f["name"] == "data_file")["type"]
    at = next(i for i, f in enumerate(df1["fields"]) if f["name"] == "column_sizes")
    df1["fields"][at:at] = [
        {"name": "file_ordinal", "type": ["null", "int"], "default": None, "field-id": 106},
        {"name": "sort_columns", "type": ["null", {"type": "array", "items": "int", "element-id": 112}],
         "default": None, "field-id": 107},
    ]
    at = next(i for i, f in enumerate(df1["fields"]) if f["name"] == "lower_bounds")
    df1["fields"][at:at] = [{"name": "distinct_counts", "type": ["null", {"type": "array", "logicalType": "map",
        "items": {"type": "record", "name": "k123_v124", "fields": [{"name": "key", "type": "int", "field-id": 123},
                                                                   {"name": "value", "type": "long", "field-id": 124}]}}],
        "default": None, "field-id": 111}]
    r1 = [ref_manifests.encode_entry(e, 1, p1) for e in v1["entries"]]
    for i, r in enumerate(r1):
        r["data_file"].update({"file_ordinal": i, "sort_columns": [1], "distinct_counts": [{"key": 1, "value": 3}]})
    _raw_write(FILES / "v1-data-seed-fields.avro", s1, r1, v1["metadata"])

    # v1 without the data_file fields that are optional in v1 and v2 (metrics maps, key_metadata,
    # split_offsets, sort_order_id): valid, a reader reads them as optional, i.e. null
    absent = {108: "column_sizes", 109: "value_counts", 110: "null_value_counts", 137: "nan_value_counts",
              125: "lower_bounds", 128: "upper_bounds", 131: "key_metadata", 132: "split_offsets",
              140: "sort_order_id"}
    s0 = copy.deepcopy(ref_manifests.manifest_avro_schema(1, p1))
    df0 = next(f for f in s0["fields"] if f["name"] == "data_file")["type"]
    df0["fields"] = [f for f in df0["fields"] if f.get("field-id") not in absent]
    r0 = [ref_manifests.encode_entry(e, 1, p1) for e in v1["entries"]]
    for r in r0:
        for name in absent.values():
            r["data_file"].pop(name, None)
    _raw_write(FILES / "v1-data-no-optional.avro", s0, r0, v1["metadata"])
    side = copy.deepcopy(v1)
    for e in side["entries"]:
        e["data_file"].update(dict.fromkeys(absent.values()))
    (FILES / "v1-data-no-optional.sidecar.json").write_text(json.dumps(side, indent=1) + "\n")

    # the same v2 manifest with the deflate codec (what Java writes by default)
    buf = io.BytesIO()
    ref_avro.write_container(buf, schema, records, base["metadata"], codec="deflate")
    (FILES / "v2-data-deflate.avro").write_bytes(buf.getvalue())

    # renamed records and fields, ids kept: valid, must decode like v2-data
    renamed = json.loads(json.dumps(schema).replace('"manifest_entry"', '"entry"').replace('"r2"', '"DataFile"')
                         .replace('"r102"', '"Partition"'))
    for f in renamed["fields"]:
        f["name"] = "x_" + f["name"]
    ren_recs = [{"x_" + k: v for k, v in r.items()} for r in records]
    _raw_write(FILES / "v2-data-renamed.avro", renamed, ren_recs, base["metadata"])
    return made


def main() -> None:
    FILES.mkdir(exist_ok=True)
    lengths: dict[str, int] = {}
    goldens = manifests()
    for stem, doc in goldens.items():
        path = FILES / f"{stem}.avro"
        lengths[stem] = ref_manifests.write_manifest(str(path), doc)
        (FILES / f"{stem}.sidecar.json").write_text(json.dumps(doc, indent=1) + "\n")
        meta, entries = fastavro_manifest(path)
        assert meta == doc["metadata"], (stem, meta)
        got, want = _normal(entries), _normal(doc["entries"])
        assert got == want, (stem, json.dumps(got)[:2000], json.dumps(want)[:2000])
    for stem, doc in manifest_lists(lengths).items():
        path = FILES / f"{stem}.avro"
        ref_manifests.write_manifest_list(str(path), doc)
        (FILES / f"{stem}.sidecar.json").write_text(json.dumps(doc, indent=1) + "\n")
        got = _normal(fastavro_list(path))
        assert got == _normal(doc["manifests"]), (stem, got)
    for stem, what in invalid(goldens, lengths).items():
        print(f"invalid {stem}: {what}")
    print("ok:", ", ".join(sorted(goldens)))


if __name__ == "__main__":
    main()
