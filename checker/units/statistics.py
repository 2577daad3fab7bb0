"""Files the table metadata names besides its snapshots: statistics files, and the earlier
metadata files of ``metadata-log``.

Spec sections: "Table Metadata > Table Statistics" (a statistics file is a Puffin file; the
metadata records its footer size and, per blob, the type and a subset of the properties the
Puffin footer holds) and "Table Metadata > Partition Statistics > Partition Statistics File"
(the field table of a partition statistics file, and the order of its rows).

:func:`check_statistics_file` compares a ``statistics`` entry with the Puffin file it names;
:func:`check_partition_statistics_file` reads a Parquet partition statistics file: the fields
required at the table's format version (by field id) and the row order (ascending by
``partition``, nulls first). Both read only the file they are given.
:func:`check_partition_position_deletes` compares ``position_delete_record_count`` per partition
with the live position delete files and deletion vectors of the snapshot the file is registered
for, and :func:`check_partition_total_records` a non-null ``total_record_count`` with the rows a
scan of that snapshot keeps (an unknown count is written as null). Rows are matched to manifest
entries by the unified partition tuple (partition field ids, values compared as the
partition's result types).
:func:`check_metadata_log_uuids` reads the earlier metadata files ``metadata-log`` names (local
ones that exist) and compares their ``table-uuid`` with the current one ("Implementations must
throw an exception if a table's UUID does not match the expected UUID after refreshing
metadata": a log whose files disagree is a refresh that changed the UUID).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.checker.run import CheckRun, logged_metadata, parsed_schemas
from iceberg_conformance.checker.units.datafile import parquet_layout_problem
from iceberg_conformance.checker.units.metrics import comparable, python_value
from iceberg_conformance.reference import scan as rs
from iceberg_conformance.reference.arrow import field_id
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.puffin import read_puffin
from iceberg_conformance.reference.safeio import arrow_file, open_regular
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.transforms import parse_transform
from iceberg_conformance.reference.types import DateType, IntegerType
from iceberg_conformance.reference.values import value_from_json, value_to_json

CLAUSE_STATS = "Table Statistics"
CLAUSE_PARTITION_STATS = "Partition Statistics File"

#: the type of each field of a partition statistics file, by field id (the field table)
PARTITION_STATS_TYPES = {1: "struct", 2: "int", 3: "long", 4: "int", 5: "long", 6: "long", 7: "int", 8: "long",
                         9: "int", 10: "long", 11: "long", 12: "long", 13: "int"}
_ARROW_TYPES = {"struct": pa.types.is_struct, "int": pa.types.is_int32, "long": pa.types.is_int64}

#: partition statistics fields: id -> (name, first version it is required in)
PARTITION_STATS_FIELDS = {
    1: ("partition", 1), 2: ("spec_id", 1), 3: ("data_record_count", 1), 4: ("data_file_count", 1),
    5: ("total_data_file_size_in_bytes", 1), 6: ("position_delete_record_count", 3),
    7: ("position_delete_file_count", 3), 8: ("equality_delete_record_count", 3),
    9: ("equality_delete_file_count", 3), 13: ("dv_count", 3),
}


def check_statistics_file(entry: dict[str, Any], path: str, table: str, where: str,
                          field_ids: set[int] | None = None) -> list[Finding]:
    """A ``statistics`` entry against its Puffin file: ``file-footer-size-in-bytes`` is the
    footer's size (magic to magic), every ``blob-metadata`` item names a blob of the footer
    (same type, snapshot-id, sequence-number and fields) whose properties include its own, and
    (given ``field_ids``, the ids of the table's schemas) every blob's fields are field ids."""
    try:
        pf = read_puffin(path)
    except SpecViolation:
        return []  # reported by validate_puffin with its own rule
    out: list[Finding] = []
    footer = pf.size - pf.footer_start
    claimed = entry.get("file-footer-size-in-bytes")
    if isinstance(claimed, int) and not isinstance(claimed, bool) and claimed != footer:
        out.append(Finding("files.statistics-footer", f"file-footer-size-in-bytes is {claimed}, the Puffin footer "
                           f"of {entry.get('statistics-path')} has {footer} bytes", CLAUSE_STATS, table,
                           f"{where}/file-footer-size-in-bytes"))
    blobs = pf.metadata.blobs
    if field_ids is not None:
        for i, b in enumerate(blobs):
            unknown = [f for f in b.fields if f not in field_ids]
            if unknown:
                out.append(Finding("files.statistics-fields", f"blob {i} ({b.type}) was computed for field id(s) "
                                   f"{unknown}, which no schema of the table has", CLAUSE_STATS, table,
                                   f"{where}/statistics-path"))
    for i, bm in enumerate(entry.get("blob-metadata") or []):
        if not isinstance(bm, dict):
            continue
        fields = tuple(bm.get("fields") or ())
        same = [b for b in blobs if b.type == bm.get("type") and b.snapshot_id == bm.get("snapshot-id")
                and b.sequence_number == bm.get("sequence-number") and tuple(b.fields) == fields]
        loc = f"{where}/blob-metadata/{i}"
        if not same:
            out.append(Finding("files.statistics-footer", f"blob-metadata {i} (type {bm.get('type')!r}, snapshot "
                               f"{bm.get('snapshot-id')}, fields {list(fields)}) matches no blob of the Puffin footer",
                               CLAUSE_STATS, table, loc))
            continue
        props = bm.get("properties") or {}
        if isinstance(props, dict) and not any(all(b.properties.get(k) == v for k, v in props.items()) for b in same):
            out.append(Finding("files.statistics-footer", f"blob-metadata {i}: properties {props} are not a subset "
                               "of the Puffin blob's properties", CLAUSE_STATS, table, f"{loc}/properties"))
    return out


def arrow_fields_by_id(schema: Any) -> dict[int, Any]:
    out = {}
    for f in schema:
        fid = field_id(f)
        if fid is not None:
            out[fid] = f
    return out


def _order_key(value: Any) -> tuple[Any, ...]:
    """Sort key of a partition tuple: field by field, null first; NaN after numbers."""
    if not isinstance(value, dict):
        return ((0,),) if value is None else ((1, value),)
    key: list[tuple[Any, ...]] = []
    for v in value.values():
        if v is None:
            key.append((0,))
        elif isinstance(v, float) and math.isnan(v):
            key.append((2,))
        else:
            key.append((1, v))
    return tuple(key)


def check_partition_statistics_file(path: str, version: int, table: str, where: str) -> list[Finding]:
    """A Parquet partition statistics file: the fields required at ``version`` are present (by
    field id) and every field of the spec's table has its type, and the rows are sorted by
    ``partition`` ascending with nulls first. A file that is not Parquet is left to
    ``checker.not-checked``."""
    if not path.lower().endswith(".parquet"):
        return [Finding("checker.not-checked", "check not available: partition statistics files other than "
                        "Parquet are not read", "-", table, where, "warning")]
    with open_regular(path) as fh:
        try:
            pf = pq.ParquetFile(arrow_file(fh))
            schema = pf.schema_arrow
        except Exception:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... on a bad footer
            return [Finding("files.partition-statistics-fields",
                            f"not a readable Parquet file: {parquet_layout_problem(fh)}",
                            CLAUSE_PARTITION_STATS, table, where)]
        ids = arrow_fields_by_id(schema)
        out = []
        for fid, (name, first) in PARTITION_STATS_FIELDS.items():
            if version >= first and fid not in ids:
                out.append(Finding("files.partition-statistics-fields", f"required field {fid} {name} is missing "
                                   f"(format version {version})", CLAUSE_PARTITION_STATS, table, where))
        for fid, want in PARTITION_STATS_TYPES.items():
            if fid in ids and not _ARROW_TYPES[want](ids[fid].type):
                out.append(Finding("files.partition-statistics-fields", f"field {fid} ({ids[fid].name}) is "
                                   f"{ids[fid].type}; field {fid} of a partition statistics file is a {want}",
                                   CLAUSE_PARTITION_STATS, table, where))
        if 1 in ids and not pa.types.is_struct(ids[1].type):
            return out
        if 1 not in ids or pf.metadata.num_rows < 2:
            return out
        column = pf.read(columns=[ids[1].name]).column(0).to_pylist()
    keys = [_order_key(v) for v in column]
    for i in range(1, len(keys)):
        try:
            unordered = keys[i] < keys[i - 1]
        except TypeError:
            break
        if unordered:
            out.append(Finding("files.partition-statistics-order", f"row {i} sorts before row {i - 1} by partition "
                               "(rows are sorted ascending, nulls first)", CLAUSE_PARTITION_STATS, table, where))
            break
    return out


def check_metadata_log_uuids(doc: dict[str, Any], table: str, allowed: Any,
                             logged: list[tuple[int, str, dict[str, Any]]] | None = None) -> list[Finding]:
    """``table-uuid`` of every earlier metadata file in ``metadata-log`` that is a local, regular
    file (``allowed``: path -> the path, or None when it may not be read) against the current
    one. Files that are missing or unreadable are not judged (the log may outlive them).
    ``logged``: those files as :func:`~checker.run.logged_metadata` read them, when already read."""
    uuid, log = doc.get("table-uuid"), doc.get("metadata-log")
    if not isinstance(uuid, str) or not isinstance(log, list):
        return []  # a metadata-log that is not an array is the metadata unit's shape finding
    out: list[Finding] = []
    for i, path, old in logged if logged is not None else logged_metadata(doc, allowed):
        other = old.get("table-uuid")
        if isinstance(other, str) and other.lower() != uuid.lower():
            out.append(Finding("metadata.table-uuid-changed", f"metadata-log entry {i} ({path}) has table-uuid "
                               f"{other}, the current metadata {uuid}", "Table Metadata Fields: table-uuid", table,
                               f"/metadata-log/{i}/metadata-file"))
    return out


# --- partition statistics against the live files of their snapshot -------------------------------

CLAUSE_PARTITION_COUNTS = "Partition Statistics File: position_delete_record_count, total_record_count"


def _partition_types(doc: dict[str, Any]) -> dict[int, Any]:
    """Partition field id -> result type, over every spec of the table (the unified partition
    type); a field whose source or transform cannot be resolved is left out."""
    schemas, current = parsed_schemas(doc)
    sources: dict[int, Any] = {}
    for s in ([current] if current is not None else []) + schemas:
        for fid, info in walk(s):
            sources.setdefault(fid, info.field_type)
    out: dict[int, Any] = {}
    for spec in doc.get("partition-specs") or []:
        for f in (spec.get("fields") or []) if isinstance(spec, dict) else []:
            if not isinstance(f, dict) or not isinstance(f.get("field-id"), int):
                continue
            src = f.get("source-id")
            if not isinstance(src, int) or src not in sources:
                continue
            try:
                out.setdefault(f["field-id"], parse_transform(str(f.get("transform"))).result_type(sources[src]))
            except Exception:  # noqa: BLE001 - an unknown transform: reported by the metadata checks
                continue
    return out


def _key(values: dict[int, Any], types: dict[int, Any]) -> str:
    return json.dumps([[fid, None if values.get(fid) is None else value_to_json(types[fid], values[fid])]
                       for fid in sorted(types)])


def manifest_partition_key(partition: Any, types: dict[int, Any]) -> str:
    """The unified partition tuple of a manifest entry's ``partition`` (JSON single values keyed
    by partition field id), as a comparable string; fields the entry's spec lacks are null."""
    values: dict[int, Any] = {}
    for k, v in (partition or {}).items() if isinstance(partition, dict) else []:
        fid = int(k)
        if fid in types and v is not None:
            if isinstance(types[fid], IntegerType) and isinstance(v, str):
                # a day partition read from a manifest whose Avro schema writes it as a date
                # (Iceberg Java): the same day count as the int the spec gives the transform
                values[fid] = value_from_json(DateType(), v)
            else:
                values[fid] = value_from_json(types[fid], v)
    return _key(values, types)


def _stats_rows(path: str, types: dict[int, Any], wanted: tuple[int, ...]) -> list[tuple[str, dict[int, Any]]] | None:
    """(unified partition key, {field id: value} of the ``wanted`` fields) of every row of a
    Parquet partition statistics file; None when a field cannot be matched."""
    with open_regular(path) as fh:
        pf = pq.ParquetFile(arrow_file(fh))
        ids = arrow_fields_by_id(pf.schema_arrow)
        if 1 not in ids:
            return None
        names = [ids[1].name] + [ids[f].name for f in wanted if f in ids]
        tbl = pf.read(columns=names)
    part = tbl.column(ids[1].name).combine_chunks()
    n = tbl.num_rows
    cols: dict[int, list[Any]] = {}
    ptype = part.type
    for i in range(ptype.num_fields):
        fid = field_id(ptype.field(i))
        if fid is None or fid not in types:
            return None
        arr = part.field(i)
        if pa.types.is_date32(arr.type):  # a day partition: Iceberg Java writes DATE, the spec says int days
            arr = arr.cast(pa.int32())
        cols[fid] = [python_value(types[fid], v) for v in comparable(types[fid], arr).to_pylist()]
    nulls = part.is_null().to_pylist()
    rows = []
    values = {f: tbl.column(ids[f].name).to_pylist() for f in wanted if f in ids}
    for r in range(n):
        tup = {} if nulls[r] else {fid: col[r] for fid, col in cols.items()}
        rows.append((_key(tup, types), {f: v[r] for f, v in values.items()}))
    return rows


def _by_partition(path: str, doc: dict[str, Any], fid: int) -> tuple[dict[str, int | None], dict[int, Any]] | None:
    """Field ``fid`` of a partition statistics file summed per unified partition tuple (None for a
    tuple with a null value in some row); None when the file cannot be matched to the table."""
    types = _partition_types(doc)
    if not path.lower().endswith(".parquet"):
        return None
    try:
        rows = _stats_rows(path, types, (fid,))
    except Exception:  # noqa: BLE001 - an unreadable or mismatched file is reported by its own rules
        return None
    if rows is None:
        return None
    out: dict[str, int | None] = {}
    for key, vals in rows:
        if fid not in vals:
            return None
        v = vals[fid]
        prev = out.get(key, 0)
        out[key] = None if v is None or prev is None else prev + int(v)
    return out, types


def _show_key(key: str) -> str:
    return ", ".join(f"{fid}={json.dumps(v)}" for fid, v in json.loads(key)) or "(unpartitioned)"


def check_partition_position_deletes(doc: dict[str, Any], live: list[tuple[int, dict[str, Any]]], path: str,
                                     table: str, where: str) -> list[Finding]:
    """``files.partition-statistics-position-deletes``: in each row, a non-null
    ``position_delete_record_count`` is the sum of ``record_count`` over the live position delete
    files and deletion vectors of that partition in the snapshot (``live``: (spec id,
    data_file) of its ADDED and EXISTING entries)."""
    got = _by_partition(path, doc, 6)
    if got is None:
        return []
    claimed, types = got
    actual: dict[str, int] = {}
    try:
        for _spec, df in live:
            if df.get("content") == 1:
                k = manifest_partition_key(df.get("partition"), types)
                actual[k] = actual.get(k, 0) + int(df.get("record_count") or 0)
    except Exception:  # noqa: BLE001 - a partition value that does not decode: data.partition-value
        return []
    out = []
    for key, value in claimed.items():
        if value is not None and value != actual.get(key, 0):
            out.append(Finding("files.partition-statistics-position-deletes", f"partition {_show_key(key)}: "
                               f"position_delete_record_count is {value}, the live position delete files and "
                               f"deletion vectors of the partition hold {actual.get(key, 0)} position deletes",
                               CLAUSE_PARTITION_COUNTS, table, where))
    return out


def check_partition_total_records(doc: dict[str, Any], snap: dict[str, Any], path: str, table: str, where: str,
                                  readable: Any) -> list[Finding]:
    """``files.partition-statistics-total-records``: in each row, a non-null
    ``total_record_count`` is the exact number of rows of the partition after deletes (an unknown
    count is written as null): rows of the snapshot's scan tasks (:func:`reference.scan.plan`),
    position deletes and deletion vectors counted from their files, equality deletes applied to
    the rows read. Nothing is judged when a file of the snapshot cannot be read."""
    got = _by_partition(path, doc, 10)
    if got is None:
        return []
    claimed, types = got
    if all(v is None for v in claimed.values()):
        return []
    actual: dict[str, int] = {}
    try:
        tasks = rs.plan(doc, snap)
        files = [t.data.path for t in tasks] \
            + [x.path for t in tasks for x in t.position_deletes + t.equality_deletes] \
            + [t.deletion_vector.path for t in tasks if t.deletion_vector is not None]
        if any((lp := local_path(f)) is None or not readable(lp) for f in files):
            return []
        schema = rs.schema_for(doc, snap)
        for t in tasks:
            rc = int(t.data.data_file.get("record_count") or 0)
            if t.equality_deletes:
                kept = len(rs.read_task(doc, schema, t))
            else:
                kept = rc - len({p for p in rs.deleted_positions(t) if 0 <= p < rc})
            k = manifest_partition_key(t.data.data_file.get("partition"), types)
            actual[k] = actual.get(k, 0) + kept
    except (SpecViolation, OSError, ValueError, KeyError, TypeError):
        return []  # unreadable input is reported by the file and manifest rules
    out = []
    for key, value in claimed.items():
        if value is not None and value != actual.get(key, 0):
            out.append(Finding("files.partition-statistics-total-records", f"partition {_show_key(key)}: "
                               f"total_record_count is {value}, a scan of snapshot {snap.get('snapshot-id')} keeps "
                               f"{actual.get(key, 0)} rows of the partition after deletes (an unknown count is "
                               "written as null)", CLAUSE_PARTITION_COUNTS, table, where))
    return out


def check_partition_stats(run: CheckRun, unit: Unit) -> list[Finding]:
    """``total_record_count`` of every registered partition statistics file against the rows
    a scan of its snapshot keeps (deletes applied, :mod:`reference.scan`)."""
    doc = run.doc
    if doc is None:
        return []
    out: list[Finding] = []
    for i, st in enumerate(doc.get("partition-statistics") or []):
        if not isinstance(st, dict) or not isinstance(st.get("statistics-path"), str):
            continue
        p = run.local(st["statistics-path"])
        if p is None or not run.readable(p):
            continue  # reported by the metadata unit
        snaps = [s for s in doc.get("snapshots") or [] if isinstance(s, dict)]
        snap = next((s for s in snaps if s.get("snapshot-id") == st.get("snapshot-id")), None)
        if snap is None:
            continue
        out.extend(check_partition_total_records(doc, snap, p, unit.table, f"/partition-statistics/{i}/statistics-path",
                                                 lambda x: not run.outside(x)))
    return out
