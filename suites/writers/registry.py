"""Every writer behind one registry: what it declares, how it runs an op-log.

A :class:`Writer` declares the operations it supports (:func:`oplogs.step_key` names: ``append``,
``overwrite``, ``overwrite-filter``, ``delete:<strategy>``, ``update:<strategy>``, ``compact``,
``add-column``, ``rename-column``, ``drop-column``, ``promote-column``, ``set-partition-spec``,
``create-partitioned``, ``type:<t>``), each for the format versions it writes. An op-log needing
anything undeclared is UNSUPPORTED for that writer: never run, never judged. What a writer gets
right is not declared anywhere: the judge finds it out.

Writers run in this process (the reference; Spark through the kit's session) or as a driver in
the writer's own Python environment (``python drivers/<driver>.py``, JSON on stdin): an
environment variable names that Python (``ICEBERG_CONFORMANCE_PYTHON_<NAME>``), else the writer
uses this interpreter where its package is installed here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from iceberg_conformance.suites.writers import oplogs

DRIVERS = Path(__file__).resolve().parent / "drivers"

ALL = (1, 2, 3)
V12, V23 = (1, 2), (2, 3)
_SCHEMA_OPS = ("add-column", "rename-column", "drop-column", "promote-column")
#: PyIceberg's Table.add_files (a Parquet file without field ids, mapped by name) and the list
#: columns the op-logs of add_files use
_ADD_FILES = ("add-files", "type:list")
#: branches and tags, and appends to a branch
_REF_OPS = ("create-branch", "create-tag", "append-to-branch")


#: (python, module) -> exit code of importing it there (asked once per process)
_IMPORTS: dict[tuple[str, str], int] = {}


class WriterUnavailable(Exception):
    """The writer's package (or its Python) is not there; the message says what is missing."""


@dataclass(frozen=True)
class Writer:
    name: str
    title: str
    #: PyPI packages (with pins) the writer needs
    packages: tuple[str, ...]
    #: operation -> format versions it is declared for
    supports: dict[str, tuple[int, ...]]
    #: ``in-process`` or the driver file run as a subprocess
    driver: str
    #: the module that must import in the writer's Python (for availability)
    module: str = ""
    #: for a subprocess driver: the variable naming the Python to run it with
    python_env: str = ""
    notes: str = ""
    #: the Python (major.minor) a subprocess driver's packages need, when not any
    python_version: str = ""
    run_here: Callable[[dict[str, Any], str], dict[str, Any]] | None = field(default=None, compare=False)

    def missing(self, oplog: dict[str, Any]) -> list[str]:
        """What the op-log needs that this writer does not declare (for its format version)."""
        v = int(oplog["format-version"])
        needs = ["create"] + oplogs.requirements(oplog)
        return [k for k in needs if v not in self.supports.get(k, ())]

    def python(self) -> str:
        given = os.environ.get(self.python_env) if self.python_env else None
        return given or sys.executable

    def available(self) -> str | None:
        """None when the writer can run here, else why not."""
        if self.driver == "in-process":
            if self.module and importlib.util.find_spec(self.module) is None:
                return f"{self.module} is not installed (pip install {' '.join(self.packages)})"
            return None
        py = self.python()
        needs = f"{self.name} needs Python {self.python_version} ({', '.join(self.packages)} has wheels for it only): set " \
                f"${self.python_env} to a Python {self.python_version} with it installed" if self.python_version else ""
        if not os.path.exists(py):
            return f"${self.python_env} names {py}, which does not exist" + (f"; {needs}" if needs else "")
        if self.python_version:
            key = (py, "sys.version")
            if key not in _IMPORTS:
                _IMPORTS[key] = subprocess.run([py, "-c", "import sys; sys.exit(sys.version_info[:2] != "
                                                f"{tuple(int(x) for x in self.python_version.split('.'))})"],
                                               capture_output=True, text=True).returncode
            if _IMPORTS[key] != 0:
                return f"{py} is not a Python {self.python_version}: {needs}"
        if (py, self.module) not in _IMPORTS:
            _IMPORTS[(py, self.module)] = subprocess.run([py, "-c", f"import {self.module}"], capture_output=True,
                                                         text=True).returncode
        if _IMPORTS[(py, self.module)] != 0:
            where = f"${self.python_env}" if self.python_env and os.environ.get(self.python_env) else "this Python"
            return f"{self.module} does not import in {where} ({py}): install {' '.join(self.packages)}"
        return None

    def run(self, oplog: dict[str, Any], root: str, timeout: float = 600) -> dict[str, Any]:
        """Run the op-log into ``root``; ``{"steps": [...], "version": ...}`` (see the drivers)."""
        os.makedirs(root, exist_ok=True)
        why = self.available()
        if why:
            raise WriterUnavailable(why)
        if self.run_here is not None:
            return self.run_here(oplog, root)
        request = json.dumps({"oplog": oplog, "table": root, "engine": self.name})
        r = subprocess.run([self.python(), str(DRIVERS / self.driver)], input=request, capture_output=True,
                           text=True, timeout=timeout, cwd=root)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
        if r.returncode != 0 or not lines:
            tail = " ".join(r.stderr.split())[-800:]
            return {"steps": [{"index": -1, "op": "driver", "error": f"driver exited {r.returncode}: {tail}",
                               "metadata": None, "snapshot": None}], "version": "unknown"}
        result: dict[str, Any] = json.loads(lines[-1])
        return result


def _run_reference(oplog: dict[str, Any], root: str) -> dict[str, Any]:
    from iceberg_conformance.suites.writers import reference_driver
    return reference_driver.run(oplog, root)


_CATALOGS = [0]


def _run_spark(oplog: dict[str, Any], root: str) -> dict[str, Any]:
    from iceberg_conformance.suites.spark import session
    from iceberg_conformance.suites.writers.drivers import sql
    _CATALOGS[0] += 1
    name = session.catalog(f"writer{_CATALOGS[0]}", os.path.join(root, "warehouse"))
    s = session.spark()
    try:
        steps = sql.run_with(s, oplog, root, name, "spark")
    except Exception as e:  # the table could not be created
        steps = [{"index": -1, "op": "create", "error": f"{type(e).__name__}: {' '.join(str(e).split())[:800]}",
                  "metadata": None, "snapshot": None}]
    return {"steps": steps, "version": s.version + " / Iceberg 1.10.2"}


def _all(*ops: str, versions: tuple[int, ...] = ALL) -> dict[str, tuple[int, ...]]:
    return {op: versions for op in ops}


WRITERS: dict[str, Writer] = {w.name: w for w in [
    Writer("reference", "the kit's reference writer (reference/writer.py TableBuilder)", (),
           {**_all("create", "append", "create-partitioned", "add-column", "drop-column", "set-partition-spec",
                   "delete:equality", "type:timestamp", "type:timestamptz", versions=V23),
            "delete:position": (2,), "delete:deletion-vector": (3,), "delete:merge-on-read": V23},
           "in-process", notes="v2/v3 only (v1 tables come from write_table, a fixed table); no overwrite, "
           "update, compaction, rename or promote, branches, tags or merge", run_here=_run_reference),
    Writer("pyiceberg", "PyIceberg 0.12", ("pyiceberg==0.12.0", "sqlalchemy>=2"),
           {**_all("create", "append", "overwrite", "overwrite-filter", "delete:copy-on-write", "create-partitioned",
                   "set-partition-spec", "type:timestamp", "type:timestamptz", *_SCHEMA_OPS, *_ADD_FILES,
                   *_REF_OPS, "upsert", "merge:copy-on-write", versions=V12)},
           "pyiceberg_driver.py", module="pyiceberg",
           notes="v1/v2 (v3 writes are not complete in 0.12); deletes are copy-on-write only; add-files is "
           "Table.add_files, upsert Table.upsert (copy-on-write)"),
    Writer("sidequery-pyiceberg", "sidequery-pyiceberg 0.12.0.post2 (PyIceberg with equality deletes)",
           ("sidequery-pyiceberg==0.12.0.post2",),
           {**_all("create", "append", "overwrite", "overwrite-filter", "delete:copy-on-write", "create-partitioned",
                   "set-partition-spec", "type:timestamp", "type:timestamptz", *_SCHEMA_OPS, *_ADD_FILES,
                   *_REF_OPS, "merge:copy-on-write", versions=V12),
            "delete:equality": (2,), "upsert": (2,)},
           "pyiceberg_driver.py", module="pyiceberg.table", python_env="ICEBERG_CONFORMANCE_PYTHON_SIDEQUERY",
           notes="its own environment: the distribution replaces the pyiceberg module; its upserts are "
           "upsert_by_equality_delete (equality deletes, v2)"),
    Writer("daft", "Daft 0.7 write_iceberg", ("daft==0.7.26", "pyiceberg==0.12.0"),
           _all("create", "append", "overwrite", "create-partitioned", "type:timestamp", "type:timestamptz",
                versions=V12),
           "pyiceberg_driver.py", module="daft", notes="Daft's Parquet writer, PyIceberg's commit (SQL catalog)"),
    Writer("spark", "Apache Spark 3.5 with Iceberg Java 1.10.2 (SQL)", ("pyspark==3.5.9", "snowpark-connect-deps-iceberg==1.0.2"),
           {**_all("create", "append", "overwrite", "overwrite-filter", "delete:copy-on-write", "update:copy-on-write",
                   "compact", "create-partitioned", "set-partition-spec", "delete:merge-on-read",
                   "type:timestamp", "type:timestamptz", *_SCHEMA_OPS, *_REF_OPS, "merge:copy-on-write"),
            "delete:position": (2,), "update:position": (2,), "delete:deletion-vector": (3,),
            "update:deletion-vector": (3,), "compact": (1, 2, 3)},
           "in-process", module="pyspark", notes="merge-on-read writes position deletes in v2, deletion vectors in v3; "
           "no equality deletes (Flink writes those)", run_here=_run_spark),
    Writer("chdb", "chdb 4.4 (ClickHouse 26.9 IcebergLocal)", ("chdb==4.4.0",),
           {**_all("create", "append", "create-partitioned", "type:timestamp"),
            **_all(*_SCHEMA_OPS, versions=V23), "delete:position": (2,), "update:position": (2,),
            "delete:merge-on-read": V23},
           "chdb_driver.py", module="chdb",
           notes="allow_experimental_insert_into_iceberg=1; v1 appends only; deletes and updates write position "
           "delete files, in v3 too"),
    Writer("duckdb", "DuckDB 1.5.5 COPY ... (FORMAT iceberg)", ("duckdb==1.5.5", "duckdb-extension-iceberg==1.5.5"),
           _all("create", "append", "type:timestamp", versions=(2,)),
           "duckdb_driver.py", module="duckdb_extension_iceberg",
           notes="COPY (query) TO 'dir' (FORMAT iceberg[, APPEND]) writes unpartitioned v2 tables offline; its "
           "catalog writes need a REST catalog"),
    Writer("repark", "repark 1.5.5 (pure-Rust PySpark API)", ("repark==1.5.5",),
           {**_all("create", "append", "create-partitioned", "delete:copy-on-write", "update:copy-on-write",
                   "add-column", "rename-column", "type:timestamp", "type:timestamptz", versions=V23)},
           "sql.py", module="repark", python_env="ICEBERG_CONFORMANCE_PYTHON_REPARK", python_version="3.12",
           notes="wheels for CPython 3.12 only (cp312-abi3): its own environment; v2/v3 "
           "(repark.sql.allowCreateFormatVersion3); copy-on-write DELETE/UPDATE"),
]}
