"""Java target: capability ``metadata`` (Table Metadata, Appendix C) via ``TableMetadataParser``.

``TableMetadataParser.read`` of a local file (gzip-compressed ``.gz.metadata.json`` too),
written back with ``TableMetadataParser.toJson``.
"""

from __future__ import annotations

import os
from typing import Any

from iceberg_conformance.suites.api import METADATA
from iceberg_conformance.suites.targets.java._oracle import call


class MetadataMixin:
    CAPABILITIES = frozenset({METADATA})

    def read_table_metadata(self, path: str) -> Any:
        return call("table_metadata", path=os.path.abspath(path))

    def read_table_metadata_as(self, path: str, format_version: int) -> Any:
        """Read, then ``TableMetadata.buildFrom(md).upgradeFormatVersion(v)`` for an older file."""
        return call("table_metadata_as", path=os.path.abspath(path), format_version=format_version)
