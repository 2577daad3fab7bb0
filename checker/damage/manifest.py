"""Damage cases of manifests (entries, headers, Avro schemas)."""

from __future__ import annotations

import copy
import os
import random
from typing import Any, Callable

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import (
    damage, data_entries, dv_targets, equality_deletes, pick, pick_entry,
)
from iceberg_conformance.checker.rewrite import AvroFile


@damage("manifests.status", "manifest", "an entry's status is not 0, 1 or 2")
def _status(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, list(o.entries()))
    if c is None:
        return None
    p, i, e = c
    e["status"] = 3
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].status set to 3"


@damage("manifests.sequence-number-explicit", "manifest",
        "an EXISTING entry's sequence_number is null (only ADDED entries inherit)")
def _seq_explicit(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    c = pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 0
                             and o.has_field(x[0], "sequence_number")])
    if c is None:
        return None
    p, i, e = c
    e["sequence_number"] = None
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (EXISTING).sequence_number set to null"


@damage("manifests.entry-snapshot-id", "manifest",
        "an ADDED entry's snapshot_id is not the snapshot that added its manifest")
def _entry_snapshot(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 1])
    if c is None:
        return None
    p, i, e = c
    rec = o.list_record_for(p)
    if rec is None:
        return None
    e["snapshot_id"] = int(rec["added_snapshot_id"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].snapshot_id set to {e['snapshot_id']}"


@damage("manifests.entry-sequence-number", "manifest",
        "an entry's data sequence number is greater than its manifest's sequence number")
def _entry_seq(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    c = pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") in (0, 1)
                             and o.has_field(x[0], "sequence_number")])
    if c is None:
        return None
    p, i, e = c
    rec = o.list_record_for(p)
    if rec is None:
        return None
    e["sequence_number"] = int(rec["sequence_number"]) + 1
    if e.get("file_sequence_number") is None and e.get("status") != 1:
        e["file_sequence_number"] = int(rec["sequence_number"])
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].sequence_number set above the manifest's"


@damage("manifests.entry-file-sequence-number", "manifest",
        "an ADDED entry's explicit file sequence number is not its manifest's sequence number")
def _entry_file_seq(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    cands = []
    for p, i, e in o.entries():
        rec = o.list_record_for(p)
        if e.get("status") == 1 and rec is not None and o.has_field(p, "file_sequence_number"):
            cands.append((p, i, e, rec))
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e, rec = c
    e["file_sequence_number"] = int(rec["sequence_number"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (ADDED) file_sequence_number set to the manifest's plus one"


@damage("manifests.split-offsets-sorted", "manifest", "split_offsets not in ascending order")
def _split_offsets(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, data_entries(o, where=lambda e: bool(e["data_file"].get("split_offsets"))))
    if c is None:
        return None
    p, i, e = c
    offs = list(e["data_file"]["split_offsets"])
    e["data_file"]["split_offsets"] = offs + [max(0, offs[0] - 1)] if len(offs) == 1 else list(reversed(offs))
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].split_offsets out of order"


@damage("manifests.header-format-version", "manifest", "a manifest's format-version header disagrees")
def _header_version(o: Overlay, rng: random.Random) -> str | None:
    # a manifest with v2 fields labelled v1, or any manifest labelled newer than the table
    p = pick(rng, [m for m in o.manifest_paths() if "format-version" in o.manifest(m).meta
                    and (o.version == 1 or o.has_field(m, "sequence_number"))])
    if p is None:
        return None
    m = o.manifest(p)
    m.meta["format-version"] = "1" if o.version != 1 else "2"
    o.touch_manifest(p)
    return f"{os.path.basename(p)} header format-version set to {m.meta['format-version']}"


@damage("manifests.header-missing", "manifest", "a required manifest header key is missing")
def _header_missing(o: Overlay, rng: random.Random) -> str | None:
    p = pick(rng, [m for m in o.manifest_paths() if "partition-spec" in o.manifest(m).meta])
    if p is None:
        return None
    del o.manifest(p).meta["partition-spec"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} header partition-spec removed"


@damage("manifests.field-id-missing", "manifest", "a manifest's Avro schema lacks a field id")
def _field_id(o: Overlay, rng: random.Random) -> str | None:
    p = pick(rng, o.manifest_paths())
    if p is None:
        return None
    schema = o.manifest(p).schema
    df = next(f for f in schema["fields"] if f.get("field-id") == 2)
    rec = df["type"] if isinstance(df["type"], dict) else next(t for t in df["type"] if isinstance(t, dict))
    victim = next(f for f in rec["fields"] if f.get("field-id") == 103)  # record_count
    del victim["field-id"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)}: data_file.record_count has no field-id"


def _in_data_file_schema(o: Overlay, rng: random.Random,
                         change: Callable[[AvroFile, dict[str, Any]], str | None]) -> str | None:
    """Apply ``change`` to the data_file record of the Avro schema of a manifest picked at random
    (with the manifest's file, for its records); what it returns describes the damage."""
    p = pick(rng, o.manifest_paths())
    if p is None:
        return None
    m = o.manifest(p)
    df = next(f for f in m.schema["fields"] if f.get("field-id") == 2)
    rec = df["type"] if isinstance(df["type"], dict) else next(t for t in df["type"] if isinstance(t, dict))
    what = change(m, rec)
    if what is not None:
        o.touch_manifest(p)
        return f"{os.path.basename(p)}: {what}"
    return None


@damage("avro.optional-default", "manifest", "an optional field of a manifest's Avro schema has no default")
def _optional_default(o: Overlay, rng: random.Random) -> str | None:
    def drop(_m: AvroFile, rec: dict[str, Any]) -> str | None:
        victim = pick(rng, [f for f in rec["fields"] if isinstance(f.get("type"), list) and "default" in f])
        if victim is None:
            return None
        del victim["default"]
        return f"data_file.{victim['name']} lost its default"
    return _in_data_file_schema(o, rng, drop)


@damage("manifests.reserved-field-id", "manifest", "a manifest's data_file struct has a field with id 141")
def _reserved_141(o: Overlay, rng: random.Random) -> str | None:
    def add(m: AvroFile, rec: dict[str, Any]) -> str | None:
        if any(f.get("field-id") == 141 for f in rec["fields"]):
            return None
        rec["fields"].append({"name": "reserved_141", "type": ["null", "long"], "default": None, "field-id": 141})
        for r in m.records:
            r["data_file"]["reserved_141"] = None
        return "data_file gained field reserved_141 (id 141)"
    return _in_data_file_schema(o, rng, add)


@damage("manifests.content-version", "manifest", "a v2 position delete file's file_format set to PUFFIN",
        also=("puffin.magic", "puffin.truncated", "puffin.footer-size"))  # the Parquet file is read as Puffin
def _puffin_in_v2(o: Overlay, rng: random.Random) -> str | None:
    if o.version != 2:
        return None
    c = pick_entry(o, rng, data_entries(o, content=1))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["file_format"] = "PUFFIN"
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].file_format set to PUFFIN in a v2 table"


@damage("snapshot.duplicate-file", "manifest", "a data file is live twice in a snapshot",
        also=("snapshot.manifest-first-row-id-range",  # v3: the manifest now assigns more row ids
              "manifests.first-row-id-changed"))  # and the files after it inherit other ones
def _duplicate(o: Overlay, rng: random.Random) -> str | None:
    targets = dv_targets(o)
    c = pick_entry(o, rng, data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets))
    if c is None:
        return None
    p, i, e = c
    o.manifest(p).records.append(copy.deepcopy(e))
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] appended a second time"


@damage("manifests.equality-ids", "manifest", "an equality delete file's equality_ids set to null")
def _equality_ids_null(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, equality_deletes(o))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["equality_ids"] = None
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].equality_ids set to null"


@damage("manifests.sequence-number-changed", "manifest",
        "an EXISTING entry's data sequence number differs from the one the file was added with")
def _seq_changed(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    c = pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 0
                             and int(x[2].get("sequence_number") or 0) >= 1 and o.has_field(x[0], "sequence_number")])
    if c is None:
        return None
    p, i, e = c
    e["sequence_number"] = int(e["sequence_number"]) - 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (EXISTING).sequence_number lowered by one"


@damage("manifests.first-row-id-changed", "manifest",
        "an EXISTING data file's first_row_id differs from the one its earlier entry gives it")
def _first_row_id_changed(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    c = pick_entry(o, rng, [x for x in data_entries(o) if x[2].get("status") == 0
                             and isinstance(x[2]["data_file"].get("first_row_id"), int)])
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["first_row_id"] = int(e["data_file"]["first_row_id"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (EXISTING).first_row_id raised by one"


@damage("manifests.sort-order-id", "manifest", "a data file's sort_order_id is not in sort-orders")
def _sort_order_id(o: Overlay, rng: random.Random) -> str | None:
    if not o.doc.get("sort-orders"):
        return None
    c = pick_entry(o, rng, data_entries(o))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["sort_order_id"] = max(int(x["order-id"]) for x in o.doc["sort-orders"]) + 6
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].sort_order_id set to {e['data_file']['sort_order_id']}"


@damage("manifests.first-row-id-added", "manifest", "an ADDED data file written with a first_row_id",
        also=("manifests.first-row-id-changed",))  # a later entry listing the file carries the inherited id
def _first_row_id_added(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    c = pick_entry(o, rng, [x for x in data_entries(o, where=lambda e: e.get("status") == 1
                                                    and e["data_file"].get("first_row_id") is None)
                             if o.has_field(x[0], "first_row_id")])
    if c is None:
        return None
    p, i, e = c
    rec = o.list_record_for(p)
    e["data_file"]["first_row_id"] = int((rec or {}).get("first_row_id") or 0)
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (ADDED).first_row_id set to {e['data_file']['first_row_id']}"
