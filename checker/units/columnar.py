"""The columnar screen of a manifest: the checker's fast path for the entry rules.

:func:`reference.manifests.read_manifest` decodes a manifest a record at a time and checks each
entry; on a table of a million entries that is most of a metadata-only check. This module
decodes the same rebuilt container (:func:`reference.avro.container_bytes`: blocks checked and
decompressed with the reader's limits, codec null, logical types removed) in one call with
Polars' Avro reader, hands the columns to Arrow without a copy, and evaluates every entry rule of
``read_manifest`` over whole columns with NumPy and Arrow compute, and the rules of a manifest
against its manifest-list record as aggregates.

The screen only *certifies*: it never writes a finding about an entry. When every entry rule
holds for every entry, the manifest's findings are those of its header and partition struct,
computed by the same functions ``read_manifest`` calls (:func:`~reference.manifests.manifest_header`,
:func:`~reference.manifests.entry_schema`). When any rule might not hold, when a column has a
type the screen does not know, or when Polars cannot read the file, :func:`screen_manifest`
returns ``None`` and the caller reads the manifest record by record, so every finding is
written, located and worded by the one implementation of its rule. The screen must therefore be
conservative: a rule it cannot evaluate exactly marks the manifest for the record reader.
``tests/test_columnar_screen.py`` holds it to that on every damage case, the golden tables and
generated mutations of entries.

``ICEBERG_CONFORMANCE_COLUMNAR=0`` turns the screen off (every manifest read record by record).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from iceberg_conformance.checker.plan import LiveDigest
from iceberg_conformance.reference.avro import container_bytes, inline_named_types
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.manifests import (
    bound_columns, check_bounds, check_summaries, decode_partition, entry_plan, entry_schema, fields_by_id,
    manifest_header, ManifestContext, named_as_spec,
)
from iceberg_conformance.reference.types import DoubleType, FloatType, StringType, StructType
from iceberg_conformance.reference.values import value_from_json

#: the largest rebuilt (decompressed) manifest the screen decodes at once; larger ones stream
LIMIT = 64 << 20


@dataclass
class Screened:
    """A manifest the screen certified: the findings of each context (header and partition
    struct; no entry rule fired), and the columns the checker's live digest is built from."""

    findings: list[list[Finding]]
    frame: "_Frame"


class _Unsure(Exception):
    """A rule the screen cannot certify: the manifest goes to the record reader."""


def screen(path: str, version: int, contexts: list[ManifestContext]) -> Screened | str:
    """Certify one manifest for each of ``contexts`` (the distinct manifest-list records naming
    it), or say why not (then read it record by record; ``where``: the screen's function and line)."""
    try:
        got = _screen(path, version, contexts)
    except _Unsure as e:
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        got = f"unsure in {tb.tb_frame.f_code.co_name} line {tb.tb_lineno}" if tb else "unsure"
    except Exception as e:  # noqa: BLE001 - a column of an unexpected type or shape: the record reader decides
        got = f"{type(e).__name__}: {str(e)[:200]}"
    except BaseException as e:  # Polars' Rust panics (pyo3 PanicException) derive from BaseException
        if type(e).__name__ != "PanicException":
            raise
        got = f"Polars panicked: {str(e)[:200]}"
    return got if isinstance(got, Screened) else (got or "not screened")


def screen_manifest(path: str, version: int, contexts: list[ManifestContext]) -> Screened | None:
    """:func:`screen`, or ``None`` when the manifest is to be read record by record."""
    got = screen(path, version, contexts)
    return got if isinstance(got, Screened) else None


def _screen(path: str, version: int, contexts: list[ManifestContext]) -> Screened | str | None:
    import polars as pl


    try:
        got = container_bytes(path, LIMIT)
    except SpecViolation as e:
        return f"the container does not read: {e.rule}"
    if got is None:
        return f"over {LIMIT} bytes decompressed"
    writer_schema, meta, data, declared = got
    header: list[Finding] = []
    opened = manifest_header(writer_schema, meta, version, path, header)
    if opened is None:
        return "the entries do not read"
    version, layout = opened
    plan = entry_plan(version, layout, lean=True)
    if not named_as_spec(plan, layout):
        return "fields not named as the spec names them"
    if version == 1 and 134 in layout.data_file:
        return "a v1 manifest with a content field"  # read as written: the record reader decides
    odd = _unplain_avro(inline_named_types(writer_schema))   # the schema Polars is handed (container_bytes)
    if odd:
        return odd
    table = pl.read_avro(io.BytesIO(data)).to_arrow(compat_level=pl.CompatLevel.newest())
    if table.num_rows != declared:
        return f"{table.num_rows} records decoded, the blocks declare {declared}"
    frame = _Frame(table)
    _entries(frame, version, meta.get("content", "data"))
    partitions = _partition_columns(frame, layout)
    out: list[list[Finding]] = []
    for ctx in contexts:
        found = list(header)
        schema = entry_schema(version, meta, layout.partition_type, path, ctx, found)
        if ctx.sort_order_ids is not None:
            ids, valid = frame.ints("sort_order_id")
            _none(valid & ~np.isin(ids, list(ctx.sort_order_ids)))
        if schema is not None:
            _bounds(frame, schema, path)
        if ctx.manifest_file is not None:
            _list_entry(frame, ctx.manifest_file, version, meta, layout.partition_type, partitions, path)
        out.append(found)
    return Screened(out, frame)


_AVRO_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


def _unplain_avro(schema: Any) -> str:
    """Why Polars may not be handed this writer schema ("" when it may): it panics, rather than
    raising, on a type name it does not know. The schema has the shape
    :func:`reference.avro.container_bytes` checked (no record names a field twice, which Polars
    panics on too). It is given the schema as Polars gets it, named fixed and enum types defined
    at each use; a name that still refers to a type (a record named by reference) goes to the
    record reader: the Iceberg manifest schema defines every record inline."""
    stack: list[Any] = [schema]
    while stack:
        s = stack.pop()
        if isinstance(s, list):
            stack.extend(s)
            continue
        if isinstance(s, str):
            if s not in _AVRO_PRIMITIVES:
                return f"Avro type {s[:40]!r} is not a primitive"
            continue
        if not isinstance(s, dict):
            return "an Avro schema of an unexpected shape"
        kind = s.get("type")
        if isinstance(kind, (dict, list)):
            stack.append(kind)
        elif kind == "record":
            stack.extend(f.get("type") for f in s.get("fields") or [])
        elif kind == "array":
            stack.append(s.get("items"))
        elif kind == "map":
            stack.append(s.get("values"))
        elif kind not in _AVRO_PRIMITIVES and kind != "fixed":
            return f"Avro type {str(kind)[:40]!r} is not one the screen reads"
    return ""


# --- columns ------------------------------------------------------------------------------------

class _Frame:
    """The entry fields and the ``data_file`` fields of a decoded manifest, by name."""

    def __init__(self, table: Any) -> None:
        self.n = table.num_rows
        self.cols: dict[str, Any] = {}
        for name in table.column_names:
            if name != "data_file":
                self.cols[name] = table.column(name).combine_chunks()
        df = table.column("data_file").combine_chunks() if "data_file" in table.column_names else None
        if df is None or not pa.types.is_struct(df.type) or df.null_count:
            raise _Unsure  # data_file missing or null: not decodable
        for i in range(df.type.num_fields):
            name = df.type.field(i).name
            if name in self.cols:
                raise _Unsure
            self.cols[name] = df.field(i)

    def ints(self, name: str) -> tuple[Any, Any]:
        """(values, valid) of an integer column; absent: all null."""
        col = self.cols.get(name)
        if col is None:
            return np.zeros(self.n, np.int64), np.zeros(self.n, bool)
        if not pa.types.is_integer(col.type):
            raise _Unsure
        valid = np.ones(self.n, bool) if not col.null_count else np.asarray(col.is_valid())
        return np.asarray(col.fill_null(0) if col.null_count else col).astype(np.int64), valid

    def strings(self, name: str) -> Any:
        """A string column as Arrow ``large_string`` (``None`` when absent)."""
        col = self.cols.get(name)
        if col is None:
            return None
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
                or pa.types.is_string_view(col.type)):
            raise _Unsure
        return col.cast(pa.large_string())

    def content(self) -> Any:
        c, valid = self.ints("content")
        return np.where(valid, c, 0)

    def is_puffin(self) -> Any:
        fmt = self.strings("file_format")
        if fmt is None:
            return np.zeros(self.n, bool)
        return np.asarray(pc.equal(pc.utf8_lower(fmt), "puffin").fill_null(False))


def _none(bad: Any) -> None:
    """Raise :class:`_Unsure` unless ``bad`` is false for every entry."""
    if bool(np.any(bad)):
        raise _Unsure


def _fully_qualified(paths: Any) -> Any:
    """``reference.metadata.fully_qualified`` over a column (true: the path is one): absolute, a
    URI of another scheme than ``file``, or a ``file:`` URI of an absolute path."""
    def like(pattern: str) -> Any:
        return pc.match_substring_regex(paths, pattern)
    other_scheme = pc.and_(like(r"^[A-Za-z][A-Za-z0-9+.\-]*:"), pc.invert(like(r"^(?i)file:")))
    file_absolute = pc.and_(like(r"^(?i)file:/"), pc.invert(like(r"^(?i)file://\.\.?(/|$)")))
    return np.asarray(pc.or_(pc.or_(like(r"^[/\\]"), other_scheme), file_absolute).fill_null(False))


def _entries(frame: _Frame, version: int, content_header: str) -> None:
    """Every rule ``read_manifest`` checks of one entry on its own."""
    paths = frame.strings("file_path")
    if paths is None or paths.null_count:
        raise _Unsure
    _none(~_fully_qualified(paths))
    frame.strings("referenced_data_file")
    status, status_ok = frame.ints("status")
    c = frame.content()
    puffin = frame.is_puffin()
    first_row_id = frame.ints("first_row_id")[1]
    offset, size = frame.ints("content_offset")[1], frame.ints("content_size_in_bytes")[1]
    bad = ~status_ok | (status < 0) | (status > 2) | (c < 0) | (c > 2)
    if version == 1:
        bad |= ~frame.ints("snapshot_id")[1]
    if version >= 2:
        bad |= ((status == 0) | (status == 2)) & ~(frame.ints("sequence_number")[1] & frame.ints("file_sequence_number")[1])
        if content_header in ("data", "deletes"):
            bad |= (c == 0) != (content_header == "data")
    if version == 2:
        bad |= (c == 1) & puffin
    for name in ("record_count", "file_size_in_bytes"):
        v, ok = frame.ints(name)
        bad |= ok & (v < 0)
    eq = frame.cols.get("equality_ids")
    if eq is None:
        bad |= c == 2
    else:
        bad |= (c == 2) & ~np.asarray(pc.greater(pc.list_value_length(eq), 0).fill_null(False))
        bad |= (c != 2) & _valid(frame, "equality_ids")
    offsets = frame.cols.get("split_offsets")
    if offsets is not None:
        if not (pa.types.is_list(offsets.type) or pa.types.is_large_list(offsets.type)) \
                or not pa.types.is_integer(offsets.type.value_type):
            raise _Unsure
        values = pc.list_flatten(offsets)
        if values.null_count:
            raise _Unsure
        if len(values) > 1:
            parents = np.asarray(pc.list_parent_indices(offsets))
            v = np.asarray(values).astype(np.int64)
            _none((np.diff(v) < 0) & (np.diff(parents) == 0))
    if version >= 3:
        bad |= (status == 1) & (c == 0) & first_row_id
        bad |= offset & ~size
        bad |= (c != 0) & first_row_id
        bad |= (c == 1) & puffin & ~(frame.ints("content_offset")[1] & size & _valid(frame, "referenced_data_file"))
    _none(bad)


def _valid(frame: _Frame, name: str) -> Any:
    col = frame.cols.get(name)
    if col is None:
        return np.zeros(frame.n, bool)
    return np.ones(frame.n, bool) if not col.null_count else np.asarray(col.is_valid())


def _plain(col: Any) -> Any:
    """A string or binary view array as a ``large_string`` or ``large_binary`` one (Arrow's
    ``unique`` takes the nulls of a view array for empty values)."""
    if pa.types.is_string_view(col.type):
        return col.cast(pa.large_string())
    if pa.types.is_binary_view(col.type):
        return col.cast(pa.large_binary())
    return col


def _partition_columns(frame: _Frame, layout: Any) -> list[list[Any]]:
    """The distinct partition values of each partition field, decoded as ``read_manifest`` decodes
    them (:func:`~reference.manifests.decode_partition`; a value that does not decode goes to the
    record reader) and in the form the partition summaries are checked in; float fields keep
    every value (the sign of a zero counts)."""
    ptype: StructType = layout.partition_type
    if not ptype.fields:
        return []
    part = frame.cols.get("partition")
    if part is None or not pa.types.is_struct(part.type):
        raise _Unsure
    cols: list[list[Any]] = []
    for f in ptype.fields:
        name = layout.partition_names.get(f.field_id, f.name)
        values = _plain(part.field(name))
        if part.null_count:  # a null struct reads as every field null
            values = pc.if_else(part.is_valid(), values, pa.nulls(len(values), values.type))
        floats = isinstance(f.field_type, (FloatType, DoubleType))
        raw = values.to_pylist() if floats else pc.unique(values).to_pylist()
        one = StructType((f,))
        decoded = []
        for v in raw:
            try:
                got = decode_partition(one, {name: v}, {f.field_id: name})[str(f.field_id)]
            except Exception:  # noqa: BLE001 - reported by the record reader as not decodable
                raise _Unsure from None
            decoded.append(None if got is None else value_from_json(f.field_type, got))
        cols.append(decoded)
    return cols


def _list_entry(frame: _Frame, mf: dict[str, Any], version: int, meta: dict[str, str], ptype: StructType,
                partitions: list[list[Any]], path: str) -> None:
    """The rules of a manifest against its manifest-list record: counts, inherited snapshot ids
    and sequence numbers, content, spec id, the smallest live sequence number, partition
    summaries."""
    status = frame.ints("status")[0]
    rows = frame.ints("record_count")[0]
    for s, files_key, rows_key in ((1, "added_files_count", "added_rows_count"),
                                   (0, "existing_files_count", "existing_rows_count"),
                                   (2, "deleted_files_count", "deleted_rows_count")):
        chosen = status == s
        if mf.get(files_key) is not None and mf[files_key] != int(np.count_nonzero(chosen)):
            raise _Unsure
        # summed as Python ints, exactly as the record reader sums (a NumPy sum could wrap)
        if mf.get(rows_key) is not None and mf[rows_key] != sum(rows[chosen].tolist()):
            raise _Unsure
    sid, sid_ok = frame.ints("snapshot_id")
    seq, seq_ok = frame.ints("sequence_number")
    fseq, fseq_ok = frame.ints("file_sequence_number")
    added_by = mf.get("added_snapshot_id")
    if isinstance(added_by, int):
        _none(((status == 1) | (status == 2)) & sid_ok & (sid != added_by))
    mseq = mf.get("sequence_number") if version >= 2 else None
    if isinstance(mseq, int):
        added = status == 1
        _none(np.where(added & fseq_ok, fseq != mseq, fseq_ok & (fseq > mseq)))
        iseq_ok, iseq = seq_ok | added, np.where(seq_ok, seq, mseq)
        ifseq_ok, ifseq = fseq_ok | added, np.where(fseq_ok, fseq, mseq)
        _none(iseq_ok & ((iseq > mseq) | (ifseq_ok & (iseq > ifseq))))
    if version >= 2:
        want = {"data": 0, "deletes": 1}.get(meta.get("content", ""))
        if want is not None and mf.get("content") is not None and mf["content"] != want:
            raise _Unsure
    spec_id = meta.get("partition-spec-id")
    if spec_id is not None and spec_id.lstrip("-").isdigit() and len(spec_id) <= 20 \
            and mf.get("partition_spec_id") is not None and int(spec_id) != mf["partition_spec_id"]:
        raise _Unsure
    if version >= 2 and mf.get("min_sequence_number") is not None:
        inherited = mf.get("sequence_number") or 0
        live = ((status == 0) | (status == 1)) & (seq_ok | (status == 1) | (inherited == 0))
        if live.any():
            low = int(np.where(seq_ok, seq, inherited)[live].min())
            if mf["min_sequence_number"] > low:
                raise _Unsure
    summaries = mf.get("partitions")
    if summaries is not None and check_summaries(partitions, summaries, ptype, path):
        raise _Unsure


#: bound kinds: (struct format, width) of the fixed-width types -> NumPy dtype; strings; others
_NUMPY = {("q", 8): "<i8", ("d", 8): "<f8", ("i", 4): "<i4", ("f", 4): "<f4"}
_STRING, _OTHER = "string", "other"


def _present(k: Any, known: Any) -> Any:
    """The column ids of ``known`` (sorted) that occur in ``k`` (all of which are known)."""
    return known[np.bincount(np.searchsorted(known, k), minlength=len(known)) > 0]


def _side(frame: _Frame, which: str, known: Any) -> tuple[Any, Any, Any, Any] | None:
    """(entry index, column id, value offsets, value bytes) of one bounds map, for the column ids
    in ``known`` (sorted), or ``None`` when the map is absent."""
    col = frame.cols.get(which)
    if col is None:
        return None
    t = col.type
    if not (pa.types.is_list(t) or pa.types.is_large_list(t)) or not pa.types.is_struct(t.value_type):
        raise _Unsure
    names = [t.value_type.field(i).name for i in range(t.value_type.num_fields)]
    if sorted(names) != ["key", "value"]:
        raise _Unsure
    flat = pc.list_flatten(col)
    if flat.null_count:
        raise _Unsure
    keys, values = flat.field("key"), flat.field("value")
    if not pa.types.is_integer(keys.type) or keys.null_count or values.null_count:
        raise _Unsure
    if not (pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type)
            or pa.types.is_binary_view(values.type)):
        raise _Unsure
    rows = np.asarray(pc.list_parent_indices(col)).astype(np.int64)
    k = np.asarray(keys).astype(np.int64)
    mine = np.isin(k, known)
    values = values.cast(pa.large_binary()).filter(pa.array(mine))
    rows, k = rows[mine], k[mine]
    bufs = values.buffers()
    offsets = np.frombuffer(bufs[1], np.int64)[values.offset:values.offset + len(values) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    code = (rows << 32) | (k & 0xFFFFFFFF)
    ordered = np.sort(code)
    if len(ordered) > 1 and bool((ordered[1:] == ordered[:-1]).any()):
        raise _Unsure  # one column twice in one map: the record reader decides which counts
    return code, k, offsets, (data, values)


def _bounds(frame: _Frame, schema: StructType, path: str) -> None:
    """Lower and upper bounds of every column: fixed-width ones reinterpreted as little-endian
    numbers at full width (NaN never a bound, lower not above upper), strings valid UTF-8 and
    ordered by their bytes (UTF-8 byte order is code point order); bounds of every other type
    are checked by :func:`~reference.manifests.check_bounds` itself, on those values only."""
    columns = bound_columns(fields_by_id(schema))
    kind: dict[int, Any] = {}
    for name, (t, _decode, _decimal, _float, bulk) in columns.items():
        kind[int(name)] = _NUMPY[bulk] if bulk is not None else _STRING if isinstance(t, StringType) else _OTHER
    known = np.array(sorted(kind), np.int64)
    sides = {w: got for w in ("lower_bounds", "upper_bounds") if (got := _side(frame, w, known)) is not None}
    # a fixed-width column with a bound of another width (written before the column was promoted,
    # or damaged) is decoded value by value, as the record reader does: with the other types
    slow = {key for key, what in kind.items() if what == _OTHER}
    for code, k, offsets, _values in sides.values():
        sizes = np.diff(offsets)
        for key in _present(k, known):
            what = kind[int(key)]
            if what not in (_OTHER, _STRING) and np.any(sizes[k == key] != np.dtype(what).itemsize):
                slow.add(int(key))
    decoded: dict[str, dict[int, tuple[Any, Any]]] = {w: {} for w in sides}
    others: dict[str, list[tuple[int, int, bytes]]] = {}
    for which, (code, k, offsets, (data, values)) in sides.items():
        for key in _present(k, known):
            what = kind[int(key)]
            sel = np.flatnonzero(k == key)
            if int(key) in slow:
                others.setdefault(which, []).extend(
                    (int(code[i] >> 32), int(key), values[int(i)].as_py()) for i in sel)
                continue
            if what == _STRING:
                strings = values.take(pa.array(sel))
                strings.cast(pa.large_string())  # raises on invalid UTF-8: the record reader reports it
                decoded[which][int(key)] = (code[sel], strings)
                continue
            dtype = np.dtype(what)
            at = offsets[:-1][sel][:, None] + np.arange(dtype.itemsize)
            numbers = data[at].copy().view(dtype).reshape(-1)
            if dtype.kind == "f" and np.isnan(numbers).any():
                raise _Unsure
            decoded[which][int(key)] = (code[sel], numbers)
    if len(sides) == 2:
        for key, (low_code, low) in decoded["lower_bounds"].items():
            if key not in decoded["upper_bounds"]:
                continue
            high_code, high = decoded["upper_bounds"][key]
            _, li, hi = np.intersect1d(low_code, high_code, assume_unique=True, return_indices=True)
            if isinstance(low, np.ndarray):
                _none(low[li] > high[hi])
            elif len(li):
                _none(np.asarray(pc.greater(low.take(pa.array(li)), high.take(pa.array(hi)))))
    if others:
        rows: dict[int, dict[str, list[dict[str, Any]]]] = {}
        for which, items in others.items():
            for i, fid, value in items:
                rows.setdefault(i, {}).setdefault(which, []).append({"key": fid, "value": value})
        subset = {str(k): columns[str(k)] for k in slow}
        if check_bounds([{"data_file": r} for r in rows.values()], subset, path):
            raise _Unsure


# --- the live digest ------------------------------------------------------------------------------

def live_digest_columns(frame: _Frame) -> LiveDigest:
    """The checker's :class:`~checker.plan.LiveDigest` of a certified manifest, from its columns
    (the same values :func:`checker.plan.live_digest` takes from decoded entries)."""
    status = frame.ints("status")[0]
    live = np.flatnonzero((status == 0) | (status == 1))
    paths = frame.strings("file_path").to_pylist()
    offset, offset_ok = frame.ints("content_offset")
    size, size_ok = frame.ints("content_size_in_bytes")
    keys = paths
    if offset_ok.any():
        keys = list(paths)
        for i in np.flatnonzero(offset_ok):
            keys[i] = f"{paths[i]}#{offset[i]}+{size[i] if size_ok[i] else None}"
    c = frame.content()
    rows = frame.ints("record_count")[0]
    d = LiveDigest()
    d.keys = [keys[i] for i in live]
    d.index = live.tolist()
    for value in dict.fromkeys(c[live].tolist()):
        chosen = live[c[live] == value]
        d.totals[int(value)] = [len(chosen), sum(rows[chosen].tolist())]
    deletes = live[c[live] == 1]
    if len(deletes):
        fmt = frame.strings("file_format")
        fmt = fmt.to_pylist() if fmt is not None else [None] * frame.n
        refs = frame.strings("referenced_data_file")
        refs = refs.to_pylist() if refs is not None else [None] * frame.n
        sid, sid_ok = frame.ints("snapshot_id")
        for i in deletes:
            if str(fmt[i]).upper() == "PUFFIN":
                d.dvs.append((str(refs[i]), int(i)))
            if status[i] == 1 and not offset_ok[i]:
                d.added_position_files.append((keys[i], int(sid[i]) if sid_ok[i] else None))
    return d
