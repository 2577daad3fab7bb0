"""Damage cases of data files and what their manifest entries record of them."""

from __future__ import annotations

import io
import os
import random
import struct
from decimal import Decimal
from typing import Any, Callable

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage.files import file_format, rewrite_avro, rewrite_orc
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import (
    bump, damage, data_entries, dv_targets, pick, pick_entry, schemas,
)
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.units.datafile import byte_reversed, unscaled
from iceberg_conformance.reference import variant
from iceberg_conformance.reference.avro import read_container
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.metadata import parse_schema
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.types import ListType, MapType, StructType


@damage("files.missing", "data-file", "a live data file does not exist")
def _missing(o: Overlay, rng: random.Random) -> str | None:
    targets = dv_targets(o)
    c = pick_entry(o, rng, data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets))
    if c is None:
        return None
    p, i, e = c
    old = e["data_file"]["file_path"]
    for mp, _j, other in o.entries():
        if other["data_file"]["file_path"] == old:
            other["data_file"]["file_path"] = old + ".gone"
            o.touch_manifest(mp)
    return f"{old} renamed to a missing path in every entry"


def _relative_file_path(o: Overlay, rng: random.Random, form: Callable[[str, str], str],
                        contents: tuple[int, ...] = (0,)) -> str | None:
    """A live content file (of one of ``contents``) below the table location recorded in every
    entry as ``form(path, root)`` (``path`` the local path of the file, ``root`` the table
    location's); a data file a deletion vector targets is left alone."""
    location = str(o.doc.get("location", "")).rstrip("/")
    root = local_path(location) or location
    targets = dv_targets(o)
    c = pick_entry(o, rng, [x for content in contents for x in data_entries(
        o, content=content, where=lambda e: e["data_file"]["file_path"] not in targets and (
            local_path(e["data_file"]["file_path"]) or "").startswith(root + "/"))])
    if c is None or o.version > 3:
        return None
    old = c[2]["data_file"]["file_path"]
    new = form(local_path(old) or old, root)
    for mp, _j, other in o.entries():
        if other["data_file"]["file_path"] == old:
            other["data_file"]["file_path"] = new
            o.touch_manifest(mp)
    return f"{old} recorded as {new!r} in every entry"


@damage("manifests.file-path-relative", "data-file", "a live data file's file_path is relative to the table location",
        also=("files.outside-table", "deletes.target-not-live"))
def _file_path_relative(o: Overlay, rng: random.Random) -> str | None:
    return _relative_file_path(o, rng, lambda path, root: path[len(root) + 1:])


@damage("manifests.file-path-relative", "delete-file", "a live delete file's file_path is relative to the table location",
        also=("files.outside-table",), name="manifests.file-path-relative-delete-file")
def _delete_file_path_relative(o: Overlay, rng: random.Random) -> str | None:
    return _relative_file_path(o, rng, lambda path, root: path[len(root) + 1:], (1, 2))


@damage("manifests.file-path-relative", "data-file", "a live data file's file_path is a file: URI of a path relative to "
        "the working directory (file://./<warehouse>/<table>/data/...)", also=("deletes.target-not-live",),
        name="pyiceberg-1730-relative-file-uri", bug="pyiceberg-1730-relative-file-uri")
def _file_uri_relative(o: Overlay, rng: random.Random) -> str | None:
    return _relative_file_path(o, rng, lambda path, root: "file://./" + os.path.relpath(
        path, os.path.dirname(os.path.dirname(root))))


@damage("files.size", "data-file", "file_size_in_bytes differs from the file's size")
def _size(o: Overlay, rng: random.Random) -> str | None:
    return bump(o, rng, data_entries(o), "file_size_in_bytes")


@damage("data.record-count", "data-file", "record_count differs from the rows in the file",
        also=("snapshot.manifest-first-row-id-range",  # v3: the manifest now assigns more row ids
              "manifests.first-row-id-changed"))  # and the files after it inherit other ones
def _record_count(o: Overlay, rng: random.Random) -> str | None:
    targets = dv_targets(o)
    return bump(o, rng, data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets), "record_count")


def _top_level_ids(o: Overlay) -> set[int]:
    cur = next((s for s in schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), {})
    return {int(f["id"]) for f in cur.get("fields") or [] if isinstance(f.get("type"), str)}


@damage("data.value-count", "data-file", "a value count of a top-level column differs from the data")
def _value_count(o: Overlay, rng: random.Random) -> str | None:
    # top-level: inside a struct that is null in some rows writers count either way (both accepted)
    top = _top_level_ids(o)
    c = pick_entry(o, rng, data_entries(o, where=lambda e: any(
        int(x["key"]) in top for x in e["data_file"].get("value_counts") or [])))
    if c is None:
        return None
    p, i, e = c
    item = rng.choice([x for x in e["data_file"]["value_counts"] if int(x["key"]) in top])
    item["value"] = int(item["value"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].value_counts[{item['key']}] plus one"


@damage("data.null-value-count", "data-file", "a null count of a top-level column differs from the data")
def _null_count(o: Overlay, rng: random.Random) -> str | None:
    top = _top_level_ids(o)
    c = pick_entry(o, rng, data_entries(o, where=lambda e: any(
        int(x["key"]) in top for x in e["data_file"].get("null_value_counts") or [])))
    if c is None:
        return None
    p, i, e = c
    item = rng.choice([x for x in e["data_file"]["null_value_counts"] if int(x["key"]) in top])
    item["value"] = int(item["value"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].null_value_counts[{item['key']}] plus one"


def _column_types(o: Overlay) -> dict[int, str]:
    """Field id -> primitive type string of the current schema (top-level and nested)."""
    cur = next((s for s in schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
    if cur is None:
        return {}
    schema = parse_schema(cur)
    assert isinstance(schema, StructType)
    return {fid: str(info.field_type) for fid, info in walk(schema)
            if not isinstance(info.field_type, (StructType, ListType, MapType))}


def _typed_bounds(o: Overlay, which: str, types: tuple[str, ...]) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    cols = _column_types(o)
    out = []
    for p, i, e in data_entries(o):
        for item in e["data_file"].get(which) or []:
            t = cols.get(int(item["key"]), "")
            if any(t == x or t.startswith(x + "(") for x in types):
                out.append((p, i, e, item))
    return out


@damage("manifests.bound-decode", "data-file", "an int or date bound written 8 bytes wide")
def _bound_width(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, _typed_bounds(o, rng.choice(["lower_bounds", "upper_bounds"]), ("int", "date")))
    if c is None:
        c = pick(rng, _typed_bounds(o, "lower_bounds", ("int", "date")))
    if c is None:
        return None
    p, i, e, item = c
    v = struct.unpack("<i", item["value"])[0]
    item["value"] = struct.pack("<q", v)
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] bound of column {item['key']} widened to 8 bytes"


@damage("manifests.bound-decimal-minimal", "data-file", "a decimal bound not in the minimum number of bytes")
def _decimal_bound(o: Overlay, rng: random.Random) -> str | None:
    c = pick(rng, _typed_bounds(o, "lower_bounds", ("decimal",)) + _typed_bounds(o, "upper_bounds", ("decimal",)))
    if c is None:
        return None
    p, i, e, item = c
    b = item["value"]
    item["value"] = (b"\xff" if b and b[0] & 0x80 else b"\x00") + b
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] decimal bound of column {item['key']} padded by one byte"


@damage("manifests.bounds-order", "data-file", "a lower bound greater than its upper bound",
        also=("data.lower-bound", "data.upper-bound"))
def _bounds_order(o: Overlay, rng: random.Random) -> str | None:
    return _swap_bounds(o, rng, ("int", "long"), lambda lo, hi: lo != hi, "bounds")


def _swap_bounds(o: Overlay, rng: random.Random, types: tuple[str, ...],
                 accept: Callable[[bytes, bytes], bool], what: str) -> str | None:
    """Swap the lower and upper bound of one column of one entry, among the columns of ``types``
    whose (lower, upper) pair ``accept`` takes."""
    cands = []
    for p, i, e, lo in _typed_bounds(o, "lower_bounds", types):
        hi = next((x for x in e["data_file"].get("upper_bounds") or [] if x["key"] == lo["key"]), None)
        if hi is not None and accept(lo["value"], hi["value"]):
            cands.append((p, i, e, lo, hi))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, hi = c
    lo["value"], hi["value"] = hi["value"], lo["value"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] {what} of column {lo['key']} swapped"


@damage("manifests.bound-geo-point", "data-file", "geometry bound points swapped: lower y above upper y",
        also=("data.lower-bound", "data.upper-bound"))
def _geo_bounds_swapped(o: Overlay, rng: random.Random) -> str | None:
    def lower_y_below(lo: bytes, hi: bytes) -> bool:
        return len(lo) >= 16 and len(hi) == len(lo) \
            and struct.unpack_from("<d", lo, 8)[0] < struct.unpack_from("<d", hi, 8)[0]
    return _swap_bounds(o, rng, ("geometry",), lower_y_below, "geometry bound points")


@damage("data.lower-bound", "data-file", "a lower bound above the smallest value in the file")
def _lower_bound(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p, i, e, lo in _typed_bounds(o, "lower_bounds", ("int", "long")):
        hi = next((x for x in e["data_file"].get("upper_bounds") or [] if x["key"] == lo["key"]), None)
        if hi is not None and hi["value"] != lo["value"] and len(hi["value"]) == len(lo["value"]):
            cands.append((p, i, e, lo, hi))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, hi = c
    lo["value"] = hi["value"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] lower bound of column {lo['key']} raised to the upper bound"


@damage("data.partition-value", "data-file", "a data file's partition value is not the transform of its rows",
        also=("dv.partition",))  # the file's deletion vector stays in the partition it had
def _partition_value(o: Overlay, rng: random.Random) -> str | None:
    by_manifest: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for p, i, e in data_entries(o):
        part = e["data_file"].get("partition") or {}
        if part:
            by_manifest.setdefault(p, []).append((i, e))
    pairs = []
    for p, es in by_manifest.items():
        for a in range(len(es)):
            for b in range(a + 1, len(es)):
                pa, pb = es[a][1]["data_file"]["partition"], es[b][1]["data_file"]["partition"]
                for k in pa:
                    if pa[k] is not None and pb.get(k) is not None and pa[k] != pb[k]:
                        pairs.append((p, es[a], es[b], k))
    c = pick(rng, pairs)
    if c is None:
        return None
    p, (i, ea), (j, eb), k = c
    # swap one partition value between two files of the same manifest: the summary still covers
    ea["data_file"]["partition"][k], eb["data_file"]["partition"][k] = \
        eb["data_file"]["partition"][k], ea["data_file"]["partition"][k]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] and [{j}] partition {k} swapped"


def _parquet_data(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    targets = dv_targets(o)
    return data_entries(o, where=lambda e: str(e["data_file"].get("file_format")).upper() == "PARQUET"
                         and e["data_file"]["file_path"] not in targets)


@damage("data.unreadable", "data-file", "a data file is not readable Parquet")
def _unreadable(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, _parquet_data(o))
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    with open(local_path(path) or path, "rb") as f:
        data = f.read()
    o.copy_file(path, data[: len(data) // 2])
    return f"{os.path.basename(path)} cut in half (file_size_in_bytes re-stamped)"


@damage("parquet.field-id-missing", "data-file", "a Parquet data file without field ids")
def _no_field_ids(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, _parquet_data(o))
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    table = pq.read_table(local_path(path) or path)

    def strip(f: pa.Field) -> pa.Field:
        t = f.type
        if pa.types.is_struct(t):
            t = pa.struct([strip(x) for x in t])
        elif pa.types.is_list(t):
            t = pa.list_(strip(t.value_field))
        elif pa.types.is_map(t):
            t = pa.map_(strip(t.key_field).type, strip(t.item_field))
        return pa.field(f.name, t, f.nullable)

    bare = pa.schema([strip(f) for f in table.schema])
    buf = io.BytesIO()
    pq.write_table(table.cast(bare), buf)
    o.copy_file(path, buf.getvalue())
    return f"{os.path.basename(path)} rewritten without field ids (file_size_in_bytes re-stamped)"


def _appended_parquet(o: Overlay) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    """(manifest, index, entry, its manifest-list record) of every Parquet data file ADDED by a
    snapshot whose operation is ``append`` (v3 tables)."""
    if o.version < 3:
        return []
    appends = {int(s["snapshot-id"]) for s in o.snapshots()
               if isinstance(s.get("summary"), dict) and s["summary"].get("operation") == "append"}
    records: dict[str, dict[str, Any]] = {}
    for _s, _l, _i, rec in o.list_records():
        records.setdefault(str(rec["manifest_path"]), rec)
    out = []
    for p, i, e in _parquet_data(o):
        listed = records.get(p)
        sid = e.get("snapshot_id") if e.get("snapshot_id") is not None else (listed or {}).get("added_snapshot_id")
        if e.get("status") == 1 and sid in appends and listed is not None:
            out.append((p, i, e, listed))
    return out


def _with_lineage_column(o: Overlay, rng: random.Random, fid: int) -> str | None:
    """Rewrite an appended data file with the row-lineage column ``fid`` holding, for every row,
    the value a reader inherits (``_row_id``: the file's first_row_id plus the row position;
    ``_last_updated_sequence_number``: the data sequence number): the rows read the same, but
    they are written non-null where an added row's value is written null."""
    c = pick(rng, _appended_parquet(o))
    if c is None:
        return None
    p, i, e, rec = c
    df = e["data_file"]
    path = str(df["file_path"])
    table = pq.read_table(local_path(path) or path)
    n = table.num_rows
    if fid == 2147483540:
        first = df.get("first_row_id")
        if first is None and rec.get("first_row_id") is not None:  # inherited: the manifest's plus the
            first = int(rec["first_row_id"])                         # rows of files before it
            for other in o.manifest(p).records[:i]:
                odf = other["data_file"]
                if int(odf.get("content", 0) or 0) == 0 and odf.get("first_row_id") is None:
                    first += int(odf.get("record_count") or 0)
        values = [int(first or 0) + pos for pos in range(n)]
        name = "_row_id"
    else:
        seq = e.get("sequence_number") if e.get("sequence_number") is not None else rec.get("sequence_number")
        values = [int(seq or 0)] * n
        name = "_last_updated_sequence_number"
    column = pa.field(name, pa.int64(), True, metadata={b"PARQUET:field_id": str(fid).encode()})
    table = table.append_column(column, pa.array(values, pa.int64()))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(path, buf.getvalue())
    return (f"{os.path.basename(path)} (ADDED by append snapshot {e.get('snapshot_id') or rec.get('added_snapshot_id')}) "
            f"rewritten with a non-null {name} column (field {fid}) holding the inherited values")


@damage("data.added-row-id-null", "data-file", "an appended data file writes non-null _row_id values")
def _added_row_id(o: Overlay, rng: random.Random) -> str | None:
    return _with_lineage_column(o, rng, 2147483540)


@damage("data.added-last-updated-null", "data-file",
        "an appended data file writes non-null _last_updated_sequence_number values")
def _added_last_updated(o: Overlay, rng: random.Random) -> str | None:
    return _with_lineage_column(o, rng, 2147483539)


@damage("parquet.decimal-byte-order", "data-file",
        "a fixed_len_byte_array decimal column written with its unscaled values little-endian",
        also=("data.lower-bound", "data.upper-bound"))  # the bounds keep the values the writer meant
def _decimal_little_endian(o: Overlay, rng: random.Random) -> str | None:
    cols = {fid: t for fid, t in _column_types(o).items() if t.startswith("decimal(")}
    top = _top_level_ids(o)
    cands = []
    for p, i, e in _parquet_data(o):
        df = e["data_file"]
        bounded = {int(x["key"]) for x in df.get("lower_bounds") or []} & {int(x["key"]) for x in
                                                                          df.get("upper_bounds") or []}
        path = str(df["file_path"])
        meta = pq.ParquetFile(local_path(path) or path).metadata
        for fid in sorted(bounded & set(cols) & top):
            field = next((f for f in pq.read_schema(local_path(path) or path)
                          if (f.metadata or {}).get(b"PARQUET:field_id") == str(fid).encode()), None)
            col = next((meta.schema.column(j) for j in range(meta.num_columns)
                        if field is not None and meta.schema.column(j).path == field.name), None)
            if field is None or col is None or col.physical_type != "FIXED_LEN_BYTE_ARRAY":
                continue
            cands.append((p, i, e, fid, field.name, col.length))
    rng.shuffle(cands)
    for p, i, e, fid, name, width in cands:
        path = str(e["data_file"]["file_path"])
        table = pq.read_table(local_path(path) or path)
        t = table.schema.field(name).type
        values = table.column(name).to_pylist()
        flipped = [None if v is None else byte_reversed(unscaled(v, t.scale), width) for v in values]
        real = [unscaled(v, t.scale) for v in values if v is not None]
        stored = [x for x in flipped if x is not None]
        if not real or (min(stored) >= min(real) and max(stored) <= max(real)) \
                or any(len(str(abs(x))) > t.precision for x in stored):
            continue  # the reversed bytes read within the bounds, or hold more digits than P
        exact = [None if x is None else Decimal((int(x < 0), tuple(int(d) for d in str(abs(x))), -t.scale))
                 for x in flipped]  # built from the digits: no rounding to the context's precision
        arr = pa.array(exact, t)
        table = table.set_column(table.schema.get_field_index(name), table.schema.field(name), arr)
        buf = io.BytesIO()
        pq.write_table(table, buf)
        o.copy_file(path, buf.getvalue())
        return (f"{os.path.basename(path)}: decimal column {name!r} (field {fid}, fixed_len_byte_array({width})) "
                "rewritten with each unscaled value's bytes in little-endian order")
    return None


# --- Avro and ORC data files -----------------------------------------------------------------

def _format_data(o: Overlay, fmt: str) -> list[tuple[str, int, dict[str, Any]]]:
    targets = dv_targets(o)
    return data_entries(o, where=lambda e: file_format(e) == fmt and e["data_file"]["file_path"] not in targets)


def _avro_case(o: Overlay, rng: random.Random,
               victims: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
               change: Callable[[dict[str, Any], dict[str, Any], list[dict[str, Any]]], str]) -> str | None:
    """Rewrite one top-level field of one Avro data file: ``victims`` picks the candidate fields
    (record field objects of the writer schema) of a file, ``change`` edits the chosen one (the
    field, the schema, the raw records) and says what it did."""
    cands: list[tuple[str, str]] = []
    for _p, _i, e in _format_data(o, "AVRO"):
        path = str(e["data_file"]["file_path"])
        schema = read_container(local_path(path) or path)[0]
        cands.extend((path, str(f["name"])) for f in victims(schema.get("fields") or []))
    c = pick(rng, sorted(set(cands)))
    if c is None:
        return None
    path, name = c

    def edit(schema: Any, records: list[dict[str, Any]]) -> str:
        field = next(f for f in schema["fields"] if f["name"] == name)
        return f"{os.path.basename(path)}: field {name!r} " + change(field, schema, records)
    return rewrite_avro(o, path, edit)


def _branch(field: dict[str, Any]) -> dict[str, Any] | None:
    """The non-null branch of an Avro field's type when it is a schema object."""
    t = field.get("type")
    if isinstance(t, list):
        t = next((b for b in t if b != "null"), None)
    return t if isinstance(t, dict) else None


def _set_branch(field: dict[str, Any], new: Any) -> None:
    t = field["type"]
    field["type"] = [new if b != "null" else b for b in t] if isinstance(t, list) else new


@damage("avro.field-id-missing", "data-file", "an Avro data file whose schema lacks the field-id of one field")
def _avro_no_field_id(o: Overlay, rng: random.Random) -> str | None:
    def change(field: dict[str, Any], _schema: Any, _records: list[dict[str, Any]]) -> str:
        del field["field-id"]
        return "written without its field-id"
    return _avro_case(o, rng, lambda fields: [f for f in fields if "field-id" in f], change)


@damage("avro.type-mapping", "data-file", "an Avro timestamp column written as timestamp-millis",
        also=("data.lower-bound", "data.upper-bound"))  # the values are milliseconds now
def _avro_timestamp_millis(o: Overlay, rng: random.Random) -> str | None:
    def change(field: dict[str, Any], _schema: Any, records: list[dict[str, Any]]) -> str:
        branch = dict(_branch(field) or {}, logicalType="timestamp-millis")
        _set_branch(field, branch)
        for r in records:
            if r.get(field["name"]) is not None:
                r[field["name"]] //= 1000
        return "rewritten as timestamp-millis (milliseconds from the epoch)"
    return _avro_case(o, rng, lambda fields: [f for f in fields if (_branch(f) or {}).get("logicalType")
                                              == "timestamp-micros"], change)


@damage("avro.decimal-fixed-size", "data-file", "an Avro decimal column stored in a fixed one byte longer than needed")
def _avro_decimal_size(o: Overlay, rng: random.Random) -> str | None:
    def change(field: dict[str, Any], _schema: Any, records: list[dict[str, Any]]) -> str:
        branch = _branch(field) or {}
        size = int(branch["size"]) + 1
        _set_branch(field, dict(branch, size=size, name=f"{branch['name']}_{size}"))
        for r in records:
            v = r.get(field["name"])
            if v is not None:
                r[field["name"]] = int.from_bytes(v, "big", signed=True).to_bytes(size, "big", signed=True)
        return f"stored as fixed({size}), one byte more than its precision needs"
    return _avro_case(o, rng, lambda fields: [f for f in fields if (_branch(f) or {}).get("type") == "fixed"
                                              and (_branch(f) or {}).get("logicalType") == "decimal"], change)


@damage("avro.map-non-string-key", "data-file", "an Avro map column with non-string keys stored as an Avro map",
        also=("data.bound-undecodable", "data.lower-bound", "data.upper-bound"))  # the keys read as strings
def _avro_map_string_keys(o: Overlay, rng: random.Random) -> str | None:
    def is_key_value(b: dict[str, Any] | None) -> bool:
        items = (b or {}).get("items")
        return (b or {}).get("logicalType") == "map" and isinstance(items, dict) and len(items.get("fields") or []) == 2

    def change(field: dict[str, Any], _schema: Any, records: list[dict[str, Any]]) -> str:
        branch = _branch(field) or {}
        key, value = branch["items"]["fields"]
        _set_branch(field, {"type": "map", "values": value["type"], "key-id": key["field-id"],
                            "value-id": value["field-id"]})
        for r in records:
            pairs = r.get(field["name"])
            if pairs is not None:
                r[field["name"]] = {str(kv["key"]): kv["value"] for kv in pairs}
        return "rewritten as an Avro map, its keys as strings"
    def victims(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [f for f in fields if is_key_value(b := _branch(f)) and b is not None
                and b["items"]["fields"][0].get("type") != "string"]
    return _avro_case(o, rng, victims, change)


def _orc_case(o: Overlay, rng: random.Random, victims: Callable[[Any], list[str]],
              change: Callable[[Any, str], tuple[Any, str]]) -> str | None:
    """Rewrite one top-level column of one ORC data file: ``victims`` names the candidate
    columns of a file's Arrow table (type attributes in the field metadata), ``change`` returns
    the new table and what it did."""
    cands: list[tuple[str, str]] = []
    for _p, _i, e in _format_data(o, "ORC"):
        path = str(e["data_file"]["file_path"])
        with open(local_path(path) or path, "rb") as f:
            table = orc.ORCFile(f).read()
        cands.extend((path, name) for name in victims(table))
    c = pick(rng, sorted(set(cands)))
    if c is None:
        return None
    path, name = c

    def edit(t: Any) -> tuple[Any, str]:
        new, what = change(t, name)
        return new, f"{os.path.basename(path)}: column {name!r} {what}"
    return rewrite_orc(o, path, edit)


def _with_field(table: Any, name: str, field: Any, values: Any = None) -> Any:
    i = table.schema.get_field_index(name)
    return table.set_column(i, field, table.column(i).cast(field.type) if values is None else values)


@damage("orc.field-id-missing", "data-file", "an ORC data file whose column lacks its iceberg.id attribute")
def _orc_no_field_id(o: Overlay, rng: random.Random) -> str | None:
    def change(t: Any, name: str) -> tuple[Any, str]:
        f = t.schema.field(name)
        meta = {k: v for k, v in (f.metadata or {}).items() if k != b"iceberg.id"}
        return _with_field(t, name, f.with_metadata(meta)), "written without its iceberg.id type attribute"
    return _orc_case(o, rng, lambda t: [f.name for f in t.schema if b"iceberg.id" in (f.metadata or {})], change)


@damage("orc.required-attribute", "data-file", "an ORC column of a required field marked iceberg.required=false")
def _orc_not_required(o: Overlay, rng: random.Random) -> str | None:
    required = {int(f["id"]) for s in schemas(o) for f in s.get("fields") or [] if f.get("required")}
    optional = {int(f["id"]) for s in schemas(o) for f in s.get("fields") or [] if not f.get("required")}

    def change(t: Any, name: str) -> tuple[Any, str]:
        f = t.schema.field(name)
        return _with_field(t, name, f.with_metadata({**(f.metadata or {}), b"iceberg.required": b"false"})), \
            "of a required field written with iceberg.required=false"
    return _orc_case(o, rng, lambda t: [f.name for f in t.schema if (fid := (f.metadata or {}).get(b"iceberg.id"))
                                        is not None and int(fid) in required - optional], change)


@damage("orc.type-mapping", "data-file", "an ORC timestamptz column written as timestamp (not timestamp_instant)")
def _orc_instant_as_local(o: Overlay, rng: random.Random) -> str | None:
    def change(t: Any, name: str) -> tuple[Any, str]:
        f = t.schema.field(name)
        return _with_field(t, name, f.with_type(pa.timestamp(f.type.unit))), \
            "written as ORC timestamp instead of timestamp_instant (same instants)"
    return _orc_case(o, rng, lambda t: [f.name for f in t.schema if pa.types.is_timestamp(f.type) and f.type.tz],
                     change)


@damage("orc.timestamp-nanos", "data-file", "an ORC timestamp value that keeps nanoseconds")
def _orc_nanos(o: Overlay, rng: random.Random) -> str | None:
    def non_negative(t: Any, name: str) -> list[int]:
        return [i for i, v in enumerate(t.column(name).cast(pa.int64()).to_pylist()) if v is not None and v >= 0]

    def change(t: Any, name: str) -> tuple[Any, str]:
        f = t.schema.field(name)
        values = t.column(name).cast(pa.int64()).to_pylist()
        i = non_negative(t, name)[0]
        values[i] += 1  # 1 ns past a whole microsecond: read truncated it is the same microsecond
        return _with_field(t, name, f, pa.array(values, pa.int64()).cast(f.type)), \
            f"row {i} keeps 1 ns beyond its microsecond"

    def victims(t: Any) -> list[str]:
        return [f.name for f in t.schema if pa.types.is_timestamp(f.type) and f.type.unit == "ns"
                and (f.metadata or {}).get(b"iceberg.timestamp-unit", b"MICROS") == b"MICROS"
                and non_negative(t, f.name)]
    return _orc_case(o, rng, victims, change)


def variant_bounds(o: Overlay, which: str) -> list[tuple[str, int, dict[str, Any], dict[str, Any],
                                                       dict[str, variant.Primitive]]]:
    """(manifest, index, entry, bound item, decoded bounds by path) of the live data files' bounds
    of variant columns (none under a name mapping: files without field ids are not compared)."""
    if "schema.name-mapping.default" in (o.doc.get("properties") or {}):
        return []
    cols = _column_types(o)
    out = []
    for p, i, e in data_entries(o):
        for item in e["data_file"].get(which) or []:
            if cols.get(int(item["key"])) != "variant":
                continue
            try:
                out.append((p, i, e, item, variant.bounds_from_bytes(item["value"])))
            except SpecViolation:
                continue
    return out


@damage("manifests.variant-bound-type", "data-file",
        "a variant upper bound of another Variant type than its lower bound (a string bound written as binary)")
def _variant_bound_type(o: Overlay, rng: random.Random) -> str | None:
    cands = [(p, i, item, bounds, path) for p, i, _e, item, bounds in variant_bounds(o, "upper_bounds")
             for path, b in sorted(bounds.items()) if b.type == "string"]
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, item, bounds, path = c
    item["value"] = variant.bounds_to_bytes(
        {**bounds, path: variant.Primitive("binary", bounds[path].value.encode("utf-8"))})
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] variant upper bound of column {item['key']} at {path} written as binary"


def variant_values(e: dict[str, Any], fid: int) -> dict[str, list[variant.Primitive]]:
    """The non-null values of variant column ``fid`` of an entry's Parquet data file, by normalized
    path."""
    df = e["data_file"]
    if str(df.get("file_format")).upper() != "PARQUET":
        return {}
    path = str(df["file_path"])
    table = pq.read_table(local_path(path) or path)
    col = next((n for n, f in enumerate(table.schema)
                if (f.metadata or {}).get(b"PARQUET:field_id") == str(fid).encode()), None)
    out: dict[str, list[variant.Primitive]] = {}
    for chunk in table.column(col).chunks if col is not None else []:
        for r in variant.unshred(chunk):
            if r is not None:
                variant.values_by_path(r, "$", out)
    return out


@damage("data.variant-bound-mixed-types", "data-file",
        "variant bounds written for a path whose values have mixed Variant types (a string and an int)")
def _variant_bound_mixed(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p, i, e, item, uppers in variant_bounds(o, "upper_bounds"):
        lower = next((x for x in e["data_file"].get("lower_bounds") or [] if x["key"] == item["key"]), None)
        if lower is None:
            continue
        lowers = variant.bounds_from_bytes(lower["value"])
        for path, values in sorted(variant_values(e, int(item["key"])).items()):
            strings = sorted((x.value for x in values if x.type == "string"), key=lambda s: s.encode("utf-8"))
            if path not in uppers and strings and len(strings) < len(values):
                cands.append((p, i, item, lower, uppers, lowers, path, strings))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, item, lower, uppers, lowers, path, strings = c
    lo, hi = variant.Primitive("string", strings[0]), variant.Primitive("string", strings[-1])
    lower["value"] = variant.bounds_to_bytes({**lowers, path: lo})
    item["value"] = variant.bounds_to_bytes({**uppers, path: hi})
    o.touch_manifest(p)
    return (f"{os.path.basename(p)} entries[{i}] variant bounds of column {item['key']} given for {path}, whose "
            "values are strings and other types")
