"""What every driver shares (standard library only): the op-log's row filter as an SQL condition,
rows as SQL literals, the table's current metadata file and snapshot after each step, and the
subprocess protocol (JSON in on stdin, one JSON line out)."""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from typing import Any, Callable

Step = dict[str, Any]


def sql_literal(value: Any, type_: str) -> str:
    """An op-log value (the spec's JSON single-value form) as a Spark/ClickHouse SQL literal."""
    if value is None:
        return "NULL"
    if type_ == "string":
        return "'" + str(value).replace("'", "''") + "'"
    if type_ == "date":
        return f"DATE '{value}'"
    if type_ in ("timestamp", "timestamptz"):
        text = str(value).replace("T", " ")
        if type_ == "timestamptz":
            text = re.sub(r"[+-]00:00$", "", text)
        return f"TIMESTAMP '{text}'"
    if type_ == "boolean":
        return "TRUE" if value else "FALSE"
    return str(value)


_CMP = {"eq": "=", "not-eq": "<>", "lt": "<", "lt-eq": "<=", "gt": ">", "gt-eq": ">="}


def sql_condition(expr: dict[str, Any], types: dict[str, str]) -> str:
    """The op-log's row filter (the JSON expression form: comparisons of a column with a literal,
    ``in``, ``and``/``or``/``not``, ``is-null``) as an SQL condition with the same rows selected:
    Iceberg's predicates are two-valued (a comparison with null is false, so its negation and
    ``not-eq``/``not-in`` are true), SQL's three-valued (unknown, and a WHERE drops the row)."""
    kind = expr["type"]
    if kind in ("and", "or"):
        return f"({sql_condition(expr['left'], types)} {kind.upper()} {sql_condition(expr['right'], types)})"
    if kind == "not":   # two-valued: NOT of a predicate that is null (unknown) in SQL is true
        return f"(NOT COALESCE({sql_condition(expr['child'], types)}, FALSE))"
    if kind in _CMP:
        col = expr["left"]["name"]
        text = f"{col} {_CMP[kind]} {sql_literal(expr['right'], types[col])}"
        # Iceberg's predicates are two-valued: null != 5 is true, where SQL's is unknown
        return f"({text} OR {col} IS NULL)" if kind == "not-eq" else text
    if kind in ("in", "not-in"):
        col = expr["child"]["name"]
        values = ", ".join(sql_literal(v, types[col]) for v in expr["values"])
        if kind == "not-in":
            return f"({col} NOT IN ({values}) OR {col} IS NULL)"
        return f"{col} IN ({values})"
    if kind in ("is-null", "not-null"):
        col = expr["child"]["name"]
        return f"{col} IS {'NOT ' if kind == 'not-null' else ''}NULL"
    raise ValueError(f"row filter {kind!r} has no SQL form here")


def columns_of(fields: list[dict[str, Any]]) -> dict[str, str]:
    return {f["name"]: f["type"] for f in fields}


def apply_schema_step(fields: list[dict[str, Any]], step: Step) -> list[dict[str, Any]]:
    """The op-log's current columns after a schema step (what a driver needs to write literals)."""
    op = step["op"]
    if op == "add-column":
        added = {"id": max([0] + [int(f["id"]) for f in fields]) + 1, "required": False, **step["field"]}
        return fields + [added]
    if op == "rename-column":
        return [dict(f, name=step["to"]) if f["name"] == step["name"] else f for f in fields]
    if op == "drop-column":
        return [f for f in fields if f["name"] != step["name"]]
    if op == "promote-column":
        return [dict(f, type=step["to"]) if f["name"] == step["name"] else f for f in fields]
    return fields


def _version(name: str) -> int | None:
    m = re.match(r"^v?(\d+)[.-]", name)
    return int(m.group(1)) if m else None


def latest_metadata(table_dir: str) -> str | None:
    """The table's current metadata file: the one ``version-hint.text`` names, else the highest
    version, else the newest."""
    meta = os.path.join(table_dir, "metadata")
    if not os.path.isdir(meta):
        return None
    names = [n for n in os.listdir(meta) if n.endswith(".metadata.json") and not n.startswith(".")]
    hint = os.path.join(meta, "version-hint.text")
    if os.path.isfile(hint):
        with open(hint, encoding="utf-8") as f:
            text = f.read().strip()
        for name in (f"v{text}.metadata.json", f"{text}.metadata.json", text):
            if name in names:      # a version number, or (DuckDB) the file's own name
                return os.path.join(meta, name)
    versioned = [(v, n) for n in names if (v := _version(n)) is not None]
    if versioned:
        return os.path.join(meta, max(versioned)[1])
    return max((os.path.join(meta, n) for n in names), key=os.path.getmtime, default=None)


def find_table(root: str) -> str | None:
    """The directory of the one table under ``root`` (the directory holding ``metadata/``)."""
    for here, dirs, _files in os.walk(root):
        dirs.sort()
        if "metadata" in dirs and latest_metadata(here):
            return here
    return None


def current_state(root: str, branch: str | None = None) -> dict[str, Any]:
    """The metadata file and current snapshot id of the table under ``root`` (of ``branch``'s
    head when one is named)."""
    table = find_table(root)
    path = latest_metadata(table) if table else None
    if path is None:
        return {"metadata": None, "snapshot": None}
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    sid = (doc.get("refs") or {}).get(branch, {}).get("snapshot-id") if branch else doc.get("current-snapshot-id")
    return {"metadata": path, "snapshot": None if sid in (None, -1) else sid}


def run_steps(oplog: dict[str, Any], root: str, do: Callable[[int, Step, list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    """Run every step with ``do(index, step, columns before the step)``; after each, the table's
    state. The first step that raises ends the run (its error recorded, later steps not run)."""
    out: list[dict[str, Any]] = []
    fields = list(oplog["schema"]["fields"])
    for i, step in enumerate(oplog["steps"]):
        try:
            do(i, step, fields)
        except Exception as e:  # the writer failed this step: a result, not a crash of the driver
            detail = " ".join(str(e).split())[:800]
            out.append({"index": i, "op": step["op"], "error": f"{type(e).__name__}: {detail}",
                        "trace": traceback.format_exc(limit=3)[-1500:], **current_state(root, step.get("branch"))})
            break
        fields = apply_schema_step(fields, step)
        out.append({"index": i, "op": step["op"], "error": None, **current_state(root, step.get("branch"))})
    return out


def main(run: Callable[[dict[str, Any], str, str], dict[str, Any]]) -> None:
    """The subprocess protocol: ``{"oplog", "table", "engine"}`` on stdin, one JSON line out."""
    request = json.loads(sys.stdin.read())
    result = run(request["oplog"], request["table"], request.get("engine", ""))
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
