"""Partition specs: their JSON form, binding to a schema and the partition tuple type.

Spec sections: "Partitioning" (source columns, partition field ids, names),
"Partition Transforms", "Partition Evolution" (v1 field ids from 1000) and
"Appendix C: JSON serialization / Partition Specs" (``source-id``/``source-ids``,
``field-id`` per format version).

``parse_partition_spec`` reads the object form (``spec-id`` and ``fields``),
``parse_partition_fields`` the bare field list of v1 metadata and manifests;
``partition_spec_to_json`` writes the object form. ``bind_problems`` lists the rules a spec
breaks against a schema, ``validate_partition_spec`` raises the first, and
``partition_type`` gives the struct of partition values.

Decisions where the spec leaves room:

* a partition name may not be the (dotted) name of a schema column unless the field is the
  identity (or, after a v1 drop, the void) of that very column. The spec text has no such
  sentence; Java's ``PartitionSpec.Builder`` and PyIceberg's ``validate_partition_name`` refuse
  such names, because a partition column would shadow a data column of the same name;
* partition names are unique within a spec (they name the fields of the partition struct);
* ``source-ids`` is accepted in any format version (writers "should" omit it before v3);
  a multi-argument field needs a multi-argument transform, and the spec defines none yet;
* a field with an unknown transform is kept and written back unchanged (v3 readers must read
  such specs); its source is still checked to exist and be primitive, outside lists and maps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from .errors import SpecViolation
from .schema import IndexedField, Schema, walk
from .transforms import (
    IdentityTransform, Transform, UnknownTransform, VoidTransform, parse_transform,
)
from .types import JSON, NestedField, StructType

CLAUSE = "Partitioning"
CLAUSE_JSON = "Appendix C: JSON serialization / Partition Specs"
CLAUSE_EVOLUTION = "Partitioning / Partition Evolution"

#: v1 partition field ids were assigned sequentially from 1000 by the reference implementation
V1_FIRST_FIELD_ID = 1000


@dataclass(frozen=True)
class PartitionField:
    """One partition field. ``field_id_given`` is False when a v1 spec omitted ``field-id``."""

    source_ids: tuple[int, ...]
    field_id: int
    name: str
    transform: Transform
    field_id_given: bool = True

    @property
    def source_id(self) -> int:
        return self.source_ids[0]


@dataclass(frozen=True)
class PartitionSpec:
    spec_id: int
    fields: tuple[PartitionField, ...]


def _shape(msg: str, where: str) -> SpecViolation:
    return SpecViolation("partition.json-shape", msg, clause=CLAUSE_JSON, where=where)


def _int(obj: dict[str, Any], key: str, where: str) -> int:
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise _shape(f"{key!r} must be a JSON int, got {v!r}", where)
    return v


def _parse_field(obj: JSON, index: int, format_version: int, where: str) -> PartitionField:
    if not isinstance(obj, dict):
        raise _shape(f"a partition field is a JSON object, got {obj!r}", where)
    has_single, has_multi = "source-id" in obj, "source-ids" in obj
    if not has_single and not has_multi:
        raise _shape("a partition field needs 'source-id'"
                     + (" or 'source-ids'" if format_version >= 3 else ""), where)
    if has_multi:
        ids = obj["source-ids"]
        if (not isinstance(ids, list) or not ids
                or any(isinstance(i, bool) or not isinstance(i, int) for i in ids)):
            raise _shape(f"'source-ids' must be a non-empty JSON list of ints, got {ids!r}", where)
        source_ids = tuple(ids)
        if has_single and _int(obj, "source-id", where) != source_ids[0]:
            raise _shape("'source-id' and 'source-ids' disagree", where)
    else:
        source_ids = (_int(obj, "source-id", where),)
    if "field-id" in obj:
        field_id, given = _int(obj, "field-id", where), True
    elif format_version >= 2:
        raise SpecViolation("partition.field-id-missing",
                            f"'field-id' is required in format v{format_version}",
                            clause=CLAUSE_JSON, where=where)
    else:
        field_id, given = V1_FIRST_FIELD_ID + index, False
    for key in ("name", "transform"):
        if key not in obj:
            raise _shape(f"a partition field needs {key!r}", where)
        if not isinstance(obj[key], str):
            raise _shape(f"{key!r} must be a JSON string, got {obj[key]!r}", where)
    try:
        transform = parse_transform(obj["transform"])
    except SpecViolation as e:
        raise e.at(f"{where}/transform") from None
    return PartitionField(source_ids, field_id, obj["name"], transform, given)


def parse_partition_fields(obj: JSON, format_version: int, *, path: str = "") -> tuple[PartitionField, ...]:
    """The bare list of partition fields (v1 ``partition-spec``, manifest metadata)."""
    if not isinstance(obj, list):
        raise _shape(f"partition fields are a JSON list, got {obj!r}", path)
    return tuple(_parse_field(f, i, format_version, f"{path}/{i}") for i, f in enumerate(obj))


def parse_partition_spec(obj: JSON, format_version: int, *, path: str = "") -> PartitionSpec:
    """A partition spec from its JSON object form (``spec-id`` and ``fields``)."""
    if not isinstance(obj, dict):
        raise _shape(f"a partition spec is a JSON object, got {obj!r}", path)
    for key in ("spec-id", "fields"):
        if key not in obj:
            raise _shape(f"a partition spec needs {key!r}", path)
    spec_id = _int(obj, "spec-id", path)
    return PartitionSpec(spec_id, parse_partition_fields(obj["fields"], format_version,
                                                         path=f"{path}/fields"))


def partition_field_to_json(f: PartitionField) -> dict[str, Any]:
    """A partition field as written: ``source-ids`` only for a multi-argument transform."""
    out: dict[str, Any] = {}
    if len(f.source_ids) == 1:
        out["source-id"] = f.source_ids[0]
    else:
        out["source-ids"] = list(f.source_ids)
    out.update({"field-id": f.field_id, "name": f.name, "transform": str(f.transform)})
    return out


def partition_spec_to_json(spec: PartitionSpec) -> dict[str, Any]:
    return {"spec-id": spec.spec_id, "fields": [partition_field_to_json(f) for f in spec.fields]}


# --- binding to a schema -----------------------------------------------------------------

def bind_problems(spec: PartitionSpec, schema: Schema) -> list[SpecViolation]:
    """Every rule the spec breaks against ``schema``."""
    problems: list[SpecViolation] = []
    index: dict[int, IndexedField] = {}
    for fid, info in walk(schema):
        index.setdefault(fid, info)
    # top-level and nested column names, dotted, as partition names could shadow them
    column_names = {info.name: fid for fid, info in index.items() if info.field is not None}
    ids: set[int] = set()
    names: set[str] = set()
    for i, pf in enumerate(spec.fields):
        where = f"partition field {pf.name!r}"
        if pf.field_id in ids:
            problems.append(SpecViolation("partition.duplicate-field-id",
                                          f"{where}: field id {pf.field_id} is used twice in the spec",
                                          clause=CLAUSE))
        ids.add(pf.field_id)
        if pf.name in names:
            problems.append(SpecViolation("partition.duplicate-name",
                                          f"{where}: the name is used twice in the spec", clause=CLAUSE))
        names.add(pf.name)
        if pf.name == "":
            problems.append(SpecViolation("partition.empty-name", f"field {i}: the name is empty",
                                          clause=CLAUSE))
        problems.extend(_source_problems(pf, index, where))
        owner = column_names.get(pf.name)
        if owner is not None and not (isinstance(pf.transform, (IdentityTransform, VoidTransform))
                                      and pf.source_ids == (owner,)):
            # identity (and void, which replaces an identity field in v1) may carry the name of
            # their own source column; any other partition name must not shadow a column
            problems.append(SpecViolation(
                "partition.name-conflict",
                f"{where}: the name is a schema column ({owner}) and the field is not identity({owner})",
                clause=CLAUSE))
    return problems


def _source_problems(pf: PartitionField, index: dict[int, IndexedField], where: str) -> Iterator[SpecViolation]:
    if len(pf.source_ids) > 1 and not isinstance(pf.transform, UnknownTransform):
        yield SpecViolation("partition.transform-arity",
                            f"{where}: {pf.transform} takes one source column, got {list(pf.source_ids)}",
                            clause=CLAUSE_JSON)
    for sid in pf.source_ids:
        info = index.get(sid)
        if info is None:
            yield SpecViolation("partition.source-missing",
                                f"{where}: source column {sid} is not in the schema", clause=CLAUSE)
            continue
        if info.in_list_or_map:
            yield SpecViolation("partition.source-in-list-or-map",
                                f"{where}: source column {info.name!r} ({sid}) is inside a list or map",
                                clause=CLAUSE)
            continue
        if not info.field_type.is_primitive:
            yield SpecViolation("partition.source-not-primitive",
                                f"{where}: source column {info.name!r} ({sid}) is {info.field_type}",
                                clause=CLAUSE)
            continue
        if isinstance(pf.transform, UnknownTransform):
            continue  # readable, never applied: nothing to check
        if len(pf.source_ids) == 1 and not pf.transform.accepts(info.field_type):
            yield SpecViolation("partition.transform-source",
                                f"{where}: {pf.transform} does not apply to {info.name!r} of type "
                                f"{info.field_type}", clause="Partitioning / Partition Transforms")


def validate_partition_spec(spec: PartitionSpec, schema: Schema) -> None:
    problems = bind_problems(spec, schema)
    if problems:
        raise problems[0]


def read_partition_spec(obj: JSON, schema: Schema, format_version: int) -> PartitionSpec:
    spec = parse_partition_spec(obj, format_version)
    validate_partition_spec(spec, schema)
    return spec


def partition_type(spec: PartitionSpec, schema: Schema) -> StructType:
    """The struct of partition values: one optional field per partition field, id and name of
    the partition field, type the transform's result type for its source."""
    validate_partition_spec(spec, schema)
    index = {fid: info for fid, info in walk(schema)}
    fields = []
    for pf in spec.fields:
        result = pf.transform.result_type(index[pf.source_id].field_type)
        fields.append(NestedField(pf.field_id, pf.name, result, False))
    return StructType(tuple(fields))
