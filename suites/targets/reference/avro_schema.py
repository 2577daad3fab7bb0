"""Reference target: capability ``avro-schema`` (Appendix A, Avro: ``reference.avro.to_avro``)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.avro import to_avro
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.suites.api import AVRO_SCHEMA
from iceberg_conformance.suites.targets.reference._common import rejecting


class AvroSchemaMixin:
    CAPABILITIES = frozenset({AVRO_SCHEMA})

    def avro_schema(self, schema: Any) -> Any:
        with rejecting():
            return to_avro(parse_schema(schema).struct, name="table")
