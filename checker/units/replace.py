"""The ``replace-rows`` unit: a ``replace`` snapshot holds the rows of its parent.

"Snapshots": ``replace`` -- Data and delete files were added and removed without changing table
data. The unit reads the snapshot and its parent with the reference reader (Scan Planning: each
data file with the deletes that apply to it) and compares the rows as multisets, over the columns
both snapshots' schemas have (by field id, typed as in the replace snapshot's schema), so a
column added or dropped between the two commits is not a change of data.

It reads content files, so it runs in a full check only, and it is bounded. It is not made, and
the info finding ``snapshot.replace-rows-not-compared`` says why, when either snapshot lists more
than :data:`MAX_ROWS` rows or :data:`MAX_FILES` content files, when the table is read relocated,
or when the reference reader fails on a snapshot. It is not made, without a finding of its own,
when a manifest list, manifest or content file of either snapshot lies outside the directories the
run may read, is absent, or decodes with an error: the rules of those files report it.
Iceberg Java's rewrite that committed rewritten files at a new sequence number, after equality
deletes of the rows they replace, made those rows live again (apache/iceberg#3842).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from iceberg_conformance.checker.run import CheckRun
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import snapshots_by_id
from iceberg_conformance.reference.types import StructType

#: a snapshot with more rows or content files than this is not read (the check stays bounded)
MAX_ROWS = 200_000
MAX_FILES = 2_000
CLAUSE = "Snapshots: operation (replace -- without changing table data)"


class _OverBound(Exception):
    """A snapshot holds more rows or content files than the comparison reads."""


def _tasks(run: CheckRun, doc: dict[str, Any], snap: dict[str, Any]) -> list[Any] | None:
    """The scan tasks of a snapshot, or None when it names a file the check may not read;
    _OverBound when it would read too much."""
    from iceberg_conformance.reference.scan import plan

    tasks = plan(doc, snap)
    files = [t.data for t in tasks] + [d for t in tasks for d in t.position_deletes + t.equality_deletes]
    files += [t.deletion_vector for t in tasks if t.deletion_vector is not None]
    n_files, n_rows = len({f.path for f in files}), sum(int(t.data.data_file.get("record_count") or 0) for t in tasks)
    if n_files > MAX_FILES or n_rows > MAX_ROWS:
        raise _OverBound(f"snapshot {snap.get('snapshot-id')} lists {n_rows} row(s) in {n_files} content file(s) "
                         f"(the comparison reads at most {MAX_ROWS} rows and {MAX_FILES} files)")
    for f in files:
        local = run.local(f.path)
        if local is None or not run.readable(local):
            return None
    return tasks


def _rows(doc: dict[str, Any], schema: StructType, tasks: list[Any]) -> Counter[str]:
    from iceberg_conformance.reference.scan import read_task
    from iceberg_conformance.reference.values import value_to_json

    out: Counter[str] = Counter()
    for task in tasks:
        for row in read_task(doc, schema, task):
            out[json.dumps([value_to_json(f.field_type, row.get(f.field_id)) for f in schema.fields])] += 1
    return out


def _show(schema: StructType, rows: Counter[str], limit: int = 2) -> str:
    names = [f.name for f in schema.fields]
    shown = [json.dumps(dict(zip(names, json.loads(r)))) for r in list(rows)[:limit]]
    return "; ".join(shown) + ("; ..." if len(rows) > limit else "")


def _metadata_read_cleanly(run: CheckRun, snap: dict[str, Any]) -> bool:
    """Whether the manifest list and the manifests of ``snap`` lie where the run may read and
    decode without an error finding (read through the run, as every other unit reads them): the
    reference planner would otherwise count an unreadable list as a snapshot of no rows."""
    paths: list[Any] = []
    listed = snap.get("manifest-list")
    if isinstance(listed, str):
        local = run.local(listed)
        if local is None or not run.readable(local):
            return False
        records, found = run.manifest_list(local)
        if any(f.severity == "error" for f in found):
            return False
        paths = [r.get("manifest_path") for r in records]
    elif isinstance(snap.get("manifests"), list):
        paths = list(snap["manifests"])
    else:
        return False
    for path in paths:
        local = run.local(path) if isinstance(path, str) else None
        if local is None or not run.readable(local) or any(f.severity == "error" for f in run.manifest(local)[1]):
            return False
    return True


def _not_compared(sid: int, parent_id: int, unit: Unit, why: str) -> list[Finding]:
    return [Finding("snapshot.replace-rows-not-compared", f"replace snapshot {sid} was not compared with its parent "
                    f"{parent_id}: {why}", CLAUSE, unit.path, f"snapshot {sid}", "info")]


def check_replace_rows(run: CheckRun, unit: Unit) -> list[Finding]:
    from iceberg_conformance.reference.scan import schema_for

    doc = run.doc
    if doc is None:
        return []
    snaps = snapshots_by_id(doc)
    sid, parent_id = unit.context.get("snapshot_id"), unit.context.get("parent_id")
    if not isinstance(sid, int) or not isinstance(parent_id, int):
        return []
    snap, parent = snaps.get(sid), snaps.get(parent_id)
    if snap is None or parent is None:
        return []
    if run.local.moves:
        # the reference reader opens the paths as recorded; a relocated table's are elsewhere
        return _not_compared(sid, parent_id, unit, "the table is read relocated (--relocate, or from an object "
                             "store), and the row comparison reads files at the paths the metadata records")
    if not (_metadata_read_cleanly(run, snap) and _metadata_read_cleanly(run, parent)):
        return []   # the manifest list's or manifests' own findings say why
    try:
        after_schema, before_schema = schema_for(doc, snap), schema_for(doc, parent)
        before_ids = {f.field_id for f in before_schema.fields}
        common = StructType(tuple(f for f in after_schema.fields if f.field_id in before_ids))
        after_tasks, before_tasks = _tasks(run, doc, snap), _tasks(run, doc, parent)
        if after_tasks is None or before_tasks is None or not common.fields:
            return []
        after, before = _rows(doc, common, after_tasks), _rows(doc, common, before_tasks)
    except _OverBound as e:
        return _not_compared(sid, parent_id, unit, str(e))
    except Exception as e:  # noqa: BLE001 - the files' own rules report what is wrong with them
        return _not_compared(sid, parent_id, unit, f"the reference reader could not read them ({type(e).__name__})")
    if after == before:
        return []
    gone, new = before - after, after - before
    parts = []
    if gone:
        parts.append(f"{sum(gone.values())} row(s) of the parent are not in it ({_show(common, gone)})")
    if new:
        parts.append(f"{sum(new.values())} row(s) are not in the parent ({_show(common, new)})")
    return [Finding("snapshot.replace-changes-rows",
                    f"replace snapshot {sid} reads {sum(after.values())} row(s), its parent {parent_id} "
                    f"{sum(before.values())}: " + "; ".join(parts) + " (a replace changes no table data)",
                    CLAUSE, unit.path, f"snapshot {sid}")]
