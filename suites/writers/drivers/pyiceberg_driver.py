"""Op-log steps through PyIceberg's table API: PyIceberg 0.12 (the kit's environment),
sidequery-pyiceberg (its own environment: the same ``pyiceberg`` module with equality deletes,
``upsert_by_equality_delete``, which runs its upserts; PyIceberg's are ``Table.upsert``, a
copy-on-write overwrite) and Daft (``DataFrame.write_iceberg``: Daft's Parquet writer,
PyIceberg's commit). The catalog is PyIceberg's SQL catalog (SQLite) over ``ROOT/warehouse``.

Run as ``python pyiceberg_driver.py`` (JSON on stdin, see :mod:`.common`) with ``engine`` one of
``pyiceberg``, ``sidequery-pyiceberg``, ``daft``."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import os
import sys
from typing import Any

try:
    from . import common
except ImportError:  # run as a script in another environment
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # type: ignore[no-redef,import-not-found]


def _type(name: str | dict[str, Any]) -> Any:
    from pyiceberg import types as t
    if isinstance(name, dict):  # a list, in its Appendix C JSON form
        return t.ListType(name["element-id"], _type(name["element"]), element_required=name["element-required"])
    return {"boolean": t.BooleanType(), "int": t.IntegerType(), "long": t.LongType(), "float": t.FloatType(),
            "double": t.DoubleType(), "string": t.StringType(), "date": t.DateType(),
            "timestamp": t.TimestampType(), "timestamptz": t.TimestamptzType(), "binary": t.BinaryType()}[name]


def _value(type_: str | dict[str, Any], v: Any) -> Any:
    if v is None:
        return None
    if isinstance(type_, dict):
        return [_value(type_["element"], x) for x in v]
    if type_ == "date":
        return dt.date.fromisoformat(v)
    if type_ in ("timestamp", "timestamptz"):
        return dt.datetime.fromisoformat(v)
    return v


def _expr(e: dict[str, Any]) -> Any:
    from pyiceberg import expressions as x
    kind = e["type"]
    cmp = {"eq": x.EqualTo, "not-eq": x.NotEqualTo, "lt": x.LessThan, "lt-eq": x.LessThanOrEqual,
           "gt": x.GreaterThan, "gt-eq": x.GreaterThanOrEqual}
    if kind in ("and", "or"):
        return (x.And if kind == "and" else x.Or)(_expr(e["left"]), _expr(e["right"]))
    if kind == "not":
        return x.Not(_expr(e["child"]))
    if kind in cmp:
        return cmp[kind](e["left"]["name"], e["right"])
    if kind in ("in", "not-in"):
        return (x.In if kind == "in" else x.NotIn)(e["child"]["name"], set(e["values"]))
    if kind in ("is-null", "not-null"):
        return (x.IsNull if kind == "is-null" else x.NotNull)(e["child"]["name"])
    raise ValueError(f"row filter {kind!r} has no PyIceberg form here")


def _arrow(tbl: Any, rows: list[dict[str, Any]], fields: list[dict[str, Any]]) -> Any:
    import pyarrow as pa
    schema = tbl.schema().as_arrow()
    types = common.columns_of(fields)
    cols = {f.name: [_value(types[f.name], r.get(f.name)) for r in rows] for f in schema}
    return pa.Table.from_pydict(cols, schema=schema)


def _plain_arrow_type(type_: str | dict[str, Any]) -> Any:
    """The Arrow type of an op-log column, without Iceberg field ids (as a file written outside
    Iceberg has them)."""
    import pyarrow as pa
    if isinstance(type_, dict):
        return pa.list_(pa.field("item", _plain_arrow_type(type_["element"]), nullable=not type_["element-required"]))
    return {"boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(), "double": pa.float64(),
            "string": pa.string(), "date": pa.date32(), "timestamp": pa.timestamp("us"),
            "timestamptz": pa.timestamp("us", tz="UTC"), "binary": pa.binary()}[type_]


def external_parquet(path: str, step: dict[str, Any], fields: list[dict[str, Any]]) -> str:
    """The Parquet file of an ``add-files`` step: the step's rows written by pyarrow, without field
    ids; a list's element is named ``element`` (the Parquet spec's 3-level lists) or, with
    ``parquet.list-element`` = ``item``, ``item`` (pyarrow's legacy naming, also 3-level)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    schema = pa.schema([pa.field(f["name"], _plain_arrow_type(f["type"]), nullable=not f.get("required", False))
                        for f in fields])
    data = pa.Table.from_pydict({f["name"]: [_value(f["type"], r.get(f["name"])) for r in step["rows"]]
                                 for f in fields}, schema=schema)
    compliant = (step.get("parquet") or {}).get("list-element", "element") == "element"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(data, path, use_compliant_nested_type=compliant)
    return path


def run(oplog: dict[str, Any], root: str, engine: str) -> dict[str, Any]:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import parse_transform
    from pyiceberg.types import NestedField

    warehouse = os.path.join(root, "warehouse")
    os.makedirs(warehouse, exist_ok=True)
    catalog = SqlCatalog("writers", uri=f"sqlite:///{os.path.join(root, 'catalog.db')}", warehouse=f"file://{warehouse}")
    catalog.create_namespace("db")
    fields = oplog["schema"]["fields"]
    schema = Schema(*[NestedField(f["id"], f["name"], _type(f["type"]), required=f.get("required", False))
                      for f in fields])
    by_name = {f["name"]: f["id"] for f in fields}
    spec = PartitionSpec(*[PartitionField(by_name[p["source"]], 1000 + i, parse_transform(p["transform"]), p["name"])
                           for i, p in enumerate(oplog.get("partition-spec") or [])])
    try:
        catalog.create_table("db.t", schema, partition_spec=spec,
                             properties={"format-version": str(oplog["format-version"])})
    except Exception as e:
        return {"steps": [{"index": -1, "op": "create", "error": f"{type(e).__name__}: {e}", "metadata": None,
                           "snapshot": None}], "version": _version(engine)}

    def do(i: int, step: dict[str, Any], cols: list[dict[str, Any]]) -> None:
        tbl = catalog.load_table("db.t")
        op = step["op"]
        if op == "add-files":
            where = tbl.location().removeprefix("file://")
            # a file URI, as the table's other files (the spec's file_path: a full URI with its scheme)
            tbl.add_files(["file://" + external_parquet(os.path.join(where, "data", f"external-step{i}.parquet"),
                                                        step, cols)])
        elif op in ("append", "overwrite"):
            data = _arrow(tbl, step["rows"], cols)
            if engine == "daft":
                import daft
                if "where" in step:
                    raise NotImplementedError("daft's write_iceberg overwrites the whole table")
                daft.from_arrow(data).write_iceberg(tbl, mode="append" if op == "append" else "overwrite")
            elif op == "append":
                tbl.append(data, branch=step.get("branch", "main"))
            elif "where" in step:
                tbl.overwrite(data, overwrite_filter=_expr(step["where"]))
            else:
                tbl.overwrite(data)
        elif op == "upsert" and engine == "sidequery-pyiceberg":
            # equality deletes of the rows' keys and the rows, in one commit
            tbl.upsert_by_equality_delete(df=_arrow(tbl, step["rows"], cols), join_cols=step["key"])
        elif op == "upsert":
            tbl.upsert(_arrow(tbl, step["rows"], cols), join_cols=step["key"])
        elif op == "delete" and step["strategy"] == "equality":
            keys = tbl.scan(row_filter=_expr(step["where"]), selected_fields=("id",)).to_arrow()
            tbl.upsert_by_equality_delete(df=_arrow(tbl, [], cols), join_cols=["id"], delete_df=keys)
        elif op == "delete":
            tbl.delete(_expr(step["where"]))
        elif op == "merge":     # copy-on-write: PyIceberg's upsert (overwrite of the matched rows, append of the rest)
            tbl.upsert(_arrow(tbl, step["rows"], cols), join_cols=list(step["on"]))
        elif op in ("create-branch", "create-tag"):
            current = tbl.current_snapshot()
            if current is None:
                raise ValueError(f"{op} before any snapshot")
            with tbl.manage_snapshots() as m:
                if op == "create-branch":
                    m.create_branch(current.snapshot_id, step["name"])
                else:
                    m.create_tag(current.snapshot_id, step["name"])
        elif op in ("add-column", "rename-column", "drop-column", "promote-column"):
            with tbl.update_schema() as u:
                if op == "add-column":
                    u.add_column(step["field"]["name"], _type(step["field"]["type"]))
                elif op == "rename-column":
                    u.rename_column(step["name"], step["to"])
                elif op == "drop-column":
                    u.delete_column(step["name"])
                else:
                    u.update_column(step["name"], field_type=_type(step["to"]))
        elif op == "set-partition-spec":
            with tbl.update_spec() as u:
                for pf in step["fields"]:
                    u.add_field(pf["source"], parse_transform(pf["transform"]), pf["name"])
        else:
            raise NotImplementedError(f"step {op!r}")
    return {"steps": common.run_steps(oplog, root, do), "version": _version(engine)}


def _version(engine: str) -> str:
    dist = {"daft": "daft", "sidequery-pyiceberg": "sidequery-pyiceberg"}.get(engine, "pyiceberg")
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    common.main(run)
