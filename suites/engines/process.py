"""Engines that run native code read in a process of their own.

A native crash of an engine (DuckDB 1.5.5 ends its process with a segmentation fault on some
valid tables) must fail that read, not end the test session: :func:`isolated` runs a read in a
worker process kept per engine, and turns a dead or hung worker into :class:`ReaderCrashed`.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, TypeVar

class ReaderUnavailable(Exception):
    """The reader's library is not installed (the test skips with this reason)."""


class ReaderCrashed(Exception):
    """The engine's process died while reading (a native crash) or did not answer in time: that
    read fails, the test session goes on."""


T = TypeVar("T")
#: seconds an isolated read may take before its process is killed
ISOLATED_TIMEOUT = 600.0
_POOLS: dict[str, ProcessPoolExecutor] = {}


def _drop_pool(name: str, kill: bool) -> None:
    pool = _POOLS.pop(name, None)
    if pool is None:
        return
    if kill:   # a hung engine: end its process, shutdown() would wait for it
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown_all() -> None:
    """End every engine's worker process. A command that ends with ``os._exit`` (the command
    line does, see ``cli.exit_hard``) runs no exit handler, so the workers would outlive it and
    hold its standard output open: ``iceberg-conformance scan ... | tail`` would never end."""
    for name in list(_POOLS):
        _drop_pool(name, kill=True)


def isolated(name: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker process kept for engine ``name``, so that a native crash of the
    engine (DuckDB 1.5.5 ends its process with a segmentation fault on some valid tables) fails
    this read with :class:`ReaderCrashed` instead of ending the test session. ``fn`` must be a
    module-level function; the worker is started (spawn) on first use and again after a crash."""
    pool = _POOLS.get(name)
    if pool is None:
        pool = _POOLS[name] = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        return pool.submit(fn, *args).result(timeout=ISOLATED_TIMEOUT)
    except BrokenProcessPool:
        _drop_pool(name, kill=False)
        raise ReaderCrashed(f"{name}'s process ended abruptly while reading (a native crash such as a "
                            "segmentation fault)") from None
    except FutureTimeout:
        _drop_pool(name, kill=True)
        raise ReaderCrashed(f"{name} did not answer within {ISOLATED_TIMEOUT:.0f} s; its process was killed") from None

