"""Projected reads of the golden tables (``projections.json`` beside this module).

For a golden table, a list of ``{"id", "columns", "trap"}``: the columns (top-level names, in the
order a query asks for them) that a consumer reads in the same session right after its full read
of a snapshot. The consumer matrix judges each against the snapshot's expected rows cut to those
columns; the bug corpus names a projection's trap as ``<table> > <projection id>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROJECTIONS_FILE = Path(__file__).resolve().parent / "projections.json"


def load(path: Path = PROJECTIONS_FILE) -> dict[str, list[dict[str, Any]]]:
    """Table name -> its projections."""
    tables: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))["tables"]
    return tables


def binds(schema: dict[str, Any], columns: list[str]) -> bool:
    """Whether ``schema`` holds every column of a projection (top-level names)."""
    names = {f["name"] for f in schema["fields"]}
    return all(c in names for c in columns)


def projected_schema(schema: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    """``schema`` cut to ``columns``, in their order."""
    by_name = {f["name"]: f for f in schema["fields"]}
    return {**schema, "fields": [by_name[c] for c in columns]}


def projected_rows(rows: list[dict[str, Any]], columns: list[str]) -> list[dict[str, Any]]:
    """Rows (JSON single-value form, keyed by top-level column name) cut to ``columns``."""
    return [{c: r.get(c) for c in columns} for r in rows]
