"""Op-log steps through DuckDB 1.5.5's Iceberg extension, which writes a table offline with
``COPY (query) TO 'dir' (FORMAT iceberg)`` (``APPEND`` for the next commits); its catalog writes
(``ATTACH ... (TYPE iceberg)``) need a REST catalog. The extensions are loaded from the
``duckdb-extension-*`` wheels (nothing is downloaded). DuckDB runs native code: a subprocess
(``python duckdb_driver.py``, JSON on stdin)."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path
from typing import Any

try:
    from . import common
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # type: ignore[no-redef,import-not-found]

DUCK_TYPES = {"boolean": "BOOLEAN", "int": "INTEGER", "long": "BIGINT", "float": "FLOAT", "double": "DOUBLE",
              "string": "VARCHAR", "date": "DATE", "timestamp": "TIMESTAMP", "timestamptz": "TIMESTAMPTZ"}


def _connect() -> Any:
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for pkg, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        files = sorted(Path(str(pkg.__file__)).parent.glob(f"extensions/*/{name}.duckdb_extension"))
        con.execute(f"LOAD '{files[-1]}'")
    return con


def run(oplog: dict[str, Any], root: str, engine: str) -> dict[str, Any]:
    if oplog.get("partition-spec") or oplog["format-version"] != 2:
        raise NotImplementedError("DuckDB's COPY writes unpartitioned v2 tables")
    con = _connect()
    path = os.path.join(root, "warehouse", "t")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    written = [False]

    def do(_i: int, step: dict[str, Any], fields: list[dict[str, Any]]) -> None:
        if step["op"] != "append":
            raise NotImplementedError(f"step {step['op']!r}")
        cols = ", ".join(f"CAST(c{i} AS {DUCK_TYPES[f['type']]}) AS {f['name']}" for i, f in enumerate(fields))
        names = ", ".join(f"c{i}" for i in range(len(fields)))
        values = ", ".join("(" + ", ".join(common.sql_literal(r.get(f["name"]), f["type"]) for f in fields) + ")"
                           for r in step["rows"])
        mode = ", APPEND" if written[0] else ""
        con.execute(f"COPY (SELECT {cols} FROM (VALUES {values}) AS v({names})) TO '{path}' (FORMAT iceberg{mode})")
        written[0] = True
    return {"steps": common.run_steps(oplog, root, do), "version": importlib.metadata.version("duckdb")}


if __name__ == "__main__":
    common.main(run)
