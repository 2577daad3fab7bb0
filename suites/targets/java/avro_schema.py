"""Java target: capability ``avro-schema`` through ``org.apache.iceberg.avro.AvroSchemaUtil.convert``
(the schema Iceberg Java writes Avro data files with). A type Java has no Avro mapping for
(``UnsupportedOperationException``) is UNSUPPORTED."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import AVRO_SCHEMA
from iceberg_conformance.suites.targets.java._oracle import call


class AvroSchemaMixin:
    CAPABILITIES = frozenset({AVRO_SCHEMA})

    def avro_schema(self, schema: Any) -> Any:
        return call("avro_schema", schema=schema)
