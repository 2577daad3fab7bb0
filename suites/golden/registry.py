"""Golden tables: a registry of small generators, each writing one table with Spark SQL.

A generator is a function ``fn(t: TableWriter) -> None`` registered with
``@golden_table(name=..., description=..., format_version=...)``. It creates its table through
``t`` (``t.create(columns, partitioned_by=..., properties=...)``, ``t.insert(rows)``,
``t.sql("DELETE FROM {t} ...")``), keeps its own Python model of the table's rows, and after
each commit calls ``t.expect(label, rows)``: the rows the snapshot that commit made must
contain. Expected rows therefore come from the values the generator inserted and the change
it made, never from reading the table back.

Rows are declared as dicts ``{column: value}`` with values in the spec's JSON single-value
form (Appendix D), except that a struct is a dict keyed by field *name* and a map a dict
``{"keys": [...], "values": [...]}``; :func:`finish` resolves names to field ids with the
snapshot's schema, so ``expected/<name>.json`` holds spec single-value form throughout:

    {"name", "producer" (absent: Spark), "description", "format_version", "features": [...],
     "table": "<dir relative to the warehouse>", "metadata": "<final metadata file, relative>",
     "snapshots": [{"label", "snapshot_id", "schema_id", "refs": [...], "expired": bool,
                    "rows": [{column: value}, ...],
                    "row_lineage": [{"id", "_row_id", "_last_updated_sequence_number"}] (optional, v3)}],
     "seconds": <generation time>}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from iceberg_conformance.checker.find import latest_metadata as find_latest_metadata
from iceberg_conformance.reference.metadata import read_metadata

Row = dict[str, Any]


@dataclass(frozen=True)
class GoldenTable:
    name: str
    description: str
    format_version: int
    features: tuple[str, ...]
    generate: Callable[[Any], None]
    #: who writes the table: "spark" (a :class:`TableWriter`), or one of the other producers of
    #: :mod:`suites.golden.producers` ("pyiceberg", "reference"), whose generator gets that writer
    producer: str = "spark"
    #: the session time zone the consumers that have one (chdb's ``session_timezone``, DuckDB's
    #: ``TimeZone``) read the table in: UTC for every table but a trap of a reader that computes
    #: partition values in the session's zone. The rows must not depend on it: a ``timestamp``
    #: stores micros from 1970-01-01 00:00:00 ("Primitive Types"), its transforms take that value
    #: as is, and values an engine hands back in the session's zone are compared as instants
    session_time_zone: str = "UTC"


REGISTRY: dict[str, GoldenTable] = {}


def golden_table(*, name: str, description: str, format_version: int, features: tuple[str, ...] = (),
                 producer: str = "spark",
                 session_time_zone: str = "UTC") -> Callable[[Callable[[Any], None]], Callable[[Any], None]]:
    """Register a golden-table generator."""
    def register(fn: Callable[[Any], None]) -> Callable[[Any], None]:
        if name in REGISTRY:
            raise ValueError(f"golden table {name!r} registered twice")
        REGISTRY[name] = GoldenTable(name, description, format_version, tuple(features), fn, producer,
                                     session_time_zone)
        return fn
    return register


# --- column types and Spark SQL literals ------------------------------------------------
# A column type is an Iceberg primitive type string, or ("struct", [(name, type), ...]),
# ("list", element), ("map", key, value).

ColType = Any

_DDL = {"boolean": "BOOLEAN", "int": "INT", "long": "BIGINT", "float": "FLOAT", "double": "DOUBLE",
        "date": "DATE", "timestamp": "TIMESTAMP_NTZ", "timestamptz": "TIMESTAMP",
        "string": "STRING", "binary": "BINARY"}


def ddl(t: ColType) -> str:
    """Spark SQL DDL for an Iceberg column type."""
    if isinstance(t, tuple):
        if t[0] == "struct":
            return "STRUCT<" + ", ".join(f"{n}: {ddl(ft)}" for n, ft in t[1]) + ">"
        if t[0] == "list":
            return f"ARRAY<{ddl(t[1])}>"
        if t[0] == "map":
            return f"MAP<{ddl(t[1])}, {ddl(t[2])}>"
        raise ValueError(f"unknown nested type {t!r}")
    if t.startswith("decimal("):
        p, s = t[len("decimal("):-1].split(",")
        return f"DECIMAL({int(p)},{int(s)})"
    return _DDL[t]


def literal(t: ColType, v: Any) -> str:
    """A Spark SQL expression of type ``t`` for the declared value ``v``."""
    if v is None:
        return f"CAST(NULL AS {ddl(t)})"
    if isinstance(t, tuple):
        if t[0] == "struct":
            return "named_struct(" + ", ".join(f"'{n}', {literal(ft, v.get(n))}" for n, ft in t[1]) + ")"
        if t[0] == "list":
            return f"CAST(array({', '.join(literal(t[1], e) for e in v)}) AS {ddl(t)})"
        if t[0] == "map":
            pairs = ", ".join(f"{literal(t[1], k)}, {literal(t[2], x)}" for k, x in zip(v["keys"], v["values"]))
            return f"CAST(map({pairs}) AS {ddl(t)})"
    if t == "boolean":
        return "TRUE" if v else "FALSE"
    if t in ("int", "long", "float", "double") or t.startswith("decimal("):
        return f"CAST('{v}' AS {ddl(t)})"
    if t == "date":
        return f"DATE '{v}'"
    if t == "timestamp":
        return f"TIMESTAMP_NTZ '{v.replace('T', ' ')}'"
    if t == "timestamptz":
        return f"TIMESTAMP '{v.replace('T', ' ')}'"    # the session time zone is UTC
    if t == "string":
        return f"CAST(X'{v.encode('utf-8').hex()}' AS STRING)"   # no escaping questions
    if t == "binary":
        return f"X'{v}'"
    raise ValueError(f"no literal for {t!r}")


# --- the writer a generator gets ----------------------------------------------------------

@dataclass
class Expectation:
    label: str
    ref: str
    snapshot_id: int
    rows: list[Row]
    also_refs: list[str] = field(default_factory=list)
    #: v3 row lineage the snapshot must read: [{"id", "_row_id", "_last_updated_sequence_number"}]
    lineage: list[Row] | None = None


class TableWriter:
    """What a generator uses: SQL on its table, and recording expected snapshots."""

    def __init__(self, spark: Any, catalog: str, namespace: str, table: GoldenTable, warehouse: Path) -> None:
        self.spark = spark
        self.catalog = catalog
        self.namespace = namespace
        self.spec = table
        self.name = f"{catalog}.{namespace}.{table.name}"
        self.warehouse = warehouse
        self.columns: list[tuple[str, ColType]] = []
        self.expectations: list[Expectation] = []

    def sql(self, statement: str) -> Any:
        """Run SQL; ``{t}`` in the statement is this table's full name."""
        return self.spark.sql(statement.replace("{t}", self.name))

    def create(self, columns: list[tuple[str, ColType]], *, partitioned_by: str = "",
               properties: dict[str, str] | None = None) -> None:
        self.columns = list(columns)
        props = {"format-version": str(self.spec.format_version), **(properties or {})}
        cols = ", ".join(f"{n} {ddl(t)}" for n, t in columns)
        part = f" PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
        tbl = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
        self.sql(f"CREATE TABLE {{t}} ({cols}) USING iceberg{part} TBLPROPERTIES ({tbl})")

    def insert(self, rows: list[Row], *, branch: str | None = None) -> None:
        """Append ``rows`` in one commit, as one Spark task where the table allows it."""
        names = [n for n, _ in self.columns]
        values = ", ".join("(" + ", ".join(literal(t, r.get(n)) for n, t in self.columns) + ")" for r in rows)
        target = f"{{t}}.branch_{branch}" if branch else "{t}"
        self.sql(f"INSERT INTO {target} SELECT /*+ COALESCE(1) */ * FROM VALUES {values} AS v({', '.join(names)})")

    def ref_snapshot(self, ref: str = "main") -> int:
        rows = self.sql(f"SELECT snapshot_id FROM {{t}}.refs WHERE name = '{ref}'").collect()
        if not rows:
            raise RuntimeError(f"{self.name}: no ref {ref!r}")
        return int(rows[0][0])

    def expect(self, label: str, rows: list[Row], *, ref: str = "main") -> None:
        """The snapshot ``ref`` now points at holds exactly ``rows`` (any order)."""
        self.expectations.append(Expectation(label, ref, self.ref_snapshot(ref), [dict(r) for r in rows]))

    def table_dir(self) -> Path:
        return self.warehouse / self.namespace / self.spec.name


# --- finishing: expected/<name>.json -----------------------------------------------------

def latest_metadata(table_dir: Path) -> Path:
    """The current metadata file of a table the golden producers wrote (see
    :func:`checker.find.latest_metadata`)."""
    found = find_latest_metadata(str(table_dir))
    if found is None:
        raise FileNotFoundError(f"{table_dir / 'metadata'}: no metadata files")
    return Path(found)


def spec_form(t: Any, v: Any) -> Any:
    """Declared value -> spec single-value form, ``t`` the Iceberg type JSON from metadata."""
    if v is None:
        return None
    if isinstance(t, dict):
        kind = t["type"]
        if kind == "struct":
            return {str(f["id"]): spec_form(f["type"], v.get(f["name"])) for f in t["fields"]}
        if kind == "list":
            return [spec_form(t["element"], e) for e in v]
        if kind == "map":
            return {"keys": [spec_form(t["key"], k) for k in v["keys"]],
                    "values": [spec_form(t["value"], x) for x in v["values"]]}
    return v


def finish(w: Any, seconds: float, producer: str | None = None) -> dict[str, Any]:
    """The ``expected/<name>.json`` document of a written table; ``producer`` is recorded for
    tables not written by Spark (absent means Spark/Iceberg Java)."""
    meta_path = w.metadata_file() if hasattr(w, "metadata_file") else latest_metadata(w.table_dir())
    md = read_metadata(meta_path)
    schemas = {s["schema-id"]: s for s in md.get("schemas", [])} or {0: md["schema"]}
    snaps = {s["snapshot-id"]: s for s in md.get("snapshots", [])}
    refs_by_snap: dict[int, list[str]] = {}
    for rname, ref in (md.get("refs") or {}).items():
        refs_by_snap.setdefault(ref["snapshot-id"], []).append(rname)
    out_snaps = []
    for e in w.expectations:
        snap = snaps.get(e.snapshot_id)
        schema_id = snap.get("schema-id", md.get("current-schema-id", 0)) if snap else None
        entry: dict[str, Any] = {"label": e.label, "ref": e.ref, "snapshot_id": e.snapshot_id,
                                 "schema_id": schema_id, "refs": sorted(refs_by_snap.get(e.snapshot_id, [])),
                                 "expired": snap is None}
        if snap is not None:
            schema = schemas[schema_id]
            names = [f["name"] for f in schema["fields"]]
            for r in e.rows:
                extra = set(r) - set(names)
                if extra:
                    raise ValueError(f"{w.spec.name}: expected row of {e.label!r} names columns "
                                     f"{sorted(extra)} not in schema {schema_id}")
            entry["rows"] = [{f["name"]: spec_form(f["type"], r.get(f["name"]))
                                                         for f in schema["fields"]} for r in e.rows]
            if e.lineage is not None:
                entry["row_lineage"] = e.lineage
        out_snaps.append(entry)
    doc: dict[str, Any] = {"name": w.spec.name}
    if producer:
        doc["producer"] = producer
    return doc | {
        "description": w.spec.description, "format_version": w.spec.format_version,
        "features": list(w.spec.features),
        "table": w.table_dir().relative_to(w.warehouse).as_posix(),
        "metadata": meta_path.relative_to(w.warehouse).as_posix(),
        "snapshots": out_snaps, "seconds": round(seconds, 2),
    }


#: a directory ``python -m iceberg_conformance.suites.golden.generate --out DIR`` wrote: the suites
#: read the golden tables there instead of generating them
GOLDEN_ENV = "ICEBERG_CONFORMANCE_GOLDEN"


def load_expected(golden_dir: Path, name: str, required: bool = False) -> dict[str, Any]:
    """The expected contents of a golden table. A table the golden directory lacks skips, or
    fails when ``required`` (the consumer matrix: a table left out would look complete)."""
    path = golden_dir / "expected" / f"{name}.json"
    if not path.is_file():
        why = f"{path} is missing: the golden directory was generated without {name}"
        if required:
            pytest.fail(f"{why} (python -m iceberg_conformance.suites.golden.generate --out DIR writes every table)",
                        pytrace=False)
        pytest.skip(why)
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc
