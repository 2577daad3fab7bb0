"""Predicates in the deprecated term form, for implementations that read only that form.

``format/expressions-spec.md`` (Appendix B) defines the current JSON form (``child``,
``left``/``right``, reference objects, ``apply``) and keeps the older term form as
``DEPRECATED_PREDICATE``. Iceberg Java 1.10 and PyIceberg 0.12 predate the current form: their
parsers read the term form only. Adapters test their binding and evaluation through
:func:`to_term_form`, which writes the same predicate in the term form; whether they read the
current form at all is judged by the ``expression-json`` cases, which are never translated.
A predicate the term form cannot express (two references compared, an id reference, a prefix
test with the constant first, a typed literal: the term form has no ``data-type``, and dropping
it would ask another question) is :class:`~suites.api.Unsupported`.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import Unsupported

_FLIPPED = {"lt": "gt", "gt": "lt", "lt-eq": "gt-eq", "gt-eq": "lt-eq", "eq": "eq", "not-eq": "not-eq"}


def _is_value_expr(v: Any) -> bool:
    return isinstance(v, dict) and v.get("type") in ("reference", "apply")


def _literal(v: Any) -> Any:
    if isinstance(v, dict) and v.get("type") == "literal":
        if "data-type" in v:
            raise Unsupported(f"the term form has no typed literals (data-type {v['data-type']!r})")
        return v.get("value")
    return v


def _literals(v: Any) -> Any:
    if isinstance(v, dict) and v.get("type") == "literals":
        raise Unsupported(f"the term form has no typed literals (data-type {v.get('data-type')!r})")
    if isinstance(v, list):
        return [_literal(x) for x in v]
    return v


def _term(v: Any) -> Any:
    if isinstance(v, dict) and v.get("type") == "reference":
        if "name" in v:
            return v["name"]
        if "term" in v:
            return v
        raise Unsupported("the term form has no id references")
    if isinstance(v, dict) and v.get("type") == "apply":
        fn, args = v.get("function"), v.get("arguments") or []
        if fn in ("bucket", "truncate") and len(args) == 2:
            return {"type": "transform", "transform": f"{fn}[{_literal(args[0])}]", "term": _term(args[1])}
        if isinstance(fn, str) and len(args) == 1:
            return {"type": "transform", "transform": fn, "term": _term(args[0])}
        raise Unsupported(f"the term form has no function application {fn!r} of {len(args)} arguments")
    if not isinstance(v, (str, dict)):
        raise Unsupported(f"the term form tests a field or a transform of one, not the constant {v!r}")
    return v


def to_term_form(e: Any) -> Any:
    """The predicate ``e`` (JSON, current or deprecated form) in the deprecated term form."""
    if not isinstance(e, dict):
        return e
    kind = e.get("type")
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("and", "or"):
        return {**e, "left": to_term_form(e.get("left")), "right": to_term_form(e.get("right"))}
    if kind == "not":
        return {**e, "child": to_term_form(e.get("child"))}
    if "term" in e:
        return e
    if "child" in e:
        out = {"type": kind, "term": _term(e["child"])}
        if "values" in e:
            out["values"] = _literals(e["values"])
        return out
    left, right = e.get("left"), e.get("right")
    if _is_value_expr(left) and not _is_value_expr(right):
        return {"type": kind, "term": _term(left), "value": _literal(right)}
    if _is_value_expr(right) and not _is_value_expr(left) and kind in _FLIPPED:
        return {"type": _FLIPPED[kind], "term": _term(right), "value": _literal(left)}
    raise Unsupported("the term form compares a term with a constant only")
