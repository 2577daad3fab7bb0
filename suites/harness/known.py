"""Known failures and advisories: recorded non-conformance of an implementation, kept as data.

Every known-failure file of the kit is read here and every match goes through
:meth:`KnownFailure.matches`, a glob over a *subject*: the string that names what ran.

* a target's vector cases: ``<test function>: <case id>`` (``known-failures*.json`` beside the
  adapter, or the adapter's ``known_failures_file``; their ``advisories`` say why a target does not
  meet ``should``-level cases, which are reported ADVISORY, never turned into known failures);
* the golden-table readers and the scans: ``<test function>: <table> > ... > <reader>`` (the
  ``match`` of ``suites/engines/known-failures-readers.json`` and ``-scan.json``);
* Iceberg Java reading another producer's table: the table name (``table`` of
  ``suites/golden/known-failures-producers.json``);
* the consumer matrix: ``<test>: <table> > <consumer>`` (built from ``test``, ``table`` and
  ``consumer`` of ``suites/engines/known-failures-consumers.json``).

A file's entries carry ``reason`` and an upstream ``link`` (``upstream`` in the consumer file);
the whole entry as recorded stays in :attr:`KnownFailure.entry`.
"""

from __future__ import annotations

import fnmatch
import inspect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest


class KnownFailureFileError(Exception):
    """A known-failure file that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class KnownFailure:
    """A test an implementation is known to fail: ``match`` is a glob over the subject.

    ``spec_quote`` is the normative sentence of the current spec the failure breaks, verbatim
    (required of the built-in targets by ``tests/test_known_failures.py``). The same shape
    describes an *advisory* (a ``should``-level case the target does not meet), where the quote
    is optional.
    """

    match: str
    reason: str
    link: str
    spec_quote: str | None = None
    #: the entry as the file records it
    entry: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def matches(self, subject: str) -> bool:
        return fnmatch.fnmatchcase(subject, self.match)


def first_match(entries: Iterable[KnownFailure], subject: str) -> KnownFailure | None:
    """The first entry that matches ``subject``."""
    return next((k for k in entries if k.matches(subject)), None)


def load(path: Path, key: str = "known_failures",
         match: Callable[[dict[str, Any]], str] = lambda e: str(e["match"]),
         required: tuple[str, ...] = ("match", "reason", "link")) -> list[KnownFailure]:
    """The entries under ``key`` of a known-failure file (none when the file is absent).
    ``match`` builds an entry's glob (files that key entries otherwise, e.g. by table)."""
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise KnownFailureFileError(f"{path}: not valid JSON: {e}") from None
    out = []
    for i, entry in enumerate(data.get(key, [])):
        missing = set(required) - entry.keys()
        if missing:
            raise KnownFailureFileError(f"{path}: {key}[{i}] lacks {', '.join(sorted(missing))}")
        out.append(KnownFailure(match(entry), str(entry.get("reason", entry.get("note", ""))),
                                str(entry.get("link", entry.get("upstream", ""))), entry.get("spec_quote"), entry))
    return out


def xfail_marks(entries: Iterable[KnownFailure], subject: str, who: str) -> list[pytest.MarkDecorator]:
    """A strict xfail for ``subject`` where a known failure of ``who`` matches it (else none)."""
    k = first_match(entries, subject)
    return [] if k is None else [pytest.mark.xfail(reason=f"known failure of {who}: {k.reason} ({k.link})", strict=True)]


# --- a target's own files ----------------------------------------------------------------------

def target_files(target: Any) -> list[Path]:
    """The known-failure data files of a target (that exist): its ``known_failures_file`` (a path
    or a list of paths), else
    ``known-failures*.json`` inside its adapter package, or ``<module>.known-failures.json``
    beside an adapter module."""
    explicit = getattr(target, "known_failures_file", None)
    if isinstance(explicit, (list, tuple)):
        paths = [Path(p) for p in explicit]
    elif explicit is not None:
        paths = [Path(explicit)]
    else:
        module = inspect.getmodule(type(target))
        if module is None or module.__file__ is None:
            return []
        file = Path(module.__file__)
        paths = (sorted(file.parent.glob("known-failures*.json")) if file.name == "__init__.py"
                 else [file.with_suffix(".known-failures.json")])
    return [p for p in paths if p.exists()]


def of_target(target: Any) -> list[KnownFailure]:
    """The target's known failures."""
    return [k for p in target_files(target) for k in load(p, "known_failures")]


def advisories_of(target: Any) -> list[KnownFailure]:
    """Why the target does not meet some ``should``-level cases (the ``advisories`` of its
    known-failure files): shown with those ADVISORY outcomes, never turned into xfails."""
    return [k for p in target_files(target) for k in load(p, "advisories")]
