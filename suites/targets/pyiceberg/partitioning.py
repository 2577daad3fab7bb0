"""PyIceberg target: capability ``partition-spec-json``.

The spec is parsed with ``PartitionSpec.model_validate`` and bound to the schema with
PyIceberg's own checks: ``PartitionSpec.check_compatible`` (sources exist, are primitive, not in
a list or map, accepted by the transform) and ``validate_partition_name`` per field (names).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import PARTITION_SPEC_JSON
from iceberg_conformance.suites.targets.pyiceberg._schema_util import dump, load_schema, refusing


class PartitionSpecJsonMixin:
    CAPABILITIES = frozenset({PARTITION_SPEC_JSON})

    def partition_spec_json_roundtrip(self, spec: Any, schema: Any, format_version: int) -> Any:
        from pyiceberg.partitioning import PartitionSpec, validate_partition_name

        bound_schema = load_schema(schema, format_version)
        with refusing():
            parsed = PartitionSpec.model_validate(spec)
            parsed.check_compatible(bound_schema)
            names: set[str] = set()
            for f in parsed.fields:
                validate_partition_name(f.name, f.transform, f.source_id, bound_schema, names)
                names.add(f.name)
        return dump(parsed)
