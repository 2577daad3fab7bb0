"""pytest plugin of iceberg-conformance: targets, vector parametrization, the result matrix.

Options (group ``iceberg-conformance``), each with an environment-variable fallback:

* ``--target NAME`` (repeatable; ``$ICEBERG_CONFORMANCE_TARGET``, comma-separated; default
  ``reference``): the implementation(s) under test, a built-in name or ``package.module:attr``.
* ``--conformance-report DIR`` (``$ICEBERG_CONFORMANCE_REPORT``): write the target × area
  matrix there as ``matrix.json``, ``matrix.md`` and ``matrix.html``.

Markers: ``vectors(operation, select=None)`` parametrizes a test over every vector case of
that operation (fixture ``case``), or those for which ``select(case)`` is true;
``capability(name)`` makes the test UNSUPPORTED for targets without it; ``area(name)`` names
the matrix column of a test without vectors (its row is its ``target``, else the string
parameter ``reader``, ``planner`` or ``consumer`` that names the implementation it judges); ``spec(section, quote=None)`` names the spec
clause of a test without vectors (shown with its failures and in the JUnit properties);
``level("should")`` gives a test without vectors the level a case has in its ``level`` field;
on a test with vectors it lowers every case it runs to ``should`` (the test judges a
recommended property of the same input whose required one another test judges).

Outcomes (the matrix columns): PASS, FAIL, UNSUPPORTED, KNOWN-FAILURE (a strict xfail from the
target's known-failure data), ADVISORY and SKIP. ADVISORY is a ``should``-level case (see
``vectors/README.md``, "Normative levels") that the target does not meet: the failure is turned
into an xfail whose reason starts with ``ADVISORY``, so it is shown (``-rx``, the matrix, the
JUnit ``outcome`` property) but is never a failure and never makes the exit code non-zero. A
``should`` case the target meets is a plain PASS.
"""

from __future__ import annotations

import html
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.harness.judge import ADVISORY, UNSUPPORTED
from iceberg_conformance.suites.targets import (
    DEFAULT_TARGET, ENV_VAR, KnownFailure, TargetLoadError, advisories, known_failures, load_target,
)
from iceberg_conformance.vectors.cases import (
    SHOULD, VectorFileError, case_files, cases_for, vectors_root, vectors_version,
)

TARGETS_KEY = pytest.StashKey[list[Any]]()
KNOWN_KEY = pytest.StashKey[dict[str, list[KnownFailure]]]()
MATRIX_KEY = pytest.StashKey[dict[tuple[str, str], dict[str, int]]]()
ITEMS_KEY = pytest.StashKey[dict[str, tuple[str, str]]]()
KNOWN_USED_KEY = pytest.StashKey[set[tuple[str, str]]]()
ADVISORY_NOTES_KEY = pytest.StashKey[dict[str, list[KnownFailure]]]()
#: nodeid -> what the target's advisory data says about it ("" when nothing): should-level items
SHOULD_KEY = pytest.StashKey[dict[str, str]]()
OUTCOMES = ("PASS", "FAIL", "UNSUPPORTED", "KNOWN-FAILURE", ADVISORY, "SKIP")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("iceberg-conformance", "Iceberg conformance kit")
    group.addoption(
        "--target", action="append", default=[], metavar="NAME",
        help="implementation under test: reference, pyiceberg, pyiceberg-core, java, or "
             f"package.module:attr (repeatable; env {ENV_VAR}, comma-separated; default reference)")
    group.addoption(
        "--conformance-report", metavar="DIR", default=os.environ.get("ICEBERG_CONFORMANCE_REPORT"),
        help="write the target x area result matrix (json, md, html) into DIR "
             "(env ICEBERG_CONFORMANCE_REPORT)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "vectors(operation): parametrize over the vector cases of an operation")
    config.addinivalue_line("markers", "capability(name): the test needs this target capability")
    config.addinivalue_line("markers", "area(name): the result-matrix area of a test without vectors")
    config.addinivalue_line("markers", "spec(section, quote=None): the spec clause a test without vectors checks")
    config.addinivalue_line("markers", "level(name): normative level (must, should) of a test without vectors")
    config.addinivalue_line("markers", "spark: needs Spark with the Iceberg runtime (the Spark lane)")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    names = config.getoption("target") or [
        n.strip() for n in os.environ.get(ENV_VAR, DEFAULT_TARGET).split(",") if n.strip()]
    targets, known, notes = [], {}, {}
    for name in dict.fromkeys(names):
        try:
            t = load_target(name)
            known[t.name] = known_failures(t)
            notes[t.name] = advisories(t)
        except TargetLoadError as e:
            raise pytest.UsageError(str(e)) from None
        targets.append(t)
    config.stash[TARGETS_KEY] = targets
    config.stash[KNOWN_KEY] = known
    config.stash[ADVISORY_NOTES_KEY] = notes
    config.stash[SHOULD_KEY] = {}
    config.stash[MATRIX_KEY] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    config.stash[ITEMS_KEY] = {}


def pytest_report_header(config: pytest.Config) -> list[str]:
    targets = config.stash.get(TARGETS_KEY, [])
    shown = ", ".join(f"{t.name} ({t.version})" for t in targets)
    root = vectors_root()
    return [f"iceberg-conformance: targets: {shown}; vectors {vectors_version(root)}: {root} "
            f"({len(case_files(root))} case files)"]


@pytest.fixture(scope="session", autouse=True)
def _vectors_version_property(record_testsuite_property: Any) -> None:
    """The vector set's version and the targets, as JUnit test-suite properties."""
    record_testsuite_property("vectors_version", vectors_version())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "target" in metafunc.fixturenames:
        targets = metafunc.config.stash[TARGETS_KEY]
        metafunc.parametrize("target", targets, ids=[t.name for t in targets])
    marker = metafunc.definition.get_closest_marker("vectors")
    if marker is not None and "case" in metafunc.fixturenames:
        try:
            cases = cases_for(marker.args[0])
        except VectorFileError as e:
            raise pytest.UsageError(f"bad vector file: {e}") from None
        select = marker.kwargs.get("select")
        if select is not None:
            cases = [c for c in cases if select(c)]
        if not cases:
            raise pytest.UsageError(f"no vector cases for operation {marker.args[0]!r} under {vectors_root()}")
        metafunc.parametrize("case", cases, ids=[c.id for c in cases])


#: string parameters that name the implementation a test judges where it has no ``target``
#: (the golden-table readers, the scan planners, the consumers of the matrix)
IMPLEMENTATION_PARAMS = ("reader", "planner", "consumer")


def _implementation(callspec: Any) -> str:
    """The matrix row of a test without a ``target``: its reader, planner or consumer, else "-"."""
    params = callspec.params if callspec is not None else {}
    return next((str(params[p]) for p in IMPLEMENTATION_PARAMS if isinstance(params.get(p), str)), "-")


def conformance_id(item: pytest.Item) -> str:
    """``<test function>: <case id>`` (or the bare function name): what known failures match."""
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("case") if callspec else None
    name = getattr(item, "originalname", item.name)
    return f"{name}: {case.id}" if case is not None else name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = config.stash[KNOWN_KEY]
    notes = config.stash[ADVISORY_NOTES_KEY]
    should = config.stash[SHOULD_KEY]
    where = config.stash[ITEMS_KEY]
    used: set[tuple[str, str]] = set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        target = callspec.params.get("target") if callspec else None
        case = callspec.params.get("case") if callspec else None
        area_marker = item.get_closest_marker("area")
        area = case.area if case is not None else (area_marker.args[0] if area_marker else "kit")
        where[item.nodeid] = (target.name if target is not None else _implementation(callspec), area)
        level_marker = item.get_closest_marker("level")
        if case is not None:
            item.user_properties.append(("vector", case.where()))
            item.user_properties.append(("spec", case.clause()))
            item.user_properties.append(("level", SHOULD if level_marker is not None
                                         and level_marker.args[0] == SHOULD else case.level))
        else:
            spec_marker = item.get_closest_marker("spec")
            if spec_marker is not None:
                item.user_properties.append(("spec", spec_marker.args[0]))
            if level_marker is not None:
                item.user_properties.append(("level", level_marker.args[0]))
        if target is None:
            continue
        cid = conformance_id(item)
        if (case is not None and case.advisory) or (level_marker is not None and level_marker.args[0] == SHOULD):
            # a should-level case, or a test marked level("should") (which lowers every case it
            # runs: e.g. the tightness of a residual, where the case's must is its soundness): a
            # failure is ADVISORY, never a known failure (tests/ check that no known-failure entry
            # matches one; the advisory note says why it is not met)
            note = next((a for a in notes.get(target.name, []) if a.matches(cid)), None)
            should[item.nodeid] = f"{note.reason} ({note.link})" if note else ""
        for marker in item.iter_markers("capability"):
            cap = marker.args[0]
            if cap not in target.capabilities:
                item.add_marker(pytest.mark.skip(
                    reason=f"{UNSUPPORTED}: {target.name} does not declare capability {cap!r}"))
        if item.nodeid in should:
            continue
        for kf in known.get(target.name, []):
            if kf.matches(cid):
                used.add((target.name, kf.match))
                item.add_marker(pytest.mark.xfail(
                    reason=f"known failure of {target.name}: {kf.reason} ({kf.link})", strict=True))
                break
    config.stash[KNOWN_USED_KEY] = used


def _outcome(report: pytest.TestReport) -> str | None:
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            if report.skipped:
                return ADVISORY if str(report.wasxfail).startswith(ADVISORY) else "KNOWN-FAILURE"
            return "FAIL"
        if report.passed:
            return "PASS"
        if report.failed:
            return "FAIL"
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
        return "UNSUPPORTED" if UNSUPPORTED in reason else "SKIP"
    if report.when == "teardown" and report.failed:
        return "FAIL"
    return None


def _problem(report: pytest.TestReport) -> str:
    """The ``problem:`` line of a conformance failure message, with what the target returned or
    said (or the message's first line)."""
    lines = [line.strip() for line in str(report.longrepr or "").splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith("problem:"):
            found = line.split("problem:", 1)[1].strip()
            detail = next((x for x in lines[i + 1:i + 4]
                           if x.split(":", 1)[0] in ("actual", "rejected", "returned")), None)
            return found + (f" ({detail[:200]})" if detail else "")
    return (lines[0] if lines else "")[:300]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Outermost wrapper (it sees the report after the xfail machinery): a failing ``should``
    case becomes ADVISORY; failures of tests marked ``spec`` get a section naming the clause;
    every judged report carries its outcome as the JUnit property ``outcome``."""
    report: pytest.TestReport = yield
    config = item.config
    should = config.stash.get(SHOULD_KEY, {})
    if (report.when == "call" and report.failed and item.nodeid in should
            and not hasattr(report, "wasxfail")):
        note = should[item.nodeid]
        report.outcome = "skipped"
        report.wasxfail = (f"{ADVISORY}: a should-level case is not met (not a failure): {_problem(report)}"
                           + (f"; {note}" if note else ""))
    marker = item.get_closest_marker("spec")
    if marker is not None and report.failed:
        quote = marker.kwargs.get("quote")
        report.sections.append(("iceberg-conformance: spec clause",
                                marker.args[0] + (f"\n> {quote}" if quote else "")))
    outcome = _outcome(report)
    if outcome is not None and config.stash.get(ITEMS_KEY, {}).get(report.nodeid, ("-",))[0] != "-":
        # JUnit XML takes the properties of the teardown report, which copies the item's
        item.user_properties.append(("outcome", outcome))
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    config = _CONFIG.get("config")
    if config is None:
        return
    outcome = _outcome(report)
    if outcome is None:
        return
    key = config.stash[ITEMS_KEY].get(report.nodeid, ("-", "kit"))
    config.stash[MATRIX_KEY][key][outcome] += 1


_CONFIG: dict[str, pytest.Config] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _CONFIG["config"] = session.config


def _matrix_rows(config: pytest.Config) -> list[dict[str, Any]]:
    matrix = config.stash[MATRIX_KEY]
    return [{"target": t, "area": a, **counts} for (t, a), counts in sorted(matrix.items())]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    rows = [r for r in _matrix_rows(config) if r["target"] != "-"]
    if not rows:
        return
    tr = terminalreporter
    tr.section("iceberg-conformance: target x area")
    tw = max(len("target"), *(len(r["target"]) for r in rows)) + 2
    aw = max(len("area"), *(len(r["area"]) for r in rows)) + 2
    tr.write_line(f"{'target':<{tw}}{'area':<{aw}}" + "".join(f"{o:>15}" for o in OUTCOMES))
    for r in rows:
        tr.write_line(f"{r['target']:<{tw}}{r['area']:<{aw}}" + "".join(f"{r[o]:>15}" for o in OUTCOMES))
    advisory = {t: sum(r[ADVISORY] for r in rows if r["target"] == t) for t in dict.fromkeys(r["target"] for r in rows)}
    if any(advisory.values()):
        tr.write_line(f"{ADVISORY} (should-level cases not met; not failures): "
                      + ", ".join(f"{t} {n}" for t, n in advisory.items() if n) + " (details: pytest -rx)")
    out = config.getoption("conformance_report")
    if out:
        written = write_report(Path(out), config, rows)
        tr.write_line(f"report: {written}")


def write_report(out: Path, config: pytest.Config, rows: list[dict[str, Any]]) -> Path:
    """Write matrix.json, matrix.md and matrix.html into ``out``; return the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    targets = {t.name: t.version for t in config.stash[TARGETS_KEY]}
    version = vectors_version()
    (out / "matrix.json").write_text(json.dumps({"vectors_version": version, "targets": targets, "rows": rows},
                                                indent=2) + "\n")
    md = [f"vector set {version}", "",
          "| target | area | " + " | ".join(OUTCOMES) + " |", "|---|---|" + "---:|" * len(OUTCOMES)]
    md += [f"| {r['target']} | {r['area']} | " + " | ".join(str(r[o]) for o in OUTCOMES) + " |" for r in rows]
    (out / "matrix.md").write_text("\n".join(md) + "\n")
    areas = sorted({r["area"] for r in rows})
    by = {(r["target"], r["area"]): r for r in rows}

    def cell(counts: dict[str, int] | None, tag: str = "td") -> str:
        if counts is None:
            return f'<{tag} class="none">&ndash;</{tag}>'
        judged = counts["PASS"] + counts["FAIL"] + counts["KNOWN-FAILURE"]
        cls = ("fail" if counts["FAIL"] else "known" if counts["KNOWN-FAILURE"]
               else "advisory" if counts[ADVISORY] else "pass" if counts["PASS"] else "unsup")
        detail = [f"{counts[o]} {label}" for o, label in (
            ("FAIL", "unexpected failures"), ("KNOWN-FAILURE", "known failures"),
            ("UNSUPPORTED", "unsupported"), ("SKIP", "skipped")) if counts[o]]
        main = f"<b>{counts['PASS']}</b> of {judged} conform" if judged else "not judged"
        advice = (f'<br><small class="adv">{counts[ADVISORY]} advisory (should not met)</small>'
                  if counts[ADVISORY] else "")
        return (f'<{tag} class="{cls}">{main}'
                + (f'<br><small>{html.escape(", ".join(detail))}</small>' if detail else "")
                + advice + f"</{tag}>")

    def total(t: str) -> dict[str, int]:
        return {o: sum(r[o] for r in rows if r["target"] == t) for o in OUTCOMES}

    head = "".join(f"<th>{html.escape(a)}</th>" for a in areas) + "<th>all areas</th>"
    body = "".join(
        f"<tr><th>{html.escape(t)}<br><small>{html.escape(v)}</small></th>"
        + "".join(cell(by.get((t, a))) for a in areas) + cell(total(t), "th") + "</tr>"
        for t, v in targets.items())
    page = f"""<!doctype html><meta charset="utf-8"><title>iceberg-conformance: target x area</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.45em .7em;text-align:center;vertical-align:middle}}
.pass{{background:#d9f2d9}}.known{{background:#fbe9c6}}.fail{{background:#f4c7c7}}
.advisory{{background:#dcebf7}}.adv{{color:#1d5a8c}}
.unsup{{background:#eee;color:#777}}.none{{color:#aaa}}small{{color:#555}}
.legend span{{display:inline-block;padding:.15em .6em;margin-right:.6em;border:1px solid #ccc}}</style>
<h1>iceberg-conformance: target &times; area</h1>
<p>Vector set {html.escape(version)}.</p>
<p>Each cell: how many of the judged tests the target conforms to. Judged = passed + unexpected
failures + known failures (a known failure is a recorded non-conformance of a MUST-level case,
with its reason, link and the spec sentence it breaks, beside the adapter). UNSUPPORTED
capabilities are not judged. ADVISORY counts, shown apart, are SHOULD-level cases the target
does not meet (e.g. a reader that accepts input breaking a rule for writers): not failures,
not judged.</p>
<p class="legend"><span class="pass">all judged conform</span><span class="advisory">all judged conform,
advisories</span><span class="known">known failures</span>
<span class="fail">unexpected failures</span><span class="unsup">nothing judged</span></p>
<table><tr><th>target</th>{head}</tr>{body}</table>"""
    (out / "matrix.html").write_text(page)
    return out / "matrix.html"
