"""The vectors check themselves: format, uniqueness, honesty of their claims, reachability.

A case file that breaks its schema, a case no suite runs, a claim of agreement by an
implementation that is listed as failing that very case: each would let something pass by
accident, so each is an error here.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from iceberg_conformance.suites.harness.known import of_target as known_failures
from iceberg_conformance.suites.targets import BUILTIN, TargetLoadError, load_target
from iceberg_conformance.vectors.cases import VectorFileError, case_files, load_file, vectors_root

ROOT = Path(__file__).resolve().parent.parent
FILES = case_files()


def _rel(p: Path) -> str:
    return p.relative_to(vectors_root()).as_posix()


def test_there_are_vectors() -> None:
    assert len(FILES) >= 10, f"only {len(FILES)} case files under {vectors_root()}"


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_case_file_follows_schema(path: Path) -> None:
    try:
        load_file(path)
    except VectorFileError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_descriptions_unique_within_file(path: Path) -> None:
    counts = Counter(c.description for c in load_file(path))
    dupes = [d for d, n in counts.items() if n > 1]
    assert not dupes, f"{_rel(path)}: repeated test descriptions {dupes} make test ids ambiguous"


def test_file_descriptions_unique() -> None:
    seen: dict[str, str] = {}
    for path in FILES:
        desc = json.loads(path.read_text(encoding="utf-8"))["description"]
        assert desc not in seen, f"{_rel(path)} and {seen[desc]} share the description {desc!r}"
        seen[desc] = _rel(path)


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_files_named_by_cases_exist(path: Path) -> None:
    missing = []
    for case in load_file(path):
        for key, value in case.input.items():
            if key in ("file", "files") or key.endswith("_file"):
                for name in value if isinstance(value, list) else [value]:
                    if isinstance(name, str) and not case.path(name).exists():
                        missing.append(f"tests[{case.index}].input.{key} = {name}")
    assert not missing, f"{_rel(path)}: files that do not exist: {missing}"


def _operations_run_by_suites() -> set[str]:
    ops: set[str] = set()
    for module in (ROOT / "suites").glob("test_*.py"):
        ops |= set(re.findall(r"""mark\.vectors\(\s*["']([\w-]+)["']""", module.read_text(encoding="utf-8")))
    return ops


def test_every_operation_has_a_suite() -> None:
    used = {json.loads(p.read_text(encoding="utf-8"))["operation"] for p in FILES}
    orphans = used - _operations_run_by_suites()
    assert not orphans, f"vector operations no suite runs (their cases would never be checked): {sorted(orphans)}"


def _loadable_targets() -> list[object]:
    out = []
    for name in (n for n in BUILTIN if n != "reference"):
        try:
            out.append(load_target(name))
        except TargetLoadError:
            continue
    return out


@pytest.mark.parametrize("adapter", _loadable_targets(), ids=lambda t: t.name)
def test_agreement_claims_are_not_known_failures(adapter: object) -> None:
    """A case whose `derived.agreed` names an implementation must not be a known failure of it."""
    name = getattr(adapter, "name")
    prefix = {"pyiceberg": "pyiceberg ", "pyiceberg-core": "pyiceberg-core ", "java": "java "}.get(name)
    if prefix is None:
        pytest.skip(f"{name} is not an implementation the vectors cite")
    kfs = known_failures(adapter)
    contradictions = []
    functions = _vector_functions()
    for path in FILES:
        for case in load_file(path):
            if not kfs or not any(a.startswith(prefix) for a in case.derived["agreed"]):
                continue
            for kf in kfs:
                # the known-failure glob is over "<test function>: <case id>"; the claim is about
                # the tests that run the case's operation, not other tests that reuse its files
                if any(kf.matches(f"{fn}: {case.id}") for fn in functions.get(case.operation, ())):
                    contradictions.append(f"{case.id} (known failure: {kf.reason})")
    assert not contradictions, f"cases claim agreement by {name} but are its known failures: {contradictions}"


@functools.lru_cache(maxsize=1)
def _vector_functions() -> dict[str, tuple[str, ...]]:
    """operation -> the suite test functions marked ``vectors(operation)``."""
    found: dict[str, list[str]] = {}
    pattern = re.compile(r"""mark\.vectors\(\s*["']([\w-]+)["'][^\n]*\n(?:@[^\n]*\n)*def (test_\w+)""")
    for module in (ROOT / "suites").glob("test_*.py"):
        for op, fn in pattern.findall(module.read_text(encoding="utf-8")):
            found.setdefault(op, []).append(fn)
    return {op: tuple(fns) for op, fns in found.items()}


def test_current_spec_quotes_are_verbatim() -> None:
    """Every quote a case gives from the current spec (``source: current``, and ``expressions``
    and ``rest-openapi`` for the documents beside it) is in it, verbatim (needs
    ``ICEBERG_CONFORMANCE_SPEC``, see tests/spec_text.py)."""
    from tests.spec_text import normalize, spec_text

    text = spec_text()
    missing = sorted({f"{case.rel}: {s['quote']!r}" for path in FILES for case in load_file(path)
                      for s in case.spec if s.get("source") in ("current", "expressions", "rest-openapi")
                      and s.get("quote")
                      and normalize(s["quote"]) not in text})
    assert not missing, f"{len(missing)} quotes are not in the current spec:\n" + "\n".join(missing[:40])


def test_levels_are_reasoned() -> None:
    """A file that sets ``level`` says why in its ``notes`` (see vectors/README.md, Normative levels)."""
    unexplained = []
    for path in FILES:
        doc = json.loads(path.read_text(encoding="utf-8"))
        levels = {t.get("level") for t in doc["tests"]} | {doc.get("level")}
        if "should" in levels and "level" not in doc.get("notes", "").lower():
            unexplained.append(_rel(path))
    assert not unexplained, f"files with should-level cases whose notes do not explain the levels: {unexplained}"
