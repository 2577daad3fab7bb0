"""Op-log steps through the reference writer (``reference/writer.py``'s :class:`TableBuilder`):
v2 and v3 tables, appends (a data file per partition), deletes as position delete files (v2),
deletion vectors (v3) or equality delete files, columns added and dropped, a new partition spec.
The driver keeps each data file's rows to find the positions a predicate deletes."""

from __future__ import annotations

import json
import os
from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.reference.writer import TableBuilder
from iceberg_conformance.suites.writers.drivers import common


class _Files:
    """The live rows of each data file, by position (None once deleted)."""

    def __init__(self) -> None:
        self.rows: dict[str, list[dict[str, Any] | None]] = {}
        self.deleted: dict[str, set[int]] = {}

    def matching(self, builder: TableBuilder, where: dict[str, Any]) -> dict[str, list[int]]:
        schema = {"type": "struct", "schema-id": 0, "fields": builder.schema["fields"]}
        bound = ex.bind(parse_schema(schema), ex.parse_expression(where))
        ids = {f["name"]: f["id"] for f in builder.schema["fields"]}
        out: dict[str, list[int]] = {}
        for path, rows in self.rows.items():
            for pos, row in enumerate(rows):
                if row is not None and ex.evaluate(bound, {str(ids[k]): v for k, v in row.items() if k in ids}):
                    out.setdefault(path, []).append(pos)
        return out

    def delete(self, hits: dict[str, list[int]]) -> None:
        for path, positions in hits.items():
            for p in positions:
                self.rows[path][p] = None
            self.deleted.setdefault(path, set()).update(positions)


def run(oplog: dict[str, Any], root: str) -> dict[str, Any]:
    fields = oplog["schema"]["fields"]
    by_name = {f["name"]: f["id"] for f in fields}
    spec = [{"source-id": by_name[p["source"]], "field-id": 1000 + i, "name": p["name"], "transform": p["transform"]}
            for i, p in enumerate(oplog.get("partition-spec") or [])]
    try:
        builder = TableBuilder(os.path.join(root, "warehouse", "t"), oplog["format-version"], list(fields), specs=[spec],
                               bounds=True)
    except ValueError as e:
        return {"steps": [{"index": -1, "op": "create", "error": f"ValueError: {e}", "metadata": None, "snapshot": None}],
                "version": "reference"}
    files = _Files()

    def do(_i: int, step: dict[str, Any], _cols: list[dict[str, Any]]) -> None:
        op = step["op"]
        if op == "append":
            before = set(builder.data_files)
            builder.append(step["rows"])
            new = sorted(set(builder.data_files) - before)
            groups: dict[str, list[dict[str, Any]]] = {}
            for r in step["rows"]:
                groups.setdefault(json.dumps(builder._partition(builder.default_spec_id, r), sort_keys=True), []).append(r)
            for path, rows in zip(new, groups.values()):
                files.rows[path] = list(rows)
        elif op == "delete":
            hits = files.matching(builder, step["where"])
            strategy = step["strategy"]
            if strategy == "merge-on-read":   # the writer's choice: what the format version allows
                strategy = "position" if builder.version < 3 else "deletion-vector"
            if strategy == "position":
                by_part: dict[str, dict[str, list[int]]] = {}
                for path, positions in hits.items():
                    key = json.dumps(builder.data_files[path]["partition"], sort_keys=True)
                    by_part.setdefault(key, {})[path] = positions
                for group in by_part.values():
                    builder.position_deletes(group)
            elif strategy == "deletion-vector":
                builder.deletion_vectors({p: sorted(files.deleted.get(p, set()) | set(pos)) for p, pos in hits.items()})
            elif strategy == "equality":
                rows = [{"id": files.rows[p][i]["id"]} for p, pos in hits.items() for i in pos]  # type: ignore[index]
                builder.equality_delete(rows, ["id"])
            else:
                raise NotImplementedError(f"delete strategy {strategy!r}")
            files.delete(hits)
        elif op == "add-column":
            builder.add_column(dict(step["field"], id=builder.last_column_id() + 1,
                                    required=step["field"].get("required", False)))
        elif op == "drop-column":
            builder.drop_column(step["name"])
        elif op == "set-partition-spec":
            ids = {f["name"]: f["id"] for f in builder.schema["fields"]}
            last = max([999] + [int(f["field-id"]) for s in builder.specs for f in s["fields"]])
            builder.evolve_spec([{"source-id": ids[p["source"]], "field-id": last + 1 + i, "name": p["name"],
                                  "transform": p["transform"]} for i, p in enumerate(step["fields"])])
        else:
            raise NotImplementedError(f"step {op!r}")
    return {"steps": common.run_steps(oplog, root, do), "version": "reference"}
