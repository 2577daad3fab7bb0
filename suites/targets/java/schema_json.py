"""Java target: capabilities ``schema-json`` and ``partition-spec-json`` (Appendix C).

Schemas go through ``SchemaParser`` and ``Schema.checkCompatibility(schema, formatVersion)``
(Java's check of v3-only types and defaults against the table version); partition specs
through ``PartitionSpecParser.fromJson(schema, json)``, which binds them to the schema.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import PARTITION_SPEC_JSON, SCHEMA_JSON
from iceberg_conformance.suites.targets.java._oracle import call


class SchemaJsonMixin:
    CAPABILITIES = frozenset({SCHEMA_JSON, PARTITION_SPEC_JSON})

    def type_json_roundtrip(self, type_: Any) -> Any:
        return call("type_json", type=type_)

    def schema_json_roundtrip(self, schema: Any, format_version: int) -> Any:
        return call("schema_json", schema=schema, format_version=format_version)

    def partition_spec_json_roundtrip(self, spec: Any, schema: Any, format_version: int) -> Any:
        return call("partition_spec_json", spec=spec, schema=schema, format_version=format_version)
