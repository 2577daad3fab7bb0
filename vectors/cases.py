"""Loading golden vector case files (``vectors/**/*.json``) into test cases.

The format is described in ``vectors/README.md`` and enforced by ``vectors/case.schema.json``.
A case file holds tests of one *operation* (what the suite asks a target to do); each test has
an input and either an ``expected`` value or an expected ``error``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

CASE_SCHEMA_FILE = "case.schema.json"
VERSION_FILE = "VERSION"

#: normative levels of a case (vectors/README.md, "Normative levels"): a target that fails a
#: ``must`` case FAILs; one that fails a ``should`` case is ADVISORY (shown, never a failure)
MUST, SHOULD = "must", "should"
LEVELS = (MUST, SHOULD)


def _package_vectors() -> Path:
    """The vectors shipped with the kit (package data of ``iceberg_conformance.vectors``; in a
    checkout, the repository's ``vectors/``)."""
    from importlib import resources

    found = resources.files("iceberg_conformance.vectors")
    return Path(str(found))


def vectors_root() -> Path:
    """The vectors directory: ``$ICEBERG_CONFORMANCE_VECTORS`` or the kit's own."""
    given = os.environ.get("ICEBERG_CONFORMANCE_VECTORS")
    return Path(given).resolve() if given else _package_vectors().resolve()


def vectors_version(root: Path | None = None) -> str:
    """The vector set's version (semver, ``VERSION`` in the vectors directory)."""
    path = (root or vectors_root()) / VERSION_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return "unversioned"


@dataclass(frozen=True)
class Case:
    """One test of a vector file, with what a failure message needs to name."""

    file: Path                # the case file
    rel: str                  # its path under vectors/, without .json ("hash/decimal")
    index: int                # position in the file's "tests"
    operation: str
    description: str
    input: dict[str, Any]
    expected: Any
    error: dict[str, Any] | None
    format_versions: tuple[int, ...]
    spec: tuple[dict[str, str], ...]
    derived: dict[str, Any]
    erratum: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    level: str = MUST          # "must" or "should": see vectors/README.md, "Normative levels"

    @property
    def id(self) -> str:
        """Readable test id: ``hash/decimal > -1.28 hashes to 267099677``."""
        return f"{self.rel} > {self.description}"

    @property
    def area(self) -> str:
        return self.rel.split("/", 1)[0]

    @property
    def accepted(self) -> list[Any]:
        """The expected value and any ``also_accepted`` alternatives."""
        return [self.expected, *self.extra.get("also_accepted", [])]

    @property
    def expects_error(self) -> bool:
        return self.error is not None

    @property
    def advisory(self) -> bool:
        """A ``should`` case: failing it is ADVISORY, not a failure."""
        return self.level == SHOULD

    def path(self, name: str) -> Path:
        """A file named by the case (an Avro manifest, a Puffin file), beside the case file."""
        return (self.file.parent / name).resolve()

    def clause(self) -> str:
        return "; ".join(dict.fromkeys(s["section"] for s in self.spec))

    def where(self) -> str:
        """``vectors/hash/decimal.json tests[3]``."""
        root = vectors_root()
        shown = f"vectors/{self.file.relative_to(root).as_posix()}" if self.file.is_relative_to(root) else str(self.file)
        return f"{shown} tests[{self.index}]"


@lru_cache(maxsize=1)
def case_schema() -> dict[str, Any]:
    with open(vectors_root() / CASE_SCHEMA_FILE, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def case_files(root: Path | None = None) -> list[Path]:
    """Every case file under the vectors root.

    Not case files: ``*.schema.json``, ``*.sidecar.json``, ``*.metadata.json``, and anything
    inside a ``files/`` or ``expected/`` directory (the data files cases point at), and the op-logs
    of ``oplogs/`` (their own schema; ``suites/writers/oplogs.py``).
    """
    root = root or vectors_root()
    return sorted(
        p for p in root.rglob("*.json")
        if not p.name.endswith((".sidecar.json", ".schema.json", ".metadata.json"))
        and not {"files", "expected", "oplogs"} & set(p.relative_to(root).parts[:-1])
    )


class VectorFileError(Exception):
    """A case file that does not parse or does not follow the case schema."""


@lru_cache(maxsize=None)
def load_file(path: Path) -> tuple[Case, ...]:
    root = vectors_root()
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise VectorFileError(f"{path}: not readable as JSON: {e}") from None
    errors = sorted(jsonschema.Draft202012Validator(case_schema()).iter_errors(doc), key=str)
    if errors:
        first = errors[0]
        loc = "/".join(str(p) for p in first.absolute_path)
        raise VectorFileError(f"{path}: at /{loc}: {first.message} (vectors/case.schema.json)")
    rel = path.relative_to(root).with_suffix("").as_posix()
    cases = []
    for i, t in enumerate(doc["tests"]):
        known = {"description", "input", "expected", "error", "format_versions", "spec",
                 "derived", "erratum", "level"}
        cases.append(Case(
            file=path, rel=rel, index=i, operation=doc["operation"],
            description=t["description"], input=t.get("input", {}),
            expected=t.get("expected"), error=t.get("error"),
            format_versions=tuple(t.get("format_versions", doc["format_versions"])),
            spec=tuple(t.get("spec", doc["spec"])), derived=t["derived"],
            erratum=t.get("erratum"), extra={k: v for k, v in t.items() if k not in known},
            level=t.get("level", doc.get("level", MUST)),
        ))
    return tuple(cases)


def cases_for(operation: str, root: Path | None = None) -> list[Case]:
    """Every case of ``operation`` across all case files."""
    out: list[Case] = []
    for path in case_files(root):
        with open(path, encoding="utf-8") as f:
            try:
                op = json.load(f).get("operation")
            except json.JSONDecodeError:
                op = None
        if op == operation:
            out.extend(load_file(path))
    return out
