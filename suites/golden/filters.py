"""Row filters over the golden tables (``filters.json`` beside this module).

For every golden table, a list of filters in the JSON form of ``format/expressions-spec.md``:
``{"id", "description", "trap", "filter"}``; ``trap`` says which pruning bug the filter is built
to expose. The scan suites read every (table, snapshot, filter) with every reader; the bug
corpus names a reader bug's trap as ``<table> > <filter id>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema

FILTERS_FILE = Path(__file__).resolve().parent / "filters.json"


def load(path: Path = FILTERS_FILE) -> dict[str, list[dict[str, Any]]]:
    """Table name -> its filters."""
    data: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))["tables"]
    return data


def expected_rows(schema: dict[str, Any], rows: list[dict[str, Any]], row_filter: Any) -> list[dict[str, Any]] | None:
    """The rows (JSON single-value form, keyed by top-level column name) where ``row_filter``
    holds in the spec's semantics, or None when ``schema`` lacks a column of the filter (no
    case). The reference's evaluator decides, bound to ``schema``, on each row keyed by field id."""
    try:
        bound = ex.bind(parse_schema(schema), ex.parse_expression(row_filter))
    except SpecViolation as e:
        if e.rule == "expressions.bind-unknown-field":
            return None
        raise
    ids = {f["name"]: str(f["id"]) for f in schema["fields"]}
    return [r for r in rows if ex.evaluate(bound, {ids.get(k, k): v for k, v in r.items()})]
