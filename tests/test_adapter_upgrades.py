"""Adapters that survive upgrades: the changelog carries the adapter API's migration, the kit's
old import names are refused with the fix (not a second copy of the kit that fails confusingly),
public helpers wrap the reference, and a subclass of a built-in target cannot inherit its name
or ``reports_rules`` unnoticed."""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from iceberg_conformance.suites.api import Rejected, parse_type, parse_value, value_to_json
from iceberg_conformance.suites.targets import TargetLoadError, load_target

ROOT = Path(__file__).resolve().parent.parent


def mapped_folders() -> dict[str, str]:
    """Top-level folder -> its module in the namespace, as the build maps them."""
    section = (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.package-dir]", 1)[1].split("\n[", 1)[0]
    found = dict(re.findall(r'^"([\w.]+)" = "(\w+)"$', section, re.MULTILINE))
    assert "iceberg_conformance.reference" in found, section
    return {folder: module for module, folder in found.items()}


#: top-level folders added after the move to one import namespace (0.1.0)
NEW_SINCE_THE_MOVE = ("harnesses",)


def test_changelog_has_the_migration_of_every_mapped_folder() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "### Adapter API" in text
    for folder, module in mapped_folders().items():
        if folder in ("statements", "bugs"):  # not part of an adapter's imports
            continue
        if folder in NEW_SINCE_THE_MOVE:  # never importable under an old name: nothing to migrate
            assert f"`iceberg_conformance.{folder}`" in text, f"the changelog does not announce {folder}"
            continue
        assert re.search(rf"`from {folder}\.[^`]*`[^|]*\| `from {re.escape(module)}\.", text), folder


@pytest.mark.parametrize("statement", ["import suites.api", "from reference.types import parse_type",
                                       "from suites.targets.reference import ReferenceTarget",
                                       "import checker.find", "from vectors.cases import cases_for"])
def test_old_import_names_are_refused_with_the_fix(statement: str) -> None:
    """In a checkout the top-level folders are importable from its directory: an adapter still
    importing them is told the new name, instead of loading a second copy of the kit."""
    done = subprocess.run([sys.executable, "-c", statement], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stdout
    old = statement.split()[1]
    top = old.split(".")[0]
    assert f"import iceberg_conformance.{top}" in done.stderr and "CHANGELOG.md" in done.stderr, done.stderr[-2000:]


def test_public_helpers_read_and_write_boundary_forms() -> None:
    # Appendix C: "decimal(P,S)"; the JSON single-value form of a decimal is its string
    assert str(parse_type("decimal(9, 2)")).replace(" ", "") == "decimal(9,2)"
    assert parse_value("decimal(9, 2)", "14.20") == Decimal("14.20")
    assert value_to_json("decimal(9, 2)", Decimal("14.20")) == "14.20"
    # a date is stored as days from 1970-01-01
    days = (datetime.date(2017, 11, 16) - datetime.date(1970, 1, 1)).days
    assert parse_value("date", "2017-11-16") == days and value_to_json("date", days) == "2017-11-16"
    assert parse_value("long", None) is None
    # refusals are the suites' Rejected with the reference's rule id
    with pytest.raises(Rejected) as refused:
        parse_type("decimal(39, 0)")  # "Precision must be 38 or less"
    assert refused.value.rule
    with pytest.raises(Rejected):
        parse_value("int", "not a number")


SUBCLASSES = '''
from iceberg_conformance.suites.targets.reference import ReferenceTarget

class NoName(ReferenceTarget):
    reports_rules = True

class NoRules(ReferenceTarget):
    name = "mine"

class Both(ReferenceTarget):
    name = "mine"
    reports_rules = False
'''


def test_a_subclass_of_a_built_in_target_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_subclasses.py").write_text(SUBCLASSES)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(TargetLoadError, match=r"NoName inherits name = 'reference' from a built-in target"):
        load_target("my_subclasses:NoName")
    with pytest.raises(TargetLoadError, match=r"NoRules inherits reports_rules = True from a built-in target"):
        load_target("my_subclasses:NoRules")
    assert load_target("my_subclasses:Both").name == "mine"
