"""Helpers of the pyiceberg target's schema, partition-spec and evolution mixins."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from iceberg_conformance.suites.api import Rejected, Unsupported


@contextmanager
def refusing() -> Iterator[None]:
    """PyIceberg's validation errors (pydantic, ValueError, its ValidationError) -> Rejected."""
    from pydantic import ValidationError as PydanticError
    from pyiceberg.exceptions import ValidationError

    try:
        yield
    except (PydanticError, ValidationError, ValueError) as e:
        raise Rejected(str(e)) from e


def uses_variant(obj: Any) -> bool:
    """Whether a type/schema JSON mentions the type ``variant`` (pyiceberg 0.12 has none)."""
    if obj == "variant":
        return True
    if isinstance(obj, dict):
        return any(uses_variant(obj.get(k)) for k in ("type", "element", "key", "value", "fields"))
    if isinstance(obj, list):
        return any(uses_variant(x) for x in obj)
    return False


def no_variant(obj: Any) -> None:
    if uses_variant(obj):
        raise Unsupported("pyiceberg 0.12 has no variant type")


def load_schema(schema: Any, format_version: int) -> Any:
    """A pyiceberg Schema from JSON, checked as pyiceberg checks a table's schema."""
    from pyiceberg.schema import Schema

    no_variant(schema)
    with refusing():
        parsed = Schema.model_validate(schema)
        parsed.check_format_version_compatibility(format_version)
        parsed.field_ids  # builds the name index (refuses duplicate names)
    return parsed


def dump(model: Any) -> Any:
    return json.loads(model.model_dump_json(by_alias=True))
