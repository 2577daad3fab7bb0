"""The built-in harness targets: ``harness-python``, ``harness-java``, ``harness-js``.

Each is :class:`HarnessTarget` on the command of a harness kept in ``harnesses/<language>/``.
``harness-java`` shares the known failures of the ``java`` target (the same Iceberg Java), for
the capabilities it declares.
"""

from __future__ import annotations

import sys
from pathlib import Path

from iceberg_conformance.suites.targets.subprocess import HarnessTarget

TARGETS = Path(__file__).resolve().parent.parent


def command_of(name: str) -> list[str]:
    """The command line of built-in harness ``name`` (``harness-python``, ...)."""
    if name == "harness-python":
        return [sys.executable, "-m", "iceberg_conformance.harnesses.python.harness", "reference"]
    if name == "harness-java":
        from iceberg_conformance.harnesses.java import command
        return command()
    if name == "harness-js":
        from iceberg_conformance.harnesses.js import command as js_command
        return js_command()
    raise KeyError(name)


def python_harness() -> HarnessTarget:
    return HarnessTarget(command_of("harness-python"), name="harness-python")


def java_harness() -> HarnessTarget:
    files = sorted(str(p) for p in (TARGETS / "java").glob("known-failures-*.json"))
    return HarnessTarget(command_of("harness-java"), name="harness-java", known_failures_file=files)


def js_harness() -> HarnessTarget:
    return HarnessTarget(command_of("harness-js"), name="harness-js")
