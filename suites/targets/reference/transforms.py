"""Reference target: capability ``transform`` (partition transforms and their result types)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.transforms import parse_transform
from iceberg_conformance.reference.types import type_to_json
from iceberg_conformance.reference.values import value_from_json, value_to_json
from iceberg_conformance.suites.api import TRANSFORM
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class TransformsMixin:
    CAPABILITIES = frozenset({TRANSFORM})

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        source = typ(type_)
        with rejecting():
            t = parse_transform(transform)
            result_type = t.result_type(source)
            return value_to_json(result_type, t.apply(source, value_from_json(source, value)))

    def result_type(self, transform: str, type_: Any) -> Any:
        source = typ(type_)
        with rejecting():
            return type_to_json(parse_transform(transform).result_type(source))
