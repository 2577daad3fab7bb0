"""The rule catalogue: every rule id the kit reports, with its normative level and spec sentence.

The catalogue is data (``rules.json`` beside this module): for each rule its ``id``, ``area``
(metadata, manifest-list, manifest, data-file, delete-file, puffin, values, kit), ``level``
(the normative level of the quoted sentence: MUST, MUST NOT, REQUIRED, SHALL, SHOULD, SHOULD
NOT, MAY, INFORMATIVE, or KIT / KIT-LIMIT for the kit's own limits), ``section``, ``quote``
(verbatim from the pinned spec revision, or null with a ``kit_note``) and ``summary``.

A finding's severity follows from its rule's level (:data:`LEVELS`): MUST-level -> error,
SHOULD-level -> warning, MAY and informative -> info. Where real writers depart from a
sentence in a way readers tolerate, the catalogue may say so (``writer_divergence``) and give
the severity it reports instead (``severity``), with the reason; :func:`severity_of` applies it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]

LEVELS: dict[str, Severity] = {
    "MUST": "error", "MUST NOT": "error", "REQUIRED": "error", "SHALL": "error", "SHALL NOT": "error",
    "SHOULD": "warning", "SHOULD NOT": "warning", "MAY": "info", "INFORMATIVE": "info",
    "KIT-LIMIT": "error", "KIT": "info",
}


@dataclass(frozen=True)
class Rule:
    """One catalogued rule."""

    id: str
    area: str
    level: str
    section: str
    quote: str | None
    summary: str
    severity: Severity
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "area": self.area, "level": self.level, "severity": self.severity,
                "section": self.section, "quote": self.quote, "summary": self.summary, "note": self.note}


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Rule]:
    """Every rule, by id (read once from ``rules.json``; empty when the file is absent, which
    the kit's self-tests refuse)."""
    try:
        text = resources.files(__package__).joinpath("rules.json").read_text(encoding="utf-8")
    except OSError:
        return {}
    doc = json.loads(text)
    out: dict[str, Rule] = {}
    for r in doc["rules"]:
        level = str(r["level"])
        severity: Severity = r.get("severity") or LEVELS[level]
        note = r.get("kit_note") or r.get("writer_divergence") or r.get("level_note")
        out[r["id"]] = Rule(r["id"], r["area"], level, r.get("section") or "", r.get("quote"),
                            r.get("summary") or "", severity, note)
    return out


def spec_revision() -> dict[str, str]:
    """The spec revision the catalogue's quotes are taken from."""
    try:
        text = resources.files(__package__).joinpath("rules.json").read_text(encoding="utf-8")
    except OSError:
        return {}
    revision: dict[str, str] = json.loads(text).get("spec_revision") or {}
    return revision


def severity_of(rule: str, default: Severity) -> Severity:
    """The severity of ``rule``: from its level in the catalogue, else ``default``."""
    try:
        found = catalogue().get(rule)
    except (OSError, ValueError, KeyError):
        return default
    return found.severity if found is not None else default
