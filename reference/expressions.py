"""Iceberg expressions as data: JSON form, binding to a schema, evaluation on a row.

Spec: apache/iceberg ``format/expressions-spec.md`` ("Iceberg Expressions": "Value
expressions", "Predicates", "Appendix A: Iceberg functions", "Appendix B: JSON serialization"
with its "Backward compatibility" grammar), as the REST catalog OpenAPI carries it
(``components/schemas/Predicate``); literal values in the table spec's "Appendix D: JSON
single-value serialization".

The JSON grammar (Appendix B)::

    PREDICATE: true | false
        | {"type": "not", "child": PREDICATE}
        | {"type": "and" | "or", "left": PREDICATE, "right": PREDICATE}
        | {"type": UNARY_OP, "child": EXPR}
        | {"type": CMP_OP, "left": EXPR, "right": EXPR}
        | {"type": "in" | "not-in", "child": EXPR, "values": LITERALS}
        | DEPRECATED_PREDICATE   (term / value / values, string or transform terms)
    EXPR: LITERAL | {"type": "reference", "name": NAME} | {"type": "reference", "id": ID}
        | {"type": "apply", "function": FUNC_REF, "arguments": [...]}

:func:`parse_expression` reads every form, the deprecated ones included, and the OpenAPI's
deprecated constant objects ``{"type": "true"}``; :func:`expression_to_json` writes the
current form: constants as JSON booleans, references as objects, a deprecated transform term
as the ``apply`` of its function (Appendix A: ``bucket[16]`` is ``bucket(16, x)``; a transform
with no function, ``void`` or an unknown one, keeps the deprecated term form).

:func:`bind` resolves named references against a schema (case-sensitive or not), id
references by field id, functions by name, converts each literal to the type of what it is
compared with (JSON single-value form of that type) and checks each predicate against its
types. The bound form is written with id references. :func:`evaluate` evaluates a bound
predicate on a row (a struct in JSON single-value form: an object keyed by field id) in the
spec's two-valued logic: comparisons are null-safe (``null = null`` is true, ``34 < null``
false), NaN compares equal only to NaN and is neither less nor greater than anything.

Errors are :class:`~reference.errors.SpecViolation` located by the JSON pointer of the
offending part of the expression, shown as ``expression/left/term`` (a missing member is
pointed at where it belongs), with rule ids ``expressions.*``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation
from typing import Any, Union

from .errors import SpecViolation
from .schema import Schema, json_depth, parse_schema, walk
from .transforms import DayTransform, Transform, parse_transform
from .types import (
    JSON, BinaryType, DateType, DecimalType, DoubleType, FixedType, FloatType, IcebergType,
    IntegerType, LongType, PrimitiveType, StringType, StructType, UUIDType, parse_type, type_to_json,
)
from .values import value_from_json, value_to_json

CLAUSE = "Iceberg Expressions / Appendix B: JSON serialization"
CLAUSE_BIND = "Iceberg Expressions / Predicates; Appendix D: JSON single-value serialization"

CMP_OPS = ("lt", "lt-eq", "gt", "gt-eq", "eq", "not-eq")
STRING_OPS = ("starts-with", "not-starts-with")
UNARY_OPS = ("is-null", "not-null", "is-nan", "not-nan")
SET_OPS = ("in", "not-in")
ALL_TYPES = ("true", "false", "and", "or", "not") + UNARY_OPS + CMP_OPS + STRING_OPS + SET_OPS
#: Appendix A: the functions of the reserved catalog ``iceberg_functions`` this module applies
FUNCTIONS = ("identity", "year", "month", "day", "hour", "bucket", "truncate")
ICEBERG_FUNCTIONS = "iceberg_functions"
#: Deepest JSON nesting of a predicate read here (kit limit ``expressions.json-too-deep``): the
#: reader, binder, evaluator and writer recurse once per level, so deeper input is refused
#: before it could exhaust the interpreter stack.
MAX_DEPTH = 256


class Undecided(NotImplementedError):
    """What the grammar allows but the reference does not implement (an ``apply`` argument
    that is a predicate, a projection it does not decide): no verdict, UNSUPPORTED."""


# --- the model --------------------------------------------------------------------------

@dataclass(frozen=True)
class Literal:
    """A constant. ``value`` is JSON until bound, then the reference's Python value of
    ``data_type``; ``data_type`` is ``None`` for an untyped literal not yet bound."""

    value: Any
    data_type: IcebergType | None = None
    typed_json: bool = False   # written as {"type": "literal", ..., "data-type"}


@dataclass(frozen=True)
class NamedReference:
    name: str


@dataclass(frozen=True)
class IdReference:
    field_id: int


@dataclass(frozen=True)
class BoundReference:
    """A reference bound to a schema field: id, full name, type and the ids leading to it."""

    field_id: int
    name: str
    field_type: IcebergType
    id_path: tuple[int, ...]


@dataclass(frozen=True)
class Apply:
    """A function applied to arguments; ``transform`` is set once bound (or for a deprecated
    transform term with no function: ``function`` is then ``None``)."""

    function: str | None
    arguments: tuple[Any, ...]
    transform: Transform | None = None
    result: IcebergType | None = None


Value = Union[Literal, NamedReference, IdReference, BoundReference, Apply]


@dataclass(frozen=True)
class Constant:
    value: bool


@dataclass(frozen=True)
class Junction:
    """``and`` or ``or``."""

    op: str
    left: Expression
    right: Expression


@dataclass(frozen=True)
class Not:
    child: Expression


@dataclass(frozen=True)
class Test:
    """A unary test (is-null, ...) of ``child``. ``deprecated``: read from the term form
    (its members are then ``term`` and ``value``; errors point there)."""

    op: str
    child: Value
    deprecated: bool = False


@dataclass(frozen=True)
class Comparison:
    """A comparison (and starts-with / not-starts-with) of two value expressions."""

    op: str
    left: Value
    right: Value
    deprecated: bool = False


@dataclass(frozen=True)
class SetTest:
    op: str
    child: Value
    values: tuple[Literal, ...]
    deprecated: bool = False


Expression = Union[Constant, Junction, Not, Test, Comparison, SetTest]


def _err(rule: str, where: str, message: str, clause: str = CLAUSE) -> SpecViolation:
    return SpecViolation(rule, message, clause=clause, where=f"expression{where}")


# --- JSON -> model ----------------------------------------------------------------------

def _member(obj: dict[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise _err("expressions.json-form", f"{where}/{key}", f"a {obj.get('type')!r} expression needs {key!r}")
    return obj[key]


def _value(v: Any, where: str) -> Any:
    """A VALUE: a JSON single value, never null."""
    if v is None:
        raise _err("expressions.null-literal", where, "a constant is never null (test with is-null / not-null)")
    if not isinstance(v, (bool, int, float, str)):
        raise _err("expressions.json-form", where, f"a constant is a JSON single value, got {v!r}")
    return v


def _data_type(obj: Any, where: str) -> IcebergType:
    try:
        t = parse_type(obj)
    except SpecViolation as e:
        raise _err("expressions.json-form", where, e.detail) from None
    if not isinstance(t, PrimitiveType):
        raise _err("expressions.json-form", where, f"a literal's data-type is primitive, got {t}")
    return t


def _typed(value: Any, t: IcebergType, where: str) -> Literal:
    try:
        v = value_from_json(t, value)
    except SpecViolation as e:
        raise _err("expressions.bind-literal", where, e.detail, CLAUSE_BIND) from None
    if isinstance(v, float) and math.isnan(v):
        raise _err("expressions.nan-literal", where, "a constant is never NaN (test with is-nan / not-nan)", CLAUSE_BIND)
    return Literal(v, t, True)


def parse_literal(obj: Any, where: str) -> Literal:
    if isinstance(obj, dict) and obj.get("type") == "literal":
        value = _value(_member(obj, "value", where), f"{where}/value")
        if "data-type" in obj:
            return _typed(value, _data_type(obj["data-type"], f"{where}/data-type"), f"{where}/value")
        return Literal(value)
    return Literal(_value(obj, where))


def parse_literals(obj: Any, where: str) -> tuple[Literal, ...]:
    if isinstance(obj, dict) and obj.get("type") == "literals":
        t = _data_type(_member(obj, "data-type", where), f"{where}/data-type")
        values = _member(obj, "values", where)
        if not isinstance(values, list):
            raise _err("expressions.json-form", f"{where}/values", f"'values' is a JSON array, got {values!r}")
        return tuple(_typed(_value(v, f"{where}/values/{i}"), t, f"{where}/values/{i}") for i, v in enumerate(values))
    if not isinstance(obj, list):
        raise _err("expressions.json-form", where, f"'values' is a JSON array or a literals object, got {obj!r}")
    return tuple(parse_literal(v, f"{where}/{i}") for i, v in enumerate(obj))


def _function_name(ref: Any, where: str) -> str:
    """FUNC_REF: a name, a list of names, or an object with identifier (and catalog)."""
    catalog = None
    if isinstance(ref, dict):
        catalog, ref = ref.get("catalog"), ref.get("identifier")
    if isinstance(ref, str):
        parts = [ref]
    elif isinstance(ref, list) and ref and all(isinstance(p, str) for p in ref):
        parts = list(ref)
    else:
        raise _err("expressions.json-form", where, f"a function reference names a function, got {ref!r}")
    if catalog not in (None, ICEBERG_FUNCTIONS) or len(parts) > 1 or not parts[0]:
        return ".".join(p for p in ([catalog] if catalog else []) + parts)
    return parts[0]


def parse_value(obj: Any, where: str = "") -> Value:
    """EXPR: a literal, a reference or an apply."""
    if isinstance(obj, dict) and obj.get("type") == "reference":
        if "id" in obj:
            fid = obj["id"]
            if isinstance(fid, bool) or not isinstance(fid, int):
                raise _err("expressions.json-form", f"{where}/id", f"a reference id is an integer, got {fid!r}")
            return IdReference(fid)
        name = obj.get("name", obj.get("term"))   # {"type": "reference", "term": NAME} is deprecated
        if not isinstance(name, str) or not name:
            raise _err("expressions.json-form", f"{where}/name", f"a reference needs a name or an id, got {obj!r}")
        return NamedReference(name)
    if isinstance(obj, dict) and obj.get("type") == "apply":
        fname = _function_name(_member(obj, "function", where), f"{where}/function")
        args = _member(obj, "arguments", where)
        if not isinstance(args, list):
            raise _err("expressions.json-form", f"{where}/arguments", f"'arguments' is a JSON array, got {args!r}")
        return Apply(fname, tuple(_argument(a, f"{where}/arguments/{i}") for i, a in enumerate(args)))
    return parse_literal(obj, where)


def _argument(obj: Any, where: str) -> Value:
    """FUNC_ARG: EXPR | PREDICATE. A predicate argument (``if_else``'s condition) is allowed
    by the grammar but not implemented here."""
    if isinstance(obj, dict) and obj.get("type") in ALL_TYPES:
        raise Undecided(f"expression{where}: an apply argument that is a predicate ({obj.get('type')!r}) "
                        "is not implemented by the reference")
    return parse_value(obj, where)


def parse_term(obj: Any, where: str = "") -> Value:
    """A deprecated TERM: a name, a deprecated reference object, or a transform of a term."""
    if isinstance(obj, str):
        if not obj:
            raise _err("expressions.json-form", where, "a term names a field: a non-empty string")
        return NamedReference(obj)
    if isinstance(obj, dict) and obj.get("type") == "reference":
        return parse_value(obj, where)
    if isinstance(obj, dict) and obj.get("type") == "transform":
        text = _member(obj, "transform", where)
        if not isinstance(text, str):
            raise _err("expressions.json-form", f"{where}/transform", f"a transform is a string, got {text!r}")
        try:
            transform = parse_transform(text)
        except SpecViolation as e:
            raise _err("expressions.json-form", f"{where}/transform", e.detail) from None
        inner = parse_term(_member(obj, "term", where), f"{where}/term")
        return _transform_apply(transform, inner)
    raise _err("expressions.json-form", where, f"a term is a name, a reference or a transform, got {obj!r}")


def _transform_apply(t: Transform, arg: Value) -> Apply:
    """Appendix A: a partition transform as its function (``bucket[16]`` is ``bucket(16, x)``);
    ``void`` and unknown transforms have none (``function`` is ``None``)."""
    name = str(t).split("[")[0]
    if name in ("bucket", "truncate"):
        return Apply(name, (Literal(int(str(t)[len(name) + 1:-1])), arg))
    if name in FUNCTIONS:
        return Apply(name, (arg,))
    return Apply(None, (arg,), transform=t)


def parse_expression(obj: JSON, where: str = "") -> Expression:
    """A predicate from its JSON form (current or deprecated); :class:`SpecViolation` at the
    JSON pointer of the first part that is not one. JSON nested deeper than :data:`MAX_DEPTH`
    is refused (``expressions.json-too-deep``, a kit limit)."""
    if where == "" and isinstance(obj, (dict, list)) and json_depth(obj) > MAX_DEPTH:
        raise SpecViolation("expressions.json-too-deep",
                            f"the predicate JSON nests deeper than {MAX_DEPTH} levels (kit limit)",
                            clause=CLAUSE, where="expression")
    if isinstance(obj, bool):
        return Constant(obj)
    if not isinstance(obj, dict):
        raise _err("expressions.json-form", where, f"a predicate is a JSON object or boolean, got {obj!r}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise _err("expressions.json-form", f"{where}/type", f"a predicate needs a string 'type', got {kind!r}")
    if kind not in ALL_TYPES:
        raise _err("expressions.unknown-type", f"{where}/type", f"unknown predicate type {kind!r}")
    if kind in ("true", "false"):          # the OpenAPI's deprecated TrueExpression / FalseExpression
        return Constant(kind == "true")
    if kind in ("and", "or"):
        left = parse_expression(_member(obj, "left", where), f"{where}/left")
        return Junction(kind, left, parse_expression(_member(obj, "right", where), f"{where}/right"))
    if kind == "not":
        return Not(parse_expression(_member(obj, "child", where), f"{where}/child"))
    deprecated = "term" in obj
    if deprecated:
        child = parse_term(obj["term"], f"{where}/term")
    elif kind in CMP_OPS + STRING_OPS:
        child = parse_value(_member(obj, "left", where), f"{where}/left")
    else:
        child = parse_value(_member(obj, "child", where), f"{where}/child")
    if kind in UNARY_OPS:
        return Test(kind, child, deprecated)
    if kind in SET_OPS:
        return SetTest(kind, child, parse_literals(_member(obj, "values", where), f"{where}/values"), deprecated)
    if deprecated:
        return Comparison(kind, child, parse_literal(_member(obj, "value", where), f"{where}/value"), True)
    return Comparison(kind, child, parse_value(_member(obj, "right", where), f"{where}/right"))


# --- model -> JSON ----------------------------------------------------------------------

def literal_to_json(lit: Literal) -> JSON:
    if lit.data_type is None:
        raw: JSON = lit.value
        return raw
    value = value_to_json(lit.data_type, lit.value)
    if lit.typed_json:
        return {"type": "literal", "value": value, "data-type": type_to_json(lit.data_type)}
    return value


def value_expr_to_json(v: Value) -> JSON:
    if isinstance(v, Literal):
        return literal_to_json(v)
    if isinstance(v, NamedReference):
        return {"type": "reference", "name": v.name}
    if isinstance(v, (IdReference, BoundReference)):
        return {"type": "reference", "id": v.field_id}
    if v.function is None:
        assert v.transform is not None
        arg = v.arguments[0]
        term = arg.name if isinstance(arg, NamedReference) else value_expr_to_json(arg)
        return {"type": "transform", "transform": str(v.transform), "term": term}
    return {"type": "apply", "function": v.function, "arguments": [value_expr_to_json(a) for a in v.arguments]}


def _term_only(v: Value) -> bool:
    """A transform with no function (``void``, unknown): only the deprecated term form has it."""
    return isinstance(v, Apply) and v.function is None


def _deprecated_to_json(e: Test | Comparison | SetTest) -> JSON:
    if isinstance(e, Test):
        return {"type": e.op, "term": value_expr_to_json(e.child)}
    if isinstance(e, SetTest):
        return {"type": e.op, "term": value_expr_to_json(e.child), "values": [literal_to_json(v) for v in e.values]}
    return {"type": e.op, "term": value_expr_to_json(e.left), "value": value_expr_to_json(e.right)}


def expression_to_json(e: Expression) -> JSON:
    """The current JSON form (Appendix B); a predicate on a transform with no function keeps
    the deprecated form, the only one that has it."""
    if isinstance(e, Constant):
        return e.value
    if isinstance(e, Junction):
        return {"type": e.op, "left": expression_to_json(e.left), "right": expression_to_json(e.right)}
    if isinstance(e, Not):
        return {"type": "not", "child": expression_to_json(e.child)}
    if _term_only(e.left if isinstance(e, Comparison) else e.child):
        return _deprecated_to_json(e)
    if isinstance(e, Test):
        return {"type": e.op, "child": value_expr_to_json(e.child)}
    if isinstance(e, SetTest):
        return {"type": e.op, "child": value_expr_to_json(e.child), "values": [literal_to_json(v) for v in e.values]}
    return {"type": e.op, "left": value_expr_to_json(e.left), "right": value_expr_to_json(e.right)}


def roundtrip(obj: JSON) -> JSON:
    """Parse a predicate and write it back in the current form."""
    return expression_to_json(parse_expression(obj))


# --- binding ----------------------------------------------------------------------------

def _fields(struct: StructType) -> list[tuple[str, int, IcebergType, tuple[int, ...]]]:
    """Every field reachable through structs: (dotted name, id, type, ids from the root)."""
    return [(info.name, fid, info.field_type, info.ids) for fid, info in walk(struct) if info.through_structs]


def _resolve(schema: Schema, ref: NamedReference | IdReference, case_sensitive: bool, where: str) -> BoundReference:
    fields = _fields(schema.struct)
    if isinstance(ref, IdReference):
        found = [f for f in fields if f[1] == ref.field_id]
        what = f"field id {ref.field_id}"
    elif case_sensitive:
        found = [f for f in fields if f[0] == ref.name]
        what = f"a field named {ref.name!r}"
    else:
        found = [f for f in fields if f[0].lower() == ref.name.lower()]
        what = f"a field named {ref.name!r} (case-insensitive)"
    if not found:
        raise _err("expressions.bind-unknown-field", where, f"the schema has no {what}", CLAUSE_BIND)
    if len(found) > 1:
        raise _err("expressions.bind-ambiguous-field", where,
                   f"{what} matches {', '.join(repr(f[0]) for f in found)}", CLAUSE_BIND)
    name, fid, ftype, path = found[0]
    return BoundReference(fid, name, ftype, path)


def type_of(v: Value) -> IcebergType | None:
    """The type a bound value expression produces (``None``: an untyped literal)."""
    if isinstance(v, BoundReference):
        return v.field_type
    if isinstance(v, Literal):
        return v.data_type
    if isinstance(v, Apply):
        return v.result
    return None


def _bind_apply(schema: Schema, a: Apply, cs: bool, where: str) -> Apply:
    if a.function is None:
        assert a.transform is not None
        raise _err("expressions.bind-transform", where, f"{a.transform} is no function that can be applied", CLAUSE_BIND)
    if a.function not in FUNCTIONS:
        raise _err("expressions.unknown-function", f"{where}/function", f"no function {a.function!r} is known", CLAUSE_BIND)
    params = 2 if a.function in ("bucket", "truncate") else 1
    if len(a.arguments) != params:
        raise _err("expressions.bind-transform", f"{where}/arguments",
                   f"{a.function} takes {params} argument(s), got {len(a.arguments)}", CLAUSE_BIND)
    text = a.function
    if params == 2:
        n = a.arguments[0]
        if not isinstance(n, Literal) or isinstance(n.value, bool) or not isinstance(n.value, int):
            raise _err("expressions.bind-transform", f"{where}/arguments/0",
                       f"{a.function}'s first argument is an int constant", CLAUSE_BIND)
        text = f"{a.function}[{n.value}]"
    arg = bind_value(schema, a.arguments[-1], cs, f"{where}/arguments/{params - 1}")
    source = type_of(arg)
    try:
        transform = parse_transform(text)
        assert source is not None
        result = transform.result_type(source)
    except SpecViolation as e:
        raise _err("expressions.bind-transform", where, e.detail, CLAUSE_BIND) from None
    if isinstance(transform, DayTransform):
        result = DateType()   # Appendix A: day(value) -> date (days from 1970-01-01)
    return Apply(a.function, (*a.arguments[:-1], arg), transform, result)


def bind_value(schema: Schema, v: Value, cs: bool, where: str) -> Value:
    if isinstance(v, (NamedReference, IdReference)):
        return _resolve(schema, v, cs, where)
    if isinstance(v, Apply):
        return _bind_apply(schema, v, cs, where)
    return v


#: type promotions that align a constant's type with a value's (table spec, Schema Evolution)
_PROMOTIONS = {(IntegerType, LongType), (FloatType, DoubleType), (IntegerType, FloatType),
               (IntegerType, DoubleType), (LongType, DoubleType)}
#: promotions of a column's values to a constant's type ("``int_col > 5.0`` should promote int
#: values to float"), in the order they are tried for an untyped constant that is no value of
#: the column's type
_COLUMN_PROMOTIONS: dict[type, tuple[IcebergType, ...]] = {
    IntegerType: (LongType(), DoubleType()), FloatType: (DoubleType(),)}


def _rescaled(value: Any, source: str, t: DecimalType, where: str) -> Literal:
    """A decimal constant in ``t``'s scale: only when exact and within ``t``'s precision
    ("implementations must fail rather than insert unsafe casts")."""
    try:
        d = value if isinstance(value, Decimal) else Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise _err("expressions.bind-literal", where, f"{value!r} is no decimal", CLAUSE_BIND) from None
    if not d.is_finite():
        raise _err("expressions.bind-literal", where, f"{value!r} is no finite decimal", CLAUSE_BIND)
    try:
        scaled = d.quantize(Decimal(1).scaleb(-t.scale), context=Context(prec=80))
    except InvalidOperation:
        scaled = None
    if scaled is None or scaled != d:
        raise _err("expressions.bind-type-mismatch", where,
                   f"the {source} constant {value!s} has digits beyond {t}'s scale {t.scale}: "
                   "aligning it would round (an unsafe cast)", CLAUSE_BIND)
    if len(scaled.as_tuple().digits) > t.precision and scaled != 0:
        raise _err("expressions.bind-type-mismatch", where,
                   f"the {source} constant {value!s} needs more than {t.precision} digits at scale "
                   f"{t.scale}: it does not fit {t}", CLAUSE_BIND)
    return Literal(scaled, t)


def _untyped_number(lit: Literal) -> bool:
    return lit.data_type is None and not isinstance(lit.value, bool) and isinstance(lit.value, (int, float))


def _align(lit: Literal, t: IcebergType, where: str, promote_column: bool = False) -> Literal:
    """The literal as a constant of type ``t``: an untyped one read in ``t``'s JSON form, a
    typed one promoted to ``t`` where a promotion exists; a decimal rescaled to ``t``'s scale
    when that is exact and fits. ``promote_column``: a comparison, where the column's values
    may instead be promoted to the constant's type (the result then keeps the constant's type)."""
    if lit.data_type is None:
        if isinstance(t, DecimalType) and isinstance(lit.value, str):
            try:
                return Literal(_typed(lit.value, t, where).value, t)
            except SpecViolation:
                return Literal(_rescaled(lit.value, "untyped", t, where).value, t)
        try:
            return Literal(_typed(lit.value, t, where).value, t)
        except SpecViolation:
            if not (promote_column and _untyped_number(lit)):
                raise
            for wider in _COLUMN_PROMOTIONS.get(type(t), ()):
                try:
                    return _typed(lit.value, wider, where)
                except SpecViolation:
                    continue
            raise
    if lit.data_type == t:
        return lit
    if (type(lit.data_type), type(t)) in _PROMOTIONS:
        return Literal(float(lit.value) if isinstance(t, (FloatType, DoubleType)) else lit.value, t, lit.typed_json)
    if promote_column and any(lit.data_type == w for w in _COLUMN_PROMOTIONS.get(type(t), ())):
        return lit
    if isinstance(lit.data_type, DecimalType) and isinstance(t, DecimalType):
        return Literal(_rescaled(lit.value, str(lit.data_type), t, where).value, t, lit.typed_json)
    raise _err("expressions.bind-type-mismatch", where,
               f"a {lit.data_type} constant cannot be aligned with {t}", CLAUSE_BIND)


def _comparable(a: IcebergType, b: IcebergType) -> bool:
    """The same type, or ``a`` (a column's) promoted to ``b`` (a constant's)."""
    return a == b or any(b == w for w in _COLUMN_PROMOTIONS.get(type(a), ()))


def bind(schema: Schema, e: Expression, case_sensitive: bool = True, where: str = "") -> Expression:
    """Bind a predicate to ``schema``."""
    cs = case_sensitive
    if isinstance(e, Constant):
        return e
    if isinstance(e, Junction):
        left = bind(schema, e.left, cs, f"{where}/left")
        return Junction(e.op, left, bind(schema, e.right, cs, f"{where}/right"))
    if isinstance(e, Not):
        return Not(bind(schema, e.child, cs, f"{where}/child"))
    if isinstance(e, Test):
        at = f"{where}/term" if e.deprecated else f"{where}/child"
        child = bind_value(schema, e.child, cs, at)
        t = type_of(child)
        if e.op in ("is-nan", "not-nan") and not isinstance(t, (FloatType, DoubleType)):
            raise _err("expressions.bind-nan-non-float", at, f"{e.op} tests float and double, not {t}", CLAUSE_BIND)
        return Test(e.op, child, e.deprecated)
    if isinstance(e, SetTest):
        at = f"{where}/term" if e.deprecated else f"{where}/child"
        child = bind_value(schema, e.child, cs, at)
        t = _primitive(type_of(child), at, e.op)
        values: list[Literal] = []
        for i, lit in enumerate(e.values):
            aligned = _align(lit, t, f"{where}/values/{i}")
            if all(aligned.value != v.value for v in values):
                values.append(aligned)
        return SetTest(e.op, child, tuple(values), e.deprecated)
    at_l, at_r = (f"{where}/term", f"{where}/value") if e.deprecated else (f"{where}/left", f"{where}/right")
    lhs = bind_value(schema, e.left, cs, at_l)
    rhs = bind_value(schema, e.right, cs, at_r)
    lt, rt = type_of(lhs), type_of(rhs)
    subject = lt if not isinstance(lhs, Literal) else rt
    if e.op in STRING_OPS and subject is not None and not isinstance(subject, StringType):
        raise _err("expressions.bind-starts-with-non-string", at_l, f"{e.op} tests strings, not {subject}",
                   CLAUSE_BIND)
    if isinstance(lhs, Literal) and lt is None and rt is not None:
        lhs = _align(lhs, _primitive(rt, at_r, e.op), at_l, promote_column=True)
    elif isinstance(rhs, Literal) and rt is None and lt is not None:
        rhs = _align(rhs, _primitive(lt, at_l, e.op), at_r, promote_column=True)
    elif isinstance(rhs, Literal) and lt is not None and rt is not None and lt != rt:
        rhs = _align(rhs, _primitive(lt, at_l, e.op), at_r, promote_column=True)
    elif isinstance(lhs, Literal) and lt is not None and rt is not None and lt != rt:
        lhs = _align(lhs, _primitive(rt, at_r, e.op), at_l, promote_column=True)
    lt, rt = type_of(lhs), type_of(rhs)
    if lt is None or rt is None:
        raise _err("expressions.bind-type-mismatch", where, "two untyped constants have no type to compare in", CLAUSE_BIND)
    _primitive(lt, at_l, e.op)
    if not (_comparable(lt, rt) or _comparable(rt, lt)):
        raise _err("expressions.bind-type-mismatch", where, f"{lt} and {rt} cannot be aligned", CLAUSE_BIND)
    return Comparison(e.op, lhs, rhs, e.deprecated)


def _primitive(t: IcebergType | None, where: str, op: str = "a comparison") -> IcebergType:
    member = where.rsplit("/", 1)[-1] or "expression"
    if t is None:
        raise _err("expressions.bind-type-mismatch", where,
                   f"{member!r} of {op} is a constant with no data-type: {op} tests a value of a known "
                   "type (a reference, a function or a typed literal)", CLAUSE_BIND)
    if not isinstance(t, PrimitiveType):
        raise _err("expressions.bind-non-primitive", where,
                   f"{member!r} of {op} is a {t} value: {op} compares primitive values (only is-null and "
                   "not-null test others)", CLAUSE_BIND)
    return t


def bind_json(schema_json: JSON, expr_json: JSON, case_sensitive: bool = True) -> JSON:
    """Parse, bind and write back (id references, constants in their type's JSON form)."""
    return expression_to_json(bind(parse_schema(schema_json), parse_expression(expr_json), case_sensitive))


# --- evaluation -------------------------------------------------------------------------

def _row_value(row: JSON, ref: BoundReference) -> Any:
    node: Any = row
    for fid in ref.id_path:
        if not isinstance(node, dict):
            return None
        node = node.get(str(fid))
        if node is None:
            return None
    return value_from_json(ref.field_type, node)


def eval_value(v: Value, row: JSON) -> Any:
    if isinstance(v, Literal):
        return v.value
    if isinstance(v, BoundReference):
        return _row_value(row, v)
    assert isinstance(v, Apply) and v.transform is not None
    arg = v.arguments[-1]
    source = type_of(arg)
    assert source is not None
    return v.transform.apply(source, eval_value(arg, row))


def _key(t: IcebergType | None, v: Any) -> Any:
    """Sort key in the spec's order: strings by UTF-8 bytes, uuid by its bytes, binary and
    fixed unsigned byte-wise, decimals by value, the rest signed."""
    if isinstance(t, StringType):
        return v.encode("utf-8")
    if isinstance(t, UUIDType):
        return v.bytes
    if isinstance(t, (BinaryType, FixedType)):
        return bytes(v)
    return v


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _equal(t: IcebergType | None, a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if _nan(a) or _nan(b):
        return _nan(a) and _nan(b)
    return bool(_key(t, a) == _key(t, b))


def _less(t: IcebergType | None, a: Any, b: Any) -> bool:
    if a is None or b is None or _nan(a) or _nan(b):
        return False
    return bool(_key(t, a) < _key(t, b))


def compare(op: str, t: IcebergType | None, a: Any, b: Any) -> bool:
    """The null-safe comparisons of "Comparisons"."""
    if op == "eq":
        return _equal(t, a, b)
    if op == "not-eq":
        return not _equal(t, a, b)
    if op == "lt":
        return _less(t, a, b)
    if op == "gt":
        return _less(t, b, a)
    if op == "lt-eq":
        return _equal(t, a, b) or _less(t, a, b)
    if op == "gt-eq":
        return _equal(t, a, b) or _less(t, b, a)
    prefix = isinstance(a, str) and isinstance(b, str) and a.startswith(b)
    return prefix if op == "starts-with" else not prefix


def evaluate(e: Expression, row: JSON) -> bool:
    """A bound predicate on ``row`` (JSON struct keyed by field id): true or false."""
    if isinstance(e, Constant):
        return e.value
    if isinstance(e, Junction):
        left, right = evaluate(e.left, row), evaluate(e.right, row)
        return (left and right) if e.op == "and" else (left or right)
    if isinstance(e, Not):
        return not evaluate(e.child, row)
    if isinstance(e, Test):
        v = eval_value(e.child, row)
        result = {"is-null": v is None, "not-null": v is not None, "is-nan": _nan(v), "not-nan": not _nan(v)}
        return result[e.op]
    if isinstance(e, SetTest):
        v = eval_value(e.child, row)
        t = type_of(e.child)
        hit = any(_equal(t, v, lit.value) for lit in e.values)
        return hit if e.op == "in" else not hit
    return compare(e.op, type_of(e.left), eval_value(e.left, row), eval_value(e.right, row))


def evaluate_json(schema_json: JSON, expr_json: JSON, row: JSON, case_sensitive: bool = True) -> bool:
    """Bind ``expr_json`` to the schema and evaluate it on ``row``."""
    return evaluate(bind(parse_schema(schema_json), parse_expression(expr_json), case_sensitive), row)
