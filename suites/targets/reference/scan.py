"""Reference target: capability ``table-scan`` (rows of a table snapshot that match a filter,
deletes applied: :func:`reference.scan.scan`) and ``scan-plan`` (its tasks:
:func:`reference.scan.plan_files`)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.scan import plan_files, scan
from iceberg_conformance.suites.api import SCAN_PLAN, TABLE_SCAN
from iceberg_conformance.suites.targets.reference.expressions import rejecting


class TableScanMixin:
    CAPABILITIES = frozenset({TABLE_SCAN, SCAN_PLAN})

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        with rejecting():
            return scan(metadata_path, snapshot_id, row_filter)

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        with rejecting():
            tasks = plan_files(metadata_path, snapshot_id, row_filter)
        return [{"data_file": t.data.path,
                 "delete_files": sorted([x.path for x in t.position_deletes + t.equality_deletes]
                                        + ([t.deletion_vector.path] if t.deletion_vector is not None else []))}
                for t in tasks]
