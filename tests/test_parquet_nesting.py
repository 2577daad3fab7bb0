"""Parquet LIST and MAP groups against LogicalTypes.md (reference/parquet.py).

The 3-level structures as LogicalTypes.md lays them out check clean; a repeated outer group or
element is a structure rule; a repeated group or fields not named ``list``/``element`` or
``key_value``/``key``/``value`` is ``parquet.nested-names``, and the columns under them are
still checked (the names are a writer's requirement, not enforced when reading).
"""

from __future__ import annotations

from typing import Any

import pytest

LIST = {"type": "list", "element-id": 2, "element": "long", "element-required": False}
MAP = {"type": "map", "key-id": 2, "key": "string", "value-id": 3, "value": "int", "value-required": False}


def _list(outer: str = "optional", rep: str = "list", element: str = "element", erep: str = "optional") -> str:
    return f"""required group field_id=-1 schema {{
  {outer} group field_id=1 c (List) {{
    repeated group field_id=-1 {rep} {{
      {erep} int64 field_id=2 {element};
    }}
  }}
}}"""


def _map(outer: str = "optional", rep: str = "key_value", key: str = "key", value: str = "value") -> str:
    return f"""required group field_id=-1 schema {{
  {outer} group field_id=1 c (Map) {{
    repeated group field_id=-1 {rep} {{
      required binary field_id=2 {key} (String);
      optional int32 field_id=3 {value};
    }}
  }}
}}"""


def _errors(iceberg: Any, text: str, severity: str = "error") -> set[str]:
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": iceberg}]})
    assert isinstance(schema, StructType)
    return {f.rule for f in check_schema(parse_schema_text(text), index_fields([schema])) if f.severity == severity}


def _warnings(iceberg: Any, text: str) -> set[str]:
    return _errors(iceberg, text, "warning")


@pytest.mark.parametrize("text", [_list(), _list(outer="required"), _list(erep="required")],
                         ids=["optional list", "required list", "required element"])
def test_list_as_logical_types_lays_it_out(text: str) -> None:
    assert _errors(LIST, text) == set()


@pytest.mark.parametrize("text", [_list(outer="repeated"), _list(erep="repeated")],
                         ids=["repeated list", "repeated element"])
def test_list_structure(text: str) -> None:
    assert _errors(LIST, text) == {"parquet.list-structure"}


@pytest.mark.parametrize("text", [_list(rep="bag"), _list(element="item"), _list(rep="array", element="array_element")],
                         ids=["group bag", "element item", "legacy names"])
def test_list_names(text: str) -> None:
    # other names are the legacy forms readers accept (LogicalTypes.md backward compatibility): a warning
    assert _errors(LIST, text) == set() and _warnings(LIST, text) == {"parquet.nested-names"}


@pytest.mark.parametrize("text", [_map(), _map(outer="required")], ids=["optional map", "required map"])
def test_map_as_logical_types_lays_it_out(text: str) -> None:
    assert _errors(MAP, text) == set()


def test_map_structure() -> None:
    assert _errors(MAP, _map(outer="repeated")) == {"parquet.map-structure"}


@pytest.mark.parametrize("text", [_map(rep="map"), _map(key="k"), _map(value="v")], ids=["group map", "key k", "value v"])
def test_map_names(text: str) -> None:
    assert _errors(MAP, text) == set() and _warnings(MAP, text) == {"parquet.nested-names"}


def test_columns_under_misnamed_groups_are_still_checked() -> None:
    text = _list(element="item").replace("int64 field_id=2", "int64 field_id=5")
    assert _errors(LIST, text) == {"parquet.field-id-mismatch"} and _warnings(LIST, text) == {"parquet.nested-names"}


@pytest.mark.parametrize("text", [
    "required group field_id=-1 schema {\n  repeated int64 field_id=1 c;\n}",
    "required group field_id=-1 schema {\n  optional group field_id=1 c {\n    repeated int64 field_id=2 x;\n  }\n}",
], ids=["top-level repeated", "repeated in a struct"])
def test_unannotated_repeated_fields(text: str) -> None:
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": (
        "long" if "x;" not in text else {"type": "struct", "fields": [{"id": 2, "name": "x", "required": False,
                                                                       "type": "long"}]})}]})
    assert isinstance(schema, StructType)
    found = {f.rule for f in check_schema(parse_schema_text(text), index_fields([schema])) if f.severity == "error"}
    assert found == {"parquet.list-structure"}
