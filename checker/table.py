"""The table checker: find tables, plan the work as units, run each unit to findings.

A table is named by its metadata file. :func:`find_tables` turns what a user gives (a
metadata file, a table directory with ``metadata/vN.metadata.json`` or ``version-hint.text``,
or a whole warehouse) into metadata files. :func:`plan_units` reads the table's metadata,
manifest lists and manifests just enough to list the work; :func:`run_unit` does one piece of
it and returns findings. Both are pure functions of picklable values (a :class:`Unit` holds
only strings, numbers and JSON), so an engine can map :func:`run_unit` over the units of a
large table (one task per manifest or data file); :func:`check_table` runs them all here.

Units and what they check:

* ``metadata``: the metadata file (delegated to :mod:`reference.metadata`: JSON shape and
  cross-field rules, snapshot lineage, refs, statistics references), and that statistics and
  partition-statistics files exist; Puffin statistics files are read
  (:func:`reference.puffin.validate_puffin`).
* ``snapshot``: its manifest list (:func:`reference.manifests.read_manifest_list`), manifests
  exist with the listed length, sequence numbers against the snapshot's, a data file live at
  most once, at most one deletion vector per data file.
* ``manifest``: the manifest itself (:func:`reference.manifests.check_manifest`: Avro schema,
  field ids, header keys, counts, sequence numbers, partition summaries), first through the
  columnar screen (:mod:`checker.columnar`), which certifies a manifest none of whose entries
  breaks a rule; any other manifest is read record by record.
* ``data-file`` / ``delete-file``: :mod:`checker.datafiles` (exists, size, Parquet schema and
  types, record count, metrics against the data, partition values), and for deletes that
  they point at live data files and at positions below their record counts; deletion
  vectors are read from their Puffin file and compared with their manifest entry
  (:mod:`reference.deletion_vectors`).
* ``dv-merge`` (v3): a deletion vector against the live position delete files that apply to its
  data file in a snapshot it is live in, planned once per pair; the DV holds every position
  they delete in that file (:func:`checker.datafiles.check_dv_merge`).
* ``partition-stats``: ``total_record_count`` of each registered partition statistics file
  against a scan of its snapshot (:func:`checker.statistics.check_partition_total_records`);
  ``position_delete_record_count`` is compared by the metadata unit, from the manifests.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from iceberg_conformance.reference.findings import Finding

from iceberg_conformance.checker.datafiles import local_path
from iceberg_conformance.reference.safeio import is_regular

CLAUSE_FILES = "Manifests: data_file file_path, file_size_in_bytes"
CLAUSE_SNAPSHOTS = "Snapshots; Manifest Lists"
CLAUSE_DELETES = "Delete Formats: Position Delete Files"
CLAUSE_DV = "Delete Formats: Deletion Vectors"
CLAUSE_SCAN = "Scan Planning"
CLAUSE_STATS = "Table Statistics"
CLAUSE_SEQ_NUMBERS = "Manifests: sequence_number, file_sequence_number (must never change after a file is added)"

_VERSION_FILE = re.compile(r"^v(\d+)(\.gz)?\.metadata\.json(\.gz)?$|^(\d+)-[0-9a-fA-F-]+(\.gz)?\.metadata\.json(\.gz)?$")


@dataclass
class Unit:
    """One piece of checking work. ``kind`` says which; ``table`` is the metadata file;
    ``path`` the artifact (local path); ``context`` JSON-able facts from planning."""

    kind: str
    table: str
    path: str
    context: dict[str, Any] = field(default_factory=dict)
    #: directories the unit may read under (the table's location and directory, and roots the
    #: user allowed); empty: no confinement
    roots: list[str] = field(default_factory=list)

    def label(self) -> str:
        return f"{self.kind} {self.path}"


# --- confinement: only files under the table are read --------------------------------------------

_ROOTS: list[str] = []


def table_roots(table: str, doc: dict[str, Any] | None, allowed: list[str] | None = None) -> list[str]:
    """The directories a table's files may be read from: its ``location``, the directory of its
    metadata file's ``metadata/`` folder, and ``allowed`` (resolved, symbolic links followed)."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(table)))]
    loc = doc.get("location") if isinstance(doc, dict) else None
    if isinstance(loc, str):
        local = local_path(loc)
        if local is not None:
            roots.append(local)
    roots += list(allowed or [])
    return sorted({os.path.realpath(os.path.abspath(r)) for r in roots})


def outside(local: str) -> bool:
    """Whether ``local`` resolves outside every root in force (never when none is set)."""
    if not _ROOTS or "\0" in local:  # a NUL byte: no such file (reported as missing when read)
        return False
    real = os.path.realpath(os.path.abspath(local))
    return not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in _ROOTS)


def _outside_finding(file: str, location: str, path: str) -> Finding:
    return Finding("files.outside-table", f"{path} resolves outside the table's location and directory; it is "
                   "not read (allow its directory with --allow-root to check it)", "-", file, location, "warning")


def _blocked(local: str, file: str, location: str, path: str, missing_rule: str, what: str) -> Finding | None:
    """The finding that keeps ``local`` from being read (outside the table, absent, not a
    regular file), or None."""
    from iceberg_conformance.checker.datafiles import absent

    if outside(local):
        return _outside_finding(file, location, path)
    why = absent(local)
    if why is None:
        return None
    rule = missing_rule if why[0] == "files.missing" else why[0]
    clause = CLAUSE_SNAPSHOTS if why[0] == "files.missing" else "-"
    return Finding(rule, f"{what} {path} {why[1]}", clause, file, location)


# --- finding tables ---------------------------------------------------------------------------

def _version_of(name: str) -> int | None:
    m = _VERSION_FILE.match(name)
    if not m:
        return None
    digits = m.group(1) or m.group(4)
    return int(digits) if len(digits) < 19 else None


def latest_metadata(table_dir: str) -> str | None:
    """The current metadata file of a table directory: ``version-hint.text`` when it names an
    existing file, else the highest version number, else the newest file."""
    meta = os.path.join(table_dir, "metadata")
    if not os.path.isdir(meta):
        return None
    names = [n for n in os.listdir(meta) if not n.startswith(".") and ".metadata.json" in n]
    if not names:
        return None
    hint = os.path.join(meta, "version-hint.text")
    if os.path.isfile(hint):
        with open(hint, "r", encoding="utf-8", errors="replace") as f:
            text = f.read().strip()
        for n in names:
            if text.isdigit() and len(text) < 19 and _version_of(n) == int(text) and n.startswith("v"):
                return os.path.join(meta, n)
    versioned = [(v, n) for n in names if (v := _version_of(n)) is not None]
    if versioned:
        return os.path.join(meta, max(versioned)[1])
    return os.path.join(meta, max(names, key=lambda n: os.path.getmtime(os.path.join(meta, n))))


def find_tables(path: str) -> list[str]:
    """Metadata files of every table at or below ``path`` (a metadata file, a table
    directory, or a warehouse). Hidden entries and Hadoop ``.crc`` files are ignored."""
    path = local_path(path) or path
    if os.path.isfile(path):
        return [os.path.abspath(path)]
    if not os.path.isdir(path):
        return []
    own = latest_metadata(path)
    if own is not None:
        return [os.path.abspath(own)]
    found: list[str] = []
    for root, dirs, _files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if os.path.basename(root) in ("data", "metadata"):
            dirs[:] = []
            continue
        m = latest_metadata(root)
        if m is not None:
            found.append(os.path.abspath(m))
            dirs[:] = []
    return found


# --- loading (cached per process; every unit may run in another process) -----------------------

@lru_cache(maxsize=8)
def _load(metadata_path: str) -> tuple[Any, tuple[Finding, ...]]:
    from iceberg_conformance.reference.metadata import load_metadata

    doc, findings = load_metadata(metadata_path)
    return doc, tuple(findings)


def _doc(table: str) -> dict[str, Any] | None:
    doc = _load(table)[0]
    return doc if isinstance(doc, dict) else None


def format_version(doc: dict[str, Any]) -> int:
    v = doc.get("format-version", 1)
    return v if isinstance(v, int) and v in (1, 2, 3) else 1


@lru_cache(maxsize=64)
def _manifest_list(path: str, version: int) -> tuple[list[dict[str, Any]], list[Finding]]:
    from iceberg_conformance.reference.manifests import read_manifest_list

    return read_manifest_list(path, version)


@lru_cache(maxsize=256)
def _manifest(path: str, version: int) -> tuple[list[dict[str, Any]], list[Finding]]:
    from iceberg_conformance.reference.manifests import read_manifest

    return read_manifest(path, version)


def _snapshot_manifests(doc: dict[str, Any], snap: dict[str, Any]) -> list[dict[str, Any]]:
    """Manifest-list entries of a snapshot (v1 ``manifests`` lists become bare entries)."""
    version = format_version(doc)
    ml = snap.get("manifest-list")
    if isinstance(ml, str):
        local = local_path(ml)
        if local is None or outside(local) or not is_regular(local):
            return []
        return _manifest_list(local, version)[0]
    return [{"manifest_path": p, "partition_spec_id": 0, "content": 0, "sequence_number": 0,
             "added_snapshot_id": snap.get("snapshot-id")}
            for p in snap.get("manifests") or [] if isinstance(p, str)]


def live_entries(doc: dict[str, Any], snap: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any], int]]:
    """(manifest-list entry, entry with inherited values, index) of every ADDED/EXISTING entry
    of the snapshot."""
    from iceberg_conformance.reference.manifests import inherit

    version = format_version(doc)
    for mf in _snapshot_manifests(doc, snap):
        local = local_path(str(mf.get("manifest_path")))
        if local is None or outside(local) or not is_regular(local):
            continue
        entries, _ = _manifest(local, version)
        for i, e in enumerate(inherit(entries, mf, version)):
            if e.get("status") in (0, 1):
                yield mf, e, i


def content_key(df: dict[str, Any]) -> str:
    """The identity of a content file as the spec defines it: its ``file_path``, and for a
    deletion vector (a blob inside a Puffin file, several of which may share one file) the path
    with ``content_offset`` and ``content_size_in_bytes``."""
    path = str(df.get("file_path"))
    offset = df.get("content_offset")
    if offset is None:
        return path
    return f"{path}#{offset}+{df.get('content_size_in_bytes')}"


@dataclass
class LiveDigest:
    """What a snapshot's live-file checks need of one manifest, taken from its entries as stored
    (before inheritance) while the manifest unit decodes them, so no manifest is decoded twice:
    the content keys of its live (ADDED/EXISTING) entries with their entry indexes, totals per
    content, its deletion vectors, and its ADDED position delete files (for the v3 rule)."""

    keys: list[str] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    #: content -> [live files, their record_count]
    totals: dict[int, list[int]] = field(default_factory=dict)
    #: (referenced_data_file, entry index) of each live deletion vector
    dvs: list[tuple[str, int]] = field(default_factory=list)
    #: (content key, snapshot_id as stored) of each ADDED position delete entry without content_offset
    added_position_files: list[tuple[str, Any]] = field(default_factory=list)


def live_digest(entries: list[dict[str, Any]]) -> LiveDigest:
    d = LiveDigest()
    for i, e in enumerate(entries):
        status = e.get("status")
        if status not in (0, 1):
            continue
        df = e["data_file"]
        k = content_key(df)
        d.keys.append(k)
        d.index.append(i)
        content = df.get("content", 0)
        t = d.totals.setdefault(content if isinstance(content, int) else -1, [0, 0])
        t[0] += 1
        t[1] += int(df.get("record_count") or 0)
        if content == 1:
            if str(df.get("file_format", "")).upper() == "PUFFIN":
                d.dvs.append((str(df.get("referenced_data_file")), i))
            if status == 1 and df.get("content_offset") is None:
                d.added_position_files.append((k, e.get("snapshot_id")))
    return d


#: manifest path -> its live digest, filled by the manifest units of the current check
_DIGESTS: dict[str, LiveDigest] = {}


def _digest(local: str, version: int) -> LiveDigest:
    """The live digest of a manifest: from its manifest unit if it ran, else decoded here."""
    got = _DIGESTS.get(local)
    return got if got is not None else live_digest(_manifest(local, version)[0])


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# --- planning --------------------------------------------------------------------------------

def plan_units(table: str, allowed_roots: list[str] | None = None, metadata_only: bool = False) -> list[Unit]:
    """Every unit of work for the table whose metadata file is ``table`` (a path or a
    ``file:`` URI).

    Every snapshot the metadata lists is planned. Work is shared across snapshots by content,
    never by path alone: a manifest is decoded once, and checked against every *distinct*
    manifest-list record that names it; a content file (data file, delete file, deletion
    vector) is one unit, checked against every distinct ``data_file`` record that describes it.
    """
    table = local_path(table) or table
    doc = _doc(table)
    global _ROOTS
    _ROOTS = table_roots(table, doc, allowed_roots)
    units = _plan(table, doc, metadata_only)
    for u in units:
        u.roots = list(_ROOTS)
    return units


def _plan(table: str, doc: dict[str, Any] | None, metadata_only: bool = False) -> list[Unit]:
    units = [Unit("metadata", table, table)]
    if doc is None:
        return units
    listed_snaps = doc.get("snapshots")
    snaps = [s for s in listed_snaps if isinstance(s, dict)] if isinstance(listed_snaps, list) else []
    version = format_version(doc)
    # manifest path -> distinct record (canonical JSON) -> {record, where: [(list, index, snapshot)]}
    manifests: dict[str, dict[str, dict[str, Any]]] = {}
    # content key -> {"records": canonical -> context, "snapshots": [...]}
    files: dict[str, dict[str, Any]] = {}
    live_data: dict[int, dict[str, tuple[int, Any, Any, int]]] = {}
    puffin_deletes: dict[str, list[Any]] = {}
    # DV content key -> {"dv": its record, "files": position delete file key -> record}
    merges: dict[str, dict[str, Any]] = {}
    from iceberg_conformance.checker.lineage import appending_snapshots

    appends = appending_snapshots(doc) if version >= 3 else set()
    for snap in snaps:
        sid = snap.get("snapshot-id")
        units.append(Unit("snapshot", table, str(snap.get("manifest-list", "")), {"snapshot_id": sid}))
        try:
            listed = _snapshot_manifests(doc, snap)
            entries = [] if metadata_only else list(live_entries(doc, snap))
        except Exception:  # unreadable input: the snapshot and manifest units report it
            listed, entries = [], []
        list_path = str(snap.get("manifest-list", ""))
        for i, mf in enumerate(listed):
            p = str(mf.get("manifest_path"))
            rec = manifests.setdefault(p, {}).setdefault(_canonical(mf), {"record": mf, "where": []})
            rec["where"].append([list_path, i, sid])
        data_here: dict[str, tuple[int, Any, Any, int]] = {}
        dvs_here: list[tuple[str, dict[str, Any]]] = []
        positions_here: list[dict[str, Any]] = []
        for mf, e, i in entries:
            df = e["data_file"]
            k = content_key(df)
            spec_id = mf.get("partition_spec_id", 0)
            item = files.setdefault(k, {"records": {}, "snapshots": [], "sequence_numbers": {}, "first_row_ids": {}})
            item["snapshots"].append(sid)
            if e.get("status") == 1 and e.get("snapshot_id") in appends and df.get("content", 0) == 0:
                item["appended_by"] = e["snapshot_id"]  # ADDED by an append: only new rows
            if version >= 2:
                seqs = f"{e.get('sequence_number')}/{e.get('file_sequence_number')}"
                item["sequence_numbers"].setdefault(seqs, [str(mf.get("manifest_path")), i, sid])
            if version >= 3 and isinstance(df.get("first_row_id"), int) and df.get("content", 0) == 0:
                item.setdefault("row_ids_by_snapshot", {}).setdefault(sid, {}).setdefault(
                    df["first_row_id"], [str(mf.get("manifest_path")), i, sid])
            item["records"].setdefault(_canonical([df, spec_id]), {
                "entry": e, "manifest": str(mf.get("manifest_path")), "index": i, "spec_id": spec_id,
                "occurrences": 0})["occurrences"] += 1
            if df.get("content", 0) == 0:
                data_here[str(df.get("file_path"))] = (
                    int(df.get("record_count") or 0), spec_id, _canonical(df.get("partition") or {}),
                    int(e.get("sequence_number") or 0))
            elif df.get("content_offset") is not None:
                puffin_deletes.setdefault(str(df.get("file_path")), []).append(sid)
            if df.get("content") == 1:
                rec = {"key": k, "path": str(df.get("file_path")), "manifest": str(mf.get("manifest_path")),
                       "index": i, "spec_id": spec_id, "partition": _canonical(df.get("partition") or {}),
                       "sequence_number": e.get("sequence_number"),
                       "referenced_data_file": df.get("referenced_data_file"),
                       "content_offset": df.get("content_offset"),
                       "content_size_in_bytes": df.get("content_size_in_bytes"), "snapshot": sid}
                if str(df.get("file_format", "")).upper() == "PUFFIN":
                    dvs_here.append((k, rec))
                else:
                    positions_here.append(rec)
        if isinstance(sid, int):
            live_data[sid] = data_here
        if version >= 3 and dvs_here and positions_here:
            _plan_merges(merges, dvs_here, positions_here, data_here)
    for p, records in manifests.items():
        units.append(Unit("manifest", table, p, {"records": list(records.values())}))
    for p in puffin_deletes:
        units.append(Unit("puffin", table, p, {}))
    for k, m in merges.items():
        units.append(Unit("dv-merge", table, m["dv"]["path"], {"dv": m["dv"], "files": list(m["files"].values())}))
    if not metadata_only and any(isinstance(x, dict) for x in doc.get("partition-statistics") or []):
        units.append(Unit("partition-stats", table, table, {}))
    parents = {s.get("snapshot-id"): s.get("parent-snapshot-id") for s in snaps}
    for k, item in files.items():
        if item.get("row_ids_by_snapshot"):
            item["first_row_ids"] = _changed_first_row_ids(item["row_ids_by_snapshot"], parents)
        records = list(item["records"].values())
        first = records[0]
        df = first["entry"]["data_file"]
        content = df.get("content", 0)
        ctx: dict[str, Any] = {"records": records, "snapshots": item["snapshots"],
                               "sequence_numbers": item["sequence_numbers"], "first_row_ids": item["first_row_ids"],
                               "appended_by": item.get("appended_by")}
        if content == 0:
            units.append(Unit("data-file", table, str(df.get("file_path")), ctx))
            continue
        # deletes: the data files they may refer to, with record counts
        targets: dict[str, int] = {}
        part = _canonical(df.get("partition") or {})
        ref = df.get("referenced_data_file")
        for sid in item["snapshots"]:
            for path, (count, spec_id, dpart, _seq) in (live_data.get(sid, {}) if isinstance(sid, int) else {}).items():
                if ref is not None:
                    if path == ref:
                        targets[path] = count
                elif content == 1 and spec_id == first["spec_id"] and dpart == part:
                    targets[path] = count
        ctx["targets"] = targets
        units.append(Unit("delete-file", table, str(df.get("file_path")), ctx))
    return units


def _changed_first_row_ids(by_snapshot: dict[Any, dict[int, list[Any]]],
                           parents: dict[Any, Any]) -> dict[int, list[Any]]:
    """The first_row_id values of one data file that disagree along a snapshot's ancestry: within
    one snapshot, or between a snapshot and its nearest ancestor listing the file (an EXISTING
    file keeps the value it had). Snapshots on other branches may assign the file other ids after
    an upgrade ("For a data file in multiple branches, a writer may write the `first_row_id` from
    another branch or may assign a new `first_row_id`"): they are not compared with each other.
    Returns value -> where, more than one value when they disagree."""
    for sid, values in by_snapshot.items():
        if len(values) > 1:
            return values
        seen = {sid}
        parent = parents.get(sid)
        while parent is not None and parent not in seen and parent not in by_snapshot:
            seen.add(parent)
            parent = parents.get(parent)
        if parent is not None and parent in by_snapshot and set(by_snapshot[parent]) != set(values):
            return {**by_snapshot[parent], **values}
    return next(iter(by_snapshot.values()))


def _plan_merges(merges: dict[str, dict[str, Any]], dvs: list[tuple[str, dict[str, Any]]],
                 positions: list[dict[str, Any]], data: dict[str, tuple[int, Any, Any, int]]) -> None:
    """Pair each live deletion vector of one snapshot with the live position delete files that
    apply to its data file by the delete-planning rules of "Scan Planning" (a position delete
    file's data sequence number >= the data file's, same spec and partition, and a
    ``referenced_data_file``, where set, naming that file), added no later than the DV (data
    sequence number <= the DV's). A pair seen in several snapshots is recorded once, with the
    first snapshot it was seen in."""
    for key, dv in dvs:
        ref = dv.get("referenced_data_file")
        target = data.get(str(ref)) if ref is not None else None
        dv_seq = dv.get("sequence_number")
        if target is None or not isinstance(dv_seq, int):
            continue  # a DV of no live data file: dv.target-not-live
        _count, spec_id, part, data_seq = target
        for p in positions:
            p_seq = p.get("sequence_number")
            if not isinstance(p_seq, int) or not data_seq <= p_seq <= dv_seq:
                continue
            if p.get("referenced_data_file") not in (None, ref):
                continue
            if p["spec_id"] != spec_id or p["partition"] != part:
                continue
            item = merges.setdefault(key, {"dv": dv, "files": {}})
            item["files"].setdefault(p["key"], p)


# --- running ---------------------------------------------------------------------------------

def run_unit(unit: Unit) -> list[Finding]:
    """The findings of one unit (pure: reads files, writes nothing)."""
    return run_unit_digest(unit)[0]


def run_unit_digest(unit: Unit) -> tuple[list[Finding], LiveDigest | None]:
    """The findings of one unit and, for a manifest, its :class:`LiveDigest` (for the snapshot
    units, which then need not decode the manifest again)."""
    runners: dict[str, Callable[[Unit], list[Finding]]] = {
        "metadata": _run_metadata, "snapshot": _run_snapshot,
        "data-file": _run_file, "delete-file": _run_file, "puffin": _run_puffin,
        "dv-merge": _run_dv_merge, "partition-stats": _run_partition_stats,
    }
    global _ROOTS
    _ROOTS = list(unit.roots)
    try:
        if unit.kind == "manifest":
            return _run_manifest_digest(unit)
        return runners[unit.kind](unit), None
    except Exception as e:  # a checker bug must not hide the other findings
        return [Finding("checker.internal-error", f"{type(e).__name__}: {e}", "-", unit.path, unit.kind)], None


def _run_metadata(unit: Unit) -> list[Finding]:
    from iceberg_conformance.reference.metadata import validate_metadata

    doc, load_findings = _load(unit.table)
    out = list(load_findings)
    if doc is None:
        return out
    out.extend(validate_metadata(doc, unit.table))
    if not isinstance(doc, dict):
        return out
    from iceberg_conformance.checker.statistics import check_metadata_log_uuids

    out.extend(check_metadata_log_uuids(doc, unit.table, lambda p: None if outside(p) else p))
    from iceberg_conformance.checker.lineage import check_upgrade

    out.extend(check_upgrade(doc, unit.table, lambda p: None if outside(p) else p))
    for key in ("statistics", "partition-statistics"):
        for i, st in enumerate(doc.get(key) or []):
            if not isinstance(st, dict) or not isinstance(st.get("statistics-path"), str):
                continue
            p = local_path(st["statistics-path"])
            where = f"/{key}/{i}/statistics-path"
            if p is None:
                out.append(_unavailable(unit.table, where, f"{st['statistics-path']} is not a local path"))
                continue
            blocked = _blocked(p, unit.table, where, st["statistics-path"], "files.statistics-missing",
                               "statistics file")
            if blocked is not None:
                out.append(blocked)
                continue
            size = st.get("file-size-in-bytes")
            if isinstance(size, int) and size != os.path.getsize(p):
                out.append(Finding("files.statistics-size", f"file-size-in-bytes is {size}, the file has "
                                   f"{os.path.getsize(p)} bytes", CLAUSE_STATS, unit.table, where))
            from iceberg_conformance.checker import statistics as stats

            if key == "statistics":
                from iceberg_conformance.reference.puffin import validate_puffin

                out.extend(validate_puffin(p))
                out.extend(stats.check_statistics_file(st, p, unit.table, f"/{key}/{i}", _all_field_ids(doc)))
            else:
                snap = next((s for s in doc.get("snapshots") or [] if isinstance(s, dict)
                             and s.get("snapshot-id") == st.get("snapshot-id")), None)
                written_at = format_version(doc)
                if written_at >= 3 and snap is not None and snap.get("first-row-id") is None:
                    # a snapshot without first-row-id predates the upgrade to v3 (later ones must set
                    # it): its statistics may have been written while the table was v2
                    written_at = 2
                out.extend(stats.check_partition_statistics_file(p, written_at, unit.table, where))
                if snap is not None:
                    live = [(int(mf.get("partition_spec_id") or 0), e["data_file"])
                            for mf, e, _i in live_entries(doc, snap)]
                    out.extend(stats.check_partition_position_deletes(doc, live, p, unit.table, where))
    return out


def _all_field_ids(doc: dict[str, Any]) -> set[int] | None:
    """The field ids of every schema of the table (None when a schema cannot be read)."""
    from iceberg_conformance.checker.datafiles import _schemas
    from iceberg_conformance.reference.schema import walk

    schemas, _ = _schemas(doc)
    return {fid for s in schemas for fid, _ in walk(s)} if schemas else None


def _unavailable(file: str, location: str, why: str) -> Finding:
    return Finding("checker.not-checked", f"check not available: {why}", "-", file, location, "warning")


def _run_snapshot(unit: Unit) -> list[Finding]:
    doc = _doc(unit.table)
    if doc is None:
        return []
    version = format_version(doc)
    sid = unit.context.get("snapshot_id")
    snap = next((s for s in doc.get("snapshots") or [] if isinstance(s, dict) and s.get("snapshot-id") == sid), None)
    if snap is None:
        return []
    out: list[Finding] = []
    ml = snap.get("manifest-list")
    loc = f"snapshot {sid}"
    if isinstance(ml, str):
        local = local_path(ml)
        if local is None:
            return [_unavailable(unit.table, loc, f"manifest list {ml} is not a local path")]
        blocked = _blocked(local, unit.table, loc, ml, "files.manifest-list-missing", "manifest list")
        if blocked is not None:
            return [blocked]
        out.extend(_manifest_list(local, version)[1])
        file = local
    else:
        file = unit.table
    snap_seq = snap.get("sequence-number", 0) if version >= 2 else 0
    mfs = _snapshot_manifests(doc, snap)
    from iceberg_conformance.reference.metadata import spec_by_id

    spec_ids = set(spec_by_id(doc))
    for i, mf in enumerate(mfs):
        mpath = str(mf.get("manifest_path"))
        mloc = f"manifests[{i}]"
        sp = mf.get("partition_spec_id")
        if isinstance(sp, int) and spec_ids and sp not in spec_ids:
            out.append(Finding("snapshot.manifest-spec-id", f"manifest {mpath} has partition_spec_id {sp}, which is "
                               f"not in the table's partition-specs {sorted(spec_ids)}", "Manifest Lists: "
                               "partition_spec_id", file, mloc))
        local = local_path(mpath)
        if local is None:
            out.append(_unavailable(file, mloc, f"{mpath} is not a local path"))
            continue
        blocked = _blocked(local, file, mloc, mpath, "files.manifest-missing", "manifest")
        if blocked is not None:
            out.append(blocked)
            continue
        length = mf.get("manifest_length")
        if isinstance(length, int) and length != os.path.getsize(local):
            out.append(Finding("files.manifest-length", f"manifest_length is {length}, {mpath} has "
                               f"{os.path.getsize(local)} bytes", "Manifest Lists: manifest_length", file, mloc))
        seq = mf.get("sequence_number")
        if version >= 2 and isinstance(seq, int) and isinstance(snap_seq, int):
            if seq > snap_seq:
                out.append(Finding("snapshot.manifest-sequence-number", f"manifest sequence_number {seq} is greater "
                                   f"than the snapshot's sequence-number {snap_seq}", "Manifest Lists: sequence_number",
                                   file, mloc))
            elif mf.get("added_snapshot_id") == sid and seq != snap_seq:
                out.append(Finding("snapshot.manifest-sequence-number", f"manifest added by this snapshot has "
                                   f"sequence_number {seq}, the snapshot's is {snap_seq}",
                                   "Manifest Lists: sequence_number; Sequence Numbers", file, mloc))
    if version >= 3:
        out.extend(_row_lineage(doc, snap, mfs, file))
    from iceberg_conformance.checker.operations import check_first_row_ids_kept, check_operation

    out.extend(check_operation(snap, mfs, file))
    parent = next((s for s in doc.get("snapshots") or [] if isinstance(s, dict)
                   and s.get("snapshot-id") == snap.get("parent-snapshot-id")), None)
    if version >= 3 and parent is not None and isinstance(snap.get("first-row-id"), int):
        out.extend(check_first_row_ids_kept(snap, mfs, _snapshot_manifests(doc, parent), file))
    # live files of the snapshot: unique, and at most one DV per data file
    seen: dict[str, tuple[str, int]] = {}
    dvs: dict[str, str] = {}
    upgraded = {x.get("snapshot-id"): x.get("first-row-id") for x in doc.get("snapshots") or []
                if isinstance(x, dict) and isinstance(x.get("snapshot-id"), int)}
    totals = {"total-data-files": 0, "total-delete-files": 0, "total-records": 0,
              "total-position-deletes": 0, "total-equality-deletes": 0}
    for mf in mfs:
        mpath = str(mf.get("manifest_path"))
        local = local_path(mpath)
        if local is None or outside(local) or not is_regular(local):
            continue
        d = _digest(local, version)
        for k, i in zip(d.keys, d.index):
            if k in seen:
                first, j = seen[k]
                out.append(Finding("snapshot.duplicate-file", f"{_describe_key(k)} is live twice in snapshot {sid} "
                                   f"({first} entries[{j}] and {mpath} entries[{i}])", CLAUSE_SCAN, file, loc))
            seen[k] = (mpath, i)
        for content, (n, rc) in d.totals.items():
            if content == 0:
                totals["total-data-files"] += n
                totals["total-records"] += rc
            else:
                totals["total-delete-files"] += n
                totals["total-position-deletes" if content == 1 else "total-equality-deletes"] += rc
        if version >= 3:
            for k, stored_sid in d.added_position_files:
                added_by = stored_sid if stored_sid is not None else mf.get("added_snapshot_id")
                if isinstance(upgraded.get(added_by), int):
                    out.append(Finding("deletes.position-file-in-v3", f"{k} is a position delete file ADDED by "
                                       f"snapshot {added_by} of this v3 table (a snapshot with first-row-id)",
                                       "Delete Formats: Position delete files must not be added to v3 tables",
                                       file, loc))
        for ref, i in d.dvs:
            if ref in dvs:
                out.append(Finding("dv.one-per-data-file", f"data file {ref} has two deletion vectors in snapshot "
                                   f"{sid} ({dvs[ref]} and {mpath} entries[{i}])", CLAUSE_DV, file, loc))
            dvs[ref] = f"{mpath} entries[{i}]"
    summary = snap.get("summary")
    for key, actual in totals.items():
        claimed = summary.get(key) if isinstance(summary, dict) else None
        if isinstance(claimed, str) and claimed.isdigit() and (len(claimed) > 20 or int(claimed) != actual):
            out.append(Finding("snapshot.summary-totals", f"summary {key} is {claimed}, the live files add up "
                               f"to {actual}", "Snapshots: summary (optional metrics)", unit.table,
                               f"{loc} summary/{key}", "warning"))
    return out


def _describe_key(key: str) -> str:
    if "#" in key:
        path, rest = key.rsplit("#", 1)
        offset, size = rest.split("+", 1)
        return f"the deletion vector at content_offset {offset} (content_size_in_bytes {size}) of {path}"
    return key


CLAUSE_ROW_IDS = "Manifest Lists: First Row ID Assignment; Row Lineage"


def _row_lineage(doc: dict[str, Any], snap: dict[str, Any], mfs: list[dict[str, Any]], file: str) -> list[Finding]:
    """v3 First Row ID Assignment over one snapshot's manifest list: every data manifest has a
    ``first_row_id`` once the snapshot has a ``first-row-id``; the manifests assigned in this
    snapshot (``first_row_id`` >= the snapshot's) take disjoint ranges, each at least the
    previous one plus the rows it assigns (live data files with a null ``first_row_id``), all within
    ``first-row-id`` + ``added-rows``."""
    from iceberg_conformance.reference.manifests import read_manifest

    out: list[Finding] = []
    first = snap.get("first-row-id")
    added = snap.get("added-rows")
    if not isinstance(first, int):
        return out
    sid = snap.get("snapshot-id")
    assigned: list[tuple[int, int, int]] = []  # (first_row_id, rows it assigns, index)
    for i, mf in enumerate(mfs):
        if mf.get("content", 0) != 0:
            continue
        frid = mf.get("first_row_id")
        if frid is None:
            out.append(Finding("snapshot.manifest-first-row-id", f"snapshot {sid} has first-row-id {first}, but data "
                               f"manifest {mf.get('manifest_path')} has no first_row_id", CLAUSE_ROW_IDS, file,
                               f"manifests[{i}]"))
            continue
        if not isinstance(frid, int) or frid < first:
            continue  # assigned by an earlier snapshot and preserved
        local = local_path(str(mf.get("manifest_path")))
        if local is None or outside(local) or not is_regular(local):
            continue
        entries, _ = _manifest(local, 3)
        # DELETED entries inherit no row id (reference.manifests.inherit): live files only
        rows = sum(int(e["data_file"].get("record_count") or 0) for e in entries
                   if e["data_file"].get("content", 0) == 0 and e["data_file"].get("first_row_id") is None
                   and e.get("status") != 2)
        assigned.append((frid, rows, i))
    assigned.sort()
    for (a_first, a_rows, a_i), (b_first, _b_rows, b_i) in zip(assigned, assigned[1:]):
        if b_first < a_first + a_rows:
            out.append(Finding("snapshot.manifest-first-row-id-range", f"snapshot {sid}: manifests[{b_i}] has "
                               f"first_row_id {b_first}, inside the {a_rows} row ids from {a_first} that "
                               f"manifests[{a_i}] assigns", CLAUSE_ROW_IDS, file, f"manifests[{b_i}]"))
    if assigned and isinstance(added, int):
        last_first, last_rows, last_i = assigned[-1]
        if last_first + last_rows > first + added:
            out.append(Finding("snapshot.manifest-first-row-id-range", f"snapshot {sid}: manifests[{last_i}] assigns "
                               f"row ids up to {last_first + last_rows - 1}, beyond first-row-id {first} + added-rows "
                               f"{added}", CLAUSE_ROW_IDS, file, f"manifests[{last_i}]"))
    return out


def _run_manifest(unit: Unit) -> list[Finding]:
    findings, digest = _run_manifest_digest(unit)
    if digest is not None:
        _DIGESTS[local_path(unit.path) or unit.path] = digest
    return findings


def _run_manifest_digest(unit: Unit) -> tuple[list[Finding], LiveDigest | None]:
    """The manifest, decoded once per distinct manifest-list record naming it; findings about a
    record's agreement with the manifest (counts, summaries, inherited values) are reported
    against the manifest list that holds the record. Also the manifest's :class:`LiveDigest`,
    from the same decode."""
    from iceberg_conformance.checker.columnar import live_digest_columns, screen_manifest
    from iceberg_conformance.reference.manifests import ManifestContext, read_manifest
    from iceberg_conformance.reference.metadata import current_schema, spec_by_id

    doc = _doc(unit.table)
    if doc is None:
        return [], None
    local = local_path(unit.path)
    if local is None:
        return [_unavailable(unit.path, "", "not a local path")], None
    if outside(local) or not is_regular(local):
        return [], None  # reported by the snapshot unit
    digest: LiveDigest | None = None
    out: list[Finding] = []
    records = unit.context.get("records") or [{"record": {}, "where": []}]
    orders = doc.get("sort-orders")
    order_ids = tuple(o["order-id"] for o in orders if isinstance(o, dict) and isinstance(o.get("order-id"), int)) \
        if isinstance(orders, list) else None
    contexts = [ManifestContext(format_version(doc), current_schema(doc),
                                spec_by_id(doc).get(int(rec["record"].get("partition_spec_id") or 0)),
                                rec["record"] if "manifest_length" in rec["record"] else None, order_ids)
                for rec in records]
    screened = screen_manifest(local, format_version(doc), contexts)
    if screened is not None:
        digest = live_digest_columns(screened.frame)
    for i, (rec, ctx) in enumerate(zip(records, contexts)):
        where = rec.get("where") or []
        if screened is not None:
            found = screened.findings[i]
        else:
            entries, found = read_manifest(local, ctx.format_version, ctx, lean=True)
            if digest is None:
                digest = live_digest(entries)
            del entries
        for f in found:
            if where and f.location.startswith(RECORD_LOCATION):
                list_path, index, sid = where[0]
                also = f" (the same record is listed by {len(where) - 1} more snapshot(s))" if len(where) > 1 else ""
                f = Finding(f.rule, f"{f.message} [manifest {unit.path}, listed by snapshot {sid}]{also}",
                            f.clause, local_path(list_path) or list_path,
                            f"manifests[{index}]" + f.location[len(RECORD_LOCATION):], f.severity)
            out.append(f)
    return out, digest


RECORD_LOCATION = "manifest_list_entry"


def _run_file(unit: Unit) -> list[Finding]:
    """A content file, checked against every distinct ``data_file`` record describing it."""
    from iceberg_conformance.checker.datafiles import check_file

    doc = _doc(unit.table)
    if doc is None:
        return []
    out: list[Finding] = []
    for key, rule, what, clause in (
            ("sequence_numbers", "manifests.sequence-number-changed", "data/file sequence numbers", CLAUSE_SEQ_NUMBERS),
            ("first_row_ids", "manifests.first-row-id-changed", "first_row_id values (as written or inherited)",
             "Manifests: First Row ID Inheritance")):
        seen = unit.context.get(key) or {}
        if len(seen) > 1:
            shown = "; ".join(f"{k} in {os.path.basename(str(w[0]))} entries[{w[1]}] (snapshot {w[2]})"
                              for k, w in list(seen.items())[:4])
            first = next(iter(seen.values()))
            out.append(Finding(rule, f"{_describe_key(unit.path)}: its {what} differ between the entries that list "
                               f"it: {shown}", clause, local_path(str(first[0])) or str(first[0]),
                               f"entries[{first[1]}]"))
    local = local_path(unit.path)
    if local is not None and outside(local):
        first_rec = (unit.context.get("records") or [{}])[0]
        return out + [_outside_finding(str(first_rec.get("manifest", unit.table)),
                                       f"entries[{first_rec.get('index', '?')}] data_file/file_path", unit.path)]
    for rec in unit.context.get("records") or []:
        ctx = dict(rec)
        ctx["targets"] = unit.context.get("targets") or {}
        ctx["snapshots"] = unit.context.get("snapshots") or []
        ctx["appended_by"] = unit.context.get("appended_by")
        out.extend(check_file(doc, Unit(unit.kind, unit.table, unit.path, ctx)))
    return out


def _run_puffin(unit: Unit) -> list[Finding]:
    """A Puffin file holding deletion vectors, as a whole: footer and every blob."""
    from iceberg_conformance.reference.puffin import validate_puffin

    local = local_path(unit.path)
    if local is None or outside(local) or not is_regular(local):
        return []  # reported by the delete-file units
    return validate_puffin(local)


def _run_dv_merge(unit: Unit) -> list[Finding]:
    """A deletion vector against the older live position delete files of its data file."""
    from iceberg_conformance.checker.datafiles import check_dv_merge

    return check_dv_merge(unit.context["dv"], unit.context.get("files") or [], lambda p: not outside(p))


def _run_partition_stats(unit: Unit) -> list[Finding]:
    """``total_record_count`` of every registered partition statistics file against the rows
    a scan of its snapshot keeps (deletes applied, :mod:`reference.scan`)."""
    from iceberg_conformance.checker.statistics import check_partition_total_records

    doc = _doc(unit.table)
    if doc is None:
        return []
    out: list[Finding] = []
    for i, st in enumerate(doc.get("partition-statistics") or []):
        if not isinstance(st, dict) or not isinstance(st.get("statistics-path"), str):
            continue
        p = local_path(st["statistics-path"])
        if p is None or outside(p) or not is_regular(p):
            continue  # reported by the metadata unit
        snaps = [s for s in doc.get("snapshots") or [] if isinstance(s, dict)]
        snap = next((s for s in snaps if s.get("snapshot-id") == st.get("snapshot-id")), None)
        if snap is None:
            continue
        out.extend(check_partition_total_records(doc, snap, p, unit.table, f"/partition-statistics/{i}/statistics-path",
                                                 lambda x: not outside(x)))
    return out


# --- whole tables ----------------------------------------------------------------------------

@dataclass
class TableResult:
    table: str
    #: the findings, at most :data:`KEEP` of each rule and severity
    findings: list[Finding]
    units: int
    seconds: float
    #: (rule, severity) -> findings counted beyond the :data:`KEEP` listed
    omitted: dict[tuple[str, str], int] = field(default_factory=dict)


#: findings listed per rule and severity; more are counted (a table with a million missing files
#: costs a counter, not a million findings in memory and in the report)
KEEP = 10_000


class _Findings:
    """Findings as the units return them: duplicates dropped, at most :data:`KEEP` of a rule and
    severity kept, the rest counted (a hash stands for each counted one)."""

    def __init__(self) -> None:
        self.kept: list[Finding] = []
        self._seen: set[Finding] = set()
        self._counted: set[int] = set()
        self._per_rule: dict[tuple[str, str], int] = {}
        self.omitted: dict[tuple[str, str], int] = {}

    def extend(self, found: Iterable[Finding]) -> None:
        for f in found:
            key = (f.rule, f.severity)
            if f in self._seen:
                continue
            if self._per_rule.get(key, 0) < KEEP:
                self._seen.add(f)
                self._per_rule[key] = self._per_rule.get(key, 0) + 1
                self.kept.append(f)
            elif hash(f) not in self._counted:
                self._counted.add(hash(f))
                self.omitted[key] = self.omitted.get(key, 0) + 1


def check_table(table: str, progress: Callable[[int, int, Unit], None] | None = None,
                mapper: Callable[[Callable[[Unit], Any], list[Unit]], Iterable[Any]] | None = None,
                allowed_roots: list[str] | None = None, metadata_only: bool = False, workers: int = 1,
                planned: Callable[[list[Unit]], None] | None = None) -> TableResult:
    """Plan and run every unit of one table. ``metadata_only`` leaves out the data and delete
    files (every metadata, manifest-list and manifest rule still runs); ``workers`` > 1 runs the
    units in a pool of local processes; ``mapper`` may run them elsewhere (an engine);
    ``planned`` is told the units before they run."""
    import time

    start = time.monotonic()
    table = local_path(table) or table
    clear_caches()
    units = plan_units(table, allowed_roots, metadata_only)
    if metadata_only:
        units = [u for u in units if u.kind in METADATA_KINDS]
    if planned is not None:
        planned(units)
    findings = _Findings()
    if mapper is None and workers > 1 and len(units) > 1:
        mapper = _pool_mapper(workers)
    # manifests first: each returns the digest of its live entries, which the snapshot units
    # (run here, in this process) check, so no manifest is decoded twice
    first = [u for u in units if u.kind in ("metadata", "manifest")]
    snapshots = [u for u in units if u.kind == "snapshot"]
    rest = [u for u in units if u.kind not in ("metadata", "manifest", "snapshot")]
    done = 0

    def tick(u: Unit) -> None:
        nonlocal done
        if progress is not None:
            progress(done, len(units), u)
        done += 1
    _DIGESTS.clear()
    try:
        results: Iterable[Any] = mapper(run_unit_digest, first) if mapper is not None and len(first) > 1 else (
            run_unit_digest(u) for u in first)
        for u, (part, digest) in zip(first, results):
            tick(u)
            findings.extend(part)
            if digest is not None:
                _DIGESTS[local_path(u.path) or u.path] = digest
        for u in snapshots:
            tick(u)
            findings.extend(run_unit(u))
    finally:
        _DIGESTS.clear()
    parts: Iterable[list[Finding]] = mapper(run_unit, rest) if mapper is not None and len(rest) > 1 else (
        run_unit(u) for u in rest)
    for u, part in zip(rest, parts):
        tick(u)
        findings.extend(part)
    return TableResult(table, findings.kept, len(units), time.monotonic() - start, findings.omitted)


#: unit kinds that read only metadata, manifest lists and manifests
METADATA_KINDS = frozenset({"metadata", "snapshot", "manifest"})


def _pool_mapper(workers: int) -> Callable[[Callable[[Unit], Any], list[Unit]], Iterable[Any]]:
    """Run units in ``workers`` local processes (units are independent and picklable); results
    come back in unit order."""
    def run(fn: Callable[[Unit], Any], units: list[Unit]) -> Iterator[Any]:
        import multiprocessing

        # spawn, not fork: a forked child of a process with threads (pyarrow's pool, a test runner's)
        # can deadlock on a lock one of those threads held
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(workers) as pool:
            yield from pool.imap(fn, units, chunksize=max(1, len(units) // (workers * 8)))
    return run


def clear_caches() -> None:
    """Forget cached metadata and manifests (after files changed on disk)."""
    _load.cache_clear()
    _manifest_list.cache_clear()
    _manifest.cache_clear()
