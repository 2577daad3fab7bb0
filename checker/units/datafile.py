"""The ``data-file`` and ``delete-file`` units: one content file against its manifest entry and the table's schemas.

What is compared (spec sections in each finding's clause):

* the file exists and its size equals ``file_size_in_bytes``;
* the file's schema, by its format (Appendix A): Parquet field ids and physical/logical types
  (:mod:`reference.parquet`, Parquet LogicalTypes.md) and the Arrow types pyarrow derives
  (:mod:`reference.arrow`); Avro ``field-id``/``element-id``/``key-id``/``value-id`` and Avro
  types and logical types (:func:`reference.avro.check_data_schema`); ORC ``iceberg.id`` and
  ``iceberg.required`` type attributes and ORC types (:mod:`reference.orc`);
* then, whatever the format, on the columns by field id (:func:`_check_columns`):
  ``record_count`` equals the rows in the file; per column ``value_counts``,
  ``null_value_counts``, ``nan_value_counts`` equal what the data holds, ``lower_bounds`` <=
  the smallest and ``upper_bounds`` >= the largest non-null, non-NaN value (a truncated
  string/binary bound is legitimate as long as it still bounds the data); a required table
  column holds no null; the file's partition tuple equals the partition transform of every
  row's source values; a position delete file's rows are sorted and inside live data files,
  its ``row`` column complete; an equality delete file holds its ``equality_ids`` columns;
* format-only data rules: a Parquet decimal's byte order, an ORC timestamp's truncation to
  microseconds.

Counts are compared for columns reached through structs only; for list elements and map
keys/values only the bounds are compared (writers count repeated values differently).
Files are opened read-only; nothing is written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.find import absent
from iceberg_conformance.checker.plan import describe_key, Unit
from iceberg_conformance.checker.run import CheckRun, outside_finding
from iceberg_conformance.checker.units.deletes import (
    check_dv, check_positions, CLAUSE_EQUALITY_FIELDS, CLAUSE_POSITION_ROW, equality_field_problems,
)
from iceberg_conformance.checker.units.lineage import (
    ADDED_RULES, CLAUSE_ASSIGNMENT, LINEAGE_COLUMNS, non_null_lineage,
)
from iceberg_conformance.checker.units.metrics import (
    accumulate, accumulate_variant, ColumnStats, compare_stats, compare_variant, leaf_arrays, same_value, show,
    VariantStats,
)
from iceberg_conformance.reference import orc as ro, parquet as rp
from iceberg_conformance.reference.arrow import arrow_matches, avro_table, field_id, nested_arrow_fields, walk_arrow
from iceberg_conformance.reference.binary import bound_from_bytes
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import spec_by_id
from iceberg_conformance.reference.safeio import arrow_file, open_regular
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.transforms import (
    DayTransform, HourTransform, IdentityTransform, MonthTransform, parse_transform, YearTransform,
)
from iceberg_conformance.reference.types import (
    DateType as _Date, DecimalType, IcebergType, ListType, LongType, MapType, NestedField, StringType, StructType,
    VariantType,
)
from iceberg_conformance.reference.values import value_from_json
from iceberg_conformance.reference.variant import CLAUSE_FIELD_ORDER, CLAUSE_SORTED_STRINGS

CLAUSE_DATA_FILE = "Manifests: data_file fields"
CLAUSE_PARTITION = "Partitioning: partition values of a data file are the transforms of its rows"
CLAUSE_SEQ_NUMBERS = "Manifests: sequence_number, file_sequence_number (must never change after a file is added)"
CLAUSE_PARQUET = "Appendix A: Format-specific Requirements / Parquet"
CLAUSE_ORC = "Appendix A: Format-specific Requirements / ORC"
CLAUSE_AVRO = "Appendix A: Format-specific Requirements / Avro"


def _annotation_findings(pf: Any, uri: str) -> list[Finding]:
    """LogicalTypes.md annotations of the leaf columns of a Parquet file (reference/parquet.py)."""
    cols, ranges = [], []
    meta = pf.metadata
    for i in range(len(pf.schema)):
        c = pf.schema.column(i)
        lt = c.logical_type
        logical = json.loads(lt.to_json()) if lt is not None and lt.type != "NONE" else None
        cols.append((c.path, str(c.physical_type), logical, str(c.converted_type)))
        if logical and logical.get("Type") == "Int":
            for rg in range(meta.num_row_groups):
                st = meta.row_group(rg).column(i).statistics
                if st is not None and st.has_min_max:
                    ranges.append((c.path, logical, st.min, st.max))
    return [Finding("parquet.annotation", why, rp.CLAUSE_ANNOTATIONS, uri, name)
            for name, why in rp.annotation_problems(cols) + rp.int_range_problems(ranges)]


def _required_ids(schema: StructType | None) -> set[int]:
    """Fields reached through required struct fields only, themselves required: never null."""
    if schema is None:
        return set()
    return {fid for fid, info in walk(schema) if info.through_structs and info.required and not info.optional_ancestor}


def _nested_ids(t: Any) -> list[int]:
    """Field ids of every field nested in Arrow type ``t`` (struct fields, list elements, map
    keys and values), from their ``PARQUET:field_id`` metadata."""
    return [fid for f in nested_arrow_fields(t) if (fid := field_id(f)) is not None]


def _arrow_leaves(schema: Any) -> dict[int, tuple[int, list[tuple[str, int]], Any]]:
    """field id -> (top-level column index, steps, arrow type) of each primitive leaf."""
    return {fid: (top, list(steps), f.type) for top, steps, f in walk_arrow(schema)
            if not _arrow_nested(f.type) and (fid := field_id(f)) is not None}


def _variant_columns(schema: Any, index: rp.FieldIndex) -> dict[int, int]:
    """field id -> top-level column index of each variant column of the file (a struct holding a
    ``metadata`` field; Appendix A: "group with metadata and value fields")."""
    out: dict[int, int] = {}
    for i, f in enumerate(schema):
        fid = field_id(f)
        if fid is not None and pa.types.is_struct(f.type) and f.type.get_field_index("metadata") >= 0 \
                and any(isinstance(t, VariantType) for _, t, _ in index.get(fid, [])):
            out[fid] = i
    return out


def _arrow_nested(t: Any) -> bool:
    return bool(pa.types.is_struct(t) or pa.types.is_map(t) or pa.types.is_list(t) or pa.types.is_large_list(t))


def _check_record(run: CheckRun, unit: Unit) -> list[Finding]:
    """Findings for the data or delete file of a ``data-file``/``delete-file`` unit against one
    ``data_file`` record (``unit.context``: the record, the targets of a delete file, ...)."""
    doc = run.doc
    assert doc is not None
    ctx = unit.context
    entry = ctx["entry"]
    df = entry["data_file"]
    manifest = str(ctx.get("manifest", ""))
    mloc = f"entries[{ctx.get('index', '?')}] data_file"
    uri = unit.path
    out: list[Finding] = []
    content = df.get("content", 0)
    what = "data file" if content == 0 else "delete file"

    def add(rule: str, msg: str, clause: str, loc: str, severity: Any = "error") -> None:
        out.append(Finding(rule, f"{what} {uri}: {msg}", clause, manifest, f"{mloc}/{loc}" if loc else mloc, severity))

    local = run.local(uri)
    if local is None:
        add("checker.not-checked", "check not available: not a local path", "-", "file_path", "warning")
        return out
    why = absent(local)
    if why is not None:
        add(why[0], why[1], CLAUSE_DATA_FILE + " (file_path)", "file_path")
        return out
    size = os.path.getsize(local)
    claimed = df.get("file_size_in_bytes")
    if isinstance(claimed, int) and claimed != size:
        add("files.size", f"file_size_in_bytes is {claimed}, the file has {size} bytes",
            CLAUSE_DATA_FILE + " (file_size_in_bytes)", "file_size_in_bytes")
    fmt = str(df.get("file_format", "")).upper()
    if fmt == "PUFFIN":
        out.extend(check_dv(local, df, ctx.get("targets") or {}, add, ctx.get("elsewhere")))
        return out
    opener = _OPENERS.get(fmt)
    if opener is None:
        add("checker.not-checked", f"check not available: {fmt} {what}s are not read", "-",
            "file_format", "warning")
        return out
    out.extend(_check_file(run, local, uri, df, ctx, add, opener))
    return out


@dataclass
class _Source:
    """A content file opened for the rules every format shares: its Arrow schema (field ids in
    the fields' metadata), its row count, and its columns a chunk (row group, stripe) at a time."""

    schema: Any
    rows: int
    #: some column has no field id: the columns cannot all be matched to the table's
    no_ids: bool
    #: the chunks of the given top-level columns, as Arrow tables, in row order
    chunks: Callable[[list[str]], Iterator[Any]]
    #: the location of chunk ``i`` of the given columns when it does not decode
    where: Callable[[int, list[str]], str]
    #: the spec section of the format (for ``data.unreadable``)
    clause: str
    #: format-only rules on the decoded columns: (df, column types, stats) -> findings
    extra: Callable[[dict[str, Any], dict[int, IcebergType], dict[int, ColumnStats]], list[Finding]] | None = None
    #: format-only rules on each leaf chunk: (field id, type, values)
    leaf: Callable[[int, IcebergType, Any], None] | None = None

    def read(self, names: list[str]) -> Any:
        return pa.concat_tables(list(self.chunks(names)))


_Opened = tuple[list[Finding], "_Source | None"]


def _check_file(run: CheckRun, local: str, uri: str, df: dict[str, Any], ctx: dict[str, Any],
                add: Callable[..., None], opener: Callable[..., _Opened]) -> list[Finding]:
    """Open a content file with its format's ``opener`` (which checks the file's schema
    against the table's) and check its columns by field id (:func:`_check_columns`)."""
    doc = run.doc
    assert doc is not None
    content = df.get("content", 0)
    schemas, current = run.schemas()
    if content == 1:  # position deletes: reserved columns; row holds table columns by their ids
        schemas = schemas + [StructType((NestedField(2147483546, "file_path", StringType(), True),
                                          NestedField(2147483545, "pos", LongType(), True),
                                          NestedField(2147483544, "row", StructType(()), True)))]
    if content == 0 and run.version >= 3:  # row lineage columns a writer may materialize
        schemas = schemas + [StructType((NestedField(2147483540, "_row_id", LongType(), False),
                                          NestedField(2147483539, "_last_updated_sequence_number",
                                                      LongType(), False)))]
    index = rp.index_fields(schemas)
    props = doc.get("properties")
    name_mapping = isinstance(props, dict) and "schema.name-mapping.default" in props
    with open_regular(local) as fh:
        found, src = opener(fh, local, uri, index, name_mapping)
        if src is None:
            return found
        return found + _check_columns(run, uri, df, ctx, add, src, index, current)


PARQUET_MAGIC = b"PAR1"


def parquet_layout_problem(fh: Any) -> str:
    """Why a file the Parquet reader refused is not a Parquet file, in the kit's words: a Parquet
    file starts with ``PAR1`` and ends with its footer's 4-byte little-endian length and ``PAR1``."""
    fh.seek(0, 2)
    size = fh.tell()
    if size < 12:
        return f"the file has {size} bytes, fewer than the 12 of Parquet's two magic numbers and footer length"
    fh.seek(0)
    head = fh.read(4)
    fh.seek(size - 8)
    tail = fh.read(8)
    if tail[4:] != PARQUET_MAGIC:
        return (f"the file ({size} bytes) does not end with Parquet's magic number PAR1: it is cut short "
                "(truncated) or not a Parquet file")
    if head != PARQUET_MAGIC:
        return f"the file ({size} bytes) does not start with Parquet's magic number PAR1: it is not a Parquet file"
    footer = int.from_bytes(tail[:4], "little")
    if footer + 12 > size:
        return (f"its footer length {footer} is more than the file's {size} bytes hold: the footer is "
                "damaged or the file was cut and reassembled")
    return "its footer (file metadata) cannot be decoded: the file is damaged"


def _open_parquet(fh: Any, local: str, uri: str, index: rp.FieldIndex, name_mapping: bool) -> _Opened:
    """A Parquet file: field ids and physical/logical types per Appendix A and LogicalTypes.md
    (:mod:`reference.parquet`), the Arrow types pyarrow derives; row groups as chunks; the
    decimal byte order after the columns are read."""
    out: list[Finding] = []
    try:
        pf = pq.ParquetFile(arrow_file(fh))
        root = rp.parse_schema_text(str(pf.schema))
        arrow_schema = pf.schema_arrow
    except Exception:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... on a bad footer
        return [Finding("data.unreadable", f"not a readable Parquet file: {parquet_layout_problem(fh)}",
                        CLAUSE_PARQUET, uri, "footer (file metadata at the end of the file)")], None
    schema_findings = rp.check_schema(root, index, file=uri, name_mapping=name_mapping)
    out.extend(schema_findings)
    out.extend(_annotation_findings(pf, uri))
    flagged = {f.location.split(".")[0] for f in schema_findings}
    for f in arrow_schema:
        fid = field_id(f)
        if fid is None or fid not in index or f.name in flagged:
            continue
        if not any(arrow_matches(t, f.type) for _, t, _ in index[fid]):
            out.append(Finding("arrow.type-mapping", f"column {f.name!r} (field {fid}) reads as Arrow {f.type}, "
                               f"which carries none of {[str(t) for _, t, _ in index[fid]]}",
                               "Arrow Schema.fbs; Schemas and Data Types", uri, f.name))
    # a file without field ids (reported above) cannot be matched to the partition sources
    # (under a name mapping a file without field ids is no finding, but still cannot be matched)
    no_ids = any(f.rule == "parquet.field-id-missing" for f in schema_findings)
    return out, _Source(
        arrow_schema, pf.metadata.num_rows, no_ids,
        chunks=lambda names: (pf.read_row_group(rg, columns=names) for rg in range(pf.num_row_groups)),
        where=lambda rg, names: _bad_chunk(pf, rg, names), clause=CLAUSE_PARQUET,
        extra=lambda df, types, stats: _decimal_byte_order(local, pf, arrow_schema, df, types, stats, uri))


def _open_orc(fh: Any, local: str, uri: str, index: rp.FieldIndex, name_mapping: bool) -> _Opened:
    """An ORC file: its type attributes (``iceberg.id``, ``iceberg.required``) and types per
    Appendix A (:mod:`reference.orc`); stripes as chunks; timestamps of microsecond types hold
    whole microseconds."""
    import pyarrow.orc as orc

    try:
        of = orc.ORCFile(fh)
        schema, rows, stripes = of.schema, of.nrows, of.nstripes
    except Exception as e:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... on a bad footer
        return [Finding("data.unreadable", f"not a readable ORC file: {str(e).strip()[:300]}", CLAUSE_ORC, uri,
                        "footer (file tail)")], None
    found = ro.check_schema(schema, index, file=uri, name_mapping=name_mapping)
    kept: dict[int, tuple[int, int | None]] = {}

    def leaf(fid: int, t: IcebergType, arr: Any) -> None:
        n, first = ro.untruncated(t, arr)
        if n:
            count, was = kept.get(fid, (0, None))
            kept[fid] = (count + n, was if was is not None else first)

    def extra(df: dict[str, Any], types: dict[int, IcebergType], stats: dict[int, ColumnStats]) -> list[Finding]:
        return [Finding("orc.timestamp-nanos", f"{types[fid]} column (field {fid}) holds {n} value(s) with "
                        f"nanoseconds kept, e.g. {first} ns from the epoch; writers truncate them to microseconds",
                        ro.CLAUSE_NANOS, uri, f"column {fid}") for fid, (n, first) in sorted(kept.items())]
    return found, _Source(
        schema, rows, any(f.rule == "orc.field-id-missing" for f in found),
        chunks=lambda names: (pa.Table.from_batches([of.read_stripe(i, columns=names)]) for i in range(stripes)),
        where=lambda i, names: f"stripe {i}", clause=CLAUSE_ORC, extra=extra, leaf=leaf)


def _open_avro(fh: Any, local: str, uri: str, index: rp.FieldIndex, name_mapping: bool) -> _Opened:
    """An Avro file: the writer schema's ids and types per Appendix A
    (:func:`reference.avro.check_data_schema`); its records decoded into one chunk."""
    from iceberg_conformance.reference.avro import check_data_schema, from_avro, iter_container

    def unreadable(e: SpecViolation) -> _Opened:
        return [Finding(e.rule, f"cannot be read: {e.detail}", e.clause or CLAUSE_AVRO, uri,
                        e.where or "file")], None
    try:
        writer_schema, _meta, records = iter_container(local)
    except SpecViolation as e:
        return unreadable(e)
    found = check_data_schema(writer_schema, index, file=uri, name_mapping=name_mapping)
    try:
        file_type = from_avro(writer_schema, where="avro.schema")
    except SpecViolation:
        file_type = None  # reported above: the rows are counted, no column is matched
    try:
        if not isinstance(file_type, StructType):
            table = pa.table({})
            rows = sum(1 for _ in records)
        else:
            table = avro_table(file_type, records)
            rows = table.num_rows
    except SpecViolation as e:
        return found + unreadable(e)[0], None
    except (ValueError, TypeError, OverflowError, AttributeError) as e:  # a value Arrow does not take
        return found + [Finding("data.unreadable", f"a value does not decode as its column's type: "
                                f"{type(e).__name__}: {str(e)[:300]}", CLAUSE_AVRO, uri, "records")], None
    return found, _Source(table.schema, rows, not isinstance(file_type, StructType),
                          chunks=lambda names: iter([table.select(names)]), where=lambda i, names: "records",
                          clause=CLAUSE_AVRO)


_OPENERS: dict[str, Callable[..., _Opened]] = {"PARQUET": _open_parquet, "ORC": _open_orc, "AVRO": _open_avro}


def _check_columns(run: CheckRun, uri: str, df: dict[str, Any], ctx: dict[str, Any], add: Callable[..., None],
                   src: _Source, index: rp.FieldIndex, current: StructType | None) -> list[Finding]:
    """The rules every format shares, on the columns of ``src`` by field id: record_count, the
    metrics of every column, required columns without nulls, the partition values, the row
    lineage columns of an appended file, and a delete file's columns (position deletes sorted
    and inside their data files, the ``row`` column, the equality columns)."""
    doc = run.doc
    assert doc is not None
    out: list[Finding] = []
    content = df.get("content", 0)
    schema = src.schema
    rc = df.get("record_count")
    if isinstance(rc, int) and rc != src.rows:
        add("data.record-count", f"record_count is {rc}, the file has {src.rows} rows",
            CLAUSE_DATA_FILE + " (record_count)", "record_count")
    leaves = _arrow_leaves(schema)
    if content == 0 and ctx.get("appended_by") is not None:
        _check_appended_lineage(src, ctx["appended_by"], add)
    if content == 1:
        row = next((i for i, f in enumerate(schema) if field_id(f) == 2147483544), None)
        nulls = src.read([schema[row].name]).column(0).null_count if row is not None else 0
        if nulls:
            add("deletes.position-row-null", f"{nulls} delete row(s) have no row values; the row column is "
                "written for every delete or omitted", CLAUSE_POSITION_ROW, "file_path")
        unknown = sorted(i for i in _nested_ids(schema[row].type) if i not in index) if row is not None else []
        if unknown:
            add("deletes.position-row-field-id", f"the row column holds field id(s) {unknown[:10]} that no schema "
                "of the table has", CLAUSE_POSITION_ROW, "file_path")
    if content == 2:
        missing = [i for i in df.get("equality_ids") or [] if i not in leaves]
        if missing:
            add("deletes.equality-field-missing", f"equality_ids {df.get('equality_ids')} name field(s) "
                f"{missing} the file does not hold", CLAUSE_DATA_FILE + " (equality_ids)", "equality_ids")
        for why in equality_field_problems(df.get("equality_ids") or [], list(run.schemas()[0])):
            add("deletes.equality-field-type", why, CLAUSE_EQUALITY_FIELDS, "equality_ids")
    required = _required_ids(current) if content == 0 else set()
    no_ids = src.no_ids or not leaves
    checks = _partition_checks(doc, ctx, df, index, leaves, add) if content == 0 and not no_ids else []
    part_sources = {src_id for _, src_id, _, _, _ in checks}
    # a source whose every transform never decreases (year, month, day, hour) is judged from its
    # least and greatest value; its values are read again only when those two disagree
    by_ends = part_sources - {src_id for _, src_id, transform, _, _ in checks if not isinstance(transform, _MONOTONE)}
    stats: dict[int, ColumnStats] = {}
    types: dict[int, IcebergType] = {}
    for fid, (top, steps, at) in leaves.items():
        cands = [t for _, t, _ in index.get(fid, [])]
        if not cands:
            continue
        types[fid] = next((t for t in cands if arrow_matches(t, at)), cands[-1])
        stats[fid] = ColumnStats(repeated=any(k != "struct" for k, _ in steps))
    variants = _variant_columns(schema, index)
    vstats = {fid: VariantStats() for fid in variants}
    tops = sorted({leaves[fid][0] for fid in stats} | set(variants.values()))
    names = [schema[i].name for i in tops]
    positions: list[tuple[str, int]] = []
    want_positions = content == 1 and 2147483546 in leaves and 2147483545 in leaves
    chunk = 0
    try:
        for tbl in src.chunks(names) if tops else ():
            col_of = {i: tbl.column(n) for n, i in enumerate(tops)}
            for fid, s in stats.items():
                top, steps, _ = leaves[fid]
                for part in col_of[top].chunks:
                    arr, _rep, parent_nulls = leaf_arrays(part, steps)
                    s.parent_nulls += parent_nulls
                    if src.leaf is not None:
                        src.leaf(fid, types[fid], arr)
                    accumulate(s, types[fid], arr, want_partition=(fid in part_sources and not s.repeated)
                               and ("ends" if fid in by_ends else True))
            for fid, vs in vstats.items():
                for part in col_of[variants[fid]].chunks:
                    accumulate_variant(vs, part)
            if want_positions:
                fp = col_of[leaves[2147483546][0]].to_pylist()
                ps = col_of[leaves[2147483545][0]].to_pylist()
                positions.extend(zip(fp, ps))
            chunk += 1
    except (OSError, ValueError) as e:  # corrupt pages or stripes: pyarrow's OSError, ArrowInvalid, bad UTF-8
        where = src.where(chunk, names)
        out.append(Finding("data.unreadable", f"{where} does not decode: {str(e).strip()[:300]}", src.clause, uri,
                           where))
        return out  # metrics of a partly read file would be wrong: nothing more is compared
    for fid, s in stats.items():
        compare_stats(df, fid, types[fid], fid in required, s, lambda r, m, c, loc: add(r, m, c, loc),
                      strict_counts=not s.repeated,
                      bound_types=[types[fid]] + [t for _, t, _ in index.get(fid, []) if t != types[fid]])
    for fid, vs in vstats.items():
        if vs.undecodable is not None:
            add("data.unreadable", f"variant column {fid} does not decode: {vs.undecodable}", src.clause,
                f"column {fid}")
            continue
        if vs.unsorted is not None:
            row, why = vs.unsorted
            add("parquet.variant-sorted-strings", f"variant column {fid}, row {row} (the first such row): {why}",
                CLAUSE_SORTED_STRINGS, f"column {fid}/row {row}")
        if vs.misordered is not None:
            row, why = vs.misordered
            add("parquet.variant-object-field-order", f"variant column {fid}, row {row} (the first such row): {why}",
                CLAUSE_FIELD_ORDER, f"column {fid}/row {row}")
        compare_variant(df, fid, vs, lambda r, m, c, loc: add(r, m, c, loc))
    def every_value(fid: int) -> ColumnStats:
        """The partition source ``fid`` read again, every distinct value kept."""
        top, steps, _ = leaves[fid]
        again = ColumnStats()
        for tbl in src.chunks([schema[top].name]):
            for part in tbl.column(0).chunks:
                accumulate(again, types[fid], leaf_arrays(part, steps)[0], want_partition=True)
        return again
    for name, src_id, transform, src_type, expected_json in checks:
        _compare_partition(name, src_id, transform, src_type, expected_json, stats.get(src_id), add, every_value)
    if content == 0 and src.extra is not None:
        out.extend(src.extra(df, types, stats))
    if want_positions:
        check_positions(positions, ctx.get("targets") or {}, add)
    return out


def unscaled(v: Decimal, scale: int) -> int:
    """The unscaled integer of a decimal value of scale ``scale`` (exact, no context rounding)."""
    sign, digits, exponent = v.as_tuple()
    n = int("".join(map(str, digits)) or "0")
    shift = int(exponent) + scale
    n = int(n * 10 ** shift) if shift >= 0 else int(n // 10 ** -shift)
    return -n if sign else n


def byte_reversed(u: int, width: int | None) -> int:
    """``u`` written as two's complement big-endian in ``width`` bytes (the minimum when None)
    and read back with the bytes in reverse order (as a little-endian writer meant them)."""
    n = width or max(1, (u.bit_length() + (1 if u >= 0 else 0) + 7) // 8)
    return int.from_bytes(u.to_bytes(n, "big", signed=True)[::-1], "big", signed=True)


def _decimal_byte_order(local: str, pf: Any, arrow_schema: Any, df: dict[str, Any], types: dict[int, IcebergType],
                        stats: dict[int, ColumnStats], uri: str) -> list[Finding]:
    """Top-level decimal columns stored as fixed_len_byte_array or binary: where the manifest's
    bounds do not bound the values read as big-endian two's complement, but are exactly the
    smallest and largest value when each value's bytes are read in reverse order, the file holds
    the unscaled values little-endian (Parquet LogicalTypes.md, DECIMAL). Without bounds the byte
    order is not observable: every reader decodes the bytes big-endian."""
    out: list[Finding] = []
    physical = {pf.metadata.schema.column(i).path: pf.metadata.schema.column(i)
                for i in range(pf.metadata.num_columns)}
    for f in arrow_schema:
        fid = field_id(f)
        t = types.get(fid) if fid is not None else None
        col = physical.get(f.name)
        if not isinstance(t, DecimalType) or col is None or col.physical_type not in ("FIXED_LEN_BYTE_ARRAY",
                                                                                      "BYTE_ARRAY"):
            continue
        s = stats.get(fid) if fid is not None else None
        lo_hex, hi_hex = ((df.get(k) or {}).get(str(fid)) for k in ("lower_bounds", "upper_bounds"))
        if s is None or s.lo is None or lo_hex is None or hi_hex is None:
            continue
        try:
            lo = unscaled(bound_from_bytes(t, bytes.fromhex(lo_hex)), t.scale)
            hi = unscaled(bound_from_bytes(t, bytes.fromhex(hi_hex)), t.scale)
        except Exception:  # noqa: BLE001 - an undecodable bound is reported by compare_stats
            continue
        if lo <= unscaled(s.lo, t.scale) and unscaled(s.hi, t.scale) <= hi:
            continue  # the bounds hold as the bytes are read: nothing points at another byte order
        width = col.length if col.physical_type == "FIXED_LEN_BYTE_ARRAY" else None


        with open_regular(local) as fh:  # ``pf``'s file is closed by now: metadata only
            values = [v for v in pq.ParquetFile(arrow_file(fh)).read(columns=[f.name]).column(0).to_pylist() if v is not None]
        flipped = [byte_reversed(unscaled(v, t.scale), width) for v in values]
        if flipped and min(flipped) == lo and max(flipped) == hi:
            out.append(Finding("parquet.decimal-byte-order", f"decimal column {f.name!r} (field {fid}, "
                               f"{col.physical_type}): read as big-endian two's complement its values are "
                               f"{show(s.lo)}..{show(s.hi)}, outside the manifest's bounds; with each value's "
                               "bytes reversed they are exactly the bounds: the unscaled values are stored "
                               "little-endian", "Parquet LogicalTypes.md: DECIMAL", uri, f.name))
    return out


def _check_appended_lineage(src: _Source, snapshot_id: int, add: Callable[..., None]) -> None:
    """A data file ADDED by an ``append`` snapshot holds only new rows: where it materializes
    ``_row_id`` or ``_last_updated_sequence_number``, every value is null (Row lineage assignment)."""
    names = {fid: f.name for f in src.schema if (fid := field_id(f)) is not None and fid in LINEAGE_COLUMNS}
    if not names:
        return
    table = src.read(list(names.values()))
    found = non_null_lineage({fid: table.column(name).to_pylist() for fid, name in names.items()})
    for fid, (count, pos, value) in sorted(found.items()):
        what = "_row_id" if fid == 2147483540 else "_last_updated_sequence_number"
        add(ADDED_RULES[fid], f"added by append snapshot {snapshot_id} (new rows only), but its column "
            f"{names[fid]!r} (field {fid}, {what}) holds {count} non-null value(s), the first {value} at row "
            f"position {pos}; an added row's value is written null and inherited on read",
            CLAUSE_ASSIGNMENT, "file_path")


def _partition_checks(doc: dict[str, Any], ctx: dict[str, Any], df: dict[str, Any], index: Any,
                      leaves: dict[int, Any], add: Callable[..., None]) -> list[tuple[str, int, Any, IcebergType, Any]]:
    spec = spec_by_id(doc).get(int(ctx.get("spec_id") or 0))
    if not isinstance(spec, dict):
        return []
    part = df.get("partition") or {}
    out = []
    fields = spec.get("fields")
    for pfield in fields if isinstance(fields, list) else []:
        if not isinstance(pfield, dict):
            continue  # a malformed spec is reported by the metadata checks
        src_ids = pfield.get("source-ids") or [pfield.get("source-id")]
        if not isinstance(src_ids, list) or len(src_ids) != 1 or not isinstance(src_ids[0], int):
            continue  # multi-argument transforms: none defined yet
        src = src_ids[0]
        cands = [t for _, t, _ in index.get(src, [])]
        if not cands:
            continue
        try:
            transform = parse_transform(str(pfield.get("transform")))
            transform.result_type(cands[-1])
        except Exception:
            continue
        key = str(pfield.get("field-id"))
        out.append((str(pfield.get("name")), src, transform, cands[-1], part.get(key)))
    return out


_MONOTONE = (YearTransform, MonthTransform, DayTransform, HourTransform)


def _compare_partition(name: str, src: int, transform: Any, src_type: IcebergType, expected_json: Any,
                       s: ColumnStats | None, add: Callable[..., None],
                       every_value: Callable[[int], ColumnStats]) -> None:
    if s is not None and s.repeated:
        return
    result_type = transform.result_type(src_type)
    try:
        expected = None if expected_json is None else value_from_json(result_type, expected_json)
    except Exception:
        try:
            expected = value_from_json(_Date(), expected_json)
        except Exception:
            add("data.partition-value", f"partition {name} = {expected_json!r} is not a {result_type} value",
                CLAUSE_PARTITION, f"partition/{name}")
            return
    if s is None and isinstance(transform, IdentityTransform):
        # the file does not store the source column (a table migrated from Hive): "Column
        # Projection" reads it from the partition value of an identity field, which then agrees
        return
    if s is not None and s.count == 0:
        return
    if s is not None and isinstance(transform, _MONOTONE):
        # the same judgement from the least and the greatest value alone, when they agree (no
        # value between them is turned into Python then)
        known = s.partition_int_range()
        try:
            ends = None if known is None else (transform.apply(src_type, known[0]), transform.apply(src_type, known[1]))
        except Exception:
            ends = None
        if known is not None and ends is not None and same_value(ends[0], expected) and same_value(ends[1], expected):
            if known[2]:
                _judge_partition_values(name, src, transform, src_type, expected_json, expected, {None}, add)
            return
    if s is not None and not s.partition_complete:
        s = every_value(src)
    values: set[Any] = {None} if s is None else set(s.partition_values)
    _judge_partition_values(name, src, transform, src_type, expected_json, expected, values, add)


def _judge_partition_values(name: str, src: int, transform: Any, src_type: IcebergType, expected_json: Any,
                            expected: Any, values: set[Any], add: Callable[..., None]) -> None:
    if isinstance(transform, _MONOTONE) and len(values) > 2:
        # year, month, day and hour never decrease as their (integer) source grows: when the
        # least and the greatest value give the partition value, every value between gives it
        ints = [v for v in values if type(v) is int]
        if len(ints) == len(values) - (None in values):
            try:
                ends = (transform.apply(src_type, min(ints)), transform.apply(src_type, max(ints)))
            except Exception:
                ends = None
            if ends is not None and same_value(ends[0], expected) and same_value(ends[1], expected):
                values &= {None}
    bad = []
    for v in values:
        if v == "NaN":
            v = float("nan")
        try:
            r = transform.apply(src_type, v)
        except Exception:
            continue
        if not same_value(r, expected):
            bad.append((v, r))
    if bad:
        shown = ", ".join(f"{show(v)} -> {show(r)}" for v, r in sorted(bad, key=lambda x: str(x))[:3])
        add("data.partition-value", f"partition {name} is {expected_json!r}, but {transform} of the rows' "
            f"column {src} gives other values ({shown}{', ...' if len(bad) > 3 else ''})",
            CLAUSE_PARTITION, f"partition/{name}")


def _bad_chunk(pf: Any, rg: int, columns: list[str]) -> str:
    """The location of the first column chunk of row group ``rg`` that does not decode."""
    for name in columns:
        try:
            pf.read_row_group(rg, columns=[name]).column(0).to_pylist()
        except (OSError, ValueError):
            return f"row group {rg}, column {name}"
    return f"row group {rg}"


def check_content_file(run: CheckRun, unit: Unit) -> list[Finding]:
    """A content file, checked against every distinct ``data_file`` record describing it."""
    doc = run.doc
    if doc is None:
        return []
    out: list[Finding] = []
    for key, rule, what, clause in (
            ("sequence_numbers", "manifests.sequence-number-changed", "data/file sequence numbers", CLAUSE_SEQ_NUMBERS),
            ("first_row_ids", "manifests.first-row-id-changed", "first_row_id values (as written or inherited)",
             "Manifests: First Row ID Inheritance")):
        seen = unit.context.get(key) or {}
        if len(seen) > 1:
            shown = "; ".join(f"{k} in {os.path.basename(str(w[0]))} entries[{w[1]}] (snapshot {w[2]})"
                              for k, w in list(seen.items())[:4])
            first = next(iter(seen.values()))
            out.append(Finding(rule, f"{describe_key(unit.path)}: its {what} differ between the entries that list "
                               f"it: {shown}", clause, run.local(str(first[0])) or str(first[0]),
                               f"entries[{first[1]}]"))
    local = run.local(unit.path)
    if local is not None and run.outside(local):
        first_rec = (unit.context.get("records") or [{}])[0]
        return out + [outside_finding(str(first_rec.get("manifest", unit.table)),
                                       f"entries[{first_rec.get('index', '?')}] data_file/file_path", unit.path)]
    for rec in unit.context.get("records") or []:
        ctx = dict(rec)
        ctx["targets"] = unit.context.get("targets") or {}
        ctx["elsewhere"] = unit.context.get("elsewhere") or {}
        ctx["appended_by"] = unit.context.get("appended_by")
        out.extend(_check_record(run, Unit(unit.kind, unit.table, unit.path, ctx)))
    return out
