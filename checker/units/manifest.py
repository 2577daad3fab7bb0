"""The ``manifest`` unit: a manifest, decoded once, against every distinct manifest-list record
that names it.

:func:`reference.manifests.read_manifest` judges the manifest (Avro schema, field ids, header
keys, counts, sequence numbers, partition summaries, bounds encodings, the v3 row-id and DV
fields); the columnar screen (:mod:`checker.units.columnar`) first certifies a manifest none of
whose entries breaks a rule, and any other manifest is read record by record, so every finding
comes from the one implementation of its rule. Findings about a record's agreement with the
manifest are reported against the manifest list that holds the record. The unit also returns
the manifest's :class:`~checker.plan.LiveDigest`, which the snapshot units check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iceberg_conformance.checker.find import local_path
from iceberg_conformance.checker.plan import live_digest, LiveDigest, plan, Unit, UNREAD_MANIFEST
from iceberg_conformance.checker.run import CheckRun, unavailable
from iceberg_conformance.checker.units.columnar import live_digest_columns, screen, Screened
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.manifests import ManifestContext, read_manifest
from iceberg_conformance.reference.metadata import current_schema, schema_by_id, spec_by_id

#: where :func:`reference.manifests.read_manifest` locates a finding about the manifest-list record
RECORD_LOCATION = "manifest_list_entry"


#: a manifest file smaller than this is read record by record, not screened: it holds a few dozen
#: entries at most, and the screen's fixed cost (about 2 ms: Polars, Arrow, NumPy calls) is more
#: than the record reader's (about 0.5 ms and 0.05 ms an entry)
SCREEN_MIN_BYTES = 8192


def check_manifest(run: CheckRun, unit: Unit) -> tuple[list[Finding], LiveDigest | None]:
    """The manifest's findings, and its live digest (None when it was not read)."""
    doc = run.doc
    if doc is None:
        return [], None
    local = run.local(unit.path)
    if local is None:
        return [unavailable(unit.path, "", "not a local path")], None
    if not run.readable(local):
        return [], None  # reported by the snapshot unit
    digest: LiveDigest | None = None
    out: list[Finding] = []
    records = unit.context.get("records") or [{"record": {}, "where": []}]
    orders = doc.get("sort-orders")
    order_ids = tuple(o["order-id"] for o in orders if isinstance(o, dict) and isinstance(o.get("order-id"), int)) \
        if isinstance(orders, list) else None
    last_column_id = doc.get("last-column-id")
    contexts = [ManifestContext(run.version, current_schema(doc),
                                spec_by_id(doc).get(int(rec["record"].get("partition_spec_id") or 0)),
                                rec["record"] if "manifest_length" in rec["record"] else None, order_ids,
                                schema_by_id(doc), last_column_id if isinstance(last_column_id, int) else None)
                for rec in records]
    screened: Screened | None = None
    if run.columnar and (run.screen_all or run.size(local) >= SCREEN_MIN_BYTES):
        got = screen(local, run.version, contexts)
        if isinstance(got, Screened):
            run.screen.certified += 1
            screened = got
        else:
            run.screen.record += 1
            run.screen.reasons = (run.screen.reasons + [(local, got)])[-20:]
    if screened is not None:
        digest = live_digest_columns(screened.frame)
    for i, (rec, ctx) in enumerate(zip(records, contexts)):
        where = rec.get("where") or []
        if screened is not None:
            found = screened.findings[i]
        else:
            entries, found = read_manifest(local, ctx.format_version, ctx, lean=True)
            if digest is None:
                digest = live_digest(entries)
                digest.complete = not any(f.rule in UNREAD_MANIFEST for f in found)
            del entries
        for f in found:
            if where and f.location.startswith(RECORD_LOCATION):
                list_path, index, sid = where[0]
                listed = rec.get("listed", len(where))
                also = f" (the same record is listed by {listed - 1} more snapshot(s))" if listed > 1 else ""
                f = Finding(f.rule, f"{f.message} [manifest {unit.path}, listed by snapshot {sid}]{also}",
                            f.clause, run.local(list_path) or list_path,
                            f"manifests[{index}]" + f.location[len(RECORD_LOCATION):], f.severity)
            out.append(f)
    return out, digest


# --- the screen against the record reader --------------------------------------------------------

@dataclass
class Agreement:
    """The screen against the record reader on every manifest of a table."""

    manifests: int = 0
    certified: int = 0
    #: manifests whose findings or live digest differ between the two: the screen is wrong
    differ: list[str] = field(default_factory=list)
    #: manifests the screen left to the record reader although it found nothing about their
    #: entries: right, but slow (the fast path should take a valid table's manifests)
    declined: list[str] = field(default_factory=list)


def screen_agreement(table: str) -> Agreement:
    """Check every manifest of a table both ways, the screen on and off."""
    screened, recorded = CheckRun(table, columnar=True), CheckRun(table, columnar=False)
    units = [u for u in plan(screened, metadata_only=True) if u.kind == "manifest"]
    out = Agreement(len(units))
    for u in units:
        before = screened.screen.certified
        fast, fast_digest = check_manifest(screened, u)
        took = screened.screen.certified > before
        out.certified += took
        slow, slow_digest = check_manifest(recorded, u)
        if [str(f) for f in fast] != [str(f) for f in slow]:
            out.differ.append(f"{u.path}: findings differ\n  screen: {[str(f) for f in fast]}\n"
                              f"  record reader: {[str(f) for f in slow]}")
        if fast_digest != slow_digest:
            out.differ.append(f"{u.path}: live digests differ")
        if not took and not any(f.location.startswith(("entries[", "manifests[")) for f in slow):
            local = local_path(u.path) or u.path
            why = next((r for p, r in reversed(screened.screen.reasons) if p == local), "?")
            out.declined.append(f"{u.path}: {why}")
    return out
