"""PyIceberg target: capability ``avro-schema`` through ``AvroSchemaConversion.iceberg_to_avro``
(the conversion PyIceberg writes its Avro files with). A schema PyIceberg cannot parse or
convert is UNSUPPORTED (PyIceberg 0.12 has no Avro mapping for every v3 type)."""

from __future__ import annotations

import json
from typing import Any

from iceberg_conformance.suites.api import AVRO_SCHEMA, Unsupported


class AvroSchemaMixin:
    CAPABILITIES = frozenset({AVRO_SCHEMA})

    def avro_schema(self, schema: Any) -> Any:
        from pyiceberg.schema import Schema
        from pyiceberg.utils.schema_conversion import AvroSchemaConversion

        try:
            parsed = Schema.model_validate_json(json.dumps(schema))
        except Exception as e:  # noqa: BLE001 - pydantic raises several kinds; all mean "no such type here"
            raise Unsupported(f"pyiceberg cannot parse the schema: {str(e)[:300]}") from e
        try:
            return AvroSchemaConversion().iceberg_to_avro(parsed, schema_name="table")
        except (NotImplementedError, ValueError, TypeError, AttributeError) as e:
            raise Unsupported(f"pyiceberg has no Avro mapping here: {type(e).__name__}: {e}") from e
