"""Op-log steps as Spark SQL: Spark with Iceberg Java (in the kit's process, through
``suites/spark/session.py``) and repark (its own Python 3.12 environment: ``python sql.py``).

Each step is one statement on a Hadoop catalog over ``ROOT/warehouse``: ``CREATE TABLE ... USING
iceberg`` with the format version as a table property, ``INSERT INTO``/``INSERT OVERWRITE``,
``DELETE``/``UPDATE`` after ``write.delete.mode``/``write.update.mode`` is set to the step's
strategy (copy-on-write, or merge-on-read: position deletes in v2, deletion vectors in v3),
``CALL system.rewrite_data_files``, ``ALTER TABLE`` for schema and partition evolution and for
branches and tags (``ALTER TABLE .. CREATE BRANCH|TAG``; a write to a branch is an ``INSERT INTO
t.branch_<name>``), ``MERGE INTO`` for an upsert. A
filtered overwrite is Spark's DataFrame ``writeTo(...).overwrite(condition)``."""

from __future__ import annotations

import os
import sys
from typing import Any

try:
    from . import common
except ImportError:  # run as a script in another environment
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # type: ignore[no-redef,import-not-found]

SQL_TYPES = {"boolean": "BOOLEAN", "int": "INT", "long": "BIGINT", "float": "FLOAT", "double": "DOUBLE",
             "string": "STRING", "date": "DATE", "timestamp": "TIMESTAMP_NTZ", "timestamptz": "TIMESTAMP",
             "binary": "BINARY"}
#: the delete strategies of the op-logs as Iceberg's write modes
MODES = {"copy-on-write": "copy-on-write", "position": "merge-on-read", "deletion-vector": "merge-on-read",
         "merge-on-read": "merge-on-read"}


def _transform(pf: dict[str, Any]) -> str:
    t, col = pf["transform"], pf["source"]
    if t == "identity":
        return col
    if t.startswith(("bucket[", "truncate[")):
        name, n = t[:-1].split("[")
        return f"{name}({n}, {col})"
    return f"{t}s({col})" if t in ("year", "month", "day", "hour") else f"{t}({col})"


def _values(rows: list[dict[str, Any]], fields: list[dict[str, Any]]) -> str:
    return ", ".join("(" + ", ".join(common.sql_literal(r.get(f["name"]), f["type"]) for f in fields) + ")"
                     for r in rows)


def statements(oplog: dict[str, Any], step: dict[str, Any], fields: list[dict[str, Any]], table: str,
               catalog: str, engine: str) -> list[str]:
    """The SQL statements of one step (``spark`` or ``repark``)."""
    op = step["op"]
    types = common.columns_of(fields)
    if op == "append":
        target = f"{table}.branch_{step['branch']}" if "branch" in step else table
        return [f"INSERT INTO {target} VALUES {_values(step['rows'], fields)}"]
    if op in ("create-branch", "create-tag"):
        return [f"ALTER TABLE {table} CREATE {op.split('-')[1].upper()} {step['name']}"]
    if op == "merge":
        on = " AND ".join(f"t.{c} = s.{c}" for c in step["on"])
        names = ", ".join(f["name"] for f in fields)
        out = [f"ALTER TABLE {table} SET TBLPROPERTIES ('write.merge.mode'='{MODES[step['strategy']]}')"] \
            if engine == "spark" else []
        return out + [f"MERGE INTO {table} t USING (SELECT * FROM VALUES {_values(step['rows'], fields)} AS v({names})) s "
                      f"ON {on} WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"]
    if op == "overwrite" and "where" not in step:
        return [f"INSERT OVERWRITE {table} VALUES {_values(step['rows'], fields)}"]
    if op in ("delete", "update"):
        cond = common.sql_condition(step["where"], types)
        out = []
        if engine == "spark":
            out.append(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.{op}.mode'='{MODES[step['strategy']]}')")
        if op == "delete":
            out.append(f"DELETE FROM {table} WHERE {cond}")
        else:
            sets = ", ".join(f"{k} = {common.sql_literal(v, types[k])}" for k, v in step["set"].items())
            out.append(f"UPDATE {table} SET {sets} WHERE {cond}")
        return out
    if op == "compact":
        ident = table.split(".", 1)[1]
        return [f"CALL {catalog}.system.rewrite_data_files(table => '{ident}', "
                "options => map('rewrite-all', 'true', 'remove-dangling-deletes', 'true'))"]
    if op == "add-column":
        f = step["field"]
        return [f"ALTER TABLE {table} ADD COLUMN {f['name']} {SQL_TYPES[f['type']]}"]
    if op == "rename-column":
        return [f"ALTER TABLE {table} RENAME COLUMN {step['name']} TO {step['to']}"]
    if op == "drop-column":
        return [f"ALTER TABLE {table} DROP COLUMN {step['name']}"]
    if op == "promote-column":
        return [f"ALTER TABLE {table} ALTER COLUMN {step['name']} TYPE {SQL_TYPES[step['to']]}"]
    if op == "set-partition-spec":
        return [f"ALTER TABLE {table} ADD PARTITION FIELD {_transform(pf)}" for pf in step["fields"]]
    raise NotImplementedError(f"step {op!r} has no SQL form here")


def create(oplog: dict[str, Any], table: str) -> str:
    cols = ", ".join(f"{f['name']} {SQL_TYPES[f['type']]}{' NOT NULL' if f.get('required') else ''}"
                     for f in oplog["schema"]["fields"])
    parts = oplog.get("partition-spec") or []
    by = f" PARTITIONED BY ({', '.join(_transform(p) for p in parts)})" if parts else ""
    return (f"CREATE TABLE {table} ({cols}) USING iceberg{by} "
            f"TBLPROPERTIES ('format-version'='{oplog['format-version']}')")


def run_with(session: Any, oplog: dict[str, Any], root: str, catalog: str, engine: str) -> list[dict[str, Any]]:
    table = f"{catalog}.db.t"
    session.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.db")
    session.sql(create(oplog, table))

    def do(_i: int, step: dict[str, Any], fields: list[dict[str, Any]]) -> None:
        if step["op"] == "overwrite" and "where" in step:
            if engine != "spark":
                raise NotImplementedError("a filtered overwrite is Spark's DataFrame API")
            from pyspark.sql import functions as F
            cols = ", ".join(f"CAST(c{i} AS {SQL_TYPES[f['type']]}) AS {f['name']}" for i, f in enumerate(fields))
            names = ", ".join(f"c{i}" for i in range(len(fields)))
            df = session.sql(f"SELECT {cols} FROM VALUES {_values(step['rows'], fields)} AS v({names})")
            df.writeTo(table).overwrite(F.expr(common.sql_condition(step["where"], common.columns_of(fields))))
            return
        for q in statements(oplog, step, fields, table, catalog, engine):
            session.sql(q).collect()
    return common.run_steps(oplog, root, do)


def run_repark(oplog: dict[str, Any], root: str, engine: str) -> dict[str, Any]:
    import importlib.metadata

    from repark import SparkSession
    catalog = "wr"
    session = (SparkSession.builder.config(f"spark.sql.catalog.{catalog}", "org.apache.iceberg.spark.SparkCatalog")
               .config(f"spark.sql.catalog.{catalog}.type", "hadoop")
               .config(f"spark.sql.catalog.{catalog}.warehouse", os.path.join(root, "warehouse"))
               .config("repark.sql.allowCreateFormatVersion3", "true").getOrCreate())
    try:
        steps = run_with(session, oplog, root, catalog, "repark")
    except Exception as e:   # the table could not be created
        steps = [{"index": -1, "op": "create", "error": f"{type(e).__name__}: {' '.join(str(e).split())[:800]}",
                  "metadata": None, "snapshot": None}]
    return {"steps": steps, "version": importlib.metadata.version("repark")}


if __name__ == "__main__":
    common.main(run_repark)
