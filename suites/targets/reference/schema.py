"""Reference target: capability ``schema-json`` (types and schemas, Appendix C)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.schema import read_schema, schema_to_json
from iceberg_conformance.reference.types import type_to_json
from iceberg_conformance.suites.api import SCHEMA_JSON
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class SchemaJsonMixin:
    CAPABILITIES = frozenset({SCHEMA_JSON})

    def type_json_roundtrip(self, type_: Any) -> Any:
        t = typ(type_)
        with rejecting():
            return type_to_json(t)

    def schema_json_roundtrip(self, schema: Any, format_version: int) -> Any:
        with rejecting():
            return schema_to_json(read_schema(schema, format_version))
