"""The current spec's text, for self-tests that check quotes are verbatim.

``ICEBERG_CONFORMANCE_SPEC`` names a copy of apache/iceberg ``format/spec.md`` (with
``puffin-spec.md`` and ``expressions-spec.md`` beside it, and the REST catalog OpenAPI where a
checkout has it, ``../open-api/rest-catalog-open-api.yaml``); without it, tests that need the
text are skipped. Quotes are
compared after :func:`normalize`: Markdown links become their text, emphasis and code marks
go, table cells are separated by `` | ``, typographic apostrophes become straight ones and
white space is collapsed, so a quote may be a sentence or a table row as it reads.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

SPEC_ENV = "ICEBERG_CONFORMANCE_SPEC"


def normalize(text: str) -> str:
    """Spec Markdown as plain text: links to their text, no emphasis or code marks, table cell
    bars spaced, typographic apostrophes straight, white space collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = text.replace("<br />", " ").replace("&nbsp;", " ")
    for mark in ("**", "~~", "`"):
        text = text.replace(mark, "")
    text = text.replace("\u2019", "'").replace("|", " | ")
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _load(spec: str) -> str:
    path = Path(spec)
    text = normalize(path.read_text(encoding="utf-8"))
    for beside in (path.with_name("puffin-spec.md"), path.with_name("expressions-spec.md"),
                   path.parent.parent / "open-api" / "rest-catalog-open-api.yaml"):
        if beside.exists():
            text += " " + normalize(beside.read_text(encoding="utf-8"))
    return text


def spec_text() -> str:
    """The normalized text of the current spec (and Puffin spec); skips the test without it."""
    spec = os.environ.get(SPEC_ENV)
    if not spec:
        pytest.skip(f"set {SPEC_ENV} to a copy of apache/iceberg format/spec.md (puffin-spec.md beside it) "
                    "to check that quotes are verbatim")
    return _load(spec)
