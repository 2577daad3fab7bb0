"""Damage cases of the metadata file (and the statistics files it names)."""

from __future__ import annotations

import copy
import io
import json
import os
import random
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import damage, pick, schemas
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.units.statistics import arrow_fields_by_id
from iceberg_conformance.reference.metadata import load_metadata, parse_schema
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.types import IcebergType, StructType


@damage("metadata.current-schema-exists", "metadata", "current-schema-id names no schema")
def _current_schema(o: Overlay, rng: random.Random) -> str | None:
    if "current-schema-id" not in o.doc:
        return None
    ids = [int(s.get("schema-id", 0)) for s in schemas(o)]
    o.doc["current-schema-id"] = max(ids) + 7
    return f"current-schema-id set to {o.doc['current-schema-id']}"


def _struct(t: IcebergType) -> StructType:
    assert isinstance(t, StructType)
    return t


@damage("metadata.last-column-id", "metadata", "last-column-id below the highest field id")
def _last_column_id(o: Overlay, rng: random.Random) -> str | None:
    ids = [fid for s in schemas(o) for fid, _ in walk(_struct(parse_schema(s)))]
    if not ids:
        return None
    o.doc["last-column-id"] = max(ids) - 1
    return f"last-column-id set to {max(ids) - 1}, field {max(ids)} exists"


@damage("metadata.default-spec-exists", "metadata", "default-spec-id names no partition spec")
def _default_spec(o: Overlay, rng: random.Random) -> str | None:
    if "default-spec-id" not in o.doc:
        return None
    o.doc["default-spec-id"] = max(int(s["spec-id"]) for s in o.doc.get("partition-specs") or [{"spec-id": 0}]) + 5
    return f"default-spec-id set to {o.doc['default-spec-id']}"


@damage("metadata.last-partition-id", "metadata", "last-partition-id below a partition field id")
def _last_partition_id(o: Overlay, rng: random.Random) -> str | None:
    ids = [int(f["field-id"]) for s in o.doc.get("partition-specs") or [] for f in s.get("fields") or []
           if "field-id" in f]
    if not ids:
        return None
    o.doc["last-partition-id"] = max(ids) - 1
    return f"last-partition-id set to {max(ids) - 1}, partition field {max(ids)} exists"


@damage("metadata.snapshot-schema", "metadata", "a snapshot names a schema-id that is not in schemas")
def _snapshot_schema(o: Overlay, rng: random.Random) -> str | None:
    snaps = [s for s in o.snapshots() if "schema-id" in s]
    snap = pick(rng, snaps)
    if snap is None:
        return None
    snap["schema-id"] = max(int(s.get("schema-id", 0)) for s in schemas(o)) + 11
    return f"snapshot {snap['snapshot-id']} schema-id set to {snap['schema-id']}"


@damage("metadata.current-snapshot-exists", "metadata", "current-snapshot-id names no snapshot",
        also=("metadata.main-branch", "metadata.ref-snapshot", "metadata.snapshot-log-snapshot"))
def _current_snapshot(o: Overlay, rng: random.Random) -> str | None:
    if not o.snapshots():
        return None
    bad = max(int(s["snapshot-id"]) for s in o.snapshots()) + 1
    o.doc["current-snapshot-id"] = bad
    return f"current-snapshot-id set to {bad}"


@damage("metadata.ref-snapshot", "metadata", "a ref names a snapshot that is not in snapshots",
        also=("metadata.main-branch", "metadata.current-snapshot-exists"))
def _ref_snapshot(o: Overlay, rng: random.Random) -> str | None:
    refs = o.doc.get("refs") or {}
    names = sorted(n for n in refs if n != "main") or sorted(refs)
    name = pick(rng, names)
    if name is None or not o.snapshots():
        return None
    refs[name]["snapshot-id"] = max(int(s["snapshot-id"]) for s in o.snapshots()) + 3
    if name == "main":
        o.doc["current-snapshot-id"] = refs[name]["snapshot-id"]
    return f"ref {name} set to snapshot {refs[name]['snapshot-id']}"


@damage("metadata.sequence-number", "metadata", "last-sequence-number below a snapshot's sequence-number")
def _last_sequence(o: Overlay, rng: random.Random) -> str | None:
    seqs = [int(s.get("sequence-number", 0)) for s in o.snapshots()]
    if o.version < 2 or not seqs or max(seqs) < 1:
        return None
    o.doc["last-sequence-number"] = max(seqs) - 1
    return f"last-sequence-number set to {max(seqs) - 1}"


@damage("metadata.table-uuid-changed", "metadata", "the current table-uuid differs from the earlier metadata files'")
def _table_uuid_changed(o: Overlay, rng: random.Random) -> str | None:
    log = [e for e in o.doc.get("metadata-log") or [] if isinstance(e, dict)
           and os.path.isfile(local_path(str(e.get("metadata-file"))) or "")]
    if "table-uuid" not in o.doc or not log:
        return None
    old = str(o.doc["table-uuid"])
    o.doc["table-uuid"] = ("0" if old[0] != "0" else "1") + old[1:]
    return f"table-uuid changed to {o.doc['table-uuid']}"


@damage("metadata.relative-path", "metadata", "the table location is a relative path")
def _relative_location(o: Overlay, rng: random.Random) -> str | None:
    loc = o.doc.get("location")
    if not isinstance(loc, str) or o.version > 3:
        return None
    o.doc["location"] = loc.rstrip("/").rsplit("/", 1)[-1] or "table"
    return f"location set to {o.doc['location']!r}"


@damage("metadata.table-uuid", "metadata", "table-uuid is not a UUID",
        also=("metadata.table-uuid-changed",))  # the earlier metadata files keep the old one
def _table_uuid(o: Overlay, rng: random.Random) -> str | None:
    if "table-uuid" not in o.doc:
        return None
    o.doc["table-uuid"] = str(o.doc["table-uuid"])[:-3] + "xyz"
    return "table-uuid ends in xyz"


@damage("metadata.snapshot-ids-unique", "metadata", "two snapshots share a snapshot-id")
def _snapshot_ids(o: Overlay, rng: random.Random) -> str | None:
    snaps = o.snapshots()
    if len(snaps) < 2:
        return None
    dup = copy.deepcopy(rng.choice(snaps))
    dup["timestamp-ms"] = int(dup["timestamp-ms"]) + 1
    o.doc["snapshots"].append(dup)
    return f"snapshot {dup['snapshot-id']} listed twice"


@damage("metadata.next-row-id", "metadata", "next-row-id below the rows a snapshot assigned")
def _next_row_id(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3 or not any(int(s.get("added-rows") or 0) for s in o.snapshots()):
        return None
    ends = [int(s.get("first-row-id") or 0) + int(s.get("added-rows") or 0) for s in o.snapshots()]
    o.doc["next-row-id"] = max(ends) - 1
    return f"next-row-id set to {max(ends) - 1}"


@damage("metadata.manifest-list-shared", "metadata", "a snapshot names the manifest list of another",
        also=("snapshot.manifest-first-row-id", "snapshot.manifest-first-row-id-kept"))  # v3: ids assigned for the other snapshot
def _manifest_list_shared(o: Overlay, rng: random.Random) -> str | None:
    snaps = [s for s in o.snapshots() if isinstance(s.get("manifest-list"), str)]
    if len(snaps) < 2:
        return None
    older, newer = sorted(rng.sample(snaps, 2), key=lambda s: int(s.get("sequence-number", 0)))
    newer["manifest-list"] = older["manifest-list"]
    return f"snapshot {newer['snapshot-id']} names the manifest list of snapshot {older['snapshot-id']}"


@damage("metadata.row-lineage", "metadata", "a v3 snapshot after others with row lineage has no first-row-id")
def _first_row_id_dropped(o: Overlay, rng: random.Random) -> str | None:
    lineage = sorted((s for s in o.snapshots() if "first-row-id" in s), key=lambda s: int(s.get("sequence-number", 0)))
    if o.version < 3 or len(lineage) < 2:
        return None
    victim = rng.choice(lineage[1:])
    victim.pop("first-row-id")
    victim.pop("added-rows", None)
    return f"first-row-id and added-rows removed from snapshot {victim['snapshot-id']}"


@damage("metadata.name-mapping", "metadata", "the name mapping has a field mapping without names")
def _name_mapping(o: Overlay, rng: random.Random) -> str | None:
    props = o.doc.setdefault("properties", {})
    if not isinstance(props, dict):
        return None
    props["schema.name-mapping.default"] = json.dumps([{"field-id": 1}])
    return "schema.name-mapping.default set to a mapping without names"


@damage("metadata.statistics-snapshot", "metadata", "a statistics file names no snapshot")
def _stats_snapshot(o: Overlay, rng: random.Random) -> str | None:
    st = pick(rng, o.doc.get("statistics") or [])
    if st is None or not o.snapshots():
        return None
    st["snapshot-id"] = max(int(s["snapshot-id"]) for s in o.snapshots()) + 9
    return f"statistics snapshot-id set to {st['snapshot-id']}"


@damage("files.statistics-size", "metadata", "file-size-in-bytes of a statistics file is wrong")
def _stats_size(o: Overlay, rng: random.Random) -> str | None:
    st = pick(rng, o.doc.get("statistics") or [])
    if st is None:
        return None
    st["file-size-in-bytes"] = int(st["file-size-in-bytes"]) + 1
    return "statistics file-size-in-bytes plus one"


@damage("files.statistics-footer", "metadata", "file-footer-size-in-bytes of a statistics file is wrong")
def _stats_footer(o: Overlay, rng: random.Random) -> str | None:
    st = pick(rng, [s for s in o.doc.get("statistics") or [] if isinstance(s.get("file-footer-size-in-bytes"), int)])
    if st is None:
        return None
    st["file-footer-size-in-bytes"] = int(st["file-footer-size-in-bytes"]) + 1
    return "statistics file-footer-size-in-bytes plus one"


@damage("metadata.snapshot-log-order", "metadata", "snapshot-log out of timestamp order")
def _snapshot_log(o: Overlay, rng: random.Random) -> str | None:
    log = o.doc.get("snapshot-log") or []
    if len(log) < 2:
        return None
    i = rng.randrange(len(log) - 1)
    log[i]["timestamp-ms"] = int(log[i + 1]["timestamp-ms"]) + 3_600_000
    return f"snapshot-log[{i}] an hour after snapshot-log[{i + 1}]"


@damage("metadata.schema-ids-unique", "metadata", "two schemas share a schema-id")
def _schema_ids(o: Overlay, rng: random.Random) -> str | None:
    schemas = o.doc.get("schemas") or []
    if not schemas:
        return None
    dup = copy.deepcopy(rng.choice(schemas))
    schemas.append(dup)
    return f"schema {dup.get('schema-id')} listed twice"


@damage("metadata.default-sort-order-exists", "metadata", "default-sort-order-id names no sort order")
def _sort_order(o: Overlay, rng: random.Random) -> str | None:
    if "default-sort-order-id" not in o.doc:
        return None
    o.doc["default-sort-order-id"] = max(int(s["order-id"]) for s in o.doc.get("sort-orders") or [{"order-id": 0}]) + 4
    return f"default-sort-order-id set to {o.doc['default-sort-order-id']}"


def _rewrite_partition_stats(o: Overlay, rng: random.Random, fid: int,
                             change: Callable[[dict[int, Any]], int | None]) -> str | None:
    """Rewrite field ``fid`` of one row of a Parquet partition statistics file (schema and field
    ids kept): ``change`` gets the row (field id -> value of fields 3, 6 and 10 where present)
    and returns the new value, or None when the row offers no victim."""
    cands = []
    for st in o.doc.get("partition-statistics") or []:
        path = str(st.get("statistics-path"))
        if not path.lower().endswith(".parquet"):
            continue
        table = pq.read_table(local_path(path) or path)
        ids = arrow_fields_by_id(table.schema)
        if fid not in ids:
            continue
        cols = {f: table.column(ids[f].name).to_pylist() for f in (3, 6, 10) if f in ids}
        for r in range(table.num_rows):
            value = change({f: v[r] for f, v in cols.items()})
            if value is not None:
                cands.append((path, table, ids[fid].name, r, value))
    if not cands:
        return None
    path, table, name, row, value = rng.choice(cands)
    values = table.column(name).to_pylist()
    values[row] = value
    idx = table.column_names.index(name)
    table = table.set_column(idx, table.schema.field(idx), pa.array(values, table.schema.field(idx).type))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(path, buf.getvalue())
    return f"{os.path.basename(path)}: row {row} {name} set to {value}"


@damage("files.partition-statistics-position-deletes", "metadata",
        "a partition statistics file's position_delete_record_count is off by one in one row")
def _partition_stats_position_count(o: Overlay, rng: random.Random) -> str | None:
    return _rewrite_partition_stats(o, rng, 6, lambda row: None if row.get(6) is None else int(row[6]) + 1)


@damage("files.partition-statistics-total-records", "metadata",
        "a partition statistics file's total_record_count exceeds the partition's data records")
def _partition_stats_total_records(o: Overlay, rng: random.Random) -> str | None:
    # more rows than the data files hold: no scan after deletes keeps that many
    return _rewrite_partition_stats(o, rng, 10, lambda row: None if row.get(3) is None else int(row[3]) + 1)


@damage("metadata.upgrade-row-lineage", "metadata", "a snapshot written before the upgrade to v3 has a first-row-id",
        also=("snapshot.manifest-first-row-id",))  # its v1/v2 manifest list assigns no first_row_id
def _pre_upgrade_first_row_id(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    before: set[int] = set()
    for entry in o.doc.get("metadata-log") or []:
        path = entry.get("metadata-file") if isinstance(entry, dict) else None
        local = local_path(path) if isinstance(path, str) else None
        if local is None or not os.path.isfile(local):
            continue
        old, _ = load_metadata(local)
        if isinstance(old, dict) and int(old.get("format-version", 1)) < 3:
            before = {int(s["snapshot-id"]) for s in old.get("snapshots") or [] if isinstance(s, dict)}
    victim = pick(rng, [s for s in o.snapshots() if int(s["snapshot-id"]) in before and "first-row-id" not in s])
    if victim is None:
        return None
    victim["first-row-id"] = 0  # an empty range at 0: no id range of a later snapshot overlaps it
    victim["added-rows"] = 0
    return (f"snapshot {victim['snapshot-id']} (listed by the v1/v2 metadata before the upgrade) given first-row-id "
            f"{victim['first-row-id']} and added-rows 0")


# --- the table's history: schemas and partition specs against the ones before them ----------

def _current_fields(o: Overlay) -> list[dict[str, Any]] | None:
    """A copy of the current schema's fields, when the table lists its schemas."""
    listed = o.doc.get("schemas")
    cur = next((s for s in listed or [] if isinstance(s, dict)
                and s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
    return copy.deepcopy(cur["fields"]) if cur is not None and isinstance(listed, list) else None


def _append_schema(o: Overlay, fields: list[dict[str, Any]], current: bool = False) -> int:
    """Add a schema with ``fields`` under the next schema id (made current if asked); its id."""
    sid = max(int(s.get("schema-id", 0)) for s in schemas(o)) + 1
    schema: dict[str, Any] = {"type": "struct", "schema-id": sid, "fields": fields}
    o.doc["schemas"].append(schema)
    o.doc["last-column-id"] = max([int(o.doc["last-column-id"]), *(fid for fid, _ in walk(_schema(fields)))])
    if current:
        o.doc["current-schema-id"] = sid
        if "schema" in o.doc:  # v1: the deprecated schema is the current one
            o.doc["schema"] = copy.deepcopy(schema)
    return sid


def _new_column(o: Overlay, name: str, **extra: Any) -> dict[str, Any]:
    """An optional top-level int column under the next unassigned id (``extra`` adds or
    replaces keys)."""
    return {"id": int(o.doc["last-column-id"]) + 1, "name": name, "required": False, "type": "int", **extra}


def _retyped(field: dict[str, Any], type_: Any) -> dict[str, Any]:
    """``field`` with type ``type_`` and no default values (they were values of its old type)."""
    field["type"] = type_
    field.pop("initial-default", None)
    field.pop("write-default", None)
    return field


def _schema(fields: list[dict[str, Any]]) -> StructType:
    return _struct(parse_schema({"fields": fields}))


def _identifier_ids(o: Overlay) -> set[int]:
    """The identifier fields of every schema (kept out of damage that changes a field's type,
    place or name: their own rules would break too)."""
    return {int(i) for s in schemas(o) for i in s.get("identifier-field-ids") or []}


def _referenced_ids(o: Overlay) -> set[int]:
    """Field ids a partition spec, sort order or identifier field names (kept out of damage that
    drops a field from the current schema, so that only the history breaks a rule)."""
    out = _identifier_ids(o)
    for spec in o.doc.get("partition-specs") or [{"fields": o.doc.get("partition-spec") or []}]:
        out.update(int(i) for f in spec.get("fields") or [] for i in f.get("source-ids") or [f.get("source-id")])
    for order in o.doc.get("sort-orders") or []:
        out.update(int(i) for f in order.get("fields") or [] for i in f.get("source-ids") or [f.get("source-id")])
    return out


@damage("evolution.field-id-reused", "metadata",
        "the highest-id column is dropped and a new column is added under its id (iceberg-go #942)")
def _field_id_reused(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    if fields is None:
        return None
    cands = [f for f in fields if isinstance(f["type"], str) and f["id"] not in _referenced_ids(o)]
    if not cands:
        return None
    highest = max(cands, key=lambda f: int(f["id"]))
    victim = highest if highest["id"] == max(fid for fid, _ in walk(_schema(fields))) else rng.choice(cands)
    kept = [f for f in fields if f is not victim]
    dropped = _append_schema(o, copy.deepcopy(kept))
    added = _retyped(dict(victim, name=f"{victim['name']}_new", required=False), victim["type"])
    sid = _append_schema(o, kept + [added], current=True)
    return (f"schema {dropped} drops {victim['name']!r} ({victim['id']}); schema {sid} (current) adds "
            f"{added['name']!r} under id {victim['id']}")


#: a type each primitive type cannot become by promotion (Schema Evolution) at any format version
_NOT_A_PROMOTION = {"long": "int", "int": "string", "double": "float", "float": "int", "string": "binary",
                    "binary": "string", "boolean": "int", "date": "timestamptz", "timestamp": "date",
                    "timestamptz": "timestamp", "uuid": "string", "time": "long"}


def _illegal_type(t: str) -> str | None:
    if t.startswith("decimal("):
        p, s = (int(x) for x in t[len("decimal("):-1].split(","))
        return f"decimal({p}, {s + 1 if s < p else s - 1})"  # the scale of a decimal is fixed
    return _NOT_A_PROMOTION.get(t)


@damage("evolution.type-change", "metadata",
        "an added schema changes a column's type other than by a valid promotion (e.g. long -> int)")
def _type_change(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    ids = _referenced_ids(o)  # the data file checks read a partition source by its latest type
    victim = pick(rng, [f for f in fields or [] if isinstance(f["type"], str) and _illegal_type(f["type"])
                        and f["id"] not in ids])
    if fields is None or victim is None:
        return None
    was = victim["type"]
    _retyped(victim, _illegal_type(was))
    sid = _append_schema(o, fields)
    return f"schema {sid} gives {victim['name']!r} ({victim['id']}) type {victim['type']}, was {was}"


@damage("evolution.field-moved", "metadata", "an added schema moves a column into a new struct")
def _field_moved(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    ids = _identifier_ids(o)
    victim = pick(rng, [f for f in fields or [] if f["id"] not in ids])
    if fields is None or victim is None:
        return None
    group = _new_column(o, f"{victim['name']}_group", type={"type": "struct", "fields": [victim]})
    sid = _append_schema(o, [f for f in fields if f is not victim] + [group])
    return f"schema {sid} moves {victim['name']!r} ({victim['id']}) into the new struct {group['name']!r}"


@damage("evolution.required-tightened", "metadata", "an added schema makes an optional column required")
def _required_tightened(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    victim = pick(rng, [f for f in fields or [] if not f["required"] and f["type"] != "unknown"])
    if fields is None or victim is None:
        return None
    victim["required"] = True
    sid = _append_schema(o, fields)
    return f"schema {sid} makes {victim['name']!r} ({victim['id']}) required"


@damage("evolution.nested-id-changed", "metadata", "an added schema gives a list element or map key/value a new id")
def _nested_id_changed(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    cands = [(f, key) for f in fields or [] if isinstance(f["type"], dict)
             for key in ("element-id", "key-id", "value-id") if key in f["type"]]
    victim = pick(rng, cands)
    if fields is None or victim is None:
        return None
    f, key = victim
    was = f["type"][key]
    f["type"][key] = int(o.doc["last-column-id"]) + 1
    sid = _append_schema(o, fields)
    return f"schema {sid} gives the {key[:-3]} of {f['name']!r} id {f['type'][key]}, was {was}"


@damage("evolution.add-required-without-default", "metadata",
        "an added schema adds a required column without defaults")
def _add_required(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    if fields is None:
        return None
    added = _new_column(o, "added_required", required=True)
    sid = _append_schema(o, fields + [added])
    return f"schema {sid} adds required {added['name']!r} ({added['id']}) without initial-default and write-default"


@damage("evolution.initial-default-changed", "metadata",
        "an added column's initial-default changes in the schema after the one adding it")
def _initial_default_changed(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    if fields is None or o.version < 3:
        return None
    added = _new_column(o, "added_with_default", **{"initial-default": 1, "write-default": 1})
    first = _append_schema(o, fields + [added])
    sid = _append_schema(o, copy.deepcopy(fields) + [dict(added, **{"initial-default": 2})])
    return f"schema {first} adds {added['name']!r} ({added['id']}) with initial-default 1, schema {sid} makes it 2"


@damage("evolution.partition-source-promoted", "metadata",
        "v3: an added schema promotes a date that an identity or bucket partition field reads to a timestamp")
def _partition_source_promoted(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    if fields is None or o.version < 3:
        return None
    sources = {int(f.get("source-id", -1)) for spec in o.doc.get("partition-specs") or []
               for f in spec.get("fields") or [] if f.get("transform") == "identity"
               or str(f.get("transform")).startswith("bucket[")}
    victim = pick(rng, [f for f in fields if f["type"] == "date" and f["id"] in sources])
    if victim is None:
        return None
    _retyped(victim, "timestamp")
    sid = _append_schema(o, fields)
    return f"schema {sid} promotes the partition source {victim['name']!r} ({victim['id']}) from date to timestamp"


def _append_spec(o: Overlay, fields: list[dict[str, Any]]) -> int:
    """Add a partition spec with ``fields`` under the next spec id (not the default); its id."""
    specs = o.doc["partition-specs"]
    spec_id = max(int(s["spec-id"]) for s in specs) + 1
    specs.append({"spec-id": spec_id, "fields": fields})
    ids = [int(f["field-id"]) for f in fields if "field-id" in f]
    if "last-partition-id" in o.doc:
        o.doc["last-partition-id"] = max([int(o.doc["last-partition-id"]), *ids])
    return spec_id


def _partition_fields(o: Overlay) -> list[dict[str, Any]]:
    """Copies of the partition fields of every spec that are not void."""
    return [copy.deepcopy(f) for s in o.doc.get("partition-specs") or [] for f in s.get("fields") or []
            if f.get("transform") != "void" and "field-id" in f]


#: source types a bucket transform takes (Partition Transforms)
_BUCKETABLE = ("int", "long", "decimal(", "date", "time", "timestamp", "string", "uuid", "fixed[", "binary")


@damage("evolution.partition-field-id-reused", "metadata",
        "v2+: an added spec gives a partition field id to another transform of its source")
def _partition_field_id_reused(o: Overlay, rng: random.Random) -> str | None:
    fields = _current_fields(o)
    types = {int(f["id"]): f["type"] for f in fields or []}
    cands = [f for f in _partition_fields(o) if "source-ids" not in f
             and str(types.get(int(f["source-id"]))).startswith(_BUCKETABLE)]
    victim = pick(rng, cands)
    if o.version < 2 or victim is None:
        return None
    was = victim["transform"]
    victim["transform"] = "bucket[16]" if was != "bucket[16]" else "bucket[8]"
    victim["name"] = f"{victim['name']}_reused"
    spec_id = _append_spec(o, [victim])
    return f"spec {spec_id} gives partition field id {victim['field-id']} ({was}) to {victim['transform']}"


@damage("evolution.partition-field-id-not-reused", "metadata",
        "v2+: an added spec gives a field equivalent to an existing one a new partition field id")
def _partition_field_id_not_reused(o: Overlay, rng: random.Random) -> str | None:
    victim = pick(rng, _partition_fields(o))
    if o.version < 2 or victim is None:
        return None
    was = victim["field-id"]
    victim["field-id"] = int(o.doc["last-partition-id"]) + 1
    # a void field beside it keeps the new spec from being equivalent to a spec of that one field
    void = dict(victim, **{"field-id": victim["field-id"] + 1, "name": f"{victim['name']}_void", "transform": "void"})
    spec_id = _append_spec(o, [victim, void])
    return f"spec {spec_id} gives {victim['name']!r} ({victim['transform']}, field {was}) the new id {victim['field-id']}"


@damage("evolution.partition-equivalent-spec", "metadata", "an added spec is equivalent to the default spec")
def _partition_equivalent_spec(o: Overlay, rng: random.Random) -> str | None:
    specs = o.doc.get("partition-specs")
    default = next((s for s in specs or [] if s.get("spec-id") == o.doc.get("default-spec-id", 0)), None)
    if default is None:
        return None
    spec_id = _append_spec(o, copy.deepcopy(default["fields"]))
    return f"spec {spec_id} repeats the fields of default spec {default['spec-id']}"


def _last_spec_fields(o: Overlay) -> list[dict[str, Any]] | None:
    """v1: a copy of the fields of the spec added last, when the table lists its specs."""
    specs = o.doc.get("partition-specs")
    return copy.deepcopy(specs[-1]["fields"]) if o.version == 1 and specs else None


def _new_spec_key(o: Overlay, fields: list[dict[str, Any]]) -> bool:
    """Whether no spec of the table has these fields (by source, transform and name)."""
    def key(fs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(f.get("source-id"), f.get("transform"), f.get("name")) for f in fs]
    return all(key(s.get("fields") or []) != key(fields) for s in o.doc.get("partition-specs") or [])


@damage("evolution.partition-v1-field-dropped", "metadata",
        "v1: an added spec drops the last partition field instead of replacing its transform by void")
def _partition_v1_field_dropped(o: Overlay, rng: random.Random) -> str | None:
    fields = _last_spec_fields(o)
    if not fields or not _new_spec_key(o, fields[:-1]):
        return None
    dropped = fields.pop()
    spec_id = _append_spec(o, fields)
    return f"spec {spec_id} drops partition field {dropped['name']!r}"


@damage("evolution.partition-v1-field-changed", "metadata",
        "v1: an added spec changes the transform of a partition field in place")
def _partition_v1_field_changed(o: Overlay, rng: random.Random) -> str | None:
    fields = _last_spec_fields(o)
    types = {int(f["id"]): f["type"] for f in _current_fields(o) or []}
    i = pick(rng, [i for i, f in enumerate(fields or []) if f.get("transform") not in ("void", "identity")
                   or str(types.get(int(f.get("source-id", -1)))).startswith(_BUCKETABLE)])
    if fields is None or i is None:
        return None
    was = fields[i]["transform"]
    fields[i]["transform"] = "identity" if was != "identity" else "bucket[16]"
    if not _new_spec_key(o, fields):
        return None
    spec_id = _append_spec(o, fields)
    return f"spec {spec_id} changes partition field {i} from {was} to {fields[i]['transform']} in place"
