"""Hypothesis strategies for Iceberg types and their values.

Spec sections: "Schemas and Data Types" (the types) and "Appendix D: Single-value
serialization / JSON single-value serialization" (the JSON form of values). For property tests
of any implementation: generate a type, a value of that type in the reference's Python form
(:mod:`reference.values`) or in the JSON single-value form that crosses the adapter boundary.

Public strategies:

* :func:`primitive_types` -- primitive types that have values (not ``unknown``, ``variant``,
  ``geometry``, ``geography``), ``decimal(P, S)`` over 1 <= P <= 38, 0 <= S <= P, ``fixed[L]``;
* :func:`nested_types` / :func:`types` -- structs, lists and maps of those, field ids unique;
* :func:`values` -- Python values of one type; :func:`json_values` -- their JSON form;
* :func:`typed_values` / :func:`typed_json_values` -- ``(type, value)`` pairs.

Edges are drawn on purpose, not left to chance: extremes of every range, zero and -1,
pre-1970 dates and timestamps, ``-0.0``, NaN, infinities, subnormals, non-BMP text, embedded
NUL, empty strings and byte arrays, decimals of 38 digits and of either sign.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from functools import singledispatch
from typing import Any, Iterator

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
MICROS_PER_DAY = 86_400_000_000
MICRO_MIN, MICRO_MAX = DAY_MIN * MICROS_PER_DAY, (DAY_MAX + 1) * MICROS_PER_DAY - 1
FLOAT_MAX = 3.4028234663852886e38

_SIMPLE: tuple[type[PrimitiveType], ...] = (
    BooleanType, IntegerType, LongType, FloatType, DoubleType, DateType, TimeType, TimestampType,
    TimestamptzType, TimestampNanoType, TimestamptzNanoType, StringType, UUIDType, BinaryType,
)
#: types whose values are usable as map keys (hashable, equal to themselves: no floats)
_KEY_TYPES: tuple[type[PrimitiveType], ...] = (
    BooleanType, IntegerType, LongType, DateType, TimeType, TimestampType, TimestamptzType,
    StringType, UUIDType, BinaryType,
)


def _with_edges(base: st.SearchStrategy[Any], edges: list[Any]) -> st.SearchStrategy[Any]:
    """``base``, with the listed edge values drawn often."""
    return st.one_of(st.sampled_from(edges), base)


def decimal_types() -> st.SearchStrategy[DecimalType]:
    return st.integers(1, 38).flatmap(
        lambda p: st.integers(0, p).map(lambda s: DecimalType(p, s)))


def fixed_types() -> st.SearchStrategy[FixedType]:
    return _with_edges(st.integers(1, 64), [1, 16]).map(FixedType)


def primitive_types(*, v3: bool = True, exclude: tuple[type, ...] = ()) -> st.SearchStrategy[PrimitiveType]:
    """Primitive types that have values; ``v3=False`` leaves out the v3 nanosecond types."""
    simple = [c for c in _SIMPLE if (v3 or c.added_in < 3) and not issubclass(c, exclude)]
    parts: list[st.SearchStrategy[Any]] = [st.sampled_from(simple).map(lambda c: c())]
    if not issubclass(DecimalType, exclude):
        parts.append(decimal_types())
    if not issubclass(FixedType, exclude):
        parts.append(fixed_types())
    return st.one_of(parts)


def _ids() -> Iterator[int]:
    n = 1
    while True:
        yield n
        n += 1


@st.composite
def _nested(draw: st.DrawFn, depth: int, ids: Iterator[int]) -> IcebergType:
    def child() -> IcebergType:
        if depth <= 1 or draw(st.booleans()):
            return draw(primitive_types())
        return draw(_nested(depth - 1, ids))

    kind = draw(st.sampled_from(["struct", "list", "map"]))
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


def nested_types(max_depth: int = 2) -> st.SearchStrategy[IcebergType]:
    """struct, list and map types nesting up to ``max_depth`` levels, with unique ids."""
    return st.builds(lambda: None).flatmap(lambda _: _nested(max_depth, _ids()))


def types(max_depth: int = 2) -> st.SearchStrategy[IcebergType]:
    return st.one_of(primitive_types(), nested_types(max_depth))


# --- values -----------------------------------------------------------------------------------

@singledispatch
def values(t: IcebergType) -> st.SearchStrategy[Any]:
    """Values of type ``t`` in the reference's Python form (see :mod:`reference.values`)."""
    raise TypeError(f"no value strategy for {t}")


@values.register
def _(t: BooleanType) -> st.SearchStrategy[Any]:
    return st.booleans()


@values.register
def _(t: IntegerType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(INT_MIN, INT_MAX), [0, -1, 1, 34, INT_MIN, INT_MAX])


@values.register
def _(t: LongType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(LONG_MIN, LONG_MAX),
                       [0, -1, 1, 34, INT_MIN - 1, INT_MAX + 1, LONG_MIN, LONG_MAX])


@values.register
def _(t: FloatType) -> st.SearchStrategy[Any]:
    return _with_edges(st.floats(width=32), [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0,
                                             FLOAT_MAX, -FLOAT_MAX, 1.401298464324817e-45])


@values.register
def _(t: DoubleType) -> st.SearchStrategy[Any]:
    return _with_edges(st.floats(), [0.0, -0.0, math.nan, math.inf, -math.inf, 0.1,
                                     1.7976931348623157e308, 5e-324, -5e-324])


def _decimal(n: int, scale: int) -> Decimal:
    return Decimal((1 if n < 0 else 0, tuple(int(d) for d in str(abs(n))), -scale))


@values.register
def _(t: DecimalType) -> st.SearchStrategy[Any]:
    top = 10**t.precision - 1
    return _with_edges(st.integers(-top, top), [0, 1, -1, top, -top, 127, 128, -128, -129]) \
        .filter(lambda n: abs(n) <= top).map(lambda n: _decimal(n, t.scale))


@values.register
def _(t: DateType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(DAY_MIN, DAY_MAX), [0, -1, 1, DAY_MIN, DAY_MAX, 17486, -25567])


@values.register
def _(t: TimeType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(0, MICROS_PER_DAY - 1), [0, 1, MICROS_PER_DAY - 1, 81068123456])


@values.register(TimestampType)
@values.register(TimestamptzType)
def _(t: IcebergType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(MICRO_MIN, MICRO_MAX),
                       [0, -1, 1, MICRO_MIN, MICRO_MAX, -MICROS_PER_DAY, 1510871468123456])


@values.register(TimestampNanoType)
@values.register(TimestamptzNanoType)
def _(t: IcebergType) -> st.SearchStrategy[Any]:
    return _with_edges(st.integers(LONG_MIN, LONG_MAX), [0, -1, 1, -999, LONG_MIN, LONG_MAX])


@values.register
def _(t: StringType) -> st.SearchStrategy[Any]:
    return _with_edges(st.text(), ["", "iceberg", "\U0001F600", "a\x00b", "日本語", "\uffff", "\U0010FFFF"])


@values.register
def _(t: UUIDType) -> st.SearchStrategy[Any]:
    import uuid

    return _with_edges(st.uuids(), [uuid.UUID(int=0), uuid.UUID(int=2**128 - 1),
                                    uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")])


@values.register
def _(t: FixedType) -> st.SearchStrategy[Any]:
    return st.binary(min_size=t.length, max_size=t.length)


@values.register
def _(t: BinaryType) -> st.SearchStrategy[Any]:
    return _with_edges(st.binary(), [b"", b"\x00", b"\xff" * 4])


def _maybe_null(t: IcebergType, required: bool) -> st.SearchStrategy[Any]:
    return values(t) if required else st.one_of(st.none(), values(t))


@values.register
def _(t: StructType) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({f.field_id: _maybe_null(f.field_type, f.required) for f in t.fields})


@values.register
def _(t: ListType) -> st.SearchStrategy[Any]:
    return st.lists(_maybe_null(t.element_type, t.element_required), max_size=4)


@values.register
def _(t: MapType) -> st.SearchStrategy[Any]:
    return st.dictionaries(values(t.key_type), _maybe_null(t.value_type, t.value_required), max_size=4)


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


__all__ = [
    "primitive_types", "decimal_types", "fixed_types", "nested_types", "types", "values",
    "json_values", "typed_values", "typed_json_values", "nullable_json",
]

