"""Filter expressions as data: Iceberg's expression JSON, binding to a schema, row evaluation.

Sources: the REST catalog OpenAPI (apache/iceberg ``open-api/rest-catalog-open-api.yaml``,
``components/schemas/Expression`` and the schemas it names: ``TrueExpression``,
``FalseExpression``, ``AndOrExpression``, ``NotExpression``, ``UnaryExpression``,
``LiteralExpression``, ``SetExpression``, ``Term``, ``Reference``, ``TransformTerm``), the table
spec's "Scan Planning" (scan predicates) and "Appendix D: JSON single-value serialization"
(literal values, ``PrimitiveTypeValue`` in the OpenAPI).

The JSON form::

    true | false | {"type": "true"} | {"type": "false"}
    {"type": "and" | "or", "left": <expr>, "right": <expr>}
    {"type": "not", "child": <expr>}
    {"type": "is-null" | "not-null" | "is-nan" | "not-nan", "term": <term>}
    {"type": "lt" | "lt-eq" | "gt" | "gt-eq" | "eq" | "not-eq" | "starts-with" | "not-starts-with",
     "term": <term>, "value": <JSON single value>}
    {"type": "in" | "not-in", "term": <term>, "values": [<JSON single value>, ...]}
    <term> = "column.name" | {"type": "transform", "transform": "bucket[16]", "term": "column.name"}

:func:`parse_expression` reads it into a small typed model (unbound: literals kept as JSON);
:func:`expression_to_json` writes it back in the canonical form (``{"type": "true"}`` for the
constants, the OpenAPI's form). :func:`bind` resolves names against a schema, converts every
literal to the type of its term with the JSON single-value rules of :mod:`reference.values`
and checks that each predicate applies to that type. :func:`evaluate` evaluates a bound
expression against a row (a struct in JSON single-value form: an object keyed by field id)
in three-valued logic: ``True``, ``False`` or ``None`` (unknown). A predicate on a null value
is unknown, except ``is-null``/``not-null``; ``and``/``or``/``not`` are Kleene's; a NaN value
compares greater than every other value (the order of the spec's "Sorting": ``... < Infinity <
NaN``) and equal to none; a row filter
keeps a row only when the result is ``True`` (the OpenAPI's ``required-row-filter``: "A reader
MUST discard any row for which the filter evaluates to false or null").

Errors are :class:`~reference.errors.SpecViolation` located by the JSON pointer of the
offending part (``/left/term``; a missing member is pointed at where it belongs), with rule
ids ``expressions.*``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

from .errors import SpecViolation
from .schema import Schema, parse_schema
from .transforms import Transform, parse_transform
from .types import (
    JSON, BinaryType, DoubleType, FixedType, FloatType, IcebergType, PrimitiveType, StringType,
    StructType, UUIDType,
)
from .values import value_from_json, value_to_json

CLAUSE = "REST Catalog OpenAPI / components/schemas/Expression"
CLAUSE_BIND = "Scan Planning; Appendix D: JSON single-value serialization"

COMPARISONS = ("lt", "lt-eq", "gt", "gt-eq", "eq", "not-eq")
STRING_PREDICATES = ("starts-with", "not-starts-with")
LITERAL_OPS = COMPARISONS + STRING_PREDICATES
UNARY_OPS = ("is-null", "not-null", "is-nan", "not-nan")
SET_OPS = ("in", "not-in")
ALL_TYPES = ("true", "false", "and", "or", "not") + UNARY_OPS + LITERAL_OPS + SET_OPS


# --- the model --------------------------------------------------------------------------

@dataclass(frozen=True)
class Reference:
    """An unbound named reference (a dotted column name)."""

    name: str


@dataclass(frozen=True)
class BoundReference:
    """A reference bound to a schema field: its id, full name (the schema's spelling), type."""

    field_id: int
    name: str
    field_type: IcebergType
    id_path: tuple[int, ...]


@dataclass(frozen=True)
class TransformTerm:
    """A transform applied to a reference; ``ref`` is bound or not."""

    transform: Transform
    ref: Reference | BoundReference

    def result_type(self) -> IcebergType:
        assert isinstance(self.ref, BoundReference)
        return self.transform.result_type(self.ref.field_type)


Term = Union[Reference, BoundReference, TransformTerm]


@dataclass(frozen=True)
class Constant:
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True)
class Junction:
    """``and`` or ``or`` of two expressions."""

    op: str
    left: Expression
    right: Expression


@dataclass(frozen=True)
class Not:
    child: Expression


@dataclass(frozen=True)
class Predicate:
    """A predicate on a term. ``literals``: none for the unary predicates, one for the
    comparisons and starts-with, the set for in/not-in; JSON values while unbound, the
    reference's Python values (:mod:`reference.values`) once bound."""

    op: str
    term: Term
    literals: tuple[Any, ...] = ()


Expression = Union[Constant, Junction, Not, Predicate]
TRUE, FALSE = Constant(True), Constant(False)


def _err(rule: str, where: str, message: str, clause: str = CLAUSE) -> SpecViolation:
    """A violation located by the JSON pointer of the part of the expression (``""``: all of
    it), shown as ``expression/left/term``."""
    return SpecViolation(rule, message, clause=clause, where=f"expression{where}")


# --- JSON -> model ----------------------------------------------------------------------

def _member(obj: dict[str, Any], key: str, where: str) -> Any:
    """A required member; when it is missing the error points where it belongs."""
    if key not in obj:
        raise _err("expressions.json-form", f"{where}/{key}", f"a {obj['type']!r} expression needs {key!r}")
    return obj[key]


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, float, str))


def _literal(v: Any, where: str) -> Any:
    if v is None:
        raise _err("expressions.null-literal", where,
                   "a literal is never null (use is-null or not-null)")
    if not _is_scalar(v):
        raise _err("expressions.json-form", where,
                   f"a literal is a JSON single value (number, string or boolean), got {v!r}")
    return v


def parse_term(obj: JSON, where: str = "") -> Term:
    if isinstance(obj, str):
        if not obj:
            raise _err("expressions.json-form", where, "a reference is a non-empty column name")
        return Reference(obj)
    if isinstance(obj, dict) and obj.get("type") == "transform":
        text = obj.get("transform")
        if not isinstance(text, str):
            raise _err("expressions.json-form", f"{where}/transform",
                       f"a transform term needs a transform string, got {text!r}")
        try:
            transform = parse_transform(text)
        except SpecViolation as e:
            raise _err("expressions.unknown-transform", f"{where}/transform", e.detail) from None
        ref = parse_term(obj.get("term"), f"{where}/term")
        if not isinstance(ref, Reference):
            raise _err("expressions.json-form", f"{where}/term", "a transform's term is a reference")
        return TransformTerm(transform, ref)
    raise _err("expressions.json-form", where,
               f"a term is a column name or a transform object, got {obj!r}")


def parse_expression(obj: JSON, where: str = "") -> Expression:
    """An unbound expression from its JSON form; :class:`SpecViolation` at the JSON pointer of
    the first part that is not an expression."""
    if isinstance(obj, bool):
        return TRUE if obj else FALSE
    if not isinstance(obj, dict):
        raise _err("expressions.json-form", where, f"an expression is a JSON object or boolean, got {obj!r}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise _err("expressions.json-form", f"{where}/type", f"an expression needs a string 'type', got {kind!r}")
    if kind not in ALL_TYPES:
        raise _err("expressions.unknown-type", f"{where}/type", f"unknown expression type {kind!r}")
    if kind in ("true", "false"):
        return TRUE if kind == "true" else FALSE
    if kind in ("and", "or"):
        left = parse_expression(_member(obj, "left", where), f"{where}/left")
        return Junction(kind, left, parse_expression(_member(obj, "right", where), f"{where}/right"))
    if kind == "not":
        return Not(parse_expression(_member(obj, "child", where), f"{where}/child"))
    term = parse_term(_member(obj, "term", where), f"{where}/term")
    if kind in UNARY_OPS:
        return Predicate(kind, term)
    if kind in LITERAL_OPS:
        return Predicate(kind, term, (_literal(_member(obj, "value", where), f"{where}/value"),))
    values = _member(obj, "values", where)
    if not isinstance(values, list):
        raise _err("expressions.json-form", f"{where}/values", f"'values' is a JSON array, got {values!r}")
    return Predicate(kind, term, tuple(_literal(v, f"{where}/values/{i}") for i, v in enumerate(values)))


# --- model -> JSON ----------------------------------------------------------------------

def _term_type(term: Term) -> IcebergType | None:
    if isinstance(term, BoundReference):
        return term.field_type
    if isinstance(term, TransformTerm) and isinstance(term.ref, BoundReference):
        return term.result_type()
    return None


def term_to_json(term: Term) -> JSON:
    if isinstance(term, (Reference, BoundReference)):
        return term.name
    return {"type": "transform", "transform": str(term.transform), "term": term.ref.name}


def _value_json(t: IcebergType | None, v: Any) -> JSON:
    return v if t is None else value_to_json(t, v)


def expression_to_json(e: Expression) -> JSON:
    """The canonical JSON form: constants as ``{"type": "true"}``; bound literals in the JSON
    single-value form of their term's type; set values in their first-seen order."""
    if isinstance(e, Constant):
        return {"type": "true" if e.value else "false"}
    if isinstance(e, Junction):
        return {"type": e.op, "left": expression_to_json(e.left), "right": expression_to_json(e.right)}
    if isinstance(e, Not):
        return {"type": "not", "child": expression_to_json(e.child)}
    out = {"type": e.op, "term": term_to_json(e.term)}
    t = _term_type(e.term)
    if e.op in LITERAL_OPS:
        out["value"] = _value_json(t, e.literals[0])
    elif e.op in SET_OPS:
        out["values"] = [_value_json(t, v) for v in e.literals]
    return out


def roundtrip(obj: JSON) -> JSON:
    """Parse an expression and write it back (canonical form)."""
    return expression_to_json(parse_expression(obj))


# --- binding ----------------------------------------------------------------------------

def _fields_by_name(struct: StructType, prefix: str = "", ids: tuple[int, ...] = ()
                    ) -> list[tuple[str, int, IcebergType, tuple[int, ...]]]:
    """Every struct field reachable through structs only: (dotted name, id, type, id path)."""
    out = []
    for f in struct.fields:
        name, path = f"{prefix}{f.name}", (*ids, f.field_id)
        out.append((name, f.field_id, f.field_type, path))
        if isinstance(f.field_type, StructType):
            out.extend(_fields_by_name(f.field_type, f"{name}.", path))
    return out


def _resolve(schema: Schema, ref: Reference, case_sensitive: bool, where: str) -> BoundReference:
    fields = _fields_by_name(schema.struct)
    if case_sensitive:
        found = [f for f in fields if f[0] == ref.name]
    else:
        found = [f for f in fields if f[0].lower() == ref.name.lower()]
    if not found:
        how = "" if case_sensitive else " (case-insensitive)"
        raise _err("expressions.bind-unknown-field", where,
                   f"no field named {ref.name!r} in the schema{how}", CLAUSE_BIND)
    if len(found) > 1:
        raise _err("expressions.bind-ambiguous-field", where,
                   f"{ref.name!r} names {len(found)} fields case-insensitively: "
                   + ", ".join(repr(f[0]) for f in found), CLAUSE_BIND)
    name, fid, ftype, path = found[0]
    return BoundReference(fid, name, ftype, path)


def _bind_term(schema: Schema, term: Term, case_sensitive: bool, where: str) -> Term:
    if isinstance(term, Reference):
        return _resolve(schema, term, case_sensitive, where)
    if isinstance(term, TransformTerm):
        assert isinstance(term.ref, Reference)
        ref = _resolve(schema, term.ref, case_sensitive, f"{where}/term")
        try:
            term.transform.result_type(ref.field_type)
        except SpecViolation as e:
            raise _err("expressions.bind-transform", f"{where}/transform", e.detail, CLAUSE_BIND) from None
        return TransformTerm(term.transform, ref)
    return term


def _convert(t: IcebergType, v: Any, where: str) -> Any:
    try:
        value = value_from_json(t, v)
    except SpecViolation as e:
        raise _err("expressions.bind-literal", where, e.detail, CLAUSE_BIND) from None
    if isinstance(value, float) and math.isnan(value):
        raise _err("expressions.nan-literal", where,
                   "NaN is no literal of a comparison or set (use is-nan or not-nan)", CLAUSE_BIND)
    return value


def bind(schema: Schema, e: Expression, case_sensitive: bool = True, where: str = "") -> Expression:
    """Bind an unbound expression to ``schema``: names resolved, literals converted to their
    term's type, each predicate checked against that type."""
    if isinstance(e, Constant):
        return e
    if isinstance(e, Junction):
        left = bind(schema, e.left, case_sensitive, f"{where}/left")
        return Junction(e.op, left, bind(schema, e.right, case_sensitive, f"{where}/right"))
    if isinstance(e, Not):
        return Not(bind(schema, e.child, case_sensitive, f"{where}/child"))
    term = _bind_term(schema, e.term, case_sensitive, f"{where}/term")
    t = _term_type(term)
    assert t is not None
    if e.op in ("is-nan", "not-nan") and not isinstance(t, (FloatType, DoubleType)):
        raise _err("expressions.bind-nan-non-float", f"{where}/term",
                   f"{e.op} applies to float and double, not {t}", CLAUSE_BIND)
    if e.op in UNARY_OPS:
        return Predicate(e.op, term)
    if not isinstance(t, PrimitiveType):
        raise _err("expressions.bind-non-primitive", f"{where}/term",
                   f"{term_to_json(term)!r} is a {t}: only is-null and not-null apply to it", CLAUSE_BIND)
    if e.op in STRING_PREDICATES and not isinstance(t, StringType):
        raise _err("expressions.bind-starts-with-non-string", f"{where}/term",
                   f"{e.op} applies to string, not {t}", CLAUSE_BIND)
    if e.op in LITERAL_OPS:
        return Predicate(e.op, term, (_convert(t, e.literals[0], f"{where}/value"),))
    values: list[Any] = []
    for i, v in enumerate(e.literals):
        converted = _convert(t, v, f"{where}/values/{i}")
        if converted not in values:
            values.append(converted)
    return Predicate(e.op, term, tuple(values))


def bind_json(schema_json: JSON, expr_json: JSON, case_sensitive: bool = True) -> JSON:
    """Parse, bind and write back: the bound expression's JSON form."""
    return expression_to_json(bind(parse_schema(schema_json), parse_expression(expr_json), case_sensitive))


# --- evaluation -------------------------------------------------------------------------

Truth = Union[bool, None]


def _row_value(row: JSON, ref: BoundReference) -> Any:
    node: Any = row
    for fid in ref.id_path:
        if not isinstance(node, dict):
            return None
        node = node.get(str(fid))
        if node is None:
            return None
    return value_from_json(ref.field_type, node)


def _term_value(row: JSON, term: Term) -> Any:
    if isinstance(term, BoundReference):
        return _row_value(row, term)
    assert isinstance(term, TransformTerm) and isinstance(term.ref, BoundReference)
    return term.transform.apply(term.ref.field_type, _row_value(row, term.ref))


def _key(t: IcebergType | None, v: Any) -> Any:
    """A sort key in the type's order: binary and fixed as unsigned bytes, uuid as its 16
    bytes, everything else in Python's order of the reference's value."""
    if isinstance(t, UUIDType):
        return v.bytes
    if isinstance(t, (BinaryType, FixedType)):
        return bytes(v)
    return v


def _compare(op: str, t: IcebergType | None, a: Any, b: Any) -> bool:
    if op in ("starts-with", "not-starts-with"):
        hit = isinstance(a, str) and a.startswith(b)
        return hit if op == "starts-with" else not hit
    x, y = _key(t, a), _key(t, b)
    if isinstance(x, float) and math.isnan(x):
        # the spec's float order ("Sorting"): NaN after every other value; literals are never NaN
        x, y = 1, 0
    results: dict[str, bool] = {"lt": x < y, "lt-eq": x <= y, "gt": x > y, "gt-eq": x >= y,
                                "eq": x == y, "not-eq": x != y}
    return results[op]


def evaluate(e: Expression, row: JSON) -> Truth:
    """Three-valued result of a bound expression on ``row`` (JSON struct keyed by field id)."""
    if isinstance(e, Constant):
        return e.value
    if isinstance(e, Junction):
        left, right = evaluate(e.left, row), evaluate(e.right, row)
        decisive = e.op == "or"          # true decides an or, false an and
        if left is decisive or right is decisive:
            return decisive
        return None if left is None or right is None else not decisive
    if isinstance(e, Not):
        inner = evaluate(e.child, row)
        return None if inner is None else not inner
    v = _term_value(row, e.term)
    if e.op == "is-null":
        return v is None
    if e.op == "not-null":
        return v is not None
    if v is None:
        return None
    if e.op in ("is-nan", "not-nan"):
        nan = isinstance(v, float) and math.isnan(v)
        return nan if e.op == "is-nan" else not nan
    t = _term_type(e.term)
    if e.op in LITERAL_OPS:
        return _compare(e.op, t, v, e.literals[0])
    hit = any(_compare("eq", t, v, w) for w in e.literals)
    return hit if e.op == "in" else not hit


def evaluate_json(schema_json: JSON, expr_json: JSON, row: JSON, case_sensitive: bool = True) -> Truth:
    """Bind ``expr_json`` to the schema and evaluate it on ``row``."""
    bound = bind(parse_schema(schema_json), parse_expression(expr_json), case_sensitive)
    return evaluate(bound, row)
