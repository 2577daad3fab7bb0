"""The command line as a first-time user meets it: ``--version``, plain descriptions
for the tool and every subcommand, ``run --help`` naming the built-in targets and the pytest
pass-through, ``run -k`` passed to pytest, ``check``'s usage line, one rule looked up by id."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from iceberg_conformance.cli import main, parser
from iceberg_conformance.vectors.cases import vectors_root

ROOT = Path(__file__).resolve().parent.parent
#: the built-in targets the README names (``--target reference``, ``pyiceberg``, ...)
BUILT_IN = ("reference", "pyiceberg", "pyiceberg-core", "java")
#: reStructuredText markup a docstring may hold and a --help must not
MARKUP = ("``", ":mod:", ":func:", ":data:", ":class:")


def help_of(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def subcommands() -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1
    return dict(actions[0].choices)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    vectors = (vectors_root() / "VERSION").read_text().strip()
    assert capsys.readouterr().out.strip() == f"iceberg-conformance {version('iceberg-conformance')} (vector set {vectors})"


def test_top_description_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys)
    assert "A conformance kit for Apache Iceberg" in text
    assert not [m for m in MARKUP if m in text], text


def test_every_subcommand_has_a_description(capsys: pytest.CaptureFixture[str]) -> None:
    commands = subcommands()
    assert {"run", "check", "rules", "damage", "export", "bugs", "scan", "coverage"} <= set(commands)
    for name, sub in commands.items():
        assert sub.description and len(sub.description) > 40, name
        text = help_of(capsys, name)
        # the description is printed between the usage and the arguments, as plain text
        first_words = " ".join(sub.description.split()[:4])
        assert first_words in " ".join(text.split()), (name, text)
        assert not [m for m in MARKUP if m in text], (name, text)


def test_run_help_lists_the_targets_and_the_pytest_pass_through(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "run")
    lines = text.splitlines()
    for name in BUILT_IN:
        assert any(line.split()[:1] == [name] for line in lines), (name, text)
    assert "iceberg-conformance[pyiceberg]" in text  # what to install for a target the kit does not bring
    assert " -- " in text and "-k" in text, text


def test_run_passes_options_it_does_not_know_to_pytest(tmp_path: Path) -> None:
    report = tmp_path / "report"
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance", "run", "--report", str(report),
                          "-k", "test_hash and int"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    matrix = json.loads((report / "matrix.json").read_text())
    # -k reached pytest: only hash cases of int ran, all of them passed
    assert {(r["target"], r["area"]) for r in matrix["rows"]} == {("reference", "hash")}, matrix["rows"]
    assert matrix["totals"]["PASS"] > 0 and matrix["status"] == "passed", matrix


def test_other_commands_still_refuse_unknown_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", "-k", "x"]) == 2
    assert "unrecognized arguments: -k x" in capsys.readouterr().err


def test_check_usage_names_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert help_of(capsys, "check").startswith("usage: iceberg-conformance check ")
    # the iceberg-conformance-check script is the same command with the same usage line
    script = ("import sys; sys.argv = ['iceberg-conformance-check', '--help']; "
              "from iceberg_conformance.cli import check_entry; check_entry()")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.startswith("usage: iceberg-conformance check "), run.stdout + run.stderr


def test_one_rule_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    rules = {r["id"]: r for r in json.loads((ROOT / "reference" / "rules.json").read_text())["rules"]}
    rule = rules["manifests.partition-summary"]
    assert main(["rules", rule["id"]]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == rule["id"]
    assert rule["quote"] in text and rule["section"] in text and rule["summary"] in text
    assert "damage cases" in text and not [other for other in rules if other != rule["id"] and f"\n{other}\n" in text]
    assert main(["rules", rule["id"], "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)["rules"]] == [rule["id"]]


def test_unknown_rule_id_is_a_usage_error_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "metadata.json-syntx"]) == 2
    err = capsys.readouterr().err
    assert "no rule 'metadata.json-syntx'" in err and "metadata.json-syntax" in err, err
