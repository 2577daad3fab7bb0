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
    # the refs of the final metadata name the snapshots (a v1 table without refs: main is current)
    refs = {name: r.get("snapshot-id") for name, r in (md.get("refs") or {}).items()}
    refs.setdefault("main", md.get("current-snapshot-id"))
    for sid, snap in by_id.items():
        snap["refs"] = sorted((n for n, r in refs.items() if r == sid), key=lambda n: (n != "main", n))
    name = table_name(cell.writer, cell.oplog)
    doc = {"name": name, "producer": f"writer:{cell.writer}",
           "description": f"{oplog['title']} (written by {cell.writer} {cell.version})",
           "format_version": cell.format_version, "features": [f"v{cell.format_version}", f"writer:{cell.writer}"],
           "table": os.path.relpath(cell.table, warehouse), "metadata": os.path.relpath(final, warehouse),
           "snapshots": list(by_id.values()), "writer_status": cell.status,
           "checker_errors": sorted(k for k in cell.problems if k.startswith("checker:")),
           "writer_problems": sorted(cell.problems)}
    doc["filters"] = filters_for(doc, oplogs.fields_after(oplog, len(oplog["steps"]) - 1))
    path = out / "expected" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


#: the column types the fixed filters compare (values in the JSON single-value form compare as such)
_COMPARED = ("int", "long", "string", "date")


def _ref(name: str) -> dict[str, str]:
    return {"type": "reference", "name": name}


def filters_for(doc: dict[str, Any], fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The written table's fixed row filters (at most four, from its final columns and rows):
    ``eq`` and a range (``lt``) on the first int/long column, ``is-null`` on the first optional
    column that holds a null in some snapshot (else the first optional column), ``in`` on the
    first string/date column with a value the final snapshot holds and one only an earlier
    snapshot held (a deleted or updated row: what a stale read or a missed delete returns)."""
    snaps = doc["snapshots"]
    final = next((s for s in snaps if "main" in s["refs"]), snaps[-1])
    names = {f["name"] for f in fields}
    out: list[dict[str, Any]] = []
    numeric = next((f["name"] for f in fields if f["type"] in ("int", "long")), None)
    values = sorted({r[numeric] for r in final["rows"] if r.get(numeric) is not None}) if numeric else []
    if numeric and values:
        out.append({"id": f"{numeric}-eq", "description": f"{numeric} = {values[-1]}",
                    "filter": {"type": "eq", "left": _ref(numeric), "right": values[-1]}})
        mid = values[len(values) // 2]
        out.append({"id": f"{numeric}-lt", "description": f"{numeric} < {mid}",
                    "filter": {"type": "lt", "left": _ref(numeric), "right": mid}})
    optional = [f["name"] for f in fields if not f["required"] and f["type"] in _COMPARED + ("timestamp", "timestamptz")]
    nulls = [n for n in optional if any(n in r and r[n] is None for s in snaps for r in s["rows"])]
    if nulls or optional:
        col = (nulls or optional)[0]
        out.append({"id": f"{col}-is-null", "description": f"{col} IS NULL",
                    "filter": {"type": "is-null", "child": _ref(col)}})
    other = next((f["name"] for f in fields if f["type"] in ("string", "date") and f["name"] in names), None)
    if other:
        now = sorted({r[other] for r in final["rows"] if r.get(other) is not None})
        before = sorted({r[other] for s in snaps for r in s["rows"] if r.get(other) is not None} - set(now))
        picked = (now[:1] + before[:1]) if before else now[:2]
        if picked:
            out.append({"id": f"{other}-in", "description": f"{other} IN ({', '.join(map(str, picked))})",
                        "filter": {"type": "in", "child": _ref(other), "values": picked}})
    return out


def read_snapshots(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The snapshots a consumer reads of a written table: the current one and those a ref other
    than main names (the op-log's branches and tags), not every step's."""
    return [s for s in doc["snapshots"] if s["refs"] and not s["expired"]]


def written_tables(out: Path) -> dict[str, dict[str, Any]]:
    """The exported tables' records, by name."""
    d = out / "expected"
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(d.glob("*.json"))} if d.is_dir() else {}
