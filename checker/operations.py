"""A snapshot's ``summary.operation`` against the manifests the snapshot added.

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
