"""Checks of the table's history: the earlier metadata files ``metadata-log`` names, oldest
first, then the current one.

* **Field ids are not reused** (Schema Evolution: "Adding a new field assigns a new ID for that
  field and for any nested fields"): a field id of one file's current schema that a later file's
  current schema dropped comes back, in a still later file, as another column (another name, or a
  type that is neither the old one nor its promotion). A dropped field restored unchanged (a
  rollback of the deletion, which the spec allows for nullable fields) is not reported.
* **The snapshot log keeps its entries** (Table Metadata Fields: snapshot-log): an entry of the
  previous metadata file (the last one of ``metadata-log``) whose snapshot is still in
  ``snapshots`` is gone from the current log, although no snapshot after it in that log was
  expired (expiring a snapshot removes the entries before it).

Logged files that are missing, outside the table or unreadable are skipped (the log may outlive
them).
"""

from __future__ import annotations

from typing import Any, Callable

from iceberg_conformance.checker.find import local_path
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.evolution import field_index, replaced
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import current_schema, format_version, load_metadata
from iceberg_conformance.reference.safeio import is_regular
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.reference.types import IcebergType

CLAUSE_NEW_ID = "Schema Evolution: adding a new field assigns a new ID"
CLAUSE_SNAPSHOT_LOG = "Table Metadata Fields: snapshot-log"


def logged_files(doc: dict[str, Any], allowed: Callable[[str], str | None]) -> list[tuple[int, dict[str, Any]]]:
    """(index in ``metadata-log``, document) of every readable earlier metadata file, oldest first."""
    out: list[tuple[int, dict[str, Any]]] = []
    log = doc.get("metadata-log")
    if not isinstance(log, list):
        return out   # a metadata-log that is not an array is the metadata unit's shape finding
    for i, entry in enumerate(log):
        path = entry.get("metadata-file") if isinstance(entry, dict) else None
        local = local_path(path) if isinstance(path, str) else None
        if local is None or allowed(local) is None or not is_regular(local):
            continue
        old, _ = load_metadata(local)
        if isinstance(old, dict):
            out.append((i, old))
    return out


def _current_fields(doc: dict[str, Any]) -> dict[int, tuple[str, IcebergType]] | None:
    schema = current_schema(doc)
    if not isinstance(schema, dict):
        return None
    try:
        return field_index(parse_schema(schema))
    except (SpecViolation, RecursionError):
        return None


def check_history(doc: dict[str, Any], table: str, allowed: Callable[[str], str | None]) -> list[Finding]:
    """Findings of ``evolution.field-id-reused`` and ``metadata.snapshot-log-truncated``."""
    earlier = logged_files(doc, allowed)
    out = check_field_ids(earlier, doc, table)
    log = doc.get("metadata-log")
    if earlier and isinstance(log, list) and earlier[-1][0] == len(log) - 1:
        out += check_snapshot_log(earlier[-1][1], doc, table)
    return out


def check_field_ids(earlier: list[tuple[int, dict[str, Any]]], doc: dict[str, Any], table: str) -> list[Finding]:
    version = format_version(doc) or 1
    chain = [(f"/metadata-log/{i}/metadata-file", old) for i, old in earlier] + [("/current-schema-id", doc)]
    last: dict[int, tuple[str, IcebergType]] = {}
    dropped: set[int] = set()
    out: list[Finding] = []
    reported: set[int] = set()
    for where, d in chain:
        fields = _current_fields(d)
        if fields is None:
            continue
        for fid, field in fields.items():
            if fid in dropped and fid not in reported and replaced(last[fid], field, version):
                reported.add(fid)
                out.append(Finding("evolution.field-id-reused", f"field id {fid} was {last[fid][0]!r} "
                                   f"({last[fid][1]}), was dropped, and is {field[0]!r} ({field[1]}) in the current "
                                   f"schema of the file at {where}: an added field gets a new id", CLAUSE_NEW_ID,
                                   table, where))
            last[fid] = field
            dropped.discard(fid)
        dropped |= set(last) - set(fields)
    return out


def check_snapshot_log(previous: dict[str, Any], doc: dict[str, Any], table: str) -> list[Finding]:
    live = {s.get("snapshot-id") for s in doc.get("snapshots") or [] if isinstance(s, dict)}
    kept = {(e.get("snapshot-id"), e.get("timestamp-ms")) for e in doc.get("snapshot-log") or [] if isinstance(e, dict)}
    before = [e for e in previous.get("snapshot-log") or [] if isinstance(e, dict)]
    lost = []
    for i, e in enumerate(before):
        if (e.get("snapshot-id"), e.get("timestamp-ms")) in kept or e.get("snapshot-id") not in live:
            continue
        if any(later.get("snapshot-id") not in live for later in before[i + 1:]):
            continue  # a snapshot after it expired: the entries before that one are removed
        lost.append(e)
    if not lost:
        return []
    shown = ", ".join(f"{e.get('snapshot-id')} at {e.get('timestamp-ms')}" for e in lost[:5])
    return [Finding("metadata.snapshot-log-truncated", f"{len(lost)} snapshot-log entries of the previous metadata "
                    f"file are gone ({shown}{', ...' if len(lost) > 5 else ''}), though their snapshots are still in "
                    "snapshots and no later snapshot was expired", CLAUSE_SNAPSHOT_LOG, table, "/snapshot-log")]
