"""Java target: capability ``expressions`` through ``ExpressionParser``, ``Binder`` and
``Evaluator`` (``org.apache.iceberg.expressions``).

Iceberg Java 1.10 reads only the deprecated term form of ``format/expressions-spec.md``:
binding and evaluation are asked in that form (:mod:`suites.targets._term_form`), parsing
is asked as the case gives it. The bound form is what ``ExpressionParser.toJson`` writes for
``Binder.bind``'s result (names, not field ids); rows are built on the Java side from their
JSON single-value form (``SingleValueParser``). Projections are ``Projections.inclusive`` /
``Projections.strict`` of the spec, evaluated with ``Evaluator`` on the partition tuple.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import EXPRESSIONS, PROJECTION
from iceberg_conformance.suites.targets._term_form import to_term_form
from iceberg_conformance.suites.targets.java._oracle import call


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS, PROJECTION})

    def expression_roundtrip(self, expr: Any) -> Any:
        return call("expression_json", expression=expr)

    def expression_bind(self, schema: Any, expr: Any, case_sensitive: bool) -> Any:
        return call("expression_bind", schema=schema, expression=to_term_form(expr), case_sensitive=case_sensitive)

    def expression_evaluate(self, schema: Any, expr: Any, row: Any, case_sensitive: bool) -> bool:
        return bool(call("expression_evaluate", schema=schema, expression=to_term_form(expr), row=row,
                         case_sensitive=case_sensitive))

    def projection_accepts(self, schema: Any, spec: Any, expr: Any, mode: str, partition: Any) -> bool:
        return bool(call("projection_accepts", schema=schema, spec=spec, expression=to_term_form(expr),
                         mode=mode, partition=partition))
