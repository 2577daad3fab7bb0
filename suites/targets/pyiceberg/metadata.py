"""PyIceberg target: capability ``metadata`` through ``TableMetadataUtil.parse_raw``.

The file is read like PyIceberg's own ``FromInputFile.table_metadata`` does (GZIP detected by
its magic bytes) and written back with ``model_dump_json``, as ``ToOutputFile.table_metadata``
writes it. Refusals are PyIceberg's validation errors (its ``ValidationError``, pydantic's,
and JSON/value errors); anything else escapes as a crash.

PyIceberg 0.12 reads v3 metadata but refuses to write it
(https://github.com/apache/iceberg-python/issues/1551). For v3 files ``read_table_metadata``
returns what PyIceberg read, serialized by PyIceberg's base model serializer (the guard skipped), and
``metadata_write_versions`` tells the suites that nothing is *written* for v3 (the
producer x consumer test is UNSUPPORTED there).
"""

from __future__ import annotations

import gzip
import json
import warnings
import zlib
from typing import Any

from iceberg_conformance.suites.api import METADATA, Rejected, Unsupported


class MetadataMixin:
    CAPABILITIES = frozenset({METADATA})
    metadata_write_versions = frozenset({1, 2})

    def read_table_metadata(self, path: str) -> Any:
        from pyiceberg.typedef import IcebergBaseModel

        metadata = self._parse(path)
        if metadata.format_version >= 3:
            return json.loads(IcebergBaseModel.model_dump_json(metadata))
        return json.loads(metadata.model_dump_json())

    def read_table_metadata_as(self, path: str, format_version: int) -> Any:
        """A v1 file as PyIceberg holds it for v2: ``TableMetadataV1.to_v2()``, written back."""
        metadata = self._parse(path)
        if metadata.format_version == 1 and format_version == 2:
            metadata = metadata.to_v2()
        elif metadata.format_version != format_version:
            raise Unsupported(f"pyiceberg turns v1 metadata into v2 only (TableMetadataV1.to_v2), "
                              f"not v{metadata.format_version} into v{format_version}")
        return json.loads(metadata.model_dump_json())

    def _parse(self, path: str) -> Any:
        import pydantic
        from pyiceberg.exceptions import ValidationError
        from pyiceberg.table.metadata import TableMetadataUtil

        with open(path, "rb") as f:
            raw = f.read()
        try:
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            text = raw.decode("utf-8")
        except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:
            raise Rejected(f"{type(e).__name__}: {e}") from e
        with warnings.catch_warnings():
            # PyIceberg warns (and goes on) about some invalid input, e.g. a summary without
            # operation; the suites judge the outcome, not the warning.
            warnings.simplefilter("ignore")
            try:
                metadata = TableMetadataUtil.parse_raw(text)
            except (ValidationError, pydantic.ValidationError, ValueError) as e:
                raise Rejected(f"{type(e).__name__}: {str(e)[:2000]}") from e
            return metadata
