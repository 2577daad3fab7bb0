"""Java target: capability ``transform`` (Partition Transforms) via ``Transforms.fromString``.

Java declares ``date`` as the result type of ``day`` where the spec says ``int``; both are days
from 1970-01-01. ``transform`` returns that day ordinal as an int (the spec's form) and
``result_type`` reports Java's own answer, so the divergence shows in exactly one place.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import TRANSFORM
from iceberg_conformance.suites.targets.java._oracle import call


class TransformsMixin:
    CAPABILITIES = frozenset({TRANSFORM})

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        r = call("transform", transform=transform, type=type_, value=value)
        if r["result_type"] == "date" and transform == "day" and r["value"] is not None:
            return r["ordinal"]
        return r["value"]

    def result_type(self, transform: str, type_: Any) -> Any:
        return call("result_type", transform=transform, type=type_)
