"""Reading a table snapshot: scan planning and row reading, deletes applied.

Spec sections: "Scan Planning" (snapshot -> manifest list -> manifests -> live data files;
which delete files apply to which data file by sequence number, partition and
``referenced_data_file``), "Delete Formats" (position delete files, equality delete files,
deletion vectors), "Column Projection" (columns found by field id, or through the table's
``schema.name-mapping.default`` for columns a file gives no field id; a field missing from a
file reads as the partition value of an identity-partitioned column, else its
``initial-default``, else null), "Sequence Number Inheritance" (done by :func:`reference.manifests.inherit`).

:func:`scan` returns the rows of a snapshot as ``{column name: JSON single-value}`` dicts
(Appendix D JSON form: structs keyed by field id, maps as ``{"keys": [...], "values": [...]}``).
:func:`plan` returns the planned tasks (data file + the delete files that apply to it).

Row order is not meaningful. Parquet and ORC files are read with pyarrow (ORC's ``iceberg.id``
type attributes are the Arrow fields' metadata), Avro files with :mod:`reference.avro`; columns
are found by field id in every format; files are opened read-only.
"""

from __future__ import annotations

import json

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from .errors import SpecViolation

from .types import (
    DateType, IcebergType, ListType, MapType, NestedField, StructType, TimestampNanoType,
    TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UnknownType, UUIDType, parse_type,
)

CLAUSE_PLAN = "Scan Planning"
CLAUSE_PROJECTION = "Column Projection"
CLAUSE_DELETES = "Delete Formats"

FILE_PATH_ID = 2147483546
POS_ID = 2147483545


def _local(uri: str) -> str:
    if uri.startswith("file://"):
        return uri[len("file://"):]
    if uri.startswith("file:"):
        return uri[len("file:"):]
    if "://" in uri:
        raise SpecViolation("scan.unsupported-location", f"{uri}: only local files are read", clause=CLAUSE_PLAN)
    return uri


@dataclass
class FileEntry:
    """A live manifest entry with inherited values: the ``data_file`` (decoded form), its data
    sequence number and partition spec id."""

    data_file: dict[str, Any]
    sequence_number: int
    spec_id: int

    @property
    def path(self) -> str:
        return str(self.data_file["file_path"])

    @property
    def content(self) -> int:
        return int(self.data_file.get("content") or 0)

    @property
    def partition_key(self) -> str:
        return json.dumps(self.data_file.get("partition") or {}, sort_keys=True)

    @property
    def is_dv(self) -> bool:
        return str(self.data_file.get("file_format", "")).upper() == "PUFFIN"


@dataclass
class Task:
    """One data file and the delete files that apply to it."""

    data: FileEntry
    position_deletes: list[FileEntry] = field(default_factory=list)
    equality_deletes: list[FileEntry] = field(default_factory=list)
    deletion_vector: FileEntry | None = None


def _metadata(metadata_path: str) -> dict[str, Any]:
    from .metadata import load_metadata

    doc, findings = load_metadata(metadata_path)
    if not isinstance(doc, dict):
        first = findings[0] if findings else None
        raise SpecViolation(first.rule if first else "scan.metadata",
                            f"{metadata_path}: {first.message if first else 'unreadable'}", clause=CLAUSE_PLAN)
    return doc


def _snapshot(doc: dict[str, Any], snapshot_id: int | None) -> dict[str, Any] | None:
    from .metadata import current_snapshot, snapshots_by_id

    if snapshot_id is None:
        snap = current_snapshot(doc)
        return snap if isinstance(snap, dict) else None
    snap = snapshots_by_id(doc).get(snapshot_id)
    if not isinstance(snap, dict):
        raise SpecViolation("scan.unknown-snapshot", f"snapshot {snapshot_id} is not in the table metadata",
                            clause=CLAUSE_PLAN)
    return snap


def live_files(doc: dict[str, Any], snap: dict[str, Any]) -> list[FileEntry]:
    """ADDED and EXISTING entries of every manifest of the snapshot, values inherited."""
    from .manifests import inherit, read_manifest, read_manifest_list

    version = int(doc.get("format-version", 1))
    ml = snap.get("manifest-list")
    if isinstance(ml, str):
        mfs, _ = read_manifest_list(_local(ml), version)
    else:
        mfs = [{"manifest_path": p, "partition_spec_id": 0, "content": 0, "sequence_number": 0,
                "added_snapshot_id": snap.get("snapshot-id")} for p in snap.get("manifests") or []]
    out = []
    for mf in mfs:
        entries, findings = read_manifest(_local(str(mf["manifest_path"])), version)
        if not entries and any(f.severity == "error" for f in findings):
            f0 = next(f for f in findings if f.severity == "error")
            raise SpecViolation(f0.rule, f"{mf['manifest_path']}: {f0.message}", clause=f0.clause)
        spec_id = int(mf.get("partition_spec_id") or 0)
        for e in inherit(entries, mf, version):
            if e.get("status") == 2:
                continue
            out.append(FileEntry(e["data_file"], int(e.get("sequence_number") or 0), spec_id))
    return out


def _unpartitioned(doc: dict[str, Any], spec_id: int) -> bool:
    from .metadata import spec_by_id

    spec = spec_by_id(doc).get(spec_id)
    return not (isinstance(spec, dict) and spec.get("fields"))


def plan(doc: dict[str, Any], snap: dict[str, Any]) -> list[Task]:
    """The scan tasks of a snapshot: each live data file with the deletes that apply to it."""
    files = live_files(doc, snap)
    data = [f for f in files if f.content == 0]
    deletes = [f for f in files if f.content != 0]
    tasks = []
    for d in data:
        t = Task(d)
        for x in deletes:
            same_partition = x.spec_id == d.spec_id and x.partition_key == d.partition_key
            if x.content == 1:
                ref = x.data_file.get("referenced_data_file")
                if ref is not None and ref != d.path:
                    continue
                if x.sequence_number < d.sequence_number or not same_partition:
                    continue
                if x.is_dv:
                    t.deletion_vector = x
                else:
                    t.position_deletes.append(x)
            elif x.content == 2:
                if x.sequence_number <= d.sequence_number:
                    continue
                if same_partition or _unpartitioned(doc, x.spec_id):
                    t.equality_deletes.append(x)
        if t.deletion_vector is not None:
            # a DV holds every earlier position delete of its data file
            t.position_deletes = []
        tasks.append(t)
    return tasks


# --- reading files -------------------------------------------------------------------------

def read_parquet(path: str) -> Any:
    import pyarrow.parquet as pq

    with open(path, "rb") as f:
        return pq.ParquetFile(f).read()


def read_arrow(path: str, file_format: str = "PARQUET") -> Any:
    """A Parquet, ORC or Avro file as an Arrow table whose fields carry their field ids
    (``PARQUET:field_id``; ORC's ``iceberg.id`` type attributes, as pyarrow reads them; an Avro
    file's ids from its schema, :func:`reference.arrow.avro_table`)."""
    fmt = file_format.upper()
    if fmt == "AVRO":
        from .arrow import avro_table
        from .avro import from_avro, iter_container

        writer_schema, _, records = iter_container(path)
        file_type = from_avro(writer_schema, where=path)
        if not isinstance(file_type, StructType):
            raise SpecViolation("scan.avro-schema", f"{path}: the Avro schema is not a record", clause=CLAUSE_PLAN)
        return avro_table(file_type, records)
    if fmt == "ORC":
        import pyarrow.orc as orc

        with open(path, "rb") as f:
            return orc.ORCFile(f).read()
    return read_parquet(path)


def deleted_positions(task: Task) -> set[int]:
    out: set[int] = set()
    if task.deletion_vector is not None:
        from .deletion_vectors import decode_blob

        dv = task.deletion_vector.data_file
        off, size = dv.get("content_offset"), dv.get("content_size_in_bytes")
        if not isinstance(off, int) or not isinstance(size, int):
            raise SpecViolation("dv.manifest-content-offset", f"{dv['file_path']}: content_offset and "
                                "content_size_in_bytes are required for a deletion vector", clause=CLAUSE_DELETES)
        with open(_local(str(dv["file_path"])), "rb") as f:
            f.seek(off)
            blob = f.read(size)
        out.update(decode_blob(blob, f"{dv['file_path']}@{off}").positions)
    for p in task.position_deletes:
        tbl = read_arrow(_local(p.path), str(p.data_file.get("file_format") or "PARQUET"))
        cols = columns_by_id(tbl)
        if FILE_PATH_ID not in cols or POS_ID not in cols:
            raise SpecViolation("scan.position-delete-columns", f"{p.path}: position delete file lacks the "
                                "file_path (2147483546) and pos (2147483545) columns", clause=CLAUSE_DELETES)
        paths = tbl.column(cols[FILE_PATH_ID]).to_pylist()
        poss = tbl.column(cols[POS_ID]).to_pylist()
        target = task.data.path
        out.update(pos for fp, pos in zip(paths, poss) if fp == target)
    return out


def columns_by_id(tbl: Any) -> dict[int, int]:
    out = {}
    for i, f in enumerate(tbl.schema):
        raw = _arrow_field_id(f)
        if raw is not None:
            out[raw] = i
    return out


def _arrow_field_id(f: Any) -> int | None:
    """A field id from Arrow field metadata: ``PARQUET:field_id`` (Parquet) or ``iceberg.id`` (ORC)."""
    from .arrow import field_id

    return field_id(f)


def _child_by_id(struct_type: Any, fid: int) -> int | None:
    for i in range(struct_type.num_fields):
        if _arrow_field_id(struct_type.field(i)) == fid:
            return i
    return None


def _values(t: IcebergType, arr: Any) -> list[Any]:
    """Python values (reference forms, :mod:`reference.values`) of an Arrow array of type ``t``."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if isinstance(t, StructType):
        valid = arr.is_valid().to_pylist()
        cols: list[list[Any]] = []
        for f in t.fields:
            idx = _child_by_id(arr.type, f.field_id)
            cols.append(_values(f.field_type, arr.field(idx)) if idx is not None
                        else [_default(f)] * len(arr))
        return [({f.field_id: c[i] for f, c in zip(t.fields, cols)} if valid[i] else None)
                for i in range(len(arr))]
    if isinstance(t, ListType):
        offsets = arr.offsets.to_pylist()
        elems = _values(t.element_type, arr.values)
        valid = arr.is_valid().to_pylist()
        return [elems[offsets[i]:offsets[i + 1]] if valid[i] else None for i in range(len(arr))]
    if isinstance(t, MapType):
        offsets = arr.offsets.to_pylist()
        keys = _values(t.key_type, arr.keys)
        vals = _values(t.value_type, arr.items)
        valid = arr.is_valid().to_pylist()
        return [dict(zip(keys[offsets[i]:offsets[i + 1]], vals[offsets[i]:offsets[i + 1]])) if valid[i] else None
                for i in range(len(arr))]
    if getattr(arr.type, "extension_name", "") == "arrow.uuid":
        arr = arr.storage
    if isinstance(t, DateType) and pa.types.is_date32(arr.type):
        arr = arr.cast(pa.int32())
    elif isinstance(t, (TimeType, TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)) and (
            pa.types.is_timestamp(arr.type) or pa.types.is_time(arr.type)):
        unit = arr.type.unit
        arr = arr.cast(pa.int64())
        micros = isinstance(t, (TimeType, TimestampType, TimestamptzType))
        if micros and unit == "ns":
            return [None if v is None else v // 1000 for v in arr.to_pylist()]
    out = arr.to_pylist()
    if isinstance(t, UUIDType):
        import uuid

        return [None if v is None else uuid.UUID(bytes=v) for v in out]
    return list(out)


def _default(f: NestedField) -> Any:
    from .values import value_from_json

    if f.has_initial_default and f.initial_default is not None:
        return value_from_json(f.field_type, f.initial_default)
    return None


def _identity_partition_values(doc: dict[str, Any], entry: FileEntry) -> dict[int, Any]:
    """source field id -> partition value (JSON) for identity partition fields of the file."""
    from .metadata import spec_by_id

    spec = spec_by_id(doc).get(entry.spec_id)
    out: dict[int, Any] = {}
    part = entry.data_file.get("partition") or {}
    if isinstance(spec, dict):
        for pf in spec.get("fields") or []:
            if pf.get("transform") == "identity" and str(pf.get("field-id")) in part:
                out[int(pf["source-id"])] = part[str(pf["field-id"])]
    return out


def _name_mapping(doc: dict[str, Any]) -> list[Any] | None:
    """The table's ``schema.name-mapping.default`` (Column Projection), or None without one."""
    props = doc.get("properties")
    raw = props.get("schema.name-mapping.default") if isinstance(props, dict) else None
    if not isinstance(raw, str):
        return None
    try:
        mapping = json.loads(raw)
    except ValueError as e:
        raise SpecViolation("metadata.name-mapping", f"properties/schema.name-mapping.default: not JSON: {e}",
                            clause=CLAUSE_PROJECTION) from e
    return mapping if isinstance(mapping, list) else None


def _mapped_field(f: Any, mapping: list[Any], name: str | None = None) -> Any:
    """Arrow field ``f`` with the field id ``mapping`` gives its name when the file gave it none,
    children likewise ("Use schema.name-mapping.default metadata to map field id to columns
    without field id"). A list's element is mapped as ``element``, a map's key and value as
    ``key`` and ``value``, whatever the file calls them (Column Projection: "List types should
    contain a mapping in fields for element")."""
    import pyarrow as pa

    look = f.name if name is None else name
    m = next((m for m in mapping if isinstance(m, dict) and look in (m.get("names") or [])), None)
    meta = dict(f.metadata or {})
    if _arrow_field_id(f) is None and m is not None and isinstance(m.get("field-id"), int):
        meta[b"PARQUET:field_id"] = str(m["field-id"]).encode()
    children = (m or {}).get("fields") or []
    t = f.type
    if pa.types.is_struct(t):
        t = pa.struct([_mapped_field(t.field(i), children) for i in range(t.num_fields)])
    elif pa.types.is_map(t):
        t = pa.map_(_mapped_field(t.key_field, children, "key"), _mapped_field(t.item_field, children, "value"))
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        element = _mapped_field(t.value_field, children, "element")
        t = pa.list_(element) if pa.types.is_list(t) else pa.large_list(element)
    return pa.field(f.name, t, f.nullable, meta or None)


def _with_name_mapping(doc: dict[str, Any], tbl: Any) -> Any:
    """``tbl`` with field ids from the table's name mapping on columns that have none."""
    import pyarrow as pa

    mapping = _name_mapping(doc)
    if mapping is None:
        return tbl
    return tbl.cast(pa.schema([_mapped_field(f, mapping) for f in tbl.schema], metadata=tbl.schema.metadata))


def _parquet_rows(doc: dict[str, Any], schema: StructType, entry: FileEntry) -> list[dict[int, Any]]:
    tbl = _with_name_mapping(doc, read_parquet(_local(entry.path)))
    return _arrow_rows(doc, schema, entry, tbl, columns_by_id(tbl))


def _orc_rows(doc: dict[str, Any], schema: StructType, entry: FileEntry) -> list[dict[int, Any]]:
    """ORC data: field ids are the ``iceberg.id`` type attributes (pyarrow puts them in the
    field metadata)."""
    tbl = _with_name_mapping(doc, read_arrow(_local(entry.path), "ORC"))
    return _arrow_rows(doc, schema, entry, tbl, columns_by_id(tbl))


def _with_ids(t: IcebergType, at: Any) -> Any:
    """Arrow type ``at`` with the Iceberg field ids of ``t`` on its children (by position)."""
    import pyarrow as pa

    def meta(fid: int) -> dict[bytes, bytes]:
        return {b"PARQUET:field_id": str(fid).encode()}

    if isinstance(t, StructType) and pa.types.is_struct(at):
        return pa.struct([pa.field(at.field(i).name, _with_ids(f.field_type, at.field(i).type), metadata=meta(f.field_id))
                          for i, f in enumerate(t.fields) if i < at.num_fields])
    if isinstance(t, ListType) and pa.types.is_list(at):
        return pa.list_(pa.field("element", _with_ids(t.element_type, at.value_type), metadata=meta(t.element_id)))
    if isinstance(t, MapType) and pa.types.is_map(at):
        return pa.map_(pa.field("key", _with_ids(t.key_type, at.key_type), nullable=False, metadata=meta(t.key_id)),
                       pa.field("value", _with_ids(t.value_type, at.item_type), metadata=meta(t.value_id)))
    return at


def _avro_rows(doc: dict[str, Any], schema: StructType, entry: FileEntry) -> list[dict[int, Any]]:
    """Avro data: the records as Arrow columns carrying the field ids of the writer schema."""
    tbl = read_arrow(_local(entry.path), "AVRO")
    return _arrow_rows(doc, schema, entry, tbl, columns_by_id(tbl))


def _arrow_rows(doc: dict[str, Any], schema: StructType, entry: FileEntry, tbl: Any,
                cols: dict[int, int]) -> list[dict[int, Any]]:
    from .values import value_from_json

    ident = _identity_partition_values(doc, entry)
    columns: dict[int, list[Any]] = {}
    for f in schema.fields:
        if isinstance(f.field_type, UnknownType):
            # "When reading an unknown column, any corresponding column must be ignored and
            # replaced with null values." (Appendix A)
            columns[f.field_id] = [None] * tbl.num_rows
        elif f.field_id in cols:
            columns[f.field_id] = _values(f.field_type, tbl.column(cols[f.field_id]))
        elif f.field_id in ident:
            columns[f.field_id] = [value_from_json(f.field_type, ident[f.field_id])] * tbl.num_rows
        else:
            columns[f.field_id] = [_default(f)] * tbl.num_rows
    return [{fid: columns[fid][i] for fid in columns} for i in range(tbl.num_rows)]


_READERS = {"PARQUET": _parquet_rows, "AVRO": _avro_rows, "ORC": _orc_rows}


def file_rows(doc: dict[str, Any], schema: StructType, entry: FileEntry) -> list[dict[int, Any]]:
    """Every row of a data file (no deletes applied), projected onto ``schema`` by field id."""
    fmt = str(entry.data_file.get("file_format", "")).upper()
    reader = _READERS.get(fmt)
    if reader is None:
        raise SpecViolation("scan.unsupported-format", f"{entry.path}: file_format {fmt!r} is not read "
                            "(Parquet, Avro, ORC are)", clause=CLAUSE_PLAN)
    return reader(doc, schema, entry)


def _with_equality_fields(doc: dict[str, Any], schema: StructType, deletes: list[FileEntry]) -> StructType:
    """``schema`` with the fields equality deletes compare on that it lacks, taken from the
    newest table schema that has them: "If a delete column in an equality delete file is later
    dropped from the table, it must still be used when applying the equality deletes." (Equality
    Delete Files). The extra fields are read and compared, never returned."""
    from .metadata import schema_by_id

    have = set(_struct_paths(schema))
    need = {int(i) for x in deletes for i in x.data_file.get("equality_ids") or [] if int(i) not in have}
    fields = list(schema.fields)
    for _, sj in sorted(schema_by_id(doc).items(), key=lambda kv: -kv[0]):
        older = parse_type({"type": "struct", "fields": sj.get("fields", [])})
        if not need or not isinstance(older, StructType):
            continue
        paths = _struct_paths(older)
        for fid in [i for i in need if i in paths]:
            # the field as that schema has it, and every struct above it (a nested field dropped
            # later, or its whole struct): merged into the read schema's struct of the same id
            fields = _merge_path(fields, older, paths[fid][0])
            need.discard(fid)
    return StructType(fields=tuple(fields)) if fields != list(schema.fields) else schema


def _merge_path(fields: list[NestedField], older: StructType, path: tuple[int, ...]) -> list[NestedField]:
    """``fields`` with the field at ``path`` of ``older`` added: a struct on the way that
    ``fields`` has gains the child it lacks; one it lacks is added with just that path."""
    src = next(f for f in older.fields if f.field_id == path[0])
    mine = next((f for f in fields if f.field_id == path[0]), None)
    if len(path) == 1 or not isinstance(src.field_type, StructType):
        return fields if mine is not None else fields + [src]
    if mine is None or not isinstance(mine.field_type, StructType):
        inner = _merge_path([], src.field_type, path[1:])
        return fields + [replace(src, field_type=StructType(fields=tuple(inner)))]
    inner = _merge_path(list(mine.field_type.fields), src.field_type, path[1:])
    return [replace(f, field_type=StructType(fields=tuple(inner))) if f is mine else f for f in fields]


def read_task(doc: dict[str, Any], schema: StructType, task: Task, lineage: bool = False) -> list[dict[int, Any]]:
    """Rows (field id -> reference Python value) of one task, deletes applied; with ``lineage``
    the row-lineage fields of ``schema`` are inherited as a reader assigns them."""
    if task.equality_deletes:
        schema = _with_equality_fields(doc, schema, task.equality_deletes)
    rows = file_rows(doc, schema, task.data)
    if lineage:
        _with_lineage(task, rows)
    deleted = deleted_positions(task)
    if deleted:
        rows = [r for i, r in enumerate(rows) if i not in deleted]
    if task.equality_deletes:
        rows = _apply_equality(schema, rows, task.equality_deletes)
    return rows


def _struct_paths(schema: StructType) -> dict[int, tuple[tuple[int, ...], IcebergType]]:
    """Field id -> (the ids from its top-level field down to it, its type) of every field reached
    through structs only: the fields an equality delete may name ("Equality Delete Files": delete
    columns are identified by id, and may be nested in structs, not in lists or maps)."""
    out: dict[int, tuple[tuple[int, ...], IcebergType]] = {}

    def visit(t: StructType, above: tuple[int, ...]) -> None:
        for f in t.fields:
            out[f.field_id] = (above + (f.field_id,), f.field_type)
            if isinstance(f.field_type, StructType):
                visit(f.field_type, above + (f.field_id,))
    visit(schema, ())
    return out


def _at(value: Any, path: tuple[int, ...]) -> Any:
    """The value at ``path`` below a top-level value (struct values keyed by field id); null
    where a struct on the way is null."""
    for fid in path[1:]:
        if value is None:
            return None
        value = value.get(fid)
    return value


def _stored(tbl: Any, cols: dict[int, int], path: tuple[int, ...]) -> bool:
    """Whether a delete file stores the field at ``path`` (ids from a top-level field down): every
    struct on the way holds the next id. A field the file lacks is not compared as null: the
    delete file is missing a column it names."""
    if path[0] not in cols:
        return False
    t = tbl.schema.field(cols[path[0]]).type
    for fid in path[1:]:
        idx = _child_by_id(t, fid) if hasattr(t, "num_fields") else None
        if idx is None:
            return False
        t = t.field(idx).type
    return True


def _apply_equality(schema: StructType, rows: list[dict[int, Any]], deletes: list[FileEntry]) -> list[dict[int, Any]]:
    from .values import value_to_json

    paths = _struct_paths(schema)
    tops = {f.field_id: f.field_type for f in schema.fields}
    for x in deletes:
        ids = [int(i) for i in x.data_file.get("equality_ids") or []]
        tbl = read_parquet(_local(x.path))
        cols = columns_by_id(tbl)
        missing = [i for i in ids if i not in paths or not _stored(tbl, cols, paths[i][0])]
        if missing:
            raise SpecViolation("scan.equality-delete-columns", f"{x.path}: equality field(s) {missing} are not "
                                "in the delete file or the schema", clause=CLAUSE_DELETES)
        top_values = {top: _values(tops[top], tbl.column(cols[top])) for top in {paths[i][0][0] for i in ids}}

        def key(get: Callable[[int], Any]) -> str:
            return json.dumps([value_to_json(paths[i][1], _at(get(paths[i][0][0]), paths[i][0])) for i in ids])
        keys = {key(lambda top: top_values[top][n]) for n in range(tbl.num_rows)}
        rows = [r for r in rows if key(r.get) not in keys]
    return rows


def schema_for(doc: dict[str, Any], snap: dict[str, Any] | None) -> StructType:
    from .metadata import current_schema, schema_by_id

    sj = None
    if snap is not None and isinstance(snap.get("schema-id"), int):
        sj = schema_by_id(doc).get(snap["schema-id"])
    if sj is None:
        sj = current_schema(doc)
    if not isinstance(sj, dict):
        raise SpecViolation("scan.no-schema", "the table metadata has no current schema", clause=CLAUSE_PLAN)
    t = parse_type({"type": "struct", "fields": sj.get("fields", [])})
    assert isinstance(t, StructType)
    return t


#: v3 row-lineage metadata columns ("Row Lineage"; reserved field ids)
ROW_ID = NestedField(2147483540, "_row_id", parse_type("long"), False)
LAST_UPDATED = NestedField(2147483539, "_last_updated_sequence_number", parse_type("long"), False)


def _with_lineage(task: Task, rows: list[dict[int, Any]]) -> None:
    """Row lineage of every row of the task's data file, in file order (before deletes): with a
    null ``first_row_id`` both are null; else a stored non-null value is kept and a null one is
    inherited: ``_row_id`` = ``first_row_id`` + the row's position, ``_last_updated_sequence_number``
    = the file's data sequence number (Appendix E, Version 3; Row lineage assignment)."""
    first = task.data.data_file.get("first_row_id")
    for pos, row in enumerate(rows):
        if first is None:
            row[ROW_ID.field_id] = row[LAST_UPDATED.field_id] = None
            continue
        if row.get(ROW_ID.field_id) is None:
            row[ROW_ID.field_id] = int(first) + pos
        if row.get(LAST_UPDATED.field_id) is None:
            row[LAST_UPDATED.field_id] = task.data.sequence_number


def _schema_json(doc: dict[str, Any], snap: dict[str, Any] | None) -> dict[str, Any]:
    from .metadata import current_schema, schema_by_id

    sj = schema_by_id(doc).get(snap["schema-id"]) if snap is not None and isinstance(snap.get("schema-id"), int) else None
    if sj is None:
        sj = current_schema(doc)
    if not isinstance(sj, dict):
        raise SpecViolation("scan.no-schema", "the table metadata has no current schema", clause=CLAUSE_PLAN)
    return sj


def _leaf_might_match(doc: dict[str, Any], schema_json: dict[str, Any], entry: FileEntry, leaf: Any) -> bool:
    """Inclusive: whether a data file may hold a row matching one predicate, judged by the
    projection of the predicate through each partition field of the file's spec (on the file's
    partition tuple) and by the file's column metrics. What those evaluations leave undecided,
    or cannot read, counts as "may match" (pruning is an optimisation; a wrong "cannot match"
    loses rows)."""
    from . import expressions as ex
    from .metadata import spec_by_id
    from .metrics import INCLUSIVE, evaluate as metrics_evaluate
    from .projections import accepts

    try:
        if not metrics_evaluate(schema_json, entry.data_file, leaf, INCLUSIVE):
            return False
    except (ex.Undecided, SpecViolation, ValueError, KeyError):
        pass
    spec = spec_by_id(doc).get(entry.spec_id)
    partition = entry.data_file.get("partition") or {}
    for pf in (spec.get("fields") or []) if isinstance(spec, dict) else []:
        one = {"spec-id": entry.spec_id, "fields": [pf]}
        try:
            if not accepts(schema_json, one, leaf, INCLUSIVE, partition):
                return False
        except (ex.Undecided, SpecViolation, ValueError, KeyError):
            continue
    return True


def might_match(doc: dict[str, Any], schema_json: dict[str, Any], entry: FileEntry, row_filter: Any) -> bool:
    """Inclusive: whether a data file may hold a row matching ``row_filter`` (JSON): ``and``
    needs both sides, ``or`` either; ``not`` is not pushed down (it may match)."""
    if isinstance(row_filter, bool):
        return row_filter
    kind = row_filter.get("type") if isinstance(row_filter, dict) else None
    if kind in ("true", "false"):
        return bool(kind == "true")
    if kind == "and":
        return (might_match(doc, schema_json, entry, row_filter["left"])
                and might_match(doc, schema_json, entry, row_filter["right"]))
    if kind == "or":
        return (might_match(doc, schema_json, entry, row_filter["left"])
                or might_match(doc, schema_json, entry, row_filter["right"]))
    if kind == "not":
        return True
    return _leaf_might_match(doc, schema_json, entry, row_filter)


def plan_files(metadata_path: str, snapshot_id: int | None = None, row_filter: Any = True) -> list[Task]:
    """The tasks a scan of a snapshot with ``row_filter`` reads: data files the partition
    projection and metrics do not rule out, each with the delete files that apply to it and
    whose own partition and metrics do not rule out the filter. Raises
    :class:`SpecViolation` when the filter does not bind to the snapshot's schema."""
    from . import expressions as ex
    from .schema import parse_schema

    doc = _metadata(metadata_path)
    snap = _snapshot(doc, snapshot_id)
    if snap is None:
        return []
    if row_filter is True:
        return plan(doc, snap)
    schema_json = _schema_json(doc, snap)
    ex.bind(parse_schema(schema_json), ex.parse_expression(row_filter))
    out = []
    for task in plan(doc, snap):
        if not might_match(doc, schema_json, task.data, row_filter):
            continue
        task.position_deletes = [x for x in task.position_deletes if might_match(doc, schema_json, x, row_filter)]
        task.equality_deletes = [x for x in task.equality_deletes
                                 if might_match(doc, schema_json, _delete_columns_only(x), row_filter)]
        out.append(task)
    return out


#: the column metrics of a content file, keyed by field id
_METRICS = ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds")


def _delete_columns_only(entry: FileEntry) -> FileEntry:
    """An equality delete file as far as its metrics bound the rows it deletes: those of its
    delete columns. "Delete columns are identified by id in the delete file metadata column
    ``equality_ids``"; the file may store other columns too ("Equality delete files store any
    subset of a table's columns"), whose values say nothing of the data rows it deletes, so a
    filter on them must not rule the file out."""
    ids = {str(i) for i in entry.data_file.get("equality_ids") or []}
    metrics = {k: {c: v for c, v in (entry.data_file.get(k) or {}).items() if str(c) in ids}
               for k in _METRICS if isinstance(entry.data_file.get(k), dict)}
    return replace(entry, data_file={**entry.data_file, **metrics})


def scan(metadata_path: str, snapshot_id: int | None = None, row_filter: Any = True,
         lineage: bool = False) -> list[dict[str, Any]]:
    """The rows of a snapshot (the current one for ``None``) that match ``row_filter`` (a
    predicate in the JSON form of ``format/expressions-spec.md``; ``True``: every row) as
    ``{column name: JSON value}``.

    Columns are those of the snapshot's schema (``schema-id``), else the current schema; with
    ``lineage`` (v3) also ``_row_id`` and ``_last_updated_sequence_number``. The filter is bound
    to the snapshot's schema. Data files whose partition (inclusive projection) or metrics prove
    that no row matches are not read (Scan Planning); the rows of the others are filtered with
    the predicate after deletes are applied."""
    from . import expressions as ex
    from .schema import parse_schema
    from .values import value_to_json

    doc = _metadata(metadata_path)
    snap = _snapshot(doc, snapshot_id)
    schema = schema_for(doc, snap)
    filtered = row_filter is not True
    bound: ex.Expression = ex.Constant(True)
    schema_json: dict[str, Any] = {}
    if filtered:
        schema_json = _schema_json(doc, snap)
        bound = ex.bind(parse_schema(schema_json), ex.parse_expression(row_filter))
    if snap is None:
        return []
    read = StructType(schema.fields + (ROW_ID, LAST_UPDATED)) if lineage else schema
    out = []
    for task in plan(doc, snap):
        if filtered and not might_match(doc, schema_json, task.data, row_filter):
            continue
        for row in read_task(doc, read, task, lineage):
            if filtered and not ex.evaluate(bound, {str(f.field_id): value_to_json(f.field_type, row.get(f.field_id))
                                                    for f in schema.fields}):
                continue
            out.append({f.name: value_to_json(f.field_type, row.get(f.field_id)) for f in read.fields})
    return out


__all__ = ["FileEntry", "Task", "file_rows", "live_files", "might_match", "plan", "plan_files", "read_task", "scan"]
