"""Hypothesis strategies for Iceberg types, their values and partition transforms.

Spec sections: "Schemas and Data Types" (the types), "Appendix D: Single-value serialization /
JSON single-value serialization" (the JSON form of values) and "Partitioning / Partition
Transforms". For property tests of any implementation: generate a type, a value of that type in
the reference's Python form (:mod:`reference.values`) or in the JSON single-value form that
crosses the adapter boundary, a transform and a source type it accepts.

Every kind gets an equal share. A *kind* is a primitive type name (``decimal`` stands for every
``decimal(P, S)``, ``fixed`` for every ``fixed[L]``; :data:`KINDS`) or a transform name
(``bucket`` for every ``bucket[N]``; :data:`TRANSFORM_KINDS`). :func:`primitive_types` draws the
kind first and its parameters second, so ``decimal`` and ``fixed`` are drawn as often as
``uuid`` (a ``one_of`` over a list of types and two parameterized strategies would give those
two most of the draws). A property that must reach every kind runs once per kind
(:func:`types_of`, :func:`transform_cases`) and counts what it drew.

Edges are drawn on purpose, not left to chance, and listed (:func:`edges`, :func:`edge_types`,
:func:`edge_transforms`) so a test can also run every one of them: extremes of every range,
zero and -1, pre-1970 dates and timestamps one unit before a year, month, day, hour or
microsecond boundary, ``-0.0``, NaN, infinities, subnormals, non-BMP text and code points,
embedded NUL, empty strings and byte arrays, decimals of 38 digits and of either sign, unscaled
decimals at the two's complement byte boundaries (-128, -32768, ...: the shortest big-endian
form of those is one byte shorter than of their neighbours).

Public strategies:

* :func:`primitive_types` -- primitive types that have values (not ``unknown``, ``variant``,
  ``geometry``, ``geography``), ``decimal(P, S)`` over 1 <= P <= 38, 0 <= S <= P, ``fixed[L]``;
* :func:`types_of` -- the types of one kind; :func:`kinds` -- the kinds, :func:`kind_of` -- of a type;
* :func:`nested_types` / :func:`types` -- structs, lists and maps of those, field ids unique;
* :func:`values` -- Python values of one type; :func:`json_values` -- their JSON form;
* :func:`typed_values` / :func:`typed_json_values` -- ``(type, value)`` pairs;
  :func:`typed_values_of` -- of one kind, :func:`edge_values_of` -- its edges;
* :func:`transforms_of` -- transform strings of one kind; :func:`transform_sources` -- the kinds
  a transform accepts; :func:`transform_cases` -- ``(transform, type, value)`` triples.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from functools import singledispatch
from typing import Any, Iterator, Literal

from hypothesis import strategies as st

from .types import (
    JSON, BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    IcebergType, IntegerType, ListType, LongType, MapType, NestedField, PrimitiveType,
    StringType, StructType, TimestampNanoType, TimestampType, TimestamptzNanoType,
    TimestamptzType, TimeType, UUIDType,
)
from .values import to_json, value_to_json

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
#: the JSON form writes dates with a 4-digit year: 0001-01-01 .. 9999-12-31
DAY_MIN = (dt.date(1, 1, 1) - dt.date(1970, 1, 1)).days
DAY_MAX = (dt.date(9999, 12, 31) - dt.date(1970, 1, 1)).days
MICROS_PER_HOUR = 3_600_000_000
MICROS_PER_DAY = 86_400_000_000
MICRO_MIN, MICRO_MAX = DAY_MIN * MICROS_PER_DAY, (DAY_MAX + 1) * MICROS_PER_DAY - 1
FLOAT_MAX = 3.4028234663852886e38

_TYPES: tuple[type[PrimitiveType], ...] = (
    BooleanType, IntegerType, LongType, FloatType, DoubleType, DecimalType, DateType, TimeType,
    TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType, StringType, UUIDType,
    FixedType, BinaryType,
)
#: the kinds of primitive types that have values, each one name
KINDS: tuple[str, ...] = tuple(c.name for c in _TYPES)
_BY_KIND: dict[str, type[PrimitiveType]] = {c.name: c for c in _TYPES}
#: types whose values are usable as map keys (hashable, equal to themselves: no floats)
_KEY_TYPES: tuple[type[PrimitiveType], ...] = (
    BooleanType, IntegerType, LongType, DateType, TimeType, TimestampType, TimestamptzType,
    StringType, UUIDType, BinaryType,
)


def _with_edges(base: st.SearchStrategy[Any], edges: list[Any]) -> st.SearchStrategy[Any]:
    """``base``, with the listed edge values drawn often."""
    return st.one_of(st.sampled_from(edges), base) if edges else base


# --- types --------------------------------------------------------------------------------------

def kinds(*, v3: bool = True, exclude: tuple[type, ...] = ()) -> tuple[str, ...]:
    """The kinds of primitive types with values; ``v3=False`` leaves out the nanosecond types."""
    return tuple(c.name for c in _TYPES if (v3 or c.added_in < 3) and not issubclass(c, exclude))


def kind_of(t: IcebergType) -> str:
    """The kind of a type: its name without parameters (``decimal``), or ``struct``/``list``/``map``."""
    if isinstance(t, PrimitiveType):
        return t.name
    return {StructType: "struct", ListType: "list", MapType: "map"}.get(type(t), type(t).__name__)


#: (precision, scale) of decimals drawn often: one-byte and 38-digit precisions, scale 0 and P
_DECIMAL_EDGES = [(38, 0), (38, 10), (9, 2), (3, 0), (5, 2), (10, 0), (18, 6), (19, 0), (1, 0), (38, 38)]


def decimal_types() -> st.SearchStrategy[DecimalType]:
    drawn = st.integers(1, 38).flatmap(lambda p: st.integers(0, p).map(lambda s: (p, s)))
    return _with_edges(drawn, _DECIMAL_EDGES).map(lambda ps: DecimalType(*ps))


def fixed_types() -> st.SearchStrategy[FixedType]:
    return _with_edges(st.integers(1, 64), [1, 16]).map(FixedType)


def types_of(kind: str) -> st.SearchStrategy[PrimitiveType]:
    """The types of one kind: a single type, or ``decimal(P, S)`` / ``fixed[L]`` over their parameters."""
    if kind == "decimal":
        return decimal_types()
    if kind == "fixed":
        return fixed_types()
    return st.just(_BY_KIND[kind]())


def edge_types(kind: str) -> list[PrimitiveType]:
    """A few types of one kind whose values reach every edge: the widest decimal and one of
    each byte length that matters, ``fixed[1]`` and ``fixed[16]``."""
    if kind == "decimal":
        return [DecimalType(38, 0), DecimalType(9, 2), DecimalType(5, 0), DecimalType(38, 38)]
    if kind == "fixed":
        return [FixedType(1), FixedType(16)]
    return [_BY_KIND[kind]()]


def primitive_types(*, v3: bool = True, exclude: tuple[type, ...] = ()) -> st.SearchStrategy[PrimitiveType]:
    """Primitive types that have values, every kind an equal share; ``v3=False`` leaves out the
    v3 nanosecond types, ``exclude`` the listed type classes."""
    return st.sampled_from(kinds(v3=v3, exclude=exclude)).flatmap(types_of)


def _ids() -> Iterator[int]:
    n = 1
    while True:
        yield n
        n += 1


@st.composite
def _nested(draw: st.DrawFn, depth: int, ids: Iterator[int], top: str | None = None) -> IcebergType:
    def child() -> IcebergType:
        if depth <= 1 or draw(st.booleans()):
            return draw(primitive_types())
        return draw(_nested(depth - 1, ids))

    kind = top or draw(st.sampled_from(["struct", "list", "map"]))
    if kind == "struct":
        count = draw(st.integers(1, 4))
        fields = []
        for i in range(count):
            fid = next(ids)
            fields.append(NestedField(fid, f"f{fid}", child(), draw(st.booleans())))
        return StructType(tuple(fields))
    if kind == "list":
        return ListType(next(ids), child(), draw(st.booleans()))
    key_id, value_id = next(ids), next(ids)
    key = draw(st.sampled_from(_KEY_TYPES).map(lambda c: c()))
    return MapType(key_id, key, value_id, child(), draw(st.booleans()))


def nested_types(max_depth: int = 2, kind: str | None = None) -> st.SearchStrategy[IcebergType]:
    """struct, list and map types nesting up to ``max_depth`` levels, with unique ids; ``kind``
    (``struct``, ``list`` or ``map``): only that kind at the top."""
    return st.builds(lambda: None).flatmap(lambda _: _nested(max_depth, _ids(), kind))


def types(max_depth: int = 2) -> st.SearchStrategy[IcebergType]:
    return st.one_of(primitive_types(), nested_types(max_depth))


# --- values -----------------------------------------------------------------------------------

_CACHE: dict[IcebergType, st.SearchStrategy[Any]] = {}


def values(t: IcebergType) -> st.SearchStrategy[Any]:
    """Values of type ``t`` in the reference's Python form (see :mod:`reference.values`), its
    :func:`edges` drawn often. One strategy per type, built once."""
    try:
        return _CACHE[t]
    except KeyError:
        pass
    except TypeError:  # a type that is not hashable: built each time
        return _values(t)
    got = _CACHE[t] = _values(t)
    return got


@singledispatch
def _values(t: IcebergType) -> st.SearchStrategy[Any]:
    if isinstance(t, PrimitiveType) and type(t) in _TYPES:
        return _with_edges(_drawn(t), edges(t))
    raise TypeError(f"no value strategy for {t}")


@singledispatch
def edges(t: IcebergType) -> list[Any]:
    """The edge values of primitive type ``t`` (Python form), each a valid value of ``t``."""
    raise TypeError(f"no edges for {t}")


@singledispatch
def _drawn(t: IcebergType) -> st.SearchStrategy[Any]:
    """Values of ``t`` over its whole range (without the extra weight on edges)."""
    raise TypeError(f"no value strategy for {t}")


@edges.register
def _(t: BooleanType) -> list[Any]:
    return [False, True]


@_drawn.register
def _(t: BooleanType) -> st.SearchStrategy[Any]:
    return st.booleans()


@edges.register
def _(t: IntegerType) -> list[Any]:
    return [0, -1, 1, 34, -7, -10, -11, 2**15, -(2**15) - 1, INT_MIN, INT_MIN + 1, INT_MAX]


@_drawn.register
def _(t: IntegerType) -> st.SearchStrategy[Any]:
    return st.integers(INT_MIN, INT_MAX)


@edges.register
def _(t: LongType) -> list[Any]:
    return [0, -1, 1, 34, -7, -11, INT_MIN - 1, INT_MAX + 1, LONG_MIN, LONG_MIN + 1, LONG_MAX]


@_drawn.register
def _(t: LongType) -> st.SearchStrategy[Any]:
    return st.integers(LONG_MIN, LONG_MAX)


@edges.register
def _(t: FloatType) -> list[Any]:
    return [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.5, FLOAT_MAX, -FLOAT_MAX, 1.401298464324817e-45]


@_drawn.register
def _(t: FloatType) -> st.SearchStrategy[Any]:
    return st.floats(width=32)


@edges.register
def _(t: DoubleType) -> list[Any]:
    return [0.0, -0.0, math.nan, math.inf, -math.inf, 0.1, -1.5, 1.7976931348623157e308, 5e-324, -5e-324]


@_drawn.register
def _(t: DoubleType) -> st.SearchStrategy[Any]:
    return st.floats()


def _decimal(n: int, scale: int) -> Decimal:
    return Decimal((1 if n < 0 else 0, tuple(int(d) for d in str(abs(n))), -scale))


#: unscaled decimal edges: each side of the one-, two-, three-, four-, eight- and sixteen-byte
#: two's complement boundaries (-128 is 0x80 in one byte, -129 needs two)
_UNSCALED_EDGES = [0, 1, -1, 127, 128, -128, -129, 255, -256, 32767, 32768, -32768, -32769,
                   2**23, -(2**23), 2**31 - 1, -(2**31), 2**63 - 1, -(2**63), -(2**63) - 1, -(2**119)]


@edges.register
def _(t: DecimalType) -> list[Any]:
    top = 10**t.precision - 1
    return [_decimal(n, t.scale) for n in _UNSCALED_EDGES + [top, -top] if abs(n) <= top]


@_drawn.register
def _(t: DecimalType) -> st.SearchStrategy[Any]:
    top = 10**t.precision - 1
    return st.integers(-top, top).map(lambda n: _decimal(n, t.scale))


@edges.register
def _(t: DateType) -> list[Any]:
    # 1969-12-31, 1969-01-01, 1968-12-31, 1900-03-01 (pre-1970 year and month boundaries)
    return [0, -1, 1, -365, -366, -25508, DAY_MIN, DAY_MAX, 17486, -25567]


@_drawn.register
def _(t: DateType) -> st.SearchStrategy[Any]:
    return st.integers(DAY_MIN, DAY_MAX)


@edges.register
def _(t: TimeType) -> list[Any]:
    return [0, 1, 999, 1000, 1001, MICROS_PER_HOUR - 1, MICROS_PER_DAY - 1, 81068123456]


@_drawn.register
def _(t: TimeType) -> st.SearchStrategy[Any]:
    return st.integers(0, MICROS_PER_DAY - 1)


#: microseconds one before (and at) the boundaries of pre-1970 hours, days, months and years
_MICRO_EDGES = [0, -1, 1, -MICROS_PER_HOUR, -MICROS_PER_HOUR - 1, -MICROS_PER_DAY, -MICROS_PER_DAY - 1,
                -31 * MICROS_PER_DAY - 1, -365 * MICROS_PER_DAY - 1, -25567 * MICROS_PER_DAY + 1,
                MICRO_MIN, MICRO_MAX, 1510871468123456]


@edges.register(TimestampType)
@edges.register(TimestamptzType)
def _(t: IcebergType) -> list[Any]:
    return list(_MICRO_EDGES)


@_drawn.register(TimestampType)
@_drawn.register(TimestamptzType)
def _(t: IcebergType) -> st.SearchStrategy[Any]:
    return st.integers(MICRO_MIN, MICRO_MAX)


@edges.register(TimestampNanoType)
@edges.register(TimestamptzNanoType)
def _(t: IcebergType) -> list[Any]:
    return [0, -1, 1, -999, -1000, -1001, 999, -MICROS_PER_DAY * 1000 - 1, -MICROS_PER_HOUR * 1000 - 1,
            LONG_MIN, LONG_MAX, 1510871468123456789]


@_drawn.register(TimestampNanoType)
@_drawn.register(TimestamptzNanoType)
def _(t: IcebergType) -> st.SearchStrategy[Any]:
    return st.integers(LONG_MIN, LONG_MAX)


#: any code point a string may hold (no surrogates: they are no characters), the
#: supplementary planes (two UTF-16 units, four UTF-8 bytes) drawn as often as the rest
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
_CHARACTERS = st.one_of(st.characters(exclude_categories=_SURROGATES),
                        st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, exclude_categories=_SURROGATES))


@edges.register
def _(t: StringType) -> list[Any]:
    return ["", "iceberg", "\U0001F600", "a\U0001F600b", "\U0001F600\U0001F600\U0001F600", "ab\U00010000cd",
            "a\x00b", "日本語", "\uffff", "\U0010FFFF", "\u00e9t\u00e9"]


@_drawn.register
def _(t: StringType) -> st.SearchStrategy[Any]:
    return st.text(_CHARACTERS, max_size=12)


@edges.register
def _(t: UUIDType) -> list[Any]:
    return [uuid.UUID(int=0), uuid.UUID(int=2**128 - 1), uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
            uuid.UUID("00000000-0000-0000-0000-000000000001")]


@_drawn.register
def _(t: UUIDType) -> st.SearchStrategy[Any]:
    return st.uuids()


@edges.register
def _(t: FixedType) -> list[Any]:
    return [bytes(t.length), b"\xff" * t.length, bytes(range(1, t.length + 1))]


@_drawn.register
def _(t: FixedType) -> st.SearchStrategy[Any]:
    return st.binary(min_size=t.length, max_size=t.length)


@edges.register
def _(t: BinaryType) -> list[Any]:
    return [b"", b"\x00", b"\xff" * 4, bytes(range(20))]


@_drawn.register
def _(t: BinaryType) -> st.SearchStrategy[Any]:
    return st.binary()


def _maybe_null(t: IcebergType, required: bool) -> st.SearchStrategy[Any]:
    return values(t) if required else st.one_of(st.none(), values(t))


@_values.register
def _(t: StructType) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({f.field_id: _maybe_null(f.field_type, f.required) for f in t.fields})


@_values.register
def _(t: ListType) -> st.SearchStrategy[Any]:
    return st.lists(_maybe_null(t.element_type, t.element_required), max_size=4)


@_values.register
def _(t: MapType) -> st.SearchStrategy[Any]:
    return st.dictionaries(values(t.key_type), _maybe_null(t.value_type, t.value_required), max_size=4)


def typed_values_of(kind: str) -> st.SearchStrategy[tuple[PrimitiveType, Any]]:
    """``(type, Python value)`` pairs of one kind of primitive type."""
    return types_of(kind).flatmap(lambda t: values(t).map(lambda v: (t, v)))


def edge_values_of(kind: str) -> list[tuple[PrimitiveType, Any]]:
    """Every edge value of every edge type of one kind, as ``(type, value)`` pairs."""
    return [(t, v) for t in edge_types(kind) for v in edges(t)]


def value_count(kind: str) -> int | None:
    """How many values the types of ``kind`` have, where that is fewer than a test draws
    (``boolean``: 2); ``None`` for the others."""
    return 2 if kind == "boolean" else None


def json_values(t: IcebergType) -> st.SearchStrategy[JSON]:
    """Values of ``t`` in the JSON single-value form (NaN/Infinity as this kit's strings)."""
    return values(t).map(lambda v: to_json(t, v))


def typed_values(type_strategy: st.SearchStrategy[IcebergType] | None = None
                 ) -> st.SearchStrategy[tuple[IcebergType, Any]]:
    """``(type, Python value)`` pairs; types from ``type_strategy`` (default: primitives)."""
    ts = primitive_types() if type_strategy is None else type_strategy
    return ts.flatmap(lambda t: values(t).map(lambda v: (t, v)))


def typed_json_values(type_strategy: st.SearchStrategy[IcebergType] | None = None
                      ) -> st.SearchStrategy[tuple[IcebergType, JSON]]:
    """``(type, JSON single value)`` pairs."""
    ts = primitive_types() if type_strategy is None else type_strategy
    return ts.flatmap(lambda t: json_values(t).map(lambda v: (t, v)))


def nullable_json(t: IcebergType) -> st.SearchStrategy[JSON]:
    """JSON values of ``t`` or null."""
    return st.one_of(st.none(), values(t).map(lambda v: value_to_json(t, v)))


# --- transforms -------------------------------------------------------------------------------

#: the partition transforms that apply to values, each one name (``bucket`` for every ``bucket[N]``)
TRANSFORM_KINDS: tuple[str, ...] = ("identity", "bucket", "truncate", "year", "month", "day", "hour", "void")
_BUCKET_EDGES = [1, 2, 16, 1000, INT_MAX]
_TRUNCATE_EDGES = [1, 2, 3, 4, 5, 10, 100]


def transforms_of(kind: str) -> st.SearchStrategy[str]:
    """Transform strings of one kind: ``bucket[N]`` over 1 <= N <= 2^31-1, ``truncate[W]`` over
    1 <= W <= 1000 (small widths often: a width cuts into short values), the others as named."""
    if kind == "bucket":
        return _with_edges(st.integers(1, INT_MAX), _BUCKET_EDGES).map(lambda n: f"bucket[{n}]")
    if kind == "truncate":
        return _with_edges(st.integers(1, 1000), _TRUNCATE_EDGES).map(lambda w: f"truncate[{w}]")
    return st.just(kind)


def edge_transforms(kind: str) -> list[str]:
    """A few transform strings of one kind that every edge value is tried with."""
    if kind == "bucket":
        return ["bucket[16]", f"bucket[{INT_MAX}]"]
    if kind == "truncate":
        return ["truncate[1]", "truncate[3]", "truncate[10]"]
    return [kind]


def transform_sources(kind: str, *, v3: bool = True) -> tuple[str, ...]:
    """The kinds of source types transform ``kind`` accepts (Partition Transforms table)."""
    from .transforms import parse_transform

    transform = parse_transform(edge_transforms(kind)[0])
    return tuple(k for k in kinds(v3=v3) if transform.accepts(edge_types(k)[0]))


def transform_cases(kind: str, source: str) -> st.SearchStrategy[tuple[str, PrimitiveType, Any]]:
    """``(transform string, source type, value)`` of one transform kind and one source kind."""
    return st.tuples(transforms_of(kind), types_of(source)).flatmap(
        lambda tt: values(tt[1]).map(lambda v: (tt[0], tt[1], v)))


def edge_transform_cases(kind: str, source: str) -> list[tuple[str, PrimitiveType, Any]]:
    """Every edge value of every edge type of ``source`` under every edge transform of ``kind``."""
    return [(text, t, v) for text in edge_transforms(kind) for t in edge_types(source) for v in edges(t)]


__all__ = [
    "KINDS", "TRANSFORM_KINDS", "kinds", "kind_of", "types_of", "edge_types", "primitive_types",
    "decimal_types", "fixed_types", "nested_types", "types", "values", "edges", "json_values",
    "typed_values", "typed_json_values", "typed_values_of", "edge_values_of", "value_count", "nullable_json", "transforms_of", "edge_transforms",
    "transform_sources", "transform_cases", "edge_transform_cases",
]
