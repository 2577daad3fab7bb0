"""The outcomes of a conformance test, and how a test says it was not judged.

A test ends in one of :data:`OUTCOMES`: PASS, FAIL, ERROR (a fixture failed in setup or
teardown, or a module could not be collected: what pytest counts as an error), UNSUPPORTED (the
target lacks a capability or cannot handle an input: a skip, never a failure), KNOWN-FAILURE (a
strict xfail from the target's known-failure data), ADVISORY (a ``should``-level case the target
does not meet: an xfail, never a failure) and SKIP (anything else that did not run). A test says UNSUPPORTED or
ADVISORY by raising the exceptions below (:func:`unsupported`, :func:`not_judged`,
:func:`advisory`); the plugin tells the outcomes apart by those types and by what it recorded
when it collected the test, never by reading messages.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

PASS = "PASS"
FAIL = "FAIL"
#: a fixture's setup or teardown failed, or a module could not be collected
ERROR = "ERROR"
UNSUPPORTED = "UNSUPPORTED"
KNOWN = "KNOWN-FAILURE"
#: outcome of a ``should``-level case the target does not meet (see suites/harness/plugin.py)
ADVISORY = "ADVISORY"
SKIP = "SKIP"
OUTCOMES = (PASS, FAIL, ERROR, UNSUPPORTED, KNOWN, ADVISORY, SKIP)


class UnsupportedOutcome(pytest.skip.Exception):  # type: ignore[misc,name-defined]
    """A skip that means UNSUPPORTED: the implementation lacks what the test needs."""

    # shown as pytest shows its own skips: the reason alone (pytest strips "Skipped: ")
    __module__ = "builtins"
    __qualname__ = "Skipped"


class AdvisoryOutcome(pytest.xfail.Exception):  # type: ignore[misc,name-defined]
    """An xfail that means ADVISORY: a recommended (``should``) property is not met."""


def not_judged(reason: str) -> NoReturn:
    """End the running test as UNSUPPORTED with ``reason`` as shown (it starts with UNSUPPORTED)."""
    __tracebackhide__ = True
    raise UnsupportedOutcome(reason)


def unsupported(target_name: str, what: str) -> NoReturn:
    """End the running test as UNSUPPORTED: the target lacks a capability or cannot handle this
    input."""
    __tracebackhide__ = True
    not_judged(f"{UNSUPPORTED}: {target_name}: {what}")


def advisory(message: str) -> NoReturn:
    """End the running test as ADVISORY (a ``should`` the implementation does not meet)."""
    __tracebackhide__ = True
    raise AdvisoryOutcome(f"{ADVISORY}: {message}")
