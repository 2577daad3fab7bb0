"""Reference target: capability ``metadata`` (reference/metadata.py)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.metadata import check_metadata_file, errors, read_for_version
from iceberg_conformance.suites.api import METADATA, Rejected


class MetadataMixin:
    CAPABILITIES = frozenset({METADATA})

    def read_table_metadata(self, path: str) -> Any:
        doc, findings = check_metadata_file(path)
        bad = errors(findings)
        if bad:
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            raise Rejected(str(bad[0]) + more, rule=bad[0].rule)
        return doc

    def read_table_metadata_as(self, path: str, format_version: int) -> Any:
        """The metadata as a reader of ``format_version`` holds it (a v1 file read for v2)."""
        return read_for_version(self.read_table_metadata(path), format_version)
