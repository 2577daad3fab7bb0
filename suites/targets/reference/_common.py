"""Helpers shared by the reference target's mixins: calling the reference, mapping its errors
(the public helpers of :mod:`iceberg_conformance.suites.api`, which adapters use too)."""

from __future__ import annotations

from iceberg_conformance.reference.types import IcebergType
from iceberg_conformance.suites.api import JSON, parse_type, rejecting

__all__ = ["rejecting", "typ"]


def typ(type_json: JSON) -> IcebergType:
    parsed: IcebergType = parse_type(type_json)
    return parsed
