"""Appendix A, Avro: the Avro schema of an Iceberg schema (capability ``avro-schema``).

Each case gives an Iceberg schema (Appendix C JSON) and the Avro schema Appendix A maps it to,
with ``also_accepted`` for the forms the spec leaves open (an ``unknown`` field omitted, Avro's
``map`` or the array form for string keys). Appendix A fixes no record or fixed type names, so
both schemas are compared without ``name``, ``namespace`` and ``doc`` of named types (field
names stay) and without the ``doc`` of fields.
"""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.suites.api import AVRO_SCHEMA
from iceberg_conformance.suites.harness.judge import run_case, values_equal

NAMED = ("record", "fixed", "enum")


def unnamed(schema: Any) -> Any:
    """``schema`` without the names Appendix A leaves free (see the module docstring)."""
    if isinstance(schema, list):
        return [unnamed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    drop = {"name", "namespace", "doc"} if schema.get("type") in NAMED else {"doc"}
    return {k: unnamed(v) for k, v in schema.items() if k not in drop}


@pytest.mark.vectors("avro-schema")
@pytest.mark.capability(AVRO_SCHEMA)
def test_avro_schema(target, case):
    run_case(case, target.name, lambda: target.avro_schema(case.input["schema"]),
             equal=lambda e, a: values_equal(unnamed(e), unnamed(a)),
             reports_rules=getattr(target, "reports_rules", False))
