"""One check run of one table: what it knows and what it has read.

A :class:`CheckRun` holds the table's metadata file and document (loaded once), its format
version, its parsed schemas, the directories it may read (:class:`~checker.find.Roots`), and
what it has read: manifest lists and manifests (the most recent ones kept), the live digest of
every manifest a manifest unit has decoded, recent results of costly reads (:meth:`CheckRun.recent`),
and the columnar screen's counters. Nothing of it is module state: every planning step and
every unit is given the run it belongs to, and a process that runs units of a table elsewhere
(a worker, a Spark task) makes its own run from the unit's table and roots.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, Sequence, TypeVar

from iceberg_conformance.checker.find import absent, local_path, Locator, Roots, table_roots, watch
from iceberg_conformance.reference.avro import SharedBlocks
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.manifests import read_manifest, read_manifest_list_shared
from iceberg_conformance.reference.metadata import (current_schema, format_version, load_metadata, load_metadata_after,
                                                     schema_by_id, SharedArrays)
from iceberg_conformance.reference.safeio import is_regular
from iceberg_conformance.reference.types import parse_type, StructType

CLAUSE_SNAPSHOTS = "Snapshots; Manifest Lists"
#: the environment variable that turns the columnar screen of manifests off ("0")
COLUMNAR_ENV = "ICEBERG_CONFORMANCE_COLUMNAR"

K = TypeVar("K")
V = TypeVar("V")


class _Recent(Generic[K, V]):
    """The ``size`` most recently used values."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


def columnar_enabled(load: bool = False) -> bool:
    """Whether the columnar screen runs: Polars is installed and ``$ICEBERG_CONFORMANCE_COLUMNAR``
    is not ``0``. Polars is imported only with ``load`` (a second of work, which the process that
    plans a table does not wait for: the screen runs where the manifest units run)."""
    if os.environ.get(COLUMNAR_ENV, "1") == "0":
        return False
    if not load:
        import importlib.util

        return importlib.util.find_spec("polars") is not None
    try:
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class ScreenCounts:
    """Manifests the columnar screen certified, and those it left to the record reader with the
    reason it gave for the last few of them."""

    certified: int = 0
    record: int = 0
    reasons: list[tuple[str, str]] = field(default_factory=list)


class CheckRun:
    """What one check run of the table whose metadata file is ``table`` knows.

    ``roots``: the directories files may be read under (``None``: the table's own, see
    :func:`~checker.find.table_roots`; ``[]``: no confinement). ``arriving``: directories a copy
    from a store is still filling (:func:`~checker.find.watch`). ``columnar``: whether the
    columnar screen of manifests runs (``None``: :func:`columnar_enabled`, small manifests read
    record by record; ``True``: every manifest screened)."""

    def __init__(self, table: str, roots: list[str] | None = None, *, allowed: list[str] | None = None,
                 columnar: bool | None = None, relocate: list[tuple[str, str]] | list[list[str]] | None = None,
                 arriving: list[str] | None = None) -> None:
        #: recorded URI -> local path (None: not a local path), prefixes moved by ``relocate``
        self.local = Locator(relocate)
        #: directories a store copy is still filling: a file missing there is waited for
        self.arriving = list(arriving or [])
        for d in self.arriving:
            watch(d)
        self.table = local_path(table) or table
        doc, findings = load_metadata(self.table)
        #: the metadata document as parsed (any JSON value), and what loading it found
        self.loaded: Any = doc
        self.load_findings: list[Finding] = list(findings)
        #: the document when it is a JSON object, else None
        self.doc: dict[str, Any] | None = doc if isinstance(doc, dict) else None
        v = format_version(self.doc) if self.doc is not None else 0
        #: the table's format version; a document without a valid one is read as v1 (the metadata
        #: rules report it)
        self.version: int = v if v in (1, 2, 3) else 1
        self.roots = Roots(table_roots(self.table, self.doc, allowed, self.local) if roots is None else roots)
        self.columnar = columnar_enabled() if columnar is None else columnar
        #: screen every manifest, small ones too (the screen was asked for by name)
        self.screen_all = columnar is True
        self.screen = ScreenCounts()
        #: manifest path -> the live digest its manifest unit computed (see :mod:`checker.plan`)
        self.digests: dict[str, Any] = {}
        #: every manifest list read, kept for the run: planning reads each once and the snapshot
        #: units use what it read (planning makes identical records of different lists one object);
        #: a list that repeats a list read before holds its own records and that list
        #: (:class:`~reference.manifests.RepeatingEntries`), so together they grow with the
        #: distinct records, not with snapshots times records
        self._lists: dict[str, tuple[Sequence[dict[str, Any]], list[Finding]]] = {}
        #: the distinct manifest-list records decoded (see :func:`reference.manifests.read_manifest_list`)
        self._list_records: dict[Any, Any] = {}
        #: the blocks of the lists read last, whose records the next list repeats
        self._list_blocks = SharedBlocks()
        self._manifests: _Recent[str, tuple[list[dict[str, Any]], list[Finding]]] = _Recent(256)
        self._recent: dict[str, _Recent[str, tuple[Any]]] = {}
        self._schemas: tuple[list[StructType], StructType | None] | None = None
        #: path -> (rule, why) when it cannot be read as a table file, None when it is a regular file
        self._absent: dict[str, tuple[str, str] | None] = {}
        self._sizes: dict[str, int] = {}
        self._logged: list[tuple[int, str, dict[str, Any]]] | None = None
        self._snapshots: dict[Any, dict[str, Any]] | None = None
        self._odd_snapshots: list[dict[str, Any]] = []
        self._first_row_ids: dict[Any, Any] | None = None
        self._listed: dict[int, tuple[dict[str, Any], tuple[str | None, bool, bool]]] = {}
        self._repeated: tuple[int, dict[int, list[tuple[str, int]]]] | None = None
        self._record_facts: tuple[int, dict[int, tuple[Any, Any]]] = (0, {})
        #: what the snapshot units carry from a manifest list to the list repeating it, by the
        #: id of the array the lists share (see :func:`checker.units.snapshot._quiet_totals`)
        self.carried: dict[int, Any] = {}

    # --- what may be read -----------------------------------------------------------------------

    def outside(self, local: str) -> bool:
        """Whether ``local`` resolves outside the directories this run may read."""
        return self.roots.outside(local)

    def readable(self, local: str) -> bool:
        """Whether ``local`` may be read and is a regular file."""
        return not self.outside(local) and self.absent(local) is None

    def absent(self, local: str) -> tuple[str, str] | None:
        """:func:`~checker.find.absent` of ``local``, asked once per run."""
        if local in self._absent:
            return self._absent[local]
        why = self._absent[local] = absent(local)
        return why

    def size(self, local: str) -> int:
        """The size of the regular file ``local``, asked once per run."""
        got = self._sizes.get(local)
        if got is None:
            got = self._sizes[local] = os.path.getsize(local)
        return got

    def logged(self) -> list[tuple[int, str, dict[str, Any]]]:
        """:func:`logged_metadata` of the table (oldest first), read once per run."""
        if self._logged is None:
            self._logged = [] if self.doc is None else list(
                logged_metadata(self.doc, lambda p: None if self.outside(p) else p, locate=self.local))
        return self._logged

    def placement(self) -> tuple[str, str, str] | None:
        """Whether the table is read elsewhere than where its metadata says it lives: (``moved``:
        the recorded location does not exist, or ``copied``: it does, the location as recorded,
        the directory the table is read in); None when it is read where it lives (or under its
        ``write.metadata.path``), or the location is not a local path."""
        loc = self.doc.get("location") if self.doc is not None else None
        local = self.local(loc) if isinstance(loc, str) else None
        if not isinstance(loc, str) or local is None or "\0" in local:
            return None
        here = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(self.table))))
        homes = [local]
        props = self.doc.get("properties") if self.doc is not None else None
        meta_path = props.get("write.metadata.path") if isinstance(props, dict) else None
        if isinstance(meta_path, str) and self.local(meta_path) is not None:
            homes.append(os.path.dirname(str(self.local(meta_path)).rstrip("/")))
        for home in homes:
            real = os.path.realpath(os.path.abspath(home))
            if here == real or here.startswith(real.rstrip(os.sep) + os.sep):
                return None
        return ("copied" if os.path.isdir(local) else "moved"), loc, here

    def blocked(self, local: str, file: str, location: str, path: str, missing_rule: str,
                what: str) -> Finding | None:
        """The finding that keeps ``local`` from being read (outside the table, absent, not a
        regular file), or None."""
        if self.outside(local):
            return outside_finding(file, location, path)
        why = self.absent(local)
        if why is None:
            return None
        rule = missing_rule if why[0] == "files.missing" else why[0]
        clause = CLAUSE_SNAPSHOTS if why[0] == "files.missing" else "-"
        return Finding(rule, f"{what} {path} {why[1]}", clause, file, location)

    # --- what the snapshots share -----------------------------------------------------------------

    def snapshot(self, sid: Any) -> dict[str, Any] | None:
        """The first snapshot object of the metadata with ``snapshot-id`` ``sid``, or None."""
        if self._snapshots is None:
            self._snapshots = {}
            for s in (self.doc.get("snapshots") if self.doc is not None else None) or []:
                if isinstance(s, dict):
                    try:
                        self._snapshots.setdefault(s.get("snapshot-id"), s)
                    except TypeError:  # an array or object as the id: compared by value below
                        self._odd_snapshots.append(s)
        try:
            got = self._snapshots.get(sid)
        except TypeError:
            got = None
        if got is not None or not self._odd_snapshots:
            return got
        listed = (self.doc.get("snapshots") if self.doc is not None else None) or []
        return next((s for s in listed if isinstance(s, dict) and s.get("snapshot-id") == sid), None)

    def first_row_ids(self) -> dict[Any, Any]:
        """Snapshot id -> its ``first-row-id`` (the last snapshot listed with the id)."""
        if self._first_row_ids is None:
            self._first_row_ids = {x.get("snapshot-id"): x.get("first-row-id")
                                   for x in (self.doc.get("snapshots") if self.doc is not None else None) or []
                                   if isinstance(x, dict) and isinstance(x.get("snapshot-id"), int)}
        return self._first_row_ids

    def listed(self, mf: dict[str, Any]) -> tuple[str | None, bool, bool]:
        """Of the manifest a manifest-list record names: its local path (None: not a local path),
        whether it may be read and is a regular file, and whether it also has the record's
        ``manifest_length`` (or the record has none). Asked once per record object."""
        got = self._listed.get(id(mf))
        if got is not None and got[0] is mf:
            return got[1]
        local = self.local(str(mf.get("manifest_path")))
        readable = local is not None and self.readable(local)
        length = mf.get("manifest_length")
        in_place = readable and (not isinstance(length, int) or length == self.size(str(local)))
        self._listed[id(mf)] = (mf, (local, readable, in_place))  # the record is kept: its id stays its own
        return local, readable, in_place

    def repeated_keys(self) -> dict[int, list[tuple[str, int]]]:
        """Of the live digests of the run's manifests (``digests``), the content keys live more
        than once in all of them together, per digest (by its id): (key, entry index)."""
        if self._repeated is None or self._repeated[0] != len(self.digests):
            count: dict[str, int] = {}
            for d in self.digests.values():
                for k in d.keys:
                    count[k] = count.get(k, 0) + 1
            per = {id(d): [(k, i) for k, i in zip(d.keys, d.index) if count[k] > 1] for d in self.digests.values()}
            self._repeated = (len(self.digests), per)
        return self._repeated[1]

    def record_facts(self) -> dict[int, tuple[Any, Any]]:
        """What the snapshot units worked out of each manifest-list record object, by its id:
        (the record, kept so its id stays its own; what it gives). Emptied when ``digests``
        grows, since what a record gives depends on its manifest's digest and the others'."""
        if self._record_facts[0] != len(self.digests):
            self._record_facts = (len(self.digests), {})
        return self._record_facts[1]

    # --- what has been read ---------------------------------------------------------------------

    def manifest_list(self, path: str) -> tuple[Sequence[dict[str, Any]], list[Finding]]:
        """The decoded records of a manifest list (read-only: a list may be repeated by
        another) and its findings."""
        got = self._lists.get(path)
        if got is None:
            got = self._lists[path] = read_manifest_list_shared(path, self.version, self._list_records,
                                                                self._list_blocks)
        return got

    def manifest(self, path: str) -> tuple[list[dict[str, Any]], list[Finding]]:
        """The decoded entries of a manifest (as stored) and its findings."""
        got = self._manifests.get(path)
        return got if got is not None else self._manifests.put(path, read_manifest(path, self.version))

    def schemas(self) -> tuple[list[StructType], StructType | None]:
        """Every schema of the table that parses, and the current one (None if it does not)."""
        if self._schemas is None:
            self._schemas = parsed_schemas(self.doc) if self.doc is not None else ([], None)
        return self._schemas

    def recent(self, kind: str, key: str, compute: Callable[[], V], size: int = 16) -> V:
        """``compute()``, kept with the ``size`` most recent values of its ``kind`` (e.g. the rows
        of position delete files that several deletion vectors are compared with)."""
        cache = self._recent.setdefault(kind, _Recent(size))
        got = cache.get(key)
        if got is not None:
            return got[0]  # type: ignore[no-any-return]
        return cache.put(key, (compute(),))[0]  # type: ignore[no-any-return]


def parsed_schemas(doc: dict[str, Any]) -> tuple[list[StructType], StructType | None]:
    """Every schema of a metadata document that parses, and the current one (None if it does
    not)."""
    out = []
    for s in schema_by_id(doc).values():
        try:
            t = parse_type({"type": "struct", "fields": s.get("fields", [])})
        except Exception:
            continue
        if isinstance(t, StructType):
            out.append(t)
    cur = current_schema(doc)
    current = None
    if isinstance(cur, dict):
        try:
            c = parse_type({"type": "struct", "fields": cur.get("fields", [])})
            current = c if isinstance(c, StructType) else None
        except Exception:
            current = None
    return out, current


def logged_metadata(doc: dict[str, Any], allowed: Callable[[str], str | None], *, newest_first: bool = False,
                    locate: Callable[[str], str | None] = local_path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The earlier metadata files ``metadata-log`` names that can be read: (log index, path as
    recorded, document), oldest first unless ``newest_first``. ``allowed``: local path -> the
    path, or None when it may not be read. Files that are missing, not local, not regular or not
    a JSON object are passed over (the log may outlive them); each is read when it is reached."""
    log = doc.get("metadata-log")
    entries = list(enumerate(log)) if isinstance(log, list) else []
    # oldest first, a file's arrays that repeat the file before it share its values
    shared: SharedArrays = {}
    for i, entry in reversed(entries) if newest_first else entries:
        path = entry.get("metadata-file") if isinstance(entry, dict) else None
        local = locate(path) if isinstance(path, str) else None
        if path is None or local is None or allowed(local) is None or not is_regular(local):
            continue
        old = load_metadata_after(local, shared) if not newest_first else load_metadata(local)[0]
        if isinstance(old, dict):
            yield i, path, old


def outside_finding(file: str, location: str, path: str) -> Finding:
    """``files.outside-table``: ``path`` is not read."""
    return Finding("files.outside-table", f"{path} resolves outside the table's location and directory; it is "
                   "not read (allow its directory with --allow-root to check it)", "-", file, location, "warning")


def unavailable(file: str, location: str, why: str) -> Finding:
    """``checker.not-checked``: a check the checker cannot make here."""
    return Finding("checker.not-checked", f"check not available: {why}", "-", file, location, "warning")
