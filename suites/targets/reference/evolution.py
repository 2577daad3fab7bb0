"""Reference target: capability ``evolution`` (schema and partition-spec evolution)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.evolution import check_partition_evolution, check_schema_evolution
from iceberg_conformance.reference.partitioning import parse_partition_spec
from iceberg_conformance.reference.schema import parse_schema, read_schema
from iceberg_conformance.suites.api import EVOLUTION
from iceberg_conformance.suites.targets.reference._common import rejecting


class EvolutionMixin:
    CAPABILITIES = frozenset({EVOLUTION})

    def check_schema_evolution(self, old: Any, new: Any, format_version: int,
                               partition_specs: list[Any] | None = None) -> None:
        with rejecting():
            specs = [parse_partition_spec(p, format_version) for p in partition_specs or []]
            check_schema_evolution(read_schema(old, format_version), parse_schema(new),
                                   format_version, specs)

    def check_partition_evolution(self, old: Any, new: Any, schema: Any, format_version: int) -> None:
        with rejecting():
            check_partition_evolution(parse_partition_spec(old, format_version),
                                      parse_partition_spec(new, format_version),
                                      read_schema(schema, format_version), format_version)
