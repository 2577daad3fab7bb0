"""Reference target: capability ``expressions`` (expression JSON, binding, row evaluation)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.suites.api import EXPRESSIONS
from iceberg_conformance.suites.targets.reference._common import rejecting


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS})

    def expression_roundtrip(self, expr: Any) -> Any:
        with rejecting():
            return ex.roundtrip(expr)

    def expression_bind(self, schema: Any, expr: Any, case_sensitive: bool) -> Any:
        with rejecting():
            return ex.bind_json(schema, expr, case_sensitive)

    def expression_evaluate(self, schema: Any, expr: Any, row: Any, case_sensitive: bool) -> bool:
        with rejecting():
            return ex.evaluate_json(schema, expr, row, case_sensitive) is True
