"""Reference target: capability ``value-json`` (Appendix D JSON single values)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.values import value_from_json, value_to_json
from iceberg_conformance.suites.api import VALUE_JSON
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


class ValueJsonMixin:
    CAPABILITIES = frozenset({VALUE_JSON})

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        t = typ(type_)
        with rejecting():
            return value_to_json(t, value_from_json(t, value))
