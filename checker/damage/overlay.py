"""The overlay: a valid table changed in memory and written as a new table version.

A copy is an *overlay*: new metadata, manifest lists and manifests (and, where a damage is in a
content file, a damaged copy of that file) under another directory, pointing at the untouched
files of the original table by their original paths, the way a commit points at the files of
earlier snapshots. Everything else that is recorded about a changed file is re-stamped so that it
stays true: ``manifest_length`` in every manifest list naming a rewritten manifest,
``file_size_in_bytes`` of a rewritten content file, the file counts and row counts of a
manifest-list record whose manifest changed, and the paths of every reference to a copied file.
The original table is only read.
"""

from __future__ import annotations

import gzip
import json
import os
from typing import Any, Callable, Iterator

from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.rewrite import AvroFile
from iceberg_conformance.reference.metadata import format_version, load_metadata


class Overlay:
    """A table whose metadata, manifest lists, manifests and content files can be changed in
    memory and written as a new table version under another directory."""

    def __init__(self, metadata_path: str) -> None:
        self.source = local_path(metadata_path) or metadata_path
        doc, findings = load_metadata(self.source)
        if not isinstance(doc, dict):
            raise ValueError(f"{metadata_path}: not a readable metadata file "
                             f"({'; '.join(f.message for f in findings[:2])})")
        self.doc: dict[str, Any] = doc
        self.version = format_version(doc) or 1
        self._lists: dict[str, AvroFile] = {}
        self._manifests: dict[str, AvroFile] = {}
        self.dirty_lists: set[str] = set()
        self.dirty_manifests: set[str] = set()
        #: content files to copy: original path -> (bytes, keep the recorded size as it was)
        self.copies: dict[str, tuple[bytes, bool]] = {}
        #: manifests whose list records keep their recorded length (the damage is the length)
        self.keep_length: set[str] = set()
        #: list records whose counts must not be recomputed (the damage is a count)
        self.keep_counts = False
        #: the name of the metadata file written, and whether it is written GZIP-compressed
        self.metadata_name = "v1.metadata.json"
        self.compress = False
        #: called with the metadata file's path just before it is written (a damage that needs
        #: the path, or writes earlier metadata files beside it)
        self.before_write: list[Callable[[str], None]] = []

    # reading --------------------------------------------------------------------------------

    def snapshots(self) -> list[dict[str, Any]]:
        return [s for s in self.doc.get("snapshots") or [] if isinstance(s, dict)]

    def manifest_list(self, snap: dict[str, Any]) -> AvroFile | None:
        ml = snap.get("manifest-list")
        if not isinstance(ml, str):
            return None
        if ml not in self._lists:
            self._lists[ml] = AvroFile.load(local_path(ml) or ml)
        return self._lists[ml]

    def manifest(self, path: str) -> AvroFile:
        if path not in self._manifests:
            self._manifests[path] = AvroFile.load(local_path(path) or path)
        return self._manifests[path]

    def list_records(self) -> Iterator[tuple[dict[str, Any], str, int, dict[str, Any]]]:
        """(snapshot, manifest-list path, index, record) of every manifest-list record."""
        for snap in self.snapshots():
            lst = self.manifest_list(snap)
            if lst is None:
                continue
            for i, rec in enumerate(lst.records):
                yield snap, str(snap["manifest-list"]), i, rec

    def manifest_paths(self) -> list[str]:
        seen: dict[str, None] = {}
        for _s, _l, _i, rec in self.list_records():
            seen.setdefault(str(rec["manifest_path"]), None)
        return list(seen)

    def entries(self) -> Iterator[tuple[str, int, dict[str, Any]]]:
        """(manifest path, index, raw entry) of every entry of every manifest of the table."""
        for p in self.manifest_paths():
            for i, e in enumerate(self.manifest(p).records):
                yield p, i, e

    def has_field(self, manifest_path: str, name: str) -> bool:
        """Whether the manifest's Avro schema has ``name`` in its entry or data_file record (a
        value set on a field the writer's schema lacks would not be written)."""
        schema = self.manifest(manifest_path).schema
        fields = list(schema.get("fields") or [])
        for f in schema.get("fields") or []:
            if f.get("name") == "data_file":
                t = f["type"]
                t = next((x for x in t if isinstance(x, dict)), {}) if isinstance(t, list) else t
                fields += list(t.get("fields") or []) if isinstance(t, dict) else []
        return any(f.get("name") == name for f in fields)

    def list_record_for(self, manifest_path: str) -> dict[str, Any] | None:
        for _s, _l, _i, rec in self.list_records():
            if rec["manifest_path"] == manifest_path:
                return rec
        return None

    # changing -------------------------------------------------------------------------------

    def touch_list(self, list_path: str) -> None:
        self.dirty_lists.add(list_path)

    def touch_manifest(self, path: str) -> None:
        self.dirty_manifests.add(path)

    def copy_file(self, path: str, data: bytes, keep_recorded_size: bool = False) -> None:
        self.copies[path] = (data, keep_recorded_size)

    def add_manifest(self, path: str, avro: AvroFile) -> None:
        """A new manifest (written under a name from ``path`` like any changed one)."""
        self._manifests[path] = avro
        self.touch_manifest(path)

    def add_manifest_list(self, path: str, avro: AvroFile) -> None:
        """A new manifest list, for a snapshot added to :attr:`doc` naming ``path``."""
        self._lists[path] = avro
        self.touch_list(path)

    # writing --------------------------------------------------------------------------------

    def write(self, out_dir: str) -> str:
        """Write the changed table under ``out_dir`` and return its new metadata file."""
        meta_dir = os.path.join(out_dir, "metadata")
        data_dir = os.path.join(out_dir, "data")
        os.makedirs(meta_dir, exist_ok=True)
        # content files: copy, then point every entry at the copy
        for old, (data, keep_size) in self.copies.items():
            new = os.path.join(data_dir, os.path.basename(local_path(old) or old))
            os.makedirs(data_dir, exist_ok=True)
            with open(new, "wb") as f:
                f.write(data)
            for mpath, _i, e in list(self.entries()):
                df = e["data_file"]
                if df.get("file_path") == old:
                    df["file_path"] = new
                    if not keep_size:
                        df["file_size_in_bytes"] = len(data)
                    self.touch_manifest(mpath)
            for st in (self.doc.get("statistics") or []) + (self.doc.get("partition-statistics") or []):
                if st.get("statistics-path") == old:
                    st["statistics-path"] = new
                    if not keep_size:
                        st["file-size-in-bytes"] = len(data)
        # manifests: write each changed one, then fix every list record naming it
        renamed: dict[str, tuple[str, int]] = {}
        for old in sorted(self.dirty_manifests):
            avro = self.manifest(old)
            data = avro.to_bytes()
            new = os.path.join(meta_dir, damaged_name(old))
            with open(new, "wb") as f:
                f.write(data)
            renamed[old] = (new, len(data))
        for snap in self.snapshots():
            lst = self.manifest_list(snap)
            if lst is None:
                continue
            for rec in lst.records:
                path = str(rec["manifest_path"])
                if path in renamed:
                    new, length = renamed[path]
                    if not self.keep_counts:
                        recount(rec, self.manifest(path).records)
                    rec["manifest_path"] = new
                    if path not in self.keep_length:
                        rec["manifest_length"] = length
                    self.touch_list(str(snap["manifest-list"]))
        # manifest lists
        for snap in self.snapshots():
            ml = snap.get("manifest-list")
            if isinstance(ml, str) and ml in self.dirty_lists:
                new = os.path.join(meta_dir, damaged_name(ml))
                if not os.path.exists(new):
                    with open(new, "wb") as f:
                        f.write(self._lists[ml].to_bytes())
                snap["manifest-list"] = new
        path = os.path.join(meta_dir, self.metadata_name)
        for hook in self.before_write:
            hook(path)
        text = json.dumps(self.doc, indent=2).encode("utf-8")
        with open(path, "wb") as f:
            f.write(gzip.compress(text) if self.compress else text)
        with open(os.path.join(meta_dir, "version-hint.text"), "w", encoding="utf-8") as f:
            f.write("1")
        return path


def damaged_name(path: str) -> str:
    base = os.path.basename(local_path(path) or path)
    stem, dot, ext = base.rpartition(".")
    return f"{stem}-damaged.{ext}" if dot else f"{base}-damaged"


def recount(rec: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    """File and row counts, and the smallest live data sequence number, of a manifest-list
    record from its manifest's entries."""
    if rec.get("min_sequence_number") is not None:
        seqs = [int(e["sequence_number"]) if e.get("sequence_number") is not None else int(rec["sequence_number"])
                for e in entries if e.get("status") in (0, 1)]
        if seqs:  # lowered where an entry's sequence number went below it, never raised
            rec["min_sequence_number"] = min([int(rec["min_sequence_number"])] + seqs)
    for status, files_key, rows_key in ((1, "added_files_count", "added_rows_count"),
                                        (0, "existing_files_count", "existing_rows_count"),
                                        (2, "deleted_files_count", "deleted_rows_count")):
        chosen = [e for e in entries if e.get("status") == status]
        if files_key in rec and rec[files_key] is not None:
            rec[files_key] = len(chosen)
        if rows_key in rec and rec[rows_key] is not None:
            rec[rows_key] = sum(int(e["data_file"].get("record_count") or 0) for e in chosen)
