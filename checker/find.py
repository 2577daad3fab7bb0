"""Finding tables and their files: what a user names, which metadata file is current, which
local path a recorded URI is, and which directories a check may read.

The first step of a check: :func:`find_tables` turns what a user gives (a metadata file, a table
directory with ``metadata/vN.metadata.json`` or ``version-hint.text``, or a whole warehouse) into
metadata files; :func:`latest_metadata` picks a table directory's current one. Recorded paths
become local paths with :func:`local_path` (other schemes are not read); :class:`Roots` confines
reading to the table's location and directory (and directories the user allows), resolving each
path once.
"""

from __future__ import annotations

import os
import re
import stat
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


def absent(path: str) -> tuple[str, str] | None:
    """Why ``path`` cannot be read as a table file: (``files.missing``, "does not exist") or
    (``files.not-regular``, "is a FIFO ..."); None for a regular file. Opens nothing."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return "files.missing", "does not exist"
    if not stat.S_ISREG(mode):
        return "files.not-regular", f"is {kind_of(mode)}, not a regular file; it is not read"
    return None


# --- the current metadata file of a table -------------------------------------------------------

_VERSION_FILE = re.compile(r"^v(\d+)(\.gz)?\.metadata\.json(\.gz)?$|^(\d+)-[0-9a-fA-F-]+(\.gz)?\.metadata\.json(\.gz)?$")


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


# --- confinement: only files under the table are read --------------------------------------------

def table_roots(table: str, doc: Any, allowed: list[str] | None = None) -> list[str]:
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


class Roots:
    """The directories one check may read under (none: no confinement). Each path is resolved
    once (symbolic links followed), however often the table's files name it."""

    def __init__(self, roots: list[str] | None = None) -> None:
        self.roots = list(roots or [])
        self._prefixes = tuple(r.rstrip(os.sep) + os.sep for r in self.roots)
        self._outside: dict[str, bool] = {}

    def outside(self, local: str) -> bool:
        """Whether ``local`` resolves outside every root (never when there is none)."""
        if not self.roots or "\0" in local:  # a NUL byte: no such file (reported as missing when read)
            return False
        known = self._outside.get(local)
        if known is None:
            real = os.path.realpath(os.path.abspath(local))
            known = self._outside[local] = not (real in self.roots or real.startswith(self._prefixes))
        return known
