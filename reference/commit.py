"""Committing table metadata: file-system tables, metastore tables, conflict resolution.

Spec sections: "Commit Conflict Resolution and Retry", "File System Tables", "Metastore Tables"
(current spec; the file-system scheme is deprecated there and unsafe on object stores).

* :func:`commit_file_system` writes ``<uuid>.metadata.json`` and then links it to
  ``v<V+1>.metadata.json`` with ``os.link``, which fails when the target exists: a writer that
  lost the race gets :class:`CommitConflict` and never overwrites the winner's version (a plain
  ``os.rename`` would replace it on POSIX). ``version-hint.text`` is updated afterwards (it is a
  hint: readers probe past it).
* :func:`commit_metastore` keeps the current metadata location in a SQLite file and swaps it
  with a conditional ``UPDATE ... WHERE location = <expected>`` (check-and-put).
* :func:`retry_decision` applies the retry rules: appends always reapply; replace and
  file-based deletes need their files still live; schema and partition-spec changes need the
  schema unchanged between base and current metadata.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .errors import SpecViolation

CLAUSE_RETRY = "Commit Conflict Resolution and Retry"
CLAUSE_FS = "Commit Conflict Resolution and Retry / File System Tables"
CLAUSE_METASTORE = "Commit Conflict Resolution and Retry / Metastore Tables"

VERSION_HINT = "version-hint.text"
_VERSION_FILE = re.compile(r"v(\d+)\.metadata\.json")


class CommitConflict(Exception):
    """Another writer committed first: the base version is no longer current."""


# --- file-system tables ---------------------------------------------------------------------------

def metadata_dir(table_location: str) -> str:
    return os.path.join(table_location, "metadata")


def version_path(table_location: str, version: int) -> str:
    return os.path.join(metadata_dir(table_location), f"v{version}.metadata.json")


def current_version(table_location: str) -> int:
    """The highest committed version: the hint, then probe ``v<V+1>`` upward (0 = no table)."""
    mdir = metadata_dir(table_location)
    v = 0
    try:
        with open(os.path.join(mdir, VERSION_HINT), encoding="utf-8") as f:
            text = f.read().strip()
            v = int(text) if text.isdigit() and len(text) <= 20 else 0
    except OSError:
        v = 0
    if v and not os.path.exists(version_path(table_location, v)):
        v = 0
    if v == 0:
        found = [int(m.group(1)) for n in os.listdir(mdir) if (m := _VERSION_FILE.fullmatch(n))] \
            if os.path.isdir(mdir) else []
        v = max(found, default=0)
    while os.path.exists(version_path(table_location, v + 1)):
        v += 1
    return v


def read_version(table_location: str, version: int) -> dict[str, Any]:
    with open(version_path(table_location, version), encoding="utf-8") as f:
        doc: dict[str, Any] = json.load(f)
    return doc


def _write_new(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def commit_file_system(table_location: str, base_version: int, metadata: dict[str, Any]) -> int:
    """Commit ``metadata`` as version ``base_version + 1``; returns the new version.

    Raises :class:`CommitConflict` when that version already exists (another writer won)."""
    mdir = metadata_dir(table_location)
    os.makedirs(mdir, exist_ok=True)
    new_version = base_version + 1
    temp = os.path.join(mdir, f"{uuid.uuid4()}.metadata.json")
    _write_new(temp, json.dumps(metadata, indent=1).encode())
    try:
        os.link(temp, version_path(table_location, new_version))
    except FileExistsError:
        raise CommitConflict(f"v{new_version}.metadata.json exists: version {base_version} is no longer "
                             "current") from None
    finally:
        os.unlink(temp)
    hint_temp = os.path.join(mdir, f".{uuid.uuid4()}.version-hint")
    _write_new(hint_temp, str(new_version).encode())
    os.replace(hint_temp, os.path.join(mdir, VERSION_HINT))
    return new_version


# --- metastore tables (SQLite) ------------------------------------------------------------------

def _connect(db_path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(db_path, timeout=60, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 60000")
    return conn


def create_metastore(db_path: str) -> None:
    with _connect(db_path) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS iceberg_tables (name TEXT PRIMARY KEY, "
                     "metadata_location TEXT NOT NULL)")


def metastore_location(db_path: str, name: str) -> str | None:
    conn = _connect(db_path)
    try:
        row = conn.execute("SELECT metadata_location FROM iceberg_tables WHERE name = ?", (name,)).fetchone()
    finally:
        conn.close()
    return None if row is None else str(row[0])


def metadata_file_name(version: int) -> str:
    """``<V>-<random-uuid>.metadata.json``."""
    return f"{version:05d}-{uuid.uuid4()}.metadata.json"


def commit_metastore(db_path: str, name: str, expected_location: str | None, new_location: str) -> None:
    """Swap the table's metadata pointer from ``expected_location`` to ``new_location``
    (``expected_location`` ``None``: create the table). :class:`CommitConflict` if it moved."""
    conn = _connect(db_path)
    try:
        if expected_location is None:
            try:
                conn.execute("INSERT INTO iceberg_tables (name, metadata_location) VALUES (?, ?)", (name, new_location))
            except sqlite3.IntegrityError:
                raise CommitConflict(f"table {name!r} exists already") from None
            return
        cur = conn.execute("UPDATE iceberg_tables SET metadata_location = ? WHERE name = ? AND metadata_location = ?",
                           (new_location, name, expected_location))
        if cur.rowcount != 1:
            raise CommitConflict(f"table {name!r}: metadata location is no longer {expected_location}")
    finally:
        conn.close()


def commit_metastore_file(db_path: str, name: str, table_location: str, base_location: str | None,
                          base_version: int, metadata: dict[str, Any]) -> str:
    """Write ``<V+1>-<uuid>.metadata.json`` and swap the pointer to it; returns its location."""
    mdir = metadata_dir(table_location)
    os.makedirs(mdir, exist_ok=True)
    location = os.path.join(mdir, metadata_file_name(base_version + 1))
    _write_new(location, json.dumps(metadata, indent=1).encode())
    try:
        commit_metastore(db_path, name, base_location, location)
    except CommitConflict:
        os.unlink(location)  # never referenced: safe to remove
        raise
    return location


# --- retry rules --------------------------------------------------------------------------------

@dataclass(frozen=True)
class RetryDecision:
    """``retry`` True: the operation can be reapplied to the current metadata and committed."""

    retry: bool
    rule: str = ""
    reason: str = ""


OPERATIONS = ("append", "replace", "delete", "overwrite", "update-schema", "update-partition-spec")


def _current_schema(meta: dict[str, Any]) -> Any:
    if "schemas" in meta and "current-schema-id" in meta:
        return next((s for s in meta["schemas"] if s.get("schema-id") == meta["current-schema-id"]), None)
    return meta.get("schema")


def retry_decision(operation: str, base: dict[str, Any], current: dict[str, Any], *,
                   files_to_delete: Iterable[str] = (), current_live_files: Iterable[str] = ()) -> RetryDecision:
    """Whether a commit of ``operation`` prepared against ``base`` metadata can be retried on
    ``current`` metadata. ``files_to_delete`` are the files a replace/delete/overwrite removes by
    name (empty for a delete by expression); ``current_live_files`` are the files live in the
    current snapshot."""
    if operation not in OPERATIONS:
        raise SpecViolation("commit.operation", f"{operation!r} is not one of {', '.join(OPERATIONS)}",
                            clause=CLAUSE_RETRY)
    if operation == "append":
        return RetryDecision(True, reason="appends have no requirements and can always be applied")
    if operation in ("replace", "delete", "overwrite"):
        live = set(current_live_files)
        gone = sorted(set(files_to_delete) - live)
        if gone:
            return RetryDecision(False, "commit.files-no-longer-live",
                                 f"{operation}: files to delete are no longer in the table: {', '.join(gone)}")
        return RetryDecision(True, reason=f"{operation}: every file to delete is still in the table")
    base_schema, cur_schema = _current_schema(base), _current_schema(current)
    if base.get("current-schema-id") != current.get("current-schema-id") or base_schema != cur_schema:
        return RetryDecision(False, "commit.schema-changed",
                             f"{operation}: the schema changed between the base and the current version")
    return RetryDecision(True, reason=f"{operation}: the schema is unchanged")


# --- appends (used by the concurrency test) -----------------------------------------------------

def initial_metadata(table_location: str, table_uuid: str) -> dict[str, Any]:
    """A v2 table with one long column, unpartitioned, no snapshots."""
    return {
        "format-version": 2, "table-uuid": table_uuid, "location": table_location,
        "last-sequence-number": 0, "last-updated-ms": 1_700_000_000_000, "last-column-id": 1,
        "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0,
                     "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}],
        "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": {}, "current-snapshot-id": None, "snapshots": [], "snapshot-log": [], "metadata-log": [],
        "refs": {},
    }


def with_appended_snapshot(meta: dict[str, Any], snapshot_id: int) -> dict[str, Any]:
    """``meta`` plus an append snapshot whose parent is the current snapshot, with the next
    sequence number (what a retried append recomputes from the current metadata)."""
    new: dict[str, Any] = json.loads(json.dumps(meta))
    seq = int(meta["last-sequence-number"]) + 1
    ts = int(meta["last-updated-ms"]) + 1
    snap: dict[str, Any] = {"snapshot-id": snapshot_id, "sequence-number": seq, "timestamp-ms": ts,
                            "manifest-list": f"{meta['location']}/metadata/snap-{snapshot_id}.avro",
                            "summary": {"operation": "append"}, "schema-id": 0}
    if meta.get("current-snapshot-id") is not None:
        snap["parent-snapshot-id"] = meta["current-snapshot-id"]
    new["snapshots"].append(snap)
    new["current-snapshot-id"] = snapshot_id
    new["last-sequence-number"] = seq
    new["last-updated-ms"] = ts
    new["snapshot-log"].append({"timestamp-ms": ts, "snapshot-id": snapshot_id})
    new["refs"] = {"main": {"snapshot-id": snapshot_id, "type": "branch"}}
    return new


def append_many(style: str, table_location: str, db_path: str, name: str, snapshot_ids: list[int]) -> int:
    """Commit one append per id with retries (``style`` ``fs`` or ``metastore``); returns the
    number of conflicts seen. Run by several processes at once in the commit stress test."""
    conflicts = 0
    for sid in snapshot_ids:
        while True:
            try:
                if style == "fs":
                    v = current_version(table_location)
                    commit_file_system(table_location, v, with_appended_snapshot(read_version(table_location, v), sid))
                else:
                    loc = metastore_location(db_path, name)
                    if loc is None:
                        raise CommitConflict("no table")
                    with open(loc, encoding="utf-8") as f:
                        base = json.load(f)
                    version = int(os.path.basename(loc).split("-", 1)[0])
                    commit_metastore_file(db_path, name, table_location, loc, version,
                                          with_appended_snapshot(base, sid))
                break
            except CommitConflict:
                conflicts += 1
    return conflicts
