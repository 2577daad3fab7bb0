"""Judging an engine's read of a snapshot under a row filter.

An engine is given each row filter in its own query form (:mod:`.query`) and judged with its
own semantics: the rows it reads from the table under the condition must be the rows of its
own unfiltered read of the same snapshot where the engine's own evaluation of the condition, in
memory, keeps them. A difference is the filter changing what the engine reads from the table:
a file or partition pruned wrongly (rows missing), a condition not applied, a delete applied
only under the filter. What the engine reads *without* a filter is judged once, in the table
cell of the matrix, against the rows the generator wrote; it is the base here.

* Engines whose filter is an Iceberg expression (the reference, PyIceberg, Iceberg Java's
  generic reader) are judged with the spec's semantics: the base is filtered by the reference's
  evaluator (:func:`suites.golden.filters.expected_rows`).
* An engine without a filter API (icebird) is judged as a full read: its unfiltered rows, kept
  by the reference's evaluator, against the generator's rows kept the same way.
* For SQL and dataframe engines the translation itself is checked: where the engine's in-memory
  evaluation and the spec's evaluation of the same rows disagree, the row must hold a null, a
  NaN or a signed zero in a column the filter tests (where SQL's three-valued logic, an
  engine's NaN ordering and IEEE's -0.0 = 0.0 differ from the spec). Any other disagreement is
  a wrong translation, or an engine evaluating its own condition wrongly: reported, never
  absorbed.

A remainder filter (:data:`suites.golden.filters.MODULO`) is no Iceberg expression: the engines
whose filter is one have no form of it and an engine without a filter API cannot express it,
so both are ``unsupported`` there, never judged as a full read.

Case outcomes: ``judged`` (with the problem, if any), ``unsupported`` (no translation, or the
engine cannot evaluate the condition even over rows in memory), ``not-judged`` (the engine
cannot read the snapshot without a filter: the table cell reports that).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from iceberg_conformance.suites.engines.query import Untranslatable, column
from iceberg_conformance.suites.engines.registry import CaseRead, Engine, SnapshotRead
from iceberg_conformance.suites.engines.rows import canonical_rows, diff_rows
from iceberg_conformance.suites.golden.filters import expected_rows, is_modulo

JUDGED, UNSUPPORTED, NOT_JUDGED = "judged", "unsupported", "not-judged"


@dataclass
class CaseVerdict:
    outcome: str
    #: the problem of a judged case that is wrong: {"snapshot", "rows": [...]} or {"snapshot", "error"}
    problem: dict[str, Any] | None = None
    reason: str = ""
    #: rows the engine should have read, and of how many
    expected: int = 0
    of: int = 0


def _rows(engine: Engine, schema: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return rows if engine.json_rows else canonical_rows(schema, rows)


def _key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def _tested_columns(schema: dict[str, Any], expr: Any) -> list[list[str]]:
    """The column paths (names) a predicate tests."""
    out: list[list[str]] = []

    def visit(e: Any) -> None:
        if not isinstance(e, dict):
            return
        if e.get("type") in ("and", "or"):
            visit(e.get("left"))
            visit(e.get("right"))
        elif e.get("type") == "not":
            visit(e.get("child"))
        elif e.get("type") not in ("true", "false"):
            try:
                out.append(column(schema, e)[0])
            except Untranslatable:
                pass
    visit(expr)
    return out


def _value_at(schema: dict[str, Any], row: dict[str, Any], path: list[str]) -> Any:
    """The canonical value at a column path of a canonical row (structs are keyed by field id)."""
    value: Any = row.get(path[0])
    fields: list[dict[str, Any]] = next((f["type"].get("fields", []) for f in schema["fields"]
                   if f["name"] == path[0] and isinstance(f["type"], dict)), [])
    for name in path[1:]:
        if not isinstance(value, dict):
            return None
        f = next((x for x in fields if x["name"] == name), None)
        if f is None:
            return None
        value = value.get(str(f["id"]))
        fields = f["type"].get("fields", []) if isinstance(f["type"], dict) else []
    return value


def _special(v: Any) -> bool:
    """A null, a NaN or a signed zero: where the spec's semantics and an engine's may differ."""
    return v is None or v == "NaN" or (isinstance(v, float) and (v == 0.0 or math.isnan(v)))


def semantic(schema: dict[str, Any], expr: Any, row: dict[str, Any]) -> bool:
    """Whether engines may keep or drop ``row`` differently under ``expr`` by their semantics
    alone: it holds a null, a NaN or a signed zero in a column the filter tests."""
    return any(_special(_value_at(schema, row, p)) for p in _tested_columns(schema, expr))


def semantics_gap(schema: dict[str, Any], expr: Any, memory: list[dict[str, Any]],
                  spec: list[dict[str, Any]]) -> list[str]:
    """Rows the engine's in-memory evaluation and the spec's evaluation disagree on that hold no
    null, NaN or signed zero in a tested column (each as a line; [] when none)."""
    a, b = {_key(r): r for r in memory}, {_key(r): r for r in spec}
    lines = []
    for k in sorted(set(a) ^ set(b)):
        if not semantic(schema, expr, a.get(k) or b[k]):
            side = "kept by the engine only" if k in a else "kept by the spec only"
            lines.append(f"  {side}: {k}")
    return lines


def judge_case(engine: Engine, schema: dict[str, Any], truth: list[dict[str, Any]], expr: Any,
               read: SnapshotRead, case: CaseRead, label: str) -> CaseVerdict:
    """The verdict of one (snapshot, filter) case of ``engine``; ``truth`` is the generator's rows
    of the snapshot (JSON single-value form), ``label`` names the snapshot in a problem."""
    if case.kit_error is not None:
        return CaseVerdict(JUDGED, {"snapshot": label, "error": f"the kit's {engine.filters} translation of the filter "
                                    f"failed (a bug of the kit): {case.kit_error}"})
    if case.untranslatable is not None:
        return CaseVerdict(UNSUPPORTED, reason=f"no {engine.filters} form: {case.untranslatable}")
    if engine.filters == "none" and is_modulo(expr):
        return CaseVerdict(UNSUPPORTED, reason=f"{engine.name} has no filter API: the remainder filter is not "
                                               "expressible (its full read is the table cell's)")
    if read.base is None:
        return CaseVerdict(NOT_JUDGED, reason=f"{engine.name} cannot read the snapshot without a filter "
                                               f"({read.base_error}); the table cell reports it")
    try:
        base = _rows(engine, schema, read.base)
    except Exception as e:
        return CaseVerdict(NOT_JUDGED, reason=f"{engine.name}'s unfiltered rows have values of unexpected "
                                               f"types ({type(e).__name__}: {e}); the table cell reports it")
    if engine.filters == "none":
        expected = expected_rows(schema, truth, expr) or []
        actual = expected_rows(schema, base, expr) or []
        return _compare(expected, actual, len(truth), label)
    if engine.filters == "iceberg":
        try:
            expected = expected_rows(schema, base, expr) or []
        except Exception as e:   # a value the spec's evaluator cannot take: what the table cell reports
            return CaseVerdict(NOT_JUDGED, reason=f"{engine.name}'s unfiltered rows hold a value the spec's evaluator "
                                                   f"cannot take ({type(e).__name__}: {e}); the table cell reports it")
    else:
        if case.memory is None:
            return CaseVerdict(UNSUPPORTED, reason=f"{engine.name} cannot evaluate the condition {case.condition} "
                                                    f"even over its own rows in memory: {case.memory_error}")
        expected = _rows(engine, schema, case.memory)
        gap = semantics_gap(schema, expr, expected, expected_rows(schema, base, expr) or [])
        if gap:
            return CaseVerdict(JUDGED, {"snapshot": label, "rows": [
                f"the condition {case.condition} and the spec's predicate disagree on rows without a null, "
                "NaN or signed zero in a tested column: a wrong translation, or the engine evaluating "
                "its own condition wrongly", *gap]}, expected=len(expected), of=len(base))
    if case.pushed is None:
        return CaseVerdict(JUDGED, {"snapshot": label, "error": case.pushed_error or "no rows"},
                           expected=len(expected), of=len(base))
    try:
        actual = _rows(engine, schema, case.pushed)
    except Exception as e:
        return CaseVerdict(JUDGED, {"snapshot": label, "error": f"values of unexpected types: {type(e).__name__}: {e}"},
                           expected=len(expected), of=len(base))
    return _compare(expected, actual, len(base), label)


def _compare(expected: list[dict[str, Any]], actual: list[dict[str, Any]], of: int, label: str) -> CaseVerdict:
    d = diff_rows(expected, actual)
    problem = {"snapshot": label, "rows": [x.strip() for x in d]} if d else None
    return CaseVerdict(JUDGED, problem, expected=len(expected), of=of)
