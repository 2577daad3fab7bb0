"""Manifests and manifest lists: their Avro schemas per format version, reading, checking.

Spec sections: "Manifests" (Manifest Metadata, Entries in Manifests), "Sequence Number
Inheritance", "First Row ID Inheritance", "Manifest Lists", "First Row ID Assignment", and
"Appendix A / Avro" for how the structs are stored (see :mod:`reference.avro`).

The *decoded form* of a manifest entry and of a manifest-list entry is plain JSON (what the
vector sidecars under ``vectors/manifests/files/`` hold and what targets return):

* a manifest entry: ``status``, ``snapshot_id``, v2+ ``sequence_number`` and
  ``file_sequence_number`` (as stored: ``null`` means inherited), and ``data_file``: every
  field of the format version's ``data_file`` table by its spec name. Maps of column id to
  count are JSON objects keyed by the id as a string; ``lower_bounds``/``upper_bounds`` values
  and ``key_metadata`` are lowercase hex of the stored bytes; ``partition`` is an object keyed
  by partition field id (string) with values in the JSON single-value form; absent optional
  fields are ``null``. Deprecated fields (105 ``block_size_in_bytes``, 106 ``file_ordinal``,
  107 ``sort_columns``, 111 ``distinct_counts``) are read and dropped.
* a manifest-list entry: every field of the version's ``manifest_file`` table by name;
  ``partitions`` is a list of ``{contains_null, contains_nan, lower_bound, upper_bound}``
  with the bounds as hex; ``key_metadata`` as hex.

Entries are found by field id, never by Avro field name. Checking collects
:class:`~reference.findings.Finding` objects; :func:`check_manifest` is a pure function of a
path and a :class:`ManifestContext` so a table checker can map it over many manifests.
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import struct
import threading
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from itertools import islice
from typing import Any, Callable, Generic, Iterable, Iterator, Literal, overload, Sequence, TypeVar

from .avro import (
    AvroSchema, _Namer, cached, CACHED_TEXT_BYTES, decode_value, encode_value, from_avro, read_container,
    read_container_shared, read_container_text,
    SharedBlocks, struct_fields_to_avro, write_container,
)
from .errors import SpecViolation
from .findings import Finding
from .metadata import fully_qualified
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FloatType, GeographyType, GeometryType, IcebergType,
    IntegerType, ListType, LongType, MapType, NestedField, StringType, StructType, TimestampNanoType, TimestampType,
    TimestamptzNanoType, TimestamptzType, TimeType, UUIDType, VariantType, parse_type,
)
from .schema import walk
from .values import value_from_json, value_to_json

CLAUSE_METADATA = "Manifests / Manifest Metadata"
CLAUSE_ENTRIES = "Manifests / Entries in Manifests"
CLAUSE_SEQ = "Manifests / Sequence Number Inheritance"
CLAUSE_ROW_ID = "Manifests / First Row ID Inheritance"
CLAUSE_LIST = "Manifest Lists"
CLAUSE_VERSIONS = "Delete Formats (row-level deletes v2, deletion vectors v3); Appendix E: Version 2"
CLAUSE_BOUNDS = "Manifests / Entries in Manifests (Column Metrics)"
CLAUSE_GEO_BOUNDS = "Manifests / Field-level Metrics and Statistics / Bounds for Geometry and Geography"
CLAUSE_VARIANT_BOUNDS = "Manifests / Field-level Metrics and Statistics / Bounds for Variant"
CLAUSE_DELETES = "Delete Formats / Deletion Vectors"
CLAUSE_AVRO = "Appendix A: Format-specific Requirements / Avro / Field IDs"
CLAUSE_AVRO_TYPES = "Appendix A: Format-specific Requirements / Avro (decimal(P,S))"

STATUS = {0: "EXISTING", 1: "ADDED", 2: "DELETED"}
CONTENT = {0: "DATA", 1: "POSITION DELETES", 2: "EQUALITY DELETES"}
DEPRECATED = {105: "block_size_in_bytes", 106: "file_ordinal", 107: "sort_columns", 111: "distinct_counts"}

# (field id, name, type, required, first version, last version)
_Row = tuple[int, str, IcebergType, bool, int, int]


def _counts(kid: int, vid: int) -> MapType:
    return MapType(kid, IntegerType(), vid, LongType(), True)


def _bounds(kid: int, vid: int) -> MapType:
    return MapType(kid, IntegerType(), vid, BinaryType(), True)


_DATA_FILE: list[_Row] = [
    (134, "content", IntegerType(), True, 2, 3),
    (100, "file_path", StringType(), True, 1, 3),
    (101, "file_format", StringType(), True, 1, 3),
    (102, "partition", StructType(()), True, 1, 3),
    (103, "record_count", LongType(), True, 1, 3),
    (104, "file_size_in_bytes", LongType(), True, 1, 3),
    (105, "block_size_in_bytes", LongType(), True, 1, 1),
    (108, "column_sizes", _counts(117, 118), False, 1, 3),
    (109, "value_counts", _counts(119, 120), False, 1, 3),
    (110, "null_value_counts", _counts(121, 122), False, 1, 3),
    (137, "nan_value_counts", _counts(138, 139), False, 1, 3),
    (125, "lower_bounds", _bounds(126, 127), False, 1, 3),
    (128, "upper_bounds", _bounds(129, 130), False, 1, 3),
    (131, "key_metadata", BinaryType(), False, 1, 3),
    (132, "split_offsets", ListType(133, LongType(), True), False, 1, 3),
    (135, "equality_ids", ListType(136, IntegerType(), True), False, 2, 3),
    (140, "sort_order_id", IntegerType(), False, 1, 3),
    (142, "first_row_id", LongType(), False, 3, 3),
    (143, "referenced_data_file", StringType(), False, 2, 3),
    (144, "content_offset", LongType(), False, 3, 3),
    (145, "content_size_in_bytes", LongType(), False, 3, 3),
]

_SUMMARY = StructType((
    NestedField(509, "contains_null", BooleanType(), True),
    NestedField(518, "contains_nan", BooleanType(), False),
    NestedField(510, "lower_bound", BinaryType(), False),
    NestedField(511, "upper_bound", BinaryType(), False),
))

_MANIFEST_FILE: list[_Row] = [
    (500, "manifest_path", StringType(), True, 1, 3),
    (501, "manifest_length", LongType(), True, 1, 3),
    (502, "partition_spec_id", IntegerType(), True, 1, 3),
    (517, "content", IntegerType(), True, 2, 3),
    (515, "sequence_number", LongType(), True, 2, 3),
    (516, "min_sequence_number", LongType(), True, 2, 3),
    (503, "added_snapshot_id", LongType(), True, 1, 3),
    (504, "added_files_count", IntegerType(), True, 1, 3),
    (505, "existing_files_count", IntegerType(), True, 1, 3),
    (506, "deleted_files_count", IntegerType(), True, 1, 3),
    (512, "added_rows_count", LongType(), True, 1, 3),
    (513, "existing_rows_count", LongType(), True, 1, 3),
    (514, "deleted_rows_count", LongType(), True, 1, 3),
    (507, "partitions", ListType(508, _SUMMARY, True), False, 1, 3),
    (519, "key_metadata", BinaryType(), False, 1, 3),
    (520, "first_row_id", LongType(), False, 3, 3),
]
_V1_OPTIONAL_COUNTS = {504, 505, 506, 512, 513, 514}


def _rows(rows: list[_Row], version: int) -> list[_Row]:
    return [r for r in rows if r[4] <= version <= r[5]]


def data_file_type(version: int, partition: StructType) -> StructType:
    """The ``data_file`` struct of ``version`` with the given partition struct (field 102)."""
    return StructType(tuple(
        NestedField(fid, name, partition if fid == 102 else t, req)
        for fid, name, t, req, _, _ in _rows(_DATA_FILE, version)))


def manifest_entry_type(version: int, partition: StructType) -> StructType:
    """The ``manifest_entry`` struct of ``version``."""
    fields = [NestedField(0, "status", IntegerType(), True),
              NestedField(1, "snapshot_id", LongType(), version == 1)]
    if version >= 2:
        fields += [NestedField(3, "sequence_number", LongType(), False),
                   NestedField(4, "file_sequence_number", LongType(), False)]
    fields.append(NestedField(2, "data_file", data_file_type(version, partition), True))
    return StructType(tuple(fields))


def manifest_file_type(version: int) -> StructType:
    """The ``manifest_file`` struct of ``version``."""
    return StructType(tuple(
        NestedField(fid, name, t, req and not (version == 1 and fid in _V1_OPTIONAL_COUNTS))
        for fid, name, t, req, _, _ in _rows(_MANIFEST_FILE, version)))


def manifest_avro_schema(version: int, partition: StructType) -> AvroSchema:
    """The Avro writer schema of a manifest: record ``manifest_entry``, ``data_file`` as
    ``r2``, the partition tuple as ``r102``, map entries as ``k<key>_v<value>``."""
    t = manifest_entry_type(version, partition)
    return {"type": "record", "name": "manifest_entry", "fields": struct_fields_to_avro(t.fields, _Namer())}


def manifest_list_avro_schema(version: int) -> AvroSchema:
    """The Avro writer schema of a manifest list: record ``manifest_file``, summaries ``r508``."""
    t = manifest_file_type(version)
    return {"type": "record", "name": "manifest_file", "fields": struct_fields_to_avro(t.fields, _Namer())}


def required_header_keys(version: int) -> tuple[str, ...]:
    """Key-value metadata a manifest of ``version`` must have."""
    if version == 1:
        return ("schema", "partition-spec")
    return ("schema", "schema-id", "partition-spec", "partition-spec-id", "format-version", "content")


# --- partition types --------------------------------------------------------------------------

def fields_by_id(t: IcebergType) -> dict[int, NestedField]:
    """Every field reached through structs, by id (the first of a repeated id)."""
    out: dict[int, NestedField] = {}
    if isinstance(t, StructType):
        for fid, info in walk(t):
            if info.through_structs and info.field is not None:
                out.setdefault(fid, info.field)
    return out


def _find_field(t: IcebergType, fid: int) -> NestedField | None:
    return fields_by_id(t).get(fid)


def partition_type(spec_fields: list[dict[str, Any]], schema: StructType) -> StructType:
    """The partition tuple type of a spec's fields (JSON) bound to ``schema``."""
    from .transforms import parse_transform

    out = []
    for pf in spec_fields:
        source_ids = pf.get("source-ids") or [pf.get("source-id")]
        source = _find_field(schema, int(source_ids[0])) if source_ids[0] is not None else None
        if source is None:
            raise SpecViolation("manifests.partition-source", f"partition field {pf.get('name')!r}: source "
                                f"column {source_ids[0]} is not in the schema", clause=CLAUSE_ENTRIES)
        result = parse_transform(pf["transform"]).result_type(source.field_type)
        out.append(NestedField(int(pf["field-id"]), str(pf["name"]), result, False))
    return StructType(tuple(out))


# --- decoded form -----------------------------------------------------------------------------

def _hex(b: Any) -> str | None:
    return None if b is None else bytes(b).hex()


def _by_id(schema: AvroSchema) -> dict[int, tuple[str, AvroSchema]]:
    """field id -> (Avro field name, field schema) of a record schema."""
    out = {}
    if isinstance(schema, dict):
        for f in schema.get("fields", []):
            fid = f.get("field-id")
            if isinstance(fid, int):
                out[fid] = (f["name"], f["type"])
    return out


def _record_of(schema: AvroSchema, named: dict[str, Any]) -> AvroSchema:
    if isinstance(schema, list):
        schema = next(s for s in schema if s != "null")
    if isinstance(schema, str):
        return named.get(schema, schema)
    if isinstance(schema, dict) and isinstance(schema.get("type"), (dict, list)):
        return _record_of(schema["type"], named)
    return schema


def _collect_named(schema: AvroSchema, named: dict[str, Any]) -> None:
    if isinstance(schema, list):
        for s in schema:
            _collect_named(s, named)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "fixed", "enum") and "name" in schema:
            named.setdefault(schema["name"], schema)
        for f in schema.get("fields", []):
            _collect_named(f.get("type"), named)
        for k in ("items", "values"):
            if k in schema:
                _collect_named(schema[k], named)
        if isinstance(schema.get("type"), (dict, list)):
            _collect_named(schema["type"], named)


def _map_json(raw: Any, value_hex: bool) -> dict[str, Any] | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        return {str(k): (_hex(v) if value_hex else v) for k, v in raw.items()}
    if value_hex:
        return {str(kv["key"]): None if kv["value"] is None else bytes(kv["value"]).hex() for kv in raw}
    return {str(kv["key"]): kv["value"] for kv in raw}


def _json_key(fid: int) -> str:
    return str(fid)


def decode_partition(ptype: StructType, raw: dict[str, Any] | None, names: dict[int, str]) -> dict[str, Any]:
    raw = raw or {}
    return {_json_key(f.field_id): value_to_json(f.field_type, None if raw.get(names.get(f.field_id, f.name)) is None
                                                else decode_value(f.field_type, raw[names.get(f.field_id, f.name)]))
            for f in ptype.fields}


@dataclass
class _Layout:
    """How the fields of a manifest's writer schema are named (by id)."""

    entry: dict[int, tuple[str, AvroSchema]]
    data_file: dict[int, tuple[str, AvroSchema]]
    partition_names: dict[int, str]
    partition_type: StructType


def _layout(writer_schema: AvroSchema, where: str) -> _Layout:
    named: dict[str, Any] = {}
    _collect_named(writer_schema, named)
    entry = _by_id(writer_schema)
    if 2 not in entry:
        raise SpecViolation("manifests.field-missing", f"{where}: manifest_entry has no field with id 2 "
                            "(data_file)", clause=CLAUSE_ENTRIES, where=f"avro.schema {where}")
    df_schema = _record_of(entry[2][1], named)
    data_file = _by_id(df_schema)
    if 102 not in data_file:
        raise SpecViolation("manifests.field-missing", f"{where}: data_file has no field with id 102 "
                            "(partition)", clause=CLAUSE_ENTRIES, where=f"avro.schema {where}.data_file")
    p_schema = _record_of(data_file[102][1], named)
    ptype = from_avro(p_schema, where=f"{where}:partition", named=dict(named))
    if not isinstance(ptype, StructType):
        raise SpecViolation("manifests.partition-type", f"{where}: partition is not a record", clause=CLAUSE_ENTRIES,
                            where=f"avro.schema {where}.data_file.partition")
    return _Layout(entry, data_file, {f: n for f, (n, _) in _by_id(p_schema).items()}, ptype)


def entry_plan(version: int, layout: _Layout, lean: bool = False) -> list[tuple[str, str | None, Any]]:
    """(decoded name, Avro field name or None, converter or None) of each ``data_file`` field of
    ``version``; a converter takes the raw value (``None`` included) to the decoded form.
    ``lean``: the metrics maps (column sizes, counts, bounds) are left as Avro decoded them, and
    a record whose fields carry the spec's names is converted in place (its other fields, such
    as deprecated ones, stay)."""
    def partition(v: Any) -> Any:
        return decode_partition(layout.partition_type, v, layout.partition_names)

    def as_list(v: Any) -> Any:
        return list(v) if isinstance(v, (list, tuple)) else v

    converters: dict[int, Any] = {102: partition, 134: lambda v: 0 if v is None else v, 131: _hex,
                                  125: lambda v: _map_json(v, True), 128: lambda v: _map_json(v, True)}
    for fid in (108, 109, 110, 137):
        converters[fid] = lambda v: _map_json(v, False)
    if lean:
        for fid in (108, 109, 110, 137, 125, 128):
            converters[fid] = None
    plan = []
    for fid, name, t, _req, _, _ in _rows(_DATA_FILE, version):
        if fid in DEPRECATED:
            continue
        conv = converters[fid] if fid in converters else (as_list if isinstance(t, ListType) else None)
        plan.append((name, layout.data_file[fid][0] if fid in layout.data_file else None, conv))
    return plan


def named_as_spec(plan: list[tuple[str, str | None, Any]], layout: _Layout) -> bool:
    """Whether every field the writer wrote has the spec's name (as Iceberg Java, PyIceberg and
    the reference write them), so a raw record can stand for its decoded form."""
    entry_names = {0: "status", 1: "snapshot_id", 2: "data_file", 3: "sequence_number", 4: "file_sequence_number"}
    return all(layout.entry[fid][0] == name for fid, name in entry_names.items() if fid in layout.entry) \
        and 2 in layout.entry and all(avro_name in (None, name) for name, avro_name, _ in plan)


def decode_entry(raw: dict[str, Any], version: int, layout: _Layout,
                 plan: list[tuple[str, str | None, Any]] | None = None) -> dict[str, Any]:
    """The decoded form of one raw manifest entry record (``plan``: :func:`entry_plan`, computed
    once per manifest by callers that decode many entries)."""
    names = layout.entry
    entry: dict[str, Any] = {"status": raw.get(names[0][0]) if 0 in names else None,
                             "snapshot_id": raw.get(names[1][0]) if 1 in names else None}
    if version >= 2:
        entry["sequence_number"] = raw.get(names[3][0]) if 3 in names else None
        entry["file_sequence_number"] = raw.get(names[4][0]) if 4 in names else None
    df_raw = (raw.get(names[2][0]) if 2 in names else None) or {}
    get = df_raw.get
    df: dict[str, Any] = {}
    for name, avro_name, conv in plan if plan is not None else entry_plan(version, layout):
        value = get(avro_name) if avro_name is not None else None
        df[name] = value if conv is None else conv(value)
    entry["data_file"] = df
    return entry


def decode_manifest_file(raw: dict[str, Any], version: int, ids: dict[int, tuple[str, AvroSchema]],
                         summary_ids: dict[int, tuple[str, AvroSchema]]) -> dict[str, Any]:
    """The decoded form of one raw manifest-list record."""
    out: dict[str, Any] = {}
    for fid, name, _t, _req, _, _ in _rows(_MANIFEST_FILE, version):
        value = raw.get(ids[fid][0]) if fid in ids else None
        if fid == 507 and value is not None:
            value = [{n: (_hex(s.get(summary_ids[i][0])) if i in (510, 511) else s.get(summary_ids[i][0]))
                      if i in summary_ids else None
                      for i, n in ((509, "contains_null"), (518, "contains_nan"), (510, "lower_bound"),
                                   (511, "upper_bound"))} for s in value]
        elif fid == 519:
            value = _hex(value)
        out[name] = value
    return out


# --- context and reading ------------------------------------------------------------------------

@dataclass(frozen=True)
class ManifestContext:
    """What a manifest is checked against: the table format version, and optionally the table
    schema and partition spec (JSON) and the manifest-list entry (decoded form) naming it."""

    format_version: int
    schema: dict[str, Any] | None = None
    partition_spec: dict[str, Any] | None = None
    manifest_file: dict[str, Any] | None = None
    #: the table's sort order ids (``None``: not checked)
    sort_order_ids: tuple[int, ...] | None = None
    #: the table's schemas (JSON) by schema-id, and its last-column-id: what the ``schema``
    #: header is compared with (``None``: not compared)
    schemas: dict[int, Any] | None = None
    last_column_id: int | None = None


#: what a header JSON document of the wrong shape raises while it is read
_SHAPE_ERRORS = (ValueError, SpecViolation, TypeError, KeyError, AttributeError, IndexError, RecursionError)


def _short_value(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _finding(rule: str, message: str, clause: str, path: str, location: str = "",
             severity: Literal["error", "warning"] = "error") -> Finding:
    return Finding(rule, message, clause, path, location, severity)


def _check_schema_ids(schema: AvroSchema, path: str, record: str, findings: list[Finding],
                      text: bytes | None = None) -> None:
    """``text``: the schema as the file's header holds it, when the caller has it."""
    try:
        key = text.decode("utf-8") if text is not None else json.dumps(schema)
    except (TypeError, ValueError, RecursionError):
        problems = _schema_id_problems_of(schema, record)
    else:
        problems = cached(_schema_id_problems, key)(key, record)  # a table's files share a few schemas
    findings.extend(_finding(rule, detail, clause, path, where) for rule, detail, clause, where in problems)


@lru_cache(maxsize=32)
def _schema_id_problems(text: str, record: str) -> tuple[tuple[str, str, str, str], ...]:
    return _schema_id_problems_of(json.loads(text), record)


def _schema_id_problems_of(schema: AvroSchema, record: str) -> tuple[tuple[str, str, str, str], ...]:
    """(rule, detail, clause, location) of the field ids and defaults of a writer schema."""
    out = []
    try:
        from_avro(schema, where=record)
    except SpecViolation as e:
        rule = "manifests.field-id-missing" if e.rule == "avro.field-id-missing" else e.rule
        out.append((rule, e.detail, e.clause or CLAUSE_AVRO, e.where))
    missing = _optional_without_default(schema, record, 0)
    if missing:
        out.append(("avro.optional-default", f"optional field(s) without the Avro default null: "
                    f"{', '.join(missing[:8])}" + (f" and {len(missing) - 8} more" if len(missing) > 8 else ""),
                    CLAUSE_AVRO, "avro.schema"))
    return tuple(out)


def _optional_without_default(schema: Any, where: str, depth: int) -> list[str]:
    """Fields typed as a ``["null", T]`` union whose Avro default is not null (Appendix A:
    "Optional fields without an Iceberg default must set the Avro field default value to null")."""
    out: list[str] = []
    if depth > 64:
        return out
    if isinstance(schema, list):
        for branch in schema:
            out += _optional_without_default(branch, where, depth + 1)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "record":
            for f in schema.get("fields") or []:
                if not isinstance(f, dict):
                    continue
                t = f.get("type")
                here = f"{where}.{f.get('name')}"
                if isinstance(t, list) and t[:1] == ["null"] and ("default" not in f or f["default"] is not None):
                    out.append(here)
                out += _optional_without_default(t, here, depth + 1)
        elif kind == "array":
            out += _optional_without_default(schema.get("items"), where, depth + 1)
        elif kind == "map":
            out += _optional_without_default(schema.get("values"), where, depth + 1)
        elif isinstance(kind, (dict, list)):
            out += _optional_without_default(kind, where, depth + 1)
    return out


def _check_fields(have: dict[int, tuple[str, AvroSchema]], rows: list[_Row], version: int, record: str,
                  path: str, findings: list[Finding]) -> None:
    for fid, name, _t, req, first, last in rows:
        if first <= version <= last and req and fid not in have:
            if record == "manifest_file" and version == 1 and fid in _V1_OPTIONAL_COUNTS:
                continue
            findings.append(_finding("manifests.field-missing", f"{record}: required field {fid} {name} is missing",
                                     CLAUSE_LIST if record == "manifest_file" else CLAUSE_ENTRIES, path, record))
    if record == "data_file" and 141 in have:
        findings.append(_finding("manifests.reserved-field-id", "data_file: field id 141 is reserved",
                                 CLAUSE_ENTRIES, path, record))
    for fid in have:
        if fid in DEPRECATED and not (fid == 105 and version == 1):
            forbidden = fid == 105 and version >= 2
            findings.append(_finding(
                "manifests.deprecated-field",
                f"{record}: field {fid} {DEPRECATED[fid]} is deprecated"
                + (f" and must not be written in v{version}" if forbidden else "; do not write"),
                CLAUSE_ENTRIES, path, record, "error" if forbidden else "warning"))


_Out = TypeVar("_Out")


class _CheckedOnce(Generic[_Out]):
    """What a check made of a writer schema and header, by their text, without the file's path:
    a table's files share a few of each, so each is checked once (the ``keep`` most recent)."""

    def __init__(self, keep: int = 32) -> None:
        self.keep = keep
        self._got: dict[Any, tuple[_Out, tuple[Finding, ...]]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._got)

    def clear(self) -> None:
        with self._lock:
            self._got.clear()

    def get(self, key: tuple[Any, ...] | None, writer_schema: AvroSchema,
            check: Callable[[AvroSchema, list[Finding]], _Out], path: str, findings: list[Finding]) -> _Out:
        """``check(schema, findings)`` of the schema (a copy of its own, which what it returns may
        keep parts of, whatever the caller does with its schema), once per ``key`` (None, or a key
        whose texts are longer than :data:`~reference.avro.CACHED_TEXT_BYTES` together: every
        time); its findings are appended to ``findings`` at ``path``."""
        if key is not None and sum(len(t) for t in _texts(key)) > CACHED_TEXT_BYTES:
            key = None
        with self._lock:
            got = self._got.get(key) if key is not None else None
        if got is None:
            found: list[Finding] = []
            try:
                kept = copy.deepcopy(writer_schema)
            except RecursionError:
                kept = writer_schema
            got = (check(kept, found), tuple(found))
        if key is not None:
            with self._lock:
                self._got.pop(key, None)
                self._got[key] = got  # the most recent last
                while len(self._got) > self.keep:
                    del self._got[next(iter(self._got))]
        findings.extend(replace(f, file=path) for f in got[1])
        return got[0]


def _texts(value: Any) -> Iterator[str | bytes]:
    """The strings and bytes in a key of nested tuples."""
    if isinstance(value, (str, bytes)):
        yield value
    elif isinstance(value, tuple):
        for v in value:
            yield from _texts(v)


#: what :func:`manifest_header` found, by the writer schema's text, the header and the version asked for
_HEADERS: _CheckedOnce["tuple[int, _Layout] | None"] = _CheckedOnce()


def manifest_header(writer_schema: AvroSchema, meta: dict[str, str], version: int | None, path: str,
                    findings: list[Finding], *, schema_text: bytes | None = None) -> tuple[int, _Layout] | None:
    """The checks of a manifest's header and writer schema, shared by the record reader and the
    checker's columnar screen: appends their findings, and returns the version the entries are
    read as with the layout of the writer's fields, or ``None`` when the entries cannot be read.
    ``schema_text``: the writer schema as the file's header holds it, when the caller has it."""
    text: bytes | str | None = schema_text
    if text is None:
        try:
            text = json.dumps(writer_schema)
        except (TypeError, ValueError, RecursionError):
            text = None
    key = (text, tuple(meta.items()), version) if text is not None else None
    opened = _HEADERS.get(key, writer_schema, lambda schema, found: _manifest_header(schema, meta, version, found),
                          path, findings)
    if opened is None:
        return None
    if any(f.severity == "error" and f.rule in ("manifests.field-id-missing", "avro.union") for f in findings):
        return None
    return opened


def _manifest_header(writer_schema: AvroSchema, meta: dict[str, str], version: int | None,
                     findings: list[Finding]) -> tuple[int, _Layout] | None:
    """:func:`manifest_header`'s checks of one writer schema and header, their findings without a
    file; ``None`` when the entries cannot be read whatever else was found."""
    path = ""
    if version is None:
        fv = meta.get("format-version", "1")
        version = int(fv) if fv in ("1", "2", "3") else 1
    if not isinstance(writer_schema, dict) or writer_schema.get("type") != "record":
        findings.append(_finding("manifests.not-a-record", "the Avro schema is not a record", CLAUSE_ENTRIES, path,
                                 "avro.schema"))
        return None
    # an older format-version header is believed, except a v1 label on a schema with the sequence
    # numbers v2 added
    own = written_version(meta, version)
    if not (own == 1 and (3 in _by_id(writer_schema) or 4 in _by_id(writer_schema))):
        version = own
    if writer_schema.get("name") != "manifest_entry":
        findings.append(_finding("manifests.record-name",
                                 f"the Avro record is named {writer_schema.get('name')!r}; the spec's struct is "
                                 "manifest_entry (readers resolve by field id)", CLAUSE_METADATA, path, "avro.schema",
                                 "warning"))
    _check_schema_ids(writer_schema, path, "manifest_entry", findings)
    findings.extend(_decimal_encodings(writer_schema, path))
    findings.extend(_check_header(meta, version, path))
    try:
        layout = _layout(writer_schema, "manifest_entry")
    except SpecViolation as e:
        findings.append(Finding.from_violation(e, path))
        return None
    _check_fields(layout.entry, [(0, "status", IntegerType(), True, 1, 3), (1, "snapshot_id", LongType(), True, 1, 1),
                                 (2, "data_file", StructType(()), True, 1, 3)], version, "manifest_entry", path, findings)
    _check_fields(layout.data_file, _DATA_FILE, version, "data_file", path, findings)
    return version, layout


def read_manifest(path: str, format_version: int | None = None, context: ManifestContext | None = None,
                  *, lean: bool = False) -> tuple[list[dict[str, Any]], list[Finding]]:
    """(decoded entries, findings) of a manifest file. Entries are as stored (``null`` =
    inherited); :func:`inherit` applies the manifest-list entry. ``format_version`` defaults
    to the context's, then to the ``format-version`` header, then 1. ``lean``: for callers that
    want the findings, not the entries' metrics: the metrics maps of the entries returned are
    left as Avro decoded them (lists of key/value records), which saves converting them."""
    findings: list[Finding] = []
    try:
        text, writer_schema, meta, records = read_container_text(path)
    except SpecViolation as e:
        return [], [Finding.from_violation(e, path)]
    opened = manifest_header(writer_schema, meta, format_version or (context.format_version if context else None),
                             path, findings, schema_text=text)
    if opened is None:
        return [], findings
    version, layout = opened
    entries = []
    plan = entry_plan(version, layout, lean)
    in_place = lean and named_as_spec(plan, layout)
    converters = [(name, conv) for name, avro_name, conv in plan if conv is not None and avro_name is not None]
    absent = [name for name, avro_name, conv in plan if avro_name is None]
    # v1 has no content field; one written anyway is read raw (the v1 plan leaves it out)
    v1_content = layout.data_file[134][0] if version == 1 and 134 in layout.data_file and 2 in layout.entry else None
    for i, r in enumerate(records):
        if v1_content is not None:
            raw_df = r.get(layout.entry[2][0])
            c = raw_df.get(v1_content) if isinstance(raw_df, dict) else None
            if c not in (None, 0):
                findings.append(_finding("manifests.content-version", f"a v1 manifest lists a {CONTENT.get(c, c)} "
                                         "file; row-level deletes are added by v2", CLAUSE_VERSIONS, path,
                                         f"entries[{i}]"))
        try:
            if in_place:  # the writer named every field as the spec does: convert the record itself
                df = r.get("data_file")
                if not isinstance(df, dict):
                    raise TypeError("data_file is not a record")
                for name, conv in converters:
                    df[name] = conv(df.get(name))
                for name in absent:
                    df[name] = 0 if name == "content" else None
                entries.append(r)
            else:
                entries.append(decode_entry(r, version, layout, plan))
        except _SHAPE_ERRORS as e:
            why = f"no key {e}" if isinstance(e, KeyError) else str(e)[:300]
            findings.append(_finding("manifests.undecodable", f"entry values do not decode: {why}", CLAUSE_ENTRIES,
                                     path, f"entries[{i}]"))
            return [], findings
    findings.extend(_check_entries(entries, version, meta, layout.partition_type, path, context))
    return entries, findings


def written_version(meta: dict[str, str], table_version: int) -> int:
    """The format version a manifest or manifest list was written with: its ``format-version``
    header when that is older than the table's (a table upgraded to a newer format keeps the
    manifests and manifest lists its earlier snapshots wrote; v1 ones read with sequence numbers
    0), else the table's."""
    fv = meta.get("format-version")
    if fv in ("1", "2", "3") and int(fv) < table_version:
        return int(fv)
    return table_version


def _check_header(meta: dict[str, str], version: int, path: str) -> list[Finding]:
    out = []
    for key in required_header_keys(version):
        if key == "schema-id" and key not in meta:
            # Required by the v2/v3 tables, yet neither Java nor PyIceberg writes it (the schema JSON
            # holds the id; apache/iceberg#8745, #10927): reported, but not as an error.
            out.append(_finding("manifests.header-schema-id", "key-value metadata 'schema-id' is missing (the "
                                "spec's table marks it required; the schema JSON carries the id)",
                                CLAUSE_METADATA, path, key, "warning"))
        elif key not in meta:
            out.append(_finding("manifests.header-missing", f"required key-value metadata {key!r} is missing",
                                CLAUSE_METADATA, path, key))
    fv = meta.get("format-version")
    if fv is not None and fv != str(version):
        out.append(_finding("manifests.header-format-version", f"format-version is {fv!r}, the table is v{version} "
                            "(a manifest is written with the table's format version, or an older one before an "
                            "upgrade)", CLAUSE_METADATA, path, "format-version"))
    content = meta.get("content")
    if content is not None and content not in ("data", "deletes"):
        out.append(_finding("manifests.header-content", f"content is {content!r}, not \"data\" or \"deletes\"",
                            CLAUSE_METADATA, path, "content"))
    for key in ("schema-id", "partition-spec-id"):
        v = meta.get(key)
        if v is not None and not (v.lstrip("-").isdigit() and len(v) <= 11 and -(1 << 31) <= int(v) < (1 << 31)):
            out.append(_finding("manifests.header-id", f"{key} is {v[:40]!r}{'...' if len(v) > 40 else ''}, not an "
                                "int id as a string", CLAUSE_METADATA, path, key))
    if "schema" in meta:
        why = cached(_struct_of, meta["schema"])(meta["schema"])
        if isinstance(why, str):
            out.append(_finding("manifests.header-schema", f"schema is not a table schema in JSON: {why}",
                                CLAUSE_METADATA, path, "schema"))
    if "partition-spec" in meta:
        try:
            spec = json.loads(meta["partition-spec"])
            if not isinstance(spec, list) or not all(isinstance(f, dict) for f in spec):
                raise ValueError("not a JSON array of partition field objects")
        except _SHAPE_ERRORS as e:
            out.append(_finding("manifests.header-partition-spec", f"partition-spec is not the partition fields "
                                f"array in JSON: {e}", CLAUSE_METADATA, path, "partition-spec"))
    return out


def _compare_key(t: IcebergType, v: Any) -> Any:
    if isinstance(t, UUIDType):
        return v.bytes
    return v


_Column = tuple[IcebergType, Any, bool, bool, "tuple[str, int] | None"]
"""type, bytes -> value, is decimal, is float, (struct format, width) when values of that width
decode in bulk"""

#: types whose binary single-value form at its full width is one little-endian struct value
_BULK: dict[type, tuple[str, int]] = {IntegerType: ("i", 4), DateType: ("i", 4), LongType: ("q", 8), TimeType: ("q", 8),
         TimestampType: ("q", 8), TimestamptzType: ("q", 8), TimestampNanoType: ("q", 8),
         TimestamptzNanoType: ("q", 8), FloatType: ("f", 4), DoubleType: ("d", 8)}


def bound_columns(by_id: dict[int, NestedField]) -> dict[str, _Column]:
    """For each column id (as a bounds map key): its type, the decoder of its binary bound form,
    whether it is a decimal (minimal bytes) or a float (NaN never a bound), and its bulk format."""
    from .binary import bound_from_bytes, from_bytes
    from .variant import bounds_from_bytes

    out: dict[str, _Column] = {}
    for fid, field in by_id.items():
        t = field.field_type
        geo = isinstance(t, (GeometryType, GeographyType))
        decoder: Any = partial(bound_from_bytes, t) if geo else bounds_from_bytes if isinstance(t, VariantType) \
            else partial(from_bytes.dispatch(type(t)), t)
        out[str(fid)] = (t, decoder, isinstance(t, DecimalType), isinstance(t, (FloatType, DoubleType)),
                         _BULK.get(type(t)))
    return out


def _coord(v: float | None) -> str:
    return "unset" if v is None else f"{v:g}"


def geo_box_problems(t: IcebergType, lower: Any, upper: Any) -> list[str]:
    """What keeps decoded bound points ``lower`` and ``upper`` (x, y, z, m; z/m None when unset)
    of a geometry/geography column from being the corners of one bounding box ("Bounds for
    Geometry and Geography"): y, z and m of the lower point above the upper one's, x too for
    geometry (a geography box may cross the antimeridian: "xmin ... may be greater than xmax"),
    a dimension set in one point only, and for geography a coordinate outside the canonical
    ranges [-180..180] (x) and [-90..90] (y)."""
    out = []
    geography = isinstance(t, GeographyType)
    for n, (lo, hi) in enumerate(zip(lower, upper)):
        name = "xyzm"[n]
        if (lo is None) != (hi is None):
            out.append(f"{name} is {_coord(lo)} in the lower bound but {_coord(hi)} in the upper bound")
        elif lo is not None and hi is not None and (lo != lo or hi != hi) and n < 2:
            out.append(f"{name} of a bound point is NaN (x and y are mandatory)")
        elif lo is not None and hi is not None and lo > hi and not (geography and name == "x"):
            out.append(f"lower bound {name} {_coord(lo)} is greater than upper bound {name} {_coord(hi)}")
    if geography:
        for which, p in (("lower", lower), ("upper", upper)):
            if not -180.0 <= p[0] <= 180.0 or not -90.0 <= p[1] <= 90.0:
                out.append(f"{which} bound ({_coord(p[0])}, {_coord(p[1])}) is outside x [-180..180], y [-90..90]")
    return out


def variant_bound_problems(lower: dict[str, Any], upper: dict[str, Any]) -> list[tuple[str, str]]:
    """(rule, why) for the decoded bounds of one variant column ("Bounds for Variant": "upper and
    lower bounds must have the same Variant type"; a lower bound above its upper bound)."""
    from .variant import order_key, show

    out = []
    for p in sorted(set(lower) & set(upper)):
        lo, hi = lower[p], upper[p]
        if lo.type != hi.type:
            out.append(("manifests.variant-bound-type", f"{p}: lower bound is a Variant {lo.type}, upper bound a "
                        f"{hi.type} (they must have the same Variant type)"))
        elif (kl := order_key(lo)) is not None and (kh := order_key(hi)) is not None and kl > kh:
            out.append(("manifests.bounds-order", f"{p}: lower bound {show(lo)} is greater than upper bound "
                        f"{show(hi)}"))
    return out


def check_bounds(entries: list[dict[str, Any]], columns: dict[str, _Column], path: str) -> dict[int, list[Finding]]:
    """Lower and upper bounds of every entry, checked a column at a time: each decodes (values of
    a fixed-width type at full width in one ``struct`` call), no decimal bound has more bytes
    than its value needs, no float bound is NaN, a variant bound's metadata keeps its
    ``sorted_strings`` bit and its object lists its field ids in the order of their names, and no
    lower bound exceeds its upper bound.
    Returns the findings by entry index (bounds of dropped columns are not checked)."""
    from .binary import is_minimal_decimal
    from .variant import CLAUSE_FIELD_ORDER, CLAUSE_SORTED_STRINGS, field_order_problem, sorted_strings_problem

    found: dict[int, list[Finding]] = {}

    def add(i: int, f: Finding) -> None:
        found.setdefault(i, []).append(f)
    # (which, column key) -> ([entry index], [bound bytes]); bounds in the decoded form (hex by
    # column id) or as Avro decoded them (key/value records, see read_manifest's ``lean``)
    # (which, column key) -> ([entry index], [bound bytes]), reachable by the key as Avro decodes
    # it (an int id) and in its JSON form
    gathered: dict[tuple[str, str], tuple[list[int], list[bytes]]] = {
        (which, k): ([], []) for which in ("lower", "upper") for k in columns}
    slots = {which: {**{k: gathered[(which, k)] for k in columns}, **{int(k): gathered[(which, k)] for k in columns}}
             for which in ("lower", "upper")}
    for i, e in enumerate(entries):
        df = e["data_file"]
        for which, name in (("lower", "lower_bounds"), ("upper", "upper_bounds")):
            bounds = df.get(name)
            if not bounds:
                continue
            slot = slots[which]
            if isinstance(bounds, dict):  # the decoded form: hex by column id
                for key, v in bounds.items():
                    g = slot.get(key)
                    if g is not None and v is not None:
                        g[0].append(i)
                        g[1].append(bytes.fromhex(v) if isinstance(v, str) else v)
                continue
            for kv in bounds:
                try:
                    g, v = slot.get(kv["key"]), kv["value"]
                except (TypeError, KeyError):  # not a key/value record: reported as not decodable
                    continue
                if g is not None and isinstance(v, bytes):
                    g[0].append(i)
                    g[1].append(v)
    decoded: dict[tuple[str, str], dict[int, Any]] = {}
    for (which, key), (idx, raw) in gathered.items():
        if not idx:
            continue
        t, decode, is_decimal, is_float, bulk = columns[key]
        values: dict[int, Any] = {}
        if bulk is not None and all(len(b) == bulk[1] for b in raw):
            values = dict(zip(idx, struct.unpack(f"<{len(raw)}{bulk[0]}", b"".join(raw))))
        else:
            geo = isinstance(t, (GeometryType, GeographyType))
            for i, b in zip(idx, raw):
                try:
                    values[i] = decode(b)
                except SpecViolation as e:
                    add(i, _finding("manifests.bound-geo-point" if geo else "manifests.bound-decode",
                                    f"{which} bound of column {key} ({t}): {e.detail}",
                                    CLAUSE_GEO_BOUNDS if geo else CLAUSE_BOUNDS, path,
                                    f"entries[{i}].{which}_bounds[{key}]"))
        if isinstance(t, VariantType):
            for i, b in zip(idx, raw):
                if i not in values:
                    continue
                if (why := sorted_strings_problem(b)) is not None:
                    add(i, _finding("parquet.variant-sorted-strings", f"{which} bound of column {key} (variant): "
                                    f"its metadata: {why}", CLAUSE_SORTED_STRINGS, path,
                                    f"entries[{i}].{which}_bounds[{key}]"))
                if (why := field_order_problem(b)) is not None:
                    add(i, _finding("parquet.variant-object-field-order", f"{which} bound of column {key} "
                                    f"(variant): {why}", CLAUSE_FIELD_ORDER, path,
                                    f"entries[{i}].{which}_bounds[{key}]"))
        if is_decimal:
            for i, b in zip(idx, raw):
                if i in values and not is_minimal_decimal(b):
                    add(i, _finding("manifests.bound-decimal-minimal", f"{which} bound of column {key} ({t}) is "
                                    f"{b.hex()}: not the minimum number of bytes for its value", CLAUSE_BOUNDS, path,
                                    f"entries[{i}].{which}_bounds[{key}]"))
        if is_float:
            for i in [i for i, v in values.items() if v != v]:
                del values[i]
                add(i, _finding("manifests.bound-nan", f"{which} bound of column {key} is NaN", CLAUSE_BOUNDS,
                                path, f"entries[{i}].{which}_bounds[{key}]"))
        decoded[(which, key)] = values
    for (which, key), lows in decoded.items():
        highs = decoded.get(("upper", key)) if which == "lower" else None
        if not highs:
            continue
        t = columns[key][0]
        uuid = isinstance(t, UUIDType)
        if isinstance(t, (GeometryType, GeographyType)):
            for i, lo in lows.items():
                if i in highs:
                    for problem in geo_box_problems(t, lo, highs[i]):
                        add(i, _finding("manifests.bound-geo-point", f"column {key} ({t}): {problem}",
                                        CLAUSE_GEO_BOUNDS, path, f"entries[{i}]"))
            continue
        if isinstance(t, VariantType):
            for i, lo in lows.items():
                if i in highs:
                    for rule, problem in variant_bound_problems(lo, highs[i]):
                        add(i, _finding(rule, f"column {key} (variant): {problem}", CLAUSE_VARIANT_BOUNDS, path,
                                        f"entries[{i}]"))
            continue
        for i, lo in lows.items():
            if i not in highs:
                continue
            hi = highs[i]
            try:
                wrong = (lo.bytes > hi.bytes) if uuid else lo > hi
            except TypeError:
                continue
            if wrong:
                add(i, _finding("manifests.bounds-order", f"column {key}: lower bound {value_to_json(t, lo)!r} is "
                                f"greater than upper bound {value_to_json(t, hi)!r}", CLAUSE_BOUNDS, path,
                                f"entries[{i}]"))
    return found


def entry_schema(version: int, meta: dict[str, str], ptype: StructType, path: str,
                 context: ManifestContext | None, out: list[Finding]) -> StructType | None:
    """The table schema a manifest's entries are checked against (the context's, else the
    manifest's ``schema`` header), after checking the manifest's partition struct against its
    partition spec (appending those findings to ``out``); shared by the record reader and the
    checker's columnar screen."""
    schema: StructType | None = None
    text: str | None = None
    if context and context.schema:
        try:
            text = json.dumps(context.schema)
        except (TypeError, ValueError, RecursionError):
            text = None
    elif "schema" in meta:
        text = meta["schema"]
    if text is not None:
        parsed = cached(_struct_of, text)(text)
        schema = None if isinstance(parsed, str) else parsed
    spec_fields: list[dict[str, Any]] | None = None
    if context and context.partition_spec is not None:
        spec_fields = context.partition_spec.get("fields")
    elif "partition-spec" in meta:
        try:
            loaded = json.loads(meta["partition-spec"])
            spec_fields = loaded if isinstance(loaded, list) else None
        except _SHAPE_ERRORS:
            spec_fields = None
    if spec_fields is not None and not (isinstance(spec_fields, list) and all(
            isinstance(f, dict) and isinstance(f.get("field-id", 0), int) and not isinstance(f.get("field-id"), bool)
            for f in spec_fields)):
        spec_fields = None  # a malformed partition-spec header is reported by _check_header
    if spec_fields is not None:
        ids = [int(f["field-id"]) for f in spec_fields if "field-id" in f]
        have = [f.field_id for f in ptype.fields]
        if version >= 2 and ids != have:
            out.append(_finding("manifests.partition-field-ids", f"partition struct field ids {have} differ from the "
                                f"partition spec's {ids}", CLAUSE_ENTRIES, path, "data_file.partition"))
        if schema is not None and ids == have:
            try:
                expected = partition_type(spec_fields, schema)
                for pf, ef in zip(ptype.fields, expected.fields):
                    # day/month/year/hour give int in the spec's table; Java and pyiceberg write date
                    # for day: both are an Avro int, so both are accepted.
                    same = pf.field_type == ef.field_type or {type(pf.field_type), type(ef.field_type)} == {
                        IntegerType, DateType}
                    # a manifest written before its source column was promoted (int -> long, float ->
                    # double, a wider decimal: "Schema Evolution") keeps the type it was written with;
                    # these promotions keep every transform's value
                    from .evolution import is_promotion

                    same = same or is_promotion(pf.field_type, ef.field_type, 2)
                    if not same:
                        out.append(_finding("manifests.partition-type", f"partition field {pf.field_id} {pf.name} is "
                                            f"{pf.field_type}, the spec's transform gives {ef.field_type}",
                                            CLAUSE_ENTRIES, path, "data_file.partition"))
            except (SpecViolation, KeyError, ValueError, TypeError):
                pass
    if context is not None and context.schemas is not None:
        problem = header_schema_problem(meta, context.schemas, context.last_column_id)
        if problem is not None:
            out.append(_finding("manifests.header-schema", problem, CLAUSE_METADATA, path, "schema"))
    return schema


@lru_cache(maxsize=64)
def _struct_of(text: str) -> StructType | str:
    """The table schema a JSON text holds, else why it is none (a table's manifests repeat a few
    schema texts: each is parsed once)."""
    try:
        parsed = parse_type(json.loads(text))
    except _SHAPE_ERRORS as e:
        return str(e) or type(e).__name__
    return parsed if isinstance(parsed, StructType) else "not a struct"


@lru_cache(maxsize=64)
def _columns_of(text: str) -> tuple[Any, dict[int, tuple[str, str, bool]]] | None:
    """(the JSON ``schema-id``, :func:`_columns`) of a schema's JSON text; ``None`` when it is not
    a table schema."""
    try:
        doc = json.loads(text)
    except _SHAPE_ERRORS:
        return None
    parsed = cached(_struct_of, text)(text)
    if isinstance(parsed, str) or not isinstance(doc, dict):
        return None
    return doc.get("schema-id"), _columns(parsed)


def _columns(t: StructType) -> dict[int, tuple[str, str, bool]]:
    """Field id -> (name, type, required) of every field of a schema, nested ones included (a
    struct, list or map by its kind; docs and default values are not compared)."""
    out: dict[int, tuple[str, str, bool]] = {}
    for fid, info in walk(t):
        kind = info.field_type
        shown = "struct" if isinstance(kind, StructType) else "list" if isinstance(kind, ListType) \
            else "map" if isinstance(kind, MapType) else str(kind)
        out.setdefault(fid, (info.path[-1] if info.path else "", shown, info.required))
    return out


def header_schema_problem(meta: dict[str, str], schemas: dict[int, Any], last_column_id: int | None) -> str | None:
    """Why a manifest's ``schema`` header, readable as a schema, is not one of the table's schemas
    ("JSON representation of the table schema at the time the manifest was written"): it differs
    from the table's schema of the same schema-id (its JSON ``schema-id``, else the ``schema-id``
    header), or, without such a schema, it holds field ids above the table's last-column-id (the
    highest id the table ever assigned). ``None``: no difference seen, or the header is not
    readable (reported as such by the header checks)."""
    read = cached(_columns_of, meta["schema"])(meta["schema"])
    if read is None:  # a header that does not parse is reported by the header checks
        return None
    sid, mine = read
    if not (isinstance(sid, int) and not isinstance(sid, bool)):
        text = meta.get("schema-id", "")
        sid = int(text) if text.lstrip("-").isdigit() and len(text) <= 11 else None
    table = schemas.get(sid) if sid is not None else None
    if isinstance(table, dict):
        try:
            fields_text = json.dumps({"type": "struct", "fields": table.get("fields")})
            got = cached(_columns_of, fields_text)(fields_text)
        except (TypeError, ValueError, RecursionError):
            return None
        if got is None:
            return None
        theirs = got[1]
        if mine == theirs:
            return None
        differ = sorted(set(mine) ^ set(theirs)) + sorted(i for i in set(mine) & set(theirs) if mine[i] != theirs[i])
        shown = "; ".join(f"field {i}: header {_describe(mine.get(i))}, table {_describe(theirs.get(i))}"
                          for i in differ[:4])
        return (f"the schema header differs from the table's schema {sid}, which has the same schema-id: {shown}"
                + (f" and {len(differ) - 4} more" if len(differ) > 4 else ""))
    if isinstance(last_column_id, int):
        above = sorted(i for i in mine if i > last_column_id)
        if above:
            return (f"the schema header holds field id(s) {above[:8]} above the table's last-column-id "
                    f"{last_column_id}: it is no schema of the table")
    return None


def _describe(column: tuple[str, str, bool] | None) -> str:
    if column is None:
        return "absent"
    name, kind, required = column
    return f"{name!r} {'required' if required else 'optional'} {kind}"


def _decimal_encodings(writer_schema: AvroSchema, path: str) -> list[Finding]:
    """Decimals of a manifest's Avro schema (its partition tuple) that are not ``fixed`` of
    minBytesRequired(P) bytes (Appendix A: "Stored as fixed using the minimum number of bytes for
    the given precision"): a decimal written as Avro ``bytes``, or a fixed of another size."""
    from .avro import min_bytes_required

    out: list[Finding] = []
    seen: set[int] = set()

    def visit(schema: Any, where: str, depth: int) -> None:
        if depth > 64 or id(schema) in seen:
            return
        if isinstance(schema, list):
            for branch in schema:
                visit(branch, where, depth + 1)
            return
        if not isinstance(schema, dict):
            return
        seen.add(id(schema))
        kind, p = schema.get("type"), schema.get("precision")
        if schema.get("logicalType") == "decimal" and isinstance(p, int) and not isinstance(p, bool) and 1 <= p <= 38:
            if kind == "bytes":
                out.append(_finding("avro.decimal-fixed", f"{where}: decimal({p},{schema.get('scale', 0)}) is "
                                    f"written as Avro bytes; it is a fixed of {min_bytes_required(p)} bytes",
                                    CLAUSE_AVRO_TYPES, path, f"avro.schema {where}"))
            elif kind == "fixed" and schema.get("size") != min_bytes_required(p):
                out.append(_finding("avro.decimal-fixed", f"{where}: decimal({p},{schema.get('scale', 0)}) is a "
                                    f"fixed of {schema.get('size')!r} bytes; the minimum for precision {p} is "
                                    f"{min_bytes_required(p)}", CLAUSE_AVRO_TYPES, path, f"avro.schema {where}"))
        if isinstance(kind, (dict, list)):
            visit(kind, where, depth + 1)
        for f in schema.get("fields") or []:
            if isinstance(f, dict):
                visit(f.get("type"), f"{where}.{f.get('name')}", depth + 1)
        for key in ("items", "values"):
            if key in schema:
                visit(schema[key], where, depth + 1)

    visit(writer_schema, "manifest_entry", 0)
    return out


def _check_entries(entries: list[dict[str, Any]], version: int, meta: dict[str, str], ptype: StructType,
                   path: str, context: ManifestContext | None) -> list[Finding]:
    out: list[Finding] = []
    content = meta.get("content", "data")
    schema = entry_schema(version, meta, ptype, path, context, out)
    by_id = fields_by_id(schema) if schema is not None else {}
    bounds_found = check_bounds(entries, bound_columns(by_id), path) if schema is not None else {}
    for i, e in enumerate(entries):
        loc = f"entries[{i}]"
        df = e["data_file"]
        status = e.get("status")
        if status not in STATUS:
            out.append(_finding("manifests.status", f"status {status!r} is not 0 (EXISTING), 1 (ADDED) or 2 (DELETED)",
                                CLAUSE_ENTRIES, path, loc))
        if version == 1 and e.get("snapshot_id") is None:
            out.append(_finding("manifests.snapshot-id", "v1 entries require snapshot_id", CLAUSE_ENTRIES, path, loc))
        if version >= 2 and status in (0, 2):
            for key in ("sequence_number", "file_sequence_number"):
                if e.get(key) is None:
                    out.append(_finding("manifests.sequence-number-explicit",
                                        f"{STATUS[status]} entry has null {key}; only ADDED entries inherit",
                                        CLAUSE_SEQ, path, loc))
        fp = df.get("file_path")
        if isinstance(fp, str) and not fully_qualified(fp):
            out.append(_finding("manifests.file-path-relative", f"{fp!r} is a relative path; before v4 every path field "
                                "holds a fully-qualified path (a URI with a scheme, or an absolute path)",
                                "Paths in Metadata", path, f"{loc} data_file/file_path"))
        c = df.get("content", 0)
        if version == 2 and c == 1 and str(df.get("file_format", "")).lower() == "puffin":
            out.append(_finding("manifests.content-version", "a v2 manifest lists a Puffin position delete file; "
                                "deletion vectors are added by v3", CLAUSE_VERSIONS, path, loc))
        if c not in CONTENT:
            out.append(_finding("manifests.content", f"data_file content {c!r} is not 0, 1 or 2", CLAUSE_ENTRIES,
                                path, loc))
        elif version >= 2 and (content == "data") != (c == 0) and content in ("data", "deletes"):
            out.append(_finding("manifests.content-mismatch", f"a {content} manifest holds a {CONTENT[c]} file",
                                CLAUSE_ENTRIES, path, loc))
        for key in ("record_count", "file_size_in_bytes"):
            v = df.get(key)
            if isinstance(v, int) and v < 0:
                out.append(_finding("manifests.negative", f"{key} is {v}", CLAUSE_ENTRIES, path, loc))
        if c == 2 and not df.get("equality_ids"):
            out.append(_finding("manifests.equality-ids", "equality delete file without equality_ids",
                                CLAUSE_ENTRIES, path, loc))
        elif c in (0, 1) and df.get("equality_ids") is not None:
            out.append(_finding("manifests.equality-ids-not-null", f"a {CONTENT[c]} file has equality_ids "
                                f"{list(df['equality_ids'])[:8]}; equality_ids is null for content other than 2",
                                CLAUSE_ENTRIES, path, loc, "warning"))
        sort_id = df.get("sort_order_id")
        if context is not None and context.sort_order_ids is not None and isinstance(sort_id, int) \
                and sort_id not in context.sort_order_ids:
            out.append(_finding("manifests.sort-order-id", f"sort_order_id {sort_id} is not in the table's sort-orders "
                                f"{list(context.sort_order_ids)}", CLAUSE_ENTRIES, path, loc))
        if version >= 3 and status == 1 and c == 0 and df.get("first_row_id") is not None:
            out.append(_finding("manifests.first-row-id-added", f"ADDED data file has first_row_id "
                                f"{df.get('first_row_id')}; new data files are written with null and inherit it",
                                CLAUSE_ROW_ID, path, loc))
        offsets = df.get("split_offsets")
        if offsets and list(offsets) != sorted(offsets):
            out.append(_finding("manifests.split-offsets-sorted", f"split_offsets {offsets} are not ascending",
                                CLAUSE_ENTRIES, path, loc))
        if version >= 3:
            if df.get("content_offset") is not None and df.get("content_size_in_bytes") is None:
                out.append(_finding("manifests.content-size", "content_offset without content_size_in_bytes",
                                    CLAUSE_ENTRIES, path, loc))
            if c != 0 and df.get("first_row_id") is not None:
                out.append(_finding("manifests.first-row-id-delete", "a delete file has a first_row_id",
                                    CLAUSE_ROW_ID, path, loc))
            if c == 1 and str(df.get("file_format", "")).lower() == "puffin":
                missing = [k for k in ("referenced_data_file", "content_offset", "content_size_in_bytes")
                           if df.get(k) is None]
                if missing:
                    out.append(_finding("manifests.dv-fields", f"deletion vector entry lacks {', '.join(missing)}",
                                        CLAUSE_DELETES, path, loc))
        out.extend(bounds_found.get(i, ()))
    if context and context.manifest_file is not None:
        out.extend(check_against_list_entry(entries, context.manifest_file, ptype, version, meta, path))
    return out


def inherit(entries: list[dict[str, Any]], manifest_file: dict[str, Any], version: int) -> list[dict[str, Any]]:
    """Entries with inherited values filled in from their manifest-list entry: ``snapshot_id``
    from ``added_snapshot_id``; for ADDED entries (or a v1 list, sequence number 0) the
    sequence numbers from the manifest's ``sequence_number``; v3 ``first_row_id`` of data
    files from the manifest's ``first_row_id`` plus the record counts of the preceding live
    (added or existing) data files that also had none."""
    seq = manifest_file.get("sequence_number") or 0
    next_row = manifest_file.get("first_row_id")
    out = []
    for e in entries:
        e = dict(e)  # inheritance writes the entry and its data_file, never deeper
        e["data_file"] = dict(e["data_file"])
        if e.get("snapshot_id") is None:
            e["snapshot_id"] = manifest_file.get("added_snapshot_id")
        for key in ("sequence_number", "file_sequence_number"):
            if e.get(key) is None and (e.get("status") == 1 or seq == 0):
                e[key] = seq
        df = e["data_file"]
        # a DELETED entry takes no row ids: a manifest's range covers its added and existing
        # rows only (First Row ID Assignment counts added_rows_count + existing_rows_count)
        if (version >= 3 and df.get("content", 0) == 0 and df.get("first_row_id") is None
                and next_row is not None and e.get("status") != 2):
            df["first_row_id"] = next_row
            next_row += df.get("record_count") or 0
        out.append(e)
    return out


def _partition_values(entries: list[dict[str, Any]], ptype: StructType) -> list[list[Any]]:
    cols: list[list[Any]] = [[] for _ in ptype.fields]
    for e in entries:
        part = e["data_file"].get("partition") or {}
        for i, f in enumerate(ptype.fields):
            v = part.get(_json_key(f.field_id))
            cols[i].append(None if v is None else value_from_json(f.field_type, v))
    return cols


def _check_inherited(entries: list[dict[str, Any]], mf: dict[str, Any], version: int, path: str) -> list[Finding]:
    """Explicit values of entries against the manifest-list record they would inherit from:
    the snapshot id of ADDED and DELETED entries is the snapshot that added the manifest; an
    explicit file sequence number of an ADDED entry is the manifest's sequence number; no
    sequence number exceeds the manifest's, and a data sequence number never exceeds the file
    sequence number."""
    out: list[Finding] = []
    added_by = mf.get("added_snapshot_id")
    mseq = mf.get("sequence_number") if version >= 2 else None
    for i, e in enumerate(entries):
        loc = f"entries[{i}]"
        status = e.get("status")
        sid = e.get("snapshot_id")
        if status in (1, 2) and isinstance(sid, int) and isinstance(added_by, int) and sid != added_by:
            out.append(_finding("manifests.entry-snapshot-id", f"{STATUS[status]} entry has snapshot_id {sid}, but "
                                f"its manifest was added by snapshot {added_by} (the manifest list's "
                                "added_snapshot_id)", CLAUSE_ENTRIES, path, loc))
        if not isinstance(mseq, int):
            continue
        seq, fseq = e.get("sequence_number"), e.get("file_sequence_number")
        inherited_seq = seq if seq is not None else (mseq if status == 1 else None)
        inherited_fseq = fseq if fseq is not None else (mseq if status == 1 else None)
        if status == 1 and isinstance(fseq, int) and fseq != mseq:
            out.append(_finding("manifests.entry-file-sequence-number", f"ADDED entry has file_sequence_number "
                                f"{fseq}; the file was added with its manifest, whose sequence_number is {mseq}",
                                CLAUSE_SEQ, path, loc))
        elif isinstance(fseq, int) and fseq > mseq:
            out.append(_finding("manifests.entry-file-sequence-number", f"file_sequence_number {fseq} is greater "
                                f"than the sequence_number {mseq} of the manifest holding the entry",
                                CLAUSE_SEQ, path, loc))
        if isinstance(inherited_seq, int) and (inherited_seq > mseq or (
                isinstance(inherited_fseq, int) and inherited_seq > inherited_fseq)):
            out.append(_finding("manifests.entry-sequence-number", f"data sequence number {inherited_seq} is greater "
                                f"than the file sequence number {inherited_fseq} or the manifest's sequence_number "
                                f"{mseq}: a file's data cannot be newer than the commit that added it",
                                CLAUSE_SEQ, path, loc))
    return out


def check_against_list_entry(entries: list[dict[str, Any]], mf: dict[str, Any], ptype: StructType, version: int,
                             meta: dict[str, str], path: str) -> list[Finding]:
    """Counts, content, spec id and partition summaries of a manifest-list entry against the
    entries of the manifest it names."""
    out: list[Finding] = []
    loc = "manifest_list_entry"
    for status, files_key, rows_key in ((1, "added_files_count", "added_rows_count"),
                                        (0, "existing_files_count", "existing_rows_count"),
                                        (2, "deleted_files_count", "deleted_rows_count")):
        chosen = [e for e in entries if e.get("status") == status]
        n_rows = sum(e["data_file"].get("record_count") or 0 for e in chosen)
        if mf.get(files_key) is not None and mf[files_key] != len(chosen):
            out.append(_finding("manifests.list-counts", f"{files_key} is {mf[files_key]}, the manifest has "
                                f"{len(chosen)} {STATUS[status]} entries", CLAUSE_LIST, path, loc))
        if mf.get(rows_key) is not None and mf[rows_key] != n_rows:
            out.append(_finding("manifests.list-counts", f"{rows_key} is {mf[rows_key]}, the manifest's "
                                f"{STATUS[status]} entries hold {n_rows} rows", CLAUSE_LIST, path, loc))
    out.extend(_check_inherited(entries, mf, version, path))
    if version >= 2:
        want = {"data": 0, "deletes": 1}.get(meta.get("content", ""))
        if want is not None and mf.get("content") is not None and mf["content"] != want:
            out.append(_finding("manifests.list-content", f"manifest list says content {mf['content']}, the manifest "
                                f"header says {meta.get('content')!r}", CLAUSE_LIST, path, loc))
    spec_id = meta.get("partition-spec-id")
    if spec_id is not None and spec_id.lstrip("-").isdigit() and len(spec_id) <= 20 \
            and mf.get("partition_spec_id") is not None \
            and int(spec_id) != mf["partition_spec_id"]:
        out.append(_finding("manifests.list-spec-id", f"manifest list says partition_spec_id "
                            f"{mf['partition_spec_id']}, the manifest header says {spec_id}", CLAUSE_LIST, path, loc))
    if version >= 2 and mf.get("min_sequence_number") is not None:
        live = inherit([e for e in entries if e.get("status") in (0, 1)], mf, version)
        seqs = [e["sequence_number"] for e in live if e.get("sequence_number") is not None]
        if seqs and mf["min_sequence_number"] > min(seqs):
            out.append(_finding("manifests.list-min-sequence-number", f"min_sequence_number "
                                f"{mf['min_sequence_number']} exceeds the smallest live data sequence number "
                                f"{min(seqs)}", CLAUSE_LIST, path, loc))
    summaries = mf.get("partitions")
    if summaries is not None:
        out.extend(check_summaries(_partition_values(entries, ptype), summaries, ptype, path))
    return out


def check_summaries(columns: list[list[Any]], summaries: list[dict[str, Any]], ptype: StructType,
                    path: str) -> list[Finding]:
    """A manifest-list entry's partition summaries against the partition values of its manifest's
    entries (``columns``: a list of values per partition field; only which values occur matters,
    so distinct values will do)."""
    from .binary import from_bytes, is_minimal_decimal

    out: list[Finding] = []
    loc = "manifest_list_entry"
    if len(summaries) != len(ptype.fields):
        out.append(_finding("manifests.partition-summary", f"{len(summaries)} partition summaries for "
                            f"{len(ptype.fields)} partition fields", CLAUSE_LIST, path, f"{loc}.partitions"))
        return out
    for (f, values), s in zip(zip(ptype.fields, columns), summaries):
        sloc = f"{loc}.partitions[{f.field_id}]"
        has_null = any(v is None for v in values)
        is_float = isinstance(f.field_type, (FloatType, DoubleType))
        has_nan = any(isinstance(v, float) and math.isnan(v) for v in values)
        if has_null and not s.get("contains_null"):
            out.append(_finding("manifests.partition-summary", f"field {f.name}: contains_null is false but an entry "
                                "has a null value", CLAUSE_LIST, path, sloc))
        if not has_null and s.get("contains_null"):
            out.append(_finding("manifests.partition-summary-loose", f"field {f.name}: contains_null is true but no entry "
                                "has a null value", CLAUSE_LIST, path, sloc, "warning"))
        if is_float and has_nan and s.get("contains_nan") is False:
            out.append(_finding("manifests.partition-summary", f"field {f.name}: contains_nan is false but an entry "
                                "is NaN", CLAUSE_LIST, path, sloc))
        real = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        for which in ("lower_bound", "upper_bound"):
            hexv = s.get(which)
            if hexv is None:
                if real:
                    # a null bound says "all values are null or NaN": readers skip the manifest
                    out.append(_finding("manifests.partition-summary", f"field {f.name}: {which} is null, which "
                                        "means every value is null or NaN, but entries have non-null values",
                                        CLAUSE_LIST, path, sloc))
                continue
            try:
                bound = from_bytes(f.field_type, bytes.fromhex(hexv))
            except SpecViolation as e:
                out.append(_finding("manifests.bound-decode", f"field {f.name}: {which}: {e.detail}", CLAUSE_LIST,
                                    path, sloc))
                continue
            if isinstance(f.field_type, DecimalType) and not is_minimal_decimal(bytes.fromhex(hexv)):
                out.append(_finding("manifests.bound-decimal-minimal", f"field {f.name}: {which} {hexv} is not the "
                                    "minimum number of bytes for its value", CLAUSE_LIST, path, sloc))
            if not real:
                continue
            if is_float and isinstance(bound, float) and bound == 0.0:
                # -0.0 precedes +0.0 (IEEE 754 totalOrder): a bound of the wrong zero excludes a value
                signs = {math.copysign(1.0, v) for v in real if v == 0.0}
                wrong = -1.0 if which == "lower_bound" else 1.0
                if wrong in signs and math.copysign(1.0, bound) == -wrong:
                    out.append(_finding("manifests.partition-summary", f"field {f.name}: {which} is "
                                        f"{'+0.0' if wrong < 0 else '-0.0'} but an entry's value is "
                                        f"{'-0.0' if wrong < 0 else '+0.0'}", CLAUSE_LIST, path, sloc))
                    continue
            k = [_compare_key(f.field_type, v) for v in real]
            b = _compare_key(f.field_type, bound)
            try:
                bad = b > min(k) if which == "lower_bound" else b < max(k)
            except TypeError:
                continue
            if bad:
                out.append(_finding("manifests.partition-summary", f"field {f.name}: {which} "
                                    f"{value_to_json(f.field_type, bound)!r} does not cover the entries' values",
                                    CLAUSE_LIST, path, sloc))
    return out


def check_manifest(path: str, context: ManifestContext) -> list[Finding]:
    """Every finding about one manifest file (pure: reads ``path``, writes nothing)."""
    return read_manifest(path, context.format_version, context)[1]


# --- manifest lists -----------------------------------------------------------------------------

class RepeatingEntries(Sequence[dict[str, Any]]):
    """The entries of a manifest list that repeats every entry of a list read before it: its own
    entries (those in front), then that list's. A table's next list repeats its parent's, so the
    lists of a history share one array of their entries, last entry first (the parent's array,
    extended by the new entries while no other list has extended it), each list being the
    array's first ``len`` items read backwards: the n lists of a history then hold n entry
    references, not the n * (n + 1) / 2 of n whole lists. Read-only (but see :meth:`replace`)."""

    __slots__ = ("_stack", "_len")
    _stack: list[dict[str, Any]]
    _len: int

    def __init__(self, own: list[dict[str, Any]], repeated: list[dict[str, Any]] | RepeatingEntries) -> None:
        stack: list[dict[str, Any]]
        if isinstance(repeated, RepeatingEntries):
            stack = repeated._stack
            if len(stack) != repeated._len:  # extended by another list already (a branch): a copy
                stack = stack[:repeated._len]
        else:
            stack = repeated[::-1]
        stack.extend(reversed(own))
        self._stack = stack
        self._len = len(stack)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[dict[str, Any]]:
        stack = self._stack
        return islice(reversed(stack), len(stack) - self._len, None)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return list(self)[i]
        return self._stack[self._at(i)]

    def shared(self) -> tuple[list[dict[str, Any]], int]:
        """The array this list shares (last entry first) and how much of it is this list: a
        list repeating this one has the same array and a larger length."""
        return self._stack, self._len

    def replace(self, i: int, entry: dict[str, Any]) -> None:
        """Put ``entry`` at position ``i``: every list sharing this one's array then holds it
        there too (for a reader that makes equal entries one object)."""
        self._stack[self._at(i)] = entry

    def _at(self, i: int) -> int:
        """The place in the shared array of position ``i``."""
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("manifest list entry index out of range")
        return self._len - 1 - i


def read_manifest_list(path: str, format_version: int | None = None, memo: dict[Any, Any] | None = None,
                       blocks: SharedBlocks | None = None) -> tuple[list[dict[str, Any]], list[Finding]]:
    """(decoded manifest-list entries, findings) of a manifest list file. ``memo``, kept across
    the lists of one table, decodes a record equal to one decoded before (same writer schema,
    same values) once: the entries are then that one object (a table's lists repeat the records
    of the manifests they keep, so its many lists hold few distinct records), and checks each
    such entry once. ``blocks``, kept across the lists too, decodes the records a list's blocks
    repeat from a list read before once (:class:`~reference.avro.SharedBlocks`)."""
    entries, findings = read_manifest_list_shared(path, format_version, memo, blocks)
    return list(entries) if isinstance(entries, RepeatingEntries) else entries, findings


#: what :func:`_list_header` made of a list's writer schema, by its text, the ``format-version``
#: header and the version asked for
_LIST_HEADERS: _CheckedOnce["tuple[int, dict[int, tuple[str, AvroSchema]], dict[int, tuple[str, AvroSchema]]] | None"] \
    = _CheckedOnce()


def _list_header(writer_schema: AvroSchema, meta: dict[str, str], format_version: int | None,
                 findings: list[Finding]) -> tuple[int, dict[int, tuple[str, AvroSchema]],
                                                   dict[int, tuple[str, AvroSchema]]] | None:
    """The checks of a manifest list's writer schema and ``format-version`` header (findings
    without a file), and the version its records are read as with its fields and the
    field_summary's by id; None when its records cannot be read."""
    path = ""
    version = format_version
    if version is None:
        fv = meta.get("format-version", "1")
        version = int(fv) if fv in ("1", "2", "3") else 1
    own = written_version(meta, version)
    if not (own == 1 and isinstance(writer_schema, dict) and 515 in _by_id(writer_schema)):
        version = own
    if not isinstance(writer_schema, dict) or writer_schema.get("type") != "record":
        findings.append(_finding("manifests.not-a-record", "the Avro schema is not a record", CLAUSE_LIST, path,
                                 "avro.schema"))
        return None
    if writer_schema.get("name") != "manifest_file":
        findings.append(_finding("manifests.record-name", f"the Avro record is named {writer_schema.get('name')!r}; "
                                 "the spec's struct is manifest_file (readers resolve by field id)", CLAUSE_LIST, path,
                                 "avro.schema", "warning"))
    _check_schema_ids(writer_schema, path, "manifest_file", findings)
    list_fv = meta.get("format-version")
    if list_fv is not None and list_fv != str(version):
        findings.append(_finding("manifests.header-format-version", f"format-version is {list_fv!r}, the table is "
                                 f"v{version}", CLAUSE_LIST, path, "format-version"))
    ids = _by_id(writer_schema)
    _check_fields(ids, _MANIFEST_FILE, version, "manifest_file", path, findings)
    if any(f.severity == "error" and f.rule in ("manifests.field-id-missing", "avro.union") for f in findings):
        return None
    named: dict[str, Any] = {}
    _collect_named(writer_schema, named)
    summary_ids: dict[int, tuple[str, AvroSchema]] = {}
    if 507 in ids:
        lst = _record_of(ids[507][1], named)
        if isinstance(lst, dict) and lst.get("type") == "array":
            summary_ids = _by_id(_record_of(lst["items"], named))
            if 509 not in summary_ids:
                findings.append(_finding("manifests.field-missing", "field_summary: required field 509 contains_null "
                                         "is missing", CLAUSE_LIST, path, "field_summary"))
    return version, ids, summary_ids


def read_manifest_list_shared(path: str, format_version: int | None = None, memo: dict[Any, Any] | None = None,
                              blocks: SharedBlocks | None = None
                              ) -> tuple[list[dict[str, Any]] | RepeatingEntries, list[Finding]]:
    """:func:`read_manifest_list`, the entries of a list that repeats a list read before (through
    ``memo`` and ``blocks``) held as :class:`RepeatingEntries` of that list's entries as this
    function returned them (so a table's lists together hold each entry reference once)."""
    findings: list[Finding] = []
    try:
        try:
            if blocks is None:
                raise ValueError("no shared blocks")
            writer_schema, meta, records, shared, text = read_container_shared(path, blocks)
        except SpecViolation:
            raise
        except Exception:  # noqa: BLE001 - records that do not decode: read again to say where
            text, writer_schema, meta, records = read_container_text(path)
            shared = False
    except SpecViolation as e:
        found = Finding.from_violation(e, path)
        if found.rule == "avro.unreadable":  # the manifest list's own sentence, not the manifest's
            found = Finding("avro.list-unreadable", found.message, CLAUSE_LIST, found.file, found.location)
        return [], [found]
    opened = _LIST_HEADERS.get((text, meta.get("format-version"), format_version), writer_schema,
                               lambda schema, found: _list_header(schema, meta, format_version, found), path, findings)
    if opened is None:
        return [], findings
    version, ids, summary_ids = opened
    entries: list[dict[str, Any]] = []
    # v1 has no content field; one written anyway is read raw (the v1 rows leave it out)
    v1_content = ids[517][0] if version == 1 and 517 in ids else None
    # the schema as the header holds it: equal texts decode records alike
    context = (version, text) if memo is not None else None
    if memo is not None:  # one object per schema: the memo's keys hold it once, not once per list
        context = memo.setdefault(("context", context), context)
    # a list whose one block ends with a block read before: only the records in front are
    # decoded, the others' entries are that list's (checked again only if one gave a finding)
    tail = blocks.last_tail if blocks is not None and shared and memo is not None and v1_content is None else None
    reused = blocks.derived(tail[0]) if blocks is not None and tail is not None else None
    block_records = records
    after: list[dict[str, Any]] | RepeatingEntries | None = None
    if reused is not None and reused[0] == context:
        records, after = records[:tail[1]], reused[1]  # type: ignore[index]
    # the repeated list's entries, when one of them gave a finding there, are checked again
    # below (at their places in this list)
    recheck = after is not None and reused is not None and not reused[2]
    before_records = len(findings)
    for i, r in enumerate(records):
        if v1_content is not None and isinstance(r, dict) and r.get(v1_content) not in (None, 0):
            findings.append(_finding("manifests.content-version", f"content {_short_value(r.get(v1_content))} in a "
                                     "v1 manifest list: v1 lists only data manifests", CLAUSE_VERSIONS, path,
                                     f"manifests[{i}]"))
        try:
            if memo is not None:
                # a raw record shared through ``blocks`` is known by its identity (the memo keeps it)
                same = memo.get((context, id(r)))
                if same is not None and same[0] is r:
                    entries.append(same[1])
                    continue
                seen_as = (context, repr(r))
                known = memo.get(seen_as)
                if known is None:
                    known = memo[seen_as] = decode_manifest_file(r, version, ids, summary_ids)
                if shared and after is None:  # a later list may repeat this very record object (the memo
                    # keeps it); a later list repeating a list whose tail was reused reuses its entries
                    memo[(context, id(r))] = (r, known)
                entries.append(known)
                continue
            entries.append(decode_manifest_file(r, version, ids, summary_ids))
        except _SHAPE_ERRORS as e:
            why = f"no key {e}" if isinstance(e, KeyError) else str(e)[:300]
            findings.append(_finding("manifests.undecodable", f"manifest-list record values do not decode: {why}",
                                     CLAUSE_LIST, path, f"manifests[{i}]"))
            return [], findings
    # entries checked before without a finding (the memo keeps them, so their ids stay theirs)
    clean = memo.setdefault(("clean", version), {}) if memo is not None else {}
    for i, mf in enumerate(entries + list(after) if recheck and after is not None else entries):
        if clean.get(id(mf)) is mf:
            continue
        before = len(findings)
        loc = f"manifests[{i}]"
        for key in ("added_files_count", "existing_files_count", "deleted_files_count", "added_rows_count",
                    "existing_rows_count", "deleted_rows_count", "manifest_length"):
            v = mf.get(key)
            if isinstance(v, int) and v < 0:
                findings.append(_finding("manifests.negative", f"{key} is {v}", CLAUSE_LIST, path, loc))
        if version >= 2:
            if mf.get("content") not in (0, 1):
                findings.append(_finding("manifests.list-content", f"content {mf.get('content')!r} is not 0 (data) "
                                         "or 1 (deletes)", CLAUSE_LIST, path, loc))
            seq, min_seq = mf.get("sequence_number"), mf.get("min_sequence_number")
            if isinstance(seq, int) and isinstance(min_seq, int) and min_seq > seq:
                findings.append(_finding("manifests.list-min-sequence-number", f"min_sequence_number {min_seq} is "
                                         f"greater than sequence_number {seq}", CLAUSE_LIST, path, loc))
        if version >= 3 and mf.get("content") == 1 and mf.get("first_row_id") is not None:
            findings.append(_finding("manifests.first-row-id-delete", "a delete manifest has a first_row_id",
                                     "Manifest Lists / First Row ID Assignment", path, loc))
        if memo is not None and len(findings) == before:
            clean[id(mf)] = mf
    # the entries after those checked here are the repeated list's, held as that list's object
    got = RepeatingEntries(entries, after) if after else entries
    if blocks is not None and memo is not None and v1_content is None:
        # the block's records (kept by ``blocks``) -> its entries, and whether none gave a finding
        blocks.derive(block_records, (context, got, len(findings) == before_records))
    return got, findings


# --- writing --------------------------------------------------------------------------------------

def _encode_map(value: dict[str, Any] | None, value_hex: bool) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    return [{"key": int(k), "value": bytes.fromhex(v) if value_hex else v} for k, v in value.items()]


def encode_entry(entry: dict[str, Any], version: int, ptype: StructType) -> dict[str, Any]:
    """The raw Avro record (field names of :func:`manifest_avro_schema`) of a decoded entry."""
    df_in = entry["data_file"]
    df: dict[str, Any] = {}
    for fid, name, _t, _req, _, _ in _rows(_DATA_FILE, version):
        v = df_in.get(name)
        if fid == 105:
            v = df_in.get(name, 67108864)  # v1 requires a value; the spec says write a default
        elif fid == 102:
            part = v or {}
            v = {f.name: None if part.get(_json_key(f.field_id)) is None
                 else encode_value(f.field_type, value_from_json(f.field_type, part[_json_key(f.field_id)]))
                 for f in ptype.fields}
        elif fid in (108, 109, 110, 137):
            v = _encode_map(v, False)
        elif fid in (125, 128):
            v = _encode_map(v, True)
        elif fid == 131:
            v = None if v is None else bytes.fromhex(v)
        df[name] = v
    out: dict[str, Any] = {"status": entry["status"], "snapshot_id": entry.get("snapshot_id")}
    if version >= 2:
        out["sequence_number"] = entry.get("sequence_number")
        out["file_sequence_number"] = entry.get("file_sequence_number")
    out["data_file"] = df
    return out


#: the deprecated ``data_file`` fields a writer may still find in old manifests, with their types
#: ("Data File Fields": 106 ``file_ordinal`` int, 107 ``sort_columns`` list<112: int>, 111
#: ``distinct_counts`` map<123: int, 124: long>), and the field each follows in Iceberg Java's order
_DEPRECATED_TYPES: dict[int, tuple[IcebergType, str]] = {
    106: (IntegerType(), "block_size_in_bytes"), 107: (ListType(112, IntegerType(), True), "file_ordinal"),
    111: (_counts(123, 124), "null_value_counts")}


def _with_deprecated(avro_schema: AvroSchema, records: list[dict[str, Any]], entries: list[dict[str, Any]]) -> None:
    """Add the deprecated optional fields 106, 107 and 111 to the ``data_file`` record of a
    manifest's schema and records (values from each entry's ``data_file``, null when absent)."""
    assert isinstance(avro_schema, dict)
    df_schema = next(f for f in avro_schema["fields"] if f["name"] == "data_file")["type"]
    fields = df_schema["fields"]
    namer = _Namer()
    for fid, (t, after) in _DEPRECATED_TYPES.items():
        [field] = struct_fields_to_avro([NestedField(fid, DEPRECATED[fid], t, False)], namer)
        names = [f["name"] for f in fields]
        fields.insert(names.index(after) + 1 if after in names else len(fields), field)
    for rec, e in zip(records, entries):
        df = e["data_file"]
        rec["data_file"]["file_ordinal"] = df.get("file_ordinal")
        rec["data_file"]["sort_columns"] = df.get("sort_columns")
        rec["data_file"]["distinct_counts"] = _encode_map(df.get("distinct_counts"), False)


def manifest_bytes(manifest: dict[str, Any], *, codec: str = "null", sync: bytes | None = None,
                   block_bytes: int | None = None, omit: tuple[int, ...] = (), deprecated: bool = False) -> bytes:
    """The bytes of a manifest from its decoded form: ``{"format_version", "metadata":
    {header keys}, "entries": [...]}``. The partition struct type comes from the header's
    schema and partition spec. Deterministic. ``block_bytes``: see
    :func:`~reference.avro.write_container`. ``omit``: ids of optional ``manifest_entry``
    fields (1, 3, 4) left out of the file's schema, allowed only where every entry's value is
    null (a reader then reads null: the value is inherited, "Manifest Entry Fields").
    ``deprecated``: the file's ``data_file`` record also has the deprecated optional fields 106,
    107 and 111 (as manifests of early Iceberg Java have them; "Deprecated. Do not write.", a
    warning of the checker: readers must still read such a manifest)."""
    version = int(manifest["format_version"])
    meta = dict(manifest["metadata"])
    schema = parse_type(json.loads(meta["schema"]))
    assert isinstance(schema, StructType)
    ptype = partition_type(json.loads(meta["partition-spec"]), schema)
    avro_schema = manifest_avro_schema(version, ptype)
    records = [encode_entry(e, version, ptype) for e in manifest["entries"]]
    if deprecated:
        _with_deprecated(avro_schema, records, manifest["entries"])
    if omit:
        names = {f.field_id: f.name for f in manifest_entry_type(version, ptype).fields if not f.required}
        if not set(omit) <= set(names):
            raise ValueError(f"only optional manifest_entry fields {sorted(names)} can be left out, not {sorted(omit)}")
        if any(r[names[fid]] is not None for r in records for fid in omit):
            raise ValueError("a manifest_entry field left out must be null in every entry (inherited)")
        avro_schema["fields"] = [f for f in avro_schema["fields"] if f.get("field-id") not in omit]
        records = [{k: v for k, v in r.items() if k not in {names[fid] for fid in omit}} for r in records]
    buf = io.BytesIO()
    kwargs: dict[str, Any] = {"codec": codec, "block_bytes": block_bytes}
    if sync is not None:
        kwargs["sync"] = sync
    write_container(buf, avro_schema, records, meta, **kwargs)
    return buf.getvalue()


def manifest_list_bytes(manifest_list: dict[str, Any], *, codec: str = "null", sync: bytes | None = None,
                        names: dict[int, str] | None = None, block_bytes: int | None = None) -> bytes:
    """The bytes of a manifest list from ``{"format_version", "metadata", "manifests": [...]}``;
    ``names``: field id -> the Avro field name written instead of the spec's (readers identify
    the fields by id); ``block_bytes``: a new block whenever the records reach that many bytes
    (Iceberg Java's lists: Avro's sync interval of 64,000 bytes), else one block."""
    version = int(manifest_list["format_version"])
    names = names or {}
    records = []
    for mf in manifest_list["manifests"]:
        rec: dict[str, Any] = {}
        for fid, name, _t, _req, _, _ in _rows(_MANIFEST_FILE, version):
            v = mf.get(name)
            if fid == 507 and v is not None:
                v = [{"contains_null": s["contains_null"], "contains_nan": s.get("contains_nan"),
                      "lower_bound": None if s.get("lower_bound") is None else bytes.fromhex(s["lower_bound"]),
                      "upper_bound": None if s.get("upper_bound") is None else bytes.fromhex(s["upper_bound"])}
                     for s in v]
            elif fid == 519 and v is not None:
                v = bytes.fromhex(v)
            rec[names.get(fid, name)] = v
        records.append(rec)
    buf = io.BytesIO()
    kwargs: dict[str, Any] = {"codec": codec, "block_bytes": block_bytes}
    if sync is not None:
        kwargs["sync"] = sync
    schema = manifest_list_avro_schema(version)
    schema["fields"] = [dict(f, name=names.get(f["field-id"], f["name"])) for f in schema["fields"]]
    write_container(buf, schema, records, dict(manifest_list.get("metadata", {})), **kwargs)
    return buf.getvalue()


def write_manifest(path: str, manifest: dict[str, Any], **kwargs: Any) -> int:
    """Write a manifest (decoded form) to ``path``; returns its length in bytes."""
    data = manifest_bytes(manifest, **kwargs)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def write_manifest_list(path: str, manifest_list: dict[str, Any], **kwargs: Any) -> int:
    data = manifest_list_bytes(manifest_list, **kwargs)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def summarize(entries: Iterable[dict[str, Any]], ptype: StructType) -> list[dict[str, Any]]:
    """Partition field summaries (decoded form) covering ``entries``."""
    from .binary import to_bytes

    ents = list(entries)
    out = []
    for f, values in zip(ptype.fields, _partition_values(ents, ptype)):
        real = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
        is_float = isinstance(f.field_type, (FloatType, DoubleType))
        s: dict[str, Any] = {"contains_null": any(v is None for v in values),
                             "contains_nan": any(isinstance(v, float) and math.isnan(v) for v in values)
                             if is_float else False,
                             "lower_bound": None, "upper_bound": None}
        if real:
            lo = min(real, key=lambda v: _compare_key(f.field_type, v))
            hi = max(real, key=lambda v: _compare_key(f.field_type, v))
            s["lower_bound"] = to_bytes(f.field_type, lo).hex()
            s["upper_bound"] = to_bytes(f.field_type, hi).hex()
        out.append(s)
    return out


__all__ = [
    "ManifestContext", "read_manifest", "read_manifest_list", "read_manifest_list_shared", "RepeatingEntries",
    "check_manifest", "inherit",
    "manifest_avro_schema", "manifest_list_avro_schema", "manifest_entry_type", "manifest_file_type",
    "data_file_type", "required_header_keys", "partition_type", "manifest_bytes", "manifest_list_bytes",
    "write_manifest", "write_manifest_list", "summarize", "check_against_list_entry",
]
