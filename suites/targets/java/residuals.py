"""Java target: capability ``residual`` through ``org.apache.iceberg.expressions.ResidualEvaluator``.

``ResidualEvaluator.of(spec, filter, caseSensitive).residualFor(partition)`` on a partition
tuple built on the Java side from its JSON single values (a day value as the table spec's int);
the filter is given in the deprecated term form that Iceberg Java 1.10 reads
(:mod:`suites.targets._term_form`) and the residual comes back as ``ExpressionParser.toJson``
writes it (the term form, the filter's own names).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import RESIDUAL
from iceberg_conformance.suites.targets._term_form import to_term_form
from iceberg_conformance.suites.targets.java._oracle import call


class ResidualMixin:
    CAPABILITIES = frozenset({RESIDUAL})

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        return call("residual", schema=schema, spec=spec, expression=to_term_form(expr), partition=partition,
                    case_sensitive=case_sensitive)
