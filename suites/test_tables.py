"""Readers conform on golden tables written by Iceberg Java (Spark 3.5, Iceberg 1.10.2).

The golden tables (``suites/golden/spark_tables.py``) are generated once per session into a temp dir
(or taken from ``$ICEBERG_CONFORMANCE_GOLDEN``, a directory ``python -m iceberg_conformance.suites.golden.generate``
wrote). For every table and every reader (pyiceberg ``StaticTable``, DuckDB ``iceberg_scan``,
the kit's ``reference.scan``), every live snapshot is read and compared, as a multiset of rows
in the spec's JSON single-value form, with the rows the generator put there. Mismatches fail
with a diff per snapshot. Without Spark/Java the tests SKIP with the reason.

Known reader bugs are data: ``suites/engines/known-failures-readers.json`` (strict xfails).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.metadata import schema_by_id
from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.registry import ENGINES, ReadRequest
from iceberg_conformance.suites.engines.rows import canonical_rows, diff_rows
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.harness import known

pytestmark = [
    pytest.mark.spark, pytest.mark.area("golden-tables"),
    # pyspark's collect() leaves its result socket to the garbage collector
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

KNOWN_FILE = Path(__file__).parent / "engines" / "known-failures-readers.json"
#: the engines of the registry installed with the kit's own extras (the others read in the
#: consumer matrix, suites/test_matrix.py)
READERS = ("pyiceberg", "duckdb", "reference")


def _params() -> list[Any]:
    entries = known.load(KNOWN_FILE)
    out = []
    for name in golden.REGISTRY:
        for reader in READERS:
            marks = known.xfail_marks(entries, f"test_reader_reads_golden_table: {name} > {reader}", reader)
            out.append(pytest.param(name, reader, id=f"{name}-{reader}", marks=marks))
    return out


@pytest.mark.parametrize(("table", "reader"), _params())
def test_reader_reads_golden_table(golden_dir: Path, table: str, reader: str) -> None:
    doc = golden.load_expected(golden_dir, table)
    warehouse = golden_dir / "warehouse"
    metadata = warehouse / doc["metadata"]
    md = golden.read_metadata(metadata)
    schemas = schema_by_id(md)
    problems = []
    for snap in doc["snapshots"]:
        if snap["expired"]:
            continue
        where = f"snapshot {snap['snapshot_id']} ({snap['label']}; ref {snap['ref']})"
        try:
            raw = ENGINES[reader].read(ReadRequest.at(metadata, snap["snapshot_id"]))
        except ReaderUnavailable as e:
            pytest.skip(f"{reader}: {e}")
        except Exception as e:  # a reader crash on a valid table is a failure, not an error
            problems.append(f"{where}: {reader} raised {type(e).__name__}: {str(e)[:500]}")
            continue
        try:
            rows = raw if ENGINES[reader].json_rows else canonical_rows(schemas[snap["schema_id"]], raw)
        except Exception as e:
            problems.append(f"{where}: {reader} returned values of unexpected types: {type(e).__name__}: {e}")
            continue
        d = diff_rows(snap["rows"], rows)
        if d:
            problems.append(f"{where}:\n" + "\n".join(d))
    if problems:
        pytest.fail(f"reader:   {reader}\ntable:    {table} (v{doc['format_version']}: {doc['description']})\n"
                    f"metadata: {metadata}\n" + "\n".join(problems), pytrace=False)


LINEAGE_TABLES = [name for name, t in golden.REGISTRY.items() if "row-lineage-columns" in t.features]


@pytest.mark.parametrize("table", LINEAGE_TABLES)
def test_reference_reads_row_lineage(golden_dir: Path, table: str) -> None:
    """v3 row lineage as the reference scan resolves it (``scan(..., lineage=True)``) is the
    lineage the generator's model states per snapshot (Iceberg Java's generic reader is held to
    the same in suites/test_producers.py)."""
    from iceberg_conformance.reference.scan import scan

    doc = golden.load_expected(golden_dir, table)
    metadata = golden_dir / "warehouse" / doc["metadata"]
    keys = ("id", "_row_id", "_last_updated_sequence_number")
    problems = []
    snaps = [s for s in doc["snapshots"] if "row_lineage" in s]
    assert snaps, f"{table}: no snapshot states its row lineage"
    for snap in snaps:
        got = [{k: r[k] for k in keys} for r in scan(str(metadata), snap["snapshot_id"], lineage=True)]
        d = diff_rows(snap["row_lineage"], got)
        if d:
            problems.append(f"snapshot {snap['snapshot_id']} ({snap['label']}):\n" + "\n".join(d))
    assert not problems, f"{table}: the reference scan resolves other row lineage:\n" + "\n".join(problems)


# --- the golden tables are what they say they are ------------------------------------------

def _manifest_entries(warehouse: Path, md: dict[str, Any]) -> list[dict[str, Any]]:
    import fastavro

    local = _local   # the module's one helper for a table location's local path
    entries: list[dict[str, Any]] = []
    for snap in md.get("snapshots", []):
        if "manifest-list" not in snap:   # v1: "manifests", a list of manifest file locations
            paths = list(snap.get("manifests") or [])
        else:
            with open(local(snap["manifest-list"]), "rb") as f:
                paths = [m["manifest_path"] for m in fastavro.reader(f) if isinstance(m, dict)]
        for path in paths:
            with open(local(path), "rb") as mf:
                entries += [e for e in fastavro.reader(mf) if isinstance(e, dict)]
    return entries


def _trap_feature_problems(warehouse: Path, doc: dict[str, Any], md: dict[str, Any], features: set[str],
                           files: list[dict[str, Any]]) -> list[str]:
    """The shapes of the trap tables of reader bugs (``suites/golden/trap_tables.py``)."""
    import fastavro
    import pyarrow.parquet as pq

    problems = []
    local = [Path(str(f["file_path"]).removeprefix("file:")) for f in files]
    if "avro-deletes" in features and not any(f.get("content") == 1 and str(f["file_path"]).endswith(".avro")
                                              for f in files):
        problems.append("no Avro delete file")
    if "row-groups" in features and not any(f.get("content", 0) == 0 and p.suffix == ".parquet"
                                            and pq.ParquetFile(p).metadata.num_row_groups >= 2
                                            for f, p in zip(files, local)):
        problems.append("no Parquet data file of two or more row groups")
    if "no-snapshot-log" in features:
        logged = [p.name for p in (warehouse / doc["table"] / "metadata").glob("*.metadata.json")
                  if "snapshot-log" in golden.read_metadata(p)]
        if logged or not md.get("snapshots"):
            problems.append(f"snapshot-log in {logged}, or no snapshot")
    lists = [Path(str(snap["manifest-list"]).removeprefix("file:")) for snap in md.get("snapshots", [])
             if "manifest-list" in snap]
    if "snapshot-manifests" in features and (lists or not all(s.get("manifests") for s in md.get("snapshots", []))
                                             or not md.get("snapshots")):
        problems.append("a snapshot names a manifest list, or lists no manifests")
    if "manifest-list-no-format-version" in features:
        for p in lists:
            with open(p, "rb") as f:
                if "format-version" in fastavro.reader(f).metadata:
                    problems.append(f"{p.name} has a format-version key")
    if "legacy-names" in features:
        for p in lists:
            with open(p, "rb") as f:
                schema = fastavro.reader(f).writer_schema
            assert isinstance(schema, dict)   # a manifest list's schema is the record manifest_file
            names = {fld["name"] for fld in schema["fields"]}
            if "added_data_files_count" not in names:
                problems.append(f"{p.name} names field 504 otherwise")
    schemas = md.get("schemas", [])
    if "field-id-zero" in features and not any(fld["id"] == 0 for sc in schemas for fld in sc["fields"]):
        problems.append("no field id 0")
    if "migrated" in features:
        sources = {pf["source-id"] for spec in md.get("partition-specs", []) for pf in spec["fields"]
                   if pf["transform"] == "identity"}
        stored = {int(fl.metadata[b"PARQUET:field_id"]) for p in local if p.suffix == ".parquet"
                  for fl in pq.read_schema(p) if fl.metadata and b"PARQUET:field_id" in fl.metadata}
        if not sources - stored:
            problems.append("every identity partition source is stored in the data files")
    if "dropped-partition-source" in features:
        current = {fld["id"] for sc in schemas if sc["schema-id"] == md["current-schema-id"] for fld in sc["fields"]}
        if not any(pf["source-id"] not in current for spec in md.get("partition-specs", []) for pf in spec["fields"]):
            problems.append("every partition source is in the current schema")
    return problems


def _avro(path: str) -> tuple[Any, list[dict[str, Any]]]:
    """(writer schema, records) of an Avro file at a table location."""
    import fastavro

    with open(_local(path), "rb") as f:
        reader = fastavro.reader(f)
        return reader.writer_schema, [r for r in reader if isinstance(r, dict)]


def _bug_trap_problems(md: dict[str, Any], features: set[str], files: list[dict[str, Any]]) -> list[str]:
    """The shapes of the trap tables of the bug corpus's reader bugs: a "fixed" record is guarded
    only while its table still has the shape that triggered the bug."""
    import pyarrow.parquet as pq

    problems: list[str] = []
    snaps = md.get("snapshots", [])
    lists = {s["snapshot-id"]: _avro(s["manifest-list"]) for s in snaps if "manifest-list" in s} if features & {
        "no-partition-summaries", "inherited-sequence-numbers", "empty-snapshot", "dangling-deletes",
        "compaction", "deprecated-fields"} else {}
    if "no-partition-summaries" in features and not any(
            r.get("partitions") is None for _schema, recs in lists.values() for r in recs):
        problems.append("every manifest-list record has partition summaries")
    if "inherited-sequence-numbers" in features:
        ids = [{f.get("field-id") for f in _avro(r["manifest_path"])[0]["fields"]}
               for _schema, recs in lists.values() for r in recs]
        if not any(not ({1, 3} <= i) for i in ids):   # snapshot_id (1), sequence_number (3)
            problems.append("every manifest's schema has snapshot_id and sequence_number")
    if "empty-snapshot" in features and not any(not recs for _schema, recs in lists.values()):
        problems.append("no snapshot whose manifest list is empty")
    if "dangling-deletes" in features:
        current = lists.get(md.get("current-snapshot-id"), (None, []))[1]
        entries = [e for r in current for e in _avro(r["manifest_path"])[1] if e.get("status") != 2]
        live = {str(e["data_file"]["file_path"]) for e in entries if e["data_file"].get("content", 0) == 0}
        named = {str(p) for e in entries if e["data_file"].get("content") == 1
                 for p in pq.read_table(str(e["data_file"]["file_path"]).removeprefix("file:"),
                                        columns=["file_path"]).column("file_path").to_pylist()}
        if not named - live:
            problems.append("no live position delete names a data file that is no longer live")
    if "removed-schema" in features:
        known = {fld["id"] for sc in md.get("schemas", []) for fld in sc["fields"]}
        stored = {int(fl.metadata[b"PARQUET:field_id"]) for f in files if str(f["file_path"]).endswith(".parquet")
                  for fl in pq.read_schema(str(f["file_path"]).removeprefix("file:"))
                  if fl.metadata and b"PARQUET:field_id" in fl.metadata}
        if not stored - known:
            problems.append("every column the data files store is in a schema the metadata lists")
    if "dictionary-encoding" in features and not any(
            "DICTIONARY" in " ".join(str(e) for e in meta.row_group(g).column(c).encodings)
            and bool(getattr(meta.row_group(g).column(c).statistics, "null_count", 0))
            for f in files if f.get("content", 0) == 0 and str(f["file_path"]).endswith(".parquet")
            for meta in [pq.ParquetFile(str(f["file_path"]).removeprefix("file:")).metadata]
            for g in range(meta.num_row_groups) for c in range(meta.num_columns)):
        problems.append("no dictionary-encoded column chunk holding nulls")
    if "null-partition" in features and not any(
            v is None for f in files for v in (f.get("partition") or {}).values()):
        problems.append("no data file with a null partition value")
    if "added-partition-field" in features:
        specs = md.get("partition-specs", [])
        if not (any(not sp["fields"] for sp in specs) and any(sp["fields"] for sp in specs)):
            problems.append("no unpartitioned spec followed by a partitioned one")
    if "month" in features and not any(pf["transform"] == "month" for sp in md.get("partition-specs", [])
                                       for pf in sp["fields"]):
        problems.append("no month partition field")
    if "dv-beside-other-files" in features and not any(
            dv.get("referenced_data_file") and str(dv["file_path"]).endswith(".puffin")
            and not any(b["key"] == 2147483546 for b in dv.get("lower_bounds") or [])
            and any(f.get("content", 0) == 0 and f["file_path"] != dv["referenced_data_file"]
                    and f.get("partition") == dv.get("partition") for f in files)
            for dv in files if dv.get("content") == 1):
        problems.append("no deletion vector without file_path bounds beside another data file of its partition")
    if "compaction" in features and not any(
            e["status"] == 1 and e.get("sequence_number") is not None and e["sequence_number"] < r["sequence_number"]
            for _schema, recs in lists.values() for r in recs for e in _avro(r["manifest_path"])[1]):
        problems.append("no ADDED entry keeping a data sequence number older than its manifest's")
    if "deprecated-fields" in features and not any(
            {"sort_columns", "distinct_counts"} <= {f["name"] for f in next(
                fld for fld in _avro(r["manifest_path"])[0]["fields"] if fld["name"] == "data_file")["type"]["fields"]}
            for _schema, recs in lists.values() for r in recs):
        problems.append("no manifest whose data_file record has the deprecated fields 107 and 111")
    if "session-time-zone" in features:
        types = {fld["id"]: fld["type"] for sc in md.get("schemas", []) for fld in sc["fields"]}
        if not any(pf["transform"] in ("year", "month", "day") and types.get(pf["source-id"]) == "timestamp"
                   for sp in md.get("partition-specs", []) for pf in sp["fields"]):
            problems.append("no year, month or day partition field of a timestamp column")
    return problems


BUG_TRAP_FEATURES = ("no-partition-summaries", "inherited-sequence-numbers", "empty-snapshot", "dangling-deletes",
                     "removed-schema", "dictionary-encoding", "null-partition", "added-partition-field", "month",
                     "dv-beside-other-files", "session-time-zone", "compaction", "deprecated-fields")


def test_bug_trap_feature_checks_can_fail(golden_dir: Path) -> None:
    """Each shape check of the bug traps finds its shape missing in some golden table that does not
    claim it (a check no table can fail would guard nothing)."""
    never: set[str] = set(BUG_TRAP_FEATURES)
    for name, t in golden.REGISTRY.items():
        try:
            doc = golden.load_expected(golden_dir, name)
        except Exception:  # a table this golden directory was generated without
            continue
        md = golden.read_metadata(golden_dir / "warehouse" / doc["metadata"])
        files = [e["data_file"] for e in _manifest_entries(golden_dir / "warehouse", md)]
        for feature in [f for f in never if f not in t.features]:
            if _bug_trap_problems(md, {feature}, files):
                never.discard(feature)
        if not never:
            break
    assert not never, f"no golden table without them fails the checks of {sorted(never)}"


@pytest.mark.parametrize("table", list(golden.REGISTRY))
def test_golden_table_has_its_features(golden_dir: Path, table: str) -> None:
    """A golden table whose writer silently did something else would test nothing."""
    doc = golden.load_expected(golden_dir, table)
    warehouse = golden_dir / "warehouse"
    md = golden.read_metadata(warehouse / doc["metadata"])
    features = set(doc["features"])
    if "upgrade" in features:  # created at format_version, upgraded to the highest version it names
        assert md["format-version"] == max(int(f[1:]) for f in features if f in ("v1", "v2", "v3"))
    else:
        assert md["format-version"] == doc["format_version"]
    files = [e["data_file"] for e in _manifest_entries(warehouse, md)]
    paths = [f["file_path"] for f in files]
    problems = []
    if "gzip-metadata" in features and not (warehouse / doc["metadata"]).read_bytes()[:2] == b"\x1f\x8b":
        problems.append("metadata is not gzip-compressed")
    if "position-deletes" in features and not any(f.get("content") == 1 and str(f["file_path"]).endswith(".parquet") for f in files):
        problems.append("no position delete file")
    if "deletion-vectors" in features and not any(f.get("content") == 1 and f.get("referenced_data_file") and str(f["file_path"]).endswith(".puffin") for f in files):
        problems.append("no deletion vector")
    if "theta-sketch" in features and not md.get("statistics"):
        problems.append("no table statistics in metadata")
    if "partition-stats" in features and not md.get("partition-statistics"):
        problems.append("no partition statistics in metadata")
    if "avro-data" in features and not any(p.endswith(".avro") for p in paths):
        problems.append("no Avro data file")
    if "orc-data" in features and not any(p.endswith(".orc") for p in paths):
        problems.append("no ORC data file")
    if "partition-evolution" in features and len(md.get("partition-specs", [])) < 3:
        problems.append("fewer than 3 partition specs")
    problems += _trap_feature_problems(warehouse, doc, md, features, files)
    problems += _bug_trap_problems(md, features, files)
    if "schema-evolution" in features and len(md.get("schemas", [])) < 2:
        problems.append("only one schema")
    if "branch" in features and not any(r["type"] == "branch" and n != "main" for n, r in md.get("refs", {}).items()):
        problems.append("no branch besides main")
    if "tag" in features and not any(r["type"] == "tag" for r in md.get("refs", {}).values()):
        problems.append("no tag")
    if "expire-snapshots" in features and not any(s["expired"] for s in doc["snapshots"]):
        problems.append("no snapshot was expired")
    if "copy-on-write" in features and any(f.get("content", 0) != 0 for f in files):
        problems.append("copy-on-write table has delete files")
    problems += _other_producer_problems(doc, md, features, files)
    if features & _LAYOUT_FEATURES:
        problems += _layout_problems(md, features)
    assert not problems, f"{table}: " + "; ".join(problems)


def _other_producer_problems(doc: dict[str, Any], md: dict[str, Any], features: set[str],
                             files: list[dict[str, Any]]) -> list[str]:
    """Claims of the features the tables of PyIceberg and the reference writer add."""
    problems = []
    producer = golden.REGISTRY[doc["name"]].producer
    if (producer == "spark") != ("producer" not in doc):
        problems.append(f"expected/{doc['name']}.json: 'producer' is {doc.get('producer')!r} for a table of {producer}")
    types = {str(f["type"]) for s in md.get("schemas", []) for f in s["fields"]}
    for t in ("timestamp_ns", "timestamptz_ns", "unknown"):
        if t in features and t not in types:
            problems.append(f"no {t} column")
    fields = [f for s in md.get("schemas", []) for f in s["fields"]]
    if "initial-default" in features and not any(f.get("initial-default") is not None for f in fields):
        problems.append("no field with an initial-default")
    if "write-default" in features and not any(f.get("write-default") is not None for f in fields):
        problems.append("no field with a write-default")
    eq = [f for f in files if f.get("content") == 2]
    if "equality-deletes" in features and not eq:
        problems.append("no equality delete file")
    specs = {s["spec-id"]: s for s in md.get("partition-specs", [])}
    if "partition-scoped-deletes" in features and not any(f.get("partition") for f in eq):
        problems.append("no equality delete file in a partition")
    if "global-deletes" in features and not any(not f.get("partition") for f in eq):
        problems.append("no global (unpartitioned) equality delete file")
    if "global-deletes" in features and not any(not s["fields"] for s in specs.values()):
        problems.append("no unpartitioned spec for global deletes")
    if "row-lineage" in features and md["format-version"] >= 3:
        if not isinstance(md.get("next-row-id"), int) or md["next-row-id"] <= 0:
            problems.append("next-row-id is not a positive number")
        snaps = sorted(md.get("snapshots", []), key=lambda s: int(s.get("sequence-number") or 0))
        first = next((i for i, s in enumerate(snaps) if isinstance(s.get("first-row-id"), int)), len(snaps))
        if "upgrade" in features:  # snapshots from before the upgrade to v3 have none
            snaps = snaps[first:]
        if not snaps or not all(isinstance(s.get("first-row-id"), int) for s in snaps):
            problems.append("a snapshot has no first-row-id" if snaps else "no snapshot has a first-row-id")
    return problems


# Layout claims, checked by reading manifest lists and manifests with the kit's reference
# readers (entries as decoded there: status 0 EXISTING, 1 ADDED, 2 DELETED).
_LAYOUT_FEATURES = {"multi-dv-puffin", "existing-entries", "deleted-entries", "shared-manifests",
                    "multi-file-position-deletes"}


def _local(p: str) -> str:
    return p.removeprefix("file:").replace("///", "/", 1) if p.startswith("file:") else p


def _snapshot_manifests(md: dict[str, Any]) -> dict[int, list[tuple[dict[str, Any], list[dict[str, Any]]]]]:
    """snapshot id -> [(manifest-list entry, that manifest's decoded entries)] via ``reference.manifests``."""
    from iceberg_conformance.reference.manifests import read_manifest, read_manifest_list

    version = md["format-version"]
    cache: dict[str, list[dict[str, Any]]] = {}
    out = {}
    for snap in md.get("snapshots", []):
        listed, findings = read_manifest_list(_local(snap["manifest-list"]), version)
        assert listed or not findings, f"{snap['manifest-list']}: {findings[:3]}"
        pairs = []
        for mf in listed:
            path = mf["manifest_path"]
            if path not in cache:
                cache[path], findings = read_manifest(_local(path), version)
                assert cache[path] or not findings, f"{path}: {findings[:3]}"
            pairs.append((mf, cache[path]))
        out[snap["snapshot-id"]] = pairs
    return out


def _layout_problems(md: dict[str, Any], features: set[str]) -> list[str]:
    snaps = _snapshot_manifests(md)
    entries = [e for pairs in snaps.values() for _, es in pairs for e in es]
    problems = []
    if "existing-entries" in features and not any(e["status"] == 0 for e in entries):
        problems.append("no manifest entry with status EXISTING")
    if "deleted-entries" in features and not any(e["status"] == 2 for e in entries):
        problems.append("no manifest entry with status DELETED")
    if "shared-manifests" in features:
        listed_by: dict[str, set[int]] = {}
        for sid, pairs in snaps.items():
            for mf, _ in pairs:
                listed_by.setdefault(mf["manifest_path"], set()).add(sid)
        if not any(len(s) >= 2 for s in listed_by.values()):
            problems.append("no manifest is listed by two snapshots' manifest lists")
    if "multi-dv-puffin" in features:
        problems += _multi_dv_problems(snaps)
    if "multi-file-position-deletes" in features:
        import pyarrow.parquet as pq

        delete_files = {e["data_file"]["file_path"] for e in entries
                        if e["data_file"].get("content", 0) == 1 and e["data_file"].get("referenced_data_file") is None
                        and str(e["data_file"]["file_path"]).endswith(".parquet")}
        if not any(len(set(pq.read_table(_local(p), columns=["file_path"]).column(0).to_pylist())) >= 2
                   for p in delete_files):
            problems.append("no position delete file names two or more data files")
    return problems


def _multi_dv_problems(snaps: dict[int, list[tuple[dict[str, Any], list[dict[str, Any]]]]]) -> list[str]:
    """Some snapshot has >= 2 live DV entries with one Puffin path and distinct content_offset, and
    each such entry's (content_offset, content_size_in_bytes) is a deletion-vector-v1 blob of that
    file whose referenced-data-file and cardinality match the entry."""
    from iceberg_conformance.reference.puffin import read_puffin

    found = False
    problems = []
    for sid, pairs in snaps.items():
        by_path: dict[str, list[dict[str, Any]]] = {}
        for _, es in pairs:
            for e in es:
                df = e["data_file"]
                if e["status"] != 2 and df.get("content", 0) == 1 and df.get("content_offset") is not None:
                    by_path.setdefault(df["file_path"], []).append(df)
        for path, dvs in by_path.items():
            if len(dvs) < 2 or len({d["content_offset"] for d in dvs}) != len(dvs):
                continue
            found = True
            blobs = {(b.offset, b.length): b for b in read_puffin(_local(path)).metadata.blobs}
            for d in dvs:
                b = blobs.get((d["content_offset"], d["content_size_in_bytes"]))
                if b is None or b.type != "deletion-vector-v1":
                    problems.append(f"snapshot {sid}: {path} has no deletion-vector-v1 blob at "
                                    f"offset {d['content_offset']} length {d['content_size_in_bytes']}")
                elif (b.properties.get("referenced-data-file") != d["referenced_data_file"]
                      or b.properties.get("cardinality") != str(d["record_count"])):
                    problems.append(f"snapshot {sid}: {path} blob at {b.offset} is {b.properties}, the manifest "
                                    f"entry says {d['referenced_data_file']} with {d['record_count']} rows")
    if not found:
        problems.append("no snapshot has two live deletion vectors in one Puffin file")
    return problems


# --- the table checker on the golden tables ----------------------------------------------

def _checker() -> Any:
    try:
        from iceberg_conformance.checker import check as checker_table
    except ImportError as e:
        pytest.skip(f"the table checker is not importable: {e}")
    return checker_table


@pytest.mark.parametrize("table", list(golden.REGISTRY))
def test_checker_finds_no_errors_in_golden_table(golden_dir: Path, table: str) -> None:
    """Tables Iceberg Java wrote are valid: the checker may warn, but reports no error."""
    checker_table = _checker()
    doc = golden.load_expected(golden_dir, table)
    result = checker_table.check_table(str(golden_dir / "warehouse" / doc["metadata"]))
    errors = [str(f) for f in result.findings if f.severity == "error"]
    assert not errors, f"{table}: the checker reports errors on a table Iceberg Java wrote:\n" + "\n".join(errors)


@pytest.mark.parametrize("table", list(golden.REGISTRY))
def test_columnar_screen_agrees_on_golden_table(golden_dir: Path, table: str) -> None:
    """The checker's columnar screen certifies every manifest of a table a real writer wrote (the
    fast path is taken, not skipped), and its findings and live digest are the record reader's."""
    _checker()
    pytest.importorskip("polars", reason="the columnar screen decodes with Polars (a dependency of the kit)")
    from iceberg_conformance.checker.units.manifest import screen_agreement

    doc = golden.load_expected(golden_dir, table)
    got = screen_agreement(str(golden_dir / "warehouse" / doc["metadata"]))
    assert not got.differ, f"{table}: the screen and the record reader disagree:\n" + "\n".join(got.differ)
    assert not got.declined, f"{table}: manifests left to the record reader:\n" + "\n".join(got.declined)
    assert got.manifests > 0 and got.certified == got.manifests


def test_checker_on_spark_equals_local_run(golden_dir: Path) -> None:
    """The checker's units run as Spark tasks give the findings of a local run."""
    checker_table = _checker()
    from iceberg_conformance.suites.spark import session
    from iceberg_conformance.suites.spark.distributed import check_table_on_spark

    doc = golden.load_expected(golden_dir, "v3_deletion_vectors")
    metadata = str(golden_dir / "warehouse" / doc["metadata"])
    try:
        remote = check_table_on_spark(metadata)
    except session.SparkUnavailable as e:
        pytest.skip(f"needs Spark: {e}")
    local = checker_table.check_table(metadata)
    assert remote.units == local.units and remote.units > 10
    assert sorted(map(str, remote.findings)) == sorted(map(str, local.findings))


@pytest.mark.slow
def test_checker_on_spark_equals_local_run_on_1000_manifests(tmp_path: Path) -> None:
    """Beyond one process: a table of 1000 manifests checked as Spark tasks gives exactly the
    findings of the local run (same units, same findings)."""
    checker_table = _checker()
    from iceberg_conformance.suites.spark import session
    from iceberg_conformance.suites.spark.distributed import check_table_on_spark, make_synthetic_table

    try:
        metadata = make_synthetic_table(tmp_path / "synthetic", 1000)
        remote = check_table_on_spark(metadata)
    except session.SparkUnavailable as e:
        pytest.skip(f"needs Spark: {e}")
    manifests = sum(1 for p in Path(metadata).parent.glob("*-m*.avro"))
    assert manifests >= 1000, f"the synthetic table has {manifests} manifests"
    local = checker_table.check_table(metadata)
    assert remote.units == local.units and remote.units >= 1000
    assert sorted(map(str, remote.findings)) == sorted(map(str, local.findings))
    assert not [f for f in local.findings if f.severity == "error"], local.findings[:5]
