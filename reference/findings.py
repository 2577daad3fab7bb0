"""Findings: what a validator reports about a file, named by rule, clause, file and location.

Validators of whole artifacts (table metadata, manifests, Puffin files, tables) collect every
violation instead of stopping at the first; each is a :class:`Finding`. Single-value parsers
raise :class:`~reference.errors.SpecViolation` instead, with the same rule ids.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from .errors import SpecViolation

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    """One violation: ``rule`` is a stable id (``metadata.current-schema-exists``), ``clause``
    the spec section, ``file`` the artifact, ``location`` a JSON path, record index or byte
    offset inside it. The severity follows the rule's normative level in the catalogue
    (:mod:`reference.rules`: MUST -> error, SHOULD -> warning, MAY/informative -> info); the
    ``severity`` given is used only for a rule the catalogue does not list."""

    rule: str
    message: str
    clause: str
    file: str = ""
    location: str = ""
    severity: Severity = "error"

    def __post_init__(self) -> None:
        from .rules import severity_of

        object.__setattr__(self, "severity", severity_of(self.rule, self.severity))

    def __str__(self) -> str:
        where = ":".join(p for p in (self.file, self.location) if p)
        return f"{where + ': ' if where else ''}{self.severity}: [{self.rule}] {self.message} (spec: {self.clause})"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_violation(cls, e: SpecViolation, file: str = "", location: str = "") -> "Finding":
        return cls(e.rule, e.detail, e.clause, file, location or e.where)
