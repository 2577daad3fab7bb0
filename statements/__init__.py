"""The statement index: every normative statement of the specifications the kit checks.

``index.json`` (beside this module) lists each statement of the current Iceberg table spec and
Puffin spec, and of the parts of Parquet ``LogicalTypes.md`` and Arrow ``Schema.fbs`` the kit's
type mappings rely on: a stable id, the document and its pinned revision, the section, the
verbatim quote, the normative level, and ``checked_by`` (the checker rules, vector case files,
damage cases and golden tables that exercise it). It is generated from the pinned texts by
:mod:`iceberg_conformance.statements.generate`; the links are computed by
:mod:`iceberg_conformance.statements.trace` from ``links.json`` and the kit's own data.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

#: levels counted as MUST and as SHOULD in coverage figures
MUST_LEVELS = ("MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT")
SHOULD_LEVELS = ("SHOULD", "SHOULD NOT")
LEVELS = MUST_LEVELS + SHOULD_LEVELS + ("MAY",)
#: why a statement is not checked (``links.json`` ``unchecked``)
REASONS = ("untestable", "out-of-scope", "not-yet")


def _read(name: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


@lru_cache(maxsize=1)
def index() -> dict[str, Any]:
    """``index.json``: ``documents`` (name -> source and revision) and ``statements``."""
    return _read("index.json")


@lru_cache(maxsize=1)
def links() -> dict[str, Any]:
    """``links.json``: explicit links and the reasons of unchecked statements."""
    return _read("links.json")


@lru_cache(maxsize=1)
def curation() -> dict[str, Any]:
    """``curation.json``: hints, levels and exclusions the generator applies."""
    return _read("curation.json")


def plain(text: str) -> str:
    """Markdown as plain text for matching: links to their text, no emphasis or code marks,
    table bars spaced, typographic apostrophes straight, white space collapsed, lower case."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = text.replace("<br />", " ").replace("&nbsp;", " ")
    for mark in ("**", "~~", "`"):
        text = text.replace(mark, "")
    text = text.replace("\u2019", "'").replace("|", " | ")
    return " ".join(text.split()).lower()
