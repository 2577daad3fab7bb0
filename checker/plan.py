"""Planning a check: a table's work as units.

:func:`plan_units` reads the table's metadata, manifest lists and manifests just enough to list
the work. A :class:`Unit` holds only strings, numbers and JSON, so it can be checked in another
process or on another machine (:mod:`checker.check`). Work is shared across snapshots by
content, never by path alone: a manifest is one unit, checked against every *distinct*
manifest-list record that names it; a content file (data file, delete file, deletion vector) is
one unit, checked against every distinct ``data_file`` record that describes it. However many
snapshots list a manifest, planning decodes it once.

Unit kinds: ``metadata``, ``snapshot``, ``manifest``, ``data-file``, ``delete-file``, ``puffin``
(a Puffin file holding deletion vectors, whole), ``dv-merge`` (a deletion vector against the live
position delete files it replaces), ``partition-stats`` and ``replace-rows`` (a ``replace``
snapshot against its parent's rows; full checks only) (see :mod:`checker.units`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from iceberg_conformance.checker.run import CheckRun
from iceberg_conformance.reference.manifests import inherit, RepeatingEntries
from iceberg_conformance.reference.metadata import snapshots_by_id


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
    #: [old, new] prefixes of recorded paths moved (``--relocate``), as the run was given them
    relocate: list[list[str]] = field(default_factory=list)
    #: directories a copy from a store is still filling while the unit runs (a file missing
    #: there is waited for, see :func:`~checker.find.watch`)
    arriving: list[str] = field(default_factory=list)

    def label(self) -> str:
        return f"{self.kind} {self.path}"


def content_key(df: dict[str, Any]) -> str:
    """The identity of a content file as the spec defines it: its ``file_path``, and for a
    deletion vector (a blob inside a Puffin file, several of which may share one file) the path
    with ``content_offset`` and ``content_size_in_bytes``."""
    path = str(df.get("file_path"))
    offset = df.get("content_offset")
    if offset is None:
        return path
    return f"{path}#{offset}+{df.get('content_size_in_bytes')}"


def describe_key(key: str) -> str:
    """A content key in words."""
    if "#" in key:
        path, rest = key.rsplit("#", 1)
        offset, size = rest.split("+", 1)
        return f"the deletion vector at content_offset {offset} (content_size_in_bytes {size}) of {path}"
    return key


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
    #: False when the manifest could not be read to its end (its live files are not all known)
    complete: bool = True


#: rules whose finding on a manifest means its entries were not all read
UNREAD_MANIFEST = ("avro.unreadable",)


def live_digest(entries: list[dict[str, Any]]) -> LiveDigest:
    """The live digest of a manifest's decoded entries."""
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


def digest_of(run: CheckRun, local: str) -> LiveDigest:
    """The live digest of a manifest: from its manifest unit if it ran, else decoded here."""
    got = run.digests.get(local)
    if isinstance(got, LiveDigest):
        return got
    entries, found = run.manifest(local)
    d = live_digest(entries)
    d.complete = not any(f.rule in UNREAD_MANIFEST for f in found)
    return d


def id_key(value: Any) -> Any:
    """A snapshot id as a dict key: a JSON scalar as it is, an array or object (a malformed id,
    which the metadata unit reports) as its canonical text, so planning goes on."""
    return canonical(value) if isinstance(value, (list, dict)) else value


def canonical(value: Any) -> str:
    """``value`` as canonical JSON text (what "the same record" means)."""
    return json.dumps(value, sort_keys=True, default=str)


def snapshot_manifests(run: CheckRun, snap: dict[str, Any]) -> Sequence[dict[str, Any]]:
    """Manifest-list entries of a snapshot (v1 ``manifests`` lists become bare entries); read-only."""
    ml = snap.get("manifest-list")
    if isinstance(ml, str):
        local = run.local(ml)
        if local is None or not run.readable(local):
            return []
        return run.manifest_list(local)[0]
    return [{"manifest_path": p, "partition_spec_id": 0, "content": 0, "sequence_number": 0,
             "added_snapshot_id": snap.get("snapshot-id")}
            for p in snap.get("manifests") or [] if isinstance(p, str)]


Live = list[tuple[dict[str, Any], dict[str, Any], int]]


def live_entries(run: CheckRun, snap: dict[str, Any], seen: dict[tuple[str, int], tuple[dict[str, Any], Live]] | None = None,
                 listed: Sequence[dict[str, Any]] | None = None) -> Iterator[tuple[dict[str, Any], dict[str, Any], int]]:
    """(manifest-list entry, entry with inherited values, index) of every ADDED/EXISTING entry
    of the snapshot. ``seen`` keeps each manifest's live entries by the record object that names
    it (``listed``: the snapshot's records, equal records of different snapshots being one
    object, as :func:`plan` makes them), so a manifest listed by many snapshots is decoded once."""
    for mf in snapshot_manifests(run, snap) if listed is None else listed:
        local = run.local(str(mf.get("manifest_path")))
        if local is None or not run.readable(local):
            continue
        # the value kept holds the record, so its id stays its own while ``seen`` lives
        key = (local, id(mf))
        kept = seen.get(key) if seen is not None else None
        if kept is None:
            entries, _ = run.manifest(local)
            got = [(mf, e, i) for i, e in enumerate(inherit(entries, mf, run.version)) if e.get("status") in (0, 1)]
            if seen is not None:
                seen[key] = (mf, got)
        else:
            got = kept[1]
        yield from ((mf, e, i) for _mf, e, i in got)


def _live_groups(run: CheckRun, seen: dict[tuple[str, int], tuple[dict[str, Any], Live]],
                 listed: Sequence[dict[str, Any]]) -> list[tuple[tuple[str, int], Live, bool]]:
    """:func:`live_entries` of a snapshot's records ``listed``, per record: (its key in ``seen``,
    its manifest's live entries, whether they were decoded here for the first time)."""
    out = []
    for mf in listed:
        local, readable, _in_place = run.listed(mf)
        if local is None or not readable:
            continue
        key = (local, id(mf))
        kept = seen.get(key)
        if kept is None:
            entries, _ = run.manifest(local)
            got = [(mf, e, i) for i, e in enumerate(inherit(entries, mf, run.version)) if e.get("status") in (0, 1)]
            seen[key] = (mf, got)
            out.append((key, got, True))
        else:
            out.append((key, kept[1], False))
    return out


def _replace(listed: Sequence[dict[str, Any]], i: int, record: dict[str, Any]) -> None:
    """Put ``record`` at position ``i`` of a list the run holds (in the part of a
    :class:`~reference.manifests.RepeatingEntries` that holds it, so the lists repeating it
    hold it too)."""
    if isinstance(listed, RepeatingEntries):
        listed.replace(i, record)
    elif isinstance(listed, list):
        listed[i] = record


def _live_data_file(mf: dict[str, Any], e: dict[str, Any], partition: str) -> tuple[int, Any, Any, int]:
    df = e["data_file"]
    return (int(df.get("record_count") or 0), mf.get("partition_spec_id", 0), partition,
            int(e.get("sequence_number") or 0))


def appending_snapshots(doc: dict[str, Any]) -> set[int]:
    """Ids of the snapshots whose summary says operation ``append``."""
    out = set()
    for sid, s in snapshots_by_id(doc).items():
        summary = s.get("summary")
        if isinstance(summary, dict) and summary.get("operation") == "append":
            out.add(sid)
    return out


def plan_units(table: str, allowed_roots: list[str] | None = None, metadata_only: bool = False) -> list[Unit]:
    """Every unit of work for the table whose metadata file is ``table`` (a path or a
    ``file:`` URI); see :func:`plan`."""
    return plan(CheckRun(table, allowed=allowed_roots), metadata_only)


def plan(run: CheckRun, metadata_only: bool = False) -> list[Unit]:
    """Every unit of work of the run's table. Every snapshot the metadata lists is planned."""
    units = _plan(run, metadata_only)
    moves = [[old, new] for old, new in run.local.moves]
    for u in units:
        u.roots = list(run.roots.roots)
        u.relocate = moves
        u.arriving = run.arriving
    return units


def plan_metadata(run: CheckRun) -> list[Unit]:
    """The metadata unit alone (a table whose other files are not to be read)."""
    return [Unit("metadata", run.table, run.table, roots=list(run.roots.roots),
                 relocate=[[old, new] for old, new in run.local.moves], arriving=list(run.arriving))]


def _plan(run: CheckRun, metadata_only: bool = False) -> list[Unit]:
    table, doc, version = run.table, run.doc, run.version
    units = [Unit("metadata", table, table)]
    if doc is None:
        return units
    listed_snaps = doc.get("snapshots")
    snaps = [s for s in listed_snaps if isinstance(s, dict)] if isinstance(listed_snaps, list) else []
    # manifest path -> distinct record (canonical JSON) -> {record, where: [(list, index, snapshot)] first
    # listed, listed: how many times}
    manifests: dict[str, dict[str, dict[str, Any]]] = {}
    # content key -> {"records": canonical -> context, "snapshots": [...]}
    files: dict[str, dict[str, Any]] = {}
    live_data: dict[int, dict[str, tuple[int, Any, Any, int]]] = {}
    puffin_deletes: dict[str, list[Any]] = {}
    # DV content key -> {"dv": its record, "files": position delete file key -> record}
    merges: dict[str, dict[str, Any]] = {}
    seen: dict[tuple[str, int], tuple[dict[str, Any], Live]] = {}
    # id of an entry (kept alive by ``seen``, which hands the same entry to every snapshot listing
    # it through the same record) -> (its record and spec as canonical text, its partition's)
    texts: dict[int, tuple[str, str]] = {}
    # id of a manifest-list record (each kept alive in ``held``) -> what ``manifests`` holds for it:
    # the run's lists share one object for equal records, so each distinct record is written out
    # (as canonical text) once
    record_of: dict[int, dict[str, Any]] = {}
    held: list[dict[str, Any]] = []
    appends = appending_snapshots(doc) if version >= 3 else set()
    # before v3 a manifest's live entries add nothing to the files' contexts when another snapshot
    # lists the same record again: only that the snapshot lists them, kept per record (``visits``:
    # the positions in ``snaps`` of the snapshots listing it) and per snapshot (``listed_of``: its
    # records, the list the run holds), from which a file's snapshots and a snapshot's live data
    # files are made when they are needed (so planning costs the distinct entries, not snapshots
    # times entries). A v3 table's entries are gone through for each snapshot.
    lazy = version < 3
    visits: dict[tuple[str, int], list[int]] = {}
    listed_of: dict[int, Sequence[dict[str, Any]] | None] = {}
    # id of an array lists share (RepeatingEntries.shared) -> (the array, the lengths of the lists
    # on it, how much of it has been gone through)
    shared_lists: dict[int, tuple[list[dict[str, Any]], list[int], list[int]]] = {}
    for pos, snap in enumerate(snaps):
        sid = snap.get("snapshot-id")
        key = id_key(sid)
        units.append(Unit("snapshot", table, str(snap.get("manifest-list", "")), {"snapshot_id": sid}))
        list_path = str(snap.get("manifest-list", ""))
        listed = None
        try:
            listed = snapshot_manifests(run, snap)
            # a list repeating one gone through: its new records only (what the repeated ones
            # are listed by is counted from the lists' lengths below)
            new, counted, done = len(listed), True, [0]
            if isinstance(listed, RepeatingEntries):
                stack, n = listed.shared()
                _s, lengths, done = shared_lists.setdefault(id(stack), (stack, [], [0]))
                lengths.append(n)
                new, counted = max(0, n - done[0]), False
            for i in range(new):
                mf = listed[i]
                rec = record_of.get(id(mf))
                if rec is None:
                    held.append(mf)
                    # where the record is first listed, and how many times in all
                    rec = record_of[id(mf)] = manifests.setdefault(str(mf.get("manifest_path")), {}).setdefault(
                        canonical(mf), {"record": mf, "where": [[list_path, i, sid]], "listed": 0})
                if counted:
                    rec["listed"] += 1
                # the run keeps every list it read: a record equal to one seen before becomes that one
                if rec["record"] is not mf:
                    _replace(listed, i, rec["record"])
            if not counted:  # gone through to its end: a list repeating it goes on from there
                done[0] = max(done[0], len(listed))
            groups = [] if metadata_only else _live_groups(run, seen, listed)
        except Exception:  # unreadable input: the snapshot and manifest units report it
            groups, listed = [], None
        if lazy:
            if isinstance(sid, int):
                listed_of[sid] = listed if groups else None
            for group, _got, _first in groups:
                visits.setdefault(group, []).append(pos)
        data_here: dict[str, tuple[int, Any, Any, int]] = {}
        dvs_here: list[tuple[str, dict[str, Any]]] = []
        positions_here: list[dict[str, Any]] = []
        for group, got, first in groups:
            if lazy and not first:
                continue
            for mf, e, i in got:
                df = e["data_file"]
                k = content_key(df)
                spec_id = mf.get("partition_spec_id", 0)
                item = files.setdefault(k, {"records": {}, "snapshots": [], "sequence_numbers": {},
                                            "first_row_ids": {}})
                if lazy:
                    item.setdefault("in", []).append(group)
                else:
                    item["snapshots"].append(sid)
                if e.get("status") == 1 and e.get("snapshot_id") in appends and df.get("content", 0) == 0:
                    item["appended_by"] = e["snapshot_id"]  # ADDED by an append: only new rows
                if version >= 2:
                    seqs = f"{e.get('sequence_number')}/{e.get('file_sequence_number')}"
                    item["sequence_numbers"].setdefault(seqs, [str(mf.get("manifest_path")), i, sid])
                if version >= 3 and isinstance(df.get("first_row_id"), int) and df.get("content", 0) == 0:
                    item.setdefault("row_ids_by_snapshot", {}).setdefault(key, {}).setdefault(
                        df["first_row_id"], [str(mf.get("manifest_path")), i, sid])
                text = texts.get(id(e))
                if text is None:
                    text = texts[id(e)] = (canonical([df, spec_id]), canonical(df.get("partition") or {}))
                item["records"].setdefault(text[0], {
                    "entry": e, "manifest": str(mf.get("manifest_path")), "index": i, "spec_id": spec_id})
                if df.get("content", 0) == 0:
                    if not lazy:
                        data_here[str(df.get("file_path"))] = _live_data_file(mf, e, text[1])
                elif df.get("content_offset") is not None:
                    puffin_deletes.setdefault(str(df.get("file_path")), []).append(sid)
                if df.get("content") == 1 and not lazy:
                    rec = {"key": k, "path": str(df.get("file_path")), "manifest": str(mf.get("manifest_path")),
                           "index": i, "spec_id": spec_id, "partition": text[1],
                           "sequence_number": e.get("sequence_number"),
                           "referenced_data_file": df.get("referenced_data_file"),
                           "file_format": df.get("file_format"), "content_offset": df.get("content_offset"),
                           "content_size_in_bytes": df.get("content_size_in_bytes"), "snapshot": sid}
                    if str(df.get("file_format", "")).upper() == "PUFFIN":
                        dvs_here.append((k, rec))
                    else:
                        positions_here.append(rec)
        if isinstance(sid, int) and not lazy:
            live_data[sid] = data_here
        if version >= 3 and dvs_here and positions_here:
            _plan_merges(merges, dvs_here, positions_here, data_here)

    for stack, lengths, _done in shared_lists.values():  # a record at place p: in each list longer than p
        lengths.sort()
        j = 0
        for place in range(lengths[-1]):
            while lengths[j] <= place:
                j += 1
            rec = record_of.get(id(stack[place]))
            if rec is not None:  # None: a list whose records did not all read
                rec["listed"] += len(lengths) - j

    def data_of(sid: Any) -> dict[str, tuple[int, Any, Any, int]]:
        """The live data files of snapshot ``sid``: path -> (record count, spec id, partition
        text, data sequence number), the last entry of each path."""
        got = live_data.get(sid) if isinstance(sid, int) else None
        if got is None and lazy and isinstance(sid, int) and listed_of.get(sid) is not None:
            got = live_data[sid] = {}
            for _group, entries, _first in _live_groups(run, seen, listed_of[sid] or []):
                for mf, e, _i in entries:
                    df = e["data_file"]
                    if df.get("content", 0) == 0:
                        got[str(df.get("file_path"))] = _live_data_file(mf, e, texts[id(e)][1])
        return got or {}

    def snapshots_of(item: dict[str, Any]) -> list[Any]:
        """The ids of the snapshots a file is live in, once per entry that lists it there."""
        if lazy:
            at = sorted(p for group in item.pop("in", []) for p in visits.get(group, []))
            item["snapshots"] = [snaps[p].get("snapshot-id") for p in at]
        return list(item["snapshots"])
    for p, records in manifests.items():
        units.append(Unit("manifest", table, p, {"records": list(records.values())}))
    for p in puffin_deletes:
        units.append(Unit("puffin", table, p, {}))
    for k, m in merges.items():
        units.append(Unit("dv-merge", table, m["dv"]["path"], {"dv": m["dv"], "files": list(m["files"].values())}))
    if not metadata_only and any(isinstance(x, dict) for x in doc.get("partition-statistics") or []):
        units.append(Unit("partition-stats", table, table, {}))
    if not metadata_only:
        ids = {s.get("snapshot-id") for s in snaps if type(s.get("snapshot-id")) is int}
        for s in snaps:
            summary = s.get("summary")
            parent = s.get("parent-snapshot-id")
            if isinstance(summary, dict) and summary.get("operation") == "replace" and \
                    type(parent) is int and parent in ids and type(s.get("snapshot-id")) is int:
                units.append(Unit("replace-rows", table, str(s.get("manifest-list", "")),
                                  {"snapshot_id": s.get("snapshot-id"), "parent_id": s.get("parent-snapshot-id")}))
    parents = {id_key(s.get("snapshot-id")): id_key(s.get("parent-snapshot-id")) for s in snaps}
    for k, item in files.items():
        if item.get("row_ids_by_snapshot"):
            item["first_row_ids"] = _changed_first_row_ids(item["row_ids_by_snapshot"], parents)
        described = list(item["records"].values())
        first = described[0]
        df = first["entry"]["data_file"]
        content = df.get("content", 0)
        ctx: dict[str, Any] = {"records": described, "sequence_numbers": item["sequence_numbers"],
                               "first_row_ids": item["first_row_ids"], "appended_by": item.get("appended_by")}
        if content == 0:
            units.append(Unit("data-file", table, str(df.get("file_path")), ctx))
            continue
        # deletes: the snapshots they are live in (data files do not need them)
        ctx["snapshots"] = snapshots_of(item)
        # deletes: the data files they may refer to, with record counts
        targets: dict[str, int] = {}
        # a referenced data file live in another spec or partition than the delete file: the
        # delete applies to none of its rows (Scan Planning); path -> [spec id, partition]
        elsewhere: dict[str, list[Any]] = {}
        part = canonical(df.get("partition") or {})
        ref = df.get("referenced_data_file")
        for sid in ctx["snapshots"]:
            for path, (count, spec_id, dpart, _seq) in data_of(sid).items():
                same = spec_id == first["spec_id"] and dpart == part
                if ref is not None:
                    if path != ref:
                        continue
                    if same or content != 1:
                        targets[path] = count
                    else:
                        elsewhere[path] = [spec_id, json.loads(dpart)]
                elif content == 1 and same:
                    targets[path] = count
        ctx["targets"] = targets
        ctx["elsewhere"] = {p: w for p, w in elsewhere.items() if p not in targets}
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
