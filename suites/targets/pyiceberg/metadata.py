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

from iceberg_conformance.suites.api import METADATA, Rejected


class MetadataMixin:
    CAPABILITIES = frozenset({METADATA})
    metadata_write_versions = frozenset({1, 2})

    def read_table_metadata(self, path: str) -> Any:
        import pydantic
        from pyiceberg.exceptions import ValidationError
        from pyiceberg.table.metadata import TableMetadataUtil
        from pyiceberg.typedef import IcebergBaseModel

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
            if metadata.format_version >= 3:
                return json.loads(IcebergBaseModel.model_dump_json(metadata))
            return json.loads(metadata.model_dump_json())
