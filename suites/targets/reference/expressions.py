"""Reference target: capabilities ``expressions`` (expression JSON, binding, row evaluation)
and ``projection`` (predicates projected through partition transforms)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.projections import accepts
from iceberg_conformance.suites.api import EXPRESSIONS, PROJECTION, Unsupported
from iceberg_conformance.suites.targets.reference._common import rejecting as _rejecting


@contextmanager
def rejecting() -> Iterator[None]:
    """Refusals as Rejected; what the reference does not implement (``ex.Undecided``) as
    UNSUPPORTED, which is no verdict."""
    try:
        with _rejecting():
            yield
    except ex.Undecided as e:
        raise Unsupported(str(e)) from e


class ExpressionsMixin:
    CAPABILITIES = frozenset({EXPRESSIONS, PROJECTION})

    def expression_roundtrip(self, expr: Any) -> Any:
        with rejecting():
            return ex.roundtrip(expr)

    def expression_bind(self, schema: Any, expr: Any, case_sensitive: bool) -> Any:
        with rejecting():
            return ex.bind_json(schema, expr, case_sensitive)

    def expression_evaluate(self, schema: Any, expr: Any, row: Any, case_sensitive: bool) -> bool:
        with rejecting():
            return ex.evaluate_json(schema, expr, row, case_sensitive) is True

    def projection_accepts(self, schema: Any, spec: Any, expr: Any, mode: str, partition: Any) -> bool:
        with rejecting():
            return accepts(schema, spec, expr, mode, partition)
