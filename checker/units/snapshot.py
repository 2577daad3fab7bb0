"""The ``snapshot`` unit: one snapshot's manifest list against the snapshot and its manifests.

* the manifest list reads (:func:`reference.manifests.read_manifest_list`), every manifest it
  names exists with the listed length, its ``partition_spec_id`` is the table's, its sequence
  number is the snapshot's (added by it) or lower, its ``manifest_path`` is fully qualified;
* a content file is live at most once, a data file has at most one deletion vector, no
  position delete file is added to a v3 table, and the summary's totals are the live files';
* v3 First Row ID Assignment: the manifests a snapshot assigns take disjoint ranges within
  ``first-row-id`` + ``added-rows``; a manifest's ``first_row_id`` is kept from the parent;
* ``summary.operation`` against the manifests the snapshot added ("Snapshots": ``append`` --
  only data files were added and no files were removed; ``delete`` -- data files were removed
  and/or delete files were added). A count that is null is not judged.

The live files come from each manifest's :class:`~checker.plan.LiveDigest` (computed by its
manifest unit), so no manifest is decoded again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from iceberg_conformance.checker.plan import describe_key, digest_of, LiveDigest, snapshot_manifests, Unit
from iceberg_conformance.checker.run import CheckRun, unavailable
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.manifests import RepeatingEntries
from iceberg_conformance.reference.metadata import fully_qualified
from iceberg_conformance.reference.metadata import spec_by_id

CLAUSE_DV = "Delete Formats: Deletion Vectors"
CLAUSE_SCAN = "Scan Planning"


def check_snapshot(run: CheckRun, unit: Unit) -> list[Finding]:
    doc = run.doc
    if doc is None:
        return []
    version = run.version
    sid = unit.context.get("snapshot_id")
    snap = run.snapshot(sid)
    if snap is None:
        return []
    out: list[Finding] = []
    ml = snap.get("manifest-list")
    loc = f"snapshot {sid}"
    if isinstance(ml, str):
        local = run.local(ml)
        if local is None:
            return [unavailable(unit.table, loc, f"manifest list {ml} is not a local path")]
        blocked = run.blocked(local, unit.table, loc, ml, "files.manifest-list-missing", "manifest list")
        if blocked is not None:
            return [blocked]
        out.extend(run.manifest_list(local)[1])
        file = local
    else:
        file = unit.table
    snap_seq = snap.get("sequence-number", 0) if version >= 2 else 0
    mfs = snapshot_manifests(run, snap)
    spec_ids = set(spec_by_id(doc))
    seqs = version >= 2 and isinstance(snap_seq, int)
    quick = _quiet_totals(run, mfs, sid, snap_seq if seqs else None, spec_ids) if version < 3 else None
    if quick is not None:
        totals, complete, added_here = quick
        out.extend(check_operation(snap, mfs, file, added_here))
        return out + _summary_totals(snap, totals, complete, unit.table, loc)
    facts = [run.listed(mf) for mf in mfs]
    for i, (mf, (_local, _readable, in_place)) in enumerate(zip(mfs, facts)):
        listed = mf.get("manifest_path")
        if isinstance(ml, str) and isinstance(listed, str) and not fully_qualified(listed):
            out.append(Finding("snapshot.manifest-path-relative", f"manifest_path {listed!r} is a relative path; before "
                               "v4 every path field holds a fully-qualified path (a URI with a scheme, or an absolute "
                               "path)", "Paths in Metadata", file, f"manifests[{i}].manifest_path"))
        sp = mf.get("partition_spec_id")
        if isinstance(sp, int) and spec_ids and sp not in spec_ids:
            out.append(Finding("snapshot.manifest-spec-id", f"manifest {mf.get('manifest_path')} has partition_spec_id "
                               f"{sp}, which is not in the table's partition-specs {sorted(spec_ids)}",
                               "Manifest Lists: partition_spec_id", file, f"manifests[{i}]"))
        if not in_place:
            mpath, mloc = str(mf.get("manifest_path")), f"manifests[{i}]"
            local = run.local(mpath)
            if local is None:
                out.append(unavailable(file, mloc, f"{mpath} is not a local path"))
                continue
            blocked = run.blocked(local, file, mloc, mpath, "files.manifest-missing", "manifest")
            if blocked is not None:
                out.append(blocked)
                continue
            length = mf.get("manifest_length")
            if isinstance(length, int) and length != run.size(local):
                out.append(Finding("files.manifest-length", f"manifest_length is {length}, {mpath} has "
                                   f"{run.size(local)} bytes", "Manifest Lists: manifest_length", file, mloc))
        seq = mf.get("sequence_number") if seqs else None
        if isinstance(seq, int):
            if seq > snap_seq:
                out.append(Finding("snapshot.manifest-sequence-number", f"manifest sequence_number {seq} is greater "
                                   f"than the snapshot's sequence-number {snap_seq}", "Manifest Lists: sequence_number",
                                   file, f"manifests[{i}]"))
            elif seq != snap_seq and mf.get("added_snapshot_id") == sid:
                out.append(Finding("snapshot.manifest-sequence-number", f"manifest added by this snapshot has "
                                   f"sequence_number {seq}, the snapshot's is {snap_seq}",
                                   "Manifest Lists: sequence_number; Sequence Numbers", file, f"manifests[{i}]"))
    if version >= 3:
        out.extend(_row_lineage(run, snap, mfs, file))
    out.extend(check_operation(snap, mfs, file))
    parent = run.snapshot(snap.get("parent-snapshot-id"))
    if version >= 3 and parent is not None and isinstance(snap.get("first-row-id"), int):
        out.extend(check_first_row_ids_kept(snap, mfs, snapshot_manifests(run, parent), file))
    # live files of the snapshot: unique, and at most one DV per data file
    seen: dict[str, tuple[str, int]] = {}
    dvs: dict[str, str] = {}
    upgraded = run.first_row_ids()
    # a content key live once in all the table's manifests together cannot be live twice here:
    # only the others are followed (all of them when a digest is not the run's or a manifest is
    # listed twice)
    shared: dict[int, list[tuple[str, int]]] | None = run.repeated_keys()
    paths = {local for local, _r, _p in facts}
    if len(paths) != len(mfs) or not paths <= run.digests.keys():
        shared = None
    totals = {"total-data-files": 0, "total-delete-files": 0, "total-records": 0,
              "total-position-deletes": 0, "total-equality-deletes": 0}
    # the totals are known only when every manifest was read to its end
    all_read = True
    for mf, (local, readable, _in_place) in zip(mfs, facts):
        if local is None or not readable:
            all_read = False
            continue
        d = run.digests.get(local)
        if not isinstance(d, LiveDigest):
            d = digest_of(run, local)
        all_read = all_read and d.complete
        for k, i in zip(d.keys, d.index) if shared is None else shared.get(id(d), ()):
            mpath = str(mf.get("manifest_path"))
            if k in seen:
                first, j = seen[k]
                out.append(Finding("snapshot.duplicate-file", f"{describe_key(k)} is live twice in snapshot {sid} "
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
            mpath = str(mf.get("manifest_path"))
            if ref in dvs:
                out.append(Finding("dv.one-per-data-file", f"data file {ref} has two deletion vectors in snapshot "
                                   f"{sid} ({dvs[ref]} and {mpath} entries[{i}])", CLAUSE_DV, file, loc))
            dvs[ref] = f"{mpath} entries[{i}]"
    return out + _summary_totals(snap, totals, all_read, unit.table, loc)


def _summary_totals(snap: dict[str, Any], totals: dict[str, int], all_read: bool, table: str,
                    loc: str) -> list[Finding]:
    """``snapshot.summary-totals``: the summary's totals against the live files' (``all_read``:
    every manifest was read to its end, else nothing is judged)."""
    out: list[Finding] = []
    summary = snap.get("summary")
    for key, actual in totals.items() if all_read else ():
        claimed = summary.get(key) if isinstance(summary, dict) else None
        if isinstance(claimed, str) and claimed.isdigit() and (len(claimed) > 20 or int(claimed) != actual):
            out.append(Finding("snapshot.summary-totals", f"summary {key} is {claimed}, the live files add up "
                               f"to {actual}", "Snapshots: summary (optional metrics)", table,
                               f"{loc} summary/{key}", "warning"))
    return out


#: the totals a snapshot's summary may state, in the order of :func:`_record_facts`' totals
TOTALS = ("total-data-files", "total-delete-files", "total-records", "total-position-deletes",
          "total-equality-deletes")


def _quiet_totals(run: CheckRun, mfs: Sequence[dict[str, Any]], sid: Any, snap_seq: int | None,
                  spec_ids: set[int]) -> tuple[dict[str, int], bool, list[int] | None] | None:
    """The live files' totals of a snapshot before v3 whose manifest-list records ``mfs`` give no
    finding of the per-record and live-file rules of :func:`check_snapshot`, whether every
    manifest was read to its end, and the positions of the records whose ``added_snapshot_id``
    is the snapshot's (None: not known, look at each); None when a record may give a finding
    (those rules then go through the records).
    What a record gives is worked out once per record object (:meth:`CheckRun.record_facts`):
    a list that repeats its parent's records costs a look-up per record. ``snap_seq``: the
    snapshot's sequence number when the records' are judged against it."""
    facts = run.record_facts()

    def row_of(mf: dict[str, Any]) -> tuple[str, int | None, Any, tuple[int, ...], bool] | None:
        got = facts.get(id(mf))
        if got is None or got[0] is not mf:
            got = facts[id(mf)] = (mf, _record_facts(run, mf, spec_ids))
        return got[1]

    if isinstance(mfs, RepeatingEntries):  # what its records give, carried on from the list it repeats
        try:
            st = _running_totals(run, mfs, facts, row_of)
            got = st.verdict(sid, snap_seq)
            if got is None:
                return None
            n = len(mfs)  # the list is the array's first n records read backwards
            return got[0], got[1], sorted(n - 1 - p for p in st.where.get(sid, ()))
        except TypeError:  # an id that is no JSON scalar: record by record below, and not carried on
            run.carried.pop(id(mfs.shared()[0]), None)
    rows = []
    for mf in mfs:
        row = row_of(mf)
        if row is None:
            return None
        rows.append(row)
    if len({r[0] for r in rows}) != len(rows):
        return None  # a manifest listed twice: its keys are live twice
    if snap_seq is not None:
        for _local, seq, added, _t, _c in rows:
            if seq is not None and (seq > snap_seq or (seq != snap_seq and added == sid)):
                return None
    sums = [sum(c) for c in zip(*(r[3] for r in rows))] if rows else [0] * len(TOTALS)
    return dict(zip(TOTALS, sums)), all(r[4] for r in rows), None


@dataclass
class _Running:
    """What :func:`_quiet_totals` needs of the first ``upto`` records of a shared list array
    (:meth:`reference.manifests.RepeatingEntries.shared`), carried on as the lists repeating
    each other are checked (each list's records cost their look-ups once, not once per list)."""

    stack: list[dict[str, Any]]
    facts: dict[int, Any]
    upto: int = 0
    #: a record gives a finding by itself (:func:`_record_facts` None), or a manifest is listed twice
    stop: bool = False
    locals: set[str] = field(default_factory=set)
    max_seq: int | None = None
    #: added_snapshot_id -> the sequence numbers of its records
    added: dict[Any, set[int]] = field(default_factory=dict)
    #: added_snapshot_id -> the places of its records in the array
    where: dict[Any, list[int]] = field(default_factory=dict)
    sums: list[int] = field(default_factory=lambda: [0] * len(TOTALS))
    complete: bool = True

    def verdict(self, sid: Any, snap_seq: int | None) -> tuple[dict[str, int], bool] | None:
        if self.stop:
            return None
        if snap_seq is not None:
            if self.max_seq is not None and self.max_seq > snap_seq:
                return None
            if any(seq != snap_seq for seq in self.added.get(sid, ())):
                return None
        return dict(zip(TOTALS, self.sums)), self.complete


def _running_totals(run: CheckRun, mfs: RepeatingEntries, facts: dict[int, Any],
                    row_of: Callable[[dict[str, Any]], tuple[str, int | None, Any, tuple[int, ...], bool] | None]
                    ) -> _Running:
    """The :class:`_Running` state of the records of ``mfs``, extended from the one of the list
    it repeats (made again when the facts were emptied or a shorter list comes after)."""
    stack, n = mfs.shared()
    st = run.carried.get(id(stack))
    if not isinstance(st, _Running) or st.stack is not stack or st.facts is not facts or st.upto > n:
        st = run.carried[id(stack)] = _Running(stack, facts)  # the state holds the array: its id stays its own
    for mf in stack[st.upto:n]:
        st.upto += 1
        if st.stop:
            continue
        row = row_of(mf)
        if row is None or row[0] in st.locals:
            st.stop = True
            continue
        local, seq, added, totals, complete = row
        st.where.setdefault(added, []).append(st.upto - 1)  # may raise, as below, before any other state
        if seq is not None:  # first what may raise (an id that is no JSON scalar), then the state
            st.added.setdefault(added, set()).add(seq)
            st.max_seq = seq if st.max_seq is None else max(st.max_seq, seq)
        st.locals.add(local)
        st.sums = [a + b for a, b in zip(st.sums, totals)]
        st.complete = st.complete and complete
    return st


def _record_facts(run: CheckRun, mf: dict[str, Any], spec_ids: set[int]
                  ) -> tuple[str, int | None, Any, tuple[int, ...], bool] | None:
    """Of a manifest-list record that gives no finding by itself (its spec id is the table's, its
    manifest_path fully qualified, its manifest is readable with the listed length, and its manifest's live digest has no
    deletion vector and no content key live in another manifest of the run): its manifest's
    local path, its sequence number (None: not an integer), ``added_snapshot_id``, the live
    files' totals (in :data:`TOTALS` order) and whether the manifest was read to its end. None
    for any other record."""
    sp = mf.get("partition_spec_id")
    if isinstance(sp, int) and spec_ids and sp not in spec_ids:
        return None
    listed = mf.get("manifest_path")
    if not isinstance(listed, str) or not fully_qualified(listed):  # a finding of its own (whatever it resolves to)
        return None
    local, _readable, in_place = run.listed(mf)
    d = run.digests.get(local) if local is not None and in_place else None
    if not isinstance(d, LiveDigest) or d.dvs or run.repeated_keys().get(id(d)):
        return None
    t = [0] * len(TOTALS)
    for content, (n, rc) in d.totals.items():
        if content == 0:
            t[0] += n
            t[2] += rc
        else:
            t[1] += n
            t[3 if content == 1 else 4] += rc
    seq = mf.get("sequence_number")
    return str(local), seq if isinstance(seq, int) else None, mf.get("added_snapshot_id"), tuple(t), d.complete


CLAUSE_ROW_IDS = "Manifest Lists: First Row ID Assignment; Row Lineage"


def _row_lineage(run: CheckRun, snap: dict[str, Any], mfs: Sequence[dict[str, Any]], file: str) -> list[Finding]:
    """v3 First Row ID Assignment over one snapshot's manifest list: every data manifest has a
    ``first_row_id`` once the snapshot has a ``first-row-id``; the manifests assigned in this
    snapshot (``first_row_id`` >= the snapshot's) take disjoint ranges, each at least the
    previous one plus the rows it assigns (live data files with a null ``first_row_id``), all within
    ``first-row-id`` + ``added-rows``."""
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
        local = run.local(str(mf.get("manifest_path")))
        if local is None or not run.readable(local):
            continue
        entries, _ = run.manifest(local)
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


CLAUSE_OPERATION = "Snapshots: operation"


def check_operation(snap: dict[str, Any], manifests: Sequence[dict[str, Any]], file: str,
                    added_here: list[int] | None = None) -> list[Finding]:
    """Findings for one snapshot whose manifest-list records are ``manifests``. ``added_here``:
    the positions of the records whose ``added_snapshot_id`` is the snapshot's, when known
    (None: each record is looked at)."""
    summary = snap.get("summary")
    op = summary.get("operation") if isinstance(summary, dict) else None
    sid = snap.get("snapshot-id")
    if op not in ("append", "delete"):
        return []
    out: list[Finding] = []
    at = range(len(manifests)) if added_here is None else added_here
    for i in at:
        mf = manifests[i]
        if mf.get("added_snapshot_id") != sid:
            continue
        content = mf.get("content") or 0
        added, deleted = mf.get("added_files_count"), mf.get("deleted_files_count")
        where = f"manifests[{i}]"
        if op == "append" and isinstance(deleted, int) and deleted > 0:
            out.append(Finding("snapshot.operation-files", f"append snapshot {sid} removed {deleted} file(s) "
                               f"({mf.get('manifest_path')}); an append only adds data files", CLAUSE_OPERATION, file, where))
        elif op == "append" and content == 1 and isinstance(added, int) and added > 0:
            out.append(Finding("snapshot.operation-files", f"append snapshot {sid} added {added} delete file(s) "
                               f"({mf.get('manifest_path')}); an append only adds data files", CLAUSE_OPERATION, file, where))
        elif op == "delete" and content == 0 and isinstance(added, int) and added > 0:
            out.append(Finding("snapshot.operation-files", f"delete snapshot {sid} added {added} data file(s) "
                               f"({mf.get('manifest_path')}); a delete removes data files or adds delete files",
                               CLAUSE_OPERATION, file, where))
    return out


CLAUSE_ROW_IDS_KEPT = "Manifest Lists: First Row ID Assignment"


def check_first_row_ids_kept(snap: dict[str, Any], manifests: Sequence[dict[str, Any]],
                             parent_manifests: Sequence[dict[str, Any]], file: str) -> list[Finding]:
    """v3 First Row ID Assignment against the parent snapshot's manifest list: a data manifest
    the parent lists with a ``first_row_id`` keeps it; one the parent lists without (or does not
    list) was assigned by this snapshot, at or above the snapshot's ``first-row-id``."""
    first = snap.get("first-row-id")
    sid = snap.get("snapshot-id")
    before = {str(m.get("manifest_path")): m.get("first_row_id") for m in parent_manifests if not m.get("content")}
    out: list[Finding] = []
    for i, mf in enumerate(manifests):
        frid = mf.get("first_row_id")
        if mf.get("content") or not isinstance(frid, int) or not isinstance(first, int):
            continue
        path = str(mf.get("manifest_path"))
        kept = before.get(path)
        if isinstance(kept, int) and kept != frid:
            out.append(Finding("snapshot.manifest-first-row-id-kept", f"snapshot {sid}: manifest {path} has "
                               f"first_row_id {frid}, the parent snapshot's list gives it {kept}", CLAUSE_ROW_IDS_KEPT,
                               file, f"manifests[{i}]"))
        elif kept is None and frid < first:
            out.append(Finding("snapshot.manifest-first-row-id-kept", f"snapshot {sid}: manifest {path}, without a "
                               f"first_row_id before this snapshot, was assigned {frid}, below the snapshot's "
                               f"first-row-id {first}", CLAUSE_ROW_IDS_KEPT, file, f"manifests[{i}]"))
    return out
