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

import fnmatch
import math
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import iceberg_conformance.suites

from iceberg_conformance.suites.harness import known as known_failures
from iceberg_conformance.suites.harness.judge import ConformanceFailure
from iceberg_conformance.suites.harness.known import KnownFailure
from iceberg_conformance.suites.harness.outcomes import (
    ADVISORY, ERROR, FAIL, KNOWN, OUTCOMES, PASS, SKIP, UNSUPPORTED, AdvisoryOutcome, UnsupportedOutcome,
)
from iceberg_conformance.suites.harness.report import (
    KIT, TEXT_LIMIT, not_shown, overall, shown_rows, write_report,
)
from iceberg_conformance.suites.targets import DEFAULT_TARGET, ENV_VAR, TargetLoadError, load_target
from iceberg_conformance.vectors.cases import (
    SHOULD, VectorFileError, case_files, cases_for, vectors_root, vectors_version,
)

TARGETS_KEY = pytest.StashKey[list[Any]]()
#: the installed suites run because the invocation directory holds no tests (shown in the header)
SUITES_KEY = pytest.StashKey[str]()
#: (target, capability) -> tests not generated because the target does not declare the capability
UNDECLARED_KEY = pytest.StashKey[dict[tuple[str, str], int]]()
#: (parent node id, function name) of the test functions no target of the run is generated for
NO_TARGET_KEY = pytest.StashKey[set[tuple[str, str]]]()
#: the key of the undeclared-capability counts in an xdist worker's output
WORKER_UNDECLARED = "iceberg_conformance_undeclared"
#: the kit's suites: the repository's suites/ in a checkout, the installed package otherwise
SUITES = Path(iceberg_conformance.suites.__file__).resolve().parent
#: at most this many directory entries are looked at to tell whether a directory holds tests
LOOK_AT_MOST = 5000
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
    if not config.pluginmanager.hasplugin("xdist"):   # the suites group tests for -n; without pytest-xdist
        config.addinivalue_line("markers", "xdist_group(name): run in one xdist worker (pytest-xdist)")
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
    config.stash[UNDECLARED_KEY] = {}
    config.stash[NO_TARGET_KEY] = set()
    if config.args_source == pytest.Config.ArgsSource.INVOCATION_DIR and not holds_tests(
            config.invocation_params.dir, config.getini("python_files")):
        # `pytest --target X` in a directory without tests (no paths given, no testpaths): run
        # the kit's suites where they are installed, not nothing (exit 5)
        config.args = [str(SUITES)]
        config.stash[SUITES_KEY] = str(SUITES)
    config.pluginmanager.register(Matrix(config, targets), "iceberg-conformance-matrix")


def holds_tests(directory: Path, patterns: list[str]) -> bool:
    """Whether ``directory`` holds a file pytest would collect (a name matching ``python_files``)
    outside hidden folders and virtual environments; True when it holds too much to look
    through (the user's tests are then assumed to be there)."""
    seen = 0
    for here, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__")) and d not in ("node_modules", "build", "dist")
                   and not (Path(here) / d / "pyvenv.cfg").exists()]
        seen += len(dirs) + len(files)
        if any(fnmatch.fnmatch(f, p) for f in files for p in patterns) or seen > LOOK_AT_MOST:
            return True
    return False


def pytest_report_header(config: pytest.Config) -> list[str]:
    targets = config.stash.get(TARGETS_KEY, [])
    shown = ", ".join(f"{t.name} ({t.version})" for t in targets)
    root = vectors_root()
    lines = [f"iceberg-conformance: targets: {shown}; vectors {vectors_version(root)}: {root} "
             f"({len(case_files(root))} case files)"]
    if SUITES_KEY in config.stash:
        lines.append(f"iceberg-conformance: no tests under {config.invocation_params.dir}: running the kit's "
                     f"suites at {config.stash[SUITES_KEY]} (pytest --pyargs iceberg_conformance.suites)")
    return lines


@pytest.fixture(scope="session", autouse=True)
def _vectors_version_property(record_testsuite_property: Any) -> None:
    """The vector set's version and the targets, as JUnit test-suite properties."""
    record_testsuite_property("vectors_version", vectors_version())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("vectors")
    cases = None
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
    if "target" in metafunc.fixturenames:
        # a test of a capability a target does not declare is not generated for that target (an
        # adapter of one capability does not wait for thousands of tests to be collected and
        # skipped); how many were left out, per capability, is counted for the summary and report
        needs = [m.args[0] for m in metafunc.definition.iter_markers("capability")]
        targets = []
        for t in metafunc.config.stash[TARGETS_KEY]:
            missing = [c for c in needs if c not in t.capabilities]
            if not missing:
                targets.append(t)
                continue
            left_out = metafunc.config.stash[UNDECLARED_KEY]
            left_out[(t.name, missing[0])] = left_out.get((t.name, missing[0]), 0) + _width(metafunc, cases)
        if not targets:
            # nothing to generate: pytest would make one placeholder of an empty parameter set;
            # pytest_collection_modifyitems deselects it
            parent = metafunc.definition.parent
            metafunc.config.stash[NO_TARGET_KEY].add((parent.nodeid if parent else "", metafunc.definition.name))
        metafunc.parametrize("target", targets, ids=[t.name for t in targets])
        if not targets:
            return
    if cases is not None:
        metafunc.parametrize("case", cases, ids=[c.id for c in cases])


def _width(metafunc: pytest.Metafunc, cases: list[Any] | None) -> int:
    """How many tests one target's parametrization of this function makes: its vector cases
    times the sizes of its ``parametrize`` marks."""
    sizes = [len(m.args[1]) for m in metafunc.definition.iter_markers("parametrize") if len(m.args) > 1]
    return (len(cases) if cases is not None else 1) * math.prod(sizes)


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
    none = config.stash[NO_TARGET_KEY]
    placeholders = [i for i in items if isinstance(i, pytest.Function) and i.parent is not None
                    and (i.parent.nodeid, i.originalname) in none]
    if placeholders:
        config.hook.pytest_deselected(items=placeholders)
        dropped = set(placeholders)
        items[:] = [i for i in items if i not in dropped]
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


def case_text(report: pytest.TestReport) -> str:
    """What a report says about a case that did not pass: the reason of a skip or an xfail, the
    failure's text (its end, where the assertion is, when it is long)."""
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2])
    elif hasattr(report, "wasxfail"):
        text = str(report.wasxfail)
    else:
        text = report.longreprtext
    return text if len(text) <= TEXT_LIMIT else "...\n" + text[-TEXT_LIMIT:]


def junit_without_install_path(path: Path) -> None:
    """JUnit class names of the suites run where they are installed start at the package
    (``iceberg_conformance.suites.test_hash``), not at the virtual environment's path pytest's
    node ids take from the rootdir (``...lib.python3.11.site-packages.iceberg_conformance...``)."""
    text = path.read_text(encoding="utf-8")
    fixed = re.sub(r'classname="(?:\.*)[^"]*?\bsite-packages\.', 'classname="', text)
    fixed = re.sub(r'classname="\.+', 'classname="', fixed)
    if fixed != text:
        path.write_text(fixed, encoding="utf-8")


class Matrix:
    """The target x area matrix of one session, counted from the reports (also those an xdist
    worker sends) and the collection reports of modules that could not be collected, shown at
    the end and written with ``--conformance-report`` when the session finishes."""

    def __init__(self, config: pytest.Config, targets: list[Any]) -> None:
        self.config = config
        self.targets = targets
        self.counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
        self.written: Path | None = None
        #: (implementation, area) -> its cases that did not pass (listed in the HTML report)
        self.cases: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        got = getattr(report, "conformance", None)
        if isinstance(got, dict):
            where, outcome = (got["implementation"], got["area"]), got["outcome"]
        else:
            # a report no test's makereport saw: e.g. the one xdist makes for a test whose worker crashed
            where, outcome = (KIT, "unattributed"), CATEGORY_OUTCOMES.get(category(self.config, report))
            if outcome is None:
                return
        self.counts[where][outcome] += 1
        if outcome != PASS:
            self.cases[where].append({"outcome": outcome, "test": report.nodeid, "text": case_text(report)})

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # a module that could not be collected (an error) or that skipped itself as a whole; under
        # xdist the controller hears of each once
        if report.failed or report.skipped:
            self.counts[(KIT, "collection")][ERROR if report.failed else SKIP] += 1

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):  # an xdist worker tells the controller (which collects nothing)
            self.config.workeroutput[WORKER_UNDECLARED] = [  # type: ignore[attr-defined]
                [t, c, n] for (t, c), n in self.config.stash[UNDECLARED_KEY].items()]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        # every worker collects every test: one worker's count is the run's
        for t, c, n in getattr(node, "workeroutput", {}).get(WORKER_UNDECLARED, []):
            self.config.stash[UNDECLARED_KEY][(t, c)] = n

    def undeclared(self) -> dict[str, dict[str, int]]:
        """target -> capability it does not declare -> tests not generated for it."""
        out: dict[str, dict[str, int]] = {}
        for (t, c), n in sorted(self.config.stash[UNDECLARED_KEY].items()):
            out.setdefault(t, {})[c] = n
        return out

    def rows(self) -> list[dict[str, Any]]:
        return [{"target": t, "area": a, **counts} for (t, a), counts in sorted(self.counts.items())]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        out = self.config.getoption("conformance_report")
        if out and not hasattr(self.config, "workerinput"):  # an xdist worker counts only its share
            self.written = write_report(Path(out), {t.name: t.version for t in self.targets}, self.rows(),
                                        int(session.exitstatus), self.undeclared(), self.cases)
            xml = getattr(self.config.option, "xmlpath", None)
            if xml and Path(xml).exists():
                junit_without_install_path(Path(xml))

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        rows, idle = shown_rows(self.rows(), [t.name for t in self.targets])
        undeclared = self.undeclared()
        if not rows and not idle and not undeclared and SUITES_KEY not in config.stash:
            return
        tr = terminalreporter
        tr.section("iceberg-conformance: target x area")
        if rows:
            tw = max(len("target"), *(len(r["target"]) for r in rows)) + 2
            aw = max(len("area"), *(len(r["area"]) for r in rows)) + 2
            tr.write_line(f"{'target':<{tw}}{'area':<{aw}}" + "".join(f"{o:>15}" for o in OUTCOMES))
            for r in rows:
                tr.write_line(f"{r['target']:<{tw}}{r['area']:<{aw}}" + "".join(f"{r[o]:>15}" for o in OUTCOMES))
        for line in not_shown(idle, undeclared):
            tr.write_line(line)
        if SUITES_KEY in config.stash:
            tr.write_line(f"ran the kit's suites at {config.stash[SUITES_KEY]}: no tests under "
                          f"{config.invocation_params.dir} (give paths to run others)")
        advisory = {t: sum(r[ADVISORY] for r in rows if r["target"] == t) for t in dict.fromkeys(r["target"] for r in rows)}
        if any(advisory.values()):
            tr.write_line(f"{ADVISORY} (should-level cases not met; not failures): "
                          + ", ".join(f"{t} {n}" for t, n in advisory.items() if n) + " (details: pytest -rx)")
        status, code, totals = overall(self.rows(), int(exitstatus))
        tr.write_line(f"status: {status} (exit code {code}): "
                      + ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o]))
        if self.written is not None:
            tr.write_line(f"report: {self.written}")
