"""PyIceberg target: capability ``schema-json`` (types and schemas, Appendix C)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import SCHEMA_JSON
from iceberg_conformance.suites.targets.pyiceberg._schema_util import dump, load_schema, no_variant, refusing


class SchemaJsonMixin:
    CAPABILITIES = frozenset({SCHEMA_JSON})

    def type_json_roundtrip(self, type_: Any) -> Any:
        from pyiceberg.types import IcebergType

        no_variant(type_)
        with refusing():
            return dump(IcebergType.model_validate(type_))

    def schema_json_roundtrip(self, schema: Any, format_version: int) -> Any:
        return dump(load_schema(schema, format_version))
