"""Schemas and Data Types: primitive and nested types and their JSON form.

Spec sections: "Schemas and Data Types" (Nested Types, Semi-structured Types, Primitive
Types) and "Appendix C: JSON serialization / Schemas". v3 adds ``unknown``, ``timestamp_ns``,
``timestamptz_ns``, ``variant``, ``geometry(C)`` and ``geography(C, A)``, and field
``initial-default`` / ``write-default``.

Types are immutable values. ``parse_type`` reads the JSON form and ``type_to_json`` writes it;
both refuse what the spec does not allow with a :class:`~reference.errors.SpecViolation`
naming the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

from .errors import SpecViolation

JSON = Union[None, bool, int, float, str, list[Any], dict[str, Any]]

CLAUSE_PRIMITIVES = "Schemas and Data Types / Primitive Types"
CLAUSE_NESTED = "Schemas and Data Types / Nested Types"
CLAUSE_JSON = "Appendix C: JSON serialization / Schemas"


class IcebergType:
    """Base of every Iceberg type."""

    #: first format version whose tables may use this type
    added_in: int = 1

    @property
    def is_primitive(self) -> bool:
        return not isinstance(self, NestedType)

    def __str__(self) -> str:
        rendered = type_to_json(self)
        return rendered if isinstance(rendered, str) else str(rendered.get("type") if isinstance(rendered, dict) else rendered)


class PrimitiveType(IcebergType):
    """A type with no child fields."""

    name: str = ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))


class BooleanType(PrimitiveType):
    name = "boolean"


class IntegerType(PrimitiveType):
    name = "int"


class LongType(PrimitiveType):
    name = "long"


class FloatType(PrimitiveType):
    name = "float"


class DoubleType(PrimitiveType):
    name = "double"


class DateType(PrimitiveType):
    name = "date"


class TimeType(PrimitiveType):
    name = "time"


class TimestampType(PrimitiveType):
    name = "timestamp"


class TimestamptzType(PrimitiveType):
    name = "timestamptz"


class TimestampNanoType(PrimitiveType):
    name = "timestamp_ns"
    added_in = 3


class TimestamptzNanoType(PrimitiveType):
    name = "timestamptz_ns"
    added_in = 3


class StringType(PrimitiveType):
    name = "string"


class UUIDType(PrimitiveType):
    name = "uuid"


class BinaryType(PrimitiveType):
    name = "binary"


class UnknownType(PrimitiveType):
    name = "unknown"
    added_in = 3


class VariantType(PrimitiveType):
    """``variant``: semi-structured values (v3). Not nested in the Iceberg sense: no field ids."""

    name = "variant"
    added_in = 3


class FixedType(PrimitiveType):
    name = "fixed"

    def __init__(self, length: int) -> None:
        if length < 0:
            raise SpecViolation(
                "types.fixed-length", f"fixed[{length}]: length must not be negative",
                clause=CLAUSE_PRIMITIVES,
            )
        self.length = length

    def __repr__(self) -> str:
        return f"FixedType({self.length})"


MAX_DECIMAL_PRECISION = 38


class DecimalType(PrimitiveType):
    name = "decimal"

    def __init__(self, precision: int, scale: int) -> None:
        if not 1 <= precision <= MAX_DECIMAL_PRECISION:
            raise SpecViolation(
                "types.decimal-precision",
                f"decimal({precision}, {scale}): precision must be 1..{MAX_DECIMAL_PRECISION}",
                clause=CLAUSE_PRIMITIVES,
            )
        # The spec bounds the precision only; the scale is free (the JSON single-value form
        # speaks of negative scales, and Java and PyIceberg accept a scale above the precision).
        self.precision = precision
        self.scale = scale

    def __repr__(self) -> str:
        return f"DecimalType({self.precision}, {self.scale})"


DEFAULT_CRS = "OGC:CRS84"
EDGE_ALGORITHMS = ("spherical", "vincenty", "thomas", "andoyer", "karney")


class GeometryType(PrimitiveType):
    """``geometry(C)``: C is a CRS, default ``OGC:CRS84`` (v3)."""

    name = "geometry"
    added_in = 3

    def __init__(self, crs: str = DEFAULT_CRS) -> None:
        self.crs = crs

    def __repr__(self) -> str:
        return f"GeometryType({self.crs!r})"


class GeographyType(PrimitiveType):
    """``geography(C, A)``: CRS C (default ``OGC:CRS84``), edge algorithm A (default spherical)."""

    name = "geography"
    added_in = 3

    def __init__(self, crs: str = DEFAULT_CRS, algorithm: str = "spherical") -> None:
        if algorithm not in EDGE_ALGORITHMS:
            raise SpecViolation(
                "types.geography-algorithm",
                f"geography({crs}, {algorithm}): edge algorithm must be one of "
                + ", ".join(EDGE_ALGORITHMS),
                clause=CLAUSE_PRIMITIVES,
            )
        self.crs = crs
        self.algorithm = algorithm

    def __repr__(self) -> str:
        return f"GeographyType({self.crs!r}, {self.algorithm!r})"


class NestedType(IcebergType):
    """struct, list and map."""


@dataclass(frozen=True)
class NestedField:
    """A struct field: id, name, type, required flag, doc and (v3) default values.

    Defaults are kept in their JSON single-value form, as they appear in schema JSON.
    """

    field_id: int
    name: str
    field_type: IcebergType
    required: bool
    doc: str | None = None
    initial_default: JSON = None
    write_default: JSON = None
    has_initial_default: bool = False
    has_write_default: bool = False


@dataclass(frozen=True)
class StructType(NestedType):
    fields: tuple[NestedField, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ListType(NestedType):
    element_id: int
    element_type: IcebergType
    element_required: bool


@dataclass(frozen=True)
class MapType(NestedType):
    key_id: int
    key_type: IcebergType
    value_id: int
    value_type: IcebergType
    value_required: bool


_SIMPLE: dict[str, type[PrimitiveType]] = {
    cls.name: cls
    for cls in (
        BooleanType, IntegerType, LongType, FloatType, DoubleType, DateType, TimeType,
        TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType, StringType,
        UUIDType, BinaryType, UnknownType, VariantType,
    )
}
_FIXED = re.compile(r"fixed\[\s*(-?\d+)\s*\]")
_DECIMAL = re.compile(r"decimal\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
_GEOMETRY = re.compile(r"geometry\s*\(\s*([^,()]+?)\s*\)")
_GEOGRAPHY = re.compile(r"geography\s*\(\s*([^,()]+?)\s*(?:,\s*([A-Za-z]+)\s*)?\)")


def parse_primitive(text: str) -> PrimitiveType:
    """A primitive type from its JSON string form (``"decimal(9, 2)"``, ``"fixed[16]"`` ...)."""
    if text in _SIMPLE:
        return _SIMPLE[text]()
    if m := _FIXED.fullmatch(text):
        return FixedType(int(m.group(1)))
    if m := _DECIMAL.fullmatch(text):
        return DecimalType(int(m.group(1)), int(m.group(2)))
    if text == "geometry":
        return GeometryType()
    if m := _GEOMETRY.fullmatch(text):
        return GeometryType(m.group(1))
    if text == "geography":
        return GeographyType()
    if m := _GEOGRAPHY.fullmatch(text):
        return GeographyType(m.group(1), m.group(2) or "spherical")
    raise SpecViolation(
        "types.unknown-type", f"{text!r} is not an Iceberg type", clause=CLAUSE_JSON
    )


def _require(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    if key not in obj:
        raise SpecViolation("types.json-shape", f"{what}: missing {key!r}", clause=CLAUSE_JSON)
    value = obj[key]
    # bool is an int in Python; ids and flags must not be confused.
    if isinstance(value, bool) and kind is int or not isinstance(value, kind):
        raise SpecViolation(
            "types.json-shape",
            f"{what}: {key!r} must be {getattr(kind, '__name__', kind)}, got {value!r}",
            clause=CLAUSE_JSON,
        )
    return value


def parse_type(obj: JSON, *, path: str = "") -> IcebergType:
    """An Iceberg type from its Appendix C JSON form. Errors are located by JSON path."""
    try:
        if isinstance(obj, str):
            return parse_primitive(obj)
        if not isinstance(obj, dict):
            raise SpecViolation(
                "types.json-shape", f"a type is a JSON string or object, got {obj!r}",
                clause=CLAUSE_JSON,
            )
        kind = obj.get("type")
        if kind == "struct":
            fields_json = _require(obj, "fields", list, "struct")
            return StructType(tuple(
                parse_field(f, path=f"{path}/fields/{i}") for i, f in enumerate(fields_json)
            ))
        if kind == "list":
            element_id = _require(obj, "element-id", int, "list")
            required = _require(obj, "element-required", bool, "list")
            element = parse_type(_require(obj, "element", (str, dict), "list"), path=f"{path}/element")
            return ListType(element_id, element, required)
        if kind == "map":
            key_id = _require(obj, "key-id", int, "map")
            value_id = _require(obj, "value-id", int, "map")
            required = _require(obj, "value-required", bool, "map")
            key = parse_type(_require(obj, "key", (str, dict), "map"), path=f"{path}/key")
            value = parse_type(_require(obj, "value", (str, dict), "map"), path=f"{path}/value")
            return MapType(key_id, key, value_id, value, required)
        raise SpecViolation(
            "types.unknown-type", f"type object with type {kind!r} is not struct, list or map",
            clause=CLAUSE_JSON,
        )
    except SpecViolation as e:
        if e.where or not path:
            raise
        raise e.at(path) from None


def parse_field(obj: JSON, *, path: str = "") -> NestedField:
    """A struct field from JSON: ``id``, ``name``, ``required``, ``type``, ``doc``, defaults."""
    if not isinstance(obj, dict):
        raise SpecViolation("types.json-shape", f"a struct field is a JSON object, got {obj!r}",
                            clause=CLAUSE_JSON, where=path)
    try:
        field_id = _require(obj, "id", int, "struct field")
        name = _require(obj, "name", str, f"field {field_id}")
        required = _require(obj, "required", bool, f"field {name!r}")
        doc = obj.get("doc")
        if doc is not None and not isinstance(doc, str):
            raise SpecViolation("types.json-shape", f"field {name!r}: 'doc' must be a string",
                                clause=CLAUSE_JSON)
    except SpecViolation as e:
        raise e.at(path) from None
    field_type = parse_type(_require(obj, "type", (str, dict), f"field {name!r}"), path=f"{path}/type")
    return NestedField(
        field_id, name, field_type, required, doc,
        initial_default=obj.get("initial-default"), write_default=obj.get("write-default"),
        has_initial_default="initial-default" in obj, has_write_default="write-default" in obj,
    )


def type_to_json(t: IcebergType) -> JSON:
    """The Appendix C JSON form of a type, in the canonical form of the type table ("The schema
    JSON type strings in this table are the canonical serialized forms"): ``decimal(P, S)``,
    ``geometry(C)`` and ``geography(C, A)`` with every parameter written, also the defaults
    (``geometry(OGC:CRS84)``, ``geography(OGC:CRS84, spherical)``). :func:`parse_primitive`
    also reads the short forms ``geometry``, ``geography`` and ``geography(C)``."""
    if isinstance(t, DecimalType):
        return f"decimal({t.precision}, {t.scale})"
    if isinstance(t, FixedType):
        return f"fixed[{t.length}]"
    if isinstance(t, GeometryType):
        return f"geometry({t.crs})"
    if isinstance(t, GeographyType):
        return f"geography({t.crs}, {t.algorithm})"
    if isinstance(t, PrimitiveType):
        return t.name
    if isinstance(t, StructType):
        return {"type": "struct", "fields": [field_to_json(f) for f in t.fields]}
    if isinstance(t, ListType):
        return {"type": "list", "element-id": t.element_id, "element": type_to_json(t.element_type),
                "element-required": t.element_required}
    if isinstance(t, MapType):
        return {"type": "map", "key-id": t.key_id, "key": type_to_json(t.key_type),
                "value-id": t.value_id, "value": type_to_json(t.value_type),
                "value-required": t.value_required}
    raise TypeError(f"not an Iceberg type: {t!r}")


def field_to_json(f: NestedField) -> dict[str, Any]:
    out: dict[str, Any] = {"id": f.field_id, "name": f.name, "required": f.required,
                           "type": type_to_json(f.field_type)}
    if f.doc is not None:
        out["doc"] = f.doc
    if f.has_initial_default:
        out["initial-default"] = f.initial_default
    if f.has_write_default:
        out["write-default"] = f.write_default
    return out


def children(t: IcebergType) -> list[tuple[int, str, IcebergType, bool]]:
    """(id, name, type, required) of a nested type's direct child fields; [] for primitives."""
    if isinstance(t, StructType):
        return [(f.field_id, f.name, f.field_type, f.required) for f in t.fields]
    if isinstance(t, ListType):
        return [(t.element_id, "element", t.element_type, t.element_required)]
    if isinstance(t, MapType):
        return [(t.key_id, "key", t.key_type, True), (t.value_id, "value", t.value_type, t.value_required)]
    return []
