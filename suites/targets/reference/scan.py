"""Reference target: capability ``table-scan`` (rows of a table snapshot that match a filter,
deletes applied: :func:`reference.scan.scan`)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.scan import scan
from iceberg_conformance.suites.api import TABLE_SCAN
from iceberg_conformance.suites.targets.reference.expressions import rejecting


class TableScanMixin:
    CAPABILITIES = frozenset({TABLE_SCAN})

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: Any = True) -> list[dict[str, Any]]:
        with rejecting():
            return scan(metadata_path, snapshot_id, row_filter)
