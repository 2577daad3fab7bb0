"""Schemas: a struct with a schema id and identifier fields, its JSON form and its rules.

Spec sections: "Schemas and Data Types" (Nested Types, Primitive Types, Default values,
Identifier Field IDs, Reserved Field IDs) and "Appendix C: JSON serialization / Schemas".

``parse_schema`` reads the JSON object, ``schema_to_json`` writes it, ``schema_problems``
lists every rule a schema breaks for a table of a given format version and
``validate_schema`` raises the first. Walking a schema is done in one place, :func:`walk` (the
kit's one schema visitor), which every other module uses to find a field, its path, the ids
and steps that reach it, and what contains it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Literal, NamedTuple

from .errors import SpecViolation
from .types import (
    JSON,
    DoubleType,
    FloatType,
    GeographyType,
    GeometryType,
    IcebergType,
    ListType,
    MapType,
    NestedField,
    StructType,
    UnknownType,
    VariantType,
    field_to_json,
    parse_type,
)
from .values import from_json

CLAUSE_SCHEMA_JSON = "Appendix C: JSON serialization / Schemas"
CLAUSE_NESTED = "Schemas and Data Types / Nested Types"
CLAUSE_PRIMITIVES = "Schemas and Data Types / Primitive Types"
CLAUSE_DEFAULTS = "Schemas and Data Types / Default values"
CLAUSE_IDENTIFIER = "Schemas and Data Types / Identifier Field IDs"
CLAUSE_RESERVED = "Schemas and Data Types / Reserved Field IDs"

#: Field ids above this are reserved for metadata columns (``Integer.MAX_VALUE - 200``).
MAX_USER_FIELD_ID = 2147483447

ParentKind = Literal["struct", "list", "map"]


@dataclass(frozen=True)
class Schema:
    """A table schema: its struct, ``schema-id`` (``None`` when absent) and identifier fields."""

    struct: StructType
    schema_id: int | None = None
    identifier_field_ids: tuple[int, ...] = ()

    @property
    def fields(self) -> tuple[NestedField, ...]:
        return self.struct.fields


#: how a field is reached from its parent: the position of a struct field, or a list's
#: element, a map's key or value (position 0)
Step = tuple[Literal["struct", "list", "key", "value"], int]


class IndexedField(NamedTuple):
    """One field of a schema, as :func:`walk` (the kit's one schema visitor) finds it.

    ``path`` is the names from the root (``("location", "lat")``; list elements are named
    ``element``, map keys and values ``key`` and ``value``). ``field`` is the struct field,
    or ``None`` for a list element or map key/value. ``parent`` says what contains the field.
    ``ids`` are the field ids from the root to the field (its own last); ``steps`` how it is
    reached from the root, one :data:`Step` per level.
    """

    path: tuple[str, ...]
    field_type: IcebergType
    parent: ParentKind
    field: NestedField | None
    required: bool
    in_list_or_map: bool          # some ancestor (or the parent) is a list or a map
    optional_ancestor: bool       # some enclosing struct field is optional
    ids: tuple[int, ...] = ()
    steps: tuple[Step, ...] = ()

    @property
    def name(self) -> str:
        return ".".join(self.path)

    @property
    def through_structs(self) -> bool:
        """Reached from the root through struct fields only (not inside a list or a map)."""
        return not self.in_list_or_map


def _walk(t: IcebergType, path: tuple[str, ...], in_lm: bool, opt_anc: bool, ids: tuple[int, ...],
          steps: tuple[Step, ...]) -> Iterator[tuple[int, IndexedField]]:
    if isinstance(t, StructType):
        for i, f in enumerate(t.fields):
            p, fi, st = (*path, f.name), (*ids, f.field_id), (*steps, ("struct", i))
            yield f.field_id, IndexedField(p, f.field_type, "struct", f, f.required, in_lm, opt_anc, fi, st)
            yield from _walk(f.field_type, p, in_lm, opt_anc or not f.required, fi, st)
    elif isinstance(t, ListType):
        p, fi, st = (*path, "element"), (*ids, t.element_id), (*steps, ("list", 0))
        yield t.element_id, IndexedField(p, t.element_type, "list", None, t.element_required, True, opt_anc, fi, st)
        yield from _walk(t.element_type, p, True, opt_anc or not t.element_required, fi, st)
    elif isinstance(t, MapType):
        pk, pv = (*path, "key"), (*path, "value")
        ik, iv = (*ids, t.key_id), (*ids, t.value_id)
        sk: tuple[Step, ...] = (*steps, ("key", 0))
        sv: tuple[Step, ...] = (*steps, ("value", 0))
        yield t.key_id, IndexedField(pk, t.key_type, "map", None, True, True, opt_anc, ik, sk)
        yield from _walk(t.key_type, pk, True, opt_anc, ik, sk)
        yield t.value_id, IndexedField(pv, t.value_type, "map", None, t.value_required, True, opt_anc, iv, sv)
        yield from _walk(t.value_type, pv, True, opt_anc or not t.value_required, iv, sv)


def walk(schema: Schema | StructType) -> Iterator[tuple[int, IndexedField]]:
    """Every (id, field) of a schema, depth first (a field before what it contains), duplicates
    included: the kit's one schema visitor."""
    struct = schema.struct if isinstance(schema, Schema) else schema
    return _walk(struct, (), False, False, (), ())


def find_field(schema: Schema | StructType, key: int | str) -> IndexedField | None:
    """A field by id, or by its dotted name (``"location.lat"``); ``None`` if absent."""
    for fid, info in walk(schema):
        if (fid == key) if isinstance(key, int) else (info.name == key):
            return info
    return None


# --- JSON --------------------------------------------------------------------------------

#: Deepest JSON nesting a schema may have (about three JSON levels per nested type); deeper
#: input is refused before the recursive type parser could exhaust the interpreter stack.
MAX_JSON_DEPTH = 300


def json_depth(obj: JSON) -> int:
    """Nesting depth of a JSON value, computed without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return deepest


def parse_schema(obj: JSON, *, path: str = "") -> Schema:
    """A schema from its Appendix C JSON object (a struct plus ``schema-id`` and
    ``identifier-field-ids``). Only the JSON shape and the types are checked here; see
    :func:`validate_schema` for the rules of a table's schema."""
    if not isinstance(obj, dict):
        raise SpecViolation("schema.json-shape", f"a schema is a JSON object, got {obj!r}",
                            clause=CLAUSE_SCHEMA_JSON, where=path)
    if json_depth(obj) > MAX_JSON_DEPTH:
        raise SpecViolation("schema.json-shape", f"the schema JSON nests deeper than {MAX_JSON_DEPTH} levels",
                            clause=CLAUSE_SCHEMA_JSON, where=path)
    if obj.get("type") != "struct":
        raise SpecViolation("schema.json-shape",
                            f"a schema is a struct: 'type' must be \"struct\", got {obj.get('type')!r}",
                            clause=CLAUSE_SCHEMA_JSON, where=path)
    struct = parse_type({"type": "struct", "fields": obj.get("fields")} if "fields" in obj
                        else {"type": "struct"}, path=path)
    assert isinstance(struct, StructType)
    schema_id = obj.get("schema-id")
    if schema_id is not None and (isinstance(schema_id, bool) or not isinstance(schema_id, int)):
        raise SpecViolation("schema.json-shape", f"'schema-id' must be a JSON int, got {schema_id!r}",
                            clause=CLAUSE_SCHEMA_JSON, where=f"{path}/schema-id")
    ids = obj.get("identifier-field-ids", [])
    if not isinstance(ids, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
        raise SpecViolation("schema.json-shape",
                            f"'identifier-field-ids' must be a JSON list of ints, got {ids!r}",
                            clause=CLAUSE_SCHEMA_JSON, where=f"{path}/identifier-field-ids")
    return Schema(struct, schema_id, tuple(ids))


def schema_to_json(schema: Schema) -> dict[str, Any]:
    """The Appendix C JSON object; ``schema-id`` when known, ``identifier-field-ids`` when any."""
    out: dict[str, Any] = {"type": "struct"}
    if schema.schema_id is not None:
        out["schema-id"] = schema.schema_id
    if schema.identifier_field_ids:
        out["identifier-field-ids"] = list(schema.identifier_field_ids)
    out["fields"] = [field_to_json(f) for f in schema.struct.fields]
    return out


# --- rules -------------------------------------------------------------------------------

def _type_problems(t: IcebergType, where: str, format_version: int) -> Iterator[SpecViolation]:
    """v3-only types used in v1/v2 (a type's own parameters are checked by parse_type)."""
    if t.added_in > format_version:
        yield SpecViolation(
            "schema.type-version",
            f"{where}: type {t} is added in format v{t.added_in}, the table is v{format_version}",
            clause=CLAUSE_PRIMITIVES,
        )
    if isinstance(t, StructType):
        for f in t.fields:
            yield from _type_problems(f.field_type, f"{where}.{f.name}" if where else f.name, format_version)
    elif isinstance(t, ListType):
        yield from _type_problems(t.element_type, f"{where}.element", format_version)
    elif isinstance(t, MapType):
        yield from _type_problems(t.key_type, f"{where}.key", format_version)
        yield from _type_problems(t.value_type, f"{where}.value", format_version)


_NULL_DEFAULT_ONLY = (UnknownType, VariantType, GeometryType, GeographyType)


def _default_problems(info: IndexedField, format_version: int) -> Iterator[SpecViolation]:
    f = info.field
    if f is None:
        return
    for key, has, value in (("initial-default", f.has_initial_default, f.initial_default),
                            ("write-default", f.has_write_default, f.write_default)):
        if not has:
            continue
        if format_version < 3:
            yield SpecViolation(
                "schema.default-version",
                f"field {info.name!r}: {key} is a v3 feature, the table is v{format_version}",
                clause=CLAUSE_DEFAULTS,
            )
            continue
        if value is None:
            continue
        if isinstance(f.field_type, _NULL_DEFAULT_ONLY):
            yield SpecViolation(
                "schema.default-not-null",
                f"field {info.name!r}: {key} {value!r} is not null; a {f.field_type} column "
                "defaults to null",
                clause=CLAUSE_DEFAULTS,
            )
            continue
        if isinstance(f.field_type, StructType):
            if value != {}:
                yield SpecViolation(
                    "schema.default-value",
                    f"field {info.name!r}: {key} of a struct is null or {{}} (sub-field defaults "
                    f"live in the sub-fields), got {value!r}",
                    clause=CLAUSE_DEFAULTS,
                )
            continue
        try:
            from_json(f.field_type, value)
        except SpecViolation as e:
            yield SpecViolation(
                "schema.default-value",
                f"field {info.name!r}: {key} {value!r} is not a {f.field_type} value: {e.detail}",
                clause=CLAUSE_DEFAULTS,
            )


def _identifier_problems(schema: Schema, index: dict[int, IndexedField]) -> Iterator[SpecViolation]:
    seen: set[int] = set()
    for fid in schema.identifier_field_ids:
        if fid in seen:
            yield SpecViolation("schema.identifier-field-unknown",
                                f"identifier field id {fid} is listed twice", clause=CLAUSE_IDENTIFIER)
        seen.add(fid)
        info = index.get(fid)
        if info is None:
            yield SpecViolation("schema.identifier-field-unknown",
                                f"identifier field id {fid} is not a field of the schema",
                                clause=CLAUSE_IDENTIFIER)
            continue
        if info.in_list_or_map:
            yield SpecViolation(
                "schema.identifier-field-nested",
                f"identifier field {info.name!r} ({fid}) is inside a list or map", clause=CLAUSE_IDENTIFIER)
        elif not info.field_type.is_primitive or isinstance(info.field_type, VariantType):
            yield SpecViolation(
                "schema.identifier-field-type",
                f"identifier field {info.name!r} ({fid}) is {info.field_type}, not a primitive",
                clause=CLAUSE_IDENTIFIER)
        elif isinstance(info.field_type, (FloatType, DoubleType)):
            yield SpecViolation(
                "schema.identifier-field-type",
                f"identifier field {info.name!r} ({fid}) is {info.field_type}; float and double "
                "cannot identify rows", clause=CLAUSE_IDENTIFIER)
        elif not info.required:
            yield SpecViolation(
                "schema.identifier-field-optional",
                f"identifier field {info.name!r} ({fid}) is optional", clause=CLAUSE_IDENTIFIER)
        elif info.optional_ancestor:
            yield SpecViolation(
                "schema.identifier-field-optional-parent",
                f"identifier field {info.name!r} ({fid}) is nested in an optional struct",
                clause=CLAUSE_IDENTIFIER)


def schema_problems(schema: Schema, format_version: int) -> list[SpecViolation]:
    """Every rule the schema breaks for a table of ``format_version`` (1, 2 or 3)."""
    problems: list[SpecViolation] = []
    if format_version >= 2 and schema.schema_id is None:
        problems.append(SpecViolation(
            "schema.schema-id-missing", f"'schema-id' is required in format v{format_version}",
            clause=CLAUSE_SCHEMA_JSON))
    # ids unique across the whole schema
    index: dict[int, IndexedField] = {}
    for fid, info in walk(schema):
        if fid in index:
            problems.append(SpecViolation(
                "schema.duplicate-field-id",
                f"field id {fid} is used by both {index[fid].name!r} and {info.name!r}",
                clause=CLAUSE_NESTED))
        else:
            index[fid] = info
        if fid > MAX_USER_FIELD_ID:
            problems.append(SpecViolation(
                "schema.reserved-field-id",
                f"field {info.name!r}: id {fid} is above {MAX_USER_FIELD_ID}, reserved for "
                "metadata columns", clause=CLAUSE_RESERVED))
    # names unique within each struct
    for struct_path, struct in _structs(schema.struct, ()):
        names: set[str] = set()
        for f in struct.fields:
            if f.name in names:
                where = ".".join(struct_path) or "the schema"
                problems.append(SpecViolation(
                    "schema.duplicate-name", f"name {f.name!r} is used twice in {where}",
                    clause=CLAUSE_NESTED))
            names.add(f.name)
    problems.extend(_type_problems(schema.struct, "", format_version))
    for fid, info in walk(schema):
        if isinstance(info.field_type, UnknownType) and info.required and format_version >= 3:
            what = "a map key (keys are required)" if info.path[-1:] == ("key",) and info.field is None \
                else "required"
            problems.append(SpecViolation(
                "schema.unknown-required",
                f"{info.name!r} ({fid}) has type unknown and is {what}; unknown must be optional",
                clause=CLAUSE_PRIMITIVES))
        problems.extend(_default_problems(info, format_version))
    problems.extend(_identifier_problems(schema, index))
    return problems


def _structs(t: IcebergType, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], StructType]]:
    if isinstance(t, StructType):
        yield path, t
        for f in t.fields:
            yield from _structs(f.field_type, (*path, f.name))
    elif isinstance(t, ListType):
        yield from _structs(t.element_type, (*path, "element"))
    elif isinstance(t, MapType):
        yield from _structs(t.key_type, (*path, "key"))
        yield from _structs(t.value_type, (*path, "value"))


def validate_schema(schema: Schema, format_version: int) -> None:
    """Raise the first rule the schema breaks (see :func:`schema_problems`)."""
    problems = schema_problems(schema, format_version)
    if problems:
        raise problems[0]


def read_schema(obj: JSON, format_version: int) -> Schema:
    """Parse and validate a schema for a table of ``format_version``."""
    schema = parse_schema(obj)
    validate_schema(schema, format_version)
    return schema
