"""Opening files of a table that may not be trusted.

:func:`open_regular` opens only regular files: a FIFO would block a reader forever, a device
(``/dev/zero``) never ends, and a socket is not a file. It opens without blocking, checks the
kind of what it opened, and raises :class:`~reference.errors.SpecViolation` with rule
``files.not-regular`` for anything else, so callers report it as a finding like any other
unreadable input.
"""

from __future__ import annotations

import os
import stat
from typing import Any, BinaryIO

from .errors import SpecViolation

CLAUSE = "Table Metadata: files of a table are regular files (kit limit)"

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for binary reading, if it is a regular file (symbolic links followed)."""
    name = os.fspath(path)
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SpecViolation("files.not-regular", f"{name} is {kind_of(mode)}, not a regular file; it is not "
                                "read", clause=CLAUSE)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_regular(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a regular file (no file is opened)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def arrow_file(fh: BinaryIO) -> Any:
    """A file ``open_regular`` gave, as pyarrow's own file on the same open file where the system
    names it (``/proc/self/fd``), else ``fh``. pyarrow reads a Python file object from its own
    threads, which take the interpreter lock; one still doing so while the interpreter exits
    aborts the process ("terminate called without an active exception")."""
    import pyarrow as pa

    same = f"/proc/self/fd/{fh.fileno()}"
    try:
        if os.path.samestat(os.stat(same), os.fstat(fh.fileno())):
            return pa.OSFile(same)
    except OSError:
        pass
    return fh

