"""Single-violation copies of a valid table: the checker's mutation self-test.

``iceberg-conformance damage TABLE OUT [--rule R]`` writes, for every damage case that can be
applied to TABLE, a copy of the table in which exactly one recorded fact is wrong, and
``OUT/damage.json`` listing each copy with the rule the checker must report. A copy is an
*overlay*: new metadata, manifest lists and manifests (and, where the damage is in a content
file, a damaged copy of that file) under ``OUT/<case>/``, pointing at the untouched files of
the original table by their original paths, the way a commit points at the files of earlier
snapshots. Everything else that is recorded about a changed file is re-stamped so that it
stays true: ``manifest_length`` in every manifest list naming a rewritten manifest,
``file_size_in_bytes`` of a rewritten content file, the file counts and row counts of a
manifest-list record whose manifest changed, and the paths of every reference to a copied file.
The original table is only read.

``OUT/pristine/`` is the same rewrite with no damage: the control. The checker must report no
error on it, which proves the rewriting itself keeps a table valid.

Each case picks its victim among all candidates of the table (any snapshot, any manifest, any
entry, any blob of a Puffin file) with a seeded random choice (``--seed``), so repeated runs
with other seeds damage other places.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from iceberg_conformance.checker.datafiles import local_path


# --- Avro containers, rewritten as their writer wrote them --------------------------------------

@dataclass
class AvroFile:
    """An Avro container decoded for rewriting: the writer's schema (raw JSON, with field ids),
    its user metadata, its codec and its records (fastavro's Python values)."""

    path: str
    schema: dict[str, Any]
    meta: dict[str, str]
    codec: str
    records: list[dict[str, Any]]

    @classmethod
    def load(cls, path: str) -> "AvroFile":
        import fastavro

        with open(path, "rb") as f:
            r = fastavro.reader(f)
            meta = {k: (v.decode("utf-8") if isinstance(v, bytes) else v) for k, v in r.metadata.items()}
            records = list(r)
        schema = json.loads(meta["avro.schema"])
        return cls(path, schema, {k: v for k, v in meta.items() if not k.startswith("avro.")},
                   str(meta.get("avro.codec", "null")), records)

    def to_bytes(self) -> bytes:
        import io

        import fastavro

        buf = io.BytesIO()
        fastavro.writer(buf, fastavro.parse_schema(copy.deepcopy(self.schema)), self.records,
                        codec=self.codec, metadata=dict(self.meta))
        return buf.getvalue()


# --- the overlay ------------------------------------------------------------------------------

class Overlay:
    """A table whose metadata, manifest lists, manifests and content files can be changed in
    memory and written as a new table version under another directory."""

    def __init__(self, metadata_path: str) -> None:
        from iceberg_conformance.reference.metadata import load_metadata

        self.source = local_path(metadata_path) or metadata_path
        doc, findings = load_metadata(self.source)
        if not isinstance(doc, dict):
            raise ValueError(f"{metadata_path}: not a readable metadata file "
                             f"({'; '.join(f.message for f in findings[:2])})")
        self.doc: dict[str, Any] = doc
        self.version = int(doc.get("format-version", 1))
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
            new = os.path.join(meta_dir, _renamed(old))
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
                        _recount(rec, self.manifest(path).records)
                    rec["manifest_path"] = new
                    if path not in self.keep_length:
                        rec["manifest_length"] = length
                    self.touch_list(str(snap["manifest-list"]))
        # manifest lists
        for snap in self.snapshots():
            ml = snap.get("manifest-list")
            if isinstance(ml, str) and ml in self.dirty_lists:
                new = os.path.join(meta_dir, _renamed(ml))
                if not os.path.exists(new):
                    with open(new, "wb") as f:
                        f.write(self._lists[ml].to_bytes())
                snap["manifest-list"] = new
        path = os.path.join(meta_dir, "v1.metadata.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.doc, f, indent=2)
        with open(os.path.join(meta_dir, "version-hint.text"), "w", encoding="utf-8") as f:
            f.write("1")
        return path


def _renamed(path: str) -> str:
    base = os.path.basename(local_path(path) or path)
    stem, dot, ext = base.rpartition(".")
    return f"{stem}-damaged.{ext}" if dot else f"{base}-damaged"


def _recount(rec: dict[str, Any], entries: list[dict[str, Any]]) -> None:
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


# --- damage cases -------------------------------------------------------------------------------

@dataclass
class Damage:
    """One way to break one rule. ``apply`` changes the overlay and returns a sentence saying
    where, or None when the table offers no victim."""

    rule: str
    area: str
    description: str
    apply: Callable[[Overlay, random.Random], str | None]
    #: rules a correct checker may also report, as consequences of this damage
    also: tuple[str, ...] = ()


DAMAGES: list[Damage] = []


def damage(rule: str, area: str, description: str, also: tuple[str, ...] = ()) -> Callable[
        [Callable[[Overlay, random.Random], str | None]], Callable[[Overlay, random.Random], str | None]]:
    def register(fn: Callable[[Overlay, random.Random], str | None]) -> Callable[[Overlay, random.Random], str | None]:
        DAMAGES.append(Damage(rule, area, description, fn, also))
        return fn
    return register


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return rng.choice(items) if items else None


def _field_ids(t: Any, out: list[int]) -> None:
    if isinstance(t, dict):
        for key in ("fields",):
            for f in t.get(key) or []:
                out.append(int(f["id"]))
                _field_ids(f.get("type"), out)
        if t.get("type") == "list":
            out.append(int(t["element-id"]))
            _field_ids(t.get("element"), out)
        if t.get("type") == "map":
            out += [int(t["key-id"]), int(t["value-id"])]
            _field_ids(t.get("key"), out)
            _field_ids(t.get("value"), out)


def _schemas(o: Overlay) -> list[dict[str, Any]]:
    return [s for s in o.doc.get("schemas") or ([o.doc["schema"]] if "schema" in o.doc else []) if isinstance(s, dict)]


def _data_entries(o: Overlay, *, content: int = 0, live: bool = True,
                  where: Callable[[dict[str, Any]], bool] | None = None) -> list[tuple[str, int, dict[str, Any]]]:
    out = []
    for p, i, e in o.entries():
        df = e["data_file"]
        if int(df.get("content", 0) or 0) != content:
            continue
        if live and e.get("status") == 2:
            continue
        if where is not None and not where(e):
            continue
        out.append((p, i, e))
    return out


def _is_dv(e: dict[str, Any]) -> bool:
    return e["data_file"].get("content_offset") is not None


def _dv_targets(o: Overlay) -> set[str]:
    return {str(e["data_file"].get("referenced_data_file")) for _p, _i, e in o.entries()
            if int(e["data_file"].get("content", 0) or 0) == 1}


# metadata ----------------------------------------------------------------------------------------

@damage("metadata.current-schema-exists", "metadata", "current-schema-id names no schema")
def _current_schema(o: Overlay, rng: random.Random) -> str | None:
    if "current-schema-id" not in o.doc:
        return None
    ids = [int(s.get("schema-id", 0)) for s in _schemas(o)]
    o.doc["current-schema-id"] = max(ids) + 7
    return f"current-schema-id set to {o.doc['current-schema-id']}"


@damage("metadata.last-column-id", "metadata", "last-column-id below the highest field id")
def _last_column_id(o: Overlay, rng: random.Random) -> str | None:
    ids: list[int] = []
    for s in _schemas(o):
        _field_ids(s, ids)
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
    snap = _pick(rng, snaps)
    if snap is None:
        return None
    snap["schema-id"] = max(int(s.get("schema-id", 0)) for s in _schemas(o)) + 11
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
    name = _pick(rng, names)
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
    dup = copy.deepcopy(_pick(rng, snaps))
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
    victim = _pick(rng, lineage[1:])
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
    st = _pick(rng, o.doc.get("statistics") or [])
    if st is None or not o.snapshots():
        return None
    st["snapshot-id"] = max(int(s["snapshot-id"]) for s in o.snapshots()) + 9
    return f"statistics snapshot-id set to {st['snapshot-id']}"


@damage("files.statistics-size", "metadata", "file-size-in-bytes of a statistics file is wrong")
def _stats_size(o: Overlay, rng: random.Random) -> str | None:
    st = _pick(rng, o.doc.get("statistics") or [])
    if st is None:
        return None
    st["file-size-in-bytes"] = int(st["file-size-in-bytes"]) + 1
    return "statistics file-size-in-bytes plus one"


@damage("files.statistics-footer", "metadata", "file-footer-size-in-bytes of a statistics file is wrong")
def _stats_footer(o: Overlay, rng: random.Random) -> str | None:
    st = _pick(rng, [s for s in o.doc.get("statistics") or [] if isinstance(s.get("file-footer-size-in-bytes"), int)])
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
    dup = copy.deepcopy(_pick(rng, schemas))
    schemas.append(dup)
    return f"schema {dup.get('schema-id')} listed twice"


@damage("metadata.default-sort-order-exists", "metadata", "default-sort-order-id names no sort order")
def _sort_order(o: Overlay, rng: random.Random) -> str | None:
    if "default-sort-order-id" not in o.doc:
        return None
    o.doc["default-sort-order-id"] = max(int(s["order-id"]) for s in o.doc.get("sort-orders") or [{"order-id": 0}]) + 4
    return f"default-sort-order-id set to {o.doc['default-sort-order-id']}"


# manifest lists ----------------------------------------------------------------------------------

def _pick_list_record(o: Overlay, rng: random.Random, where: Callable[[dict[str, Any], dict[str, Any]], bool]
                      | None = None) -> tuple[dict[str, Any], str, int, dict[str, Any]] | None:
    cands = [c for c in o.list_records() if where is None or where(c[0], c[3])]
    return _pick(rng, cands)


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
    snap = _pick(rng, cands)
    if snap is None:
        return None
    snap["summary"]["operation"] = "delete"
    return f"snapshot {snap['snapshot-id']} (which added data files) says operation delete"


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
    c = _pick(rng, cands)
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
    from iceberg_conformance.reference.binary import to_bytes
    from iceberg_conformance.reference.manifests import partition_type
    from iceberg_conformance.reference.metadata import spec_by_id
    from iceberg_conformance.reference.types import IntegerType, LongType, DateType, StringType, parse_type

    schema = next((s for s in _schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
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
    c = _pick(rng, cands)
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
    c = _pick(rng, cands)
    if c is None:
        return None
    snap, lst, mine = c
    rec = max(mine, key=lambda r: int(r["first_row_id"]))
    # one past the end of the snapshot's range: the rows it assigns cannot fit
    rec["first_row_id"] = int(snap["first-row-id"]) + int(snap.get("added-rows") or 0)
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: a manifest's first_row_id moved past first-row-id + added-rows"


# manifests ---------------------------------------------------------------------------------------

def _pick_entry(o: Overlay, rng: random.Random, cands: list[tuple[str, int, dict[str, Any]]]
                ) -> tuple[str, int, dict[str, Any]] | None:
    return _pick(rng, cands)


@damage("manifests.status", "manifest", "an entry's status is not 0, 1 or 2")
def _status(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_entry(o, rng, list(o.entries()))
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
    c = _pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 0
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
    c = _pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 1])
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
    c = _pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") in (0, 1)
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
    c = _pick(rng, cands)
    if c is None:
        return None
    p, i, e, rec = c
    e["file_sequence_number"] = int(rec["sequence_number"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (ADDED) file_sequence_number set to the manifest's plus one"


def _bump(o: Overlay, rng: random.Random, cands: list[tuple[str, int, dict[str, Any]]], key: str) -> str | None:
    """Add one to ``data_file.<key>`` of a random candidate entry."""
    c = _pick(rng, cands)
    if c is None:
        return None
    p, i, e = c
    e["data_file"][key] = int(e["data_file"][key]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].{key} plus one"


@damage("files.missing", "data-file", "a live data file does not exist")
def _missing(o: Overlay, rng: random.Random) -> str | None:
    targets = _dv_targets(o)
    c = _pick_entry(o, rng, _data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets))
    if c is None:
        return None
    p, i, e = c
    old = e["data_file"]["file_path"]
    for mp, _j, other in o.entries():
        if other["data_file"]["file_path"] == old:
            other["data_file"]["file_path"] = old + ".gone"
            o.touch_manifest(mp)
    return f"{old} renamed to a missing path in every entry"


@damage("files.size", "data-file", "file_size_in_bytes differs from the file's size")
def _size(o: Overlay, rng: random.Random) -> str | None:
    return _bump(o, rng, _data_entries(o), "file_size_in_bytes")


@damage("data.record-count", "data-file", "record_count differs from the rows in the file",
        also=("snapshot.manifest-first-row-id-range",  # v3: the manifest now assigns more row ids
              "manifests.first-row-id-changed"))  # and the files after it inherit other ones
def _record_count(o: Overlay, rng: random.Random) -> str | None:
    targets = _dv_targets(o)
    return _bump(o, rng, _data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets), "record_count")


def _top_level_ids(o: Overlay) -> set[int]:
    cur = next((s for s in _schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), {})
    return {int(f["id"]) for f in cur.get("fields") or [] if isinstance(f.get("type"), str)}


@damage("data.value-count", "data-file", "a value count of a top-level column differs from the data")
def _value_count(o: Overlay, rng: random.Random) -> str | None:
    # top-level: inside a struct that is null in some rows writers count either way (both accepted)
    top = _top_level_ids(o)
    c = _pick_entry(o, rng, _data_entries(o, where=lambda e: any(
        int(x["key"]) in top for x in e["data_file"].get("value_counts") or [])))
    if c is None:
        return None
    p, i, e = c
    item = rng.choice([x for x in e["data_file"]["value_counts"] if int(x["key"]) in top])
    item["value"] = int(item["value"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].value_counts[{item['key']}] plus one"


@damage("data.null-value-count", "data-file", "a null count of a top-level column differs from the data")
def _null_count(o: Overlay, rng: random.Random) -> str | None:
    top = _top_level_ids(o)
    c = _pick_entry(o, rng, _data_entries(o, where=lambda e: any(
        int(x["key"]) in top for x in e["data_file"].get("null_value_counts") or [])))
    if c is None:
        return None
    p, i, e = c
    item = rng.choice([x for x in e["data_file"]["null_value_counts"] if int(x["key"]) in top])
    item["value"] = int(item["value"]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].null_value_counts[{item['key']}] plus one"


def _int_bound_entries(o: Overlay, which: str, width: int) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    out = []
    for p, i, e in _data_entries(o):
        for item in e["data_file"].get(which) or []:
            if isinstance(item.get("value"), bytes) and len(item["value"]) == width:
                out.append((p, i, e, item))
    return out


def _column_types(o: Overlay) -> dict[int, str]:
    """Field id -> primitive type string of the current schema (top-level and nested)."""
    out: dict[int, str] = {}

    def go(t: Any, fid: int | None) -> None:
        if isinstance(t, str):
            if fid is not None:
                out[fid] = t
            return
        if isinstance(t, dict):
            for f in t.get("fields") or []:
                go(f.get("type"), int(f["id"]))
            if t.get("type") == "list":
                go(t.get("element"), int(t["element-id"]))
            if t.get("type") == "map":
                go(t.get("key"), int(t["key-id"]))
                go(t.get("value"), int(t["value-id"]))

    cur = next((s for s in _schemas(o) if s.get("schema-id", 0) == o.doc.get("current-schema-id", 0)), None)
    go(cur, None)
    return out


def _typed_bounds(o: Overlay, which: str, types: tuple[str, ...]) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    cols = _column_types(o)
    out = []
    for p, i, e in _data_entries(o):
        for item in e["data_file"].get(which) or []:
            t = cols.get(int(item["key"]), "")
            if any(t == x or t.startswith(x + "(") for x in types):
                out.append((p, i, e, item))
    return out


@damage("manifests.bound-decode", "data-file", "an int or date bound written 8 bytes wide")
def _bound_width(o: Overlay, rng: random.Random) -> str | None:
    c = _pick(rng, _typed_bounds(o, rng.choice(["lower_bounds", "upper_bounds"]), ("int", "date")))
    if c is None:
        c = _pick(rng, _typed_bounds(o, "lower_bounds", ("int", "date")))
    if c is None:
        return None
    p, i, e, item = c
    v = struct.unpack("<i", item["value"])[0]
    item["value"] = struct.pack("<q", v)
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] bound of column {item['key']} widened to 8 bytes"


@damage("manifests.bound-decimal-minimal", "data-file", "a decimal bound not in the minimum number of bytes")
def _decimal_bound(o: Overlay, rng: random.Random) -> str | None:
    c = _pick(rng, _typed_bounds(o, "lower_bounds", ("decimal",)) + _typed_bounds(o, "upper_bounds", ("decimal",)))
    if c is None:
        return None
    p, i, e, item = c
    b = item["value"]
    item["value"] = (b"\xff" if b and b[0] & 0x80 else b"\x00") + b
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] decimal bound of column {item['key']} padded by one byte"


@damage("manifests.bounds-order", "data-file", "a lower bound greater than its upper bound",
        also=("data.lower-bound", "data.upper-bound"))
def _bounds_order(o: Overlay, rng: random.Random) -> str | None:
    return _swap_bounds(o, rng, ("int", "long"), lambda lo, hi: lo != hi, "bounds")


def _swap_bounds(o: Overlay, rng: random.Random, types: tuple[str, ...],
                 accept: Callable[[bytes, bytes], bool], what: str) -> str | None:
    """Swap the lower and upper bound of one column of one entry, among the columns of ``types``
    whose (lower, upper) pair ``accept`` takes."""
    cands = []
    for p, i, e, lo in _typed_bounds(o, "lower_bounds", types):
        hi = next((x for x in e["data_file"].get("upper_bounds") or [] if x["key"] == lo["key"]), None)
        if hi is not None and accept(lo["value"], hi["value"]):
            cands.append((p, i, e, lo, hi))
    c = _pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, hi = c
    lo["value"], hi["value"] = hi["value"], lo["value"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] {what} of column {lo['key']} swapped"


@damage("manifests.bound-geo-point", "data-file", "geometry bound points swapped: lower y above upper y",
        also=("data.lower-bound", "data.upper-bound"))
def _geo_bounds_swapped(o: Overlay, rng: random.Random) -> str | None:
    def lower_y_below(lo: bytes, hi: bytes) -> bool:
        return len(lo) >= 16 and len(hi) == len(lo) \
            and struct.unpack_from("<d", lo, 8)[0] < struct.unpack_from("<d", hi, 8)[0]
    return _swap_bounds(o, rng, ("geometry",), lower_y_below, "geometry bound points")


@damage("data.lower-bound", "data-file", "a lower bound above the smallest value in the file")
def _lower_bound(o: Overlay, rng: random.Random) -> str | None:
    cands = []
    for p, i, e, lo in _typed_bounds(o, "lower_bounds", ("int", "long")):
        hi = next((x for x in e["data_file"].get("upper_bounds") or [] if x["key"] == lo["key"]), None)
        if hi is not None and hi["value"] != lo["value"] and len(hi["value"]) == len(lo["value"]):
            cands.append((p, i, e, lo, hi))
    c = _pick(rng, cands)
    if c is None:
        return None
    p, i, e, lo, hi = c
    lo["value"] = hi["value"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] lower bound of column {lo['key']} raised to the upper bound"


@damage("manifests.split-offsets-sorted", "manifest", "split_offsets not in ascending order")
def _split_offsets(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_entry(o, rng, _data_entries(o, where=lambda e: bool(e["data_file"].get("split_offsets"))))
    if c is None:
        return None
    p, i, e = c
    offs = list(e["data_file"]["split_offsets"])
    e["data_file"]["split_offsets"] = offs + [max(0, offs[0] - 1)] if len(offs) == 1 else list(reversed(offs))
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].split_offsets out of order"


@damage("data.partition-value", "data-file", "a data file's partition value is not the transform of its rows")
def _partition_value(o: Overlay, rng: random.Random) -> str | None:
    by_manifest: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for p, i, e in _data_entries(o):
        part = e["data_file"].get("partition") or {}
        if part:
            by_manifest.setdefault(p, []).append((i, e))
    pairs = []
    for p, es in by_manifest.items():
        for a in range(len(es)):
            for b in range(a + 1, len(es)):
                pa, pb = es[a][1]["data_file"]["partition"], es[b][1]["data_file"]["partition"]
                for k in pa:
                    if pa[k] is not None and pb.get(k) is not None and pa[k] != pb[k]:
                        pairs.append((p, es[a], es[b], k))
    c = _pick(rng, pairs)
    if c is None:
        return None
    p, (i, ea), (j, eb), k = c
    # swap one partition value between two files of the same manifest: the summary still covers
    ea["data_file"]["partition"][k], eb["data_file"]["partition"][k] = \
        eb["data_file"]["partition"][k], ea["data_file"]["partition"][k]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] and [{j}] partition {k} swapped"


@damage("manifests.header-format-version", "manifest", "a manifest's format-version header disagrees")
def _header_version(o: Overlay, rng: random.Random) -> str | None:
    # a manifest with v2 fields labelled v1, or any manifest labelled newer than the table
    p = _pick(rng, [m for m in o.manifest_paths() if "format-version" in o.manifest(m).meta
                    and (o.version == 1 or o.has_field(m, "sequence_number"))])
    if p is None:
        return None
    m = o.manifest(p)
    m.meta["format-version"] = "1" if o.version != 1 else "2"
    o.touch_manifest(p)
    return f"{os.path.basename(p)} header format-version set to {m.meta['format-version']}"


@damage("manifests.header-missing", "manifest", "a required manifest header key is missing")
def _header_missing(o: Overlay, rng: random.Random) -> str | None:
    p = _pick(rng, [m for m in o.manifest_paths() if "partition-spec" in o.manifest(m).meta])
    if p is None:
        return None
    del o.manifest(p).meta["partition-spec"]
    o.touch_manifest(p)
    return f"{os.path.basename(p)} header partition-spec removed"


@damage("manifests.field-id-missing", "manifest", "a manifest's Avro schema lacks a field id")
def _field_id(o: Overlay, rng: random.Random) -> str | None:
    p = _pick(rng, o.manifest_paths())
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
    p = _pick(rng, o.manifest_paths())
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
        victim = _pick(rng, [f for f in rec["fields"] if isinstance(f.get("type"), list) and "default" in f])
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
    c = _pick_entry(o, rng, _data_entries(o, content=1))
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
    targets = _dv_targets(o)
    c = _pick_entry(o, rng, _data_entries(o, where=lambda e: e["data_file"]["file_path"] not in targets))
    if c is None:
        return None
    p, i, e = c
    o.manifest(p).records.append(copy.deepcopy(e))
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] appended a second time"


# delete files and deletion vectors ---------------------------------------------------------------

def _dvs(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return _data_entries(o, content=1, where=_is_dv)


@damage("dv.manifest-content-offset", "delete-file", "content_offset is the offset of no blob")
def _dv_offset(o: Overlay, rng: random.Random) -> str | None:
    return _bump(o, rng, _dvs(o), "content_offset")


@damage("dv.manifest-content-size", "delete-file", "content_size_in_bytes differs from the blob's length")
def _dv_size(o: Overlay, rng: random.Random) -> str | None:
    return _bump(o, rng, _dvs(o), "content_size_in_bytes")


@damage("dv.manifest-record-count", "delete-file", "a deletion vector's record_count is not its cardinality")
def _dv_count(o: Overlay, rng: random.Random) -> str | None:
    return _bump(o, rng, _dvs(o), "record_count")


def _damage_dv_blob(o: Overlay, rng: random.Random, at: Callable[[int, int], int]) -> str | None:
    c = _pick_entry(o, rng, _dvs(o))
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
    c = _pick_entry(o, rng, _dvs(o))
    if c is None:
        st = _pick(rng, o.doc.get("statistics") or [])
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


def _position_delete_files(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return _data_entries(o, content=1, where=lambda e: not _is_dv(e)
                         and str(e["data_file"].get("file_format")).upper() == "PARQUET")


def _rewrite_positions(o: Overlay, rng: random.Random, change: Callable[[list[str], list[int]], str | None]
                       ) -> str | None:
    """Rewrite the ``pos`` column of a position-delete file (its schema, field ids and other
    columns kept) and re-stamp the entry's ``pos`` bounds and file size."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    c = _pick(rng, _position_delete_files(o))
    if c is None:
        return None
    _p, _i, e = c
    df = e["data_file"]
    path = str(df["file_path"])
    table = pq.read_table(local_path(path) or path)
    if "pos" not in table.column_names or "file_path" not in table.column_names:
        return None
    positions = table.column("pos").to_pylist()
    paths = table.column("file_path").to_pylist()
    what = change(paths, positions)
    if what is None:
        return None
    for name, values, typ in (("pos", positions, pa.int64()), ("file_path", paths, pa.string())):
        idx = table.column_names.index(name)
        table = table.set_column(idx, table.schema.field(idx), pa.array(values, typ))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(path, buf.getvalue())
    for _m, _j, other in o.entries():
        for item in (other["data_file"].get("upper_bounds") or []) if other["data_file"]["file_path"] == path else []:
            if int(item["key"]) == 2147483545:
                item["value"] = struct.pack("<q", max(positions))
        for item in (other["data_file"].get("lower_bounds") or []) if other["data_file"]["file_path"] == path else []:
            if int(item["key"]) == 2147483545:
                item["value"] = struct.pack("<q", min(positions))
    return f"{os.path.basename(path)}: {what}"


@damage("dv.holds-position-deletes", "puffin",
        "a deletion vector drops a position that an older live position delete file of its data file holds",
        also=("files.partition-statistics-position-deletes", "files.partition-statistics-total-records"))
def _dv_drops_position(o: Overlay, rng: random.Random) -> str | None:
    """The pairs (DV, position delete file) come from the checker's own planning (live in one
    snapshot, delete-planning rules); the victim is a position both hold. The Puffin file is
    written again with that DV's blob shorter by one position: every blob after it moves, so
    every entry naming the file gets its new offset and size, and the DV's entry its new
    record_count (the blob's cardinality)."""
    from iceberg_conformance.checker.datafiles import dv_positions, position_delete_rows
    from iceberg_conformance.checker.table import plan_units
    from iceberg_conformance.reference.puffin import BlobToWrite, deletion_vector_blob, read_puffin, write_puffin

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


def _rewrite_partition_stats(o: Overlay, rng: random.Random, fid: int,
                             change: Callable[[dict[str, Any]], int | None]) -> str | None:
    """Rewrite field ``fid`` of one row of a Parquet partition statistics file (schema and field
    ids kept): ``change`` gets the row (field id -> value of fields 3, 6 and 10 where present)
    and returns the new value, or None when the row offers no victim."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from iceberg_conformance.checker.statistics import _field_ids

    cands = []
    for st in o.doc.get("partition-statistics") or []:
        path = str(st.get("statistics-path"))
        if not path.lower().endswith(".parquet"):
            continue
        table = pq.read_table(local_path(path) or path)
        ids = _field_ids(table.schema)
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


def _equality_deletes(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return _data_entries(o, content=2, where=lambda e: bool(e["data_file"].get("equality_ids")))


@damage("manifests.equality-ids", "manifest", "an equality delete file's equality_ids set to null")
def _equality_ids_null(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_entry(o, rng, _equality_deletes(o))
    if c is None:
        return None
    p, i, e = c
    e["data_file"]["equality_ids"] = None
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].equality_ids set to null"


@damage("deletes.equality-field-missing", "delete-file",
        "an equality delete file's equality_ids names a table field the file does not hold")
def _equality_field_missing(o: Overlay, rng: random.Random) -> str | None:
    schema = next((s for s in o.doc.get("schemas", []) if s.get("schema-id") == o.doc.get("current-schema-id")), None)
    if schema is None:
        return None
    c = _pick_entry(o, rng, _equality_deletes(o))
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


@damage("snapshot.manifest-spec-id", "manifest-list", "a manifest's partition_spec_id is not in partition-specs",
        also=("manifests.list-spec-id",))
def _list_spec(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_list_record(o, rng)
    if c is None:
        return None
    snap, lst, i, rec = c
    rec["partition_spec_id"] = max(int(s["spec-id"]) for s in o.doc.get("partition-specs") or [{"spec-id": 0}]) + 8
    o.touch_list(lst)
    return f"snapshot {snap['snapshot-id']}: manifests[{i}].partition_spec_id set to {rec['partition_spec_id']}"


@damage("manifests.sequence-number-changed", "manifest",
        "an EXISTING entry's data sequence number differs from the one the file was added with")
def _seq_changed(o: Overlay, rng: random.Random) -> str | None:
    if o.version < 2:
        return None
    c = _pick_entry(o, rng, [x for x in o.entries() if x[2].get("status") == 0
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
    c = _pick_entry(o, rng, [x for x in _data_entries(o) if x[2].get("status") == 0
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
    c = _pick_entry(o, rng, _data_entries(o))
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
    c = _pick_entry(o, rng, [x for x in _data_entries(o, where=lambda e: e.get("status") == 1
                                                    and e["data_file"].get("first_row_id") is None)
                             if o.has_field(x[0], "first_row_id")])
    if c is None:
        return None
    p, i, e = c
    rec = o.list_record_for(p)
    e["data_file"]["first_row_id"] = int((rec or {}).get("first_row_id") or 0)
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}] (ADDED).first_row_id set to {e['data_file']['first_row_id']}"


# content files -----------------------------------------------------------------------------------

def _parquet_data(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    targets = _dv_targets(o)
    return _data_entries(o, where=lambda e: str(e["data_file"].get("file_format")).upper() == "PARQUET"
                         and e["data_file"]["file_path"] not in targets)


@damage("data.unreadable", "data-file", "a data file is not readable Parquet")
def _unreadable(o: Overlay, rng: random.Random) -> str | None:
    c = _pick_entry(o, rng, _parquet_data(o))
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    with open(local_path(path) or path, "rb") as f:
        data = f.read()
    o.copy_file(path, data[: len(data) // 2])
    return f"{os.path.basename(path)} cut in half (file_size_in_bytes re-stamped)"


@damage("parquet.field-id-missing", "data-file", "a Parquet data file without field ids")
def _no_field_ids(o: Overlay, rng: random.Random) -> str | None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    c = _pick_entry(o, rng, _parquet_data(o))
    if c is None:
        return None
    path = str(c[2]["data_file"]["file_path"])
    table = pq.read_table(local_path(path) or path)

    def strip(f: pa.Field) -> pa.Field:
        t = f.type
        if pa.types.is_struct(t):
            t = pa.struct([strip(x) for x in t])
        elif pa.types.is_list(t):
            t = pa.list_(strip(t.value_field))
        elif pa.types.is_map(t):
            t = pa.map_(strip(t.key_field).type, strip(t.item_field))
        return pa.field(f.name, t, f.nullable)

    bare = pa.schema([strip(f) for f in table.schema])
    buf = io.BytesIO()
    pq.write_table(table.cast(bare), buf)
    o.copy_file(path, buf.getvalue())
    return f"{os.path.basename(path)} rewritten without field ids (file_size_in_bytes re-stamped)"


def _appended_parquet(o: Overlay) -> list[tuple[str, int, dict[str, Any], dict[str, Any]]]:
    """(manifest, index, entry, its manifest-list record) of every Parquet data file ADDED by a
    snapshot whose operation is ``append`` (v3 tables)."""
    if o.version < 3:
        return []
    appends = {int(s["snapshot-id"]) for s in o.snapshots()
               if isinstance(s.get("summary"), dict) and s["summary"].get("operation") == "append"}
    records: dict[str, dict[str, Any]] = {}
    for _s, _l, _i, rec in o.list_records():
        records.setdefault(str(rec["manifest_path"]), rec)
    out = []
    for p, i, e in _parquet_data(o):
        rec = records.get(p)
        sid = e.get("snapshot_id") if e.get("snapshot_id") is not None else (rec or {}).get("added_snapshot_id")
        if e.get("status") == 1 and sid in appends and rec is not None:
            out.append((p, i, e, rec))
    return out


def _with_lineage_column(o: Overlay, rng: random.Random, fid: int) -> str | None:
    """Rewrite an appended data file with the row-lineage column ``fid`` holding, for every row,
    the value a reader inherits (``_row_id``: the file's first_row_id plus the row position;
    ``_last_updated_sequence_number``: the data sequence number): the rows read the same, but
    they are written non-null where an added row's value is written null."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    c = _pick(rng, _appended_parquet(o))
    if c is None:
        return None
    p, i, e, rec = c
    df = e["data_file"]
    path = str(df["file_path"])
    table = pq.read_table(local_path(path) or path)
    n = table.num_rows
    if fid == 2147483540:
        first = df.get("first_row_id")
        if first is None and rec.get("first_row_id") is not None:  # inherited: the manifest's plus the
            first = int(rec["first_row_id"])                         # rows of files before it
            for other in o.manifest(p).records[:i]:
                odf = other["data_file"]
                if int(odf.get("content", 0) or 0) == 0 and odf.get("first_row_id") is None:
                    first += int(odf.get("record_count") or 0)
        values = [int(first or 0) + pos for pos in range(n)]
        name = "_row_id"
    else:
        seq = e.get("sequence_number") if e.get("sequence_number") is not None else rec.get("sequence_number")
        values = [int(seq or 0)] * n
        name = "_last_updated_sequence_number"
    column = pa.field(name, pa.int64(), True, metadata={b"PARQUET:field_id": str(fid).encode()})
    table = table.append_column(column, pa.array(values, pa.int64()))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(path, buf.getvalue())
    return (f"{os.path.basename(path)} (ADDED by append snapshot {e.get('snapshot_id') or rec.get('added_snapshot_id')}) "
            f"rewritten with a non-null {name} column (field {fid}) holding the inherited values")


@damage("data.added-row-id-null", "data-file", "an appended data file writes non-null _row_id values")
def _added_row_id(o: Overlay, rng: random.Random) -> str | None:
    return _with_lineage_column(o, rng, 2147483540)


@damage("data.added-last-updated-null", "data-file",
        "an appended data file writes non-null _last_updated_sequence_number values")
def _added_last_updated(o: Overlay, rng: random.Random) -> str | None:
    return _with_lineage_column(o, rng, 2147483539)


@damage("metadata.upgrade-row-lineage", "metadata", "a snapshot written before the upgrade to v3 has a first-row-id",
        also=("snapshot.manifest-first-row-id",))  # its v1/v2 manifest list assigns no first_row_id
def _pre_upgrade_first_row_id(o: Overlay, rng: random.Random) -> str | None:
    from iceberg_conformance.reference.metadata import load_metadata

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
    victim = _pick(rng, [s for s in o.snapshots() if int(s["snapshot-id"]) in before and "first-row-id" not in s])
    if victim is None:
        return None
    victim["first-row-id"] = 0  # an empty range at 0: no id range of a later snapshot overlaps it
    victim["added-rows"] = 0
    return (f"snapshot {victim['snapshot-id']} (listed by the v1/v2 metadata before the upgrade) given first-row-id "
            f"{victim['first-row-id']} and added-rows 0")


@damage("parquet.decimal-byte-order", "data-file",
        "a fixed_len_byte_array decimal column written with its unscaled values little-endian",
        also=("data.lower-bound", "data.upper-bound"))  # the bounds keep the values the writer meant
def _decimal_little_endian(o: Overlay, rng: random.Random) -> str | None:
    import io
    from decimal import Decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    from iceberg_conformance.checker.datafiles import byte_reversed, unscaled

    cols = {fid: t for fid, t in _column_types(o).items() if t.startswith("decimal(")}
    top = _top_level_ids(o)
    cands = []
    for p, i, e in _parquet_data(o):
        df = e["data_file"]
        bounded = {int(x["key"]) for x in df.get("lower_bounds") or []} & {int(x["key"]) for x in
                                                                          df.get("upper_bounds") or []}
        path = str(df["file_path"])
        meta = pq.ParquetFile(local_path(path) or path).metadata
        for fid in sorted(bounded & set(cols) & top):
            field = next((f for f in pq.read_schema(local_path(path) or path)
                          if (f.metadata or {}).get(b"PARQUET:field_id") == str(fid).encode()), None)
            col = next((meta.schema.column(j) for j in range(meta.num_columns)
                        if field is not None and meta.schema.column(j).path == field.name), None)
            if field is None or col is None or col.physical_type != "FIXED_LEN_BYTE_ARRAY":
                continue
            cands.append((p, i, e, fid, field.name, col.length))
    rng.shuffle(cands)
    for p, i, e, fid, name, width in cands:
        path = str(e["data_file"]["file_path"])
        table = pq.read_table(local_path(path) or path)
        t = table.schema.field(name).type
        values = table.column(name).to_pylist()
        flipped = [None if v is None else byte_reversed(unscaled(v, t.scale), width) for v in values]
        real = [unscaled(v, t.scale) for v in values if v is not None]
        stored = [x for x in flipped if x is not None]
        if not real or (min(stored) >= min(real) and max(stored) <= max(real)) \
                or any(len(str(abs(x))) > t.precision for x in stored):
            continue  # the reversed bytes read within the bounds, or hold more digits than P
        exact = [None if x is None else Decimal((int(x < 0), tuple(int(d) for d in str(abs(x))), -t.scale))
                 for x in flipped]  # built from the digits: no rounding to the context's precision
        arr = pa.array(exact, t)
        table = table.set_column(table.schema.get_field_index(name), table.schema.field(name), arr)
        buf = io.BytesIO()
        pq.write_table(table, buf)
        o.copy_file(path, buf.getvalue())
        return (f"{os.path.basename(path)}: decimal column {name!r} (field {fid}, fixed_len_byte_array({width})) "
                "rewritten with each unscaled value's bytes in little-endian order")
    return None


# --- driving --------------------------------------------------------------------------------------

AREAS = ("metadata", "manifest-list", "manifest", "data-file", "delete-file", "puffin")


@dataclass
class Copy:
    """One written copy: which rule it breaks, where, and its metadata file."""

    case: str
    rule: str
    area: str
    description: str
    where: str
    metadata: str
    also: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "rule": self.rule, "area": self.area, "description": self.description,
                "where": self.where, "metadata": self.metadata, "also": self.also}


def write_damaged(table: str, out: str, *, rules: list[str] | None = None, seed: int = 0,
                  progress: Callable[[str], None] | None = None) -> tuple[str, list[Copy], list[str]]:
    """Write ``out/pristine`` and one copy per applicable damage case under ``out``; return
    (pristine metadata file, copies, rules with no victim in this table)."""
    from iceberg_conformance.checker.table import find_tables

    found = find_tables(table)
    if len(found) != 1:
        raise ValueError(f"{table}: expected one table, found {len(found)}")
    source = found[0]
    os.makedirs(out, exist_ok=True)
    pristine_dir = os.path.join(out, "pristine")
    shutil.rmtree(pristine_dir, ignore_errors=True)
    control = Overlay(source)
    for p in control.manifest_paths():  # rewrite every manifest and list: the machinery is tested too
        control.touch_manifest(p)
    pristine = control.write(pristine_dir)
    copies: list[Copy] = []
    skipped: list[str] = []
    for d in DAMAGES:
        if rules and d.rule not in rules:
            continue
        o = Overlay(source)
        o.keep_counts = d.rule == "manifests.list-counts"
        if d.rule == "files.manifest-length":
            o.keep_length = set(o.manifest_paths())
        where = d.apply(o, random.Random(f"{seed}:{d.rule}"))
        if where is None:
            skipped.append(d.rule)
            continue
        case = d.rule.replace(".", "_")
        target = os.path.join(out, case)
        shutil.rmtree(target, ignore_errors=True)
        md = o.write(target)
        copies.append(Copy(case, d.rule, d.area, d.description, where, md, list(d.also)))
        if progress is not None:
            progress(f"{d.rule}: {where}")
    with open(os.path.join(out, "damage.json"), "w", encoding="utf-8") as f:
        json.dump({"table": source, "seed": seed, "pristine": pristine,
                   "copies": [c.to_json() for c in copies], "no_victim": skipped}, f, indent=2)
    return pristine, copies, skipped


@dataclass
class Verdict:
    copy: Copy
    reported: bool
    error_rules: list[str]
    extra_errors: list[str]


def self_test(out: str, copies: list[Copy], pristine: str) -> tuple[list[str], list[Verdict]]:
    """Run the checker on the pristine copy (its error rules are returned) and on every copy."""
    from iceberg_conformance.checker.table import check_table

    from iceberg_conformance.checker.report import group

    def error_rules(metadata: str) -> tuple[list[str], set[str]]:
        findings = check_table(metadata).findings
        # consequences are folded into their root, as the report shows them
        return sorted({g.rule for g in group(findings) if g.severity == "error"}), {f.rule for f in findings}

    control = error_rules(pristine)[0]
    verdicts = []
    for c in copies:
        errors, any_severity = error_rules(c.metadata)
        reported = c.rule in any_severity
        extra = [r for r in errors if r != c.rule and r not in c.also]
        verdicts.append(Verdict(c, reported, errors, extra))
    return control, verdicts


def recall_by_area(verdicts: list[Verdict]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for v in verdicts:
        hit, total = out.get(v.copy.area, (0, 0))
        out[v.copy.area] = (hit + v.reported, total + 1)
    return out


def render(control: list[str], verdicts: list[Verdict], skipped: list[str]) -> str:
    lines = [f"pristine copy: {'no error' if not control else 'ERRORS ' + ', '.join(control)}"]
    for v in verdicts:
        mark = "caught" if v.reported else "MISSED"
        extra = f"; also reported {', '.join(v.extra_errors)}" if v.extra_errors else ""
        lines.append(f"  {mark:<7} {v.copy.rule:<40} {v.copy.where}{extra}")
    lines.append("recall by area:")
    for area, (hit, total) in sorted(recall_by_area(verdicts).items(), key=lambda kv: AREAS.index(kv[0])):
        lines.append(f"  {area:<14} {hit}/{total} ({100 * hit / total:.0f} %)")
    hit = sum(v.reported for v in verdicts)
    lines.append(f"  {'all':<14} {hit}/{len(verdicts)} ({100 * hit / max(1, len(verdicts)):.0f} %)")
    if skipped:
        lines.append(f"no victim in this table for: {', '.join(skipped)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``iceberg-conformance damage TABLE OUT [--rule R ...] [--seed N] [--check] [--json]``."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="iceberg-conformance damage",
                                 description="Write single-violation copies of a valid table (and, with --check, "
                                             "run the checker on each and print recall per area).")
    ap.add_argument("table", help="a metadata file or table directory (read only)")
    ap.add_argument("out", help="directory for the copies (one subdirectory per case, and damage.json)")
    ap.add_argument("--rule", action="append", default=[], help="only the case breaking this rule (repeatable)")
    ap.add_argument("--seed", type=int, default=0, help="choice of victims (default 0)")
    ap.add_argument("--check", action="store_true", help="run the checker on every copy and report recall")
    ap.add_argument("--list", action="store_true", help="list the damage cases and exit")
    ap.add_argument("--json", action="store_true", help="with --check: the verdicts as JSON on stdout")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code not in (0, None) else 0
    if args.list:
        for d in DAMAGES:
            print(f"{d.rule:<40} {d.area:<14} {d.description}")
        return 0
    unknown = [r for r in args.rule if r not in {d.rule for d in DAMAGES}]
    if unknown:
        print(f"iceberg-conformance damage: no damage case for {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    try:
        pristine, copies, skipped = write_damaged(
            args.table, args.out, rules=args.rule or None, seed=args.seed,
            progress=None if args.json else lambda s: print(f"wrote {s}", file=sys.stderr))
    except (ValueError, OSError) as e:
        print(f"iceberg-conformance damage: {e}", file=sys.stderr)
        return 2
    if not args.check:
        print(f"{len(copies)} damaged copies and the pristine copy in {args.out} (damage.json lists them)")
        return 0
    control, verdicts = self_test(args.out, copies, pristine)
    if args.json:
        print(json.dumps({"pristine_errors": control, "no_victim": skipped,
                          "copies": [dict(v.copy.to_json(), reported=v.reported, error_rules=v.error_rules,
                                          extra_errors=v.extra_errors) for v in verdicts],
                          "recall": {a: {"caught": h, "copies": t} for a, (h, t) in recall_by_area(verdicts).items()}},
                         indent=2))
    else:
        print(render(control, verdicts, skipped))
    return 0 if not control and all(v.reported for v in verdicts) else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
