"""Row filters over the golden tables (``filters.json`` and ``trap-filters.json`` beside this module).

For every golden table, a list of filters in the JSON form of ``format/expressions-spec.md``:
``{"id", "description", "trap", "filter"}``; ``trap`` says which pruning bug the filter is built
to expose. ``filters.json`` is written by hand; ``trap-filters.json`` is the grid over the trap
tables (:mod:`suites.golden.trap_tables`), written by ``python -m tools.golden.trap_filters``.
The scan suites read every (table, snapshot, filter) with every reader; the bug corpus names a
reader bug's trap as ``<table> > <filter id>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import parse_schema

FILTERS_FILE = Path(__file__).resolve().parent / "filters.json"
TRAP_FILTERS_FILE = FILTERS_FILE.with_name("trap-filters.json")


def load(*paths: Path) -> dict[str, list[dict[str, Any]]]:
    """Table name -> its filters, from ``paths`` in order (by default the hand-written
    ``filters.json``, then the generated ``trap-filters.json``). A table listed by two files is
    an error: its filters would be split."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in paths or (FILTERS_FILE, TRAP_FILTERS_FILE):
        tables: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))["tables"]
        twice = sorted(set(tables) & set(out))
        if twice:
            raise ValueError(f"{path}: tables also listed by another filter file: {', '.join(twice)}")
        out.update(tables)
    return out


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
