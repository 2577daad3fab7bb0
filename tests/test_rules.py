"""The rule catalogue (``reference/rules.json``) covers every rule the kit reports.

Every rule id written in the kit's source is catalogued with a normative level, a spec section
and either the spec sentence or the kit's reason; every damage case breaks a catalogued rule;
severities follow from levels; and ``iceberg-conformance rules --json`` lists them all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iceberg_conformance.checker.damage import DAMAGES
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.rules import LEVELS, catalogue

ROOT = Path(__file__).resolve().parent.parent
AREAS = {"metadata", "manifest-list", "manifest", "data-file", "delete-file", "puffin", "values", "expressions", "kit"}
PREFIXES = ("metadata", "manifests", "snapshot", "files", "parquet", "orc", "dv", "puffin", "avro", "checker", "data",
            "deletes", "arrow", "partition", "schema", "types", "values", "transforms", "binary", "commit",
            "evolution", "scan", "expressions")
#: strings of the rule form that are not rules (an Arrow extension name, Avro header keys)
NOT_RULES = {"arrow.uuid", "avro.codec", "avro.schema"}
RULE_LITERAL = re.compile(r'"((?:%s)\.[a-z0-9-]+)"' % "|".join(PREFIXES))


def _emitted() -> dict[str, str]:
    """Rule ids written as string literals in the kit's reporting code, with one place each."""
    out: dict[str, str] = {}
    for folder in ("reference", "checker"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name in ("strategies.py", "report.py") or "damage" in path.relative_to(ROOT).parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for m in RULE_LITERAL.finditer(line):
                    if m.group(1) not in NOT_RULES:
                        out.setdefault(m.group(1), f"{path.relative_to(ROOT)}:{n}")
    return out


def test_catalogue_loads() -> None:
    assert len(catalogue()) > 100


@pytest.mark.parametrize("rule", sorted(_emitted()))
def test_emitted_rule_is_catalogued(rule: str) -> None:
    assert rule in catalogue(), f"{rule} ({_emitted()[rule]}) is reported but not in reference/rules.json"


@pytest.mark.parametrize("rule", sorted(catalogue()))
def test_catalogue_entry_is_complete(rule: str) -> None:
    r = catalogue()[rule]
    assert r.level in LEVELS, f"{rule}: level {r.level!r}"
    assert r.area in AREAS, f"{rule}: area {r.area!r}"
    assert r.section, f"{rule}: no section"
    assert r.quote or r.note, f"{rule}: neither a spec sentence nor the kit's reason"
    if r.level.startswith("KIT"):
        assert r.note, f"{rule}: a kit rule says why"


def _vector_rules() -> dict[str, str]:
    """Rule ids the vectors' error cases name, with one file each."""
    out: dict[str, str] = {}
    for path in sorted((ROOT / "vectors").rglob("*.json")):
        for m in RULE_LITERAL.finditer(path.read_bytes().decode("utf-8", "replace")):
            if m.group(1) not in NOT_RULES:
                out.setdefault(m.group(1), str(path.relative_to(ROOT)))
    return out


@pytest.mark.parametrize("rule", sorted(r for r in _vector_rules() if r.startswith("expressions.")))
def test_vector_rule_is_catalogued(rule: str) -> None:
    assert rule in catalogue(), f"{rule} ({_vector_rules()[rule]}) is named by a vector but not in reference/rules.json"


def test_expressions_rules_quote_the_spec_verbatim() -> None:
    """The expressions rules' sentences are in format/expressions-spec.md as written (checked
    when ``ICEBERG_CONFORMANCE_SPEC`` names a copy of the spec; see tests/spec_text.py)."""
    from tests.spec_text import normalize, spec_text

    text = spec_text()
    missing = [f"{r.id}: {r.quote!r}" for r in catalogue().values()
               if r.id.startswith("expressions.") and r.quote and normalize(r.quote) not in text]
    assert not missing, "quotes not in the spec:\n" + "\n".join(missing)


def test_damage_cases_break_catalogued_rules() -> None:
    missing = [d.rule for d in DAMAGES if d.rule not in catalogue()]
    assert not missing, f"damage cases for uncatalogued rules: {missing}"


def test_severity_follows_level() -> None:
    must = next(r for r in catalogue().values() if r.level == "MUST" and r.severity == "error")
    assert Finding(must.id, "m", "c", severity="warning").severity == "error"
    should = next((r for r in catalogue().values() if r.level.startswith("SHOULD")), None)
    if should is not None:
        assert Finding(should.id, "m", "c", severity="error").severity == should.severity == "warning"
    assert Finding("not.a-catalogued-rule", "m", "c", severity="warning").severity == "warning"


def test_rules_command_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    from iceberg_conformance.cli import main

    assert main(["rules", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in listed["rules"]} == set(catalogue())
    assert all(r["level"] and r["severity"] in ("error", "warning", "info") for r in listed["rules"])
