"""Iceberg Java reads what the other producers wrote: the independent check of the golden tables
PyIceberg's writer and the reference writer produce (:mod:`suites.golden.producers`).

For every such table, Spark 3.5 with Iceberg 1.10.2 loads the table from its metadata file and
reads every live snapshot (``snapshot-id``); the rows are compared, in the spec's JSON
single-value form, with the rows the generator put there. Where Iceberg Java cannot read a type
or feature, ``suites/golden/unsupported-producers.json`` says so with the error it raises: the
test checks that exact error and reports UNSUPPORTED (a skip quoting it); a read that
succeeds there fails, so the entry is removed the day Java reads the table. Where Iceberg Java
reads a table wrongly or fails on a valid one (a bug, not a missing type), the table is a known
failure in ``suites/golden/known-failures-producers.json`` (a strict xfail with the reason, a link
and the spec sentence it breaks: reported KNOWN-FAILURE while it fails, a FAIL the day it passes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.metadata import schema_by_id
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.harness import known
from iceberg_conformance.suites.harness.outcomes import not_judged
from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.registry import ENGINES, ReadRequest
from iceberg_conformance.suites.engines.rows import canonical_rows, diff_rows

pytestmark = [
    pytest.mark.spark, pytest.mark.area("golden-tables"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

UNSUPPORTED_FILE = Path(__file__).parent / "golden" / "unsupported-producers.json"
KNOWN_FILE = Path(__file__).parent / "golden" / "known-failures-producers.json"
OTHER_PRODUCERS = [name for name, t in golden.REGISTRY.items() if t.producer != "spark"]


def _other_producers() -> list[Any]:
    entries = known.load(KNOWN_FILE, match=lambda e: str(e["table"]), required=("table", "reason", "link"))
    return [pytest.param(name, id=name, marks=known.xfail_marks(entries, name, "Iceberg Java 1.10.2"))
            for name in OTHER_PRODUCERS]


def _unsupported() -> list[known.KnownFailure]:
    """What Iceberg Java declares it cannot read, by table (the ``error`` it raises is in the entry)."""
    return known.load(UNSUPPORTED_FILE, "unsupported", match=lambda e: str(e["table"]),
                      required=("table", "reason", "error"))


@pytest.mark.parametrize("table", _other_producers())
def test_iceberg_java_reads_table_of_other_producer(golden_dir: Path, table: str) -> None:
    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    schemas = schema_by_id(golden.read_metadata(metadata))
    declared = [u.entry for u in _unsupported() if u.matches(table)]
    problems, errors = [], []
    for snap in doc["snapshots"]:
        if snap["expired"]:
            continue
        where = f"snapshot {snap['snapshot_id']} ({snap['label']})"
        schema = schemas[snap["schema_id"]]
        try:
            rows = canonical_rows(schema, ENGINES["spark-sql"].read(ReadRequest.at(metadata, snap["snapshot_id"])))
        except ReaderUnavailable as e:
            pytest.skip(f"needs Spark: {e}")
        except Exception as e:
            errors.append(f"{where}: {type(e).__name__}: {str(e)[:800]}")
            continue
        d = diff_rows(snap["rows"], rows)
        if d:
            problems.append(f"{where}:\n" + "\n".join(d))
    head = f"table:    {table} ({doc.get('producer', 'spark')}, v{doc['format_version']}: {doc['description']})\n" \
           f"metadata: {metadata}\n"
    if declared:
        u = declared[0]
        if not errors:
            pytest.fail(head + f"declared UNSUPPORTED ({u['reason']}) but Iceberg Java read every snapshot"
                        + ("; rows differ:\n" + "\n".join(problems) if problems else " with the expected rows: "
                           f"remove the entry from {UNSUPPORTED_FILE.name}"), pytrace=False)
        unexpected = [e for e in errors if u["error"] not in e]
        assert not unexpected, head + f"UNSUPPORTED is declared with error {u['error']!r}, but:\n" + "\n".join(unexpected)
        not_judged(f"UNSUPPORTED by Iceberg Java 1.10.2 / Spark 3.5: {u['reason']}; error: {errors[0]}")
    if errors or problems:
        pytest.fail(head + "\n".join(errors + problems), pytrace=False)


def _java_text(t: str, v: Any) -> Any:
    """A value of Iceberg Java's generic ``Record`` (through py4j) -> spec JSON single-value form,
    for the types Spark cannot read (java.time ``toString``: ``HH:mm`` drops zero seconds and the
    fraction comes in groups of 3 digits; an offset of zero is ``Z``). A long where a java.time
    value belongs is the reader's internal value handed back: an error."""
    if v is None:
        return None
    if t in ("timestamp_ns", "timestamptz_ns", "time") and isinstance(v, int):
        raise TypeError(f"Iceberg Java's generic reader returned the long {v} for a {t} value, not a java.time value")
    if t == "time":
        hms, _, frac = str(v.toString()).partition(".")
        if hms.count(":") == 1:
            hms += ":00"
        return f"{hms}.{frac.ljust(6, '0')}"
    if t in ("timestamp_ns", "timestamptz_ns"):
        text = str(v.toString())
        zone = ""
        if t == "timestamptz_ns":
            text, zone = (text[:-1], "+00:00") if text.endswith("Z") else (text[:-6], text[-6:])
        day, time = text.split("T")
        hms, _, frac = time.partition(".")
        if hms.count(":") == 1:
            hms += ":00"
        return f"{day}T{hms}.{frac.ljust(9, '0')}{zone}"
    if t in ("int", "long"):
        return int(v)
    if t in ("string", "boolean"):
        return v
    raise TypeError(f"no conversion of a Java {t} value here")


def _java_generic_rows(metadata: Path, snapshot_id: int, fields: list[tuple[str, Any]],
                       lineage: bool = False) -> list[dict[str, Any]]:
    """A snapshot's rows as Iceberg Java's generic reader (``IcebergGenerics``, the jar Spark uses,
    through the JVM) returns them: ``fields`` are (name, conversion of the py4j value);
    ``lineage`` projects the row-lineage metadata columns as well."""
    from iceberg_conformance.suites.spark import session

    try:
        spark = session.spark()
    except session.SparkUnavailable as e:
        pytest.skip(f"needs the JVM of Spark: {e}")
    jvm = spark._jvm
    java_table = jvm.org.apache.iceberg.hadoop.HadoopTables(spark._jsc.hadoopConfiguration()).load(str(metadata))
    scan = jvm.org.apache.iceberg.data.IcebergGenerics.read(java_table).useSnapshot(snapshot_id)
    if lineage:
        scan = scan.project(jvm.org.apache.iceberg.MetadataColumns.schemaWithRowLineage(java_table.schema()))
    records = scan.build()
    rows = []
    try:
        it = records.iterator()
        while it.hasNext():
            rec = it.next()
            rows.append({name: convert(rec.getField(name)) for name, convert in fields})
    finally:
        records.close()
    return rows


def _spark_cannot() -> list[Any]:
    """The tables Spark cannot read, a strict xfail where Iceberg Java's generic reader is known to
    fail on one (``known-failures-producers.json``, ``table``: ``<name> (generic reader)``)."""
    entries = known.load(KNOWN_FILE, match=lambda e: str(e["table"]), required=("table", "reason", "link"))
    tables = sorted({u["table"] for u in json.loads(UNSUPPORTED_FILE.read_text(encoding="utf-8"))["unsupported"]})
    return [pytest.param(t, id=t, marks=known.xfail_marks(entries, f"{t} (generic reader)", "Iceberg Java 1.10.2"))
            for t in tables]


@pytest.mark.parametrize("table", _spark_cannot())
def test_iceberg_java_generic_reader_reads_table_spark_cannot(golden_dir: Path, table: str) -> None:
    """Where Spark 3.5 cannot read a type (time, the v3 nanosecond timestamps, unknown), Iceberg
    Java's own generic reader (``IcebergGenerics``, the same jar, through the JVM) is the
    independent check."""
    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    schemas = schema_by_id(golden.read_metadata(metadata))
    problems = []
    for snap in doc["snapshots"]:
        schema = schemas[snap["schema_id"]]
        rows = _java_generic_rows(metadata, snap["snapshot_id"], [
            (f["name"], lambda v, t=f["type"]: _java_text(t, v)) for f in schema["fields"]])
        d = diff_rows(snap["rows"], rows)
        if d:
            problems.append(f"snapshot {snap['snapshot_id']} ({snap['label']}):\n" + "\n".join(d))
    assert not problems, f"{table}: Iceberg Java's generic reader reads other rows:\n" + "\n".join(problems)


LINEAGE_TABLES = [name for name, t in golden.REGISTRY.items() if "row-lineage-columns" in t.features]


def _lineage_tables() -> list[Any]:
    """The row-lineage tables, a strict xfail where Iceberg Java is known to resolve other lineage
    (``known-failures-producers.json``, ``table``: ``<name> (row lineage)``)."""
    entries = known.load(KNOWN_FILE, match=lambda e: str(e["table"]), required=("table", "reason", "link"))
    return [pytest.param(t, id=t, marks=known.xfail_marks(entries, f"{t} (row lineage)", "Iceberg Java 1.10.2"))
            for t in LINEAGE_TABLES]


@pytest.mark.parametrize("table", _lineage_tables())
def test_iceberg_java_reads_row_lineage(golden_dir: Path, table: str) -> None:
    """v3 row lineage as Iceberg Java resolves it (its generic reader projecting ``_row_id`` and
    ``_last_updated_sequence_number``) is the lineage the generator's model states per snapshot:
    ids inherited from first_row_id, and copied or re-inherited where a rewrite moved rows."""
    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    problems = []
    snaps = [s for s in doc["snapshots"] if "row_lineage" in s]
    assert snaps, f"{table}: no snapshot states its row lineage"
    for snap in snaps:
        got = _java_generic_rows(metadata, snap["snapshot_id"], [
            (k, lambda v: v) for k in ("id", "_row_id", "_last_updated_sequence_number")], lineage=True)
        d = diff_rows(snap["row_lineage"], got)
        if d:
            problems.append(f"snapshot {snap['snapshot_id']} ({snap['label']}):\n" + "\n".join(d))
    assert not problems, f"{table}: Iceberg Java resolves other row lineage:\n" + "\n".join(problems)
