"""Running a check: the units of a table, here, in local worker processes, or elsewhere.

:func:`check_table` plans a table (:mod:`checker.plan`) and runs every unit: the metadata and
manifest units first (each manifest unit returns its live digest), then the snapshot units in
this process from those digests, then the content files. :func:`run_batch` runs units of one
table with one :class:`~checker.run.CheckRun`, so what the batch reads is read once; a mapper
given to :func:`check_table` may run batches elsewhere (``workers`` > 1: local processes started
with ``spawn``; :mod:`suites.spark.distributed`: Spark tasks). Every unit is a pure function of
its picklable fields: it reads files and writes nothing.
"""

from __future__ import annotations

import itertools
import multiprocessing
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from iceberg_conformance.checker.find import Current
from iceberg_conformance.checker.plan import LiveDigest, plan, plan_metadata, Unit
from iceberg_conformance.checker.run import CheckRun, columnar_enabled
from iceberg_conformance.checker.units.datafile import check_content_file
from iceberg_conformance.checker.units.deletes import check_dv_merge_unit, check_puffin
from iceberg_conformance.checker.units.manifest import check_manifest
from iceberg_conformance.checker.units.metadata import check_metadata
from iceberg_conformance.checker.units.replace import check_replace_rows
from iceberg_conformance.checker.units.snapshot import check_snapshot
from iceberg_conformance.checker.units.statistics import check_partition_stats
from iceberg_conformance.reference.findings import Finding

#: what runs each kind of unit (the manifest unit also returns the manifest's live digest)
RUNNERS: dict[str, Callable[[CheckRun, Unit], list[Finding]]] = {
    "metadata": check_metadata, "snapshot": check_snapshot,
    "data-file": check_content_file, "delete-file": check_content_file, "puffin": check_puffin,
    "dv-merge": check_dv_merge_unit, "partition-stats": check_partition_stats, "replace-rows": check_replace_rows,
}
#: unit kinds that read only metadata, manifest lists and manifests
METADATA_KINDS = frozenset({"metadata", "snapshot", "manifest"})

Result = tuple[list[Finding], "LiveDigest | None"]
Mapper = Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]


def run_unit_digest(unit: Unit, run: CheckRun | None = None) -> tuple[list[Finding], LiveDigest | None]:
    """The findings of one unit and, for a manifest, its :class:`~checker.plan.LiveDigest` (for
    the snapshot units, which then need not decode the manifest again). ``run``: the run it
    belongs to (made from the unit's table and roots when not given)."""
    try:
        run = run if run is not None else CheckRun(unit.table, list(unit.roots), relocate=unit.relocate,
                                                   arriving=unit.arriving)
        if unit.kind == "manifest":
            return check_manifest(run, unit)
        return RUNNERS[unit.kind](run, unit), None
    except Exception as e:  # a checker bug must not hide the other findings
        return [Finding("checker.internal-error", f"{type(e).__name__}: {e}", "-", unit.path, unit.kind)], None


def run_unit(unit: Unit) -> list[Finding]:
    """The findings of one unit (pure: reads files, writes nothing)."""
    return run_unit_digest(unit)[0]


def run_batch(units: list[Unit]) -> list[tuple[list[Finding], LiveDigest | None]]:
    """The results of units of one table, in order, with one run (each file read once)."""
    runs: dict[tuple[str, tuple[str, ...], str, tuple[str, ...]], CheckRun] = {}
    out = []
    for u in units:
        key = (u.table, tuple(u.roots), repr(u.relocate), tuple(u.arriving))
        run = runs.get(key)
        if run is None:
            try:
                run = runs[key] = CheckRun(u.table, list(u.roots), relocate=u.relocate, arriving=u.arriving)
            except Exception:  # reported per unit by run_unit_digest
                run = None
        out.append(run_unit_digest(u, run))
    return out


#: rules whose findings say that a part of the table was not read (outside the table's location,
#: a format or a scheme the checker does not read; a copied table, whose own files were not read
#: but the original's): a check that has them is incomplete
NOT_READ_RULES = frozenset({"files.outside-table", "checker.not-checked", "files.table-moved", "files.table-copied"})


@dataclass
class TableResult:
    table: str
    #: the findings, at most :data:`KEEP` of each rule and severity
    findings: list[Finding]
    units: int
    seconds: float
    #: (rule, severity) -> findings counted beyond the :data:`KEEP` listed
    omitted: dict[tuple[str, str], int] = field(default_factory=dict)
    #: why this metadata file is the table's current one (a catalog's pointer, version-hint.text,
    #: the highest version, named directly)
    chosen: str = ""

    @property
    def not_read(self) -> list[Finding]:
        """The findings that name a part of the table the check did not read."""
        return [f for f in self.findings if f.rule in NOT_READ_RULES]

    @property
    def incomplete(self) -> bool:
        """Whether a part of the table was not read (so a clean result proves less)."""
        return bool(self.not_read) or any(rule in NOT_READ_RULES for rule, _sev in self.omitted)

    def verdict(self, fail_on: tuple[str, ...] = ("error",)) -> str:
        """``findings`` when a finding has one of the ``fail_on`` severities, else
        ``incomplete`` when a part was not read, else ``clean``."""
        if any(f.severity in fail_on for f in self.findings) or any(s in fail_on for _r, s in self.omitted):
            return "findings"
        return "incomplete" if self.incomplete else "clean"


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


def _batches(units: list[Unit], workers: int) -> list[list[Unit]]:
    size = max(1, len(units) // (workers * 8))
    return [units[i:i + size] for i in range(0, len(units), size)]


def _run_all(units: list[Unit], run: CheckRun, mapper: Mapper | None, workers: int) -> Iterator[Result]:
    """Results of ``units`` in order: here with ``run``, or in batches through ``mapper``."""
    if mapper is None or len(units) <= 1:
        return (run_unit_digest(u, run) for u in units)
    return (r for batch in mapper(run_batch, _batches(units, workers)) for r in batch)


def check_table(table: str | Current, progress: Callable[[int, int, Unit], None] | None = None,
                mapper: Mapper | None = None, allowed_roots: list[str] | None = None, metadata_only: bool = False,
                workers: int = 1, planned: Callable[[list[Unit]], None] | None = None,
                relocate: list[tuple[str, str]] | None = None, arriving: list[str] | None = None) -> TableResult:
    """Plan and run every unit of one table. ``metadata_only`` leaves out the data and delete
    files (every metadata, manifest-list and manifest rule still runs); ``workers`` > 1 runs the
    units in a pool of local processes; ``mapper`` may run them elsewhere (an engine: it maps a
    function over batches of units, results in order); ``planned`` is told the units before they
    run; ``relocate``: (old, new) prefixes of recorded paths, for a table moved or copied from
    where its metadata says it lives; ``arriving``: directories a copy from a store is still
    filling (a file missing there is waited for). ``table``: a metadata file, or a
    :class:`~checker.find.Current` that says why it is the table's current one."""
    start = time.monotonic()
    current = table if isinstance(table, Current) else Current(table, "named directly")
    # the workers start now and import the kit while this process plans; one pool serves
    # every phase (manifests, then content files)
    own = LocalPool(workers) if mapper is None and workers > 1 else None
    try:
        return _check_table(current, start, progress, mapper or own, allowed_roots, metadata_only, workers, planned,
                            relocate, arriving=arriving, ahead=own is not None)
    finally:
        if own is not None:
            own.close()


def _check_table(current: Current, start: float, progress: Callable[[int, int, Unit], None] | None,
                 mapper: Mapper | None, allowed_roots: list[str] | None, metadata_only: bool, workers: int,
                 planned: Callable[[list[Unit]], None] | None, relocate: list[tuple[str, str]] | None, *,
                 arriving: list[str] | None = None, ahead: bool = False) -> TableResult:
    run = CheckRun(current.path, allowed=allowed_roots, relocate=relocate, arriving=arriving)
    # ``ahead``: the metadata unit needs no plan (on a long history its earlier metadata files
    # are most of its work): the pool runs it while this process plans
    early = plan_metadata(run)[0]
    started = mapper(run_batch, [[early]]) if ahead and mapper is not None else None
    placed = run.placement()
    if placed is not None and placed[0] == "moved":
        units = plan_metadata(run)  # its files are recorded where they are not: one finding, not one per file
    else:
        units = plan(run, metadata_only)
    if metadata_only:
        units = [u for u in units if u.kind in METADATA_KINDS]
    if planned is not None:
        planned(units)
    findings = _Findings()
    findings.extend(newer_finding(current))
    findings.extend(placement_finding(placed, run.table))
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
    if started is not None and first[:1] == [early]:
        first_results: Iterator[Result] = itertools.chain(
            (r for batch in started for r in batch), _run_all(first[1:], run, mapper, workers))
    else:
        first_results = _run_all(first, run, mapper, workers)
    # a pool is handed the content files now, behind the manifests: its workers read them while
    # this process checks the snapshots (here, without a mapper, they run after the snapshots)
    rest_results = _run_all(rest, run, mapper, workers)
    for u, (part, digest) in zip(first, first_results):
        tick(u)
        findings.extend(part)
        if digest is not None:
            run.digests[run.local(u.path) or u.path] = digest
    for u in snapshots:
        tick(u)
        findings.extend(run_unit_digest(u, run)[0])
    run.digests.clear()
    for u, (part, _digest) in zip(rest, rest_results):
        tick(u)
        findings.extend(part)
    return TableResult(run.table, findings.kept, len(units), time.monotonic() - start, findings.omitted,
                       current.why)


def placement_finding(placed: tuple[str, str, str] | None, table: str) -> list[Finding]:
    """``files.table-moved`` / ``files.table-copied``: the table is read elsewhere than where
    its metadata says it lives (:meth:`~checker.run.CheckRun.placement`)."""
    if placed is None:
        return []
    kind, loc, here = placed
    if kind == "moved":
        return [Finding("files.table-moved", f"the metadata says the table lives at {loc}, which does not exist; it is "
                        f"read at {here}. Its manifest lists, manifests and data files are recorded under {loc} and "
                        f"are not read: if the table was moved, give --relocate {loc}={here}", "-", table,
                        "/location", "warning")]
    return [Finding("files.table-copied", f"the metadata says the table lives at {loc}; it is read at {here}. Files "
                    f"recorded under {loc} are read there, not here: if this is a copy or a move of the table, give "
                    f"--relocate {loc}={here} to check its own files", "-", table, "/location", "warning")]


def newer_finding(current: Current) -> list[Finding]:
    """``metadata.newer-metadata-files`` when the directory of the chosen metadata file holds
    others of the same or a higher version: orphans of failed commits, or files written after
    the pointer that chose this one."""
    if not current.newer:
        return []
    shown = ", ".join(current.newer[:5]) + (f" and {len(current.newer) - 5} more" if len(current.newer) > 5 else "")
    return [Finding("metadata.newer-metadata-files", f"the check reads {current.path} ({current.why}), but its "
                    f"directory also holds {len(current.newer)} metadata file(s) of the same or a higher version: "
                    f"{shown}; they are orphans of failed commits or the pointer is stale, and are not checked",
                    "-", current.path, "", "warning")]


def _warm() -> None:
    """A worker's first task: import what the units read with (the columnar screen's Polars
    when it runs), while the parent still plans."""
    columnar_enabled(load=True)


class LocalPool:
    """A :data:`Mapper` over ``workers`` local processes, started when made (units are
    independent and picklable; results come back in order); :meth:`close` ends them. One pool
    serves a whole check: its workers start, and import the kit, once."""

    def __init__(self, workers: int) -> None:
        # spawn, not fork: a forked child of a process with threads (pyarrow's pool, a test runner's)
        # can deadlock on a lock one of those threads held
        self._pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_warm)

    def __call__(self, fn: Callable[[Any], Any], batches: list[Any]) -> Iterator[Any]:
        """The results of ``fn`` on each batch, in order; the batches are queued at once."""
        return iter(self._pool.imap(fn, batches))

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()

