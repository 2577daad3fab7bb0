"""Consumers: engines that read Iceberg tables, each behind one small adapter.

A :class:`Consumer` reads the rows of one snapshot of a table, given a :class:`ReadRequest`
(the metadata file to open, the snapshot id, the snapshot's schema). It returns rows as Python
values (Arrow's ``to_pylist`` form, or the spec's JSON single-value form when ``json_rows``),
which the harness turns into the canonical form of ``expected/<name>.json``.

Flags say what the adapter needs from the harness, never what the engine got right:

* ``time_travel`` - the engine can read a snapshot other than the current one. Without it the
  harness gives it a copy of the metadata file whose current snapshot (and ``main``) is the
  snapshot to read; the capability "time travel" is then UNSUPPORTED for that consumer.
* ``paths`` - ``"plain"``: the engine reads the tables as written (absolute paths without a
  URI scheme). ``"file-uri"``/``"http"``: it only opens URIs, so it reads a copy relocated with
  ``checker.relocate`` to ``file://`` URIs or to a loopback HTTP server; that it refuses the
  table as written is tested on its own (capability "paths without a URI scheme").

A consumer whose engine is not installed raises :class:`~suites.engines.readers.ReaderUnavailable`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from iceberg_conformance.suites.engines.readers import (
    ReaderUnavailable, arrow_rows, isolated, read_duckdb, read_pyiceberg, read_reference, read_spark,
)

#: where the icebird reader script lives (run with node)
ICEBIRD_SCRIPT = Path(__file__).resolve().parent / "icebird_read.mjs"
#: directory holding ``node_modules/icebird`` (the consumers lane installs it there)
ICEBIRD_ENV = "ICEBERG_CONFORMANCE_NODE_MODULES"


@dataclass
class ReadRequest:
    """One snapshot to read. ``metadata`` is the file to open (a pinned copy for consumers
    without time travel, a relocated copy for consumers that need URIs); ``location`` is the
    same file as the consumer should name it (a path, a ``file://`` or ``http://`` URI)."""

    metadata: Path
    location: str
    snapshot_id: int
    schema: dict[str, Any]
    table_metadata: dict[str, Any]
    #: the directory the consumer may have to run in (chdb reads files below its working directory)
    root: Path
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Consumer:
    """An engine reading Iceberg tables (see the module docstring for the flags)."""

    name: str
    title: str
    #: PyPI/npm packages (with pins) the consumer needs, for messages and the report
    packages: tuple[str, ...]
    read: Callable[[ReadRequest], list[dict[str, Any]]]
    version: Callable[[], str]
    json_rows: bool = False
    time_travel: bool = True
    paths: str = "plain"


def _dist_version(*names: str) -> str:
    from importlib import metadata

    out = []
    for n in names:
        try:
            out.append(f"{n} {metadata.version(n)}")
        except metadata.PackageNotFoundError:
            out.append(f"{n} (not installed)")
    return ", ".join(out)


def _need(module: str, install: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ReaderUnavailable(f"{module} is not importable ({e}); install {install}") from None


# --- the consumers -------------------------------------------------------------------------

def read_reference_consumer(r: ReadRequest) -> list[dict[str, Any]]:
    return read_reference(r.metadata, r.snapshot_id)


def read_pyiceberg_consumer(r: ReadRequest) -> list[dict[str, Any]]:
    return read_pyiceberg(r.metadata, r.snapshot_id)


def read_duckdb_consumer(r: ReadRequest) -> list[dict[str, Any]]:
    return read_duckdb(r.metadata, r.snapshot_id)


def read_spark_consumer(r: ReadRequest) -> list[dict[str, Any]]:
    """Iceberg Java 1.10.2 through Spark 3.5: ``spark.read.format("iceberg")`` with ``snapshot-id``."""
    _need("pyspark", "'iceberg-conformance[spark]'")
    from iceberg_conformance.suites.spark import session

    try:
        return read_spark(r.metadata, r.snapshot_id, r.schema)
    except session.SparkUnavailable as e:
        raise ReaderUnavailable(f"Spark with Iceberg is not available: {e}") from None


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def read_chdb(r: ReadRequest) -> list[dict[str, Any]]:
    """ClickHouse through chdb: ``icebergLocal(table_dir)`` with the setting ``iceberg_snapshot_id``.
    ClickHouse opens only files below its ``user_files_path``, which chdb takes to be the working
    directory: the query runs with the warehouse root as working directory. ClickHouse's String
    is bytes (Iceberg string and binary alike): it is handed over as Arrow binary."""
    chdb = _need("chdb", "'iceberg-conformance[consumers]' (chdb==4.4.0)")
    table_dir = str(r.metadata.parent.parent).replace("'", "\\'")
    query = (f"SELECT * FROM icebergLocal('{table_dir}') "
             f"SETTINGS iceberg_snapshot_id = {int(r.snapshot_id)}, output_format_arrow_string_as_string = 0")
    with _cwd(r.root):
        result = chdb.query(query, "ArrowTable")
    return arrow_rows(result)


def read_polars(r: ReadRequest) -> list[dict[str, Any]]:
    """Polars ``scan_iceberg(metadata_file, snapshot_id=...)``."""
    pl = _need("polars", "'iceberg-conformance[consumers]' (polars==2.1.0)")
    frame = pl.scan_iceberg(str(r.metadata), snapshot_id=r.snapshot_id).collect()
    return arrow_rows(frame.to_arrow())


def read_daft(r: ReadRequest) -> list[dict[str, Any]]:
    """Daft ``read_iceberg`` over PyIceberg's ``StaticTable`` with ``snapshot_id``."""
    daft = _need("daft", "'iceberg-conformance[consumers]' (daft==0.7.26)")
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(str(r.metadata))
    return arrow_rows(daft.read_iceberg(table, snapshot_id=r.snapshot_id).to_arrow())


def read_datafusion(r: ReadRequest) -> list[dict[str, Any]]:
    """DataFusion with iceberg-rust's table provider (``pyiceberg_core.datafusion``). The
    provider takes a metadata location and reads its current snapshot."""
    datafusion = _need("datafusion", "'iceberg-conformance[consumers]' (datafusion 54.*)")
    provider = _need("pyiceberg_core.datafusion", "'iceberg-conformance[pyiceberg-core]'")
    ctx = datafusion.SessionContext()
    ctx.register_table("t", provider.IcebergDataFusionTable(["db", "t"], r.location, None))
    return arrow_rows(ctx.sql("SELECT * FROM t").to_arrow_table())


def in_own_process(name: str, read: Callable[[ReadRequest], list[dict[str, Any]]]) -> Callable[[ReadRequest], list[dict[str, Any]]]:
    """``read`` run in a worker process of its own (:func:`~suites.engines.readers.isolated`): an
    engine running native code that crashes on a table fails that read, not the lane."""
    def run(r: ReadRequest) -> list[dict[str, Any]]:
        return isolated(name, read, r)
    run.__doc__ = read.__doc__
    return run


def node_modules() -> Path:
    given = os.environ.get(ICEBIRD_ENV)
    candidates = [Path(given)] if given else []
    candidates.append(Path(__file__).resolve().parents[2] / ".tox" / "consumers" / "node")
    for c in candidates:
        if (c / "node_modules" / "icebird" / "package.json").is_file():
            return c / "node_modules"
    raise ReaderUnavailable(f"icebird is not installed: npm install --prefix DIR icebird@0.3.1 and set ${ICEBIRD_ENV}=DIR "
                            f"(looked in {', '.join(map(str, candidates))})")


def icebird_version() -> str:
    try:
        doc = json.loads((node_modules() / "icebird" / "package.json").read_text(encoding="utf-8"))
    except ReaderUnavailable:
        return "icebird (not installed)"
    return f"icebird {doc['version']} (node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()})"


def _untag(v: Any) -> Any:
    """Values of ``icebird_read.mjs``'s tagged JSON -> Python values."""
    import datetime as dt

    if isinstance(v, list):
        return [_untag(x) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k == "$bigint":
                return int(x)
            if k == "$bytes":
                return bytes.fromhex(x)
            if k == "$float":
                return float(x)
            if k == "$date":
                return dt.datetime.fromisoformat(x.replace("Z", "+00:00"))
        return {k: _untag(x) for k, x in v.items()}
    return v


def read_icebird(r: ReadRequest) -> list[dict[str, Any]]:
    """icebird (JavaScript, npm) in node: ``icebergRead({tableUrl, metadata})`` over a loopback
    HTTP server; it reads the current snapshot of the metadata it is given."""
    if shutil.which("node") is None:
        raise ReaderUnavailable("node is not on PATH (icebird is a JavaScript library)")
    modules = node_modules()
    table_url = r.location.rsplit("/metadata/", 1)[0]
    request = json.dumps({"tableUrl": table_url, "metadataUrl": r.location, "modules": str(modules)})
    proc = subprocess.run(["node", str(ICEBIRD_SCRIPT)], input=request, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        # node prints the throwing source line first; the error itself is the first "...Error: ..." line
        lines = [x for x in proc.stderr.splitlines() if x.strip()]
        errors = [x for x in lines if re.match(r"[A-Za-z]*Error\b", x)]
        raise RuntimeError("icebird: " + (errors[0] if errors else " | ".join(lines[-3:]))[:800])
    rows: list[dict[str, Any]] = _untag(json.loads(proc.stdout))
    return rows


CONSUMERS: dict[str, Consumer] = {c.name: c for c in (
    Consumer("reference", "the kit's reference reader (reference.scan)", ("iceberg-conformance",),
             read_reference_consumer, lambda: _dist_version("iceberg-conformance"), json_rows=True),
    Consumer("pyiceberg", "PyIceberg 0.12 (StaticTable scan)", ("pyiceberg==0.12.0",),
             read_pyiceberg_consumer, lambda: _dist_version("pyiceberg", "pyarrow")),
    Consumer("spark", "Iceberg Java 1.10.2 through Spark 3.5", ("pyspark==3.5.9", "snowpark-connect-deps-iceberg==1.0.2"),
             read_spark_consumer, lambda: "iceberg 1.10.2, " + _dist_version("pyspark")),
    Consumer("duckdb", "DuckDB 1.5.5 (iceberg_scan)", ("duckdb==1.5.5", "duckdb-extension-iceberg==1.5.5"),
             read_duckdb_consumer, lambda: _dist_version("duckdb", "duckdb-extension-iceberg")),
    Consumer("chdb", "ClickHouse 26.9 through chdb 4.4.0 (icebergLocal)", ("chdb==4.4.0",),
             in_own_process("chdb", read_chdb), lambda: _dist_version("chdb", "chdb-core")),
    Consumer("polars", "Polars 2.1.0 (scan_iceberg)", ("polars==2.1.0",),
             in_own_process("polars", read_polars), lambda: _dist_version("polars")),
    Consumer("daft", "Daft 0.7.26 (read_iceberg)", ("daft==0.7.26",),
             in_own_process("daft", read_daft), lambda: _dist_version("daft")),
    Consumer("datafusion", "DataFusion 54 with iceberg-rust's table provider (pyiceberg-core 0.11)",
             ("datafusion>=54,<55", "pyiceberg-core==0.11.0"),
             in_own_process("datafusion", read_datafusion), lambda: _dist_version("datafusion", "pyiceberg-core"),
             time_travel=False, paths="file-uri"),
    Consumer("icebird", "icebird 0.3.1 (JavaScript, node) over loopback HTTP", ("icebird@0.3.1 (npm)",),
             read_icebird, icebird_version, time_travel=False, paths="http"),
)}
