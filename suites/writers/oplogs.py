"""The op-logs: engine-neutral sequences of table operations with the rows each step leaves.

An op-log (``vectors/oplogs/<id>.json``, schema ``oplog.schema.json``) creates a table (schema,
partition spec, format version) and runs steps: ``append``, ``overwrite`` (of the whole table,
or of the rows a filter selects), ``delete`` and ``update`` by a row filter with the delete
strategy named (``copy-on-write``, ``position``, ``equality``, ``deletion-vector``, or
``merge-on-read``: the writer's choice of delete file), ``compact``, ``add-files`` (a Parquet
file the runner writes with pyarrow from the step's rows, without field ids, which the writer
adds to the table as it is), ``upsert`` (rows that replace the rows with their key, in one
commit), schema steps (``add-column``,
``rename-column``, ``drop-column``, ``promote-column``) and ``set-partition-spec``. Each data step
says the rows the table holds after it (``expect``); :func:`replay` computes them from the
op-log's own semantics, and a test holds the two equal.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.reference.types import parse_type
from iceberg_conformance.reference.values import from_json, value_to_json
from iceberg_conformance.suites.writers.drivers.common import apply_schema_step
from iceberg_conformance.vectors.cases import vectors_root

#: steps that write a snapshot (the others change metadata only)
DATA_STEPS = ("append", "overwrite", "delete", "update", "compact", "add-files", "upsert", "merge")
SCHEMA_FILE = "oplog.schema.json"


def oplog_dir() -> Path:
    return vectors_root() / "oplogs"


def validate(doc: dict[str, Any]) -> None:
    import jsonschema
    schema = json.loads((oplog_dir() / SCHEMA_FILE).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(doc)


@lru_cache(maxsize=None)
def _load_all() -> tuple[tuple[str, str], ...]:
    out = []
    for p in sorted(oplog_dir().glob("*.json")):
        if p.name == SCHEMA_FILE:
            continue
        text = p.read_text(encoding="utf-8")
        doc = json.loads(text)
        validate(doc)
        if doc["id"] != p.stem:
            raise ValueError(f"{p}: id {doc['id']!r} is not the file's name")
        out.append((doc["id"], text))
    return tuple(out)


def load_all() -> dict[str, dict[str, Any]]:
    """Every op-log, by id (validated against the schema)."""
    return {i: json.loads(text) for i, text in _load_all()}


def load(name_or_path: str) -> dict[str, Any]:
    """An op-log by id, or from a file."""
    p = Path(name_or_path)
    if p.suffix == ".json" and p.is_file():
        doc: dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
        validate(doc)
        return doc
    logs = load_all()
    if name_or_path not in logs:
        raise KeyError(f"no op-log {name_or_path!r}; known: {sorted(logs)}")
    return logs[name_or_path]


def step_key(step: dict[str, Any]) -> str:
    """The operation a step needs of a writer: ``append``, ``overwrite``, ``overwrite-filter``,
    ``delete:<strategy>``, ``update:<strategy>``, ``compact``, or the schema/spec step's name."""
    op = step["op"]
    if op == "overwrite":
        return "overwrite-filter" if "where" in step else "overwrite"
    if op in ("delete", "update", "merge"):
        return f"{op}:{step['strategy']}"
    if op == "append" and "branch" in step:
        return "append-to-branch"
    return str(op)


def requirements(oplog: dict[str, Any]) -> list[str]:
    """What a writer must declare to run the op-log: its operations, plus ``create-partitioned``
    for a table created with a partition spec, and ``type:<t>`` for column types beyond
    long/int/string/date (``type:list`` for a list column)."""
    keys = []
    if oplog.get("partition-spec"):
        keys.append("create-partitioned")
    for f in oplog["schema"]["fields"]:
        kind = f["type"]["type"] if isinstance(f["type"], dict) else f["type"]
        if kind not in ("long", "int", "string", "date"):
            keys.append(f"type:{kind}")
    for s in oplog["steps"]:
        if step_key(s) not in keys:
            keys.append(step_key(s))
    return keys


def _canonical(fields: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for f in fields:
        v = row.get(f["name"])
        t = parse_type(f["type"])
        out[f["name"]] = None if v is None else value_to_json(t, from_json(t, v))
    return out


def canonical_rows(fields: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with every column of ``fields`` (absent: null) in the spec's JSON single-value form,
    as the reference reader writes them (``2024-01-01T10:00:00.000000``)."""
    return [_canonical(fields, r) for r in rows]


def matches(fields: list[dict[str, Any]], where: dict[str, Any], row: dict[str, Any]) -> bool:
    """Whether ``row`` satisfies the op-log's row filter (the reference's evaluator)."""
    bound = ex.bind(parse_schema({"type": "struct", "schema-id": 0, "fields": fields}), ex.parse_expression(where))
    ids = {f["name"]: f["id"] for f in fields}
    return bool(ex.evaluate(bound, {str(ids[k]): v for k, v in row.items() if k in ids}))


def replay(oplog: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """(step index, rows after it) for every data step, from the op-log's semantics alone: an
    append adds its rows, an overwrite replaces all rows (or those its filter selects), a delete
    keeps the rows its filter does not select (whatever the strategy), an update sets columns of
    the rows it selects, a merge replaces each row whose ``on`` columns equal a given row's by it and
    adds the given rows that match none, a compaction changes nothing; ``create-branch`` starts a
    branch with main's rows, and an append to a branch adds to the branch's rows only (its step's
    rows are the branch's); schema steps rename or drop the column in every row, add a column as
    null (no default), promote keeps the values; an add-files step adds the rows of its file; an
    upsert's rows, in order, each replace the rows with its key."""
    fields = [dict(f) for f in oplog["schema"]["fields"]]
    rows: list[dict[str, Any]] = []
    branches: dict[str, list[dict[str, Any]]] = {}
    out = []
    for i, step in enumerate(oplog["steps"]):
        op = step["op"]
        if op == "append" and "branch" in step:
            branches[step["branch"]] = branches[step["branch"]] + [dict(r) for r in step["rows"]]
            out.append((i, canonical_rows(fields, branches[step["branch"]])))
            continue
        if op == "create-branch":
            branches[step["name"]] = [dict(r) for r in rows]
        elif op == "merge":
            rows = _merge(rows, step["rows"], step["on"])
        elif op in ("append", "add-files"):
            rows = rows + [dict(r) for r in step["rows"]]
        elif op == "overwrite":
            kept = [r for r in rows if "where" in step and not matches(fields, step["where"], r)]
            rows = kept + [dict(r) for r in step["rows"]]
        elif op == "upsert":
            rows = _merge(rows, step["rows"], step["key"])
        elif op == "delete":
            rows = [r for r in rows if not matches(fields, step["where"], r)]
        elif op == "update":
            rows = [dict(r, **step["set"]) if matches(fields, step["where"], r) else r for r in rows]
        elif op == "rename-column":
            rows = [{(step["to"] if k == step["name"] else k): v for k, v in r.items()} for r in rows]
        elif op == "drop-column":
            rows = [{k: v for k, v in r.items() if k != step["name"]} for r in rows]
        elif op == "add-column":
            rows = [dict(r, **{step["field"]["name"]: None}) for r in rows]
        fields = apply_schema_step(fields, step)
        if op in DATA_STEPS:
            out.append((i, canonical_rows(fields, rows)))
    return out


def _merge(rows: list[dict[str, Any]], given: list[dict[str, Any]], on: list[str]) -> list[dict[str, Any]]:
    """The rows after an upsert (``upsert`` keyed by ``key``, ``merge`` by ``on``): the given rows,
    in order, each replace every row whose key columns equal its own, so a key given twice ends as
    its last row; the rows of other keys are kept."""
    for new in given:
        rows = [r for r in rows if any(r.get(c) != new.get(c) for c in on)] + [dict(new)]
    return rows


def fields_after(oplog: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The columns after step ``index``."""
    fields = list(oplog["schema"]["fields"])
    for step in oplog["steps"][:index + 1]:
        fields = apply_schema_step(fields, step)
    return fields
