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


def python_harness() -> HarnessTarget:
    return HarnessTarget([sys.executable, "-m", "iceberg_conformance.harnesses.python.harness", "reference"],
                         name="harness-python")


def java_harness() -> HarnessTarget:
    from iceberg_conformance.harnesses.java import command

    files = sorted(str(p) for p in (TARGETS / "java").glob("known-failures-*.json"))
    return HarnessTarget(command(), name="harness-java", known_failures_file=files)


def js_harness() -> HarnessTarget:
    from iceberg_conformance.harnesses.js import command

    return HarnessTarget(command(), name="harness-js")
