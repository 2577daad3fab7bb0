"""PyIceberg target: capabilities ``table-scan``: ``StaticTable.from_metadata(path)
.scan(row_filter=..., snapshot_id=...).to_arrow()``, and ``scan-plan``: the same scan's
``plan_files()`` (each task's data file and ``delete_files``).

The filter is given to PyIceberg as its own expression, parsed from the deprecated term form
of ``format/expressions-spec.md`` (PyIceberg 0.12 reads only that form; see
:mod:`suites.targets._term_form`), so that what is judged is the scan, not the parser; constants
of binary and fixed columns (hex strings, which PyIceberg reads as ``StringLiteral`` and cannot
bind) are built from their JSON single-value form (``expressions.scan_filter``). Rows are
turned into the JSON single-value form with the snapshot's schema
(:func:`suites.engines.rows.canonical_rows`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from iceberg_conformance.suites.api import SCAN_PLAN, TABLE_SCAN
from iceberg_conformance.suites.targets._term_form import to_term_form


@lru_cache(maxsize=64)
def _table(metadata_path: str) -> Any:
    """The table of a metadata file (a metadata file is immutable: its table is read once)."""
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(metadata_path)


def _snapshot_schema(table: Any, snapshot_id: int | None) -> Any:
    """The schema of a snapshot (its schema-id), else the table's current schema."""
    snap = table.metadata.snapshot_by_id(snapshot_id) if snapshot_id is not None else None
    schema_id = snap.schema_id if snap is not None and snap.schema_id is not None else table.metadata.current_schema_id
    return next(s for s in table.metadata.schemas if s.schema_id == schema_id)


class TableScanMixin:
    CAPABILITIES = frozenset({TABLE_SCAN, SCAN_PLAN})

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        from pyiceberg.expressions import AlwaysTrue
        from iceberg_conformance.suites.engines.rows import arrow_rows, canonical_rows
        from iceberg_conformance.suites.targets.pyiceberg.expressions import _refusing, scan_filter

        table = _table(metadata_path)
        sid = snapshot_id if snapshot_id is not None else table.metadata.current_snapshot_id
        schema = _snapshot_schema(table, sid)
        expr = AlwaysTrue() if row_filter is True else scan_filter(schema, to_term_form(row_filter))
        with _refusing():
            scan = table.scan(row_filter=expr, snapshot_id=sid)
        rows = arrow_rows(scan.to_arrow())
        return canonical_rows(schema.model_dump(by_alias=True), rows)

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        from pyiceberg.expressions import AlwaysTrue

        from iceberg_conformance.suites.targets.pyiceberg.expressions import scan_filter

        table = _table(metadata_path)
        sid = snapshot_id if snapshot_id is not None else table.metadata.current_snapshot_id
        expr = AlwaysTrue() if row_filter is True else scan_filter(_snapshot_schema(table, sid), to_term_form(row_filter))
        return [{"data_file": t.file.file_path, "delete_files": sorted(d.file_path for d in t.delete_files)}
                for t in table.scan(row_filter=expr, snapshot_id=sid).plan_files()]
