"""Helpers shared by the reference target's mixins: calling the reference, mapping its errors."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.types import IcebergType, parse_type
from iceberg_conformance.suites.api import Rejected


@contextmanager
def rejecting() -> Iterator[None]:
    """Turn the reference's SpecViolation into the suites' Rejected, keeping the rule id."""
    try:
        yield
    except SpecViolation as e:
        raise Rejected(str(e), rule=e.rule) from e


def typ(type_json: Any) -> IcebergType:
    with rejecting():
        return parse_type(type_json)
