"""Build the table metadata vectors: metadata files under files/ and the case files.

Run from the repository root: ``python -m tools.vectors.metadata``. Every file is written
from the hand-written documents below (built from the spec's field tables), and every invalid
file is one of the valid ones with ONE rule broken; the case says which rule. Nothing here
calls the reference implementation. Agreement of independent readers (``AGREED``) is recorded
from running them over the files (pyiceberg 0.12.0 ``TableMetadataUtil.parse_raw``; Iceberg
Java 1.10.2 ``TableMetadataParser.fromJson`` through Spark's JVM).
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any, Callable

from tools.vectors import VECTORS

HERE = VECTORS / "metadata"
FILES = HERE / "files"
T = 1_700_000_000_000
UUID = "9c12d441-03fe-4693-9a96-a0705ddf69c1"
LOC = "s3://bucket/warehouse/db/events"
A, B, C = 3051729675574597004, 3055729675574597004, 4055729675574597004
SPEC_URL = "https://iceberg.apache.org/spec/"

# Which independent readers agree with each case's expected outcome: filled in from runs of
# those readers over the files (see the module docstring). Keys are case file stems + "/" +
# metadata file names; a missing key means no independent reader agrees (see known failures).
PYICEBERG = "pyiceberg 0.12.0 (TableMetadataUtil.parse_raw)"
JAVA = "java 1.10.2 (TableMetadataParser.fromJson)"
CROSS_CHECK = HERE / "cross-check.sidecar.json"
#: how the independent readers hold a v1 file for v2 (suites/test_metadata.py, read_table_metadata_as)
READ_V1_FOR_V2 = {"pyiceberg": "pyiceberg 0.12.0 (TableMetadataV1.to_v2)",
                  "java": "java 1.10.2 (TableMetadata.Builder.upgradeFormatVersion(2))"}


def f(i: int, name: str, t: Any, req: bool = False, **kw: Any) -> dict[str, Any]:
    return {"id": i, "name": name, "required": req, "type": t, **kw}


SCHEMA0_FIELDS = [
    f(1, "id", "long", True),
    f(2, "data", "string"),
    f(3, "ts", "timestamptz", True),
    f(4, "location", {"type": "struct", "fields": [f(5, "lat", "double", True), f(6, "lon", "double", True)]}),
    f(7, "tags", {"type": "list", "element-id": 8, "element": "string", "element-required": False}),
    f(9, "attrs", {"type": "map", "key-id": 10, "key": "string", "value-id": 11, "value": "string",
                   "value-required": False}),
]
SCHEMA1_FIELDS = SCHEMA0_FIELDS + [f(12, "category", "string")]


def snapshot(v: int, sid: int, seq: int, ts: int, op: str, parent: int | None = None,
             schema_id: int | None = 0, **kw: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"snapshot-id": sid}
    if parent is not None:
        s["parent-snapshot-id"] = parent
    if v >= 2:
        s["sequence-number"] = seq
    s["timestamp-ms"] = ts
    s["manifest-list"] = f"{LOC}/metadata/snap-{sid}-1-{seq:04d}.avro"
    s["summary"] = {"operation": op, "added-data-files": "1", "total-records": str(10 * seq)}
    if schema_id is not None:
        s["schema-id"] = schema_id
    s.update(kw)
    return s


def v1_minimal() -> dict[str, Any]:
    return {
        "format-version": 1,
        "location": LOC,
        "last-updated-ms": T,
        "last-column-id": 2,
        "schema": {"type": "struct", "fields": [f(1, "id", "long", True), f(2, "data", "string")]},
        "partition-spec": [],
    }


def v1_rich() -> dict[str, Any]:
    s0 = {"type": "struct", "schema-id": 0, "fields": copy.deepcopy(SCHEMA0_FIELDS)}
    s1 = {"type": "struct", "schema-id": 1, "identifier-field-ids": [1], "fields": copy.deepcopy(SCHEMA1_FIELDS)}
    spec1 = [{"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1000},
             {"name": "ts_day", "transform": "day", "source-id": 3, "field-id": 1001}]
    return {
        "format-version": 1,
        "table-uuid": UUID,
        "location": LOC,
        "last-updated-ms": T + 2000,
        "last-column-id": 12,
        "schema": copy.deepcopy(s1),
        "schemas": [s0, s1],
        "current-schema-id": 1,
        "partition-spec": copy.deepcopy(spec1),
        "partition-specs": [
            {"spec-id": 0, "fields": [{"name": "id_bucket", "transform": "bucket[16]", "source-id": 1, "field-id": 1000}]},
            {"spec-id": 1, "fields": spec1},
        ],
        "default-spec-id": 1,
        "last-partition-id": 1001,
        "sort-orders": [
            {"order-id": 0, "fields": []},
            {"order-id": 1, "fields": [
                {"transform": "identity", "source-id": 1, "direction": "asc", "null-order": "nulls-first"},
                {"transform": "day", "source-id": 3, "direction": "desc", "null-order": "nulls-last"}]},
        ],
        "default-sort-order-id": 1,
        "properties": {"write.format.default": "parquet", "commit.retry.num-retries": "4"},
        "current-snapshot-id": B,
        "snapshots": [
            snapshot(1, A, 1, T + 1000, "append"),
            snapshot(1, B, 2, T + 2000, "overwrite", parent=A, schema_id=1),
        ],
        "snapshot-log": [{"snapshot-id": A, "timestamp-ms": T + 1000}, {"snapshot-id": B, "timestamp-ms": T + 2000}],
        "metadata-log": [{"metadata-file": f"{LOC}/metadata/v1.metadata.json", "timestamp-ms": T},
                         {"metadata-file": f"{LOC}/metadata/v2.metadata.json", "timestamp-ms": T + 1000}],
        "refs": {"main": {"snapshot-id": B, "type": "branch"},
                 "first": {"snapshot-id": A, "type": "tag", "max-ref-age-ms": 604800000}},
    }


def v2_minimal() -> dict[str, Any]:
    return {
        "format-version": 2,
        "table-uuid": UUID,
        "location": LOC,
        "last-sequence-number": 0,
        "last-updated-ms": T,
        "last-column-id": 2,
        "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": [f(1, "id", "long", True), f(2, "data", "string")]}],
        "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}],
        "last-partition-id": 999,
        "default-sort-order-id": 0,
        "sort-orders": [{"order-id": 0, "fields": []}],
        "properties": {},
        "current-snapshot-id": -1,
        "refs": {},
        "snapshots": [],
        "snapshot-log": [],
        "metadata-log": [],
    }


def v2_rich(v: int = 2) -> dict[str, Any]:
    d = v1_rich()
    d["format-version"] = v
    del d["schema"], d["partition-spec"]
    d["last-sequence-number"] = 3
    d["last-updated-ms"] = T + 3000
    d["snapshots"] = [
        snapshot(v, A, 1, T + 1000, "append"),
        snapshot(v, B, 2, T + 2000, "overwrite", parent=A, schema_id=1),
        snapshot(v, C, 3, T + 3000, "append", parent=A, schema_id=1),
    ]
    d["refs"] = {
        "main": {"snapshot-id": B, "type": "branch"},
        "dev": {"snapshot-id": C, "type": "branch", "min-snapshots-to-keep": 2,
                "max-snapshot-age-ms": 86400000, "max-ref-age-ms": 604800000},
        "first": {"snapshot-id": A, "type": "tag", "max-ref-age-ms": 604800000},
    }
    d["statistics"] = [{
        "snapshot-id": B, "statistics-path": f"{LOC}/metadata/stats-{B}.puffin",
        "file-size-in-bytes": 413, "file-footer-size-in-bytes": 92,
        "blob-metadata": [{"type": "apache-datasketches-theta-v1", "snapshot-id": B, "sequence-number": 2,
                           "fields": [1], "properties": {"ndv": "3"}}],
    }]
    d["partition-statistics"] = [{"snapshot-id": B, "statistics-path": f"{LOC}/metadata/partition-stats-{B}.parquet",
                                  "file-size-in-bytes": 43}]
    return d


def v3_minimal() -> dict[str, Any]:
    d = v2_minimal()
    d["format-version"] = 3
    d["current-snapshot-id"] = None
    d["next-row-id"] = 0
    return d


def v3_rich() -> dict[str, Any]:
    d = v2_rich(3)
    rows = {A: (0, 10), B: (10, 5), C: (15, 7)}
    for s in d["snapshots"]:
        s["first-row-id"], s["added-rows"] = rows[s["snapshot-id"]]
    d["next-row-id"] = 22
    return d


# ---------------------------------------------------------------------------------------------
# Case building

CASES: dict[str, dict[str, Any]] = {}
WRITTEN: set[Path] = set()


def write(rel: str, doc: Any, raw: bytes | None = None) -> str:
    path = FILES / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if raw is None:
        raw = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
        if rel.endswith(".gz") or rel.endswith(".gz.metadata.json"):
            raw = gzip.compress(raw, mtime=0)
    path.write_bytes(raw)
    WRITTEN.add(path)
    return f"files/{rel}"


def _agreed(key: str, accept: bool) -> list[str]:
    """Independent readers whose recorded outcome on the file matches the case."""
    record = json.loads(CROSS_CHECK.read_text()) if CROSS_CHECK.exists() else {"results": {}}
    out = []
    for impl, label in (("pyiceberg", PYICEBERG), ("java", JAVA)):
        outcome = record["results"].get(impl, {}).get(key)
        if outcome is not None and (outcome == "accepted") == accept:
            out.append(label)
    return out


def case_file(stem: str, description: str, versions: list[int], spec: list[dict[str, str]],
              notes: str | None = None, level: str | None = None) -> None:
    CASES[stem] = {"description": description, "operation": "metadata", "spec": spec,
                   "format_versions": versions}
    if notes:
        CASES[stem]["notes"] = notes
    if level:
        CASES[stem]["level"] = level
    CASES[stem]["tests"] = []


def valid(stem: str, rel: str, doc: Any, description: str, expected: dict[str, Any], why: str,
          raw: bytes | None = None, **extra: Any) -> None:
    name = write(rel, doc, raw)
    CASES[stem]["tests"].append({
        "description": description, "input": {"file": name}, "expected": expected,
        "format_versions": [doc["format-version"]],
        "derived": {"from": why, "agreed": _agreed(f"{stem}/{rel}", True)}, **extra})


def invalid(stem: str, rel: str, doc: Any, description: str, rule: str, reason: str, why: str,
            raw: bytes | None = None, **extra: Any) -> None:
    name = write(rel, doc, raw)
    CASES[stem]["tests"].append({
        "description": description, "input": {"file": name}, "error": {"rule": rule, "reason": reason},
        "format_versions": [int(rel[1])],
        "derived": {"from": why, "agreed": _agreed(f"{stem}/{rel}", False)}, **extra})


def summary(doc: dict[str, Any], **over: Any) -> dict[str, Any]:
    """The expected meaning of a valid file, written from the document by hand-rule:
    the keys the suite compares (see suites/test_metadata.py)."""
    cur = doc.get("current-snapshot-id")
    out: dict[str, Any] = {
        "format-version": doc["format-version"],
        "current-snapshot-id": None if cur in (None, -1) else cur,
        "snapshot-ids": sorted(s["snapshot-id"] for s in doc.get("snapshots", [])),
        "last-column-id": doc["last-column-id"],
    }
    if "schemas" in doc:
        out["current-schema-id"] = doc["current-schema-id"]
        out["schema-ids"] = sorted(s["schema-id"] for s in doc["schemas"])
    if "partition-specs" in doc:
        out["default-spec-id"] = doc["default-spec-id"]
        out["spec-ids"] = sorted(s["spec-id"] for s in doc["partition-specs"])
    if "sort-orders" in doc:
        out["default-sort-order-id"] = doc["default-sort-order-id"]
    if "table-uuid" in doc:
        out["table-uuid"] = doc["table-uuid"]
    if doc["format-version"] >= 2:
        out["last-sequence-number"] = doc["last-sequence-number"]
    if doc["format-version"] >= 3:
        out["next-row-id"] = doc["next-row-id"]
    if doc.get("refs"):
        out["refs"] = {k: [r["type"], r["snapshot-id"]] for k, r in sorted(doc["refs"].items())}
    out.update(over)
    return out


def mutate(base: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    d = base()
    change(d)
    return d


def setp(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set (or with value DELETE remove) a value at a slash path."""
    def run(d: dict[str, Any]) -> None:
        *head, last = path.split("/")
        node: Any = d
        for p in head:
            node = node[int(p)] if isinstance(node, list) else node[p]
        key: Any = int(last) if isinstance(node, list) else last
        if value is DELETE:
            del node[key]
        else:
            node[key] = value
    return run


DELETE = object()


def both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def run(d: dict[str, Any]) -> None:
        for c in changes:
            c(d)
    return run


# Levels (vectors/README.md, "Normative levels"). The field tables' requirements "are intended for
# writers when adding metadata files", and "Readers may be more strict for metadata JSON files":
# a reader that accepts a file breaking one of them is lenient, not non-conforming, so the
# invalid-v* files are level should. Two refusals stay must: a version above the supported one
# (the spec says implementations must throw) and a column type the spec does not define (the file
# has no reading: a reader cannot know the column's values).
LEVEL_NOTE = (
    "Level should (file default): each file breaks a rule that binds writers (the field tables' "
    "requirements 'are intended for writers when adding metadata files'; 'Readers may be more strict "
    "for metadata JSON files'); the spec asks no reader to refuse it, so a reader that accepts it is "
    "ADVISORY, not failing. Level must: format-version 99 ('Implementations must throw an exception if "
    "a table's version is higher than the supported version') and a column of an undefined type.")
READER_MUST: dict[str, dict[str, Any]] = {
    "format-version-99": {"level": "must", "spec": [{
        "section": "Table Metadata Fields", "source": "current",
        "quote": "Implementations must throw an exception if a table's version is higher than the "
                 "supported version."}]},
    "unknown-type": {"level": "must", "spec": [{
        "section": "Appendix C: JSON serialization / Schemas", "source": "current",
        "quote": "Types are serialized according to this table:"}]},
}

Q = {  # spec quotes used in derivations
    "fields": "Table Metadata Fields",
    "appc": "Appendix C: Table Metadata and Snapshots",
}


def sec(section: str, quote: str | None = None) -> list[dict[str, str]]:
    s = {"section": section, "source": "current"}
    if quote:
        s["quote"] = quote
    return [s]


def build() -> None:
    # ------------------------------------------------------------------ valid files
    case_file("valid", "Valid table metadata files of format v1, v2 and v3, minimal and rich",
              [1, 2, 3], sec("Table Metadata Fields") + sec("Appendix C: Table Metadata and Snapshots"))
    why = "built field by field from the spec's Table Metadata Fields and Snapshots tables; expected = its own ids"
    d = v1_minimal()
    valid("valid", "v1/valid/minimal.metadata.json", d, "v1 minimal: schema and partition-spec only, no snapshots",
          summary(d), why + "; current-snapshot-id and snapshots are optional in the current v1 field table",
          erratum={"seed_says": "Table Metadata Fields lists current-snapshot-id ('long ID of the current table "
                                "snapshot') and snapshots without '(optional)', unlike snapshot-log",
                   "correct": "current-snapshot-id and snapshots are optional (a new table has no snapshot)",
                   "because": "the current spec's v1 table marks both optional, and Iceberg Java 1.10.2 and "
                              "PyIceberg 0.12.0 read this file"})
    d = v1_rich()
    valid("valid", "v1/valid/rich.metadata.json", d,
          "v1 rich: two schemas and specs, sort orders, two snapshots, tag, logs, consistent deprecated fields",
          summary(d), why)
    d = mutate(v1_rich, both(setp("snapshots/0/manifests", [f"{LOC}/metadata/m0.avro"]),
                             setp("snapshots/0/manifest-list", DELETE)))
    valid("valid", "v1/valid/snapshot-manifests.metadata.json", d,
          "v1 snapshot listing manifests instead of a manifest-list", summary(d),
          "Snapshots v1: manifests is 'A list of manifest file locations. Must be omitted if manifest-list is present'")
    d = mutate(v1_rich, setp("refs", DELETE))
    valid("valid", "v1/valid/no-refs.metadata.json", d,
          "v1 without refs: main is implied by current-snapshot-id", summary(d),
          "Table Metadata Fields: refs 'Always a main branch reference, even if refs is null'")
    d = v1_rich()
    CASES["valid"]["tests"].append({
        "description": "v1 rich read for v2: last-sequence-number defaults to 0",
        "input": {"file": write("v1/valid/rich.metadata.json", d), "read_as_version": 2},
        "expected": summary(d, **{"format-version": 2, "last-sequence-number": 0}),
        "format_versions": [1],
        "derived": {"from": "Appendix E, reading v1 metadata for v2: the v1 file has no last-sequence-number, "
                            "which defaults to 0; the ids and refs are the file's own",
                    "agreed": [READ_V1_FOR_V2["pyiceberg"], READ_V1_FOR_V2["java"]]},
        "spec": sec("Appendix E: Format version changes / Version 2",
                    "Table metadata field `last-sequence-number` must default to 0")})
    d = v2_minimal()
    valid("valid", "v2/valid/minimal.metadata.json", d, "v2 minimal: required fields, current-snapshot-id -1",
          summary(d), why + "; -1 read as no current snapshot (Appendix F)",
          erratum={"seed_says": "format-version: an integer version number for the format. Currently, this is always 1.",
                   "correct": "format-version is 1, 2 or 3",
                   "because": "the current spec defines format versions 2 and 3 (Table Metadata Fields, Appendix E)"})
    d = mutate(v2_minimal, setp("current-snapshot-id", DELETE))
    valid("valid", "v2/valid/no-current-snapshot.metadata.json", d, "v2 without current-snapshot-id",
          summary(d), "Table Metadata Fields: current-snapshot-id is optional")
    d = v2_rich()
    valid("valid", "v2/valid/rich.metadata.json", d,
          "v2 rich: nested schema, two specs, branches and a tag, statistics, partition statistics, logs",
          summary(d), why)
    d = mutate(v2_rich, both(setp("snapshots/0", DELETE), setp("snapshot-log/0", DELETE),
                             setp("refs/first", DELETE), setp("statistics", [])))
    valid("valid", "v2/valid/parent-expired.metadata.json", d,
          "v2 snapshot whose parent was expired (parent-snapshot-id not in snapshots)", summary(d),
          "Snapshot Retention Policy: expiration removes snapshots from metadata; nothing requires parents to remain")
    d = mutate(v2_rich, both(setp("snapshots/0", DELETE), setp("refs/first", DELETE), setp("statistics", [])))
    valid("valid", "v2/valid/snapshot-log-older-entry-expired.metadata.json", d,
          "v2 snapshot-log whose oldest entry names an expired snapshot", summary(d),
          "Table Metadata Fields: snapshot-log entries are pruned after expiring snapshots; "
          "an unpruned older entry is tolerated (Appendix F: snapshot-log used for time travel)")
    d = mutate(v2_rich, setp("x-vendor-extension", {"note": "unknown keys are ignored"}))
    valid("valid", "v2/valid/unknown-key.metadata.json", d, "v2 with an unknown top-level key",
          summary(d), "Table Metadata Fields lists the known fields; readers ignore others")
    d = v2_rich()
    valid("valid", "v2/valid/gzip.gz.metadata.json", d, "v2 GZIP-compressed, named *.gz.metadata.json",
          summary(d), "Appendix C: 'A metadata JSON file may be compressed with GZIP'; Appendix F naming")
    valid("valid", "v2/valid/gzip.metadata.json.gz", d, "v2 GZIP-compressed, named *.metadata.json.gz",
          summary(d), "Appendix C: 'A metadata JSON file may be compressed with GZIP'; Appendix F naming")
    d = v3_minimal()
    valid("valid", "v3/valid/minimal.metadata.json", d, "v3 minimal: next-row-id 0, current-snapshot-id null",
          summary(d), why + "; Appendix F: v3 writes null for no current snapshot",
          erratum={"seed_says": "format-version: an integer version number for the format. Currently, this is always 1.",
                   "correct": "format-version is 1, 2 or 3",
                   "because": "the current spec defines format versions 2 and 3 (Table Metadata Fields, Appendix E)"})
    d = v3_rich()
    valid("valid", "v3/valid/rich.metadata.json", d,
          "v3 rich: row lineage first-row-id/added-rows on every snapshot, next-row-id 22",
          summary(d), why + "; Snapshot Row IDs: ranges [0,10) [10,15) [15,22) and next-row-id 22")
    d = mutate(v3_rich, both(*[setp(f"snapshots/{i}/{k}", DELETE) for i in (0,) for k in ("first-row-id", "added-rows")]))
    valid("valid", "v3/valid/upgraded-from-v2.metadata.json", d,
          "v3 upgraded from v2: an older snapshot without first-row-id and added-rows", summary(d),
          "Appendix E v3: 'When a table is upgraded to v3, next_row_id should be initialized to 0'; "
          "snapshots written before the upgrade carry no row lineage")
    d = mutate(v3_rich, both(setp("encryption-keys", [{"key-id": "k1", "encrypted-key-metadata": "aWNlYmVyZwo=",
                                                         "properties": {"kms": "test"}}]),
                             setp("snapshots/2/key-id", "k1")))
    valid("valid", "v3/valid/encryption-keys.metadata.json", d,
          "v3 with encryption-keys and a snapshot key-id naming one", summary(d),
          "Encryption Keys field table (key-id, encrypted-key-metadata required); Snapshots v3 key-id")
    d = mutate(v3_rich, setp("schemas/1/fields", SCHEMA1_FIELDS + [
        f(13, "event_ns", "timestamptz_ns"), f(14, "local_ns", "timestamp_ns"), f(15, "nothing", "unknown")]))
    d["last-column-id"] = 15
    valid("valid", "v3/valid/nanosecond-unknown-types.metadata.json", d,
          "v3 schema with timestamp_ns, timestamptz_ns and unknown columns",
          summary(d), "Appendix E v3: these types are added in v3; Appendix C type names")
    d = mutate(v3_rich, setp("schemas/1/fields", SCHEMA1_FIELDS + [
        f(13, "payload", "variant"), f(14, "shape", "geometry"), f(15, "area", "geography(srid:4326, spherical)")]))
    d["last-column-id"] = 15
    valid("valid", "v3/valid/variant-geo-types.metadata.json", d,
          "v3 schema with variant, geometry and geography columns",
          summary(d), "Appendix E v3: these types are added in v3; Appendix C type names")
    d = mutate(v3_rich, setp("schemas/1/fields", SCHEMA1_FIELDS + [
        f(13, "level", "int", True, **{"initial-default": 1, "write-default": 2}),
        f(14, "label", "string", False, **{"write-default": "none"})]))
    d["last-column-id"] = 14
    valid("valid", "v3/valid/default-values.metadata.json", d,
          "v3 schema with initial-default and write-default values",
          summary(d), "Appendix E v3: default values are added to struct fields; Appendix C struct field JSON")
    d = mutate(v3_rich, setp("partition-specs/1/fields", v1_rich()["partition-specs"][1]["fields"] + [
        {"name": "future", "transform": "zorder", "source-ids": [1, 3], "field-id": 1002}]))
    d["last-partition-id"] = 1002
    valid("valid", "v3/valid/unknown-transform.metadata.json", d,
          "v3 partition field with an unknown multi-argument transform and source-ids", summary(d),
          "Appendix C Partition Specs: 'All v3 readers are required to read tables with unknown transforms'; "
          "source-ids for multi-argument transforms")
    d = mutate(v3_rich, setp("sort-orders/1/fields", v1_rich()["sort-orders"][1]["fields"] + [
        {"transform": "zorder", "source-ids": [1, 3], "direction": "asc", "null-order": "nulls-first"}]))
    valid("valid", "v3/valid/unknown-sort-transform.metadata.json", d,
          "v3 sort field with an unknown multi-argument transform and source-ids", summary(d),
          "Appendix C Sort Orders: 'All v3 readers are required to read tables with unknown transforms, "
          "ignoring them.'")

    # ------------------------------------------------------------------ files written by implementations
    # Kept as written (files/realistic/, not generated here): Iceberg Java 1.10.2 through
    # Spark 3.5.9 (hadoop catalog; CREATE with bucket/days partitions, two INSERTs, WRITE
    # ORDERED BY, ADD/RENAME/DROP COLUMN, ADD/DROP PARTITION FIELD, merge-on-read DELETE,
    # CREATE TAG/BRANCH, INSERT into the branch, compute_table_stats, compute_partition_stats;
    # "history" before and "expired" after expire_snapshots retain_last 1), and PyIceberg
    # 0.12.0 (SqlCatalog on sqlite: create, two appends, add column, delete, tag, branch,
    # add partition field).
    case_file("realistic", "Table metadata files written by Iceberg Java (through Spark) and PyIceberg",
              [1, 2, 3], sec("Table Metadata Fields") + sec("Appendix C: Table Metadata and Snapshots"),
              notes="Level should for the stale v1 file written by PyIceberg: its deprecated schema breaks a rule "
                    "for writers ('The table's current schema'); the spec asks no reader to refuse it.")
    for v in (1, 2, 3):
        for kind, what in (("history", "after schema, partition and ref changes, statistics"),
                           ("expired", "after expire_snapshots kept the last snapshot")):
            rel = f"realistic/spark-java-1.10.2-v{v}-{kind}.metadata.json"
            d = json.loads((FILES / rel).read_text())
            WRITTEN.add(FILES / rel)
            CASES["realistic"]["tests"].append({
                "description": f"v{v} written by Iceberg Java 1.10.2 through Spark 3.5, {what}",
                "input": {"file": f"files/{rel}"}, "expected": summary(d), "format_versions": [v],
                "derived": {"from": "written by Iceberg Java 1.10.2 (Spark 3.5.9); expected ids read off the file",
                            "agreed": _agreed(f"realistic/{rel}", True)}})
    for name, v in (("pyiceberg-0.12.0-v1", 1), ("pyiceberg-0.12.0-v2", 2)):
        rel = f"realistic/{name}.metadata.json"
        d = json.loads((FILES / rel).read_text())
        WRITTEN.add(FILES / rel)
        CASES["realistic"]["tests"].append({
            "description": f"v{v} written by PyIceberg 0.12.0 (SqlCatalog)",
            "input": {"file": f"files/{rel}"}, "expected": summary(d), "format_versions": [v],
            "derived": {"from": "written by PyIceberg 0.12.0; expected ids read off the file",
                        "agreed": _agreed(f"realistic/{rel}", True)}})
    rel = "realistic/pyiceberg-0.12.0-v1-stale-schema.metadata.json"
    WRITTEN.add(FILES / rel)
    CASES["realistic"]["tests"].append({
        "description": "v1 written by PyIceberg 0.12.0 after adding a column: the deprecated schema is stale",
        "input": {"file": f"files/{rel}"}, "format_versions": [1], "level": "should",
        "error": {"rule": "metadata.v1-schema-consistent",
                  "reason": "schema still holds schema 0 while current-schema-id is 1 (apache/iceberg-python#547)"},
        "derived": {"from": "Table Metadata Fields v1: schema is 'The table's current schema'; the file's "
                            "schema lacks the column that schemas[current-schema-id] has",
                    "agreed": _agreed(f"realistic/{rel}", False)}})

    # ------------------------------------------------------------------ loading failures
    case_file("malformed", "Metadata files that are not readable JSON or hold numbers outside the long range",
              [1, 2, 3], sec("Appendix C: Table Metadata and Snapshots"))
    base = json.dumps(v2_rich(), indent=2).encode()
    invalid("malformed", "v2/invalid/truncated.metadata.json", None, "truncated in the middle of the document",
            "metadata.json-syntax", "the JSON text ends inside an object", "RFC 8259 grammar", raw=base[: len(base) // 2])
    invalid("malformed", "v2/invalid/empty.metadata.json", None, "empty file", "metadata.json-syntax",
            "no JSON value", "RFC 8259 grammar", raw=b"")
    invalid("malformed", "v2/invalid/latin1.metadata.json", None, "non-UTF-8 byte in a property value",
            "metadata.encoding", "0xe9 alone is not UTF-8", "RFC 8259 section 8.1: JSON text is UTF-8",
            raw=base.replace(b'"parquet"', b'"caf\xe9"'))
    invalid("malformed", "v2/invalid/nan-literal.metadata.json", None, "NaN literal as last-updated-ms",
            "metadata.json-syntax", "NaN is not a JSON value", "RFC 8259 grammar has no NaN",
            raw=base.replace(f'"last-updated-ms": {T + 3000}'.encode(), b'"last-updated-ms": NaN'))
    invalid("malformed", "v2/invalid/huge-snapshot-id.metadata.json",
            mutate(v2_rich, setp("snapshots/2/snapshot-id", 2**70)),
            "snapshot-id 2**70 is beyond the long range", "metadata.number-range",
            "snapshot-id is a long", "Snapshots: snapshot-id 'A unique long ID'; Appendix C JSON long")
    invalid("malformed", "v2/invalid/huge-timestamp.metadata.json", None, "last-updated-ms 1e400 is not a long",
            "metadata.number-range", "1e400 is not a 64-bit integer",
            "Table Metadata Fields: last-updated-ms is a timestamp in ms; Appendix C JSON long",
            raw=base.replace(f'"last-updated-ms": {T + 3000}'.encode(), b'"last-updated-ms": 1e400'))
    invalid("malformed", "v2/invalid/bad-gzip.gz.metadata.json", None, "GZIP header followed by garbage",
            "metadata.gzip", "the compressed stream is corrupt", "Appendix C: GZIP (RFC 1952)",
            raw=b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03not-deflate-data")
    invalid("malformed", "v2/invalid/array.metadata.json", [v2_rich()], "a JSON array instead of an object",
            "metadata.shape", "table metadata is a JSON object", "Appendix C: 'serialized as a JSON object'")

    # ------------------------------------------------------------------ invalid, one rule each
    for v, base_fn, stem in ((1, v1_rich, "invalid-v1"), (2, v2_rich, "invalid-v2"), (3, v3_rich, "invalid-v3")):
        case_file(stem, f"Format v{v} metadata files that each break one rule", [v],
                  sec("Table Metadata Fields") + sec("Appendix C: Table Metadata and Snapshots"),
                  notes=LEVEL_NOTE, level="should")

    def bad(stem: str, base_fn: Callable[[], dict[str, Any]], name: str, change: Callable[[dict[str, Any]], Any],
            description: str, rule: str, reason: str, why: str) -> None:
        v = {"invalid-v1": 1, "invalid-v2": 2, "invalid-v3": 3}[stem]
        doc = mutate(base_fn, change)
        if v == 1 and name not in ("schema-inconsistent", "missing-schema", "partition-spec-inconsistent"):
            # keep the deprecated v1 fields equal to what they duplicate, so one rule breaks
            cur = [s for s in doc.get("schemas", []) if s.get("schema-id") == doc.get("current-schema-id")]
            if len(cur) == 1 and "schema" in doc:
                doc["schema"] = copy.deepcopy(cur[0])
            spec = [s for s in doc.get("partition-specs", []) if s.get("spec-id") == doc.get("default-spec-id")]
            if len(spec) == 1 and "partition-spec" in doc:
                doc["partition-spec"] = copy.deepcopy(spec[0]["fields"])
        invalid(stem, f"v{v}/invalid/{name}.metadata.json", doc, description, rule, reason, why,
                **READER_MUST.get(name, {}))

    for stem, fn in (("invalid-v1", v1_rich), ("invalid-v2", v2_rich), ("invalid-v3", v3_rich)):
        v = fn()["format-version"]
        bad(stem, fn, "format-version-99", setp("format-version", 99), "format-version 99 is above every defined version",
            "metadata.format-version", "versions above the supported one are refused",
            "Table Metadata Fields: 'Implementations must throw an exception if a table's version is higher than the supported version'")
        bad(stem, fn, "missing-location", setp("location", DELETE), "location missing",
            "metadata.shape", "location is required", "Table Metadata Fields: location required")
        bad(stem, fn, "last-column-id-low", setp("last-column-id", 11), "last-column-id 11 below field id 12",
            "metadata.last-column-id", "last-column-id is the highest assigned column id",
            "Table Metadata Fields: last-column-id 'the highest assigned column ID for the table'")
        bad(stem, fn, "last-column-id-nested", both(setp("schemas/0/fields/3/type/fields/1/id", 13),
                                                   setp("schemas/1/fields/3/type/fields/1/id", 13)),
            "a nested struct field id 13 above last-column-id 12", "metadata.last-column-id",
            "nested field ids count", "Table Metadata Fields: last-column-id; nested fields have ids (Schemas)")
        bad(stem, fn, "current-schema-missing", setp("current-schema-id", 7), "current-schema-id 7 names no schema",
            "metadata.current-schema-exists", "no schema has id 7", "Table Metadata Fields: current-schema-id 'ID of the table's current schema'")
        bad(stem, fn, "duplicate-schema-id", lambda d: d["schemas"].append(dict(copy.deepcopy(d["schemas"][0]), **{"schema-id": 1})),
            "two schemas with schema-id 1",
            "metadata.schema-ids-unique", "schema ids identify schemas", "Table Metadata Fields: schemas 'stored as objects with schema-id'")
        bad(stem, fn, "duplicate-field-id", setp("schemas/1/fields/6/id", 2), "two fields with id 2 in one schema",
            "schema.duplicate-field-id", "field ids are unique in a schema",
            "Schemas and Data Types: 'Fields ... have an id that is unique in the table schema'")
        bad(stem, fn, "default-spec-missing", setp("default-spec-id", 5), "default-spec-id 5 names no spec",
            "metadata.default-spec-exists", "no spec has id 5", "Table Metadata Fields: default-spec-id")
        bad(stem, fn, "last-partition-id-low", setp("last-partition-id", 1000), "last-partition-id 1000 below partition field id 1001",
            "metadata.last-partition-id", "last-partition-id is the highest assigned partition field id",
            "Table Metadata Fields: last-partition-id 'Highest assigned partition field ID across all specs'")
        bad(stem, fn, "partition-source-missing",
            both(setp("partition-specs/1/fields/1/source-id", 42)) if v > 1 else
            both(setp("partition-specs/1/fields/1/source-id", 42), setp("partition-spec/1/source-id", 42)),
            "default spec partitions by source column 42, which does not exist", "partition.source-missing",
            "a partition source column exists", "Partitioning: 'The source columns, selected by ids'")
        bad(stem, fn, "partition-source-struct",
            setp("partition-specs/1/fields/1", {"name": "loc", "transform": "identity", "source-id": 4, "field-id": 1001})
            if v > 1 else both(
                setp("partition-specs/1/fields/1", {"name": "loc", "transform": "identity", "source-id": 4, "field-id": 1001}),
                setp("partition-spec/1", {"name": "loc", "transform": "identity", "source-id": 4, "field-id": 1001})),
            "identity partition on a struct column", "partition.source-not-primitive", "source columns are primitive",
            "Partitioning: 'The source columns ... must be a primitive type and cannot be contained in a map or list'")
        bad(stem, fn, "partition-source-in-list",
            setp("partition-specs/1/fields/1", {"name": "tag", "transform": "identity", "source-id": 8, "field-id": 1001})
            if v > 1 else both(
                setp("partition-specs/1/fields/1", {"name": "tag", "transform": "identity", "source-id": 8, "field-id": 1001}),
                setp("partition-spec/1", {"name": "tag", "transform": "identity", "source-id": 8, "field-id": 1001})),
            "partition on a list element", "partition.source-in-list-or-map", "source columns are not inside a list",
            "Partitioning: 'The source columns ... cannot be contained in a map or list'")
        bad(stem, fn, "partition-source-in-map",
            setp("partition-specs/1/fields/1", {"name": "k", "transform": "identity", "source-id": 10, "field-id": 1001})
            if v > 1 else both(
                setp("partition-specs/1/fields/1", {"name": "k", "transform": "identity", "source-id": 10, "field-id": 1001}),
                setp("partition-spec/1", {"name": "k", "transform": "identity", "source-id": 10, "field-id": 1001})),
            "partition on a map key", "partition.source-in-list-or-map", "source columns are not inside a map",
            "Partitioning: 'The source columns ... cannot be contained in a map or list'")
        bad(stem, fn, "duplicate-partition-field-id",
            setp("partition-specs/1/fields/1/field-id", 1000) if v > 1 else
            both(setp("partition-specs/1/fields/1/field-id", 1000), setp("partition-spec/1/field-id", 1000)),
            "two partition fields with field-id 1000 in one spec", "partition.duplicate-field-id",
            "partition field ids are unique", "Partitioning: each partition field has a field id (Partition Evolution)")
        bad(stem, fn, "duplicate-spec-id", lambda d: d["partition-specs"].append(copy.deepcopy(d["partition-specs"][1])),
            "the same partition spec id given twice", "metadata.spec-ids-unique", "spec ids identify specs",
            "Table Metadata Fields: partition-specs; default-spec-id names one spec")
        bad(stem, fn, "duplicate-sort-order-id", lambda d: d["sort-orders"].append(copy.deepcopy(d["sort-orders"][1])),
            "the same sort order id given twice", "metadata.sort-order-ids-unique", "order ids identify sort orders",
            "Table Metadata Fields: sort-orders; default-sort-order-id names one order")
        bad(stem, fn, "sort-source-missing", setp("sort-orders/1/fields/0/source-id", 42),
            "default sort order sorts by source column 42, which does not exist", "metadata.sort-source",
            "a sort field names a column of the current schema",
            "Sorting: a sort field has 'A source column id from the table's schema'")
        bad(stem, fn, "default-sort-order-missing", setp("default-sort-order-id", 3), "default-sort-order-id 3 names no order",
            "metadata.default-sort-order-exists", "no order has id 3", "Table Metadata Fields: default-sort-order-id")
        bad(stem, fn, "unsorted-order-has-fields", setp("sort-orders/0/fields", [
            {"transform": "identity", "source-id": 1, "direction": "asc", "null-order": "nulls-first"}]),
            "sort order 0 with a field", "metadata.unsorted-order", "order id 0 is the unsorted order",
            "Sorting: 'Order id 0 is reserved for the unsorted order'")
        bad(stem, fn, "sort-direction", setp("sort-orders/1/fields/0/direction", "up"), "sort direction 'up'",
            "metadata.shape", "direction is asc or desc", "Appendix C Sort Orders: direction 'asc', 'desc'")
        bad(stem, fn, "current-snapshot-missing", both(setp("current-snapshot-id", 1234), setp("refs", DELETE)),
            "current-snapshot-id names no snapshot", "metadata.current-snapshot-exists",
            "the current snapshot is one of the valid snapshots", "Table Metadata Fields: current-snapshot-id; snapshots 'List of valid snapshots'")
        bad(stem, fn, "duplicate-snapshot-id", lambda d: d["snapshots"].append(copy.deepcopy(d["snapshots"][0])),
            "the same snapshot id given twice in snapshots",
            "metadata.snapshot-ids-unique", "snapshot ids are unique", "Snapshots: snapshot-id 'A unique long ID'")
        bad(stem, fn, "snapshot-id-string", setp("snapshots/0/snapshot-id", str(A)), "snapshot-id written as a string",
            "metadata.shape", "snapshot-id is a JSON long", "Appendix C: snapshot-id JSON long")
        bad(stem, fn, "operation-missing", setp("snapshots/0/summary/operation", DELETE), "snapshot summary without operation",
            "metadata.shape", "operation is a required summary field",
            "Snapshots: summary 'including operation as a required field'")
        bad(stem, fn, "operation-unknown", setp("snapshots/0/summary/operation", "upsert"), "snapshot operation 'upsert'",
            "metadata.snapshot-operation", "operation is append, replace, overwrite or delete",
            "Snapshots: 'Possible operation values are' append, replace, overwrite, delete")
        bad(stem, fn, "self-parent", setp("snapshots/0/parent-snapshot-id", A), "a snapshot that is its own parent",
            "metadata.snapshot-parent", "the parent is another snapshot",
            "Snapshots: parent-snapshot-id 'The snapshot ID of the snapshot's parent'")
        bad(stem, fn, "snapshot-log-unordered", setp("snapshot-log", [
            {"snapshot-id": A, "timestamp-ms": T + 1000}, {"snapshot-id": B, "timestamp-ms": T + 1000 - 3_600_000}]),
            "snapshot-log entry an hour before the previous one", "metadata.snapshot-log-order",
            "the log tracks changes in time order", "Table Metadata Fields: snapshot-log 'tracking current snapshot changes'")
        bad(stem, fn, "snapshot-log-latest-unknown", setp("snapshot-log/1/snapshot-id", 99),
            "latest snapshot-log entry names a snapshot not in snapshots", "metadata.snapshot-log-snapshot",
            "entries are pruned after expiring snapshots",
            "Table Metadata Fields: snapshot-log 'prune entries after expiring snapshots'")
        bad(stem, fn, "metadata-log-unordered", setp("metadata-log/1/timestamp-ms", T - 3_600_000),
            "metadata-log entry an hour before the previous one", "metadata.metadata-log-order",
            "the log tracks previous metadata files in time order",
            "Table Metadata Fields: metadata-log 'tracking previous metadata file changes'")
        bad(stem, fn, "ref-unknown-snapshot", setp("refs/first/snapshot-id", 99), "tag names a snapshot not in snapshots",
            "metadata.ref-snapshot", "a ref names a valid snapshot",
            "Snapshot References: snapshot-id 'The tagged snapshot or latest snapshot of a branch'")
        bad(stem, fn, "main-not-current", setp("refs/main/snapshot-id", A), "main branch differs from current-snapshot-id",
            "metadata.main-branch", "current-snapshot-id equals main",
            "Table Metadata Fields: current-snapshot-id 'must be the same as the current ID of the main branch in refs'")
        bad(stem, fn, "main-is-tag", setp("refs/main/type", "tag"), "main is a tag",
            "metadata.main-branch", "main is a branch",
            "Table Metadata Fields: refs 'Always a main branch reference'")
        bad(stem, fn, "tag-min-snapshots", setp("refs/first/min-snapshots-to-keep", 3), "tag with min-snapshots-to-keep",
            "metadata.ref-retention", "min-snapshots-to-keep is for branches only",
            "Snapshot References: min-snapshots-to-keep 'For branch type only'")
        bad(stem, fn, "ref-max-age-zero", setp("refs/first/max-ref-age-ms", 0), "max-ref-age-ms 0",
            "metadata.ref-retention", "retention values are positive",
            "Snapshot References: max-ref-age-ms 'a positive number'")
        bad(stem, fn, "ref-type-unknown", setp("refs/first/type", "label"), "ref type 'label'",
            "metadata.shape", "type is tag or branch", "Snapshot References: type 'tag or branch'")
        bad(stem, fn, "identifier-field-optional", setp("schemas/1/identifier-field-ids", [2]),
            "identifier field 2 is optional", "schema.identifier-field-optional", "identifier fields are required",
            "Identifier Field IDs: 'Identifier fields ... must be required'")
        bad(stem, fn, "properties-not-string", setp("properties/commit.retry.num-retries", 4),
            "property value 4 is a number, not a string", "metadata.shape", "properties is a string to string map",
            "Table Metadata Fields: properties 'String to string map'")
        bad(stem, fn, "unknown-type", setp("schemas/1/fields/6/type", "varchar"), "field of type 'varchar'",
            "types.unknown-type", "varchar is not an Iceberg type", "Appendix C Schemas: type names")
        if v >= 2:
            bad(stem, fn, "missing-table-uuid", setp("table-uuid", DELETE), "table-uuid missing",
                "metadata.shape", "table-uuid is required from v2", "Appendix E v2: 'table-uuid is now required'")
            bad(stem, fn, "missing-last-sequence-number", setp("last-sequence-number", DELETE), "last-sequence-number missing",
                "metadata.shape", "required from v2", "Appendix E v2: last-sequence-number 'was added and is required'")
            bad(stem, fn, "missing-sort-orders", both(setp("sort-orders", DELETE), setp("default-sort-order-id", DELETE)),
                "sort-orders and default-sort-order-id missing", "metadata.shape", "required from v2",
                "Appendix E v2: 'sort-orders is now required'")
            bad(stem, fn, "missing-manifest-list", setp("snapshots/0/manifest-list", DELETE), "snapshot without manifest-list",
                "metadata.shape", "manifest-list is required from v2", "Appendix E v2: 'manifest-list is now required'")
            # the newest snapshot: one older than every numbered snapshot is a snapshot kept from before
            # an upgrade from v1, whose sequence number reads as 0 (Appendix E) and which Iceberg Java
            # writes without the field
            bad(stem, fn, "missing-sequence-number", setp("snapshots/1/sequence-number", DELETE),
                "snapshot newer than a numbered one without sequence-number", "metadata.shape", "required from v2",
                "Appendix E v2: snapshot sequence-number 'was added and is required'")
            bad(stem, fn, "sequence-above-last", setp("last-sequence-number", 2), "a snapshot sequence number above last-sequence-number",
                "metadata.sequence-number", "last-sequence-number is the highest assigned",
                "Table Metadata Fields: last-sequence-number 'The table's highest assigned sequence number'")
            bad(stem, fn, "sequence-not-above-parent", setp("snapshots/1/sequence-number", 1),
                "child snapshot with the sequence number of its parent", "metadata.sequence-number",
                "sequence numbers increase along the lineage",
                "Snapshots: sequence-number 'A monotonically increasing long that tracks the order of changes'")
            bad(stem, fn, "table-uuid-not-uuid", setp("table-uuid", "not-a-uuid"), "table-uuid 'not-a-uuid'",
                "metadata.table-uuid", "table-uuid is a UUID", "Table Metadata Fields: table-uuid 'A UUID'")
            bad(stem, fn, "statistics-unknown-snapshot", setp("statistics/0/snapshot-id", 99),
                "statistics file for a snapshot not in snapshots", "metadata.statistics-snapshot",
                "statistics belong to a snapshot of the table",
                "Table Statistics: snapshot-id 'ID of the Iceberg table's snapshot the statistics file is associated with'")
            bad(stem, fn, "statistics-missing-footer-size", setp("statistics/0/file-footer-size-in-bytes", DELETE),
                "statistics file without file-footer-size-in-bytes", "metadata.shape", "a required field",
                "Table Statistics: file-footer-size-in-bytes required")
            bad(stem, fn, "partition-statistics-unknown-snapshot", setp("partition-statistics/0/snapshot-id", 99),
                "partition statistics file for a snapshot not in snapshots", "metadata.partition-statistics-snapshot",
                "partition statistics belong to a snapshot of the table",
                "Partition Statistics: snapshot-id 'ID of the Iceberg table's snapshot'")
            bad(stem, fn, "partition-statistics-twice", setp("partition-statistics", v2_rich()["partition-statistics"] * 2),
                "two partition statistics files for one snapshot", "metadata.partition-statistics-snapshot",
                "at most one per snapshot",
                "Partition Statistics: 'Each table snapshot may be associated with at most one partition statistics file'")
        bad(stem, fn, "name-mapping-without-names",
            setp("properties/schema.name-mapping.default", json.dumps([{"field-id": 1, "names": ["id"]}, {"field-id": 2}])),
            "name mapping with a field mapping that has no names", "metadata.name-mapping", "names is required",
            "Column Projection: '`names`: A required list of 0 or more names for a field.'; Appendix C Name Mapping "
            "Serialization: names is a JSON list of strings")
        bad(stem, fn, "name-mapping-field-id-string",
            setp("properties/schema.name-mapping.default",
                 json.dumps([{"field-id": "1", "names": ["id"]}, {"field-id": 4, "names": ["location"], "fields": [
                     {"field-id": 5, "names": ["lat"]}, {"field-id": 6, "names": ["lon"]}]}])),
            "name mapping whose field-id is a string", "metadata.name-mapping", "field-id is a JSON int",
            "Appendix C Name Mapping Serialization: field-id is a JSON int (example 1)")
        bad(stem, fn, "manifest-list-shared", lambda d: d["snapshots"][1].update(
                {"manifest-list": d["snapshots"][0]["manifest-list"]}),
            "two snapshots name one manifest list", "metadata.manifest-list-shared",
            "a manifest list belongs to one snapshot", "Terms: 'Manifest list -- A file that lists manifest files; "
            "one per snapshot.'")
        bad(stem, fn, "relative-manifest-list", setp("snapshots/1/manifest-list", "metadata/snap-2.avro"),
            "a manifest-list path relative to the table location", "metadata.relative-path",
            "paths are fully qualified before v4", "Paths in Metadata: 'Prior to v4, all path fields must contain "
            "fully-qualified paths.'")
        if v < 3:
            bad(stem, fn, "v3-type", setp("schemas/1/fields/6/type", "timestamp_ns"),
                f"timestamp_ns column in a v{v} table", "schema.type-version", "timestamp_ns is a v3 type",
                "Appendix E v3: 'Types ... timestamp_ns ... are added in v3'")
            bad(stem, fn, "v3-default", setp("schemas/1/fields/6/initial-default", "none"),
                f"initial-default in a v{v} table", "schema.default-version", "default values are a v3 feature",
                "Appendix E v3: 'Default values are added to struct fields in v3'")
        if v == 1:
            bad(stem, fn, "schema-inconsistent", setp("schema/fields/6/name", "kind"),
                "deprecated schema differs from the current schema", "metadata.v1-schema-consistent",
                "both describe the current schema",
                "Table Metadata Fields v1: schema 'The table's current schema' (deprecated: use schemas and current-schema-id)")
            bad(stem, fn, "partition-spec-inconsistent", setp("partition-spec/1/transform", "month"),
                "deprecated partition-spec differs from the default spec", "metadata.v1-partition-spec-consistent",
                "both describe the current spec",
                "Table Metadata Fields v1: partition-spec 'The table's current partition spec' (deprecated)")
            bad(stem, fn, "manifests-and-manifest-list", setp("snapshots/0/manifests", [f"{LOC}/metadata/m0.avro"]),
                "v1 snapshot with manifests and manifest-list", "metadata.snapshot-manifests",
                "manifests is omitted when manifest-list is present",
                "Snapshots v1: manifests 'Must be omitted if manifest-list is present'")
            bad(stem, fn, "missing-schema", setp("schema", DELETE), "v1 without the required schema field",
                "metadata.shape", "schema is required in v1", "Table Metadata Fields v1: schema required")
        if v == 3:
            bad(stem, fn, "missing-next-row-id", setp("next-row-id", DELETE), "next-row-id missing",
                "metadata.shape", "next-row-id is required in v3", "Table Metadata Fields v3: next-row-id required")
            bad(stem, fn, "next-row-id-low", setp("next-row-id", 21), "next-row-id 21 below the last snapshot's range end 22",
                "metadata.next-row-id", "next-row-id is higher than all assigned row ids",
                "Table Metadata Fields v3: next-row-id 'A long higher than all assigned row IDs'")
            bad(stem, fn, "added-rows-missing", setp("snapshots/2/added-rows", DELETE), "first-row-id without added-rows",
                "metadata.row-lineage", "both are required together",
                "Snapshots v3: first-row-id and added-rows required")
            bad(stem, fn, "row-ranges-overlap", setp("snapshots/2/first-row-id", 12), "snapshot row-id range overlaps an earlier one",
                "metadata.row-lineage", "each snapshot's first-row-id is the table's next-row-id at commit",
                "Snapshot Row IDs: 'A snapshot's first-row-id is assigned to the table's current next-row-id on each commit attempt'")
            bad(stem, fn, "first-row-id-missing-after-lineage",
                both(setp("snapshots/2/first-row-id", DELETE), setp("snapshots/2/added-rows", DELETE)),
                "snapshot without first-row-id committed after snapshots with it", "metadata.row-lineage",
                "snapshots created after the upgrade to v3 set first-row-id",
                "Row Lineage for Upgraded Tables: 'Snapshots that are created after upgrading to v3 must set the "
                "snapshot's first-row-id'; Snapshot Row IDs: 'The first-row-id field is required even if a commit "
                "does not assign any ID space.'")
            bad(stem, fn, "crs-inline-projjson", setp("schemas/1/fields/6/type", 'geometry({"type": "GeographicCRS"})'),
                "geometry column whose CRS is inlined PROJJSON", "metadata.crs", "PROJJSON is stored in a table property",
                "Primitive Types, CRS: 'CRS value must not contain inlined PROJJSON definitions'")
            bad(stem, fn, "crs-projjson-no-property", setp("schemas/1/fields/6/type", "geometry(projjson:crs-def)"),
                "geometry CRS projjson:crs-def with no such table property", "metadata.crs",
                "projjson:<name> references a table property",
                "Primitive Types, CRS: 'it must be stored in a table property and referenced from the CRS field using "
                "the projjson:<property-name> form'")
            bad(stem, fn, "key-id-unknown", both(setp("encryption-keys", [{"key-id": "k1", "encrypted-key-metadata": "aWNlYmVyZwo="}]),
                                                setp("snapshots/2/key-id", "k2")),
                "snapshot key-id names no encryption key", "metadata.encryption-keys", "key-id names a table key",
                "Appendix E v3: 'The encryption key used for a snapshot is specified by key-id'")
            bad(stem, fn, "encryption-key-no-metadata", setp("encryption-keys", [{"key-id": "k1"}]),
                "encryption key without encrypted-key-metadata", "metadata.shape", "a required field",
                "Encryption Keys: encrypted-key-metadata required")
            bad(stem, fn, "partition-field-no-source", setp("partition-specs/1/fields/1/source-id", DELETE),
                "partition field with neither source-id nor source-ids", "metadata.shape",
                "one of them is written", "Appendix C Partition Specs v3: source-id or source-ids")


def main() -> None:
    build()
    for stem, doc in CASES.items():
        (HERE / f"{stem}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    stale = [p for p in FILES.rglob("*") if p.is_file() and p not in WRITTEN]
    for p in stale:
        print(f"not written by this run (remove by hand if stale): {p.relative_to(HERE)}")
    print(f"{sum(len(c['tests']) for c in CASES.values())} tests in {len(CASES)} case files")


if __name__ == "__main__":
    main()
