"""pytest plugin of iceberg-conformance: targets, vector parametrization, outcomes, the matrix.

Options (group ``iceberg-conformance``), each with an environment-variable fallback:

* ``--target NAME`` (repeatable; ``$ICEBERG_CONFORMANCE_TARGET``, comma-separated; default
  ``reference``): the implementation(s) under test, a built-in name or ``package.module:attr``.
* ``--conformance-report DIR`` (``$ICEBERG_CONFORMANCE_REPORT``): write the target × area
  matrix there as ``matrix.json``, ``matrix.md`` and ``matrix.html``.

Markers: ``vectors(operation, select=None)`` parametrizes a test over every vector case of
that operation (fixture ``case``), or those for which ``select(case)`` is true;
``capability(name)`` makes the test UNSUPPORTED for targets without it; ``area(name)`` names
the matrix column of a test without vectors (its row is its ``target``, else the string
parameter ``reader``, ``planner`` or ``consumer`` that names the implementation it judges);
``spec(section, quote=None)`` names the spec clause of a test without vectors (shown with its
failures and in the JUnit properties); ``level("should")`` gives a test without vectors the
level a case has in its ``level`` field; on a test with vectors it lowers every case it runs to
``should`` (the test judges a recommended property of the same input whose required one another
test judges).

Outcomes (the matrix columns, :mod:`.outcomes`): PASS, FAIL, ERROR, UNSUPPORTED, KNOWN-FAILURE
(a strict xfail from the target's known-failure data), ADVISORY and SKIP. ADVISORY is a
``should``-level case (see ``vectors/README.md``, "Normative levels") that the target does not
meet: the failure is turned into an xfail, so it is shown (``-rx``, the matrix, the JUnit
``outcome`` property) but is never a failure and never makes the exit code non-zero. A
``should`` case the target meets is a plain PASS. Each report carries its outcome as the
attribute ``conformance`` (it travels with the report to an xdist controller), from which the
matrix is counted.

The report is the run: every outcome pytest counts is in the matrix, in the category pytest
puts it in (its ``pytest_report_teststatus``): passed and xpassed are PASS, failed is FAIL,
error (a fixture's setup or teardown) is ERROR, skipped is UNSUPPORTED or SKIP, xfailed is
KNOWN-FAILURE or ADVISORY. Tests that judge no implementation (the kit's own) are the row
``(kit)``, and so are modules that could not be collected (area ``collection``, ERROR; a module
skipped as a whole is SKIP there). The report is written when the session finishes, with the
overall status and pytest's exit code (``matrix.json``: ``status``, ``exit_code``, ``totals``).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.harness import known as known_failures
from iceberg_conformance.suites.harness.judge import ConformanceFailure
from iceberg_conformance.suites.harness.known import KnownFailure
from iceberg_conformance.suites.harness.outcomes import (
    ADVISORY, ERROR, FAIL, KNOWN, OUTCOMES, PASS, SKIP, UNSUPPORTED, AdvisoryOutcome, UnsupportedOutcome,
)
from iceberg_conformance.suites.harness.report import KIT, overall, write_report
from iceberg_conformance.suites.targets import DEFAULT_TARGET, ENV_VAR, TargetLoadError, load_target
from iceberg_conformance.vectors.cases import (
    SHOULD, VectorFileError, case_files, cases_for, vectors_root, vectors_version,
)

TARGETS_KEY = pytest.StashKey[list[Any]]()
#: what the plugin decided about an item when it collected it
ITEM_KEY = pytest.StashKey["ItemInfo"]()

#: string parameters that name the implementation a test judges where it has no ``target``
#: (the golden-table readers, the scan planners, the consumers of the matrix)
IMPLEMENTATION_PARAMS = ("reader", "planner", "consumer")


@dataclass
class ItemInfo:
    """What collection decided about one test: the implementation it judges (:data:`KIT` for the
    kit's own tests), its matrix area, and how its outcome is to be read."""

    implementation: str
    area: str
    #: a ``should``-level test: what the target's advisory data says of it ("" when nothing);
    #: None for a ``must``-level test
    should: str | None = None
    #: skipped as UNSUPPORTED by a capability marker
    unsupported: bool = False
    #: the known failure its strict xfail comes from
    known: KnownFailure | None = None


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
    out = config.getoption("conformance_report")
    if out and not hasattr(config, "workerinput"):
        # an earlier run's matrix must not stand for this one if it ends before writing its own
        # (a usage error, an unknown target, an interrupted session)
        for stale in ("matrix.md", "matrix.json", "matrix.html"):
            (Path(out) / stale).unlink(missing_ok=True)
    names = config.getoption("target") or [
        n.strip() for n in os.environ.get(ENV_VAR, DEFAULT_TARGET).split(",") if n.strip()]
    targets = []
    for name in dict.fromkeys(names):
        try:
            targets.append(load_target(name))
        except TargetLoadError as e:
            raise pytest.UsageError(str(e)) from None
    config.stash[TARGETS_KEY] = targets
    config.pluginmanager.register(Matrix(config, targets), "iceberg-conformance-matrix")


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


def _implementation(callspec: Any) -> str:
    """The matrix row of a test without a ``target``: its reader, planner or consumer, else the
    kit's own row."""
    params = callspec.params if callspec is not None else {}
    return next((str(params[p]) for p in IMPLEMENTATION_PARAMS if isinstance(params.get(p), str)), KIT)


def conformance_id(item: pytest.Item) -> str:
    """``<test function>: <case id>`` (or the bare function name): what known failures match."""
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("case") if callspec else None
    name = getattr(item, "originalname", item.name)
    return f"{name}: {case.id}" if case is not None else name


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = {t.name: known_failures.of_target(t) for t in config.stash[TARGETS_KEY]}
    notes = {t.name: known_failures.advisories_of(t) for t in config.stash[TARGETS_KEY]}
    for item in items:
        callspec = getattr(item, "callspec", None)
        target = callspec.params.get("target") if callspec else None
        case = callspec.params.get("case") if callspec else None
        area_marker = item.get_closest_marker("area")
        area = case.area if case is not None else (area_marker.args[0] if area_marker else "kit")
        info = item.stash[ITEM_KEY] = ItemInfo(target.name if target is not None else _implementation(callspec), area)
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
            note = known_failures.first_match(notes.get(target.name, []), cid)
            info.should = f"{note.reason} ({note.link})" if note else ""
        for marker in item.iter_markers("capability"):
            cap = marker.args[0]
            if cap not in target.capabilities:
                info.unsupported = True
                item.add_marker(pytest.mark.skip(
                    reason=f"{UNSUPPORTED}: {target.name} does not declare capability {cap!r}"))
        if info.should is not None:
            continue
        kf = known_failures.first_match(known.get(target.name, []), cid)
        if kf is not None:
            info.known = kf
            item.add_marker(pytest.mark.xfail(
                reason=f"known failure of {target.name}: {kf.reason} ({kf.link})", strict=True))


#: pytest's categories of a report (the first item of ``pytest_report_teststatus``, what its
#: summary line counts) and the outcome each is before the kit tells UNSUPPORTED from SKIP and
#: ADVISORY from KNOWN-FAILURE; "" (a setup or teardown that passed) is no outcome
CATEGORY_OUTCOMES = {"passed": PASS, "xpassed": PASS, "failed": FAIL, "error": ERROR, "skipped": SKIP,
                     "xfailed": KNOWN}


def category(config: pytest.Config, report: pytest.TestReport | pytest.CollectReport) -> str:
    """The category pytest counts a report in (passed, failed, error, skipped, xfailed, ...)."""
    return str(config.hook.pytest_report_teststatus(report=report, config=config)[0])


def _outcome(category_: str, info: ItemInfo | None, call: pytest.CallInfo[None]) -> str | None:
    """The outcome of a report pytest counts as ``category_``, from the types the test raised
    and what collection decided."""
    raised = call.excinfo.value if call.excinfo is not None else None
    outcome = CATEGORY_OUTCOMES.get(category_)
    if outcome == SKIP and (isinstance(raised, UnsupportedOutcome) or (info is not None and info.unsupported)):
        return UNSUPPORTED
    if outcome == KNOWN and (isinstance(raised, AdvisoryOutcome) or (info is not None and info.should is not None)):
        return ADVISORY
    return outcome


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Outermost wrapper (it sees the report after the xfail machinery): a failing ``should``
    case becomes ADVISORY; failures of tests marked ``spec`` get a section naming the clause;
    every report gets its outcome (attribute ``conformance``; JUnit property ``outcome`` for a
    test that judges an implementation)."""
    report: pytest.TestReport = yield
    info = item.stash.get(ITEM_KEY, None)
    if (report.when == "call" and report.failed and info is not None and info.should is not None
            and not hasattr(report, "wasxfail")):
        raised = call.excinfo.value if call.excinfo is not None else None
        found = raised.failure.summary() if isinstance(raised, ConformanceFailure) else \
            next((line.strip() for line in str(report.longrepr or "").splitlines() if line.strip()), "")[:300]
        report.outcome = "skipped"
        report.wasxfail = (f"{ADVISORY}: a should-level case is not met (not a failure): {found}"
                           + (f"; {info.should}" if info.should else ""))
    marker = item.get_closest_marker("spec")
    if marker is not None and report.failed:
        quote = marker.kwargs.get("quote")
        report.sections.append(("iceberg-conformance: spec clause",
                                marker.args[0] + (f"\n> {quote}" if quote else "")))
    outcome = _outcome(category(item.config, report), info, call)
    if outcome is not None:
        where = info if info is not None else ItemInfo(KIT, "kit")
        report.conformance = {"implementation": where.implementation, "area": where.area,  # type: ignore[attr-defined]
                              "outcome": outcome}
        if where.implementation != KIT:
            # JUnit XML takes the properties of the teardown report, which copies the item's
            item.user_properties.append(("outcome", outcome))
    return report


class Matrix:
    """The target x area matrix of one session, counted from the reports (also those an xdist
    worker sends) and the collection reports of modules that could not be collected, shown at
    the end and written with ``--conformance-report`` when the session finishes."""

    def __init__(self, config: pytest.Config, targets: list[Any]) -> None:
        self.config = config
        self.targets = targets
        self.counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
        self.written: Path | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        got = getattr(report, "conformance", None)
        if isinstance(got, dict):
            self.counts[(got["implementation"], got["area"])][got["outcome"]] += 1
            return
        # a report no test's makereport saw: e.g. the one xdist makes for a test whose worker crashed
        outcome = CATEGORY_OUTCOMES.get(category(self.config, report))
        if outcome is not None:
            self.counts[(KIT, "unattributed")][outcome] += 1

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # a module that could not be collected (an error) or that skipped itself as a whole; under
        # xdist the controller hears of each once
        if report.failed or report.skipped:
            self.counts[(KIT, "collection")][ERROR if report.failed else SKIP] += 1

    def rows(self) -> list[dict[str, Any]]:
        return [{"target": t, "area": a, **counts} for (t, a), counts in sorted(self.counts.items())]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        out = self.config.getoption("conformance_report")
        if out and not hasattr(self.config, "workerinput"):  # an xdist worker counts only its share
            self.written = write_report(Path(out), {t.name: t.version for t in self.targets}, self.rows(),
                                        int(session.exitstatus))

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        rows = self.rows()
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
        status, code, totals = overall(rows, int(exitstatus))
        tr.write_line(f"status: {status} (exit code {code}): "
                      + ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o]))
        if self.written is not None:
            tr.write_line(f"report: {self.written}")
