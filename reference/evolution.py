"""Schema and partition evolution: is replacing an old schema (spec) by a new one allowed?

Spec sections: "Schemas and Data Types / Schema Evolution" (type promotions per format
version, add/delete/rename/reorder, no regrouping, struct evolution and default values) and
"Partitioning / Partition Evolution" (stable partition field ids, v1 rules), with
"Partitioning" (equivalent specs and fields).

``schema_evolution_problems(old, new, format_version)`` and
``partition_evolution_problems(old, new, schema, format_version)`` list every rule the change
breaks; ``check_schema_evolution`` and ``check_partition_evolution`` raise the first.

Fields are matched by id, never by name. Decisions where the spec leaves room:

* making a required field optional is allowed (it loosens the schema; Java and PyIceberg
  allow it); making an optional field required is not (existing rows may hold nulls);
* the v1 partition evolution rules are "recommended" by the spec; this reference enforces
  them, because v1 partition field ids are positional;
* a promotion is judged against every partition spec given (the table's current and older
  specs: files written under an older spec keep its partition values);
* a ``date`` identity source promoted to ``timestamp``/``timestamp_ns`` is refused: the
  partition value changes from days to microseconds (and its type from date to timestamp),
  and unlike bounds ("Length of bounds" table) the spec gives no rule to read an old partition
  tuple's days as a timestamp. It is also the promoted value of the old one, as ``34L`` is of
  ``34``, so the spec leaves room here; no vector pins it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Literal, Sequence

from .errors import SpecViolation
from .partitioning import PartitionSpec, bind_problems
from .schema import Schema, schema_problems
from .transforms import DayTransform, MonthTransform, Transform, VoidTransform, YearTransform
from .types import (
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    MapType,
    NestedField,
    StructType,
    TimestampNanoType,
    TimestampType,
    UnknownType,
)

CLAUSE_SCHEMA = "Schemas and Data Types / Schema Evolution"
CLAUSE_DEFAULTS = "Schemas and Data Types / Default values"
CLAUSE_PARTITION = "Partitioning / Partition Evolution"
CLAUSE_PARTITIONING = "Partitioning"

Role = Literal["field", "element", "key", "value"]


@dataclass(frozen=True)
class _Node:
    parent_id: int          # 0 for the schema's root struct
    role: Role
    name: str               # dotted path, for messages
    field_type: IcebergType
    required: bool
    field: NestedField | None


def _nodes(t: IcebergType, parent_id: int, path: str, out: dict[int, _Node]) -> None:
    def add(fid: int, role: Role, name: str, ft: IcebergType, req: bool, f: NestedField | None) -> None:
        full = f"{path}.{name}" if path else name
        out.setdefault(fid, _Node(parent_id, role, full, ft, req, f))
        _nodes(ft, fid, full, out)

    if isinstance(t, StructType):
        for f in t.fields:
            add(f.field_id, "field", f.name, f.field_type, f.required, f)
    elif isinstance(t, ListType):
        add(t.element_id, "element", "element", t.element_type, t.element_required, None)
    elif isinstance(t, MapType):
        add(t.key_id, "key", "key", t.key_type, True, None)
        add(t.value_id, "value", "value", t.value_type, t.value_required, None)


def _index(schema: Schema) -> dict[int, _Node]:
    out: dict[int, _Node] = {}
    _nodes(schema.struct, 0, "", out)
    return out


def _kind(t: IcebergType) -> str:
    if isinstance(t, StructType):
        return "struct"
    if isinstance(t, ListType):
        return "list"
    if isinstance(t, MapType):
        return "map"
    return "primitive"


def is_promotion(old: IcebergType, new: IcebergType, format_version: int) -> bool:
    """Whether primitive ``old`` may be promoted to ``new`` (Schema Evolution table)."""
    if old == new:
        return True
    if isinstance(old, IntegerType) and isinstance(new, LongType):
        return True
    if isinstance(old, FloatType) and isinstance(new, DoubleType):
        return True
    if isinstance(old, DecimalType) and isinstance(new, DecimalType):
        return new.scale == old.scale and new.precision > old.precision
    if format_version >= 3:
        if isinstance(old, UnknownType):
            return True
        if isinstance(old, DateType) and isinstance(new, (TimestampType, TimestampNanoType)):
            return True
    return False


def changes_partition_value(old: IcebergType, new: IcebergType, transform: Transform) -> bool:
    """Whether ``transform`` gives another value for a value of ``old`` read as promoted ``new``.

    int -> long, float -> double and decimal(P, S) -> decimal(P', S) keep the number, which
    every transform treats alike (Appendix B hashes int and long identically and a decimal by
    its unscaled value); unknown values are null, and void is always null. A ``date`` read as a
    ``timestamp`` or ``timestamp_ns`` is midnight of that day: year, month and day give the same
    value, bucket hashes microseconds from the epoch where it hashed days (2017-11-16 ->
    hashLong(17486), 2017-11-16T00:00:00 -> hashLong(1510790400000000)), and identity gives
    microseconds where it gave days (a decision: see the module docstring). A transform this
    reference does not know is assumed to change.
    """
    if old == new or isinstance(old, UnknownType) or isinstance(transform, VoidTransform):
        return False
    if isinstance(old, DateType) and isinstance(new, (TimestampType, TimestampNanoType)):
        return not isinstance(transform, (YearTransform, MonthTransform, DayTransform))
    return False


def schema_evolution_problems(old: Schema, new: Schema, format_version: int,
                              partition_specs: Sequence[PartitionSpec] = ()) -> list[SpecViolation]:
    """Every rule that replacing ``old`` by ``new`` breaks (``new`` is also validated).

    ``partition_specs`` are the table's partition specs: a promoted source field of one of
    them must not change the partition values its transform produces."""
    problems = list(schema_problems(new, format_version))
    a, b = _index(old), _index(new)
    for fid, n in b.items():
        o = a.get(fid)
        if o is None:
            if n.parent_id in a or n.parent_id == 0:
                problems.extend(_added_problems(fid, n, a, format_version))
            continue
        problems.extend(_kept_problems(fid, o, n, format_version))
    problems.extend(_partition_source_problems(a, b, partition_specs, format_version))
    return problems


def _partition_source_problems(a: dict[int, _Node], b: dict[int, _Node], specs: Sequence[PartitionSpec],
                               format_version: int) -> Iterator[SpecViolation]:
    for spec in specs:
        for pf in spec.fields:
            for sid in pf.source_ids:
                o, n = a.get(sid), b.get(sid)
                if o is None or n is None or _kind(o.field_type) != "primitive" \
                        or not is_promotion(o.field_type, n.field_type, format_version):
                    continue  # dropped, or a change refused as a type change already
                if changes_partition_value(o.field_type, n.field_type, pf.transform):
                    yield SpecViolation(
                        "evolution.partition-source-promoted",
                        f"field {o.name!r} ({sid}) is the source of partition field {pf.name!r} "
                        f"({pf.transform}, spec {spec.spec_id}): promoting {o.field_type} to "
                        f"{n.field_type} changes the value {pf.transform} produces", clause=CLAUSE_SCHEMA)


def _added_problems(fid: int, n: _Node, old: dict[int, _Node], format_version: int) -> Iterator[SpecViolation]:
    parent = old.get(n.parent_id)
    if n.role != "field":
        # a new element/key/value id inside a list or map that already existed
        assert parent is not None
        yield SpecViolation(
            "evolution.nested-id-changed",
            f"{n.name!r}: the {n.role} of {parent.name!r} has a new id {fid}; list element and "
            "map key/value ids cannot change", clause=CLAUSE_SCHEMA)
        return
    f = n.field
    assert f is not None
    if n.required:
        ok = (format_version >= 3 and f.has_initial_default and f.initial_default is not None
              and f.has_write_default and f.write_default is not None)
        if not ok:
            yield SpecViolation(
                "evolution.add-required-without-default",
                f"added required field {n.name!r} ({fid}) has no non-null initial-default and "
                "write-default" + ("" if format_version >= 3 else f" (defaults are v3; the table is "
                                                                  f"v{format_version})"),
                clause=CLAUSE_DEFAULTS)


def _kept_problems(fid: int, o: _Node, n: _Node, format_version: int) -> Iterator[SpecViolation]:
    if (o.parent_id, o.role) != (n.parent_id, n.role):
        yield SpecViolation(
            "evolution.field-moved",
            f"field {fid} moved from {o.name!r} to {n.name!r}: fields cannot change their parent",
            clause=CLAUSE_SCHEMA)
        return
    ko, kn = _kind(o.field_type), _kind(n.field_type)
    if ko != kn:
        if not (ko == "primitive" and isinstance(o.field_type, UnknownType) and format_version >= 3):
            yield SpecViolation(
                "evolution.type-change",
                f"field {o.name!r} ({fid}): {o.field_type} cannot become {n.field_type}",
                clause=CLAUSE_SCHEMA)
    elif ko == "primitive" and not is_promotion(o.field_type, n.field_type, format_version):
        yield SpecViolation(
            "evolution.type-change",
            f"field {o.name!r} ({fid}): {o.field_type} cannot be promoted to {n.field_type} in "
            f"format v{format_version}", clause=CLAUSE_SCHEMA)
    if n.required and not o.required:
        yield SpecViolation(
            "evolution.required-tightened",
            f"field {n.name!r} ({fid}) was optional and is now required", clause=CLAUSE_SCHEMA)
    if o.field is not None and n.field is not None:
        fo, fn = o.field, n.field
        if (fo.has_initial_default, fo.initial_default) != (fn.has_initial_default, fn.initial_default) \
                and not (fo.initial_default is None and fn.initial_default is None):
            yield SpecViolation(
                "evolution.initial-default-changed",
                f"field {n.name!r} ({fid}): initial-default {fo.initial_default!r} became "
                f"{fn.initial_default!r}; it is set when the field is added and cannot change",
                clause=CLAUSE_DEFAULTS)


def field_index(schema: Schema) -> dict[int, tuple[str, IcebergType]]:
    """Every field id of ``schema`` (list elements and map keys and values too) with its dotted
    name and type."""
    return {fid: (n.name, n.field_type) for fid, n in _index(schema).items()}


def replaced(old: tuple[str, IcebergType], new: tuple[str, IcebergType], format_version: int) -> bool:
    """Whether a field id given as ``new`` (name, type) is another column than it was as ``old``:
    another name, or a type that is not the old one or its promotion."""
    (old_name, old_type), (new_name, new_type) = old, new
    return old_name != new_name or not _same_or_promoted(old_type, new_type, format_version)


def _same_or_promoted(old: IcebergType, new: IcebergType, format_version: int) -> bool:
    ko, kn = _kind(old), _kind(new)
    if ko != kn:
        return ko == "primitive" and isinstance(old, UnknownType) and format_version >= 3
    return ko != "primitive" or is_promotion(old, new, format_version)


def schema_history_problems(schemas: Sequence[Schema], format_version: int,
                            live: set[int] | None = None) -> list[tuple[int, SpecViolation]]:
    """``evolution.type-change`` across a table's schemas, oldest first: each field's type in a
    schema against its type in the last earlier schema that has the field id (a field absent
    from the schemas between is compared too). Pairs (index in ``schemas``, violation).

    A field id given to a column of another name is reported always. Under the same name, the
    change is reported when data written with the old type may still be read: ``live`` are the
    schema ids of the snapshots the table's refs reach (None: unknown, all are judged). Iceberg
    Java's replace (REPLACE TABLE) keeps the ids of same-named columns whatever their new types,
    and replaces the table's data: no snapshot written with the old type is reached."""
    out: list[tuple[int, SpecViolation]] = []
    last: dict[int, tuple[_Node, set[int | None]]] = {}
    for i, schema in enumerate(schemas):
        for fid, n in _index(schema).items():
            o, written = last.get(fid, (None, set()))
            if o is not None and not _same_or_promoted(o.field_type, n.field_type, format_version):
                if o.name != n.name or live is None or written & live:
                    out.append((i, SpecViolation(
                        "evolution.type-change",
                        f"field id {fid} is {o.name!r} ({o.field_type}) in an earlier schema and {n.name!r} "
                        f"({n.field_type}) in schema {schema.schema_id}: not the same type nor a promotion in "
                        f"format v{format_version}", clause=CLAUSE_SCHEMA)))
                written = set()
            elif o is None:
                written = set()
            last[fid] = (n, written | {schema.schema_id})
    return out


def check_schema_evolution(old: Schema, new: Schema, format_version: int,
                           partition_specs: Sequence[PartitionSpec] = ()) -> None:
    problems = schema_evolution_problems(old, new, format_version, partition_specs)
    if problems:
        raise problems[0]


# --- partition specs ---------------------------------------------------------------------

def _same_field(a_sources: tuple[int, ...], a_transform: str, b_sources: tuple[int, ...], b_transform: str) -> bool:
    return a_sources == b_sources and a_transform == b_transform


def partition_evolution_problems(old: PartitionSpec, new: PartitionSpec, schema: Schema,
                                 format_version: int) -> list[SpecViolation]:
    """Every rule that replacing spec ``old`` by ``new`` (bound to ``schema``) breaks."""
    problems = list(bind_problems(new, schema))
    key = [(f.source_ids, str(f.transform), f.name) for f in old.fields]
    if key == [(f.source_ids, str(f.transform), f.name) for f in new.fields] and old.spec_id != new.spec_id:
        problems.append(SpecViolation(
            "evolution.partition-equivalent-spec",
            f"spec {new.spec_id} is equivalent to spec {old.spec_id}: no new spec may be created",
            clause=CLAUSE_PARTITIONING))
    elif old.spec_id == new.spec_id and key != [(f.source_ids, str(f.transform), f.name) for f in new.fields]:
        problems.append(SpecViolation(
            "evolution.partition-spec-id-reused",
            f"the changed spec keeps spec id {old.spec_id}; a changed spec has a new spec id",
            clause=CLAUSE_PARTITION))
    if format_version == 1:
        problems.extend(v1_partition_problems(old, new))
        return problems
    by_id = {f.field_id: f for f in old.fields}
    for f in new.fields:
        o = by_id.get(f.field_id)
        if o is not None and not _same_field(o.source_ids, str(o.transform), f.source_ids, str(f.transform)):
            problems.append(SpecViolation(
                "evolution.partition-field-id-reused",
                f"partition field id {f.field_id} was {o.transform}({list(o.source_ids)}) and is now "
                f"{f.transform}({list(f.source_ids)}); partition field ids are never reused",
                clause=CLAUSE_PARTITION))
            continue
        for e in old.fields:
            if _same_field(e.source_ids, str(e.transform), f.source_ids, str(f.transform)) \
                    and e.field_id != f.field_id:
                problems.append(SpecViolation(
                    "evolution.partition-field-id-not-reused",
                    f"partition field {f.name!r} equals field {e.field_id} of the old spec but has id "
                    f"{f.field_id}; the id of an equivalent field is reused", clause=CLAUSE_PARTITIONING))
    return problems


def v1_partition_problems(old: PartitionSpec, new: PartitionSpec) -> Iterator[SpecViolation]:
    """The v1 partition evolution rules broken by replacing spec ``old`` by ``new``: fields keep
    their position, a removed field becomes ``void``, new fields go at the end."""
    if len(new.fields) < len(old.fields):
        yield SpecViolation(
            "evolution.partition-v1-field-dropped",
            f"v1: the new spec has {len(new.fields)} fields, the old {len(old.fields)}; in v1 a field "
            "is replaced by void, not dropped", clause=CLAUSE_PARTITION)
        return
    for i, (o, n) in enumerate(zip(old.fields, new.fields)):
        same_source = o.source_ids == n.source_ids
        if same_source and (str(o.transform) == str(n.transform) or str(n.transform) == "void"):
            continue
        yield SpecViolation(
            "evolution.partition-v1-field-changed",
            f"v1: partition field {i} was {o.transform}({list(o.source_ids)}) and is now "
            f"{n.transform}({list(n.source_ids)}); v1 fields keep their position, only void may "
            "replace a transform, new fields go at the end", clause=CLAUSE_PARTITION)


def check_partition_evolution(old: PartitionSpec, new: PartitionSpec, schema: Schema,
                              format_version: int) -> None:
    problems = partition_evolution_problems(old, new, schema, format_version)
    if problems:
        raise problems[0]
