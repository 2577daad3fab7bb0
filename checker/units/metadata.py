"""The ``metadata`` unit: the metadata file, and the files it names besides snapshots.

The metadata file itself is :func:`reference.metadata.validate_metadata`'s (JSON shape and
cross-field rules, snapshot lineage, refs, statistics references); here are the checks that read
other files: the earlier metadata files of ``metadata-log`` (the table UUID, the upgrade to v3),
and every statistics and partition statistics file (exists with its recorded size, a Puffin
statistics file whole and against its entry, a partition statistics file's fields and order and
its position delete counts against the manifests).

And the table's history (:mod:`.history`): every schema against the schemas before it, as the
metadata and its earlier metadata files show them, and every partition spec against the specs
before it, by the evolution rules of :mod:`reference.evolution` (``evolution.*``: a field id
reused for another field, a type change that is no promotion at the table's format version, a
partition field id reused for another partition field, ...); snapshot-log entries kept.
"""

from __future__ import annotations

import os
from typing import Callable

from iceberg_conformance.checker.plan import live_entries, Unit
from iceberg_conformance.checker.run import CheckRun, unavailable
from iceberg_conformance.checker.units import statistics as stats
from iceberg_conformance.checker.units.history import check_history
from iceberg_conformance.checker.units.lineage import check_upgrade
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.metadata import validate_metadata
from iceberg_conformance.reference.puffin import validate_puffin
from iceberg_conformance.reference.schema import walk

CLAUSE_STATS = "Table Statistics"


def check_metadata(run: CheckRun, unit: Unit) -> list[Finding]:
    """The findings of the metadata file and of the files it names besides snapshots."""
    out = list(run.load_findings)
    if run.loaded is None:
        return out
    out.extend(validate_metadata(run.loaded, unit.table))
    doc = run.doc
    if doc is None:
        return out
    allowed: Callable[[str], str | None] = lambda p: None if run.outside(p) else p  # noqa: E731
    out.extend(stats.check_metadata_log_uuids(doc, unit.table, allowed, run.logged()))
    out.extend(check_upgrade(doc, unit.table, allowed, run.logged()))
    out.extend(check_history(run, unit.table))
    for key in ("statistics", "partition-statistics"):
        for i, st in enumerate(doc.get(key) or []):
            if not isinstance(st, dict) or not isinstance(st.get("statistics-path"), str):
                continue
            p = run.local(st["statistics-path"])
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
