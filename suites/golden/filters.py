"""Row filters over the golden tables (``filters.json`` and ``trap-filters.json`` beside this module).

For every golden table, a list of filters in the JSON form of ``format/expressions-spec.md``:
``{"id", "description", "trap", "filter"}``; ``trap`` says which pruning bug the filter is built
to expose. ``filters.json`` is written by hand; ``trap-filters.json`` is the grid over the trap
tables (:mod:`suites.golden.trap_tables`), written by ``python -m tools.golden.trap_filters``.
The scan suites read every (table, snapshot, filter) with every reader; the bug corpus names a
reader bug's trap as ``<table> > <filter id>``.

Beside the Iceberg expressions, one small family of the kit's own (:data:`MODULO`): a comparison
of a column's remainder with a literal, ``{"type": "kit-modulo", "left": <reference>, "modulus":
k, "op": <lt | lt-eq | gt | gt-eq | eq | not-eq>, "right": c}``, holding where ``col % k op c``.
An expression of a column is what a query engine may wrongly prune by the column's bounds
(``[f(min), f(max)]`` is no range of a non-monotone ``f``). The Iceberg expressions have no
arithmetic: the engines whose filter is an Iceberg expression (the reference, PyIceberg, Iceberg
Java) cannot express it, and the scan suites leave it out. Its semantics are the kit's, fixed
here: an int or long column, a positive modulus, the remainder truncated toward zero (the sign of
the dividend, as SQL engines and Java compute it); a null never satisfies it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

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


#: the type of the kit's remainder filters (not an Iceberg expression)
MODULO = "kit-modulo"
#: the comparisons of a remainder filter (and of the engines' dataframe translations: query.py)
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "lt": lambda a, b: a < b, "lt-eq": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "gt-eq": lambda a, b: a >= b, "eq": lambda a, b: a == b, "not-eq": lambda a, b: a != b}


def is_modulo(row_filter: Any) -> bool:
    """Whether ``row_filter`` is a filter of the :data:`MODULO` family (it is never combined with
    and/or/not: a filter is either an Iceberg expression or one of these)."""
    return isinstance(row_filter, dict) and row_filter.get("type") == MODULO


def modulo_parts(row_filter: dict[str, Any]) -> tuple[str, int, str, int]:
    """Column name, modulus, comparison and literal of a :data:`MODULO` filter (validated)."""
    ref, k, op, c = row_filter.get("left"), row_filter.get("modulus"), row_filter.get("op"), row_filter.get("right")
    if not (isinstance(ref, dict) and ref.get("type") == "reference" and isinstance(ref.get("name"), str)):
        raise ValueError(f"{MODULO}: left must be a column reference, not {ref!r}")
    if not (type(k) is int and k > 0) or op not in COMPARE or type(c) is not int:
        raise ValueError(f"{MODULO}: modulus {k!r} (a positive int), op {op!r}, right {c!r} (an int)")
    return ref["name"], k, str(op), c


def remainder(value: int, modulus: int) -> int:
    """``value % modulus`` truncated toward zero (the sign of ``value``)."""
    r = abs(value) % modulus
    return -r if value < 0 else r


def _modulo_rows(schema: dict[str, Any], rows: list[dict[str, Any]],
                 row_filter: dict[str, Any]) -> list[dict[str, Any]] | None:
    name, k, op, c = modulo_parts(row_filter)
    field = next((f for f in schema["fields"] if f["name"] == name), None)
    if field is None:
        return None
    if field["type"] not in ("int", "long"):
        raise ValueError(f"{MODULO}: column {name} is {field['type']}, not int or long")
    test = COMPARE[op]
    return [r for r in rows if r.get(name) is not None and test(remainder(int(r[name]), k), c)]


def expected_rows(schema: dict[str, Any], rows: list[dict[str, Any]], row_filter: Any) -> list[dict[str, Any]] | None:
    """The rows (JSON single-value form, keyed by top-level column name) where ``row_filter``
    holds in the spec's semantics, or None when ``schema`` lacks a column of the filter (no
    case). The reference's evaluator decides, bound to ``schema``, on each row keyed by field id;
    a :data:`MODULO` filter is evaluated here, with its semantics above."""
    if is_modulo(row_filter):
        return _modulo_rows(schema, rows, row_filter)
    try:
        bound = ex.bind(parse_schema(schema), ex.parse_expression(row_filter))
    except SpecViolation as e:
        if e.rule == "expressions.bind-unknown-field":
            return None
        raise
    ids = {f["name"]: str(f["id"]) for f in schema["fields"]}
    return [r for r in rows if ex.evaluate(bound, {ids.get(k, k): v for k, v in r.items()})]
