"""PyIceberg target: capabilities ``table-scan``: ``StaticTable.from_metadata(path)
.scan(row_filter=..., snapshot_id=...).to_arrow()``, and ``scan-plan``: the same scan's
``plan_files()`` (each task's data file and ``delete_files``).

The filter is given to PyIceberg as its own expression, parsed from the deprecated term form
of ``format/expressions-spec.md`` (PyIceberg 0.12 reads only that form; see
:mod:`suites.targets._term_form`), so that what is judged is the scan, not the parser. Rows are
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


class TableScanMixin:
    CAPABILITIES = frozenset({TABLE_SCAN, SCAN_PLAN})

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        from pyiceberg.expressions import AlwaysTrue
        from iceberg_conformance.suites.engines.rows import arrow_rows, canonical_rows
        from iceberg_conformance.suites.targets.pyiceberg.expressions import _parse, _refusing

        expr = AlwaysTrue() if row_filter is True else _parse(to_term_form(row_filter))
        table = _table(metadata_path)
        sid = snapshot_id if snapshot_id is not None else table.metadata.current_snapshot_id
        snap = table.metadata.snapshot_by_id(sid) if sid is not None else None
        schema_id = snap.schema_id if snap is not None and snap.schema_id is not None else table.metadata.current_schema_id
        schema = next(s for s in table.metadata.schemas if s.schema_id == schema_id)
        with _refusing():
            scan = table.scan(row_filter=expr, snapshot_id=sid)
        rows = arrow_rows(scan.to_arrow())
        return canonical_rows(schema.model_dump(by_alias=True), rows)

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        from pyiceberg.expressions import AlwaysTrue

        from iceberg_conformance.suites.targets.pyiceberg.expressions import _parse

        expr = AlwaysTrue() if row_filter is True else _parse(to_term_form(row_filter))
        table = _table(metadata_path)
        sid = snapshot_id if snapshot_id is not None else table.metadata.current_snapshot_id
        return [{"data_file": t.file.file_path, "delete_files": sorted(d.file_path for d in t.delete_files)}
                for t in table.scan(row_filter=expr, snapshot_id=sid).plan_files()]
