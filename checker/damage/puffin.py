"""Damage cases of Puffin files: deletion vector blobs and footers."""

from __future__ import annotations

import os
import random
from typing import Any, Callable

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import damage, dvs, pick, pick_entry
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.plan import plan_units
from iceberg_conformance.checker.units.deletes import dv_positions, position_delete_rows
from iceberg_conformance.reference.puffin import BlobToWrite, deletion_vector_blob, read_puffin, write_puffin


def _damage_dv_blob(o: Overlay, rng: random.Random, at: Callable[[int, int], int]) -> str | None:
    c = pick_entry(o, rng, dvs(o))
    if c is None:
        return None
    p, i, e = c
    df = e["data_file"]
    path = str(df["file_path"])
    with open(local_path(path) or path, "rb") as f:
        data = bytearray(f.read())
    pos = at(int(df["content_offset"]), int(df["content_size_in_bytes"]))
    data[pos] ^= 0xFF
    o.copy_file(path, bytes(data), keep_recorded_size=False)
    return f"{os.path.basename(path)}: byte {pos} of the blob at {df['content_offset']} flipped"


@damage("dv.crc", "puffin", "a deletion vector's CRC does not match")
def _dv_crc(o: Overlay, rng: random.Random) -> str | None:
    return _damage_dv_blob(o, rng, lambda off, size: off + size - 1)


@damage("dv.magic", "puffin", "a deletion vector's magic bytes are wrong")
def _dv_magic(o: Overlay, rng: random.Random) -> str | None:
    return _damage_dv_blob(o, rng, lambda off, size: off + 4)


@damage("puffin.magic", "puffin", "a Puffin file's footer magic is wrong", also=("dv.manifest-content-offset",))
def _puffin_magic(o: Overlay, rng: random.Random) -> str | None:
    c = pick_entry(o, rng, dvs(o))
    if c is None:
        st = pick(rng, o.doc.get("statistics") or [])
        if st is None:
            return None
        path = str(st["statistics-path"])
    else:
        path = str(c[2]["data_file"]["file_path"])
    with open(local_path(path) or path, "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 0xFF
    o.copy_file(path, bytes(data))
    return f"{os.path.basename(path)}: last byte of the footer magic flipped"


@damage("dv.holds-position-deletes", "puffin",
        "a deletion vector drops a position that an older live position delete file of its data file holds",
        also=("files.partition-statistics-position-deletes", "files.partition-statistics-total-records"))
def _dv_drops_position(o: Overlay, rng: random.Random) -> str | None:
    """The pairs (DV, position delete file) come from the checker's own planning (live in one
    snapshot, delete-planning rules); the victim is a position both hold. The Puffin file is
    written again with that DV's blob shorter by one position: every blob after it moves, so
    every entry naming the file gets its new offset and size, and the DV's entry its new
    record_count (the blob's cardinality)."""
    cands: list[tuple[dict[str, Any], str, int]] = []
    for u in plan_units(o.source):
        if u.kind != "dv-merge":
            continue
        dv = u.context["dv"]
        held = dv_positions(local_path(dv["path"]) or dv["path"], int(dv["content_offset"]),
                            int(dv["content_size_in_bytes"])) or ()
        for pf in u.context["files"]:
            rows = position_delete_rows(local_path(pf["path"]) or pf["path"]) or {}
            for pos in sorted(set(held) & rows.get(str(dv["referenced_data_file"]), set())):
                cands.append((dv, str(pf["path"]), pos))
    if not cands:
        return None
    dv, pos_file, pos = rng.choice(cands)
    path = str(dv["path"])
    pf = read_puffin(local_path(path) or path)
    blobs: list[BlobToWrite] = []
    victim = -1
    for i, b in enumerate(pf.metadata.blobs):
        if b.offset == dv["content_offset"]:
            victim = i
            held = dv_positions(local_path(path) or path, b.offset, b.length) or ()
            blobs.append(deletion_vector_blob([x for x in held if x != pos], str(dv["referenced_data_file"]),
                                              b.fields))
        else:
            blobs.append(BlobToWrite(b.type, b.fields, b.snapshot_id, b.sequence_number, pf.raw_blob(i),
                                     b.compression_codec, dict(b.properties)))
    data = write_puffin(blobs, properties=dict(pf.metadata.properties), created_by=None)
    moved = {(old.offset, old.length): new for old, new in zip(pf.metadata.blobs, read_puffin(data).metadata.blobs)}
    for mpath, _i, e in o.entries():
        df = e["data_file"]
        key = (df.get("content_offset"), df.get("content_size_in_bytes"))
        if df.get("file_path") == path and key in moved:
            new = moved[key]
            df["content_offset"], df["content_size_in_bytes"] = new.offset, new.length
            if key == (dv["content_offset"], dv["content_size_in_bytes"]):
                df["record_count"] = int(df["record_count"]) - 1
            o.touch_manifest(mpath)
    o.copy_file(path, data)
    return (f"{os.path.basename(path)}: blob {victim} (DV of {os.path.basename(str(dv['referenced_data_file']))}) "
            f"drops position {pos}, which {os.path.basename(pos_file)} deletes")
