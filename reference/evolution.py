"""Schema and partition evolution: is replacing an old schema (spec) by a new one allowed?

Spec sections: "Schemas and Data Types / Schema Evolution" (type promotions per format
version, add/delete/rename/reorder, no regrouping, struct evolution and default values) and
"Partitioning / Partition Evolution" (stable partition field ids, v1 rules), with
"Partitioning" (equivalent specs and fields).

``schema_evolution_problems(old, new, format_version)`` and
``partition_evolution_problems(old, new, schema, format_version)`` list every rule the change
breaks; ``check_schema_evolution`` and ``check_partition_evolution`` raise the first.
``schema_history_problems(schemas, format_version)`` and
``partition_history_problems(specs, format_version)`` judge the schemas (specs) a table's
metadata lists, each against the ones added before it (the table checker's metadata unit).

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
from typing import Collection, Iterator, Literal, Sequence

from .errors import SpecViolation
from .partitioning import V1_FIRST_FIELD_ID, PartitionField, PartitionSpec, bind_problems
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


def _type_allowed(old: IcebergType, new: IcebergType, format_version: int) -> bool:
    """Whether a field of type ``old`` may keep its id with type ``new``: a nested type stays the
    same kind (its children are judged by their own ids), a primitive is promoted, and in v3
    ``unknown`` becomes any type."""
    ko, kn = _kind(old), _kind(new)
    if ko != kn:
        return isinstance(old, UnknownType) and format_version >= 3
    return ko != "primitive" or is_promotion(old, new, format_version)


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
    promoted = {fid for fid, n in b.items() if fid in a and _kind(n.field_type) == "primitive"
                and a[fid].field_type != n.field_type
                and is_promotion(a[fid].field_type, n.field_type, format_version)}
    if not promoted:  # kept, dropped, or a change refused as a type change already
        return
    for spec in specs:
        for pf in spec.fields:
            for sid in pf.source_ids:
                if sid not in promoted:
                    continue
                o, n = a[sid], b[sid]
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
    if not _type_allowed(o.field_type, n.field_type, format_version):
        change = (f"cannot be promoted to {n.field_type} in format v{format_version}"
                  if _kind(o.field_type) == _kind(n.field_type) else f"cannot become {n.field_type}")
        yield SpecViolation("evolution.type-change", f"field {o.name!r} ({fid}): {o.field_type} {change}",
                            clause=CLAUSE_SCHEMA)
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


def check_schema_evolution(old: Schema, new: Schema, format_version: int,
                           partition_specs: Sequence[PartitionSpec] = ()) -> None:
    problems = schema_evolution_problems(old, new, format_version, partition_specs)
    if problems:
        raise problems[0]


# --- the schemas of a table ----------------------------------------------------------------

def _leaf(n: _Node) -> str:
    """A node's own name: a struct field's name, else its role (element, key, value)."""
    return n.field.name if n.field is not None else n.role


def _same_place(o: _Node, n: _Node) -> bool:
    return (o.parent_id, o.role, _leaf(o)) == (n.parent_id, n.role, _leaf(n))


def schema_history_problems(schemas: Sequence[Schema], format_version: int,
                            partition_specs: Sequence[PartitionSpec] = (),
                            replaced: Collection[int] = ()) -> list[tuple[int, SpecViolation]]:
    """Every evolution rule a table's schemas break, each schema judged against the ones added
    before it (``schemas`` in the order they were added: the ``schemas`` list of the metadata);
    pairs (position in ``schemas``, problem). Each schema's own rules are not repeated here.

    A field is compared with its latest earlier occurrence, so a field that a schema leaves out
    and a later one lists again under its old name and parent (a rolled-back deletion; the spec
    allows rolling one back) is the same field. An id that comes back under another name or
    parent, or that keeps its place in the schema before but changes both name and type beyond a
    promotion, is another field under a used id: "Adding a new field assigns a new ID"
    (``evolution.field-id-reused``). A field dropped and re-added under its old name with a fresh
    id is a new field, and a field renamed under its id is the same field; both are allowed. An
    id reused for a field of the same name, type and place cannot be told from a restored one.

    ``partition_specs`` are the table's specs (see :func:`schema_evolution_problems`).
    ``replaced``: positions of schemas that replaced the table rather than evolved it (a
    ``REPLACE TABLE`` keeps the table's history and gives a column of the new schema the id of
    the current column of that name, whatever its type); such a schema is judged only for ids
    that come back under another name or parent.
    """
    out: list[tuple[int, SpecViolation]] = []
    latest: dict[int, _Node] = {}
    previous: dict[int, _Node] = {}
    for k, schema in enumerate(schemas):
        nodes = _index(schema)
        if k:
            problems = _history_step(latest, previous, nodes, format_version, partition_specs)
            out.extend((k, p) for p in problems if k not in replaced or p.rule == "evolution.field-id-reused")
        latest.update(nodes)
        previous = nodes
    return out


def _history_step(latest: dict[int, _Node], previous: dict[int, _Node], nodes: dict[int, _Node],
                  format_version: int, specs: Sequence[PartitionSpec]) -> Iterator[SpecViolation]:
    """The problems of one schema (``nodes``) after the schemas whose fields are ``latest``
    (each id's latest occurrence) and ``previous`` (the schema added just before)."""
    base: dict[int, _Node] = {}     # the fields this schema keeps, as they were
    for fid, n in nodes.items():
        o = latest.get(fid)
        if o is None:
            continue
        returned = fid not in previous
        if (returned and not _same_place(o, n)) or (
                not returned and n.role == "field" and _leaf(o) != _leaf(n)
                and not _type_allowed(o.field_type, n.field_type, format_version)):
            when = "a schema without it" if returned else "the schema before"
            yield SpecViolation(
                "evolution.field-id-reused",
                f"field id {fid} was {o.name!r} ({o.field_type}) and, after {when}, is {n.name!r} "
                f"({n.field_type}): a new field is assigned a new id, never one used before",
                clause=CLAUSE_SCHEMA)
            continue
        base[fid] = o
    for fid, n in nodes.items():
        o = base.get(fid)
        if o is not None:
            yield from _kept_problems(fid, o, n, format_version)
        elif fid not in latest and (n.parent_id == 0 or n.parent_id in base):
            yield from _added_problems(fid, n, base, format_version)
    yield from _partition_source_problems(base, nodes, specs, format_version)


# --- partition specs ---------------------------------------------------------------------

def _same_field(a_sources: tuple[int, ...], a_transform: str, b_sources: tuple[int, ...], b_transform: str) -> bool:
    return a_sources == b_sources and a_transform == b_transform


def _key(f: PartitionField) -> tuple[tuple[int, ...], str, str]:
    """What makes partition fields equivalent ("Partitioning": the same source column IDs,
    transform definition and partition name); the id is not part of it."""
    return f.source_ids, str(f.transform), f.name


def partition_evolution_problems(old: PartitionSpec, new: PartitionSpec, schema: Schema,
                                 format_version: int) -> list[SpecViolation]:
    """Every rule that replacing spec ``old`` by ``new`` (bound to ``schema``) breaks."""
    problems = list(bind_problems(new, schema))
    key = [_key(f) for f in old.fields]
    if key == [_key(f) for f in new.fields] and old.spec_id != new.spec_id:
        problems.append(_equivalent_spec(new, old))
    elif old.spec_id == new.spec_id and key != [_key(f) for f in new.fields]:
        problems.append(SpecViolation(
            "evolution.partition-spec-id-reused",
            f"the changed spec keeps spec id {old.spec_id}; a changed spec has a new spec id",
            clause=CLAUSE_PARTITION))
    if format_version == 1:
        problems.extend(_v1_problems(old, new))
        return problems
    by_id = {f.field_id: f for f in old.fields}
    for f in new.fields:
        o = by_id.get(f.field_id)
        if o is not None and not _same_field(o.source_ids, str(o.transform), f.source_ids, str(f.transform)):
            problems.append(_field_id_reused(f, o, old.spec_id))
            continue
        for e in old.fields:
            if _key(e) == _key(f) and e.field_id != f.field_id:
                problems.append(_field_id_not_reused(f, e, old.spec_id))
    return problems


def _equivalent_spec(new: PartitionSpec, old: PartitionSpec) -> SpecViolation:
    return SpecViolation("evolution.partition-equivalent-spec",
                         f"spec {new.spec_id} is equivalent to spec {old.spec_id}: no new spec may be created",
                         clause=CLAUSE_PARTITIONING)


def _field_id_reused(f: PartitionField, o: PartitionField, old_spec: int) -> SpecViolation:
    return SpecViolation("evolution.partition-field-id-reused",
                         f"partition field id {f.field_id} was {o.transform}({list(o.source_ids)}) in spec "
                         f"{old_spec} and is now {f.transform}({list(f.source_ids)}); partition field ids "
                         "are never reused", clause=CLAUSE_PARTITION)


def _field_id_not_reused(f: PartitionField, e: PartitionField, old_spec: int) -> SpecViolation:
    return SpecViolation("evolution.partition-field-id-not-reused",
                         f"partition field {f.name!r} equals field {e.field_id} of spec {old_spec} but has id "
                         f"{f.field_id}; the id of an equivalent field is reused", clause=CLAUSE_PARTITIONING)


def _v1_problems(old: PartitionSpec, new: PartitionSpec) -> Iterator[SpecViolation]:
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


# --- the partition specs of a table -----------------------------------------------------------

def _positional(spec: PartitionSpec) -> bool:
    """Whether the spec's field ids are its positions from 1000, as v1 assigned them."""
    return all(f.field_id == V1_FIRST_FIELD_ID + i for i, f in enumerate(spec.fields))


def _same_partition_field(a: PartitionField, b: PartitionField) -> bool:
    """Whether one partition field id may name both: the same source columns and transform, or
    ``void`` in place of the field it replaces (v1 partition evolution keeps the id)."""
    return a.source_ids == b.source_ids and (str(a.transform) == str(b.transform)
                                             or "void" in (str(a.transform), str(b.transform)))


#: the earlier fields of a table's specs (each with its spec), kept once per distinct meaning
_Seen = dict[tuple[object, ...], tuple[PartitionSpec, PartitionField]]


def partition_history_problems(specs: Sequence[PartitionSpec], format_version: int,
                               v1_spec_ids: Collection[int] = ()
                               ) -> list[tuple[int, int | None, SpecViolation]]:
    """Every evolution rule a table's partition specs break, each spec judged against the ones
    added before it (``specs`` in the order they were added: the ``partition-specs`` list);
    triples (position in ``specs``, position of the field or None for the whole spec, problem).

    * a spec equivalent to an earlier one under another spec id ("Writers must not create a new
      partition spec if there already exists a compatible partition spec");
    * v2 and later ("In v2 table metadata, it is unique across all partition specs"): a field id
      an earlier spec gave to other source columns or another transform
      (``evolution.partition-field-id-reused``; ``void`` in place of the field it replaces keeps
      its id, as v1 evolution writes it), and a field equivalent to an earlier one under an id
      none of those has (``evolution.partition-field-id-not-reused``);
    * v1: the recommended v1 rules, each spec against the one before it.

    ``v1_spec_ids`` are the specs a table upgraded from v1 had while it was v1 (its earlier
    metadata files tell). Partition field ids were not tracked across v1 specs, so the v2 id
    rules compare no two of them; nor does the not-reused rule compare two specs whose ids are
    their positions from 1000 (v1 re-adds a dropped field at the end, under the next position).
    """
    out: list[tuple[int, int | None, SpecViolation]] = []
    first_with: dict[tuple[tuple[tuple[int, ...], str, str], ...], PartitionSpec] = {}
    by_id: dict[int, _Seen] = {}
    by_key: dict[tuple[tuple[int, ...], str, str], _Seen] = {}
    previous: PartitionSpec | None = None
    for k, spec in enumerate(specs):
        first = first_with.setdefault(tuple(_key(f) for f in spec.fields), spec)
        if first.spec_id != spec.spec_id:
            out.append((k, None, _equivalent_spec(spec, first)))
        if format_version == 1:
            if previous is not None:
                out.extend((k, None, p) for p in _v1_problems(previous, spec))
        else:
            for j, f in enumerate(spec.fields):
                out.extend((k, j, p) for p in _field_history_problems(spec, f, by_id, by_key, v1_spec_ids))
        for f in spec.fields:
            early, positional = spec.spec_id in v1_spec_ids, _positional(spec)
            by_id.setdefault(f.field_id, {}).setdefault((f.source_ids, str(f.transform), early), (spec, f))
            by_key.setdefault(_key(f), {}).setdefault((f.field_id, early, positional), (spec, f))
        previous = spec
    return out


def _field_history_problems(spec: PartitionSpec, f: PartitionField, by_id: dict[int, _Seen],
                            by_key: dict[tuple[tuple[int, ...], str, str], _Seen],
                            v1_spec_ids: Collection[int]) -> Iterator[SpecViolation]:
    early = spec.spec_id in v1_spec_ids
    for e, g in by_id.get(f.field_id, {}).values():
        if not (early and e.spec_id in v1_spec_ids) and not _same_partition_field(g, f):
            yield _field_id_reused(f, g, e.spec_id)
            return
    if str(f.transform) == "void":
        return
    equivalent = list(by_key.get(_key(f), {}).values())
    if any(g.field_id == f.field_id for _, g in equivalent):
        return
    positional = _positional(spec)
    for e, g in equivalent:
        if not (early and e.spec_id in v1_spec_ids) and not (positional and _positional(e)):
            yield _field_id_not_reused(f, g, e.spec_id)
            return
