"""What a suite test calls: run one vector case against a target and judge the result.

``run_case`` calls the target, turns :class:`~suites.api.Unsupported` into an UNSUPPORTED
skip, and checks the outcome against the case: an expected value must be returned (and equal),
an expected error must be a :class:`~suites.api.Rejected` (never a crash). A failure is a
:class:`Failure` (target, case, problem, how the case reached the target, the values that
differ), raised as :class:`ConformanceFailure` and rendered to text only for the report: its
message names the vector file, the case, the spec clause, the expected and the actual value.
"""

from __future__ import annotations

import json
import math
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn

import pytest

from iceberg_conformance.suites.api import Rejected, Unsupported
from iceberg_conformance.suites.harness.outcomes import unsupported
from iceberg_conformance.vectors.cases import Case



def require(target: Any, capability: str) -> None:
    """UNSUPPORTED unless the target declares ``capability`` (for tests whose need depends on
    the case; a whole test's need is the ``capability`` marker)."""
    if capability not in target.capabilities:
        unsupported(target.name, f"does not declare capability {capability!r}")


def _show(value: Any) -> str:
    if isinstance(value, bytes):
        return value.hex() if value else "(empty bytes)"
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def describe(case: Case, target_name: str, via: str | None = None) -> str:
    """The header every failure message starts with. ``via``: how the suite asked the target
    when not directly (e.g. a hash read through ``bucket[2147483647]``)."""
    lines = [
        f"target:   {target_name}",
        f"vector:   {case.where()}",
        f"case:     {case.description}",
        f"spec:     {case.clause()}",
    ]
    for s in case.spec:
        if s.get("quote"):
            lines.append(f"          > {s['quote']}")
    if case.advisory:
        lines.append("level:    should (not met: ADVISORY, not a failure)")
    if via:
        lines.append(f"via:      {via}")
    lines.append(f"input:    {_show(case.input)}")
    if case.erratum:
        lines.append(f"erratum:  seed says {case.erratum['seed_says']!r}; correct: {case.erratum['correct']}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Failure:
    """A target that does not conform on one case: what the test found, as values."""

    target: str
    case: Case
    problem: str
    #: how the case reached the target when not directly
    via: str | None = None
    #: what the report shows beside the problem: expected, actual, rejected, returned, ...
    values: dict[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        """The failure as the report shows it."""
        body = [describe(self.case, self.target, self.via), f"problem:  {self.problem}"]
        for k, v in self.values.items():
            body.append(f"{k + ':':<9} {_show(v)}")
        return "\n".join(body)

    def summary(self) -> str:
        """The problem, with what the target returned or said."""
        detail = next((f"{k + ':':<9} {_show(self.values[k])}" for k in self.values
                       if k in ("actual", "rejected", "returned")), None)
        return self.problem + (f" ({detail[:200]})" if detail else "")

    def to_json(self) -> dict[str, Any]:
        return {"target": self.target, "vector": self.case.where(), "case": self.case.description,
                "spec": self.case.clause(), "problem": self.problem, "via": self.via,
                "values": {k: _show(v) for k, v in self.values.items()}}


class ConformanceFailure(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """A failing test whose :class:`Failure` travels with it (the message is its rendering)."""

    # shown as pytest shows its own failures
    __module__ = "builtins"
    __qualname__ = "Failed"

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.render(), pytrace=False)
        self.failure = failure


def fail(case: Case, target_name: str, problem: str, *, via: str | None = None, **values: Any) -> NoReturn:
    """Fail the running test: ``target_name`` does not conform on ``case``."""
    __tracebackhide__ = True
    raise ConformanceFailure(Failure(target_name, case, problem, via, dict(values)))


def values_equal(expected: Any, actual: Any) -> bool:
    """JSON equality where NaN equals NaN, -0.0 differs from 0.0, and 1 differs from True."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or not isinstance(expected, (int, float)):
            return False
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        return float(expected) == float(actual) and math.copysign(1, expected) == math.copysign(1, actual)
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and expected.keys() == actual.keys()
                and all(values_equal(expected[k], actual[k]) for k in expected))
    if isinstance(expected, list):
        return (isinstance(actual, (list, tuple)) and len(expected) == len(actual)
                and all(values_equal(e, a) for e, a in zip(expected, actual)))
    return type(expected) is type(actual) and expected == actual


def run_case(
    case: Case,
    target_name: str,
    call: Callable[[], Any],
    *,
    expected: Any = None,
    equal: Callable[[Any, Any], bool] = values_equal,
    reports_rules: bool = False,
    check: bool = True,
    via: str | None = None,
) -> Any:
    """Run ``call`` (the target's operation on the case input) and judge it against the case.

    ``expected`` overrides ``case.expected`` (e.g. a hash turned into a bucket). With
    ``check=False`` only the error/no-error outcome is judged and the result is returned for
    the caller to compare. ``reports_rules``: the target names the rule it rejects by, so the
    rule must match the case's. ``via`` says how the case reached the target when not
    directly; every failure message shows it.
    """
    __tracebackhide__ = True
    try:
        actual = call()
    except Unsupported as e:
        unsupported(target_name, str(e) or "this input")
        raise AssertionError("unreachable")  # pragma: no cover
    except Rejected as e:
        if not case.expects_error:
            fail(case, target_name, "the target rejected a valid input", via=via,
                 expected=case.expected if expected is None else expected, rejected=str(e))
        assert case.error is not None
        if reports_rules and e.rule is not None and e.rule != case.error["rule"]:
            fail(case, target_name, "rejected, but by another rule", via=via,
                 expected=case.error["rule"], actual=e.rule, message=str(e))
        return None
    except Exception as e:  # noqa: BLE001 - a crash is a finding, reported with its origin
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-3))
        fail(case, target_name, f"the target crashed with {type(e).__name__} (expected "
             + ("a rejection)" if case.expects_error else "a result)"), via=via, traceback=tb)
        raise AssertionError("unreachable")  # pragma: no cover
    if case.expects_error:
        assert case.error is not None
        fail(case, target_name, f"the target accepted input that breaks rule {case.error['rule']}: "
             f"{case.error['reason']}", via=via, returned=actual)
    if check:
        wants = case.accepted if expected is None else [expected]
        if not any(equal(want, actual) for want in wants):
            fail(case, target_name, "the result differs from the expected value", via=via,
                 expected=wants[0] if len(wants) == 1 else {"any of": wants}, actual=actual)
    return actual


def without_ignored(case: Case, expected: Any, actual: Any) -> Any:
    """``actual`` minus the top-level keys the case allows a target to add."""
    ignore = set(case.extra.get("ignore_keys", ()))
    if not isinstance(actual, dict) or not isinstance(expected, dict):
        return actual
    return {k: v for k, v in actual.items() if k in expected or k not in ignore}
