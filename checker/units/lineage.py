"""v3 row-lineage checks that need more than one file of the table.

* **Upgraded tables** (Row Lineage for Upgraded Tables): ``metadata-log`` names the earlier
  metadata files. Where a file of format version 1 or 2 is followed by one of version 3, that
  first v3 file is the upgrade: its ``next-row-id`` starts at 0, so it equals the ``added-rows``
  of the snapshots in it that have a ``first-row-id`` (none when the upgrade is a commit of its
  own, as Iceberg Java writes it). The snapshots the last v1/v2 file lists are not modified:
  wherever the current metadata or a later logged file still lists one, it has no
  ``first-row-id``. Files that are missing, outside the table or unreadable are not judged (the
  log may outlive them).
* **New rows** (Row lineage assignment): a data file ADDED by a snapshot whose operation is
  ``append`` ("Only data files were added and no files were removed") holds only rows added to
  the table, so where it materializes ``_row_id`` (field id 2147483540) or
  ``_last_updated_sequence_number`` (2147483539), every value is null. Rows a write moved or
  modified arrive in other operations (``overwrite``, ``replace``, ``delete``), where copied
  non-null values are legitimate; those are not judged.
"""

from __future__ import annotations

from typing import Any, Callable

from iceberg_conformance.checker.run import logged_metadata
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import format_version, snapshots_by_id

ROW_ID = 2147483540
LAST_UPDATED = 2147483539
LINEAGE_COLUMNS = {ROW_ID: "_row_id", LAST_UPDATED: "_last_updated_sequence_number"}
#: the rule reporting a non-null value of each lineage column in an appended data file
ADDED_RULES = {ROW_ID: "data.added-row-id-null", LAST_UPDATED: "data.added-last-updated-null"}

CLAUSE_UPGRADE = "Row Lineage: Row Lineage for Upgraded Tables"
CLAUSE_ASSIGNMENT = "Row Lineage: Row lineage assignment"


def _version(doc: Any) -> int | None:
    """A logged metadata file's format version (None when it has no valid one)."""
    return (format_version(doc) or None) if isinstance(doc, dict) else None


def check_upgrade(doc: dict[str, Any], table: str, allowed: Callable[[str], str | None],
                  logged: list[tuple[int, str, dict[str, Any]]] | None = None) -> list[Finding]:
    """Findings of ``metadata.upgrade-row-lineage`` for a v3 table whose ``metadata-log`` shows
    the upgrade (``allowed``: path -> the path, or None when it may not be read; ``logged``: the
    logged files as :func:`~checker.run.logged_metadata` read them, when already read)."""
    current = _version(doc)
    log = doc.get("metadata-log")
    if current is None or current < 3 or not isinstance(log, list):
        return []
    # (where, document, log index) of every readable logged file, oldest first, then the current
    # metadata (index len(log))
    chain: list[tuple[str, str, dict[str, Any], int]] = [
        (path, f"/metadata-log/{i}/metadata-file", old, i)
        for i, path, old in (logged if logged is not None else logged_metadata(doc, allowed))
        if _version(old) is not None]
    chain.append((table, "", doc, len(log)))
    out: list[Finding] = []
    for k in range(1, len(chain)):
        before, (path, where, after, index) = chain[k - 1][2], chain[k]
        vb, va = _version(before), _version(after)
        if vb is None or va is None or vb >= 3 or va < 3:
            continue
        in_file = "the current metadata" if not where else f"{path} ({where})"
        # next-row-id starts at 0: only snapshots committed with the upgrade have assigned ids
        nri = after.get("next-row-id") if chain[k - 1][3] == index - 1 else None  # not when a file
        # between the two is gone: the first v3 file may be that one, and later commits add ids
        assigned = sum(int(s.get("added-rows") or 0) for s in snapshots_by_id(after).values()
                       if isinstance(s.get("first-row-id"), int))
        if isinstance(nri, int) and not isinstance(nri, bool) and nri != assigned:
            out.append(Finding("metadata.upgrade-row-lineage", f"{in_file} is the first v{va} metadata after a v{vb} "
                               f"one: next-row-id is {nri}, not 0 + the {assigned} row(s) its snapshots with a "
                               "first-row-id added", CLAUSE_UPGRADE, table, (where + " -> " if where else "") +
                               "/next-row-id"))
        # the snapshots written before the upgrade keep first-row-id unset, in every later file
        old_ids = set(snapshots_by_id(before))
        for p, w, d, _i in chain[k:]:
            for sid, s in snapshots_by_id(d).items():
                if sid in old_ids and s.get("first-row-id") is not None:
                    shown = "the current metadata" if not w else f"{p} ({w})"
                    out.append(Finding("metadata.upgrade-row-lineage", f"{shown}: snapshot {sid} was written before "
                                       f"the upgrade to v{va} (the v{vb} metadata lists it) but has first-row-id "
                                       f"{s.get('first-row-id')}", CLAUSE_UPGRADE, table,
                                       (w + " -> " if w else "") + f"/snapshots[snapshot-id={sid}]/first-row-id"))
    return out


def non_null_lineage(values: dict[int, list[Any]]) -> dict[int, tuple[int, int, Any]]:
    """Field id -> (rows with a non-null value, first such position, its value) of the lineage
    columns given (``values``: field id -> the column's values in file order)."""
    out: dict[int, tuple[int, int, Any]] = {}
    for fid, vals in values.items():
        hits = [(pos, v) for pos, v in enumerate(vals) if v is not None]
        if hits:
            out[fid] = (len(hits), hits[0][0], hits[0][1])
    return out
