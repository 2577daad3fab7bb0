"""Reference target: capability ``partition-spec-json``."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.partitioning import partition_spec_to_json, read_partition_spec
from iceberg_conformance.reference.schema import read_schema
from iceberg_conformance.suites.api import PARTITION_SPEC_JSON
from iceberg_conformance.suites.targets.reference._common import rejecting


class PartitionSpecJsonMixin:
    CAPABILITIES = frozenset({PARTITION_SPEC_JSON})

    def partition_spec_json_roundtrip(self, spec: Any, schema: Any, format_version: int) -> Any:
        with rejecting():
            bound = read_schema(schema, format_version)
            return partition_spec_to_json(read_partition_spec(spec, bound, format_version))
