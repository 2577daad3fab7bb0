"""Built-in target adapters, one module per implementation, and how targets are loaded.

A target is named on the command line (``pytest --target NAME``) by a built-in name below or
as ``package.module:attr`` for an adapter that lives in your own code; ``attr`` is a class
(instantiated with no arguments), a factory function, or an instance. Known failures of a
target are data beside its adapter: ``<module>.known-failures.json`` (or the adapter's
``known_failures_file`` attribute), read by :mod:`iceberg_conformance.suites.harness.known`;
see ``suites/targets/README.md``.
"""

from __future__ import annotations

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.suites.targets")

import importlib
import inspect
import os
import sys
from typing import Any

from iceberg_conformance.suites.api import check_adapter
from iceberg_conformance.suites.targets.subprocess import HarnessError, HarnessTarget, HarnessUnavailable

BUILTIN = {
    "reference": "iceberg_conformance.suites.targets.reference:ReferenceTarget",
    "pyiceberg": "iceberg_conformance.suites.targets.pyiceberg:PyIcebergTarget",
    "pyiceberg-core": "iceberg_conformance.suites.targets.pyiceberg_core:PyIcebergCoreTarget",
    "java": "iceberg_conformance.suites.targets.java:JavaTarget",
    # implementations behind the harness protocol (docs/harness-protocol.md), one subprocess each
    "harness-python": "iceberg_conformance.suites.targets.subprocess.builtin:python_harness",
    "harness-java": "iceberg_conformance.suites.targets.subprocess.builtin:java_harness",
    "harness-js": "iceberg_conformance.suites.targets.subprocess.builtin:js_harness",
}
#: ``harness:COMMAND``: the program COMMAND speaks the harness protocol on stdin/stdout
HARNESS_PREFIX = "harness:"
#: the extra that installs what a built-in target needs (``pip install 'iceberg-conformance[EXTRA]'``)
EXTRAS = {"pyiceberg": "pyiceberg", "pyiceberg-core": "pyiceberg-core", "java": "spark", "harness-java": "spark"}
#: what a built-in harness needs outside Python
NEEDS = {"harness-java": "a JDK 17 (javac, java)",
         "harness-js": "node and icebird 0.3.1 (npm install --prefix DIR icebird@0.3.1; "
                       "$ICEBERG_CONFORMANCE_NODE_MODULES=DIR)"}
DEFAULT_TARGET = "reference"
ENV_VAR = "ICEBERG_CONFORMANCE_TARGET"


class TargetLoadError(Exception):
    """The named target cannot be loaded; the message says why and what to install."""


def _import_adapter(module_name: str) -> Any:
    """Import an adapter's module; one that is not on the path but in the current directory is
    found there (``pytest``, unlike ``python -m pytest``, does not put the current directory on
    ``sys.path``)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        here = os.getcwd()
        if e.name != module_name.split(".")[0] or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)
        return importlib.import_module(module_name)


def load_target(spec: str) -> Any:
    """The adapter object named by ``spec`` (a built-in name, ``harness:COMMAND`` or ``module:attr``)."""
    if spec.startswith(HARNESS_PREFIX):
        return _harness(spec, spec[len(HARNESS_PREFIX):])
    ref = BUILTIN.get(spec, spec)
    if ":" not in ref:
        raise TargetLoadError(
            f"unknown target {spec!r}: use one of {', '.join(BUILTIN)} or package.module:attr")
    module_name, attr = ref.split(":", 1)
    try:
        module = _import_adapter(module_name)
    except ImportError as e:
        if e.name is not None and module_name.startswith(e.name) and e.name.startswith("suites"):
            raise TargetLoadError(f"target {spec!r}: adapter module {module_name} is missing") from None
        extra = EXTRAS.get(spec)
        hint = f" (pip install 'iceberg-conformance[{extra}]')" if extra else ""
        raise TargetLoadError(f"target {spec!r}: cannot import {module_name}: {e}{hint}") from None
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise TargetLoadError(f"target {spec!r}: {module_name} has no attribute {attr!r}") from None
    if inspect.isclass(obj) or (callable(obj) and not hasattr(obj, "capabilities")):
        try:
            obj = obj()
        except HarnessUnavailable as e:
            raise TargetLoadError(f"target {spec!r}: {e}") from None
    problems = check_adapter(obj)
    if problems:
        raise TargetLoadError(f"target {spec!r} does not match suites.api.Target: " + "; ".join(problems))
    return obj


def _harness(spec: str, command: str) -> HarnessTarget:
    if not command.strip():
        raise TargetLoadError(f"target {spec!r}: harness: needs a command, e.g. 'harness:node harness.mjs'")
    try:
        return HarnessTarget(command)
    except HarnessError as e:
        raise TargetLoadError(f"target {spec!r}: {e}") from None
