"""Which of a registry's names a lane selects through an environment variable."""

from __future__ import annotations

import os
from collections.abc import Iterable

import pytest


def selected(var: str, known: Iterable[str], what: str, default: str = "all") -> list[str]:
    """The names ``$var`` selects (``all``, or names separated by ``,``; unset: ``default``);
    an unknown name is a usage error."""
    names_known = list(known)
    given = os.environ.get(var, default).strip()
    if given in ("", "all"):
        return names_known
    names = [n.strip() for n in given.split(",") if n.strip()]
    unknown = [n for n in names if n not in names_known]
    if unknown:
        raise pytest.UsageError(f"${var}: unknown {what}(s) {unknown}; known: {names_known}")
    return names
