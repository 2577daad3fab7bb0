"""Field coverage (issue 9): ``checker/field-coverage.json`` names, for every field of the spec's
tables, the rules that check it or why none does; ``docs/field-coverage.md`` is rendered from it.

The comparison with the spec walk's ``fields.json`` needs a copy of it:
``ICEBERG_CONFORMANCE_SPEC_FIELDS`` names it, or it lies beside ``ICEBERG_CONFORMANCE_SPEC``
(``format/spec.md``); without either that test is skipped.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from iceberg_conformance.checker import field_coverage as fc


def test_check_passes() -> None:
    problems = fc.check()
    assert not problems, "\n".join(problems)


def test_rules_are_catalogued() -> None:
    known = fc.catalogued_rules()
    if known is None:
        pytest.skip("reference/rules.json is absent: rule ids were checked against the source only")
    listed = {r for row in fc.load()["fields"] for r in row["rules"]}
    assert sorted(listed - known) == []


def test_every_spec_field_listed_once() -> None:
    path = fc.spec_fields_path()
    if path is None:
        pytest.skip(f"set {fc.FIELDS_ENV} to the spec walk's fields.json (or {fc.SPEC_ENV} to a spec.md "
                    "with fields.json beside it) to compare with the spec's field tables")
    problems = fc.check(fields_path=path)
    assert not problems, "\n".join(problems)


def test_check_finds_problems() -> None:
    doc = fc.load()
    broken = copy.deepcopy(doc)
    broken["fields"].append(copy.deepcopy(broken["fields"][0]))
    broken["fields"][1]["rules"] = ["manifests.no-such-rule"]
    broken["fields"][2]["rules"], broken["fields"][2]["why_none"] = [], None
    problems = "\n".join(fc.check(broken))
    assert "listed 2 times" in problems
    assert "manifests.no-such-rule" in problems
    assert "no rule and no why_none" in problems


def test_status() -> None:
    assert fc.status({"rules": ["manifests.status"], "why_none": None}) == "covered"
    assert fc.status({"rules": ["manifests.status"], "why_none": "not yet: more"}) == "partly"
    assert fc.status({"rules": ["metadata.shape"], "why_none": "not yet: more"}) == "not yet"
    assert fc.status({"rules": [], "why_none": "not yet: a rule would compare"}) == "not yet"
    assert fc.status({"rules": [], "why_none": "Opaque bytes."}) == "uncheckable"


def test_doc_is_up_to_date(tmp_path: Path) -> None:
    out = tmp_path / "field-coverage.md"
    assert fc.main(["--out", str(out)]) == 0
    assert fc.DOC.is_file(), f"{fc.DOC} is missing: run python -m iceberg_conformance.checker.field_coverage"
    assert fc.DOC.read_text(encoding="utf-8") == out.read_text(encoding="utf-8"), (
        f"{fc.DOC} is not up to date with {fc.DATA.name}: run python -m iceberg_conformance.checker.field_coverage")
