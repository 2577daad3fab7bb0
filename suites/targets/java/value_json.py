"""Java target: capability ``value-json`` (Appendix D, JSON single-value) via ``SingleValueParser``."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import VALUE_JSON
from iceberg_conformance.suites.targets.java._oracle import call
from iceberg_conformance.suites.targets.java.binary import geo_unsupported


class ValueJsonMixin:
    CAPABILITIES = frozenset({VALUE_JSON})

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        with geo_unsupported(type_):
            return call("value_json", type=type_, value=value)
