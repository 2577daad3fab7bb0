"""Finding tables and their files: what a user names, which metadata file is current, which
local path a recorded URI is, and which directories a check may read.

The first step of a check: :func:`find_tables` turns what a user gives (a metadata file, a table
directory with ``metadata/vN.metadata.json`` or ``version-hint.text``, or a whole warehouse) into
metadata files; :func:`latest_metadata` picks a table directory's current one. Recorded paths
become local paths with :func:`local_path` (other schemes are not read); :class:`Roots` confines
reading to the table's location and directory (and directories the user allows), resolving each
path once. :func:`absent` says whether a table file can be read; for a table still being copied
from a store (:func:`watch`, :func:`filling_marker`) it waits for a file on its way.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass
from typing import Any

from iceberg_conformance.reference.safeio import kind_of


def local_path(uri: str) -> str | None:
    """A local filesystem path for ``uri`` (scheme-less absolute, ``file:/``, ``file:///``);
    None for other schemes."""
    if uri.startswith("file://"):
        rest = uri[len("file://"):]
        return rest if rest.startswith("/") else None
    if uri.startswith("file:"):
        return uri[len("file:"):]
    if "://" in uri.split("/", 1)[0] + "/" and not uri.startswith("/"):
        return None
    return uri


def _variants(prefix: str) -> list[str]:
    """The ways a recorded URI may spell the local directory ``prefix`` (a plain path, ``file:/``,
    ``file:///``); another scheme's prefix as it is."""
    local = local_path(prefix)
    if local is None or not local.startswith("/"):
        return [prefix]
    return list(dict.fromkeys([prefix, local, "file:" + local, "file://" + local]))


class Locator:
    """Where a recorded URI is read: ``moves`` (``--relocate OLD=NEW``: the table's files were
    recorded under OLD and are now under NEW) re-prefix it, then :func:`local_path` makes it a
    local path (None: not a local path). A prefix matches whole path segments only."""

    def __init__(self, moves: list[tuple[str, str]] | list[list[str]] | None = None) -> None:
        #: (old, new) as given
        self.moves: list[tuple[str, str]] = [(str(o), str(n)) for o, n in (moves or [])]
        #: (index of the move, old prefix in one of its spellings, new prefix)
        self._moves = [(i, v.rstrip("/"), new.rstrip("/")) for i, (old, new) in enumerate(self.moves)
                       for v in _variants(old)]

    def moved(self, uri: str) -> str:
        """``uri`` with matching moved prefixes replaced, each move at most once, in a chain: a
        move whose NEW is another's OLD goes on through it (``--relocate /copy=s3://b/t`` of a
        table read from ``s3://b/t``, which a store's own move maps to its local spool)."""
        used: set[int] = set()
        while True:
            hit = next(((i, old, new) for i, old, new in self._moves
                        if i not in used and (uri == old or uri.startswith(old + "/"))), None)
            if hit is None:
                return uri
            i, old, new = hit
            used.add(i)
            uri = new + uri[len(old):]

    def __call__(self, uri: str) -> str | None:
        return local_path(self.moved(uri)) if self._moves else local_path(uri)


def parse_relocate(given: list[str]) -> list[tuple[str, str]]:
    """``OLD=NEW`` arguments as (old, new) pairs; ValueError for one without ``=`` or with an
    empty side."""
    out = []
    for g in given:
        old, sep, new = g.partition("=")
        if not sep or not old or not new:
            raise ValueError(f"--relocate {g!r}: expected OLD=NEW (the prefix the metadata records = where the "
                             "files are now)")
        out.append((old, new))
    return out


def absent(path: str) -> tuple[str, str] | None:
    """Why ``path`` cannot be read as a table file: (``files.missing``, "does not exist") or
    (``files.not-regular``, "is a FIFO ..."); None for a regular file. Opens nothing. A file
    still on its way into a directory being filled (:func:`watch`) is waited for."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        if not waited_for(path):
            return "files.missing", "does not exist"
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            return "files.missing", "does not exist"
    if not stat.S_ISREG(mode):
        return "files.not-regular", f"is {kind_of(mode)}, not a regular file; it is not read"
    return None


# --- directories still being filled ---------------------------------------------------------------

#: directories a copy from a store is filling while the check runs (:func:`watch`)
_FILLING: set[str] = set()
#: seconds between two looks at a file on its way
_POLL_S = 0.005


def filling_marker(directory: str) -> str:
    """The file that exists beside ``directory`` while a copy is still filling it: a file under
    it that is not there yet may still arrive. The copy removes it when it ends, done or failed."""
    return directory.rstrip(os.sep) + ".arriving"


def watch(directory: str) -> None:
    """Note that files under ``directory`` may still arrive while its :func:`filling_marker`
    exists (only directories the kit's own store copy fills are named here: a marker a table
    holds of itself is never looked at)."""
    _FILLING.add(os.path.normpath(os.path.abspath(directory)))


def waited_for(path: str) -> bool:
    """Whether ``path``, not there when asked, is there after waiting for the copy filling its
    directory (False at once when no copy is filling it)."""
    if not _FILLING:
        return False
    try:
        full = os.path.normpath(os.path.abspath(path))
    except ValueError:
        return False
    for d in _FILLING:
        if full.startswith(d + os.sep):
            marker = filling_marker(d)
            while not os.path.exists(full):
                if not os.path.exists(marker):
                    return os.path.exists(full)
                time.sleep(_POLL_S)
            return True
    return False


# --- the current metadata file of a table -------------------------------------------------------

_VERSION_FILE = re.compile(r"^v(\d+)(\.gz)?\.metadata\.json(\.gz)?$|^(\d+)-[0-9a-fA-F-]+(\.gz)?\.metadata\.json(\.gz)?$")


def _version_of(name: str) -> int | None:
    m = _VERSION_FILE.match(name)
    if not m:
        return None
    digits = m.group(1) or m.group(4)
    return int(digits) if len(digits) < 19 else None


@dataclass(frozen=True)
class Current:
    """The metadata file a check reads, why it is the current one, and the other metadata files of
    its directory with the same or a higher version number (orphans of failed commits, or files
    written after the pointer that chose this one)."""

    path: str
    why: str
    newer: tuple[str, ...] = ()


def newer_metadata(path: str, listed: list[str] | None = None) -> tuple[str, ...]:
    """The other metadata files beside ``path`` whose version number is its own or higher (none
    when ``path`` carries no version number). ``listed``: the names in its directory, when
    known (a store's listing), else the directory is listed."""
    own = _version_of(os.path.basename(path))
    meta = os.path.dirname(path)
    if own is None or (listed is None and not os.path.isdir(meta)):
        return ()
    return tuple(sorted(os.path.join(meta, n) for n in (os.listdir(meta) if listed is None else listed)
                        if not n.startswith(".") and n != os.path.basename(path)
                        and (v := _version_of(n)) is not None and v >= own))


def has_version(name: str) -> bool:
    """Whether a metadata file's name carries a version number (``v3.metadata.json``,
    ``00003-<uuid>.metadata.json``)."""
    return _version_of(name) is not None


def current_metadata(table_dir: str, listed: list[str] | None = None) -> Current | None:
    """The current metadata file of a table directory: ``version-hint.text`` when it names an
    existing file, else the highest version number, else the newest file; None when there is
    no ``metadata/`` directory with a metadata file. ``listed``: the names ``metadata/`` holds,
    when known (a store's listing: its metadata files need not all be fetched), else listed."""
    meta = os.path.join(table_dir, "metadata")
    if not os.path.isdir(meta):
        return None
    names = [n for n in (os.listdir(meta) if listed is None else listed)
             if not n.startswith(".") and ".metadata.json" in n]
    if not names:
        return None
    hint = os.path.join(meta, "version-hint.text")
    if os.path.isfile(hint):
        with open(hint, "r", encoding="utf-8", errors="replace") as f:
            text = f.read().strip()
        for n in names:
            if text.isdigit() and len(text) < 19 and _version_of(n) == int(text) and n.startswith("v"):
                chosen = os.path.join(meta, n)
                return Current(chosen, f"metadata/version-hint.text names version {text}",
                               newer_metadata(chosen, listed))
    versioned = [(v, n) for n in names if (v := _version_of(n)) is not None]
    if versioned:
        v, n = max(versioned)
        why = "the highest version number in metadata/ (no version-hint.text)" if not os.path.isfile(hint) else \
            "the highest version number in metadata/ (version-hint.text names no metadata file there)"
        chosen = os.path.join(meta, n)
        return Current(chosen, why, newer_metadata(chosen, listed))
    newest = max(names, key=lambda n: os.path.getmtime(os.path.join(meta, n)))
    return Current(os.path.join(meta, newest), "the most recently modified metadata file (none has a version number)")


def latest_metadata(table_dir: str) -> str | None:
    """The path of :func:`current_metadata`."""
    got = current_metadata(table_dir)
    return got.path if got is not None else None


def find_current(path: str) -> list[Current]:
    """The metadata file of every table at or below ``path`` (a metadata file, a table
    directory, or a warehouse), with why it was chosen. Hidden entries and Hadoop ``.crc`` files
    are ignored."""
    path = local_path(path) or path
    if os.path.isfile(path):
        full = os.path.abspath(path)
        return [Current(full, "named directly")]  # later files are not questioned: the user chose
    if not os.path.isdir(path):
        return []
    own = current_metadata(path)
    if own is not None:
        return [_absolute(own)]
    found: list[Current] = []
    for root, dirs, _files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if os.path.basename(root) in ("data", "metadata"):
            dirs[:] = []
            continue
        m = current_metadata(root)
        if m is not None:
            found.append(_absolute(m))
            dirs[:] = []
    return found


def _absolute(c: Current) -> Current:
    return Current(os.path.abspath(c.path), c.why, tuple(os.path.abspath(n) for n in c.newer))


def find_tables(path: str) -> list[str]:
    """Metadata files of every table at or below ``path`` (see :func:`find_current`)."""
    return [c.path for c in find_current(path)]


# --- confinement: only files under the table are read --------------------------------------------

def table_roots(table: str, doc: Any, allowed: list[str] | None = None, locate: Locator | None = None) -> list[str]:
    """The directories a table's files may be read from: its ``location`` (where ``locate``
    reads it), the directory of its metadata file's ``metadata/`` folder, and ``allowed``
    (resolved, symbolic links followed)."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(table)))]
    loc = doc.get("location") if isinstance(doc, dict) else None
    if isinstance(loc, str):
        local = (locate or local_path)(loc)
        if local is not None:
            roots.append(local)
    roots += list(allowed or [])
    return sorted({os.path.realpath(os.path.abspath(r)) for r in roots})


class Roots:
    """The directories one check may read under (none: no confinement). Each path is resolved
    once (symbolic links followed), however often the table's files name it."""

    def __init__(self, roots: list[str] | None = None) -> None:
        self.roots = list(roots or [])
        self._prefixes = tuple(r.rstrip(os.sep) + os.sep for r in self.roots)
        self._outside: dict[str, bool] = {}
        #: directory -> its resolved path: a table's files share a few directories
        self._dirs: dict[str, str] = {}

    def outside(self, local: str) -> bool:
        """Whether ``local`` resolves outside every root (never when there is none)."""
        if not self.roots or "\0" in local:  # a NUL byte: no such file (reported as missing when read)
            return False
        known = self._outside.get(local)
        if known is None:
            real = self._resolved(os.path.abspath(local))
            known = self._outside[local] = not (real in self.roots or real.startswith(self._prefixes))
        return known

    def _resolved(self, path: str) -> str:
        """``os.path.realpath`` of an absolute ``path``, its directory resolved once for all the
        files in it (the file itself is resolved again only when it is a symbolic link)."""
        folder, name = os.path.split(path)
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return os.path.realpath(path)
        except (OSError, ValueError):
            pass  # not there (or not a path): realpath keeps the name as it is
        real_folder = self._dirs.get(folder)
        if real_folder is None:
            real_folder = self._dirs[folder] = os.path.realpath(folder)
        return os.path.join(real_folder, name)
