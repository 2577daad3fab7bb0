"""Java target: capability ``table-scan``: Iceberg Java's generic reader
(``IcebergGenerics.read(table).useSnapshot(id).where(filter)``: ``TableScan.filter`` and
``planFiles``, deletes applied, the residual evaluated on each row) on the table loaded from
its metadata file (``HadoopTables``), in the JVM of the Spark session.

The filter reaches Java through ``ExpressionParser.fromJson`` in the deprecated term form
(Iceberg Java 1.10 reads only that form; see :mod:`suites.targets._term_form`); a filter with
constants of binary or fixed columns (hex, which the schema-less parser reads as strings that do
not convert) through the schema-aware ``fromJson(json, schema)`` with the snapshot's schema. Rows come back
as JSON single values written on the Java side (``suites/spark/java/ConformanceOracle.java``),
so no py4j number boxing is involved. Capability ``scan-plan`` is the same scan's
``TableScan.useSnapshot(id).filter(...).planFiles()``: each task's data file and ``deletes()``.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import SCAN_PLAN, TABLE_SCAN
from iceberg_conformance.suites.targets._term_form import to_term_form
from iceberg_conformance.suites.targets.java._oracle import call


def _snapshot_id(metadata_path: str, snapshot_id: int | None) -> int | None:
    if snapshot_id is not None:
        return snapshot_id
    from iceberg_conformance.reference.metadata import current_snapshot_id, load_metadata

    doc, _ = load_metadata(metadata_path)
    return current_snapshot_id(doc)


class TableScanMixin:
    CAPABILITIES = frozenset({TABLE_SCAN, SCAN_PLAN})

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        snapshot_id = _snapshot_id(metadata_path, snapshot_id)
        if snapshot_id is None:
            return []
        rows: list[dict[str, Any]] = call("scan", metadata=metadata_path, snapshot_id=snapshot_id,
                                          expression=to_term_form(row_filter))
        return rows

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        snapshot_id = _snapshot_id(metadata_path, snapshot_id)
        if snapshot_id is None:
            return []
        tasks: list[dict[str, Any]] = call("plan_files", metadata=metadata_path, snapshot_id=snapshot_id,
                                           expression=to_term_form(row_filter))
        return [{**t, "delete_files": sorted(t["delete_files"])} for t in tasks]
