"""PyIceberg target: capability ``residual`` through ``pyiceberg.expressions.visitors.residual_evaluator_of``.

``residual_evaluator_of(spec, filter, case_sensitive, schema).residual_for(partition)`` on a
``Record`` of the partition tuple (a day value as the table spec's int); the filter is given in
the deprecated term form PyIceberg 0.12 reads (:mod:`suites.targets._term_form`) and the residual
comes back as PyIceberg's pydantic model writes it (``model_dump_json``: the term form, the
filter's own names).
"""

from __future__ import annotations

import json
from typing import Any

from iceberg_conformance.suites.api import RESIDUAL
from iceberg_conformance.suites.targets._term_form import to_term_form
from iceberg_conformance.suites.targets.pyiceberg.expressions import _parse, _partition_record, _refusing, _schema


class ResidualMixin:
    CAPABILITIES = frozenset({RESIDUAL})

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        from pyiceberg.expressions import AlwaysFalse, AlwaysTrue
        from pyiceberg.expressions.visitors import residual_evaluator_of
        from pyiceberg.partitioning import PartitionSpec

        s, e = _schema(schema), _parse(to_term_form(expr))
        with _refusing():
            ps = PartitionSpec.model_validate(spec)
            record = _partition_record(ps.partition_type(s), partition)
            out = residual_evaluator_of(ps, e, case_sensitive, s).residual_for(record)
        if isinstance(out, (AlwaysTrue, AlwaysFalse)):
            return isinstance(out, AlwaysTrue)
        return json.loads(out.model_dump_json(by_alias=True))
