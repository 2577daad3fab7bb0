"""Damage cases of bugs that shipped: the manifests, data files and delete files real writers wrote.

Each case writes into a valid table exactly the defect one record of the bug corpus
(``bugs/corpus``) describes, in the concrete shape the implementation wrote it (a bound cut
mid-code point, a timestamp bound truncated to milliseconds, a header holding the wrong schema, a
commit that re-adds a live file ...), and keeps every other recorded value consistent with it: the
overlay re-stamps sizes, lengths and counts (:mod:`.overlay`), and a case that moves a partition
value rewrites the partition summaries of the manifest lists naming the manifest. A case is named
after its record id and registered with ``bug=<record id>``; the record's ``reproduce.rule`` is
the case's rule.
"""

from __future__ import annotations

import copy
import datetime
import io
import json
import os
import random
import struct
import uuid
from decimal import Decimal
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage import data_file as generic_data
from iceberg_conformance.checker.damage import delete_file as generic_deletes
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import (
    damage, data_entries, dv_targets, dvs, equality_deletes, is_dv, pick, schemas,
)
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.rewrite import AvroFile
from iceberg_conformance.reference import variant
from iceberg_conformance.reference.avro import from_avro
from iceberg_conformance.reference.binary import from_bytes, is_minimal_decimal, to_bytes
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.manifests import manifest_entry_type
from iceberg_conformance.reference.metadata import parse_schema, spec_by_id
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.types import (
    DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, ListType, LongType, MapType,
    StringType, StructType, TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, UUIDType,
    VariantType, type_to_json,
)

Entry = tuple[str, int, dict[str, Any]]
EPOCH_DAY = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


# --- what a table holds ---------------------------------------------------------------------------

def _current(o: Overlay) -> StructType | None:
    cur = next((s for s in schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
    if cur is None:
        return None
    t = parse_schema(cur)
    return t if isinstance(t, StructType) else None


def _types(o: Overlay, *, top_level: bool = False) -> dict[int, IcebergType]:
    """Field id -> type of every primitive field of the current schema (reached through structs
    only; ``top_level``: the schema's own fields only)."""
    schema = _current(o)
    if schema is None:
        return {}
    return {fid: info.field_type for fid, info in walk(schema)
            if info.through_structs and not isinstance(info.field_type, (StructType, ListType, MapType))
            and (not top_level or len(info.ids) == 1)}


def _partition_sources(o: Overlay) -> set[int]:
    out: set[int] = set()
    for spec in spec_by_id(o.doc).values():
        for f in spec.get("fields") or []:
            out.update(int(x) for x in (f.get("source-ids") or [f.get("source-id")]) if isinstance(x, int))
    return out


def _spec_of(o: Overlay, manifest: str) -> dict[str, Any]:
    rec = o.list_record_for(manifest) or {}
    return spec_by_id(o.doc).get(int(rec.get("partition_spec_id") or 0)) or {"fields": []}


def _partition_record(avro: AvroFile) -> dict[str, Any]:
    """The Avro record of the ``data_file.partition`` struct of a manifest's schema."""
    df = next(f for f in avro.schema["fields"] if f.get("field-id") == 2)
    rec = df["type"] if isinstance(df["type"], dict) else next(t for t in df["type"] if isinstance(t, dict))
    part = next(f for f in rec["fields"] if f.get("field-id") == 102)
    t = part["type"]
    return t if isinstance(t, dict) else next(x for x in t if isinstance(x, dict))


def _partition_fields(o: Overlay, manifest: str) -> list[tuple[str, int, IcebergType]]:
    """(Avro name, field id, type) of each field of a manifest's partition tuple, as written."""
    rec = _partition_record(o.manifest(manifest))
    ptype = from_avro(rec, where="partition")
    assert isinstance(ptype, StructType)
    return [(f["name"], int(f["field-id"]), pf.field_type) for f, pf in zip(rec["fields"], ptype.fields)]


def _value(t: IcebergType, v: Any) -> Any:
    """A value as fastavro decodes it, in the reference's form (days, micros, ``Decimal`` ...)."""
    if v is None:
        return None
    if isinstance(v, datetime.datetime):
        aware = v if v.tzinfo is not None else v.replace(tzinfo=datetime.timezone.utc)
        micros = (aware - EPOCH) // datetime.timedelta(microseconds=1)
        return micros * 1000 if isinstance(t, (TimestampNanoType, TimestamptzNanoType)) else micros
    if isinstance(v, datetime.date):
        return (v - EPOCH_DAY).days
    if isinstance(t, UUIDType) and isinstance(v, (bytes, str)):
        return uuid.UUID(bytes=v) if isinstance(v, bytes) else uuid.UUID(v)
    return v


def _summaries(o: Overlay, manifest: str) -> list[dict[str, Any]]:
    """Partition field summaries covering every entry of a manifest (as the lists hold them)."""
    records = o.manifest(manifest).records
    out = []
    for name, _fid, t in _partition_fields(o, manifest):
        values = [_value(t, (r["data_file"].get("partition") or {}).get(name)) for r in records]
        real = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
        key: Callable[[Any], Any] = (lambda v: v.bytes) if isinstance(t, UUIDType) else (lambda v: v)
        out.append({"contains_null": any(v is None for v in values),
                    "contains_nan": any(isinstance(v, float) and v != v for v in values)
                    if isinstance(t, (FloatType, DoubleType)) else False,
                    "lower_bound": to_bytes(t, min(real, key=key)) if real else None,
                    "upper_bound": to_bytes(t, max(real, key=key)) if real else None})
    return out


def _resummarize(o: Overlay, manifest: str) -> None:
    """Rewrite the partition summaries of every manifest-list record naming ``manifest``."""
    summaries = _summaries(o, manifest)
    for _snap, list_path, _i, rec in o.list_records():
        if rec["manifest_path"] == manifest and rec.get("partitions") is not None:
            for old, new in zip(rec["partitions"], summaries):
                old.update({k: v for k, v in new.items() if k in old or k != "contains_nan"})
            o.touch_list(list_path)


def _bound(df: dict[str, Any], which: str, fid: int) -> dict[str, Any] | None:
    return next((x for x in df.get(which) or [] if int(x["key"]) == fid), None)


def _set_bound(df: dict[str, Any], which: str, fid: int, value: bytes) -> None:
    item = _bound(df, which, fid)
    if item is not None:
        item["value"] = value
    else:
        df[which] = list(df.get(which) or []) + [{"key": fid, "value": value}]


def _bounds_of(o: Overlay, which: str, accept: Callable[[IcebergType], bool]
               ) -> list[tuple[str, int, dict[str, Any], dict[str, Any], IcebergType]]:
    """(manifest, index, entry, bound item, column type) of the live data files' bounds of the
    columns whose type ``accept`` takes (decodable at the type's width)."""
    types = _types(o)
    out = []
    for p, i, e in data_entries(o) if not _mapped(o) else []:
        for item in e["data_file"].get(which) or []:
            t = types.get(int(item["key"]))
            if t is None or not accept(t):
                continue
            try:
                from_bytes(t, item["value"])
            except Exception:  # noqa: BLE001 - a bound written before a promotion: not a victim
                continue
            out.append((p, i, e, item, t))
    return out


def _parquet_data(o: Overlay) -> list[Entry]:
    targets = dv_targets(o)
    return data_entries(o, where=lambda e: str(e["data_file"].get("file_format")).upper() == "PARQUET"
                        and e["data_file"]["file_path"] not in targets)


def _mapped(o: Overlay) -> bool:
    """Whether the table has a name mapping: its data files may have no field ids, and the
    checker compares the metrics of a file only with columns it finds by field id."""
    return "schema.name-mapping.default" in (o.doc.get("properties") or {})


def _deleted_from(o: Overlay) -> set[str]:
    """Data files a delete file names (deletion vectors' and position deletes' referenced files,
    and every data file of a partition that holds position deletes): moving such a file to
    another partition would also detach its deletes."""
    out = set(dv_targets(o))
    scoped = {(json.dumps(e["data_file"].get("partition") or {}, sort_keys=True, default=str))
              for _p, _i, e in o.entries() if int(e["data_file"].get("content") or 0) == 1}
    for _p, _i, e in o.entries():
        if json.dumps(e["data_file"].get("partition") or {}, sort_keys=True, default=str) in scoped:
            out.add(str(e["data_file"]["file_path"]))
    return out


def _read(path: str) -> Any:
    return pq.read_table(local_path(path) or path)


def _column_of(table: Any, fid: int) -> int | None:
    """The index of the top-level column of an Arrow table read from Parquet with field id ``fid``."""
    for i, f in enumerate(table.schema):
        if (f.metadata or {}).get(b"PARQUET:field_id") == str(fid).encode():
            return i
    return None


def _written(table: Any, row_groups: list[int] | None = None) -> bytes:
    """A Parquet file of ``table`` (field ids kept), in the given row group sizes."""
    buf = io.BytesIO()
    if not row_groups:
        pq.write_table(table, buf)
        return buf.getvalue()
    with pq.ParquetWriter(buf, table.schema) as w:
        start = 0
        for n in row_groups:
            w.write_table(table.slice(start, n))
            start += n
    return buf.getvalue()


def _split_offsets(data: bytes) -> list[int]:
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    out = []
    for rg in range(meta.num_row_groups):
        cols = [meta.row_group(rg).column(c) for c in range(meta.row_group(rg).num_columns)]
        out.append(min(c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset for c in cols))
    return out


def _restamp(o: Overlay, path: str, data: bytes, keep_recorded_size: bool = False) -> None:
    """Copy a content file and keep the split offsets of its entries true to the copy."""
    o.copy_file(path, data, keep_recorded_size)
    offsets = _split_offsets(data)
    for p, _i, e in o.entries():
        df = e["data_file"]
        if df["file_path"] == path and df.get("split_offsets") is not None:
            df["split_offsets"] = offsets
            o.touch_manifest(p)


def _plain(t: IcebergType, v: Any) -> Any:
    """A value pyarrow returns (``to_pylist``) in the reference's form."""
    if isinstance(v, datetime.datetime):
        return _value(t, v)
    if isinstance(v, datetime.date):
        return (v - EPOCH_DAY).days
    if isinstance(t, UUIDType) and isinstance(v, bytes):
        return uuid.UUID(bytes=v)
    return v


def _orderable(t: IcebergType) -> bool:
    return isinstance(t, (IntegerType, LongType, DateType, TimestampType, TimestamptzType, StringType,
                          DecimalType, FloatType, DoubleType))


# --- commits a buggy writer made -----------------------------------------------------------------

def _new_avro(template: AvroFile, path: str, records: list[dict[str, Any]]) -> AvroFile:
    return AvroFile(path, copy.deepcopy(template.schema), dict(template.meta), template.codec, records)


def _commit(o: Overlay, operation: str, manifests: list[tuple[str, AvroFile, dict[str, Any]]],
            drop: set[str], totals: dict[str, int]) -> dict[str, Any] | None:
    """Commit a new snapshot on top of the current one, as a writer would: ``manifests`` are the
    new manifests (path, file, list-record template), listed first; ``drop`` the manifests of the
    current snapshot the new one no longer lists; ``totals`` what the summary's totals change by.
    Sequence number, row ids (v3: the new data manifests' ``first_row_id`` from ``next-row-id``,
    for every entry without one), snapshot log and refs follow. Returns the new snapshot."""
    doc = o.doc
    cur_id = doc.get("current-snapshot-id")
    cur = next((s for s in o.snapshots() if s.get("snapshot-id") == cur_id), None)
    if cur is None:
        return None
    cur_list = o.manifest_list(cur)
    if cur_list is None:
        return None
    sid = max(int(s["snapshot-id"]) for s in o.snapshots()) + 1
    seq = int(doc.get("last-sequence-number") or 0) + 1
    ts = int(doc.get("last-updated-ms") or cur.get("timestamp-ms") or 0) + 1
    next_row = doc.get("next-row-id") if o.version >= 3 else None
    first_row = next_row
    records = []
    for path, avro, template in manifests:
        o.add_manifest(path, avro)
        for r in avro.records:  # v1 entries carry their snapshot id (required)
            if o.version == 1 and r.get("snapshot_id") is None:
                r["snapshot_id"] = sid
        rec = copy.deepcopy(template)
        rec["manifest_path"] = path
        rec["added_snapshot_id"] = sid
        if "sequence_number" in rec:
            rec["sequence_number"] = seq
            live = [int(r["sequence_number"]) if r.get("sequence_number") is not None else seq
                    for r in avro.records if r["status"] in (0, 1)]
            rec["min_sequence_number"] = min(live, default=seq)
        for key in ("added_files_count", "existing_files_count", "deleted_files_count", "added_rows_count",
                    "existing_rows_count", "deleted_rows_count"):
            if key in rec:
                rec[key] = 0  # counted from the entries when the manifest is written
        if "first_row_id" in rec:
            rec["first_row_id"] = None
            if isinstance(next_row, int) and int(rec.get("content") or 0) == 0:
                rec["first_row_id"] = next_row
                next_row += sum(int(r["data_file"]["record_count"]) for r in avro.records
                                if r["status"] in (0, 1) and r["data_file"].get("first_row_id") is None)
        records.append(rec)
    kept = [copy.deepcopy(r) for r in cur_list.records if r["manifest_path"] not in drop]
    list_path = os.path.join(os.path.dirname(local_path(str(cur["manifest-list"])) or str(cur["manifest-list"])),
                             f"snap-{sid}.avro")
    meta = dict(cur_list.meta)
    meta.update({"snapshot-id": str(sid), "parent-snapshot-id": str(cur_id)})
    if "sequence-number" in meta:
        meta["sequence-number"] = str(seq)
    if "first-row-id" in meta and isinstance(first_row, int):
        meta["first-row-id"] = str(first_row)
    o.add_manifest_list(list_path, AvroFile(list_path, copy.deepcopy(cur_list.schema), meta, cur_list.codec,
                                            records + kept))
    summary: dict[str, Any] = {"operation": operation}
    for key, value in (cur.get("summary") or {}).items():
        if key.startswith("total-") and str(value).isdigit():
            summary[key] = str(int(value) + totals.get(key, 0))
    snap: dict[str, Any] = {"snapshot-id": sid, "parent-snapshot-id": cur_id, "timestamp-ms": ts,
                            "manifest-list": list_path, "summary": summary}
    if "schema-id" in cur:
        snap["schema-id"] = cur["schema-id"]
    if o.version >= 2:
        snap["sequence-number"] = seq
        doc["last-sequence-number"] = seq
    if isinstance(first_row, int) and isinstance(next_row, int):
        snap["first-row-id"] = first_row
        snap["added-rows"] = next_row - first_row
        doc["next-row-id"] = next_row
    doc["snapshots"].append(snap)
    doc["current-snapshot-id"] = sid
    doc["last-updated-ms"] = ts
    if isinstance(doc.get("refs"), dict) and isinstance(doc["refs"].get("main"), dict):
        doc["refs"]["main"]["snapshot-id"] = sid
    if isinstance(doc.get("snapshot-log"), list):
        doc["snapshot-log"].append({"timestamp-ms": ts, "snapshot-id": sid})
    return snap


def _current_records(o: Overlay) -> list[dict[str, Any]]:
    cur = next((s for s in o.snapshots() if s.get("snapshot-id") == o.doc.get("current-snapshot-id")), None)
    lst = o.manifest_list(cur) if cur is not None else None
    return list(lst.records) if lst is not None else []


def _current_entries(o: Overlay) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
    """(manifest-list record, index, entry) of the live entries of the current snapshot."""
    out = []
    for rec in _current_records(o):
        for i, e in enumerate(o.manifest(str(rec["manifest_path"])).records):
            if e.get("status") in (0, 1):
                out.append((rec, i, e))
    return out


def _merged(o: Overlay, rec: dict[str, Any], victim: int) -> list[dict[str, Any]]:
    """The live entries of the manifest ``rec`` names, as a merge writes them into a new manifest:
    EXISTING (:func:`_inherited`), the entry at index ``victim`` DELETED."""
    out = []
    for j, e in enumerate(o.manifest(str(rec["manifest_path"])).records):
        if e.get("status") in (0, 1):
            out.append(dict(_inherited(e, rec), status=2) if j == victim else _inherited(e, rec))
    return out


def _inherited(e: dict[str, Any], rec: dict[str, Any]) -> dict[str, Any]:
    """The entry written as EXISTING into a new manifest: snapshot id and sequence numbers
    explicit (inherited from the record that listed it where null)."""
    out = copy.deepcopy(e)
    out["status"] = 0
    if out.get("snapshot_id") is None:
        out["snapshot_id"] = rec.get("added_snapshot_id")
    for key in ("sequence_number", "file_sequence_number"):
        if key in out and out[key] is None:
            out[key] = rec.get("sequence_number")
    return out


# --- manifests ------------------------------------------------------------------------------------

@damage("data.partition-value", "manifest",
        "a month(ts) partition value written as the month of the year (1..12), not months since 1970-01",
        name="beam-35417-month-partition-value", bug="beam-35417-month-partition-value")
def _beam_month(o: Overlay, rng: random.Random) -> str | None:
    if _mapped(o):
        return None
    kept = _deleted_from(o)
    cands = []
    for p in o.manifest_paths():
        months = {f["field-id"] for f in _spec_of(o, p).get("fields") or [] if f.get("transform") == "month"}
        for name, fid, _t in _partition_fields(o, p) if months else []:
            if fid not in months:
                continue
            for i, e in enumerate(o.manifest(p).records):
                v = (e["data_file"].get("partition") or {}).get(name)
                if e.get("status") != 2 and int(e["data_file"].get("content") or 0) == 0 \
                        and isinstance(v, int) and v % 12 + 1 != v and e["data_file"]["file_path"] not in kept:
                    cands.append((p, i, e, name, v))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, name, v = c
    e["data_file"]["partition"][name] = v % 12 + 1
    o.touch_manifest(p)
    _resummarize(o, p)
    return (f"{os.path.basename(p)} entries[{i}] partition {name} set to {v % 12 + 1} (the month of the year) "
            f"instead of {v} (months since 1970-01); partition summaries rewritten to cover it")


@damage("manifests.sequence-number-changed", "manifest",
        "an EXISTING entry rewritten with the file sequence number of the manifest it was copied from",
        name="clickhouse-116056-optimize-manifest-file-sequence-number",
        bug="clickhouse-116056-optimize-manifest-file-sequence-number")
def _clickhouse_existing_fseq(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    seqs: dict[str, int] = {}
    for _s, _l, _i, rec in o.list_records():
        seqs.setdefault(str(rec["manifest_path"]), int(rec.get("sequence_number") or 0))
    listing: dict[str, set[str]] = {}
    for p, _i, e in o.entries():
        listing.setdefault(str(e["data_file"]["file_path"]), set()).add(p)
    cands = []
    for p, i, e in o.entries():
        f = e.get("file_sequence_number")
        path = str(e["data_file"]["file_path"])
        if e.get("status") != 0 or not isinstance(f, int) or len(listing[path]) < 2 or not o.has_field(
                p, "file_sequence_number"):
            continue
        sources = sorted((seqs.get(q, 0) for q in listing[path] if q != p and f < seqs.get(q, 0) <= seqs[p]),
                         reverse=True)
        source = sources[0] if sources else seqs[p] if f < seqs[p] else None
        if source is not None:
            cands.append((p, i, e, source))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, source = c
    old = e["file_sequence_number"]
    e["file_sequence_number"] = source
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] (EXISTING) file_sequence_number {old} replaced by {source}, "
            "the sequence number of the manifest it was copied from")


@damage("data.upper-bound", "manifest", "an upper bound computed wrongly: below the column's largest value",
        name="clickhouse-91589-minmax-written-wrong-25-8", bug="clickhouse-91589-minmax-written-wrong-25-8")
def _clickhouse_minmax(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p, i, e, hi, t in _bounds_of(o, "upper_bounds", lambda t: isinstance(t, (IntegerType, LongType))):
        lo = _bound(e["data_file"], "lower_bounds", int(hi["key"]))
        if lo is not None and len(lo["value"]) == len(hi["value"]) and from_bytes(t, lo["value"]) < from_bytes(
                t, hi["value"]):
            cands.append((p, i, e, lo, hi, t))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, hi, t = c
    a, b = from_bytes(t, lo["value"]), from_bytes(t, hi["value"])
    hi["value"] = to_bytes(t, a + (b - a) // 2)
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] upper bound of column {hi['key']} set to {a + (b - a) // 2} (max {b})"


@damage("data.upper-bound", "manifest", "a timestamp upper bound truncated down to milliseconds (Delta stats)",
        name="delta-uniform-7444-timestamp-upper-bound-truncated-ms",
        bug="delta-uniform-7444-timestamp-upper-bound-truncated-ms")
def _uniform_ms(o: Overlay, rng: random.Random) -> str | None:
    def fits(c: tuple[str, int, dict[str, Any], dict[str, Any], IcebergType]) -> bool:
        v = from_bytes(c[4], c[3]["value"])
        lo = _bound(c[2]["data_file"], "lower_bounds", int(c[3]["key"]))
        return bool(v % 1000) and (lo is None or len(lo["value"]) != 8 or from_bytes(c[4], lo["value"]) <= v - v % 1000)
    cands = [c for c in _bounds_of(o, "upper_bounds", lambda t: isinstance(t, (TimestampType, TimestamptzType)))
             if fits(c)]
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, hi, t = c
    v = from_bytes(t, hi["value"])
    hi["value"] = to_bytes(t, v - v % 1000)
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] upper bound of column {hi['key']} truncated from {v} to "
            f"{v - v % 1000} us")


@damage("manifests.bound-decode", "manifest", "a string lower bound cut at a byte boundary inside a code point",
        also=("data.bound-undecodable",),  # the data-file unit cannot decode the bound either
        name="duckdb-iceberg-1136-lower-bound-truncated-mid-codepoint",
        bug="duckdb-iceberg-1136-lower-bound-truncated-mid-codepoint")
def _duckdb_mid_codepoint(o: Overlay, rng: random.Random) -> str | None:
    def cut(b: bytes) -> int | None:
        inside = [k for k in range(1, len(b)) if b[k] & 0xC0 == 0x80]  # a continuation byte starts here
        return 16 if 16 in inside else (inside[0] if inside else None)
    cands = [c for c in _bounds_of(o, "lower_bounds", lambda t: isinstance(t, StringType))
             if cut(c[3]["value"]) is not None]
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, _t = c
    k = cut(lo["value"])
    assert k is not None
    lo["value"] = lo["value"][:k]
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] lower bound of column {lo['key']} cut to its first {k} bytes "
            f"({lo['value'].hex()})")


@damage("manifests.header-schema", "manifest",
        "the schema header holds the manifest_entry struct (same schema-id) instead of the table schema",
        name="duckdb-iceberg-799-manifest-header-schema-is-entry-schema",
        bug="duckdb-iceberg-799-manifest-header-schema-is-entry-schema")
def _duckdb_entry_schema(o: Overlay, rng: random.Random) -> str | None:
    p = pick(rng, [m for m in o.manifest_paths() if "schema" in o.manifest(m).meta])
    if p is None:
        return None
    m = o.manifest(p)
    header = json.loads(m.meta["schema"])
    ptype = from_avro(_partition_record(m), where="partition")
    if not isinstance(ptype, StructType):
        return None
    version = int(m.meta.get("format-version", o.version))
    entry = type_to_json(manifest_entry_type(version, ptype))
    assert isinstance(entry, dict)
    sid = header.get("schema-id", int(m.meta.get("schema-id", 0)))
    m.meta["schema"] = json.dumps({"type": "struct", "schema-id": sid, "fields": entry["fields"]})
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: schema header replaced by the manifest_entry struct (schema-id {sid})"


@damage("manifests.partition-type", "manifest", "a bucket partition field written as an Avro string",
        also=("data.partition-value",  # "3" is no int: the partition value is not the transform's result
              "manifests.partition-summary"),  # the summaries hold ints, the tuple now strings
        name="embucket-iceberg-rust-125-bucket-partition-avro-string",
        bug="embucket-iceberg-rust-125-bucket-partition-avro-string")
def _embucket_bucket_string(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p in o.manifest_paths():
        buckets = {f["field-id"] for f in _spec_of(o, p).get("fields") or []
                   if str(f.get("transform", "")).startswith("bucket[")}
        if buckets:
            cands += [(p, name) for name, fid, _t in _partition_fields(o, p) if fid in buckets]
    c = pick(rng, cands)
    if c is None:
        return None
    p, name = c
    m = o.manifest(p)
    field = next(f for f in _partition_record(m)["fields"] if f["name"] == name)
    field["type"] = ["null", "string"]
    field["default"] = None
    for r in m.records:
        part = r["data_file"].get("partition") or {}
        if part.get(name) is not None:
            part[name] = str(part[name])
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: partition field {name} declared [\"null\", \"string\"], its values as strings"


@damage("snapshot.duplicate-file", "manifest", "a commit retried: a new append snapshot re-adds a live data file",
        also=("manifests.sequence-number-changed",  # the file is live at its old and its new sequence number
              "manifests.first-row-id-changed",  # v3: the re-added file inherits other row ids
              "data.added-row-id-null"),  # v3: a file written by a rewrite holds _row_id values, now "appended"
        name="flink-14517-dynamic-sink-duplicate-commit", bug="flink-14517-dynamic-sink-duplicate-commit")
def _flink_duplicate_commit(o: Overlay, rng: random.Random) -> str | None:
    targets = dv_targets(o)
    cands = [(rec, i, e) for rec, i, e in _current_entries(o)
             if int(e["data_file"].get("content") or 0) == 0 and e["data_file"]["file_path"] not in targets]
    c = pick(rng, cands)
    if c is None:
        return None
    rec, i, e = c
    source = o.manifest(str(rec["manifest_path"]))
    again = copy.deepcopy(e)
    again.update({"status": 1, "snapshot_id": None})
    for key in ("sequence_number", "file_sequence_number"):
        if key in again:
            again[key] = None
    if "first_row_id" in again["data_file"]:
        again["data_file"]["first_row_id"] = None
    path = os.path.join(os.path.dirname(str(rec["manifest_path"])), "recommitted-m0.avro")
    rows = int(e["data_file"]["record_count"])
    snap = _commit(o, "append", [(path, _new_avro(source, path, [again]), rec)], set(),
                   {"total-data-files": 1, "total-records": rows})
    if snap is None:
        return None
    snap["summary"].update({"added-data-files": "1", "added-records": str(rows)})
    _resummarize(o, path)
    return (f"snapshot {snap['snapshot-id']} (append) re-adds {os.path.basename(str(e['data_file']['file_path']))}, "
            f"live since {os.path.basename(str(rec['manifest_path']))} entries[{i}]")


@damage("manifests.equality-ids-not-null", "manifest",
        "a data file's unset equality_ids (and split_offsets) written as empty lists, not null",
        name="iceberg-cpp-934-empty-list-map-instead-of-null", bug="iceberg-cpp-934-empty-list-map-instead-of-null")
def _cpp_empty_lists(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, [x for x in data_entries(o, live=False) if o.version >= 2 and o.has_field(x[0], "equality_ids")
                   and x[2]["data_file"].get("equality_ids") is None])
    if c is None:
        return None
    p, i, e = c
    df = e["data_file"]
    df["equality_ids"] = []
    also = ""
    if df.get("split_offsets") is None and o.has_field(p, "split_offsets"):
        df["split_offsets"] = []
        also = " and split_offsets"
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (data file) equality_ids{also} written as [] instead of null"


@damage("manifests.equality-ids-not-null", "manifest", "every data file of a manifest written with equality_ids []",
        name="iceberg-rust-1705-equality-ids-not-null-on-data-files",
        bug="iceberg-rust-1705-equality-ids-not-null-on-data-files")
def _rust_empty_equality_ids(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    p = pick(rng, [m for m in o.manifest_paths() if o.has_field(m, "equality_ids") and any(
        int(r["data_file"].get("content") or 0) == 0 for r in o.manifest(m).records)])
    if p is None:
        return None
    n = 0
    for r in o.manifest(p).records:
        if int(r["data_file"].get("content") or 0) == 0:
            r["data_file"]["equality_ids"] = []
            n += 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: equality_ids of its {n} data file(s) written as [] instead of null"


@damage("files.size", "manifest", "a deletion vector's file_size_in_bytes is the plaintext length, not the file's",
        name="iceberg-java-14645-encrypted-puffin-length", bug="iceberg-java-14645-encrypted-puffin-length")
def _java_encrypted_puffin_length(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, dvs(o))
    if c is None:
        return None
    p, i, e = c
    df = e["data_file"]
    size = os.path.getsize(local_path(str(df["file_path"])) or str(df["file_path"]))
    blocks = max(1, -(-size // (1 << 20)))
    overhead = 8 + 28 * blocks  # AES-GCM stream: magic and block size, then nonce and tag per block
    if size <= overhead:
        return None
    for mp, _j, other in o.entries():
        if other["data_file"]["file_path"] == df["file_path"]:
            other["data_file"]["file_size_in_bytes"] = size - overhead
            o.touch_manifest(mp)
    return (f"{os.path.basename(p)} entries[{i}] file_size_in_bytes of {os.path.basename(str(df['file_path']))} set "
            f"to {size - overhead} (the {size} bytes less an encryption overhead the file does not have)")


@damage("manifests.first-row-id-changed", "manifest",
        "an EXISTING data file of a merged manifest written with a null first_row_id: it inherits new row ids",
        also=("snapshot.manifest-first-row-id-range",),  # the manifest now assigns the file's rows too
        name="iceberg-java-16263-merge-existing-first-row-id-reassigned",
        bug="iceberg-java-16263-merge-existing-first-row-id-reassigned")
def _java_merge_first_row_id(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    cands = []
    for p, i, e in data_entries(o):
        rec = o.list_record_for(p)
        if e.get("status") == 0 and isinstance(e["data_file"].get("first_row_id"), int) \
                and rec is not None and isinstance(rec.get("first_row_id"), int):
            cands.append((p, i, e))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e = c
    old = e["data_file"]["first_row_id"]
    e["data_file"]["first_row_id"] = None
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (EXISTING) first_row_id {old} written as null"


@damage("data.upper-bound", "manifest",
        "timestamp_ns bounds written in microseconds (the nanoseconds divided by 1000)",
        name="iceberg-java-16922-orc-timestamp-ns-bounds-in-micros",
        bug="iceberg-java-16922-orc-timestamp-ns-bounds-in-micros")
def _java_ns_bounds_in_micros(o: Overlay, rng: random.Random) -> str | None:
    ns = {fid for fid, t in _types(o, top_level=True).items()
          if isinstance(t, (TimestampNanoType, TimestamptzNanoType))}
    rng_entries = list(_parquet_data(o))
    rng.shuffle(rng_entries)
    for p, i, e in rng_entries:
        path = str(e["data_file"]["file_path"])
        table = _read(path)
        for fid in sorted(ns):
            col = _column_of(table, fid)
            if col is None:
                continue
            values = [v for v in table.column(col).cast(pa.int64()).to_pylist() if v is not None]
            if not values or max(values) <= 0 or max(values) // 1000 >= max(values):
                continue
            lo, hi = min(values) // 1000, max(values) // 1000
            df = e["data_file"]
            for which, v in (("lower_bounds", lo), ("upper_bounds", hi)):
                _set_bound(df, which, fid, struct.pack("<q", v))
            o.touch_manifest(p)
            return (f"{os.path.basename(p)} entries[{i}] bounds of timestamp_ns column {fid} written as {lo}..{hi} "
                    f"(microseconds) for values up to {max(values)} ns")
    return None


@damage("files.size", "manifest", "an ORC data file's file_size_in_bytes written as 0, not the size on disk",
        name="iceberg-java-1697-orc-file-size-not-on-disk", bug="iceberg-java-1697-orc-file-size-not-on-disk")
def _java_orc_size(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, data_entries(o, where=lambda e: str(e["data_file"].get("file_format")).upper() == "ORC"))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["file_size_in_bytes"] = 0
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] file_size_in_bytes of an ORC data file set to 0"


@damage("manifests.bound-nan", "manifest", "NaN written as a float or double column's upper bound",
        also=("data.upper-bound",),  # a NaN bound is no bound of the values
        name="iceberg-java-2464-nan-in-parquet-orc-bounds", bug="iceberg-java-2464-nan-in-parquet-orc-bounds")
def _java_nan_bound(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, _bounds_of(o, "upper_bounds", lambda t: isinstance(t, (FloatType, DoubleType))))
    if c is None:
        return None
    p, i, e, hi, t = c
    hi["value"] = struct.pack("<d", float("nan")) if isinstance(t, DoubleType) else struct.pack("<f", float("nan"))
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] upper bound of {t} column {hi['key']} written as NaN"


@damage("data.upper-bound", "manifest", "a string upper bound written as the prefix of the maximum, not incremented",
        name="iceberg-java-328-truncate-string-max-index", bug="iceberg-java-328-truncate-string-max-index")
def _java_truncate_max(o: Overlay, rng: random.Random) -> str | None:
    def prefix(b: bytes) -> bytes:
        text = b.decode("utf-8")
        return text[:2 if len(text) > 2 else 1].encode("utf-8")

    def fits(c: tuple[str, int, dict[str, Any], dict[str, Any], IcebergType]) -> bool:
        lo = _bound(c[2]["data_file"], "lower_bounds", int(c[3]["key"]))
        return len(c[3]["value"].decode("utf-8")) >= 2 and (lo is None or lo["value"] <= prefix(c[3]["value"]))
    cands = [c for c in _bounds_of(o, "upper_bounds", lambda t: isinstance(t, StringType)) if fits(c)]
    supplementary = [c for c in cands if any(ord(ch) > 0xFFFF for ch in c[3]["value"].decode("utf-8"))]
    c = pick(rng, supplementary or cands)
    if c is None:
        return None
    p, i, e, hi, _t = c
    text = hi["value"].decode("utf-8")
    keep = 2 if len(text) > 2 else 1
    hi["value"] = text[:keep].encode("utf-8")
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] upper bound of column {hi['key']} {text!r} written as the prefix "
            f"{text[:keep]!r}")


@damage("snapshot.operation-files", "manifest",
        "an append with manifest merging drops a delete file that still applies (DELETED entry)",
        name="iceberg-java-4514-upgraded-table-deletes-dropped", bug="iceberg-java-4514-upgraded-table-deletes-dropped")
def _java_append_drops_deletes(o: Overlay, rng: random.Random) -> str | None:
    live = _current_entries(o)
    deletes = [(rec, i, e) for rec, i, e in live if int(e["data_file"].get("content") or 0) != 0]
    data = [(rec, i, e) for rec, i, e in live if int(e["data_file"].get("content") or 0) == 0
            and str(e["data_file"].get("file_format")).upper() == "PARQUET"]
    d, f = pick(rng, deletes), pick(rng, data)
    if d is None or f is None:
        return None
    drec, di, de = d
    frec, _fi, fe = f
    dpath, fpath = str(drec["manifest_path"]), str(frec["manifest_path"])
    # the appended data file: a new file with the rows of a live one
    src = str(fe["data_file"]["file_path"])
    with open(local_path(src) or src, "rb") as fh:
        data_bytes = fh.read()
    new_file = os.path.join(os.path.dirname(src), "appended-00000.parquet")
    added = copy.deepcopy(fe)
    added.update({"status": 1, "snapshot_id": None})
    for key in ("sequence_number", "file_sequence_number"):
        if key in added:
            added[key] = None
    added["data_file"]["file_path"] = new_file
    if "first_row_id" in added["data_file"]:
        added["data_file"]["first_row_id"] = None
    o.copy_file(new_file, data_bytes)
    # the merged delete manifest: every live delete entry of the manifest kept, the victim DELETED
    dsource = o.manifest(dpath)
    merged = _merged(o, drec, di)
    base = os.path.dirname(dpath)
    data_path, delete_path = os.path.join(base, "append-merged-m0.avro"), os.path.join(base, "append-merged-m1.avro")
    rows = int(fe["data_file"]["record_count"])
    dropped = int(de["data_file"]["record_count"])
    kind = "total-position-deletes" if int(de["data_file"].get("content") or 0) == 1 else "total-equality-deletes"
    snap = _commit(o, "append", [(data_path, _new_avro(o.manifest(fpath), data_path, [added]), frec),
                                 (delete_path, _new_avro(dsource, delete_path, merged), drec)], {dpath},
                   {"total-data-files": 1, "total-records": rows, "total-delete-files": -1, kind: -dropped})
    if snap is None:
        return None
    snap["summary"].update({"added-data-files": "1", "added-records": str(rows), "removed-delete-files": "1"})
    _resummarize(o, data_path)
    _resummarize(o, delete_path)
    return (f"snapshot {snap['snapshot-id']} (append) adds {os.path.basename(new_file)} and merges "
            f"{os.path.basename(dpath)}, writing {os.path.basename(str(de['data_file']['file_path']))} as DELETED")


@damage("manifests.first-row-id-changed", "manifest",
        "rewrite_manifests writes a v3 manifest's live data files as EXISTING with a null first_row_id",
        name="spark-16699-rewrite-manifests-drops-first-row-id", bug="spark-16699-rewrite-manifests-drops-first-row-id")
def _spark_rewrite_manifests(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3 or not isinstance(o.doc.get("next-row-id"), int):
        return None
    cands = [rec for rec in _current_records(o) if int(rec.get("content") or 0) == 0
             and isinstance(rec.get("first_row_id"), int)
             and any(e.get("status") in (0, 1) for e in o.manifest(str(rec["manifest_path"])).records)]
    rec = pick(rng, cands)
    if rec is None:
        return None
    source = str(rec["manifest_path"])
    rewritten = []
    for e in o.manifest(source).records:
        if e.get("status") in (0, 1):
            out = _inherited(e, rec)
            out["data_file"]["first_row_id"] = None
            rewritten.append(out)
    path = os.path.join(os.path.dirname(source), "rewritten-manifests-m0.avro")
    snap = _commit(o, "replace", [(path, _new_avro(o.manifest(source), path, rewritten), rec)], {source}, {})
    if snap is None:
        return None
    snap["summary"].update({"manifests-created": "1", "manifests-replaced": "1"})
    _resummarize(o, path)
    return (f"snapshot {snap['snapshot-id']} (replace) rewrites {os.path.basename(source)}: its {len(rewritten)} live "
            "data file(s) EXISTING with first_row_id null, inheriting from the new manifest's first_row_id")


def _rows_equality_deletes_remove(o: Overlay) -> set[str]:
    """The data files of the current snapshot from which a live equality delete removes rows and
    which no position delete or deletion vector could name (the reference reader's tasks)."""
    from iceberg_conformance.reference.scan import plan, read_task, schema_for

    snap = next((s for s in o.snapshots() if s.get("snapshot-id") == o.doc.get("current-snapshot-id")), None)
    if snap is None:
        return set()
    schema = schema_for(o.doc, snap)
    out = set()
    for task in plan(o.doc, snap):
        if task.equality_deletes and not task.position_deletes and task.deletion_vector is None and \
                len(read_task(o.doc, schema, task)) < int(task.data.data_file.get("record_count") or 0):
            out.add(task.data.path)
    return out


@damage("snapshot.replace-changes-rows", "manifest",
        "a rewrite commits its rewritten data file at the commit's sequence number, above the equality deletes "
        "that removed rows of the file it replaces (those rows are live again)",
        name="iceberg-java-3842-merge-manifests-lost-sequence-number",
        bug="iceberg-java-3842-merge-manifests-lost-sequence-number")
def _java_rewrite_lost_sequence(o: Overlay, rng: random.Random) -> str | None:
    if o.version != 2:
        return None
    victims = _rows_equality_deletes_remove(o)
    c = pick(rng, [(rec, i, e) for rec, i, e in _current_entries(o)
                   if int(e["data_file"].get("content") or 0) == 0 and e["data_file"]["file_path"] in victims])
    if c is None:
        return None
    rec, vi, ve = c
    source = str(rec["manifest_path"])
    # the rewritten file: the same rows (the rewrite read the table before the equality deletes
    # were committed), ADDED with a null sequence number, so it inherits the commit's
    old = str(ve["data_file"]["file_path"])
    with open(local_path(old) or old, "rb") as fh:
        data_bytes = fh.read()
    new_file = os.path.join(os.path.dirname(old), "rewritten-00000" + os.path.splitext(old)[1])
    o.copy_file(new_file, data_bytes)
    added = copy.deepcopy(ve)
    added.update({"status": 1, "snapshot_id": None, "sequence_number": None, "file_sequence_number": None})
    added["data_file"]["file_path"] = new_file
    merged = _merged(o, rec, vi)
    path = os.path.join(os.path.dirname(source), "rewrite-merged-m0.avro")
    snap = _commit(o, "replace", [(path, _new_avro(o.manifest(source), path, merged + [added]), rec)], {source}, {})
    if snap is None:
        return None
    merged[[k for k, e in enumerate(merged) if e["status"] == 2][0]]["snapshot_id"] = snap["snapshot-id"]
    rows = str(int(ve["data_file"]["record_count"]))
    snap["summary"].update({"added-data-files": "1", "deleted-data-files": "1", "added-records": rows,
                            "deleted-records": rows})
    _resummarize(o, path)
    return (f"snapshot {snap['snapshot-id']} (replace) rewrites {os.path.basename(old)} as "
            f"{os.path.basename(new_file)} at sequence number {snap['sequence-number']}, above the equality deletes "
            "that removed some of its rows")


@damage("manifests.record-name", "manifest", "Avro root records named manifest / manifest_list",
        name="iceberg-rust-179-manifest-avro-record-names", bug="iceberg-rust-179-manifest-avro-record-names")
def _rust_record_names(o: Overlay, rng: random.Random) -> str | None:
    p = pick(rng, [m for m in o.manifest_paths() if o.manifest(m).schema.get("name") == "manifest_entry"])
    if p is None:
        return None
    o.manifest(p).schema["name"] = "manifest"
    o.touch_manifest(p)
    renamed = 0
    for snap in o.snapshots():
        lst = o.manifest_list(snap)
        if lst is not None and lst.schema.get("name") == "manifest_file":
            lst.schema["name"] = "manifest_list"
            o.touch_list(str(snap["manifest-list"]))
            renamed += 1
    return f"{os.path.basename(p)}: root record named 'manifest'; {renamed} manifest list(s): 'manifest_list'"


@damage("manifests.equality-ids", "delete-file", "an equality delete file written with equality_ids []",
        name="iceberg-rust-2722-equality-writer-empty-duplicate-ids",
        bug="iceberg-rust-2722-equality-writer-empty-duplicate-ids")
def _rust_empty_equality(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, equality_deletes(o))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["equality_ids"] = []
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (equality delete file) equality_ids written as []"


@damage("avro.decimal-fixed", "manifest", "a decimal partition field written as Avro bytes, not fixed",
        name="icelake-241-decimal-partition-bytes-not-fixed", bug="icelake-241-decimal-partition-bytes-not-fixed")
def _icelake_decimal_bytes(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p in o.manifest_paths():
        for f in _partition_record(o.manifest(p))["fields"]:
            branch = next((t for t in (f["type"] if isinstance(f["type"], list) else [f["type"]])
                           if isinstance(t, dict) and t.get("logicalType") == "decimal" and t.get("type") == "fixed"),
                          None)
            if branch is not None:
                cands.append((p, f, branch))
    c = pick(rng, cands)
    if c is None:
        return None
    p, f, branch = c
    f["type"] = ["null", {"type": "bytes", "logicalType": "decimal", "precision": branch["precision"],
                          "scale": branch.get("scale", 0)}]
    o.touch_manifest(p)
    return (f"{os.path.basename(p)}: partition field {f['name']} decimal({branch['precision']},"
            f"{branch.get('scale', 0)}) written as Avro bytes instead of fixed({branch['size']})")


@damage("dv.partition", "manifest", "a deletion vector written without its data file's partition tuple",
        name="impala-14913-dv-without-partition", bug="impala-14913-dv-without-partition")
def _impala_dv_partition(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, [x for x in dvs(o)
                   if any(v is not None for v in (x[2]["data_file"].get("partition") or {}).values())])
    if c is None:
        return None
    p, i, e = c
    part = e["data_file"]["partition"]
    for k in part:
        part[k] = None
    o.touch_manifest(p)
    _resummarize(o, p)
    return f"{os.path.basename(p)} entries[{i}] (deletion vector) partition written as {part}"


@damage("manifests.bounds-order", "manifest", "decimal bounds merged with a little-endian comparison: swapped",
        also=("data.lower-bound", "data.upper-bound"),
        name="pg-lake-431-decimal38-bounds-swapped", bug="pg-lake-431-decimal38-bounds-swapped")
def _pg_lake_swapped(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p, i, e, lo, t in _bounds_of(o, "lower_bounds", lambda t: isinstance(t, DecimalType)):
        hi = _bound(e["data_file"], "upper_bounds", int(lo["key"]))
        if hi is not None and from_bytes(t, lo["value"]) < from_bytes(t, hi["value"]):
            cands.append((p, i, e, lo, hi, t))
    wide = [c for c in cands if isinstance(c[5], DecimalType) and c[5].precision > 18]
    c = pick(rng, wide or cands)
    if c is None:
        return None
    p, i, e, lo, hi, t = c
    lo["value"], hi["value"] = hi["value"], lo["value"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] {t} bounds of column {lo['key']} swapped"


def _header_schemas(o: Overlay) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for p in o.manifest_paths():
        try:
            doc = json.loads(o.manifest(p).meta.get("schema", ""))
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append((p, doc))
    return out


@damage("manifests.header-schema", "manifest",
        "the schema header's decimal type left as the placeholder decimal({},{})",
        name="redpanda-24463-decimal-type-json", bug="redpanda-24463-decimal-type-json")
def _redpanda_decimal_json(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, [(p, d) for p, d in _header_schemas(o) if '"decimal(' in json.dumps(d)])
    if c is None:
        return None
    p, doc = c
    fields = [f for f in doc.get("fields") or [] if str(f.get("type", "")).startswith("decimal(")]
    if not fields:
        return None
    victim = rng.choice(fields)
    old = victim["type"]
    victim["type"] = "decimal({},{})"
    o.manifest(p).meta["schema"] = json.dumps(doc)
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: schema header type of {victim.get('name')!r} {old} written as decimal({{}},{{}})"


@damage("manifests.header-schema", "manifest",
        "the schema header (same schema-id) types a timestamptz column as timestamp, or keeps only the partition "
        "source columns",
        name="s3-tables-119743-manifest-header-schema-conflict", bug="s3-tables-119743-manifest-header-schema-conflict")
def _s3_tables_header(o: Overlay, rng: random.Random) -> str | None:
    tz = [(p, d) for p, d in _header_schemas(o) if any(f.get("type") == "timestamptz" for f in d.get("fields") or [])]
    sources = _partition_sources(o)
    partial = [(p, d) for p, d in _header_schemas(o)
               if sources and {f.get("id") for f in d.get("fields") or []} - sources]
    c = pick(rng, tz) or pick(rng, partial)
    if c is None:
        return None
    p, doc = c
    if "schema-id" not in doc:
        doc["schema-id"] = int(o.manifest(p).meta.get("schema-id", o.doc.get("current-schema-id", 0)))
    if any(f.get("type") == "timestamptz" for f in doc["fields"]):
        victim = next(f for f in doc["fields"] if f.get("type") == "timestamptz")
        victim["type"] = "timestamp"
        what = f"column {victim.get('name')!r} typed timestamp instead of timestamptz"
    else:
        doc["fields"] = [f for f in doc["fields"] if f.get("id") in sources]
        what = f"only the partition source columns {sorted(sources)} kept"
    o.manifest(p).meta["schema"] = json.dumps(doc)
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: schema header (schema-id {doc['schema-id']}): {what}"


@damage("data.partition-value", "manifest",
        "an imported file's partition value taken positionally from another column of its path (add_files)",
        name="spark-12273-add-files-wrong-spec-id", bug="spark-12273-add-files-wrong-spec-id")
def _spark_add_files_spec(o: Overlay, rng: random.Random) -> str | None:
    if _mapped(o):
        return None
    kept = _deleted_from(o)
    types = _types(o, top_level=True)
    cands = []
    for p in o.manifest_paths():
        idents = {f["field-id"]: f.get("source-id") for f in _spec_of(o, p).get("fields") or []
                  if f.get("transform") == "identity"}
        for name, fid, t in _partition_fields(o, p):
            if fid not in idents or not isinstance(t, StringType):
                continue
            for i, e in enumerate(o.manifest(p).records):
                if e.get("status") == 2 or int(e["data_file"].get("content") or 0) != 0 \
                        or e["data_file"]["file_path"] in kept:
                    continue
                for lo in e["data_file"].get("lower_bounds") or []:
                    other = int(lo["key"])
                    t2 = types.get(other)
                    if other != idents[fid] and isinstance(t2, (IntegerType, LongType)):
                        value = str(from_bytes(t2, lo["value"])) if len(lo["value"]) in (4, 8) else None
                        if value is not None and value != (e["data_file"].get("partition") or {}).get(name):
                            cands.append((p, i, e, name, value))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, name, value = c
    old = e["data_file"]["partition"][name]
    e["data_file"]["partition"][name] = value
    o.touch_manifest(p)
    _resummarize(o, p)
    return f"{os.path.basename(p)} entries[{i}] partition {name} {old!r} written as {value!r} (the first path value)"


@damage("data.upper-bound", "manifest",
        "decimal128 bounds written as the 16-byte little-endian int128 of the unscaled value (the native layout)",
        also=("manifests.bound-decimal-minimal",  # 16 bytes where the value read needs fewer
              "data.lower-bound", "manifests.bounds-order"),  # the lower bound read big-endian may land anywhere
        name="starrocks-66071-decimal128-bounds", bug="starrocks-66071-decimal128-bounds")
def _starrocks_decimal128(o: Overlay, rng: random.Random) -> str | None:
    def little(t: IcebergType, raw: bytes) -> bytes | None:
        assert isinstance(t, DecimalType)
        u = int(from_bytes(t, raw).scaleb(t.scale))
        out = u.to_bytes(16, "little", signed=True)
        try:
            return out if from_bytes(t, out) is not None else None
        except Exception:  # noqa: BLE001 - more digits than P: the bound no longer decodes at all
            return None
    cands = []
    for p, i, e, hi, t in _bounds_of(o, "upper_bounds", lambda t: isinstance(t, DecimalType) and t.precision > 18):
        raw = little(t, hi["value"])
        if raw is not None and from_bytes(t, raw) < from_bytes(t, hi["value"]):
            cands.append((p, i, e, hi, t))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, hi, t = c
    written = []
    for which in ("lower_bounds", "upper_bounds"):
        item = _bound(e["data_file"], which, int(hi["key"]))
        raw = little(t, item["value"]) if item is not None else None
        if item is not None and raw is not None:
            item["value"] = raw
            written.append(f"{which} {raw.hex()}")
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] {t} column {hi['key']}: " + ", ".join(written)


# --- data files -----------------------------------------------------------------------------------

def _parquet_without_field_ids(o: Overlay, rng: random.Random) -> str | None:
    if "schema.name-mapping.default" in (o.doc.get("properties") or {}):
        return None  # the writers' tables had no name mapping
    return generic_data._no_field_ids(o, rng)


for _bug in ("clickhouse-102322-parquet-data-files-without-field-ids", "timeplus-proton-1221-parquet-no-field-ids"):
    damage("parquet.field-id-missing", "data-file", "Parquet data files written without any field id",
           name=_bug, bug=_bug)(_parquet_without_field_ids)


@damage("avro.field-id-missing", "data-file", "an Avro data file written without field-id on its record fields",
        name="clickhouse-109994-data-files-without-field-ids", bug="clickhouse-109994-data-files-without-field-ids")
def _clickhouse_avro_ids(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, data_entries(o, where=lambda e: str(e["data_file"].get("file_format")).upper() == "AVRO"))
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    avro = AvroFile.load(local_path(path) or path)

    def strip(schema: Any) -> None:
        if isinstance(schema, list):
            for s in schema:
                strip(s)
        elif isinstance(schema, dict):
            for key in ("field-id", "element-id", "key-id", "value-id"):
                schema.pop(key, None)
            for f in schema.get("fields") or []:
                f.pop("field-id", None)
                strip(f.get("type"))
            for key in ("type", "items", "values"):
                if isinstance(schema.get(key), (dict, list)):
                    strip(schema[key])
    strip(avro.schema)
    o.copy_file(path, avro.to_bytes())
    return f"{os.path.basename(path)} rewritten without field ids in its Avro schema (file_size_in_bytes re-stamped)"


@damage("data.null-value-count", "manifest",
        "the manifest-wide null counts and bounds stamped onto every data file of the manifest",
        name="clickhouse-112414-manifest-wide-stats-per-file", bug="clickhouse-112414-manifest-wide-stats-per-file")
def _clickhouse_manifest_wide(o: Overlay, rng: random.Random) -> str | None:
    if _mapped(o):
        return None
    types = _types(o)
    cands = []
    for p in o.manifest_paths():
        files = [e for e in o.manifest(p).records if e.get("status") != 2
                 and int(e["data_file"].get("content") or 0) == 0]
        if len(files) < 2:
            continue
        counts = [{int(x["key"]): int(x["value"]) for x in e["data_file"].get("null_value_counts") or []}
                  for e in files]
        total = {k: sum(c.get(k, 0) for c in counts) for k in set().union(*counts)}
        if any(c.get(k, 0) != total[k] and k in c and k in types for c in counts for k in total):
            cands.append((p, files, total))
    c = pick(rng, cands)
    if c is None:
        return None
    p, files, total = c
    sizes: dict[int, int] = {}
    lows: dict[int, Any] = {}
    highs: dict[int, Any] = {}
    for e in files:
        df = e["data_file"]
        for x in df.get("column_sizes") or []:
            sizes[int(x["key"])] = sizes.get(int(x["key"]), 0) + int(x["value"])
        for which, acc, sign in (("lower_bounds", lows, -1), ("upper_bounds", highs, 1)):
            for x in df.get(which) or []:
                t = types.get(int(x["key"]))
                if t is None or not _orderable(t) or isinstance(t, (FloatType, DoubleType)):
                    continue
                try:
                    v = from_bytes(t, x["value"])
                except Exception:  # noqa: BLE001
                    continue
                k = int(x["key"])
                if k not in acc or (v > acc[k][0] if sign > 0 else v < acc[k][0]):
                    acc[k] = (v, x["value"])
    for e in files:
        df = e["data_file"]
        df["null_value_counts"] = [{"key": k, "value": v} for k, v in sorted(total.items())]
        if df.get("column_sizes") is not None:
            df["column_sizes"] = [{"key": k, "value": v} for k, v in sorted(sizes.items())]
        for which, acc in (("lower_bounds", lows), ("upper_bounds", highs)):
            if df.get(which) is not None:
                for k, (_v, raw) in acc.items():
                    if _bound(df, which, k) is not None:
                        _set_bound(df, which, k, raw)
    o.touch_manifest(p)
    return (f"{os.path.basename(p)}: its {len(files)} data files all given the manifest-wide null_value_counts "
            f"{dict(sorted(total.items()))}, column sizes and bounds")


@damage("deletes.position-order", "delete-file", "position delete rows written in reverse order",
        name="clickhouse-120916-position-delete-rows-unsorted", bug="clickhouse-120916-position-delete-rows-unsorted")
def _clickhouse_unsorted(o: Overlay, rng: random.Random) -> str | None:
    def change(paths: list[str], positions: list[int]) -> str | None:
        rows = list(zip(paths, positions))
        if len(set(rows)) < 2:
            return None
        rows.reverse()
        paths[:] = [r[0] for r in rows]
        positions[:] = [r[1] for r in rows]
        return f"its {len(rows)} rows written in reverse (file_path, pos) order"
    return generic_deletes._rewrite_positions(o, rng, change)


@damage("parquet.timestamp-utc", "data-file",
        "a timestamp (without zone) column written adjusted to UTC, its values shifted by the session offset",
        name="doris-51384-timestamp-ntz-write-values", bug="doris-51384-timestamp-ntz-write-values")
def _doris_ntz(o: Overlay, rng: random.Random) -> str | None:
    sources = _partition_sources(o)
    ntz = {fid for fid, t in _types(o, top_level=True).items() if isinstance(t, TimestampType) and fid not in sources}
    entries = list(_parquet_data(o))
    rng.shuffle(entries)
    shift = 8 * 3600 * 1_000_000  # a session in UTC+8: local wall time converted to UTC
    for p, i, e in entries:
        path = str(e["data_file"]["file_path"])
        table = _read(path)
        for fid in sorted(ntz):
            col = _column_of(table, fid)
            if col is None or table.column(col).null_count == len(table):
                continue
            micros = [None if v is None else v - shift for v in table.column(col).cast(pa.int64()).to_pylist()]
            field = table.schema.field(col)
            arr = pa.array(micros, pa.int64()).cast(pa.timestamp("us", tz="UTC"))
            table = table.set_column(col, pa.field(field.name, arr.type, field.nullable, field.metadata), arr)
            data = _written(table)
            real = [v for v in micros if v is not None]
            df = e["data_file"]
            for which, v in (("lower_bounds", min(real)), ("upper_bounds", max(real))):
                if _bound(df, which, fid) is not None:
                    _set_bound(df, which, fid, struct.pack("<q", v))
            o.touch_manifest(p)
            _restamp(o, path, data)
            return (f"{os.path.basename(path)}: timestamp column {field.name!r} (field {fid}) written as "
                    "TIMESTAMP(isAdjustedToUTC=true) with its values shifted 8 hours back; bounds recomputed")
    return None


def _required_null(o: Overlay, rng: random.Random, accept: Callable[[IcebergType], bool]) -> str | None:
    """A null written into a column the table requires: in one row, or, where the column is an
    identity partition source, in every row of the file (which is then in the null partition)."""
    schema = _current(o)
    if schema is None:
        return None
    required = {fid for fid, info in walk(schema) if len(info.ids) == 1 and info.required and accept(info.field_type)}
    identity = {}
    for spec in spec_by_id(o.doc).values():
        for f in spec.get("fields") or []:
            if f.get("transform") == "identity" and f.get("source-id") in required:
                identity[int(f["source-id"])] = f["name"]
    other_sources = _partition_sources(o) - set(identity)
    entries = [x for x in _parquet_data(o) if any(
        fid in required and fid not in other_sources for fid in _types(o, top_level=True))]
    rng.shuffle(entries)
    for p, i, e in entries:
        path = str(e["data_file"]["file_path"])
        table = _read(path)
        n = table.num_rows
        for fid in sorted(required - other_sources):
            col = _column_of(table, fid)
            if col is None or n == 0:
                continue
            every = fid in identity
            if every and any(int(x["data_file"].get("content") or 0) != 0 for x in o.manifest(p).records):
                continue
            values = table.column(col).to_pylist()
            values = [None] * n if every else values[:-1] + [None]
            field = table.schema.field(col)
            arr = pa.array(values, field.type)
            table = table.set_column(col, pa.field(field.name, field.type, True, field.metadata), arr)
            data = _written(table)
            df = e["data_file"]
            t = _types(o)[fid]
            real = [_plain(t, v) for v in values if v is not None]
            for which, v in (("lower_bounds", min(real, default=None)), ("upper_bounds", max(real, default=None))):
                item = _bound(df, which, fid)
                if item is not None and v is not None:
                    item["value"] = to_bytes(t, v)
                elif item is not None:
                    df[which] = [x for x in df[which] if int(x["key"]) != fid]
            nulls = _bound(df, "null_value_counts", fid)
            if nulls is not None:
                nulls["value"] = values.count(None)
            where = "every row"
            if every:
                name = identity[fid]
                for mp, _j, other in o.entries():
                    if other["data_file"]["file_path"] == path and name in (other["data_file"].get("partition") or {}):
                        other["data_file"]["partition"][name] = None
                        o.touch_manifest(mp)
                        _resummarize(o, mp)
                where = f"every row (the file is now in the null partition of {name})"
            else:
                where = f"row {n - 1}"
            o.touch_manifest(p)
            _restamp(o, path, data)
            return (f"{os.path.basename(path)}: required column {field.name!r} (field {fid}) holds null in {where}; "
                    "null_value_counts and bounds recomputed")
    return None


@damage("data.required-null", "data-file", "a null written into a required integer column",
        name="impala-13273-null-in-required-column", bug="impala-13273-null-in-required-column")
def _impala_required_null(o: Overlay, rng: random.Random) -> str | None:
    return _required_null(o, rng, lambda t: isinstance(t, (IntegerType, LongType)))


@damage("data.required-null", "data-file", "MERGE wrote a null into a required string column",
        name="trino-21619-merge-writes-null-into-not-null-column",
        bug="trino-21619-merge-writes-null-into-not-null-column")
def _trino_required_null(o: Overlay, rng: random.Random) -> str | None:
    return _required_null(o, rng, lambda t: isinstance(t, StringType))


@damage("data.partition-value", "data-file", "a truncate[W] string partition value cut at W bytes, not W code points",
        name="impala-14237-truncate-string-bytes-not-codepoints",
        bug="impala-14237-truncate-string-bytes-not-codepoints")
def _impala_truncate_bytes(o: Overlay, rng: random.Random) -> str | None:
    if _mapped(o):
        return None
    kept = _deleted_from(o)
    cands = []
    for p in o.manifest_paths():
        widths = {f["field-id"]: int(str(f["transform"])[9:-1]) for f in _spec_of(o, p).get("fields") or []
                  if str(f.get("transform", "")).startswith("truncate[")}
        for name, fid, t in _partition_fields(o, p):
            if fid not in widths or not isinstance(t, StringType):
                continue
            for i, e in enumerate(o.manifest(p).records):
                v = (e["data_file"].get("partition") or {}).get(name)
                if e.get("status") == 2 or not isinstance(v, str) or e["data_file"]["file_path"] in kept:
                    continue
                try:
                    cut = v.encode("utf-8")[:widths[fid]].decode("utf-8")
                except UnicodeDecodeError:
                    continue  # a broken sequence: no Avro string holds it
                if cut != v:
                    cands.append((p, i, e, name, cut))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, name, cut = c
    old = e["data_file"]["partition"][name]
    e["data_file"]["partition"][name] = cut
    o.touch_manifest(p)
    _resummarize(o, p)
    return f"{os.path.basename(p)} entries[{i}] partition {name} {old!r} written as {cut!r} (cut at bytes)"


def _row_group_bounds(o: Overlay, rng: random.Random, accept: Callable[[IcebergType], bool], keep: str,
                      which: tuple[str, ...], wrong: str) -> str | None:
    """Rewrite a data file into two row groups (rows and their order kept) and write the bounds
    ``which`` of one column from one row group only (``keep``: "first" or "last"), as a writer
    that lost the other row group's statistics did, choosing the split so that the lost row group
    holds a value beyond the ``wrong`` bound ("lower_bounds" or "upper_bounds") and none beyond
    the other one written."""
    types = _types(o, top_level=True)
    entries = list(_parquet_data(o)) if not _mapped(o) else []
    rng.shuffle(entries)
    for p, i, e in entries:
        df = e["data_file"]
        path = str(df["file_path"])
        table = _read(path)
        n = table.num_rows
        for fid, t in sorted(types.items()):
            col = _column_of(table, fid)
            if col is None or not accept(t) or n < 2:
                continue
            values = [_plain(t, v) for v in table.column(col).to_pylist()]
            real = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
            if not real:
                continue
            for k in range(1, n):
                part = [v for v in (values[:k] if keep == "first" else values[k:])
                        if v is not None and not (isinstance(v, float) and v != v)]
                if not part:
                    continue
                beyond = {"lower_bounds": min(part) > min(real), "upper_bounds": max(part) < max(real)}
                if not beyond[wrong] or any(beyond[w] for w in which if w != wrong):
                    continue
                data = _written(table, [k, n - k])
                for w in which:
                    _set_bound(df, w, fid, to_bytes(t, min(part) if w == "lower_bounds" else max(part)))
                o.touch_manifest(p)
                _restamp(o, path, data)
                kept = f"rows 0..{k - 1}" if keep == "first" else f"rows {k}..{n - 1}"
                return (f"{os.path.basename(path)} rewritten as 2 row groups; {' and '.join(which)} of column {fid} "
                        f"taken from the row group of {kept} only")
    return None


@damage("data.lower-bound", "manifest", "bounds taken from the row groups that had statistics, missing a smaller value",
        name="iceberg-java-8559-parquet-metrics-missing-rowgroup-stats",
        bug="iceberg-java-8559-parquet-metrics-missing-rowgroup-stats")
def _java_rowgroup_stats(o: Overlay, rng: random.Random) -> str | None:
    return _row_group_bounds(o, rng, _orderable, "last", ("lower_bounds", "upper_bounds"), "lower_bounds")


@damage("data.upper-bound", "manifest", "the upper bound of a file of two row groups taken from the first only",
        name="iceberg-rust-1519-upper-bound-multi-rowgroup", bug="iceberg-rust-1519-upper-bound-multi-rowgroup")
def _rust_rowgroup_upper(o: Overlay, rng: random.Random) -> str | None:
    return _row_group_bounds(o, rng, _orderable, "first", ("upper_bounds",), "upper_bounds")


@damage("data.upper-bound", "manifest",
        "varchar bounds derived from the row groups whose statistics were kept, missing the larger value",
        name="trino-19052-parquet-varchar-bounds-from-partial-row-groups",
        bug="trino-19052-parquet-varchar-bounds-from-partial-row-groups")
def _trino_varchar_rowgroups(o: Overlay, rng: random.Random) -> str | None:
    return _row_group_bounds(o, rng, lambda t: isinstance(t, StringType), "first", ("lower_bounds", "upper_bounds"),
                             "upper_bounds")


@damage("parquet.type-mapping", "data-file",
        "a uuid column written as fixed_len_byte_array(16) without the UUID logical type",
        name="pyiceberg-2002-uuid-parquet-no-logical-type", bug="pyiceberg-2002-uuid-parquet-no-logical-type")
def _pyiceberg_uuid(o: Overlay, rng: random.Random) -> str | None:
    uuids = {fid for fid, t in _types(o, top_level=True).items() if isinstance(t, UUIDType)}
    entries = list(_parquet_data(o))
    rng.shuffle(entries)
    for p, i, e in entries:
        path = str(e["data_file"]["file_path"])
        table = _read(path)
        for fid in sorted(uuids):
            col = _column_of(table, fid)
            if col is None:
                continue
            field = table.schema.field(col)
            arr = table.column(col)
            storage = pa.chunked_array([c.storage if hasattr(c, "storage") else c for c in arr.chunks],
                                       pa.binary(16))
            table = table.set_column(col, pa.field(field.name, pa.binary(16), field.nullable, field.metadata), storage)
            _restamp(o, path, _written(table))
            o.touch_manifest(p)
            return f"{os.path.basename(path)}: uuid column {field.name!r} rewritten as plain fixed_len_byte_array(16)"
    return None


@damage("files.size", "data-file",
        "a later streaming epoch overwrote a committed data file of the same name: other content, other size",
        also=("data.record-count", "data.value-count", "data.null-value-count", "data.nan-value-count"),
        name="spark-9172-streaming-file-clobbering", bug="spark-9172-streaming-file-clobbering")
def _spark_clobbering(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, _parquet_data(o) if not _mapped(o) else [])
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    table = _read(path)
    clobbered = pa.concat_tables([table, table])
    o.copy_file(path, _written(clobbered), keep_recorded_size=True)
    return (f"{os.path.basename(path)} overwritten by a file of {clobbered.num_rows} rows (the entry keeps "
            f"{c[2]['data_file']['record_count']} rows and the old file_size_in_bytes)")


# --- delete files ---------------------------------------------------------------------------------

@damage("deletes.target-not-live", "delete-file",
        "a position delete file written under the table's new partition spec, not its data file's",
        name="hive-26156-delete-writer-old-partition-spec", bug="hive-26156-delete-writer-old-partition-spec")
def _hive_delete_spec(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    deletes = [p for p in o.manifest_paths() if any(
        int(e["data_file"].get("content") or 0) == 1 and not is_dv(e) and e.get("status") != 2
        for e in o.manifest(p).records) and not any(is_dv(e) for e in o.manifest(p).records)]
    p = pick(rng, deletes)
    if p is None:
        return None
    rec = o.list_record_for(p) or {}
    spec = spec_by_id(o.doc).get(int(rec.get("partition_spec_id") or 0))
    if spec is None:
        return None
    used = {f.get("source-id") for f in spec.get("fields") or [] if f.get("transform") == "identity"}
    avro_types = {"long": "long", "int": "int", "string": "string"}
    source = next(((fid, t) for fid, t in _types(o, top_level=True).items()
                   if fid not in used and str(t) in avro_types), None)
    if source is None:
        return None
    fid, t = source
    names = {f["name"] for f in spec.get("fields") or []}
    name = next(n for n in (f"col_{fid}", f"col_{fid}_x", f"col_{fid}_y") if n not in names)
    new_id = max([int(o.doc.get("last-partition-id", 999))] + [int(f["field-id"]) for s in spec_by_id(o.doc).values()
                                                               for f in s.get("fields") or []]) + 1
    new_spec_id = max(spec_by_id(o.doc)) + 1
    fields = list(spec.get("fields") or []) + [{"source-id": fid, "field-id": new_id, "name": name,
                                                  "transform": "identity"}]
    o.doc.setdefault("partition-specs", []).append({"spec-id": new_spec_id, "fields": fields})
    o.doc["default-spec-id"] = new_spec_id
    o.doc["last-partition-id"] = new_id
    m = o.manifest(p)
    _partition_record(m)["fields"].append({"name": name, "type": ["null", avro_types[str(t)]], "default": None,
                                           "field-id": new_id})
    for r in m.records:
        r["data_file"].setdefault("partition", {})[name] = None
    m.meta["partition-spec"] = json.dumps(fields)
    m.meta["partition-spec-id"] = str(new_spec_id)
    for _s, list_path, _i, lrec in o.list_records():
        if lrec["manifest_path"] == p:
            lrec["partition_spec_id"] = new_spec_id
            if lrec.get("partitions") is not None:
                lrec["partitions"] = list(lrec["partitions"]) + [
                    {"contains_null": True, "contains_nan": False, "lower_bound": None, "upper_bound": None}]
            o.touch_list(list_path)
    o.touch_manifest(p)
    return (f"the table's spec evolved to spec {new_spec_id} (+ identity({fid}) as {name}); "
            f"{os.path.basename(p)}'s position deletes written under it with {name} null")


@damage("data.lower-bound", "manifest",
        "a negative decimal's bound read from its statistic bytes as unsigned (not sign-extended)",
        also=("manifests.bounds-order",),  # the unsigned lower bound may exceed the upper bound
        name="iceberg-rust-837-decimal-stat-var-len", bug="iceberg-rust-837-decimal-stat-var-len")
def _rust_decimal_unsigned(o: Overlay, rng: random.Random) -> str | None:
    cands = [c for c in _bounds_of(o, "lower_bounds", lambda t: isinstance(t, DecimalType)) if c[3]["value"][0] & 0x80]
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, t = c
    assert isinstance(t, DecimalType)
    raw = lo["value"]
    unsigned = int.from_bytes(raw, "big", signed=False)
    if len(str(unsigned)) > t.precision:
        return None
    lo["value"] = to_bytes(t, Decimal(unsigned).scaleb(-t.scale))
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] lower bound of column {lo['key']} {raw.hex()} re-read unsigned: "
            f"unscaled {unsigned} written ({lo['value'].hex()})")


# --- variant bounds (Appendix D: a serialized Variant object of normalized path -> bound) ----------

@damage("data.upper-bound", "manifest",
        "a variant binary upper bound cut to 16 bytes without rounding up (the plain prefix of a longer maximum)",
        name="iceberg-java-16880-variant-binary-upper-bound-truncated-down",
        bug="iceberg-java-16880-variant-binary-upper-bound-truncated-down")
def _java_variant_binary_truncated_down(o: Overlay, rng: random.Random) -> str | None:
    # Iceberg Java's default metrics mode truncate(16): a longer binary maximum is kept as its
    # 16-byte prefix with the last byte incremented; the bug kept the prefix as it is. A 16-byte
    # upper bound is such a rounded-up prefix when the file holds a longer value with that prefix
    # less one in its last byte; the case writes that prefix.
    cands = []
    for p, i, e, item, bounds in generic_data.variant_bounds(o, "upper_bounds"):
        lower = _bound(e["data_file"], "lower_bounds", int(item["key"]))
        lows = variant.bounds_from_bytes(lower["value"]) if lower is not None else {}
        for path, b in sorted(bounds.items()):
            if b.type != "binary" or len(b.value) != 16 or b.value[-1] == 0:
                continue
            prefix = b.value[:-1] + bytes([b.value[-1] - 1])
            longest = [v.value for v in generic_data.variant_values(e, int(item["key"])).get(path, [])]
            if any(isinstance(v, bytes) and len(v) > 16 and v[:16] == prefix for v in longest) \
                    and (path not in lows or lows[path].value <= prefix):
                cands.append((p, i, item, bounds, path, prefix))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, item, bounds, path, prefix = c
    was = bounds[path].value
    item["value"] = variant.bounds_to_bytes({**bounds, path: variant.Primitive("binary", prefix)})
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] variant upper bound of column {item['key']} at {path} "
            f"{was.hex()} written as the plain 16-byte prefix {prefix.hex()}")


@damage("data.upper-bound", "manifest",
        "variant string bounds picked in UTF-16 order (U+FFFD above U+1F600) instead of UTF-8 byte order",
        also=("data.lower-bound",),  # the UTF-16 least value may be a supplementary character too
        name="iceberg-java-17397-variant-string-bounds-utf16-order",
        bug="iceberg-java-17397-variant-string-bounds-utf16-order")
def _java_variant_string_utf16(o: Overlay, rng: random.Random) -> str | None:
    # The writer took min and max of a shredded string field with Java's String order (UTF-16
    # code units): a character above U+FFFF (a surrogate pair, D800..DBFF) sorts below U+E000..
    # U+FFFF there, above them in UTF-8. The case recomputes the bounds of a path in that order
    # from the file's values and writes them where they differ from the valid ones.
    def utf16(s: str) -> bytes:
        return s.encode("utf-16-be", "surrogatepass")
    cands = []
    for p, i, e, item, uppers in generic_data.variant_bounds(o, "upper_bounds"):
        fid = int(item["key"])
        lower = _bound(e["data_file"], "lower_bounds", fid)
        lowers = variant.bounds_from_bytes(lower["value"]) if lower is not None else {}
        for path, b in sorted(uppers.items()):
            strings = [v.value for v in generic_data.variant_values(e, fid).get(path, []) if v.type == "string"]
            if b.type != "string" or path not in lowers or not strings:
                continue
            hi16 = max(strings, key=utf16)
            if hi16.encode("utf-8") < max(strings, key=lambda s: s.encode("utf-8")).encode("utf-8"):
                cands.append((p, i, e, item, lower, uppers, lowers, path, min(strings, key=utf16), hi16))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, _e, item, lower, uppers, lowers, path, lo16, hi16 = c
    up = variant.truncate_upper(variant.Primitive("string", hi16), 16)
    if up is None or lower is None:
        return None
    item["value"] = variant.bounds_to_bytes({**uppers, path: up})
    lower["value"] = variant.bounds_to_bytes({**lowers, path: variant.truncate_lower(variant.Primitive("string", lo16),
                                                                                     16)})
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] variant bounds of column {item['key']} at {path} picked in UTF-16 "
            f"order: upper {hi16!r}, lower {lo16!r}")


def _rewrite_variant_rows(o: Overlay, rng: random.Random, wanted: Callable[[bytes, bytes | None], bool],
                          recode: Callable[[bytes, bytes | None], tuple[bytes, bytes | None]], what: str) -> str | None:
    """Rewrite the variant column of a Parquet data file (one with a row ``wanted`` takes): each
    valid row's metadata and top-level value as ``recode`` gives them. What was done (``what``: how
    the column was rewritten), or None when no file has such a row."""
    cols = generic_data._column_types(o)
    if "variant" not in cols.values():
        return None
    cands = []
    for p, _i, e in generic_data._parquet_data(o):
        path = str(e["data_file"]["file_path"])
        table = pq.read_table(local_path(path) or path)
        for n, f in enumerate(table.schema):
            fid = (f.metadata or {}).get(b"PARQUET:field_id")
            if fid is None or cols.get(int(fid)) != "variant" or not pa.types.is_struct(f.type):
                continue
            arr = table.column(n).combine_chunks()
            t = arr.type
            if t.get_field_index("metadata") < 0:
                continue
            metas = arr.field("metadata").to_pylist()
            values = arr.field("value").to_pylist() if t.get_field_index("value") >= 0 else [None] * len(metas)
            if any(ok and m and wanted(m, x) for ok, m, x in zip(arr.is_valid().to_pylist(), metas, values)):
                cands.append((path, table, n, arr))
    c = pick(rng, cands)
    if c is None:
        return None
    path, table, n, arr = c
    t = arr.type
    children = [arr.field(k) for k in range(t.num_fields)]
    mi, vi = t.get_field_index("metadata"), t.get_field_index("value")
    metas = children[mi].to_pylist()
    values = children[vi].to_pylist() if vi >= 0 else [None] * len(metas)
    new_metas, new_values = [], []
    for ok, meta, value in zip(arr.is_valid().to_pylist(), metas, values):
        meta, value = recode(meta, value) if ok and meta else (meta, value)
        new_metas.append(meta)
        new_values.append(value)
    children[mi] = pa.array(new_metas, children[mi].type)
    if vi >= 0:
        children[vi] = pa.array(new_values, children[vi].type)
    mask = arr.is_null() if arr.null_count else None
    new = pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    table = table.set_column(n, table.schema.field(n), new)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(path, buf.getvalue())
    return (f"{os.path.basename(path)}: variant column {table.schema.field(n).name!r} rewritten with {what} "
            "(file_size_in_bytes re-stamped)")


@damage("parquet.variant-sorted-strings", "data-file",
        "variant metadata with sorted_strings set over a dictionary that is not sorted (keys in descending order)",
        name="duckdb-23591-variant-sorted-strings", bug="duckdb-23591-variant-sorted-strings")
def _duckdb_variant_sorted_strings(o: Overlay, rng: random.Random) -> str | None:
    # DuckDB's Parquet Variant writer listed each row's object keys in the order it met them and
    # set sorted_strings regardless. The case rewrites the variant column of a data file so every
    # row's dictionary holds its keys in descending order (unsorted wherever it has two or more),
    # bit set, and the row's value re-encoded with the field ids of that dictionary: the values,
    # so the file's counts and bounds, are unchanged.
    def recode(meta: bytes, value: bytes | None) -> tuple[bytes, bytes | None]:
        keys = variant.decode_metadata(meta)[0]
        order = sorted(keys, key=lambda k: k.encode("utf-8"), reverse=True)
        return (variant.encode_metadata(order, as_given=True),
                None if value is None else variant.encode_value(variant.decode(meta, value),
                                                                {k: j for j, k in enumerate(order)}))
    return _rewrite_variant_rows(o, rng, lambda m, _v: len(variant.decode_metadata(m)[0]) > 1, recode,
                                 "each row's metadata dictionary in descending order, sorted_strings still set")


def _has_object_of_two(v: variant.Variant) -> bool:
    if isinstance(v, dict):
        return len(v) > 1 or any(_has_object_of_two(x) for x in v.values())
    return isinstance(v, list) and any(_has_object_of_two(x) for x in v)


@damage("parquet.variant-object-field-order", "data-file",
        "variant objects listing their field ids in descending order of the field names",
        name="duckdb-variant-object-field-order", bug="duckdb-variant-object-field-order")
def _duckdb_variant_field_order(o: Overlay, rng: random.Random) -> str | None:
    # DuckDB 1.5.5's Parquet Variant writer lists an object's field ids in the order it met the keys.
    # The case re-encodes each row's value with every object's field ids (and their offsets) in
    # descending order of the names, the dictionary kept sorted and sorted_strings set: only the
    # order of the ids is wrong; the values, counts and bounds are unchanged.
    def recode(meta: bytes, value: bytes | None) -> tuple[bytes, bytes | None]:
        keys = variant.decode_metadata(meta)[0]
        return meta, None if value is None else variant.encode_value(
            variant.decode(meta, value), {k: j for j, k in enumerate(keys)}, descending=True)
    return _rewrite_variant_rows(o, rng, lambda m, v: v is not None and _has_object_of_two(variant.decode(m, v)),
                                 recode, "each object's field ids in descending order of the field names")
