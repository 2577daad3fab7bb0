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
:func:`check_metadata_log_uuids` reads the earlier metadata files ``metadata-log`` names (local
ones that exist) and compares their ``table-uuid`` with the current one ("Implementations must
throw an exception if a table's UUID does not match the expected UUID after refreshing
metadata": a log whose files disagree is a refresh that changed the UUID).
"""

from __future__ import annotations

import math
from typing import Any

from iceberg_conformance.reference.findings import Finding

CLAUSE_STATS = "Table Statistics"
CLAUSE_PARTITION_STATS = "Partition Statistics File"

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
    from iceberg_conformance.reference.errors import SpecViolation
    from iceberg_conformance.reference.puffin import read_puffin

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


def _field_ids(schema: Any) -> dict[int, Any]:
    from iceberg_conformance.reference.arrow import field_id

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
    key = []
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
    field id), and the rows are sorted by ``partition`` ascending with nulls first. A file that
    is not Parquet is left to ``checker.not-checked``."""
    import pyarrow.parquet as pq

    from iceberg_conformance.reference.safeio import open_regular

    if not path.lower().endswith(".parquet"):
        return [Finding("checker.not-checked", "check not available: partition statistics files other than "
                        "Parquet are not read", "-", table, where, "warning")]
    with open_regular(path) as fh:
        try:
            pf = pq.ParquetFile(fh)
            schema = pf.schema_arrow
        except Exception as e:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... on a bad footer
            return [Finding("files.partition-statistics-fields", f"not a readable Parquet file: {str(e)[:300]}",
                            CLAUSE_PARTITION_STATS, table, where)]
        ids = _field_ids(schema)
        out = []
        for fid, (name, first) in PARTITION_STATS_FIELDS.items():
            if version >= first and fid not in ids:
                out.append(Finding("files.partition-statistics-fields", f"required field {fid} {name} is missing "
                                   f"(format version {version})", CLAUSE_PARTITION_STATS, table, where))
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


def check_metadata_log_uuids(doc: dict[str, Any], table: str, allowed: Any) -> list[Finding]:
    """``table-uuid`` of every earlier metadata file in ``metadata-log`` that is a local, regular
    file (``allowed``: path -> the path, or None when it may not be read) against the current
    one. Files that are missing or unreadable are not judged (the log may outlive them)."""
    from iceberg_conformance.checker.datafiles import local_path
    from iceberg_conformance.reference.metadata import load_metadata
    from iceberg_conformance.reference.safeio import is_regular

    uuid = doc.get("table-uuid")
    if not isinstance(uuid, str):
        return []
    out: list[Finding] = []
    for i, entry in enumerate(doc.get("metadata-log") or []):
        path = entry.get("metadata-file") if isinstance(entry, dict) else None
        local = local_path(path) if isinstance(path, str) else None
        if local is None or allowed(local) is None or not is_regular(local):
            continue
        old, _ = load_metadata(local)
        other = old.get("table-uuid") if isinstance(old, dict) else None
        if isinstance(other, str) and other.lower() != uuid.lower():
            out.append(Finding("metadata.table-uuid-changed", f"metadata-log entry {i} ({path}) has table-uuid "
                               f"{other}, the current metadata {uuid}", "Table Metadata Fields: table-uuid", table,
                               f"/metadata-log/{i}/metadata-file"))
    return out
