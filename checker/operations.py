"""A snapshot's manifest list against what the snapshot did: its ``summary.operation`` against
the manifests it added, and (v3) the ``first_row_id`` of manifests against its parent's list.

Spec section: "Snapshots" (the operation list): ``append`` -- only data files were added and
no files were removed; ``delete`` -- data files were removed and/or delete files were added.
The manifests a snapshot added (``added_snapshot_id`` is the snapshot) count the files it added
and removed (``added_files_count``, ``deleted_files_count``, checked against the manifests by
``manifests.list-counts``); a count that is null is not judged.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.findings import Finding

CLAUSE = "Snapshots: operation"


def check_operation(snap: dict[str, Any], manifests: list[dict[str, Any]], file: str) -> list[Finding]:
    """Findings for one snapshot whose manifest-list records are ``manifests``."""
    summary = snap.get("summary")
    op = summary.get("operation") if isinstance(summary, dict) else None
    sid = snap.get("snapshot-id")
    if op not in ("append", "delete"):
        return []
    out: list[Finding] = []
    for i, mf in enumerate(manifests):
        if mf.get("added_snapshot_id") != sid:
            continue
        content = mf.get("content") or 0
        added, deleted = mf.get("added_files_count"), mf.get("deleted_files_count")
        where = f"manifests[{i}]"
        if op == "append" and isinstance(deleted, int) and deleted > 0:
            out.append(Finding("snapshot.operation-files", f"append snapshot {sid} removed {deleted} file(s) "
                               f"({mf.get('manifest_path')}); an append only adds data files", CLAUSE, file, where))
        elif op == "append" and content == 1 and isinstance(added, int) and added > 0:
            out.append(Finding("snapshot.operation-files", f"append snapshot {sid} added {added} delete file(s) "
                               f"({mf.get('manifest_path')}); an append only adds data files", CLAUSE, file, where))
        elif op == "delete" and content == 0 and isinstance(added, int) and added > 0:
            out.append(Finding("snapshot.operation-files", f"delete snapshot {sid} added {added} data file(s) "
                               f"({mf.get('manifest_path')}); a delete removes data files or adds delete files",
                               CLAUSE, file, where))
    return out


CLAUSE_ROW_IDS = "Manifest Lists: First Row ID Assignment"


def check_first_row_ids_kept(snap: dict[str, Any], manifests: list[dict[str, Any]],
                             parent_manifests: list[dict[str, Any]], file: str) -> list[Finding]:
    """v3 First Row ID Assignment against the parent snapshot's manifest list: a data manifest
    the parent lists with a ``first_row_id`` keeps it; one the parent lists without (or does not
    list) was assigned by this snapshot, at or above the snapshot's ``first-row-id``."""
    first = snap.get("first-row-id")
    sid = snap.get("snapshot-id")
    before = {str(m.get("manifest_path")): m.get("first_row_id") for m in parent_manifests if not m.get("content")}
    out: list[Finding] = []
    for i, mf in enumerate(manifests):
        frid = mf.get("first_row_id")
        if mf.get("content") or not isinstance(frid, int) or not isinstance(first, int):
            continue
        path = str(mf.get("manifest_path"))
        kept = before.get(path)
        if isinstance(kept, int) and kept != frid:
            out.append(Finding("snapshot.manifest-first-row-id-kept", f"snapshot {sid}: manifest {path} has "
                               f"first_row_id {frid}, the parent snapshot's list gives it {kept}", CLAUSE_ROW_IDS,
                               file, f"manifests[{i}]"))
        elif kept is None and frid < first:
            out.append(Finding("snapshot.manifest-first-row-id-kept", f"snapshot {sid}: manifest {path}, without a "
                               f"first_row_id before this snapshot, was assigned {frid}, below the snapshot's "
                               f"first-row-id {first}", CLAUSE_ROW_IDS, file, f"manifests[{i}]"))
    return out
