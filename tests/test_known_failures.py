"""Known failures of the built-in targets are honest data.

* Each known failure names the normative sentence it breaks (``spec_quote``), and matches only
  ``must``-level tests: a target that does not meet a ``should`` case is ADVISORY, so such a
  case is listed under ``advisories`` (with the reason), never as a known failure.
* Each entry (known failure or advisory) still matches a test of the suites: a stale glob would
  hide nothing today and something unintended tomorrow.
* With ``ICEBERG_CONFORMANCE_SPEC`` naming a copy of the current ``format/spec.md`` (with
  ``puffin-spec.md`` beside it), every ``spec_quote`` is checked to be verbatim (after removing
  Markdown markup and collapsing white space); without it that check is skipped.
"""

from __future__ import annotations

import importlib
import json
from functools import lru_cache
from pathlib import Path

import pytest

from iceberg_conformance.suites.harness.known import KnownFailure
from iceberg_conformance.vectors.cases import MUST, SHOULD, cases_for
from tests.spec_text import normalize, spec_text

ROOT = Path(__file__).resolve().parent.parent
TARGETS_DIR = ROOT / "suites" / "targets"
BUILTIN_DIRS = ("java", "pyiceberg", "pyiceberg_core", "reference")
FILES = sorted(p for d in BUILTIN_DIRS for p in (TARGETS_DIR / d).glob("known-failures*.json"))


def _rel(p: Path) -> str:
    return p.relative_to(TARGETS_DIR).as_posix()


def _entries(path: Path, key: str) -> list[KnownFailure]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [KnownFailure(e["match"], e["reason"], e["link"], e.get("spec_quote")) for e in data.get(key, [])]


@lru_cache(maxsize=1)
def conformance_ids() -> dict[str, str]:
    """``<test function>: <case id>`` (or the bare function name) -> level, for every test of
    the suites, read from the markers the plugin parametrizes by."""
    out: dict[str, str] = {}
    for module_path in sorted((ROOT / "suites").glob("test_*.py")):
        module = importlib.import_module(f"iceberg_conformance.suites.{module_path.stem}")
        for name, fn in vars(module).items():
            if not name.startswith("test_") or not callable(fn):
                continue
            marks = getattr(fn, "pytestmark", [])
            cases = None
            for m in marks:
                if m.name == "vectors":
                    select = m.kwargs.get("select")
                    cases = [c for c in cases_for(m.args[0]) if select is None or select(c)]
                elif m.name == "parametrize" and m.args[0] == "case":
                    cases = list(m.args[1])
            level = next((m.args[0] for m in marks if m.name == "level"), None)
            if cases is None:
                out[name] = level or MUST
            else:   # a test marked level("should") lowers its cases (suites/harness/plugin.py)
                out.update({f"{name}: {c.id}": SHOULD if level == SHOULD else c.level for c in cases})
    return out


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_file_shape(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) <= {"known_failures", "advisories"}, f"{_rel(path)}: keys {sorted(data)}"
    for key, required in (("known_failures", {"match", "reason", "link", "spec_quote"}),
                          ("advisories", {"match", "reason", "link"})):
        for i, entry in enumerate(data.get(key, [])):
            assert required <= set(entry) <= required | {"spec_quote"}, f"{_rel(path)} {key}[{i}]: keys {sorted(entry)}"
            assert entry["link"].startswith("https://"), f"{_rel(path)} {key}[{i}]: link is not a URL"
            assert len(entry["reason"]) >= 15, f"{_rel(path)} {key}[{i}]: reason too short to explain anything"
            assert entry["match"].startswith("test_"), f"{_rel(path)} {key}[{i}]: match is '<test function>: <case id glob>'"
            if "spec_quote" in entry:
                quote = entry["spec_quote"]
                assert len(quote) >= 15 and "..." not in quote, (
                    f"{_rel(path)} {key}[{i}]: spec_quote is one verbatim sentence (or table row) of the spec, "
                    f"not {quote!r}")


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_known_failures_are_must_level_and_live(path: Path) -> None:
    ids = conformance_ids()
    problems = []
    for kf in _entries(path, "known_failures"):
        matched = {i: level for i, level in ids.items() if kf.matches(i)}
        if not matched:
            problems.append(f"{kf.match!r} matches no test (stale)")
        should = sorted(i for i, level in matched.items() if level != MUST)
        if should:
            problems.append(f"{kf.match!r} matches should-level tests {should[:3]}: list them under "
                            "'advisories' (a should case the target does not meet is ADVISORY, not a failure)")
    for adv in _entries(path, "advisories"):
        matched = {i: level for i, level in ids.items() if adv.matches(i)}
        if not matched:
            problems.append(f"advisory {adv.match!r} matches no test (stale)")
        must = sorted(i for i, level in matched.items() if level == MUST)
        if must:
            problems.append(f"advisory {adv.match!r} matches must-level tests {must[:3]}: a failure there is a "
                            "known failure, with the sentence it breaks")
    assert not problems, f"{_rel(path)}:\n" + "\n".join(problems)


def test_spec_quotes_are_verbatim() -> None:
    text = spec_text()
    missing = [f"{_rel(p)}: {kf.match!r}: {kf.spec_quote!r}"
               for p in FILES for key in ("known_failures", "advisories") for kf in _entries(p, key)
               if kf.spec_quote and normalize(kf.spec_quote) not in text]
    assert not missing, "spec_quote not found in the spec:\n" + "\n".join(missing)
