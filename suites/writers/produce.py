"""The written tables as producers of the consumer matrix.

With ``$ICEBERG_CONFORMANCE_WRITTEN`` set to a directory, ``suites/test_writers.py`` has each
writer write its table into ``DIR/warehouse/<writer>__<op-log>/`` and :func:`export` records it
the way the golden tables are recorded (``DIR/expected/<name>.json``: the metadata file, each
data step's snapshot with the op-log's rows after that step, the checker's verdict on the table).
``suites/test_matrix.py`` then reads every such table with every consumer (the ``written``
tests), so a wrong cell says whether the writer (the checker's findings on the table) or the
reader broke the spec.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.writers import oplogs
from iceberg_conformance.suites.writers.drivers import common

WRITTEN_ENV = "ICEBERG_CONFORMANCE_WRITTEN"


def table_name(writer: str, oplog: str) -> str:
    return f"{writer}__{oplog}"


def export(out: Path, cell: Any, oplog: dict[str, Any]) -> Path | None:
    """Record the cell's table under ``out/expected``; None when the writer left no snapshot."""
    if not cell.table or not cell.snapshots:
        return None
    warehouse = out / "warehouse"
    final = common.latest_metadata(cell.table)
    if final is None:
        return None
    md = json.loads(Path(final).read_text(encoding="utf-8"))
    schema_of = {s["snapshot-id"]: s.get("schema-id", md.get("current-schema-id")) for s in md.get("snapshots", [])}
    by_id: dict[int, dict[str, Any]] = {}
    for s in cell.snapshots:       # a step that made no snapshot of its own repeats the previous id
        sid = s["snapshot"]
        if sid is None or sid not in schema_of:
            continue
        step = oplog["steps"][s["step"]]
        by_id[sid] = {"label": f"step{s['step']}-{s['op']}", "ref": "main", "snapshot_id": sid,
                      "schema_id": schema_of[sid], "refs": [], "expired": False,
                      "rows": oplogs.canonical_rows(oplogs.fields_after(oplog, s["step"]), step["expect"])}
    if not by_id:
        return None
    current = md.get("current-snapshot-id")
    for sid, snap in by_id.items():
        if sid == current:
            snap["refs"] = ["main"]
    name = table_name(cell.writer, cell.oplog)
    doc = {"name": name, "producer": f"writer:{cell.writer}",
           "description": f"{oplog['title']} (written by {cell.writer} {cell.version})",
           "format_version": cell.format_version, "features": [f"v{cell.format_version}", f"writer:{cell.writer}"],
           "table": os.path.relpath(cell.table, warehouse), "metadata": os.path.relpath(final, warehouse),
           "snapshots": list(by_id.values()), "writer_status": cell.status,
           "checker_errors": sorted(k for k in cell.problems if k.startswith("checker:"))}
    path = out / "expected" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def written_tables(out: Path) -> dict[str, dict[str, Any]]:
    """The exported tables' records, by name."""
    d = out / "expected"
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(d.glob("*.json"))} if d.is_dir() else {}
