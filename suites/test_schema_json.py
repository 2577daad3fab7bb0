"""Appendix C: types and schemas read from JSON and written back (capability ``schema-json``).

``type-json`` cases give a type's JSON form and the canonical form written back;
``schema-json`` cases give a schema and the table's format version, and either the schema as
written back or the rule the schema breaks. A written-back schema may carry top-level keys the
case lists in ``ignore_keys`` (e.g. ``identifier-field-ids: []``) only when the expected
schema does not have them.
"""

import pytest

from iceberg_conformance.suites.api import SCHEMA_JSON
from iceberg_conformance.suites.harness.judge import run_case, values_equal, without_ignored


@pytest.mark.vectors("type-json")
@pytest.mark.capability(SCHEMA_JSON)
def test_type_json(target, case):
    run_case(case, target.name, lambda: target.type_json_roundtrip(case.input["type"]),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("schema-json")
@pytest.mark.capability(SCHEMA_JSON)
def test_schema_json(target, case):
    run_case(case, target.name,
             lambda: target.schema_json_roundtrip(case.input["schema"], case.input["format_version"]),
             equal=lambda e, a: values_equal(e, without_ignored(case, e, a)),
             reports_rules=getattr(target, "reports_rules", False))
