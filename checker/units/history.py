"""Checks of the table's history: the schemas and partition specs its metadata lists, the
earlier metadata files ``metadata-log`` names (oldest first), and the current file.

* **Schemas** (:func:`check_history`, rules of :mod:`reference.evolution`, ``evolution.*``):
  every schema against the schemas before it, in the order the table went through them: the
  ``schemas`` list in the order it was added to, and where the earlier metadata files show the
  current schema going back to an older one (a drop that restores an earlier schema, as
  writers do when the new schema equals it) or to one the list no longer has, that schema
  again at that point. So a field id that a drop freed and a later column takes is seen
  whichever way the drop was written ("Adding a new field assigns a new ID for that field and
  for any nested fields": ``evolution.field-id-reused``; iceberg-go #942). A schema seen again
  in the earlier files is judged only for reused field ids.
* **Partition specs**: every spec against the specs before it (``partition-specs`` order).
* **The snapshot log keeps its entries** (Table Metadata Fields: snapshot-log): an entry of the
  previous metadata file (the last one of ``metadata-log``) whose snapshot is still in
  ``snapshots`` is gone from the current log, although no snapshot after it in that log was
  expired (expiring a snapshot removes the entries before it).

Guards against false alarms: a ``REPLACE TABLE`` starts the history anew (see
:func:`_replacements`), and specs a table had while it was v1 are not held to the v2 id rules.
``last-column-id`` and ``last-partition-id`` against every schema and spec are rules of the
metadata file (``metadata.last-column-id``, ``metadata.last-partition-id``). Schemas and specs
that do not parse are left out (their own rules report them); logged files that are missing,
outside the table or unreadable are skipped (the log may outlive them).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from iceberg_conformance.checker.run import CheckRun
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.evolution import partition_history_problems, schema_history_problems
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import current_schema, format_version, spec_by_id
from iceberg_conformance.reference.partitioning import parse_partition_spec
from iceberg_conformance.reference.schema import parse_schema, Schema
from iceberg_conformance.reference.types import NestedField, parse_field, StructType

CLAUSE_SNAPSHOT_LOG = "Table Metadata Fields: snapshot-log"
T = TypeVar("T")
#: an earlier metadata file: (index in ``metadata-log``, path as recorded, document)
Logged = tuple[int, str, dict[str, Any]]

#: the rules of partition field ids across specs, which do not hold between two specs of a table
#: upgraded from v1 that were written while it was v1
_ID_RULES = {"evolution.partition-field-id-reused", "evolution.partition-field-id-not-reused"}


def check_history(run: CheckRun, table: str) -> list[Finding]:
    """The evolution rules the table's schemas and partition specs break, and the snapshot-log
    entries the current file lost."""
    doc = run.doc
    if doc is None:
        return []
    logged = run.logged()
    specs = _parsed(doc.get("partition-specs"), lambda s: parse_partition_spec(s, run.version))
    only_specs = [spec for _, spec in specs]
    out = _schema_findings(doc, logged, run.version, only_specs, table)
    problems = partition_history_problems(only_specs, run.version)
    if run.version >= 2 and any(p.rule in _ID_RULES for _, _, p in problems):
        early = _v1_spec_ids(logged)
        if early:
            problems = partition_history_problems(only_specs, run.version, early)
    for k, j, p in problems:
        where = f"/partition-specs/{specs[k][0]}" + ("" if j is None else f"/fields/{j}")
        out.append(Finding.from_violation(p, table, where))
    log = doc.get("metadata-log")
    if logged and isinstance(log, list) and logged[-1][0] == len(log) - 1:
        out += check_snapshot_log(logged[-1][2], doc, table)
    return out


def _schema_findings(doc: dict[str, Any], logged: list[Logged], version: int, specs: list[Any],
                     table: str) -> list[Finding]:
    listed = _schemas(doc.get("schemas"))
    replaced = _replacements(doc, [s.schema_id for _, s in listed])
    # the schemas in the order the table went through them: (schema, location, judged in full)
    order: list[tuple[Schema, str, bool]] = []
    returns = _returns(doc, listed, logged)
    for k in range(-1, len(listed)):
        if k >= 0:
            order.append((listed[k][1], f"/schemas/{listed[k][0]}", k not in replaced))
        order.extend(returns.get(k, []))
    only_reuse = {n for n, (_s, _w, full) in enumerate(order) if not full}
    found = schema_history_problems([s for s, _w, _f in order], version, specs, only_reuse)
    return [Finding.from_violation(p, table, order[n][1]) for n, p in found]


def _returns(doc: dict[str, Any], listed: list[tuple[int, Schema]], logged: list[Logged]
             ) -> dict[int, list[tuple[Schema, str, bool]]]:
    """The schemas the earlier metadata files (and the current one) made current again, or that
    ``schemas`` no longer lists, each placed after the newest listed schema current before it:
    position in ``listed`` (-1: before every one) -> [(schema, location, False)]. A file
    without ``current-schema-id`` (early v1) is passed over."""
    pos = {s.schema_id: k for k, (_i, s) in enumerate(listed) if s.schema_id is not None}
    out: dict[int, list[tuple[Schema, str, bool]]] = {}
    newest, last = -1, None
    for i, old in [(i, old) for i, _p, old in logged] + [(None, doc)]:
        sid = _int(old.get("current-schema-id"))
        if sid is None or sid == last:
            continue
        last = sid
        k = pos.get(sid)
        if k is not None and k > newest:
            newest = k  # a newer listed schema: the list holds it in its place
            continue
        schema = listed[k][1] if k is not None else _parsed_current(old)
        if schema is not None:
            where = "/current-schema-id" if i is None else f"/metadata-log/{i}/metadata-file"
            out.setdefault(newest, []).append((schema, where, False))
    return out


def _parsed_current(doc: dict[str, Any]) -> Schema | None:
    schema = current_schema(doc)
    try:
        return parse_schema(schema) if isinstance(schema, dict) else None
    except (SpecViolation, RecursionError):
        return None


def _replacements(doc: dict[str, Any], schema_ids: list[int | None]) -> set[int]:
    """Positions (in ``schema_ids``, the parsed schemas in list order) of the schemas that may
    have replaced the table (``REPLACE TABLE``, ``CREATE OR REPLACE TABLE ... AS SELECT``).

    A replacement keeps the table's snapshots but starts a new history: Iceberg Java removes the
    ``main`` branch, so the next snapshot has no parent, and gives a column of the new schema the
    id of the current column of that name whatever its type. Where a snapshot other than the
    oldest has no ``parent-snapshot-id``, the schemas added after the one of the snapshot before
    it, up to its own, may be the replacement; so may those after the newest snapshot's schema up
    to the current schema while the table has snapshots but no current one (replaced, nothing
    written since). A snapshot without ``schema-id`` stands for the first schema (before it) or
    the current one (after it).

    Once the snapshots before a replacement are expired, no parentless snapshot is left to tell
    it; but then no data written with an older schema is read any more: where the current
    snapshot and the refs reach snapshots and each names its schema, the schemas up to the
    oldest of those may be a replacement too."""
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
    reached = _reached_schema_ids(doc, snaps)
    if reached and all(sid in pos for sid in reached):
        out.update(range(1, min(pos[sid] for sid in reached) + 1))
    return out


def _reached_schema_ids(doc: dict[str, Any], snaps: list[dict[str, Any]]) -> set[int] | None:
    """The schema ids of the snapshots the current snapshot and the refs reach by their parents
    (their data is read); None when one of them names no schema."""
    # ids of the wrong JSON type are the metadata unit's shape findings: only integers are followed
    by_id = {sid: s for s in snaps if (sid := _int(s.get("snapshot-id"))) is not None}
    refs = doc.get("refs")
    heads = [_int(doc.get("current-snapshot-id"))]
    heads += [_int(r.get("snapshot-id")) for r in refs.values() if isinstance(r, dict)] if isinstance(refs, dict) else []
    out: set[int] = set()
    seen: set[int] = set()
    for head in heads:
        sid = head
        while sid is not None and sid in by_id and sid not in seen:
            seen.add(sid)
            schema_id = _int(by_id[sid].get("schema-id"))
            if schema_id is None:
                return None
            out.add(schema_id)
            sid = _int(by_id[sid].get("parent-snapshot-id"))
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
        return Schema(StructType(tuple(parsed)), _int(item.get("schema-id")))

    return _parsed(items, parse)


def _v1_spec_ids(logged: list[Logged]) -> set[int]:
    """The partition specs the table had while it was v1: those of the newest v1 metadata file
    ``metadata-log`` names that can be read (none when there is none)."""
    for _i, _path, old in reversed(logged):
        if format_version(old) == 1:
            return set(spec_by_id(old))
    return set()


def check_snapshot_log(previous: dict[str, Any], doc: dict[str, Any], table: str) -> list[Finding]:
    """``metadata.snapshot-log-truncated``: entries of ``previous`` (the metadata file before
    ``doc``) whose snapshots ``doc`` still lists are gone from its snapshot-log, and no snapshot
    after them in the old log expired."""
    live = {s.get("snapshot-id") for s in doc.get("snapshots") or [] if isinstance(s, dict)}
    kept = {(e.get("snapshot-id"), e.get("timestamp-ms")) for e in doc.get("snapshot-log") or [] if isinstance(e, dict)}
    before = [e for e in previous.get("snapshot-log") or [] if isinstance(e, dict)]
    lost = []
    for i, e in enumerate(before):
        if (e.get("snapshot-id"), e.get("timestamp-ms")) in kept or e.get("snapshot-id") not in live:
            continue
        if any(later.get("snapshot-id") not in live for later in before[i + 1:]):
            continue  # a snapshot after it expired: the entries before that one are removed
        lost.append(e)
    if not lost:
        return []
    shown = ", ".join(f"{e.get('snapshot-id')} at {e.get('timestamp-ms')}" for e in lost[:5])
    return [Finding("metadata.snapshot-log-truncated", f"{len(lost)} snapshot-log entries of the previous metadata "
                    f"file are gone ({shown}{', ...' if len(lost) > 5 else ''}), though their snapshots are still in "
                    "snapshots and no later snapshot was expired", CLAUSE_SNAPSHOT_LOG, table, "/snapshot-log")]
