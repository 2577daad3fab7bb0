"""Java target: capability ``expressions`` through ``ExpressionParser``, ``Binder`` and
``Evaluator`` (``org.apache.iceberg.expressions``).

The bound form is what ``ExpressionParser.toJson`` writes for ``Binder.bind``'s result; rows are
built on the Java side from their JSON single-value form (``SingleValueParser``).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import EXPRESSIONS
from iceberg_conformance.suites.targets.java._oracle import call


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS})

    def expression_roundtrip(self, expr: Any) -> Any:
        return call("expression_json", expression=expr)

    def expression_bind(self, schema: Any, expr: Any, case_sensitive: bool) -> Any:
        return call("expression_bind", schema=schema, expression=expr, case_sensitive=case_sensitive)

    def expression_evaluate(self, schema: Any, expr: Any, row: Any, case_sensitive: bool) -> bool:
        return bool(call("expression_evaluate", schema=schema, expression=expr, row=row,
                         case_sensitive=case_sensitive))
