"""Damage cases of data files and what their manifest entries record of them."""

from __future__ import annotations

import io
import os
import random
import struct
from decimal import Decimal
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import (
    bump, damage, data_entries, dv_targets, pick, pick_entry, schemas,
)
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.units.datafile import byte_reversed, unscaled
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
