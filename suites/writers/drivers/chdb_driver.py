"""Op-log steps through chdb (ClickHouse's ``IcebergLocal`` table engine, its C++ Iceberg writer,
``allow_experimental_insert_into_iceberg=1``): ``CREATE TABLE ... ENGINE=IcebergLocal(path)`` with
``iceberg_format_version``, ``INSERT``, ``DELETE FROM`` and ``ALTER TABLE ... UPDATE`` (both as
position delete files), ``ALTER TABLE ADD/RENAME/DROP/MODIFY COLUMN``. chdb runs native code: the
kit runs this driver as a subprocess (``python chdb_driver.py``, JSON on stdin)."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from typing import Any

try:
    from . import common
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # type: ignore[no-redef,import-not-found]

CH_TYPES = {"boolean": "Bool", "int": "Int32", "long": "Int64", "float": "Float32", "double": "Float64",
            "string": "String", "date": "Date32", "timestamp": "DateTime64(6)", "timestamptz": "DateTime64(6, 'UTC')"}


def _type(f: dict[str, Any]) -> str:
    t = CH_TYPES[f["type"]]
    return t if f.get("required") else f"Nullable({t})"


def _literal(v: Any, type_: str) -> str:
    if v is None:
        return "NULL"
    if type_ == "timestamptz":
        return "'" + str(v).replace("T", " ").rsplit("+", 1)[0] + "'"
    if type_ in ("date", "timestamp"):
        return "'" + str(v).replace("T", " ") + "'"
    return common.sql_literal(v, type_)


def _cond(expr: dict[str, Any], types: dict[str, str]) -> str:
    # ClickHouse takes plain quoted strings for date literals
    text = common.sql_condition(expr, types)
    return text.replace("DATE '", "'").replace("TIMESTAMP '", "'")


def _partition(pf: dict[str, Any]) -> str:
    """A partition field as ClickHouse's PARTITION BY expression (its Iceberg transform functions)."""
    t, col = pf["transform"], pf["source"]
    if t == "identity":
        return str(col)
    if t.startswith(("bucket[", "truncate[")):
        name, n = t[:-1].split("[")
        return f"iceberg{name.capitalize()}({n}, {col})"
    raise NotImplementedError(f"partition transform {t!r} is not translated")


def run(oplog: dict[str, Any], root: str, engine: str) -> dict[str, Any]:
    from chdb import session as chs

    path = os.path.join(root, "warehouse", "t")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    s = chs.Session()
    s.query("SET allow_experimental_insert_into_iceberg=1")
    cols = ", ".join(f"{f['name']} {_type(f)}" for f in oplog["schema"]["fields"])
    parts = [_partition(p) for p in oplog.get("partition-spec") or []]
    by = f" PARTITION BY ({', '.join(parts)})" if parts else ""
    try:
        s.query(f"CREATE TABLE t ({cols}) ENGINE=IcebergLocal('{path}'){by} "
                f"SETTINGS iceberg_format_version={oplog['format-version']}")
    except Exception as e:
        return {"steps": [{"index": -1, "op": "create", "error": f"{type(e).__name__}: {e}", "metadata": None,
                           "snapshot": None}], "version": importlib.metadata.version("chdb")}

    def do(_i: int, step: dict[str, Any], fields: list[dict[str, Any]]) -> None:
        op = step["op"]
        types = common.columns_of(fields)
        if op == "append":
            values = ", ".join("(" + ", ".join(_literal(r.get(f["name"]), f["type"]) for f in fields) + ")"
                               for r in step["rows"])
            s.query(f"INSERT INTO t VALUES {values}")
        elif op == "delete":
            s.query(f"DELETE FROM t WHERE {_cond(step['where'], types)}")
        elif op == "update":
            sets = ", ".join(f"{k} = {_literal(v, types[k])}" for k, v in step["set"].items())
            s.query(f"ALTER TABLE t UPDATE {sets} WHERE {_cond(step['where'], types)}")
        elif op == "add-column":
            s.query(f"ALTER TABLE t ADD COLUMN {step['field']['name']} {_type(step['field'])}")
        elif op == "rename-column":
            s.query(f"ALTER TABLE t RENAME COLUMN {step['name']} TO {step['to']}")
        elif op == "drop-column":
            s.query(f"ALTER TABLE t DROP COLUMN {step['name']}")
        elif op == "promote-column":
            f = next(f for f in fields if f["name"] == step["name"])
            s.query(f"ALTER TABLE t MODIFY COLUMN {step['name']} {_type(dict(f, type=step['to']))}")
        else:
            raise NotImplementedError(f"step {op!r}")
    return {"steps": common.run_steps(oplog, root, do), "version": importlib.metadata.version("chdb")}


if __name__ == "__main__":
    common.main(run)
