"""Damage cases of manifest lists."""

from __future__ import annotations

import os
import random
from typing import Any, Callable

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import damage, pick, schemas
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.reference.binary import to_bytes
from iceberg_conformance.reference.manifests import partition_type
from iceberg_conformance.reference.metadata import spec_by_id
from iceberg_conformance.reference.types import DateType, IntegerType, LongType, parse_type, StringType


def _pick_list_record(o: Overlay, rng: random.Random, where: Callable[[dict[str, Any], dict[str, Any]], bool]
                      | None = None) -> tuple[dict[str, Any], str, int, dict[str, Any]] | None:
    cands = [c for c in o.list_records() if where is None or where(c[0], c[3])]
    return pick(rng, cands)


@damage("files.manifest-length", "manifest-list", "manifest_length differs from the manifest's size")
def _manifest_length(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list_record(o, rng)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["manifest_length"] = int(rec["manifest_length"]) + 1
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].manifest_length plus one"


@damage("files.manifest-missing", "manifest-list", "manifest_path names no file",
        also=("snapshot.manifest-first-row-id-kept",))  # v3: the renamed manifest is not the parent's
def _manifest_missing(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list_record(o, rng)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["manifest_path"] = str(rec["manifest_path"]) + ".gone"
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].manifest_path names a missing file"


@damage("snapshot.manifest-path-relative", "manifest-list", "manifest_path is relative to the table location",
        # v3: no longer the parent's manifest; the deletes of the data files it lists (unread) name no live file
        also=("files.outside-table", "snapshot.manifest-first-row-id-kept", "dv.target-not-live",
              "deletes.target-not-live"))
def _manifest_path_relative(o: Overlay, rng: random.Random) -> str | None:
    location = str(o.doc.get("location", "")).rstrip("/")
    root = local_path(location) or location
    c = _pick_list_record(o, rng, lambda snap, rec: (local_path(str(rec["manifest_path"])) or "").startswith(root + "/"))
    if c is None or o.version > 3:
        return None
    snap, lst, i, rec = c
    rec["manifest_path"] = (local_path(str(rec["manifest_path"])) or "")[len(root) + 1:]
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].manifest_path is {rec['manifest_path']!r}"


def _count_keys(rec: dict[str, Any]) -> list[str]:
    return [k for k in ("added_files_count", "existing_files_count", "deleted_files_count", "added_rows_count",
                        "existing_rows_count", "deleted_rows_count") if rec.get(k) is not None]


@damage("snapshot.operation-files", "manifest-list", "a snapshot that added data files says operation delete")
def _operation_files(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for snap in o.snapshots():
        summary = snap.get("summary")
        if not isinstance(summary, dict) or summary.get("operation") not in ("append", "overwrite"):
            continue
        ml = o.manifest_list(snap)
        if ml is not None and any(r.get("added_snapshot_id") == snap.get("snapshot-id") and not r.get("content")
                                  and (r.get("added_files_count") or r.get("added_data_files_count") or 0) > 0
                                  for r in ml.records):
            cands.append(snap)
    chosen = pick(rng, cands)
    if chosen is None:
        return None
    chosen["summary"]["operation"] = "delete"
    return f"snapshot {chosen['snapshot-id']} (which added data files) says operation delete"


@damage("snapshot.manifest-first-row-id-kept", "manifest-list",
        "a manifest carried over from the parent snapshot has another first_row_id",
        also=("snapshot.manifest-first-row-id-range", "manifests.first-row-id-changed"))  # ids move with it
def _first_row_id_kept(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    by_id = {s.get("snapshot-id"): s for s in o.snapshots()}
    cands = []
    for snap in o.snapshots():
        parent = by_id.get(snap.get("parent-snapshot-id"))
        ml = o.manifest_list(snap)
        pl = o.manifest_list(parent) if parent is not None else None
        if ml is None or pl is None or not isinstance(snap.get("first-row-id"), int) or ml is pl:
            continue
        kept = {r["manifest_path"]: r.get("first_row_id") for r in pl.records}
        for r in ml.records:
            if isinstance(kept.get(r["manifest_path"]), int) and r.get("first_row_id") == kept[r["manifest_path"]]:
                cands.append((snap, ml, r))
    c = pick(rng, cands)
    if c is None:
        return None
    snap, ml, r = c
    r["first_row_id"] = int(r["first_row_id"]) + 1
    o.touch_list(str(snap["manifest-list"]))
    return f"snapshot {snap['snapshot-id']}: {os.path.basename(r['manifest_path'])} first_row_id plus one"


@damage("manifests.list-counts", "manifest-list", "a file or row count of a manifest-list record is wrong")
def _list_counts(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list_record(o, rng, lambda s, r: bool(_count_keys(r)))
    if c is None:
        return None
    snap, lst, i, rec = c
    key = rng.choice(_count_keys(rec))
    rec[key] = int(rec[key]) + 1
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].{key} plus one"


@damage("snapshot.manifest-sequence-number", "manifest-list",
        "a manifest's sequence_number is greater than its snapshot's")
def _list_seq(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    # a manifest list written before an upgrade to v2 is v1: it has no sequence_number to change
    c = _pick_list_record(o, rng, lambda s, r: "sequence_number" in r)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["sequence_number"] = int(snap.get("sequence-number", 0)) + 1
    rec["min_sequence_number"] = min(int(rec.get("min_sequence_number") or 0), rec["sequence_number"])
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].sequence_number above the snapshot's"


@damage("manifests.list-min-sequence-number", "manifest-list",
        "min_sequence_number above the smallest data sequence number of the manifest's live entries")
def _list_min_seq(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    c = _pick_list_record(o, rng, lambda s, r: "min_sequence_number" in r and (
        int(r.get("min_sequence_number") or 0) < int(r.get("sequence_number") or 0)
        or int(r.get("existing_files_count") or 0) + int(r.get("added_files_count") or 0) > 0))
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["min_sequence_number"] = int(rec.get("sequence_number") or 0) + 1
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].min_sequence_number above its entries'"


@damage("manifests.partition-summary", "manifest-list",
        "a partition summary's bounds do not cover the values of the manifest's entries")
def _partition_summary(o: Overlay, rng: random.Random) -> str | None:
    schema = next((s for s in schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
    if schema is None:
        return None
    cands = []
    for snap, lst, i, rec in o.list_records():
        if int(rec.get("added_files_count") or 0) + int(rec.get("existing_files_count") or 0) == 0:
            continue
        spec = spec_by_id(o.doc).get(int(rec.get("partition_spec_id") or 0))
        if spec is None:
            continue
        try:
            ptype = partition_type(spec.get("fields") or [], parse_type(schema))  # type: ignore[arg-type]
        except Exception:
            continue
        for j, (pf, summary) in enumerate(zip(ptype.fields, rec.get("partitions") or [])):
            if summary.get("upper_bound") is not None and isinstance(
                    pf.field_type, (IntegerType, LongType, DateType, StringType)):
                cands.append((snap, lst, i, rec, j, pf.field_type))
    c = pick(rng, cands)
    if c is None:
        return None
    snap, lst, i, rec, j, ft = c
    lowest = b"" if isinstance(ft, StringType) else to_bytes(ft, -(2**63) if isinstance(ft, LongType) else -(2**31))
    rec["partitions"][j]["lower_bound"] = lowest
    rec["partitions"][j]["upper_bound"] = lowest
    o.touch_list(lst)
    return (f"snapshot {snap['snapshot-id']}: manifests[{i}].partitions[{j}] bounds set to the lowest "
            f"{ft}, below the entries' values")


@damage("snapshot.manifest-first-row-id", "manifest-list",
        "a data manifest without first_row_id in a snapshot that assigns row ids",
        also=("snapshot.manifest-first-row-id-kept", "manifests.first-row-id-changed"))  # ids move with it
def _first_row_id_null(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    c = _pick_list_record(o, rng, lambda s, r: isinstance(s.get("first-row-id"), int)
                          and r.get("first_row_id") is not None and int(r.get("content") or 0) == 0)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["first_row_id"] = None
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].first_row_id set to null"


@damage("snapshot.manifest-first-row-id-range", "manifest-list",
        "a manifest's first_row_id overlaps the row ids another manifest of the snapshot assigns",
        also=("snapshot.manifest-first-row-id-kept", "manifests.first-row-id-changed"))  # ids move with it
def _first_row_id_overlap(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 3:
        return None
    cands = []
    for snap in o.snapshots():
        lst = o.manifest_list(snap)
        first = snap.get("first-row-id")
        if lst is None or not isinstance(first, int):
            continue
        mine = [r for r in lst.records if int(r.get("content") or 0) == 0 and isinstance(r.get("first_row_id"), int)
                and r["first_row_id"] >= first and int(r.get("added_rows_count") or 0) > 0]
        if mine:
            cands.append((snap, str(snap["manifest-list"]), mine))
    c = pick(rng, cands)
    if c is None:
        return None
    victim, list_path, mine = c
    rec = max(mine, key=lambda r: int(r["first_row_id"]))
    # one past the end of the snapshot's range: the rows it assigns cannot fit
    rec["first_row_id"] = int(victim["first-row-id"]) + int(victim.get("added-rows") or 0)
    o.touch_list(list_path)
    return f"snapshot {victim['snapshot-id']}: a manifest's first_row_id moved past first-row-id + added-rows"


@damage("snapshot.manifest-spec-id", "manifest-list", "a manifest's partition_spec_id is not in partition-specs",
        also=("manifests.list-spec-id",
              "dv.partition"))  # a deletion vector of the manifest is now in another spec than its data file
def _list_spec(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list_record(o, rng)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["partition_spec_id"] = max(int(s["spec-id"]) for s in o.doc.get("partition-specs") or [{"spec-id": 0}]) + 8
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].partition_spec_id set to {rec['partition_spec_id']}"
