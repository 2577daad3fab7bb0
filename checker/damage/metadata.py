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
