"""Damage cases that write bugs Iceberg implementations shipped (``bugs/corpus``) into the metadata
file, manifest lists, partition statistics files and Puffin files of a valid table.

Each case writes the concrete shape one implementation wrote, named after its corpus record
(``name`` and ``bug`` are the record id); every other recorded value stays consistent (the
overlay re-stamps lengths, sizes and counts of what a case rewrites). A case whose bug needs a
feature the table lacks (a bucket partition, a v1 history, a partition statistics file) finds
no victim there.
"""

from __future__ import annotations

import copy
import datetime
import io
import json
import os
import random
from typing import Any, Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import damage, dv_targets, dvs, pick, schemas
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.rewrite import AvroFile
from iceberg_conformance.checker.units.deletes import position_delete_rows
from iceberg_conformance.reference.binary import from_bytes, to_bytes
from iceberg_conformance.reference.manifests import partition_type
from iceberg_conformance.reference.metadata import load_metadata, spec_by_id
from iceberg_conformance.reference.puffin import read_puffin
from iceberg_conformance.reference.types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, LongType,
    PrimitiveType, StringType, StructType, TimestampNanoType, parse_type,
)


# --- shared -------------------------------------------------------------------------------------

def _shipped(record: str, rule: str, area: str, description: str, also: tuple[str, ...] = ()) -> Callable[
        [Callable[[Overlay, random.Random], str | None]], Callable[[Overlay, random.Random], str | None]]:
    """Register a damage case that writes the bug of corpus record ``record`` (its name)."""
    return damage(rule, area, description, also, name=record, bug=record)


def _current_schema(o: Overlay) -> dict[str, Any] | None:
    cur = o.doc.get("current-schema-id", 0)
    return next((s for s in schemas(o) if s.get("schema-id", 0) == cur), None)


def _current_struct(o: Overlay) -> StructType | None:
    s = _current_schema(o)
    if s is None:
        return None
    t = parse_type(s)
    return t if isinstance(t, StructType) else None


def _default_spec(o: Overlay) -> dict[str, Any] | None:
    return spec_by_id(o.doc).get(int(o.doc.get("default-spec-id", 0)))


def _records_of(o: Overlay, manifest_path: str) -> list[tuple[str, dict[str, Any]]]:
    """(manifest-list path, record) of every list record naming ``manifest_path``: a writer
    that wrote a record carries it into its later lists as it is."""
    return [(lst, rec) for _s, lst, _i, rec in o.list_records() if rec["manifest_path"] == manifest_path]


def _summaries(o: Overlay) -> Iterator[tuple[str, int, dict[str, Any], Any]]:
    """(manifest path, partition field index, spec field JSON, partition field) of every
    partition summary of the manifests the lists name, once per manifest."""
    struct = _current_struct(o)
    if struct is None:
        return
    seen: set[str] = set()
    for _snap, _lst, _i, rec in o.list_records():
        path = str(rec["manifest_path"])
        if path in seen or not rec.get("partitions"):
            continue
        seen.add(path)
        spec = spec_by_id(o.doc).get(int(rec.get("partition_spec_id") or 0))
        if spec is None:
            continue
        try:
            ptype = partition_type(spec.get("fields") or [], struct)
        except Exception:
            continue
        for j, (sf, pf) in enumerate(zip(spec.get("fields") or [], ptype.fields)):
            yield path, j, sf, pf


def _set_summary(o: Overlay, manifest_path: str, j: int, **values: Any) -> None:
    for lst, rec in _records_of(o, manifest_path):
        rec["partitions"][j].update(values)
        o.touch_list(lst)


def _partition_values(o: Overlay, manifest_path: str, name: str) -> list[Any]:
    """The manifest's live entries' values of partition field ``name``, in entry order."""
    return [e["data_file"]["partition"].get(name) for e in o.manifest(manifest_path).records
            if e.get("status") in (0, 1) and isinstance(e["data_file"].get("partition"), dict)]


def _top_primitives(struct: StructType) -> list[Any]:
    return [f for f in struct.fields if isinstance(f.field_type, PrimitiveType)]


def _strip_ids(node: Any) -> None:
    """Remove every field-id, element-id, key-id and value-id from an Avro schema, in place."""
    if isinstance(node, dict):
        for key in ("field-id", "element-id", "key-id", "value-id"):
            node.pop(key, None)
        for v in node.values():
            _strip_ids(v)
    elif isinstance(node, list):
        for v in node:
            _strip_ids(v)


def _pick_list(o: Overlay, rng: random.Random) -> tuple[str, AvroFile] | None:
    snaps = [s for s in o.snapshots() if o.manifest_list(s) is not None]
    snap = pick(rng, snaps)
    if snap is None:
        return None
    lst = o.manifest_list(snap)
    assert lst is not None
    return str(snap["manifest-list"]), lst


# --- the metadata file ---------------------------------------------------------------------------



@_shipped("amoro-4375-v3-next-row-id-dropped",
          "metadata.shape", "metadata", "Amoro (through Iceberg 1.8.1): v3 metadata rewritten without next-row-id")
def _amoro_next_row_id(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3 or "next-row-id" not in o.doc or not any("first-row-id" in s for s in o.snapshots()):
        return None
    del o.doc["next-row-id"]
    return "next-row-id removed from v3 metadata whose snapshots keep first-row-id and added-rows"


@_shipped("azure-data-factory-72091-v1-metadata-v2-shape",
          "metadata.shape", "metadata", "Azure Data Factory: format-version 1 on metadata laid out as v2",
          also=("manifests.header-format-version", "manifests.field-missing"))  # v2 manifests under a v1 table
def _adf_v1_v2_shape(o: Overlay, rng: random.Random) -> str | None:
    if o.version != 2 or "schema" in o.doc or "partition-spec" in o.doc \
            or any(rec.get("content") for _s, _l, _i, rec in o.list_records()):
        return None  # Data Factory writes appends: no delete files
    o.doc["format-version"] = 1
    return "format-version set to 1; schemas/partition-specs kept, no schema or partition-spec"


@_shipped("clickhouse-109801-gzip-metadata-file-suffix",
          "metadata.gzip-suffix", "metadata",
          "ClickHouse: GZIP metadata named vN.gzip.metadata.json")
def _gzip_suffix(o: Overlay, rng: random.Random) -> str | None:
    props = o.doc.setdefault("properties", {})
    if not isinstance(props, dict):
        return None
    props["write.metadata.compression-codec"] = "gzip"
    o.metadata_name = "v1.gzip.metadata.json"
    o.compress = True
    return "metadata written GZIP-compressed as v1.gzip.metadata.json"


@_shipped("clickhouse-118812-metadata-log-lists-itself",
          "metadata.metadata-log-self", "metadata", "ClickHouse: the metadata file lists itself in metadata-log")
def _metadata_log_self(o: Overlay, rng: random.Random) -> str | None:
    log = o.doc.setdefault("metadata-log", [])
    if not isinstance(log, list) or not isinstance(o.doc.get("last-updated-ms"), int):
        return None

    def add_self(path: str) -> None:
        log.append({"timestamp-ms": o.doc["last-updated-ms"], "metadata-file": path})
    o.before_write.append(add_self)
    return "metadata-log ends with an entry for the metadata file itself"


@_shipped("clickhouse-118812-root-snapshot-parent-minus-one",
          "metadata.snapshot-parent-minus-one", "metadata", "ClickHouse: parent-snapshot-id -1 on a snapshot with "
          "no parent")
def _parent_minus_one(o: Overlay, rng: random.Random) -> str | None:
    if any(s.get("snapshot-id") == -1 for s in o.snapshots()):
        return None
    snap = pick(rng, [s for s in o.snapshots() if "parent-snapshot-id" not in s])
    if snap is None:
        return None
    snap["parent-snapshot-id"] = -1
    return f"snapshot {snap['snapshot-id']} (no parent) given parent-snapshot-id -1"


@_shipped("clickhouse-altinity-1898-missing-current-snapshot-id",
          "metadata.main-branch", "metadata", "Altinity ClickHouse: refs main names a snapshot, current-snapshot-id "
          "is missing")
def _current_snapshot_missing(o: Overlay, rng: random.Random) -> str | None:
    main = (o.doc.get("refs") or {}).get("main")
    if not isinstance(main, dict) or o.doc.get("current-snapshot-id") in (None, -1):
        return None
    del o.doc["current-snapshot-id"]
    return f"current-snapshot-id removed; refs main stays at snapshot {main['snapshot-id']}"


@_shipped("delta-uniform-2676-partition-source-field-id",
          "partition.source-missing", "metadata", "Delta UniForm: a partition field's source-id is an id of a "
          "discarded schema")
def _uniform_source_id(o: Overlay, rng: random.Random) -> str | None:
    spec = _default_spec(o)
    fields = [f for f in (spec or {}).get("fields") or [] if "source-id" in f]
    pf = pick(rng, fields)
    if pf is None:
        return None
    ids = {fid for s in schemas(o) for fid in _field_ids(s)}
    pf["source-id"] = max(ids | {int(o.doc.get("last-column-id", 0))}) + 1
    if o.version == 1 and isinstance(o.doc.get("partition-spec"), list):
        o.doc["partition-spec"] = copy.deepcopy(spec["fields"])  # type: ignore[index]
    return f"partition field {pf['name']!r} of the default spec given source-id {pf['source-id']}, in no schema"


def _field_ids(schema: dict[str, Any]) -> set[int]:
    out: set[int] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("id", "element-id", "key-id", "value-id"):
                if isinstance(node.get(key), int):
                    out.add(node[key])
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)
    visit(schema.get("fields"))
    return out


def _sources(o: Overlay) -> set[int]:
    """Field ids a partition spec, sort order or identifier field list names."""
    out: set[int] = set()
    for s in o.doc.get("partition-specs") or [{"fields": o.doc.get("partition-spec") or []}]:
        for f in s.get("fields") or []:
            out.update([f["source-id"]] if "source-id" in f else f.get("source-ids") or [])
    for order in o.doc.get("sort-orders") or []:
        for f in order.get("fields") or []:
            out.update([f["source-id"]] if "source-id" in f else f.get("source-ids") or [])
    for s in schemas(o):
        out.update(s.get("identifier-field-ids") or [])
    return out


def _set_current_schema(doc: dict[str, Any], schema: dict[str, Any]) -> None:
    """Make ``schema`` (one of ``schemas``) current; v1 metadata keeps its deprecated ``schema``
    equal to it, as writers do."""
    doc["current-schema-id"] = schema["schema-id"]
    if "schema" in doc:
        doc["schema"] = copy.deepcopy(schema)


def _new_schema(o: Overlay, fields: list[dict[str, Any]]) -> dict[str, Any]:
    cur = _current_schema(o)
    assert cur is not None
    new = copy.deepcopy(cur)
    new["schema-id"] = max(int(s.get("schema-id", 0)) for s in schemas(o)) + 1
    new["fields"] = fields
    return new


@_shipped("delta-uniform-4283-replace-field-id-reuse",
          "evolution.field-id-reused", "metadata", "Delta UniForm: a replace gives an old field id to a new column of "
          "another type", also=("manifests.bound-decode",))  # the live files' bounds of that id, read as the new type
def _uniform_replace(o: Overlay, rng: random.Random) -> str | None:
    cur, struct = _current_schema(o), _current_struct(o)
    if cur is None or struct is None or "schemas" not in o.doc:
        return None
    used = _sources(o)
    victim = pick(rng, [f for f in _top_primitives(struct) if f.field_id not in used])
    if victim is None:
        return None
    new_type = "int" if isinstance(victim.field_type, StringType) else "string"
    names = {f.name for f in struct.fields}
    name = next(n for n in ("c", "c_new", "c_replaced") if n not in names)
    fields = [dict(f) if f["id"] != victim.field_id else
              {"id": victim.field_id, "name": name, "required": False, "type": new_type} for f in cur["fields"]]
    new = _new_schema(o, fields)
    o.doc["schemas"].append(new)
    _set_current_schema(o.doc, new)
    return (f"schema {new['schema-id']} (current) gives field id {victim.field_id} ({victim.name}: "
            f"{victim.field_type}) to a new column {name}: {new_type}; last-column-id kept")


@_shipped("iceberg-go-1013-v3-upgrade-next-row-id-missing",
          "metadata.shape", "metadata", "iceberg-go: a v2 table upgraded to v3 without next-row-id")
def _upgrade_without_next_row_id(o: Overlay, rng: random.Random) -> str | None:
    if o.version != 2:
        return None
    o.doc["format-version"] = 3
    return "format-version set to 3 (the upgrade), snapshots unchanged, next-row-id not written"


def _identity_name(o: Overlay, source_id: int) -> str | None:
    struct = _current_struct(o)
    f = next((f for f in struct.fields if f.field_id == source_id), None) if struct else None
    return f.name if f is not None else None


def _add_spec(o: Overlay, fields: list[dict[str, Any]], default: bool) -> dict[str, Any]:
    spec = {"spec-id": max(int(s["spec-id"]) for s in o.doc["partition-specs"]) + 1, "fields": fields}
    o.doc["partition-specs"].append(spec)
    top = max([int(f["field-id"]) for s in o.doc["partition-specs"] for f in s.get("fields") or []]
              + [int(o.doc.get("last-partition-id", 999))])
    o.doc["last-partition-id"] = top
    if default:
        o.doc["default-spec-id"] = spec["spec-id"]
        if o.version == 1:
            o.doc["partition-spec"] = copy.deepcopy(fields)
    return spec


@_shipped("iceberg-go-1639-update-spec-no-reuse-unnamed",
          "evolution.partition-field-id-not-reused", "metadata", "iceberg-go: an identity field removed and re-added "
          "without a name gets a new partition field id",
          # where the removed field was the spec's only one, the re-added spec has the fields of the first
          also=("evolution.partition-equivalent-spec",))
def _go_spec_no_reuse(o: Overlay, rng: random.Random) -> str | None:
    spec = _default_spec(o)
    if o.version < 2 or spec is None or "partition-specs" not in o.doc:
        return None
    pf = pick(rng, [f for f in spec.get("fields") or [] if f.get("transform") == "identity" and "source-id" in f])
    name = _identity_name(o, pf["source-id"]) if pf is not None else None
    if pf is None or name is None:
        return None
    removed = [copy.deepcopy(f) for f in spec["fields"] if f is not pf]
    first = _add_spec(o, removed, default=True)
    readded = {"name": name, "transform": "identity", "source-id": pf["source-id"],
               "field-id": int(o.doc["last-partition-id"]) + 1}
    second = _add_spec(o, copy.deepcopy(removed) + [readded], default=True)
    return (f"spec {first['spec-id']} removes {pf['name']!r} ({pf['field-id']}); spec {second['spec-id']} (default) "
            f"adds identity({name}) again as field {readded['field-id']} named {name!r}")


@_shipped("iceberg-go-942-field-id-reuse-after-drop", "evolution.field-id-reused", "metadata",
          "iceberg-go: a column added after a drop gets the dropped column's id")
def _go_field_id_reuse(o: Overlay, rng: random.Random) -> str | None:
    """Three commits: add a column (id last-column-id + 1), drop it (the schema equals the old
    one, whose id is reused), add another column, which gets the same id. The first two are
    written as metadata files of their own (the metadata-log names them)."""
    cur = _current_schema(o)
    stamp = o.doc.get("last-updated-ms")
    if cur is None or "schemas" not in o.doc or not isinstance(stamp, int):
        return None
    struct = _current_struct(o)
    names = {f.name for f in struct.fields} if struct else set()
    if {"added_then_dropped", "added_after_drop"} & names:
        return None
    fid = int(o.doc["last-column-id"]) + 1
    added = _new_schema(o, copy.deepcopy(cur["fields"]) + [
        {"id": fid, "name": "added_then_dropped", "required": False, "type": "string"}])
    readded = copy.deepcopy(added)
    readded["schema-id"] = added["schema-id"] + 1
    readded["fields"][-1]["name"] = "added_after_drop"
    base = copy.deepcopy(o.doc)
    log = list(base.get("metadata-log") or []) + [{"timestamp-ms": stamp, "metadata-file": o.source}]
    history: list[dict[str, Any]] = []
    for step, current in ((1, added), (2, cur)):
        doc = copy.deepcopy(base)
        doc["schemas"].append(copy.deepcopy(added))
        _set_current_schema(doc, current)
        doc["last-column-id"] = fid
        doc["last-updated-ms"] = stamp + step
        doc["metadata-log"] = copy.deepcopy(log)
        history.append(doc)
    o.doc["schemas"] += [added, readded]
    _set_current_schema(o.doc, readded)
    o.doc["last-column-id"] = fid
    o.doc["last-updated-ms"] = stamp + 3

    def write_history(path: str) -> None:
        entries = copy.deepcopy(log)
        for step, doc in enumerate(history, 1):
            doc["metadata-log"] = copy.deepcopy(entries)
            hist = os.path.join(os.path.dirname(path), f"h{step}.metadata.json")
            with open(hist, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2)
            entries.append({"timestamp-ms": doc["last-updated-ms"], "metadata-file": hist})
        o.doc["metadata-log"] = entries
    o.before_write.append(write_history)
    return (f"field id {fid}: added as added_then_dropped (schema {added['schema-id']}), dropped (schema "
            f"{cur.get('schema-id', 0)} current again), given to added_after_drop (schema {readded['schema-id']})")


@_shipped("iceberg-java-2083-v2-partition-field-id-reuse",
          "evolution.partition-field-id-reused", "metadata", "Iceberg Java 0.10: a field added after a removal gets "
          "the removed field's id")
def _java_spec_reuse(o: Overlay, rng: random.Random) -> str | None:
    spec, struct = _default_spec(o), _current_struct(o)
    if o.version < 2 or spec is None or struct is None or not spec.get("fields"):
        return None
    last = max(spec["fields"], key=lambda f: int(f["field-id"]))
    used = {f.get("source-id") for f in spec["fields"]}
    col = pick(rng, [f for f in _top_primitives(struct) if f.field_id not in used])
    if col is None:
        return None
    fields = [copy.deepcopy(f) for f in spec["fields"] if f is not last]
    fields.append({"name": col.name, "transform": "identity", "source-id": col.field_id,
                   "field-id": last["field-id"]})
    new = _add_spec(o, fields, default=True)
    return (f"spec {new['spec-id']} (default) drops {last['transform']}({last['source-id']}) and adds "
            f"identity({col.name}) with its field id {last['field-id']}")


@_shipped("iceberg-java-5568-snapshot-log-cleared-by-transaction",
          "metadata.snapshot-log-truncated", "metadata", "Iceberg Java < 1.1: a transaction's commit drops the "
          "snapshot-log entries before it")
def _snapshot_log_cleared(o: Overlay, rng: random.Random) -> str | None:
    log = o.doc.get("snapshot-log") or []
    previous = _previous_metadata(o)
    live = {s.get("snapshot-id") for s in o.snapshots()}
    if len(log) < 2 or previous is None or not any(
            isinstance(e, dict) and e.get("snapshot-id") in live for e in previous.get("snapshot-log") or []):
        return None
    o.doc["snapshot-log"] = log[-1:]
    return f"snapshot-log cut to its last entry; {len(log) - 1} entries of snapshots still in snapshots removed"


def _previous_metadata(o: Overlay) -> dict[str, Any] | None:
    log = o.doc.get("metadata-log") or []
    entry = log[-1] if log else None
    path = local_path(str(entry.get("metadata-file"))) if isinstance(entry, dict) else None
    if path is None or not os.path.isfile(path):
        return None
    doc, _ = load_metadata(path)
    return doc if isinstance(doc, dict) else None


@_shipped("iceberg-java-known-v1-table-uuid-null-written",
          "metadata.shape", "metadata",
          "Iceberg Java: v1 metadata written with table-uuid null")
def _table_uuid_null(o: Overlay, rng: random.Random) -> str | None:
    if o.version != 1:
        return None
    o.doc["table-uuid"] = None
    return "table-uuid written as null"


@_shipped("iceberg-rust-2007-add-spec-field-ids-not-reused",
          "evolution.partition-field-id-not-reused", "metadata", "iceberg-rust: an added spec repeats existing fields "
          "under fresh ids",
          # where no column takes the added bucket field, the added spec has the default spec's fields
          also=("evolution.partition-equivalent-spec",))
def _rust_add_spec(o: Overlay, rng: random.Random) -> str | None:
    spec, struct = _default_spec(o), _current_struct(o)
    if o.version < 2 or spec is None or struct is None:
        return None
    kept = [f for f in spec.get("fields") or [] if f.get("transform") != "void" and "source-id" in f]
    if not kept:
        return None
    next_id = int(o.doc.get("last-partition-id", 999)) + 1
    fields = []
    for f in kept:
        fields.append(dict(copy.deepcopy(f), **{"field-id": next_id}))
        next_id += 1
    used = {f["source-id"] for f in kept}
    col = pick(rng, [f for f in _top_primitives(struct) if f.field_id not in used
                     and not isinstance(f.field_type, (BooleanType, FloatType, DoubleType))])
    if col is not None:
        fields.append({"name": f"{col.name}_bucket", "transform": "bucket[4]", "source-id": col.field_id,
                       "field-id": next_id})
    new = _add_spec(o, fields, default=False)
    return (f"spec {new['spec-id']} added: the fields of spec {spec['spec-id']} under new ids "
            f"{[f['field-id'] for f in fields]}")


@_shipped("iceberg-rust-2390-summary-totals-not-accumulated",
          "snapshot.summary-totals", "metadata", "iceberg-rust: a fast append's totals are its own added counts")
def _summary_totals(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for s in o.snapshots():
        summary = s.get("summary")
        if not isinstance(summary, dict) or summary.get("operation") != "append" or "parent-snapshot-id" not in s:
            continue
        if summary.get("total-records") not in (None, summary.get("added-records")) \
                and summary.get("added-records") is not None:
            cands.append(s)
    snap = pick(rng, cands)
    if snap is None:
        return None
    summary = snap["summary"]
    for total, added in (("total-records", "added-records"), ("total-data-files", "added-data-files"),
                         ("total-files-size", "added-files-size")):
        if total in summary and added in summary:
            summary[total] = summary[added]
    return f"snapshot {snap['snapshot-id']}: total-records, total-data-files, total-files-size set to its added values"


@_shipped("impala-12605-set-partition-spec-field-ids",
          "evolution.partition-v1-field-dropped", "metadata", "Impala: SET PARTITION SPEC on a v1 table drops a "
          "field instead of voiding it")
def _impala_v1_drop(o: Overlay, rng: random.Random) -> str | None:
    spec = _default_spec(o)
    if o.version != 1 or spec is None or not spec.get("fields") or "partition-specs" not in o.doc:
        return None
    fields = [copy.deepcopy(f) for f in spec["fields"][:-1]]
    new = _add_spec(o, fields, default=True)
    return f"spec {new['spec-id']} (default) drops {spec['fields'][-1]['name']!r} instead of replacing it by void"


@_shipped("pyiceberg-547-v1-deprecated-schema-not-updated",
          "metadata.v1-schema-consistent", "metadata", "PyIceberg: a v1 schema change leaves the deprecated schema "
          "at the old one")
def _v1_schema_stale(o: Overlay, rng: random.Random) -> str | None:
    cur = _current_schema(o)
    if o.version != 1 or cur is None or "schemas" not in o.doc or "schema" not in o.doc:
        return None
    fid = int(o.doc["last-column-id"]) + 1
    new = _new_schema(o, copy.deepcopy(cur["fields"]) + [
        {"id": fid, "name": f"added_{fid}", "required": False, "type": "string"}])
    o.doc["schemas"].append(new)
    o.doc["current-schema-id"] = new["schema-id"]
    o.doc["last-column-id"] = fid
    return f"column added_{fid} added in schema {new['schema-id']} (current); the deprecated schema kept as it was"


@_shipped("snowflake-duckdb412-snapshot-summary-missing-operation",
          "metadata.shape", "metadata", "Snowflake: a snapshot summary without operation")
def _summary_without_operation(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    snap = pick(rng, [s for s in o.snapshots() if isinstance(s.get("summary"), dict) and "operation" in s["summary"]])
    if snap is None:
        return None
    del snap["summary"]["operation"]
    return f"snapshot {snap['snapshot-id']}: summary without operation"


# --- manifest lists ------------------------------------------------------------------------------

#: a manifest list that is not read leaves the next snapshot's first_row_ids without the parent's
_UNREAD_LIST = ("snapshot.manifest-first-row-id-kept",)


@_shipped("clickhouse-111763-manifest-avro-field-ids-missing",
          "manifests.field-id-missing", "manifest-list", "ClickHouse: a manifest list's Avro schema without field ids",
          also=_UNREAD_LIST)
def _clickhouse_no_field_ids(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list(o, rng)
    if c is None:
        return None
    path, lst = c
    _strip_ids(lst.schema)
    o.touch_list(path)
    return f"{os.path.basename(path)}: Avro schema written without any field-id"


_NULL_BOUND_TRANSFORMS = ("bucket[", "year", "month", "day", "hour")


@_shipped("clickhouse-118905-partition-summary-null-bounds",
          "manifests.partition-summary", "manifest-list", "ClickHouse: bucket and temporal partition summaries with "
          "null bounds and contains_null false")
def _clickhouse_null_bounds(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for path, j, sf, pf in _summaries(o):
        rec = _records_of(o, path)[0][1]
        summary = rec["partitions"][j]
        if str(sf.get("transform")).startswith(_NULL_BOUND_TRANSFORMS) and summary.get("upper_bound") is not None \
                and not summary.get("contains_null"):
            cands.append((path, j, sf))
    c = pick(rng, cands)
    if c is None:
        return None
    path, j, sf = c
    _set_summary(o, path, j, contains_null=False, contains_nan=None, lower_bound=None, upper_bound=None)
    return f"{os.path.basename(path)}: summary of {sf['name']} ({sf['transform']}) written with null bounds"


@_shipped("clickhouse-altinity-2182-manifest-list-key-metadata-schema",
          "avro.list-unreadable", "manifest-list", "Altinity ClickHouse: records encoded with key_metadata under a header "
          "schema without it", also=_UNREAD_LIST)
def _key_metadata_schema(o: Overlay, rng: random.Random) -> str | None:
    """A list of several records (EXPORT PARTITION carries the existing ones over): the second
    record is then decoded from the bytes of the first one's key_metadata."""
    if o.version < 2:
        return None
    snap = pick(rng, [s for s in o.snapshots() if len(getattr(o.manifest_list(s), "records", [])) >= 2])
    if snap is None:
        return None
    path, lst = str(snap["manifest-list"]), o.manifest_list(snap)
    assert lst is not None
    header = copy.deepcopy(lst.schema)
    header["fields"] = [f for f in header["fields"] if f.get("field-id") != 519]
    if not any(f.get("field-id") == 519 for f in lst.schema["fields"]):
        lst.schema["fields"].append({"name": "key_metadata", "type": ["null", "bytes"], "default": None,
                                     "field-id": 519})
    for rec in lst.records:
        rec["key_metadata"] = None
    lst.header_schema = header
    o.touch_list(path)
    return f"{os.path.basename(path)}: records carry key_metadata, the header schema has no such field"


def _cut(value: bytes, limit: int) -> bytes:
    """``value`` cut to at most ``limit`` bytes, without a partial UTF-8 character at the end."""
    if len(value) <= limit:
        return value
    out = value[:limit]
    i = len(out) - 1
    while i > 0 and (out[i] & 0xC0) == 0x80:
        i -= 1
    lead = out[i]
    need = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    return out if len(out) - i >= need else out[:i]


@_shipped("duckdb-iceberg-1047-partition-summary-upper-bound-truncated",
          "manifests.partition-summary", "manifest-list", "DuckDB: a string partition summary cut to 16 bytes, the "
          "upper bound not incremented")
def _duckdb_upper_cut(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for path, j, _sf, pf in _summaries(o):
        summary = _records_of(o, path)[0][1]["partitions"][j]
        upper = summary.get("upper_bound")
        if isinstance(pf.field_type, StringType) and isinstance(upper, bytes) and len(_cut(upper, 16)) < len(upper):
            cands.append((path, j, pf, summary))
    c = pick(rng, cands)
    if c is None:
        return None
    path, j, pf, summary = c
    lower = summary.get("lower_bound")
    _set_summary(o, path, j, lower_bound=_cut(lower, 16) if isinstance(lower, bytes) else lower,
                 upper_bound=_cut(summary["upper_bound"], 16))
    return f"{os.path.basename(path)}: summary of {pf.name} cut to 16 bytes ({_cut(summary['upper_bound'], 16)!r})"


@_shipped("iceberg-cpp-306-manifest-root-record-name",
          "manifests.record-name", "manifest-list", "iceberg-cpp: the manifest list's root record named iceberg_schema")
def _cpp_root_name(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list(o, rng)
    if c is None:
        return None
    path, lst = c
    lst.schema["name"] = "iceberg_schema"
    o.touch_list(path)
    return f"{os.path.basename(path)}: root record named iceberg_schema"


def _min_sequence_zero(o: Overlay, rng: random.Random) -> str | None:
    """A manifest the snapshot wrote (a merge or rewrite) that holds live entries of data sequence
    number 0 (files kept from v1) gets the snapshot's sequence number as its
    min_sequence_number, in every list that names it."""
    if o.version < 2:
        return None
    cands = []
    for snap, _lst, _i, rec in o.list_records():
        seq = rec.get("sequence_number")
        if rec.get("added_snapshot_id") != snap.get("snapshot-id") or rec.get("min_sequence_number") != 0 \
                or not isinstance(seq, int) or seq <= 0:
            continue
        live = [e for e in o.manifest(str(rec["manifest_path"])).records if e.get("status") in (0, 1)]
        if any(e.get("sequence_number") == 0 for e in live):
            cands.append((str(rec["manifest_path"]), seq))
    c = pick(rng, cands)
    if c is None:
        return None
    path, seq = c
    for lst, rec in _records_of(o, path):
        rec["min_sequence_number"] = seq
        o.touch_list(lst)
    return f"{os.path.basename(path)}: min_sequence_number {seq} (its live v1 entries have data sequence number 0)"


_shipped("iceberg-go-1147-min-sequence-number-zero",
         "manifests.list-min-sequence-number", "manifest-list", "iceberg-go: a rewritten manifest's minimum data "
         "sequence number 0 written as the commit's")(_min_sequence_zero)
_shipped("pyiceberg-3660-min-sequence-number-zero",
         "manifests.list-min-sequence-number", "manifest-list", "PyIceberg: a merged manifest's minimum data "
         "sequence number 0 written as the commit's")(_min_sequence_zero)


@_shipped("iceberg-go-1853-manifest-list-content-hardcoded",
          "manifests.list-content", "manifest-list", "iceberg-go: a delete manifest listed with content 0 (data)",
          also=("snapshot.operation-files", "snapshot.manifest-first-row-id"))  # a data manifest, as listed
def _go_content_data(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    paths = sorted({str(rec["manifest_path"]) for _s, _l, _i, rec in o.list_records() if rec.get("content") == 1})
    path = pick(rng, paths)
    if path is None:
        return None
    for lst, rec in _records_of(o, path):
        rec["content"] = 0
        o.touch_list(lst)
    return f"{os.path.basename(path)} (a delete manifest) listed with content 0"


@_shipped("iceberg-java-15127-binary-partition-summary-bounds",
          "manifests.partition-summary", "manifest-list", "Iceberg Java: binary partition summary bounds both the "
          "last value read")
def _java_binary_bounds(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for path, j, _sf, pf in _summaries(o):
        if not isinstance(pf.field_type, BinaryType):
            continue
        values = [v for v in _partition_values(o, path, pf.name) if v is not None]
        if len(set(values)) >= 2:
            cands.append((path, j, pf, bytes(values[-1])))
    c = pick(rng, cands)
    if c is None:
        return None
    path, j, pf, last = c
    _set_summary(o, path, j, lower_bound=last, upper_bound=last)
    return f"{os.path.basename(path)}: summary of {pf.name} bounds both {last!r}, the last entry's value"


_OLD_COUNT_NAMES = {504: "added_data_files_count", 505: "existing_data_files_count", 506: "deleted_data_files_count"}


@_shipped("iceberg-rust-353-manifest-list-avro-no-field-ids",
          "manifests.field-id-missing", "manifest-list", "iceberg-rust 0.2: a manifest list without field ids, counts "
          "under their old names", also=_UNREAD_LIST)
def _rust_no_field_ids(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list(o, rng)
    if c is None:
        return None
    path, lst = c
    renamed = {}
    for f in lst.schema["fields"]:
        old = _OLD_COUNT_NAMES.get(f.get("field-id"))
        if old is not None and f["name"] != old:
            renamed[f["name"]] = old
            f["name"] = old
    for rec in lst.records:
        for new, old in renamed.items():
            rec[old] = rec.pop(new, None)
    _strip_ids(lst.schema)
    o.touch_list(path)
    return f"{os.path.basename(path)}: no field ids; {', '.join(renamed.values()) or 'counts'} under their old names"


@_shipped("iceberg-rust-794-partition-summary-source-columns",
          "manifests.partition-summary", "manifest-list", "iceberg-rust 0.3: transform partition summaries computed "
          "from the source column's values")
def _rust_source_bounds(o: Overlay, rng: random.Random) -> str | None:
    struct = _current_struct(o)
    if struct is None:
        return None
    by_id = {f.field_id: f.field_type for f in struct.fields}
    cands = []
    for path, j, sf, pf in _summaries(o):
        source = by_id.get(sf.get("source-id"))  # type: ignore[arg-type]
        if sf.get("transform") in ("identity", "void") or source is None or not _same_width(source, pf.field_type):
            continue
        bounds = _source_range(o, path, int(sf["source-id"]), source)
        if bounds is None:
            continue
        values = [v for v in _partition_values(o, path, pf.name) if v is not None]
        lo, hi = (from_bytes(pf.field_type, b) for b in bounds)
        if values and (_key(lo) > min(map(_key, values)) or _key(hi) < max(map(_key, values))):
            cands.append((path, j, sf, bounds))
    c = pick(rng, cands)
    if c is None:
        return None
    path, j, sf, (lo_b, hi_b) = c
    _set_summary(o, path, j, lower_bound=lo_b, upper_bound=hi_b)
    return f"{os.path.basename(path)}: summary of {sf['name']} ({sf['transform']}) set to the source column's range"


def _same_width(source: IcebergType, result: IcebergType) -> bool:
    """Whether a value of ``source`` serializes as a value of ``result`` would (the bytes of one
    read as the other): the shape iceberg-rust wrote without a decoding error."""
    ints = (IntegerType, DateType)
    if isinstance(source, ints) and isinstance(result, ints):
        return True
    return type(source) is type(result) and isinstance(source, (StringType, BinaryType, DecimalType, LongType))


def _key(v: Any) -> Any:
    """A comparable form of a partition value or bound (a date as days from the epoch, as a
    writer's Avro date logical type decodes an int partition value)."""
    if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
        return (v - datetime.date(1970, 1, 1)).days
    return v.encode("utf-8") if isinstance(v, str) else v


def _source_range(o: Overlay, path: str, source_id: int, source: IcebergType) -> tuple[bytes, bytes] | None:
    lows, highs = [], []
    for e in o.manifest(path).records:
        df = e["data_file"]
        if e.get("status") not in (0, 1):
            continue
        lo = {int(x["key"]): x["value"] for x in df.get("lower_bounds") or []}.get(source_id)
        hi = {int(x["key"]): x["value"] for x in df.get("upper_bounds") or []}.get(source_id)
        if lo is None or hi is None:
            continue  # no non-null values in the file
        lows.append(from_bytes(source, bytes(lo)))
        highs.append(from_bytes(source, bytes(hi)))
    if not lows:
        return None
    return to_bytes(source, min(lows, key=_key)), to_bytes(source, max(highs, key=_key))


@_shipped("icelake-17976-manifest-list-old-count-names",
          "manifests.list-counts", "manifest-list", "icelake: manifests carried from another writer's list re-listed "
          "with file counts 0")
def _icelake_zero_counts(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for snap, lst, i, rec in o.list_records():
        if rec.get("added_snapshot_id") != snap.get("snapshot-id") and any(
                int(rec.get(k) or 0) for k in ("added_files_count", "existing_files_count", "deleted_files_count")):
            cands.append((snap, lst, i, rec))
    c = pick(rng, cands)
    if c is None:
        return None
    snap, lst, i, rec = c
    for k in ("added_files_count", "existing_files_count", "deleted_files_count"):
        rec[k] = 0
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}] (carried over) listed with file counts 0"


@_shipped("spark-16905-rewrite-table-path-manifest-length",
          "files.manifest-length", "manifest-list", "rewrite_table_path: a manifest rewritten with a longer path "
          "prefix keeps its old manifest_length")
def _rewrite_table_path_length(o: Overlay, rng: random.Random) -> str | None:
    """The files of one manifest are named by a longer spelling of their own path (``file://``
    prefixed), as a rewrite to a longer location prefix names them; the list keeps the length the
    manifest had before. Only a manifest whose files no other manifest and no delete names."""
    count: dict[str, int] = {}
    for p in o.manifest_paths():
        for e in o.manifest(p).records:
            count[str(e["data_file"]["file_path"])] = count.get(str(e["data_file"]["file_path"]), 0) + 1
    referenced = dv_targets(o)
    for _p, _i, e in o.entries():
        df = e["data_file"]
        if int(df.get("content") or 0) == 1 and df.get("content_offset") is None:
            rows = position_delete_rows(local_path(str(df["file_path"])) or str(df["file_path"]))
            referenced |= set(rows or {})
    cands = []
    for p in o.manifest_paths():
        paths = [str(e["data_file"]["file_path"]) for e in o.manifest(p).records]
        if paths and all(x.startswith("/") and count[x] == 1 and x not in referenced for x in paths):
            cands.append(p)
    path = pick(rng, cands)
    if path is None:
        return None
    for e in o.manifest(path).records:
        e["data_file"]["file_path"] = "file://" + e["data_file"]["file_path"]
    o.touch_manifest(path)
    o.keep_length.add(path)
    return f"{os.path.basename(path)} rewritten with file:// paths; manifest_length kept at its old size"


# --- partition statistics and Puffin files --------------------------------------------------------



@_shipped("iceberg-java-13329-partition-stats-field-ids-shifted",
          "files.partition-statistics-fields", "metadata", "Iceberg Java 1.9: partition statistics columns with field "
          "ids 0..11 instead of 1..12", also=("files.partition-statistics-total-records",
                                            "files.partition-statistics-position-deletes"))  # read by shifted ids
def _java_stats_ids(o: Overlay, rng: random.Random) -> str | None:
    st = pick(rng, [s for s in o.doc.get("partition-statistics") or []
                    if str(s.get("statistics-path")).lower().endswith(".parquet")])
    if st is None:
        return None
    path = str(st["statistics-path"])
    table = pq.read_table(local_path(path) or path)
    fields = []
    for f in table.schema:
        meta = dict(f.metadata or {})
        fid = meta.get(b"PARQUET:field_id")
        if fid is not None:
            meta[b"PARQUET:field_id"] = str(int(fid) - 1).encode()
        fields.append(f.with_metadata(meta))
    buf = io.BytesIO()
    pq.write_table(table.cast(pa.schema(fields)), buf)
    o.copy_file(path, buf.getvalue())
    return f"{os.path.basename(path)}: every column's field id lowered by one (partition 0, spec_id 1, ...)"


@_shipped("duckdb-iceberg-1095-deletion-vector-bare-blob",
          "puffin.magic", "puffin", "DuckDB: a deletion vector written as a bare blob, not a Puffin file")
def _duckdb_bare_dv(o: Overlay, rng: random.Random) -> str | None:
    named: dict[str, int] = {}
    for _p, _i, e in o.entries():
        named[str(e["data_file"]["file_path"])] = named.get(str(e["data_file"]["file_path"]), 0) + 1
    cands = []
    for p, i, e in dvs(o):
        path = str(e["data_file"]["file_path"])
        if named[path] != 1:
            continue
        try:
            if len(read_puffin(local_path(path) or path).metadata.blobs) == 1:
                cands.append((p, e))
        except Exception:
            continue
    c = pick(rng, cands)
    if c is None:
        return None
    p, e = c
    df = e["data_file"]
    path = str(df["file_path"])
    with open(local_path(path) or path, "rb") as f:
        f.seek(int(df["content_offset"]))
        blob = f.read(int(df["content_size_in_bytes"]))
    df["content_offset"] = 0
    o.touch_manifest(p)
    o.copy_file(path, blob)
    return f"{os.path.basename(path)} replaced by its deletion-vector-v1 blob alone (content_offset 0)"


# --- data files whose types the metadata misstates --------------------------------------------------

def _parquet_files(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    """Live Parquet data files that no deletion vector names."""
    targets = dv_targets(o)
    out = []
    for p, i, e in o.entries():
        df = e["data_file"]
        if e.get("status") == 2 or int(df.get("content") or 0) != 0 or df["file_path"] in targets \
                or str(df.get("file_format")).upper() != "PARQUET":
            continue
        out.append((p, i, e))
    return out


@_shipped("paimon-9455-timestamp-ns-metadata-int96-data",
          "parquet.type-mapping", "metadata", "Paimon: timestamp_ns columns stored as Parquet INT96")
def _paimon_int96(o: Overlay, rng: random.Random) -> str | None:
    struct = _current_struct(o)
    if struct is None:
        return None
    cols = [f for f in struct.fields if isinstance(f.field_type, TimestampNanoType)]
    col = pick(rng, cols)
    if col is None:
        return None
    c = pick(rng, _parquet_files(o))
    if c is None:
        return None
    _p, _i, e = c
    path = str(e["data_file"]["file_path"])
    table = pq.read_table(local_path(path) or path)
    buf = io.BytesIO()
    pq.write_table(table, buf, use_deprecated_int96_timestamps=True, store_schema=False)
    o.copy_file(path, buf.getvalue())
    return f"{os.path.basename(path)}: timestamp columns ({col.name}: timestamp_ns) written as INT96"


@_shipped("xtable-45-timestamp-type-mismatch",
          "parquet.timestamp-utc", "metadata", "XTable: timestamp declared for columns the files store adjusted to UTC",
          also=("manifests.header-schema",))  # the manifests are kept: their schema header says timestamptz
def _xtable_timestamp(o: Overlay, rng: random.Random) -> str | None:
    struct = _current_struct(o)
    if struct is None:
        return None
    col = pick(rng, [f for f in struct.fields if str(f.field_type) == "timestamptz"])
    if col is None or not _parquet_files(o):
        return None
    legacy = [o.doc["schema"]] if isinstance(o.doc.get("schema"), dict) and "schemas" in o.doc else []
    for s in schemas(o) + legacy:
        for f in s.get("fields") or []:
            if f.get("id") == col.field_id and f.get("type") == "timestamptz":
                f["type"] = "timestamp"
    return f"column {col.name} declared timestamp in every schema; the files store it adjusted to UTC"


@_shipped("xtable-750-schema-sync-ignores-field-ids",
          "parquet.field-id-unknown", "metadata", "XTable: the Iceberg schema renumbered, the data files keep the "
          "source's field ids", also=("data.partition-value", "files.statistics-fields",  # by the files' old ids
                                      "manifests.header-schema"))  # the kept manifests' header has the old ids
def _xtable_renumbered(o: Overlay, rng: random.Random) -> str | None:
    cur = _current_schema(o)
    if cur is None or len(schemas(o)) != 1 or not _parquet_files(o):
        return None
    ids = sorted(_field_ids(cur))
    shift = max(ids) if ids else 0
    if not ids or "name-mapping" in json.dumps(o.doc.get("properties") or {}):
        return None

    def renumber(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("id", "element-id", "key-id", "value-id"):
                if isinstance(node.get(key), int):
                    node[key] += shift
            for v in node.values():
                renumber(v)
        elif isinstance(node, list):
            for v in node:
                renumber(v)
    renumber(cur["fields"])
    cur["identifier-field-ids"] = [i + shift for i in cur.get("identifier-field-ids") or []]
    for key in ("partition-specs", "sort-orders"):
        for s in o.doc.get(key) or []:
            for f in s.get("fields") or []:
                if "source-id" in f:
                    f["source-id"] += shift
    if isinstance(o.doc.get("partition-spec"), list):
        for f in o.doc["partition-spec"]:
            f["source-id"] += shift
    if "schema" in o.doc and o.doc["schema"] is not cur:
        o.doc["schema"] = copy.deepcopy(cur)
    o.doc["last-column-id"] = int(o.doc["last-column-id"]) + shift
    return f"schema field ids {ids[0]}..{ids[-1]} renumbered to {ids[0] + shift}..{ids[-1] + shift}; files unchanged"
