"""Reference target: capability ``residual`` (what remains of a row filter for one partition)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.residuals import residual_json
from iceberg_conformance.suites.api import RESIDUAL
from iceberg_conformance.suites.targets.reference.expressions import rejecting


class ResidualMixin:
    CAPABILITIES = frozenset({RESIDUAL})

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        with rejecting():
            return residual_json(schema, spec, expr, partition, case_sensitive)
