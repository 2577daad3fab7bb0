"""Equality delete columns follow the identifier-field restrictions (checker/units/datafile.py),
except that optional columns and columns under optional structs are allowed."""

from __future__ import annotations

import pytest

from iceberg_conformance.checker.units.deletes import equality_field_problems
from iceberg_conformance.reference.types import StructType, parse_type

SCHEMA = parse_type({"type": "struct", "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"},
    {"id": 3, "name": "score", "required": False, "type": "double"},
    {"id": 4, "name": "ratio", "required": True, "type": "float"},
    {"id": 5, "name": "loc", "required": False, "type": {"type": "struct", "fields": [
        {"id": 6, "name": "zip", "required": False, "type": "string"}]}},
    {"id": 7, "name": "tags", "required": False, "type": {
        "type": "list", "element-id": 8, "element": "string", "element-required": True}},
    {"id": 9, "name": "attrs", "required": False, "type": {
        "type": "map", "key-id": 10, "key": "string", "value-id": 11, "value": "int", "value-required": False}},
]})


@pytest.mark.parametrize("ids", [[1], [2], [1, 2], [6], [99]],
                         ids=["required long", "optional string", "two", "under an optional struct", "unknown id"])
def test_allowed_equality_fields(ids: list[int]) -> None:
    assert isinstance(SCHEMA, StructType)
    assert equality_field_problems(ids, [SCHEMA]) == []


@pytest.mark.parametrize("ids, word", [([3], "double"), ([4], "float"), ([5], "not a primitive"),
                                       ([8], "list or map"), ([10], "list or map"), ([11], "list or map"),
                                       ([7], "not a primitive")],
                         ids=["double", "float", "struct", "list element", "map key", "map value", "list"])
def test_refused_equality_fields(ids: list[int], word: str) -> None:
    assert isinstance(SCHEMA, StructType)
    found = equality_field_problems(ids, [SCHEMA])
    assert len(found) == 1 and word in found[0]
