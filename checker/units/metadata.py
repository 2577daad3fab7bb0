"""The ``metadata`` unit: the metadata file, and the files it names besides snapshots.

The metadata file itself is :func:`reference.metadata.validate_metadata`'s (JSON shape and
cross-field rules, snapshot lineage, refs, statistics references); here are the checks that read
other files: the earlier metadata files of ``metadata-log`` (the table UUID, the upgrade to v3),
and every statistics and partition statistics file (exists with its recorded size, a Puffin
statistics file whole and against its entry, a partition statistics file's fields and order and
its position delete counts against the manifests).

And the table's history as its metadata lists it (:func:`check_history`): every schema against
the schemas before it and every partition spec against the specs before it, by the evolution
rules of :mod:`reference.evolution` (``evolution.*``: a field id reused for another field, a type
change that is no promotion at the table's format version, a partition field id reused for
another partition field, ...). ``last-column-id`` and ``last-partition-id`` against every
schema and spec are rules of the metadata file (``metadata.last-column-id``,
``metadata.last-partition-id``).
"""

from __future__ import annotations

import os
from typing import Any, Callable, TypeVar

from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.plan import live_entries, Unit
from iceberg_conformance.checker.run import CheckRun, logged_metadata, unavailable
from iceberg_conformance.checker.units import statistics as stats
from iceberg_conformance.checker.units.lineage import check_upgrade
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.evolution import partition_history_problems, schema_history_problems
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import format_version, spec_by_id, validate_metadata
from iceberg_conformance.reference.partitioning import parse_partition_spec, PartitionSpec
from iceberg_conformance.reference.puffin import validate_puffin
from iceberg_conformance.reference.schema import parse_schema, Schema, walk
from iceberg_conformance.reference.types import NestedField, parse_field, StructType

CLAUSE_STATS = "Table Statistics"
T = TypeVar("T")


def check_metadata(run: CheckRun, unit: Unit) -> list[Finding]:
    """The findings of the metadata file and of the files it names besides snapshots."""
    out = list(run.load_findings)
    if run.loaded is None:
        return out
    out.extend(validate_metadata(run.loaded, unit.table))
    doc = run.doc
    if doc is None:
        return out
    out.extend(stats.check_metadata_log_uuids(doc, unit.table, lambda p: None if run.outside(p) else p))
    out.extend(check_upgrade(doc, unit.table, lambda p: None if run.outside(p) else p))
    out.extend(check_history(run, unit.table))
    for key in ("statistics", "partition-statistics"):
        for i, st in enumerate(doc.get(key) or []):
            if not isinstance(st, dict) or not isinstance(st.get("statistics-path"), str):
                continue
            p = local_path(st["statistics-path"])
            where = f"/{key}/{i}/statistics-path"
            if p is None:
                out.append(unavailable(unit.table, where, f"{st['statistics-path']} is not a local path"))
                continue
            blocked = run.blocked(p, unit.table, where, st["statistics-path"], "files.statistics-missing",
                                  "statistics file")
            if blocked is not None:
                out.append(blocked)
                continue
            size = st.get("file-size-in-bytes")
            if isinstance(size, int) and size != os.path.getsize(p):
                out.append(Finding("files.statistics-size", f"file-size-in-bytes is {size}, the file has "
                                   f"{os.path.getsize(p)} bytes", CLAUSE_STATS, unit.table, where))
            if key == "statistics":
                out.extend(validate_puffin(p))
                out.extend(stats.check_statistics_file(st, p, unit.table, f"/{key}/{i}", _all_field_ids(run)))
            else:
                snap = next((s for s in doc.get("snapshots") or [] if isinstance(s, dict)
                             and s.get("snapshot-id") == st.get("snapshot-id")), None)
                written_at = run.version
                if written_at >= 3 and snap is not None and snap.get("first-row-id") is None:
                    # a snapshot without first-row-id predates the upgrade to v3 (later ones must set
                    # it): its statistics may have been written while the table was v2
                    written_at = 2
                out.extend(stats.check_partition_statistics_file(p, written_at, unit.table, where))
                if snap is not None:
                    live = [(int(mf.get("partition_spec_id") or 0), e["data_file"])
                            for mf, e, _i in live_entries(run, snap)]
                    out.extend(stats.check_partition_position_deletes(doc, live, p, unit.table, where))
    return out


def _all_field_ids(run: CheckRun) -> set[int] | None:
    """The field ids of every schema of the table (None when a schema cannot be read)."""
    schemas, _ = run.schemas()
    return {fid for s in schemas for fid, _ in walk(s)} if schemas else None


#: the rules of partition field ids across specs, which do not hold between two specs of a table
#: upgraded from v1 that were written while it was v1
_ID_RULES = {"evolution.partition-field-id-reused", "evolution.partition-field-id-not-reused"}


def check_history(run: CheckRun, table: str) -> list[Finding]:
    """The evolution rules the table's schemas and partition specs break, each judged against
    those listed before it (the order they were added in); schemas and specs that do not parse
    are left out (their own rules report them)."""
    doc = run.doc
    if doc is None:
        return []
    schemas = _schemas(doc.get("schemas"))
    specs = _parsed(doc.get("partition-specs"), lambda s: parse_partition_spec(s, run.version))
    only_specs = [spec for _, spec in specs]
    replaced = _replacements(doc, [s.schema_id for _, s in schemas])
    out = [Finding.from_violation(p, table, f"/schemas/{schemas[k][0]}")
           for k, p in schema_history_problems([s for _, s in schemas], run.version, only_specs, replaced)]
    problems = partition_history_problems(only_specs, run.version)
    if run.version >= 2 and any(p.rule in _ID_RULES for _, _, p in problems):
        early = _v1_spec_ids(doc, lambda p: None if run.outside(p) else p)
        if early:
            problems = partition_history_problems(only_specs, run.version, early)
    for k, j, p in problems:
        where = f"/partition-specs/{specs[k][0]}" + ("" if j is None else f"/fields/{j}")
        out.append(Finding.from_violation(p, table, where))
    return out


def _replacements(doc: dict[str, Any], schema_ids: list[int | None]) -> set[int]:
    """Positions (in ``schema_ids``, the parsed schemas in list order) of the schemas that may
    have replaced the table (``REPLACE TABLE``, ``CREATE OR REPLACE TABLE ... AS SELECT``).

    A replacement keeps the table's snapshots but starts a new history: Iceberg Java removes the
    ``main`` branch, so the next snapshot has no parent. Where a snapshot other than the oldest
    has no ``parent-snapshot-id``, the schemas added after the one of the snapshot before it, up
    to its own, may be the replacement; so may those after the newest snapshot's schema up to
    the current schema while the table has snapshots but no current one (replaced, nothing
    written since). A snapshot without ``schema-id`` stands for the first schema (before it) or
    the current one (after it)."""
    pos: dict[int | None, int] = {sid: k for k, sid in enumerate(schema_ids) if sid is not None}
    current = pos.get(_int(doc.get("current-schema-id")), len(schema_ids) - 1)
    snaps = [s for s in doc.get("snapshots") or [] if isinstance(s, dict)] if isinstance(doc.get("snapshots"), list) else []
    snaps.sort(key=lambda s: (_int(s.get("sequence-number")) or 0, _int(s.get("timestamp-ms")) or 0))
    out: set[int] = set()

    def window(before: dict[str, Any], upto: int) -> None:
        out.update(range(pos.get(_int(before.get("schema-id")), 0) + 1, upto + 1))

    for before, s in zip(snaps, snaps[1:]):
        if s.get("parent-snapshot-id") is None:
            window(before, pos.get(_int(s.get("schema-id")), current))
    if snaps and _int(doc.get("current-snapshot-id")) in (None, -1):
        window(snaps[-1], current)
    return out


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _parsed(items: Any, parse: Callable[[Any], T]) -> list[tuple[int, T]]:
    """(position, parsed item) of the items of a metadata list that parse."""
    out = []
    for i, item in enumerate(items if isinstance(items, list) else []):
        try:
            out.append((i, parse(item)))
        except (SpecViolation, RecursionError):
            continue
    return out


def _schemas(items: Any) -> list[tuple[int, Schema]]:
    """(position, schema) of the schemas of a metadata list that parse. A schema repeats most
    fields of the one before it: a top-level field whose JSON equals the one of that id in the
    schema before is not parsed again."""
    before: dict[int | None, tuple[Any, NestedField]] = {}

    def parse(item: Any) -> Schema:
        fields = item.get("fields") if isinstance(item, dict) else None
        if not isinstance(fields, list) or not all(isinstance(f, dict) for f in fields):
            return parse_schema(item)  # malformed: reported by the metadata rules (and raises here)
        parsed = []
        for f in fields:
            seen = before.get(_int(f.get("id")))
            parsed.append(seen[1] if seen is not None and seen[0] == f else parse_field(f))
        before.clear()
        before.update((_int(f.get("id")), (f, nf)) for f, nf in zip(fields, parsed))
        sid = item.get("schema-id")
        return Schema(StructType(tuple(parsed)), sid if isinstance(sid, int) and not isinstance(sid, bool) else None)

    return _parsed(items, parse)


def _v1_spec_ids(doc: dict[str, Any], allowed: Any) -> set[int]:
    """The partition specs the table had while it was v1: those of the newest v1 metadata file
    ``metadata-log`` names that can be read (none when there is none)."""
    for _i, _path, old in logged_metadata(doc, allowed, newest_first=True):
        if format_version(old) == 1:
            return set(spec_by_id(old))
    return set()
