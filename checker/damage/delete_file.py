"""Damage cases of delete files and deletion vectors' manifest entries."""

from __future__ import annotations

import os
import random
import struct
from typing import Any, Callable

from iceberg_conformance.checker.damage.files import file_format, rewrite_columns
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import (
    bump, damage, data_entries, dvs, equality_deletes, is_dv, pick, pick_entry,
)


@damage("dv.manifest-content-offset", "delete-file", "content_offset is the offset of no blob")
def _dv_offset(o: Overlay, rng: random.Random) -> str | None:
    return bump(o, rng, dvs(o), "content_offset")


@damage("dv.manifest-content-size", "delete-file", "content_size_in_bytes differs from the blob's length")
def _dv_size(o: Overlay, rng: random.Random) -> str | None:
    return bump(o, rng, dvs(o), "content_size_in_bytes")


@damage("dv.manifest-record-count", "delete-file", "a deletion vector's record_count is not its cardinality")
def _dv_count(o: Overlay, rng: random.Random) -> str | None:
    return bump(o, rng, dvs(o), "record_count")


def _position_delete_files(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return data_entries(o, content=1, where=lambda e: not is_dv(e) and file_format(e) in ("PARQUET", "AVRO", "ORC"))


def _rewrite_positions(o: Overlay, rng: random.Random, change: Callable[[list[str], list[int]], str | None]
                       ) -> str | None:
    """Rewrite the ``pos`` column of a position-delete file in its own format (its schema, field
    ids and other columns kept) and re-stamp the entry's ``pos`` bounds and file size."""
    c = pick(rng, _position_delete_files(o))
    if c is None:
        return None
    _p, _i, e = c
    path = str(e["data_file"]["file_path"])
    positions: list[int] = []

    def columns(cols: dict[str, list[Any]]) -> str | None:
        if "pos" not in cols or "file_path" not in cols:
            return None
        positions.extend(cols["pos"])
        what = change(cols["file_path"], positions)
        cols["pos"] = positions
        return what
    what = rewrite_columns(o, path, file_format(e), columns)
    if what is None:
        return None
    for _m, _j, other in o.entries():
        for item in (other["data_file"].get("upper_bounds") or []) if other["data_file"]["file_path"] == path else []:
            if int(item["key"]) == 2147483545:
                item["value"] = struct.pack("<q", max(positions))
        for item in (other["data_file"].get("lower_bounds") or []) if other["data_file"]["file_path"] == path else []:
            if int(item["key"]) == 2147483545:
                item["value"] = struct.pack("<q", min(positions))
    return f"{os.path.basename(path)}: {what}"


@damage("deletes.equality-field-missing", "delete-file",
        "an equality delete file's equality_ids names a table field the file does not hold")
def _equality_field_missing(o: Overlay, rng: random.Random) -> str | None:
    schema = next((s for s in o.doc.get("schemas", []) if s.get("schema-id") == o.doc.get("current-schema-id")), None)
    if schema is None:
        return None
    c = pick_entry(o, rng, equality_deletes(o))
    if c is None:
        return None
    p, i, e = c
    ids = list(e["data_file"]["equality_ids"])
    other = [f["id"] for f in schema["fields"] if f["id"] not in ids and isinstance(f["type"], str)]
    if not other:
        return None
    e["data_file"]["equality_ids"] = ids + [other[0]]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].equality_ids gains field {other[0]}, absent from the delete file"


@damage("deletes.position-out-of-range", "delete-file",
        "a position delete at or past the referenced data file's record count")
def _position_past_end(o: Overlay, rng: random.Random) -> str | None:
    def change(paths: list[str], positions: list[int]) -> str | None:
        last = len(positions) - 1
        if last < 0:
            return None
        positions[last] = max(positions[last] + 1, 1_000_000_000)
        return f"last row's pos set to {positions[last]}"
    return _rewrite_positions(o, rng, change)


@damage("deletes.position-order", "delete-file", "position delete rows not sorted by file_path, pos")
def _position_order(o: Overlay, rng: random.Random) -> str | None:
    def change(paths: list[str], positions: list[int]) -> str | None:
        for k in range(len(positions) - 1):
            if (paths[k], positions[k]) < (paths[k + 1], positions[k + 1]):
                paths[k], paths[k + 1] = paths[k + 1], paths[k]
                positions[k], positions[k + 1] = positions[k + 1], positions[k]
                return f"rows {k} and {k + 1} swapped"
        return None
    return _rewrite_positions(o, rng, change)
