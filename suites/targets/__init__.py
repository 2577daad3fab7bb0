"""Built-in target adapters, one module per implementation, and how targets are loaded.

A target is named on the command line (``pytest --target NAME``) by a built-in name below or
as ``package.module:attr`` for an adapter that lives in your own code; ``attr`` is a class
(instantiated with no arguments), a factory function, or an instance. Known failures of a
target are data beside its adapter: ``<module>.known-failures.json`` (or the adapter's
``known_failures_file`` attribute), see ``suites/targets/README.md``. The same files may list
*advisories*: why the target does not meet ``should``-level cases (reported ADVISORY, never
as failures).
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.api import check_adapter

BUILTIN = {
    "reference": "iceberg_conformance.suites.targets.reference:ReferenceTarget",
    "pyiceberg": "iceberg_conformance.suites.targets.pyiceberg:PyIcebergTarget",
    "pyiceberg-core": "iceberg_conformance.suites.targets.pyiceberg_core:PyIcebergCoreTarget",
    "java": "iceberg_conformance.suites.targets.java:JavaTarget",
}
DEFAULT_TARGET = "reference"
ENV_VAR = "ICEBERG_CONFORMANCE_TARGET"


class TargetLoadError(Exception):
    """The named target cannot be loaded; the message says why and what to install."""


@dataclass(frozen=True)
class KnownFailure:
    """A test a target is known to fail: ``match`` is a glob over ``<test function>: <case id>``.

    ``spec_quote`` is the normative sentence of the current spec the failure breaks, verbatim
    (required of the built-in targets by ``tests/test_known_failures.py``). The same shape
    describes an *advisory* (a ``should``-level case the target does not meet), where the quote
    is optional.
    """

    match: str
    reason: str
    link: str
    spec_quote: str | None = None

    def matches(self, conformance_id: str) -> bool:
        return fnmatch.fnmatchcase(conformance_id, self.match)


def load_target(spec: str) -> Any:
    """The adapter object named by ``spec`` (a built-in name or ``module:attr``)."""
    ref = BUILTIN.get(spec, spec)
    if ":" not in ref:
        raise TargetLoadError(
            f"unknown target {spec!r}: use one of {', '.join(BUILTIN)} or package.module:attr")
    module_name, attr = ref.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        if e.name is not None and module_name.startswith(e.name) and e.name.startswith("suites"):
            raise TargetLoadError(f"target {spec!r}: adapter module {module_name} is missing") from None
        extra = {"pyiceberg": "pyiceberg", "pyiceberg-core": "pyiceberg-core", "java": "spark"}.get(spec)
        hint = f" (pip install 'iceberg-conformance[{extra}]')" if extra else ""
        raise TargetLoadError(f"target {spec!r}: cannot import {module_name}: {e}{hint}") from None
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise TargetLoadError(f"target {spec!r}: {module_name} has no attribute {attr!r}") from None
    if inspect.isclass(obj) or (callable(obj) and not hasattr(obj, "capabilities")):
        obj = obj()
    problems = check_adapter(obj)
    if problems:
        raise TargetLoadError(f"target {spec!r} does not match suites.api.Target: " + "; ".join(problems))
    return obj


def known_failures(target: Any) -> list[KnownFailure]:
    """The target's known failures, read from the data file beside its adapter."""
    return _entries(target, "known_failures")


def advisories(target: Any) -> list[KnownFailure]:
    """Why the target does not meet some ``should``-level cases (the ``advisories`` list of its
    known-failure files): shown with those ADVISORY outcomes, never turned into xfails."""
    return _entries(target, "advisories")


def known_failure_files(target: Any) -> list[Path]:
    """The known-failure data files of a target (that exist)."""
    explicit = getattr(target, "known_failures_file", None)
    if explicit is not None:
        paths = [Path(explicit)]
    else:
        module = inspect.getmodule(type(target))
        if module is None or module.__file__ is None:
            return []
        file = Path(module.__file__)
        # a package keeps known-failures*.json inside it; a module keeps <module>.known-failures.json
        paths = (sorted(file.parent.glob("known-failures*.json")) if file.name == "__init__.py"
                 else [file.with_suffix(".known-failures.json")])
    return [p for p in paths if p.exists()]


def _entries(target: Any, key: str) -> list[KnownFailure]:
    out = []
    for path in known_failure_files(target):
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise TargetLoadError(f"{path}: not valid JSON: {e}") from None
        for i, entry in enumerate(data.get(key, [])):
            missing = {"match", "reason", "link"} - entry.keys()
            if missing:
                raise TargetLoadError(f"{path}: {key}[{i}] lacks {', '.join(sorted(missing))}")
            out.append(KnownFailure(entry["match"], entry["reason"], entry["link"], entry.get("spec_quote")))
    return out
