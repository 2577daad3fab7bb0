"""A small deterministic table writer: Parquet data, manifests, manifest lists, metadata.

Spec sections: "Manifests", "Manifest Lists", "Snapshots", "Table Metadata", "File System
Tables", "Appendix A / Parquet" (field ids stored in the Parquet schema), "Row Lineage" (v3).

:func:`write_table` writes a table of format version 1, 2 or 3 under a directory with fixed
ids, timestamps and UUIDs, so that writing it again yields the same bytes: three metadata
versions (``v1`` empty, ``v2`` after the first append, ``v3`` after the second), one Parquet data
file and one manifest per append, a manifest list per snapshot. Avro sync markers are derived
from the file name. The table is partitioned by ``identity(dt)``.

:class:`TableBuilder` writes v2/v3 tables of any flat schema commit by commit (appends,
equality deletes, deletion vectors, columns added with defaults, copy-on-write rewrites that
keep row lineage); the golden tables of the reference producer come from it.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import uuid
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from . import manifests, variant
from .binary import Point, point_to_bytes, to_bytes
from .commit import VERSION_HINT
from .transforms import parse_transform
from .types import (
    BinaryType, DateType, DoubleType, FixedType, FloatType, GeographyType, GeometryType, IcebergType, LongType,
    PrimitiveType, StringType, StructType, UUIDType, VariantType, parse_type,
)
from .values import from_json, to_json

TABLE_UUID = str(uuid.UUID(int=0x1CEB3A6))
BASE_MS = 1_700_000_000_000
SCHEMA: dict[str, Any] = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"},
    {"id": 3, "name": "dt", "required": False, "type": "date"},
]}
SPEC_FIELDS = [{"source-id": 3, "field-id": 1000, "name": "dt", "transform": "identity"}]
_EPOCH = _dt.date(1970, 1, 1)
_TYPES: dict[int, IcebergType] = {1: LongType(), 2: StringType(), 3: DateType()}

#: the two appends: (snapshot id, partition value in days, rows)
APPENDS: list[tuple[int, int, list[tuple[int, str | None]]]] = [
    (1001, 17486, [(1, "a"), (2, "b"), (3, None)]),   # 2017-11-16
    (1002, 17487, [(4, "d"), (5, "e")]),              # 2017-11-17
]


def _sync(name: str) -> bytes:
    return hashlib.sha256(name.encode()).digest()[:16]


def _arrow_schema() -> pa.Schema:
    def f(name: str, t: pa.DataType, fid: int, nullable: bool) -> pa.Field:
        return pa.field(name, t, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})
    return pa.schema([f("id", pa.int64(), 1, False), f("data", pa.string(), 2, True), f("dt", pa.date32(), 3, True)])


def _write_parquet(path: str, day: int, rows: list[tuple[int, str | None]]) -> dict[str, Any]:
    """Write the data file; return its metrics in the decoded ``data_file`` form."""
    table = pa.table({"id": [r[0] for r in rows], "data": [r[1] for r in rows], "dt": pa.array([day] * len(rows),
                      pa.date32())}, schema=_arrow_schema())
    pq.write_table(table, path, compression="NONE", write_statistics=True, store_schema=False)
    meta = pq.ParquetFile(path).metadata
    rg = meta.row_group(0)
    sizes: dict[str, int] = {}
    values: dict[str, int] = {}
    nulls: dict[str, int] = {}
    lower: dict[str, str] = {}
    upper: dict[str, str] = {}
    for i in range(rg.num_columns):
        col = rg.column(i)
        fid = i + 1
        sizes[str(fid)] = col.total_compressed_size
        values[str(fid)] = rg.num_rows
        stats = col.statistics
        nulls[str(fid)] = stats.null_count if stats is not None else 0
        if stats is not None and stats.has_min_max:
            lo, hi = stats.min, stats.max
            if isinstance(_TYPES[fid], DateType):
                lo, hi = (lo - _EPOCH).days, (hi - _EPOCH).days
            lower[str(fid)] = to_bytes(_TYPES[fid], lo).hex()
            upper[str(fid)] = to_bytes(_TYPES[fid], hi).hex()
    return {"record_count": meta.num_rows, "file_size_in_bytes": os.path.getsize(path),
            "column_sizes": sizes, "value_counts": values, "null_value_counts": nulls, "nan_value_counts": {},
            "lower_bounds": lower, "upper_bounds": upper, "split_offsets": [rg.column(0).data_page_offset]}



def _data_file(version: int, path: str, day: int, metrics: dict[str, Any]) -> dict[str, Any]:
    df: dict[str, Any] = {}
    if version >= 2:
        df["content"] = 0
    df.update({"file_path": path, "file_format": "PARQUET", "partition": {"1000": (_EPOCH + _dt.timedelta(days=day)).isoformat()},
               "record_count": metrics["record_count"], "file_size_in_bytes": metrics["file_size_in_bytes"],
               "column_sizes": metrics["column_sizes"], "value_counts": metrics["value_counts"],
               "null_value_counts": metrics["null_value_counts"], "nan_value_counts": metrics["nan_value_counts"],
               "lower_bounds": metrics["lower_bounds"], "upper_bounds": metrics["upper_bounds"],
               "key_metadata": None, "split_offsets": metrics["split_offsets"]})
    if version >= 2:
        df["equality_ids"] = None
    df["sort_order_id"] = 0
    if version >= 3:
        df["first_row_id"] = None
    if version >= 2:
        df["referenced_data_file"] = None
    if version >= 3:
        df["content_offset"] = None
        df["content_size_in_bytes"] = None
    return df


def _metadata(version: int, location: str, snapshots: list[dict[str, Any]], log: list[dict[str, Any]],
              next_row_id: int) -> dict[str, Any]:
    current = snapshots[-1]["snapshot-id"] if snapshots else None
    m: dict[str, Any] = {"format-version": version, "table-uuid": TABLE_UUID, "location": location}
    if version >= 2:
        m["last-sequence-number"] = len(snapshots)
    m.update({"last-updated-ms": BASE_MS + len(snapshots), "last-column-id": 3})
    if version == 1:
        m["schema"] = {k: v for k, v in SCHEMA.items() if k != "schema-id"} | {"schema-id": 0}
    m.update({"current-schema-id": 0, "schemas": [SCHEMA]})
    if version == 1:
        m["partition-spec"] = SPEC_FIELDS
    m.update({"default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": SPEC_FIELDS}],
              "last-partition-id": 1000, "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
              "properties": {}, "current-snapshot-id": current if current is not None else -1,
              "snapshots": snapshots, "snapshot-log": log, "metadata-log": []})
    if version >= 2:
        m["refs"] = {"main": {"snapshot-id": current, "type": "branch"}} if current is not None else {}
    if version >= 3:
        m["next-row-id"] = next_row_id
    return m


def write_table(directory: str, version: int) -> str:
    """Write the table under ``directory`` (its location); returns the current metadata path."""
    if version not in (1, 2, 3):
        raise ValueError(f"format version {version}: 1, 2 or 3")
    location = os.path.abspath(directory)
    data_dir, meta_dir = os.path.join(location, "data"), os.path.join(location, "metadata")
    os.makedirs(data_dir, exist_ok=True)
    os.makedirs(meta_dir, exist_ok=True)
    header = {"schema": json.dumps(SCHEMA, separators=(",", ":")), "schema-id": "0",
              "partition-spec": json.dumps(SPEC_FIELDS, separators=(",", ":")), "partition-spec-id": "0",
              "format-version": str(version)}
    if version >= 2:
        header["content"] = "data"
    schema = parse_type(SCHEMA)
    assert isinstance(schema, StructType)
    ptype = manifests.partition_type(SPEC_FIELDS, schema)
    versions = [_metadata(version, location, [], [], 0)]
    snapshots: list[dict[str, Any]] = []
    log: list[dict[str, Any]] = []
    list_entries: list[dict[str, Any]] = []
    next_row_id = 0
    for n, (snapshot_id, day, rows) in enumerate(APPENDS):
        seq = n + 1
        data_path = os.path.join(data_dir, f"dt={(_EPOCH + _dt.timedelta(days=day)).isoformat()}",
                                 f"{n:05d}-{snapshot_id}.parquet")
        os.makedirs(os.path.dirname(data_path), exist_ok=True)
        metrics = _write_parquet(data_path, day, rows)
        entry: dict[str, Any] = {"status": 1, "snapshot_id": snapshot_id if version == 1 else None}
        if version >= 2:
            entry.update({"sequence_number": None, "file_sequence_number": None})
        entry["data_file"] = _data_file(version, data_path, day, metrics)
        manifest_name = f"manifest-{snapshot_id}.avro"
        manifest_path = os.path.join(meta_dir, manifest_name)
        length = manifests.write_manifest(manifest_path, {"format_version": version, "metadata": header,
                                                          "entries": [entry]}, sync=_sync(manifest_name))
        mf: dict[str, Any] = {"manifest_path": manifest_path, "manifest_length": length, "partition_spec_id": 0}
        if version >= 2:
            mf.update({"content": 0, "sequence_number": seq, "min_sequence_number": seq})
        mf.update({"added_snapshot_id": snapshot_id, "added_files_count": 1, "existing_files_count": 0,
                   "deleted_files_count": 0, "added_rows_count": len(rows), "existing_rows_count": 0,
                   "deleted_rows_count": 0, "partitions": manifests.summarize([entry], ptype), "key_metadata": None})
        if version >= 3:
            mf["first_row_id"] = next_row_id
        list_entries = [mf] + list_entries
        list_name = f"snap-{snapshot_id}.avro"
        list_path = os.path.join(meta_dir, list_name)
        list_meta = {"snapshot-id": str(snapshot_id), "format-version": str(version)}
        if snapshots:
            list_meta["parent-snapshot-id"] = str(snapshots[-1]["snapshot-id"])
        if version >= 2:
            list_meta["sequence-number"] = str(seq)
        if version >= 3:
            list_meta["first-row-id"] = str(next_row_id)
        manifests.write_manifest_list(list_path, {"format_version": version, "metadata": list_meta,
                                                  "manifests": list_entries}, sync=_sync(list_name))
        snap: dict[str, Any] = {"snapshot-id": snapshot_id}
        if snapshots:
            snap["parent-snapshot-id"] = snapshots[-1]["snapshot-id"]
        if version >= 2:
            snap["sequence-number"] = seq
        snap.update({"timestamp-ms": BASE_MS + seq, "manifest-list": list_path,
                     "summary": {"operation": "append", "added-data-files": "1", "added-records": str(len(rows))},
                     "schema-id": 0})
        if version >= 3:
            snap.update({"first-row-id": next_row_id, "added-rows": len(rows)})
            next_row_id += len(rows)
        snapshots.append(snap)
        log.append({"timestamp-ms": BASE_MS + seq, "snapshot-id": snapshot_id})
        versions.append(_metadata(version, location, list(snapshots), list(log), next_row_id))
    for i, doc in enumerate(versions, start=1):
        with open(os.path.join(meta_dir, f"v{i}.metadata.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2) + "\n")
    with open(os.path.join(meta_dir, VERSION_HINT), "w", encoding="utf-8") as f:
        f.write(str(len(versions)))
    return os.path.join(meta_dir, f"v{len(versions)}.metadata.json")


def table_files(directory: str) -> dict[str, bytes]:
    """Every file of a written table, by path relative to ``directory`` (for byte comparison)."""
    out = {}
    for root, _, names in os.walk(directory):
        for name in sorted(names):
            p = os.path.join(root, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, directory)] = f.read()
    return out


# --- a table written commit by commit ------------------------------------------------------
# :class:`TableBuilder` writes format v2 and v3 tables of any flat schema, commit by commit:
# appends, equality deletes (scoped to a partition, or global through an unpartitioned spec),
# deletion vectors (several in one Puffin file), and columns added with defaults. Rows are given
# in the spec's JSON single-value form (Appendix D) and converted with :mod:`reference.values`.
# Every commit writes its new files, one manifest per content it adds, a manifest list that
# carries the previous snapshot's manifests, and a new metadata version.

_ARROW_TYPES: dict[str, Any] = {
    "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(), "double": pa.float64(),
    "date": pa.date32(), "string": pa.string(), "binary": pa.binary(),
    "timestamp": pa.timestamp("us"), "timestamptz": pa.timestamp("us", tz="UTC"),
    "timestamp_ns": pa.timestamp("ns"), "timestamptz_ns": pa.timestamp("ns", tz="UTC"),
    # Appendix A (Parquet): time is int64 TIME(MICROS, not adjusted to UTC), uuid a 16-byte
    # fixed_len_byte_array with the UUID logical type (Arrow's arrow.uuid extension)
    "time": pa.time64("us"), "uuid": pa.uuid(),
}


class _GeoArrowWkb(pa.ExtensionType):  # type: ignore[misc]
    """Arrow's ``geoarrow.wkb`` extension over binary: pyarrow writes it as a Parquet
    ``GEOMETRY`` column, or ``GEOGRAPHY`` when the metadata names edges (Appendix A: Parquet)."""

    def __init__(self, metadata: str) -> None:
        self._metadata = metadata
        super().__init__(pa.binary(), "geoarrow.wkb")

    def __arrow_ext_serialize__(self) -> bytes:
        return self._metadata.encode()

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: Any, serialized: bytes) -> "_GeoArrowWkb":
        return cls(serialized.decode())


def _arrow_type(type_: Any) -> Any:
    """The Arrow type the writer stores a column of Iceberg type ``type_`` (metadata JSON) as; a
    struct's fields carry their field ids ("Appendix A": Parquet field ids of nested fields)."""
    if isinstance(type_, dict):
        if type_.get("type") != "struct":
            raise ValueError(f"the writer stores structs of primitives, not {type_.get('type')!r}")
        return pa.struct([pa.field(f["name"], _arrow_type(f["type"]), nullable=not f["required"],
                                   metadata={b"PARQUET:field_id": str(f["id"]).encode()})
                          for f in type_["fields"]])
    base = type_.split("(")[0].strip()
    if base == "geometry":
        return _GeoArrowWkb("{}")
    if base == "geography":
        return _GeoArrowWkb('{"edges": "spherical"}')
    if base.startswith("fixed["):        # fixed[L]: a fixed_len_byte_array of L bytes
        return pa.binary(int(base[len("fixed["):-1]))
    return _ARROW_TYPES[type_]


def _by_name(t: IcebergType, v: Any) -> Any:
    """A struct value keyed by field id (:func:`values.from_json`) keyed by field name, for Arrow."""
    if isinstance(t, StructType) and v is not None:
        return {f.name: _by_name(f.field_type, v.get(f.field_id)) for f in t.fields}
    return v


def _leaves(t: StructType, values: list[Any]) -> list[tuple[int, list[Any]]]:
    """(field id, values) of the primitive fields under struct ``t`` for struct ``values`` (keyed
    by field id): a null struct makes its fields null."""
    out: list[tuple[int, list[Any]]] = []
    for f in t.fields:
        inner = [None if v is None else v.get(f.field_id) for v in values]
        if isinstance(f.field_type, StructType):
            out += _leaves(f.field_type, inner)
        else:
            out.append((f.field_id, inner))
    return out


def _arrow_array(values: list[Any], t: Any) -> Any:
    if isinstance(t, pa.ExtensionType):
        if t.extension_name == "arrow.uuid":
            values = [None if v is None else v.bytes for v in values]
        return pa.ExtensionArray.from_storage(t, pa.array(values, t.storage_type))
    return pa.array(values, t)


def geo_bounds(type_: IcebergType, values: list[bytes]) -> tuple[Point, Point] | None:
    """Lower and upper bound points of WKB ``values`` ("Bounds for Geometry and Geography"): the
    box of every coordinate, NaN coordinates skipped, a dimension with no value left unset, no
    box without x or y. For geography only when every value is a point or multipoint: the box of
    spherical edges is not the box of their vertices, and bounds are optional."""
    import shapely

    from .geo import read_wkb

    geoms = [read_wkb(type_, v) for v in values]
    if isinstance(type_, GeographyType) and any(g.geom_type not in ("Point", "MultiPoint") for g in geoms):
        return None
    lows: list[float | None] = []
    highs: list[float | None] = []
    for dim in range(4):
        found: list[float] = []
        for g in geoms:
            if dim == 2 and not shapely.has_z(g) or dim == 3 and not shapely.has_m(g):
                continue
            coords = shapely.get_coordinates(g, include_z=dim == 2, include_m=dim == 3)
            column = coords[:, 2 if dim >= 2 else dim] if len(coords) else []
            found += [float(c) for c in column if c == c]
        lows.append(min(found) if found else None)
        highs.append(max(found) if found else None)
    if lows[0] is None or lows[1] is None or highs[0] is None or highs[1] is None:
        return None
    return (lows[0], lows[1], lows[2], lows[3]), (highs[0], highs[1], highs[2], highs[3])


#: v3 data_file fields a newly added content file leaves null (inherited, or not a DV)
_V3_NONE = {"first_row_id": None, "content_offset": None, "content_size_in_bytes": None}


def _f(fid: int, name: str, type_: str, required: bool = False) -> dict[str, Any]:
    return {"id": fid, "name": name, "required": required, "type": type_}


def _bound_order(t: IcebergType) -> Any:
    """The sort key of values of ``t`` for bounds: strings by their UTF-8 bytes, uuid by its 16
    bytes, binary and fixed unsigned byte-wise ("Sorting" and Appendix D); -0.0 before +0.0 for
    float and double ("Manifests": "the value -0.0 must precede +0.0, as in the IEEE 754
    totalOrder predicate"); other types by their value."""
    if isinstance(t, StringType):
        return lambda v: v.encode("utf-8")
    if isinstance(t, UUIDType):
        return lambda v: v.bytes
    if isinstance(t, (BinaryType, FixedType)):
        return bytes
    if isinstance(t, (FloatType, DoubleType)):
        return lambda v: (v, math.copysign(1.0, v))
    return lambda v: v


class TableBuilder:
    """A v2/v3 table under ``location`` written commit by commit with fixed ids and times.

    ``fields`` are the schema's top-level fields in metadata JSON form (primitive types only);
    ``specs`` the partition specs' field lists (spec id = position; spec 0 is the default,
    :meth:`evolve_spec` adds one and makes it the default). With ``bounds`` every data and delete
    file gets the lower and upper bounds of its primitive columns ("Manifests": bounds of the
    non-null, non-NaN values, in the binary form of Appendix D, never truncated) and NaN counts
    of its float and double columns, and a variant column (written shredded,
    :func:`variant.shred`) its bounds by normalized path ("Bounds for Variant"; strings and binary
    cut to :attr:`variant_truncate`, the upper bound rounded up); without, only geometry and
    geography columns have bounds. A variant column's row values are plain Python values or
    :mod:`reference.variant` values (:func:`variant.from_python`).
    Snapshot ids are ``1001, 1002, ...``; the snapshot of commit ``n`` has sequence number ``n``.
    """

    def __init__(self, location: str, version: int, fields: list[dict[str, Any]],
                 specs: list[list[dict[str, Any]]] | None = None, properties: dict[str, str] | None = None,
                 bounds: bool = False, row_group_size: int | None = None, snapshot_log: bool = True,
                 list_version_key: bool = True, list_field_names: dict[int, str] | None = None,
                 entry_fields_omitted: tuple[int, ...] = (), list_partitions: bool = True,
                 deprecated_fields: bool = False) -> None:
        if version not in (2, 3):
            raise ValueError(f"TableBuilder writes format version 2 or 3, not {version}")
        self.location = os.path.abspath(location)
        self.version = version
        self.bounds = bounds
        #: code points (string) or bytes (binary) variant bounds are cut to (as Iceberg Java's
        #: default metrics mode ``truncate(16)``); None: not cut
        self.variant_truncate: int | None = 16
        #: rows per Parquet row group (pyarrow's default: one group for a small file)
        self.row_group_size = row_group_size
        #: write the optional ``snapshot-log`` ("Table Metadata Fields": optional in every version)
        self.write_snapshot_log = snapshot_log
        #: write the ``format-version`` key in manifest lists' Avro metadata (no version requires it;
        #: "Manifest Lists" lists none, unlike the manifest header keys of "Manifests")
        self.list_version_key = list_version_key
        #: field id -> the name a manifest list's field takes instead of the spec's (fields are
        #: identified by id; e.g. the names Iceberg Java wrote before 1.4 for 504..506)
        self.list_field_names = dict(list_field_names or {})
        #: ids of the optional manifest_entry fields (1 snapshot_id, 3 sequence_number, 4
        #: file_sequence_number) left out of the schema of manifests whose entries are all ADDED
        #: (their values are inherited, "Manifest Entry Fields"; BigQuery writes manifests so)
        self.entry_fields_omitted = tuple(entry_fields_omitted)
        #: write the optional ``partitions`` field summaries of the manifest list (507); without,
        #: it is null ("Manifest Lists": optional)
        self.list_partitions = list_partitions
        #: data manifests whose ``data_file`` record also has the deprecated fields 106, 107 and
        #: 111 (null values), as manifests of early Iceberg Java have them
        self.deprecated_fields = deprecated_fields
        self.schemas: list[dict[str, Any]] = [{"type": "struct", "schema-id": 0, "fields": list(fields)}]
        #: the highest field id of the schemas removed (:meth:`remove_unused_schemas`)
        self.assigned_column_id = 0
        self.specs: list[dict[str, Any]] = [{"spec-id": i, "fields": f} for i, f in enumerate(specs or [[]])]
        self.default_spec_id = 0
        self.properties = dict(properties or {})
        self.snapshots: list[dict[str, Any]] = []
        self.snapshot_log: list[dict[str, Any]] = []
        self.metadata_log: list[dict[str, Any]] = []
        self.manifests: list[dict[str, Any]] = []          # the current snapshot's manifest list
        self.data_files: dict[str, dict[str, Any]] = {}    # path -> decoded data_file, as added
        self.entries: dict[str, list[dict[str, Any]]] = {}  # manifest path -> its entries, as written
        self.file_info: dict[str, dict[str, Any]] = {}     # content file path -> inherited values
        self.next_row_id = 0
        self.sequence_number = 0   # of the latest commit (snapshots may be expired)
        self.files = 0
        self.data_dir = os.path.join(self.location, "data")
        self.meta_dir = os.path.join(self.location, "metadata")
        os.makedirs(self.data_dir, exist_ok=True)
        os.makedirs(self.meta_dir, exist_ok=True)
        self._write_metadata()

    # -- schema --------------------------------------------------------------------------

    @property
    def schema(self) -> dict[str, Any]:
        return self.schemas[-1]

    def _struct(self, schema: dict[str, Any] | None = None) -> StructType:
        st = parse_type({"type": "struct", "fields": (schema or self.schema)["fields"]})
        assert isinstance(st, StructType)
        return st

    def last_column_id(self) -> int:
        """The highest field id of any schema, nested fields included."""
        def ids(fields: list[dict[str, Any]]) -> list[int]:
            out = []
            for f in fields:
                out.append(int(f["id"]))
                if isinstance(f["type"], dict) and f["type"].get("type") == "struct":
                    out += ids(f["type"]["fields"])
            return out
        return max([self.assigned_column_id] + [i for s in self.schemas for i in ids(s["fields"])])

    def add_column(self, field: dict[str, Any]) -> None:
        """"Schema Evolution": a new schema with ``field`` appended (a new metadata version)."""
        fields = self.schema["fields"] + [field]
        self.schemas.append({"type": "struct", "schema-id": self.schema["schema-id"] + 1, "fields": fields})
        self._write_metadata()

    def drop_column(self, name: str) -> None:
        """"Schema Evolution": a new schema without the top-level field ``name``."""
        fields = [f for f in self.schema["fields"] if f["name"] != name]
        if len(fields) == len(self.schema["fields"]):
            raise ValueError(f"no top-level column {name!r} to drop")
        self.schemas.append({"type": "struct", "schema-id": self.schema["schema-id"] + 1, "fields": fields})
        self._write_metadata()

    def remove_unused_schemas(self) -> None:
        """Remove every schema neither current nor of a snapshot the metadata lists (as the
        expiry of snapshots may, "Schemas"), in a metadata version of its own; the files written
        with a removed schema stay, read by field id. ``last-column-id`` keeps the highest id
        ever assigned."""
        used = {s.get("schema-id") for s in self.snapshots} | {self.schema["schema-id"]}
        self.assigned_column_id = self.last_column_id()
        self.schemas = [s for s in self.schemas if s["schema-id"] in used]
        self._write_metadata()

    def evolve_spec(self, fields: list[dict[str, Any]]) -> int:
        """"Partition Evolution": a new partition spec (the next spec id) made the default, in a
        metadata version of its own; returns its spec id. Data files keep the spec they were
        written with."""
        spec_id = len(self.specs)
        self.specs.append({"spec-id": spec_id, "fields": list(fields)})
        self.default_spec_id = spec_id
        self._write_metadata()
        return spec_id

    # -- files -----------------------------------------------------------------------------

    def _name(self, stem: str, ext: str) -> str:
        self.files += 1
        return os.path.join(self.data_dir, f"{self.files:05d}-{stem}.{ext}")

    def _write_parquet(self, path: str, fields: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Write ``rows`` (JSON single-value form; a field a row lacks takes its ``write-default``)
        as a Parquet file with field ids; ``unknown`` columns are not written ("Schemas and Data
        Types": unknown values are always null and are not stored in data files)."""
        types = self._struct({"fields": fields})
        arrays, arrow_fields = [], []
        counts: dict[str, int] = {}
        nulls: dict[str, int] = {}
        lower: dict[str, str] = {}
        upper: dict[str, str] = {}
        nans: dict[str, int] = {}
        for f, nf in zip(fields, types.fields):
            if f["type"] == "unknown":
                continue
            default = f.get("write-default")
            values = [r.get(f["name"], default) if f["name"] not in r else r[f["name"]] for r in rows]
            if isinstance(nf.field_type, VariantType):
                arrays.append(self._variant_column(f, [None if v is None else variant.from_python(v) for v in values],
                                                   lower, upper))
                arrow_fields.append(pa.field(f["name"], arrays[-1].type, nullable=not f["required"],
                                             metadata={b"PARQUET:field_id": str(f["id"]).encode()}))
                continue
            internal = [None if v is None else from_json(nf.field_type, v) for v in values]
            arrow_type = _arrow_type(f["type"])
            arrays.append(_arrow_array([_by_name(nf.field_type, v) for v in internal], arrow_type))
            arrow_fields.append(pa.field(f["name"], arrow_type, nullable=not f["required"],
                                         metadata={b"PARQUET:field_id": str(f["id"]).encode()}))
            if isinstance(nf.field_type, StructType):
                # counts of the primitive fields under it, as for the columns of the file
                for leaf, leaf_values in _leaves(nf.field_type, internal):
                    counts[str(leaf)] = len(leaf_values)
                    nulls[str(leaf)] = sum(v is None for v in leaf_values)
                continue
            counts[str(f["id"])] = len(values)
            nulls[str(f["id"])] = sum(v is None for v in values)
            if isinstance(nf.field_type, (GeometryType, GeographyType)):
                box = geo_bounds(nf.field_type, [v for v in internal if v is not None])
                if box is not None:
                    lower[str(f["id"])] = point_to_bytes(box[0]).hex()
                    upper[str(f["id"])] = point_to_bytes(box[1]).hex()
            elif self.bounds and isinstance(nf.field_type, PrimitiveType) and not isinstance(nf.field_type, VariantType):
                if isinstance(nf.field_type, (FloatType, DoubleType)):
                    nans[str(f["id"])] = sum(isinstance(v, float) and math.isnan(v) for v in internal)
                regular = [v for v in internal if v is not None and not (isinstance(v, float) and math.isnan(v))]
                if regular:
                    key = _bound_order(nf.field_type)
                    lower[str(f["id"])] = to_bytes(nf.field_type, min(regular, key=key)).hex()
                    upper[str(f["id"])] = to_bytes(nf.field_type, max(regular, key=key)).hex()
        pq.write_table(pa.Table.from_arrays(arrays, schema=pa.schema(arrow_fields)), path, compression="NONE",
                       store_schema=False, row_group_size=self.row_group_size)
        out: dict[str, Any] = {"record_count": len(rows), "file_size_in_bytes": os.path.getsize(path),
                               "value_counts": counts, "null_value_counts": nulls}
        if lower:
            out.update(lower_bounds=lower, upper_bounds=upper)
        if nans:
            out["nan_value_counts"] = nans
        return out

    def _variant_column(self, f: dict[str, Any], rows: list[variant.Variant | None], lower: dict[str, str],
                        upper: dict[str, str]) -> Any:
        """A variant column, shredded (:func:`variant.shred`: the top-level object fields of one
        primitive type in ``typed_value``); with ``bounds``, its bounds by normalized path
        ("Bounds for Variant", Appendix D), strings and binary truncated to
        :attr:`variant_truncate` with the upper bound rounded up."""
        arr, _ = variant.shred(rows)
        if self.bounds:
            lo, hi = variant.column_bounds(rows, self.variant_truncate)
            if lo:
                lower[str(f["id"])] = variant.bounds_to_bytes(lo).hex()
                upper[str(f["id"])] = variant.bounds_to_bytes(hi).hex()
        return arr

    def _partition(self, spec_id: int, row: dict[str, Any]) -> dict[str, Any]:
        """The partition tuple (JSON form, keyed by partition field id) of a row."""
        st = self._struct()
        out: dict[str, Any] = {}
        for pf in self.specs[spec_id]["fields"]:
            src = next(f for f in st.fields if f.field_id == pf["source-id"])
            tr = parse_transform(pf["transform"])
            raw = row.get(src.name)
            value = tr.apply(src.field_type, None if raw is None else from_json(src.field_type, raw))
            out[str(pf["field-id"])] = None if value is None else to_json(tr.result_type(src.field_type), value)
        return out

    def _content_file(self, content: int, path: str, fmt: str, partition: dict[str, Any],
                      metrics: dict[str, Any], **extra: Any) -> dict[str, Any]:
        df: dict[str, Any] = {"content": content, "file_path": path, "file_format": fmt, "partition": partition,
                              "record_count": metrics["record_count"],
                              "file_size_in_bytes": metrics["file_size_in_bytes"],
                              "column_sizes": None, "value_counts": metrics.get("value_counts"),
                              "null_value_counts": metrics.get("null_value_counts"),
                              "nan_value_counts": metrics.get("nan_value_counts"),
                              "lower_bounds": metrics.get("lower_bounds"), "upper_bounds": metrics.get("upper_bounds"),
                              "key_metadata": None,
                              "split_offsets": None, "equality_ids": None,
                              "sort_order_id": 0 if content == 0 else None, "referenced_data_file": None}
        if self.version >= 3:
            df.update(_V3_NONE)
        df.update(extra)
        return df

    # -- commits ---------------------------------------------------------------------------

    def append(self, rows: list[dict[str, Any]], spec_id: int | None = None, omit: tuple[str, ...] = ()) -> int:
        """One data file per partition of ``rows`` under ``spec_id`` (the default spec unless
        given); returns the new snapshot id. ``omit``: columns the data files do not store (as in
        files of a table migrated from Hive, whose identity partition columns are only in the
        partition tuple; "Column Projection" reads them from partition metadata)."""
        spec_id = self.default_spec_id if spec_id is None else spec_id
        stored = [f for f in self.schema["fields"] if f["name"] not in omit]
        by_part: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
        for r in rows:
            part = self._partition(spec_id, r)
            by_part.setdefault(json.dumps(part, sort_keys=True), (part, []))[1].append(r)
        files = []
        for part, part_rows in by_part.values():
            path = self._name("data", "parquet")
            metrics = self._write_parquet(path, stored, part_rows)
            df = self._content_file(0, path, "PARQUET", part, metrics)
            self.data_files[path] = df
            files.append(df)
        return self._commit("append", {0: (spec_id, files)})

    def equality_delete(self, rows: list[dict[str, Any]], columns: list[str], spec_id: int = 0,
                        partition_row: dict[str, Any] | None = None, also_append: list[dict[str, Any]] | None = None,
                        stored: tuple[str, ...] = ()) -> int:
        """"Equality Delete Files": delete rows equal on ``columns`` to one of ``rows``; the file
        is in the partition of ``partition_row`` under ``spec_id`` (an unpartitioned spec makes it
        global). ``also_append`` adds a data file in the same commit (same sequence number). The
        file's columns and ``equality_ids`` are in the order of ``columns`` ("Delete columns are
        identified by id", not by position). ``stored``: top-level columns the file also stores
        after them that are no delete columns ("Equality delete files store any subset of a
        table's columns"; only ``equality_ids`` name the delete columns)."""
        fields, ids = [], []
        for c in columns:
            # a nested column ``s.f`` (one level): the file stores struct s with field f only
            top, _, inner = c.partition(".")
            field = next(f for f in self.schema["fields"] if f["name"] == top)
            if inner:
                leaf = next(f for f in field["type"]["fields"] if f["name"] == inner)
                field = dict(field, type=dict(field["type"], fields=[leaf]))
                ids.append(leaf["id"])
            else:
                ids.append(field["id"])
            fields.append(field)
        fields += [next(f for f in self.schema["fields"] if f["name"] == c) for c in stored]
        path = self._name("eq-deletes", "parquet")
        metrics = self._write_parquet(path, fields, rows)
        df = self._content_file(2, path, "PARQUET", self._partition(spec_id, partition_row or {}), metrics,
                                equality_ids=ids)
        added: dict[int, tuple[int, list[dict[str, Any]]]] = {2: (spec_id, [df])}
        if also_append:
            data_path = self._name("data", "parquet")
            data = self._content_file(0, data_path, "PARQUET", self._partition(0, also_append[0]),
                                      self._write_parquet(data_path, self.schema["fields"], also_append))
            self.data_files[data_path] = data
            added[0] = (0, [data])
        return self._commit("overwrite" if also_append else "delete", added)

    def position_deletes(self, deletes: dict[str, list[int]], file_scoped: bool = False) -> int:
        """"Position Delete Files": one file of (file_path, pos) rows sorted by path then position
        (data file path -> deleted positions; the data files share one partition). With
        ``file_scoped`` (one data file) ``referenced_data_file`` names it. v2 only: v3 tables take
        deletion vectors."""
        if self.version >= 3:
            raise ValueError("position delete files must not be added to v3 tables")
        targets = [self.data_files[p] for p in deletes]
        if len({json.dumps(t["partition"], sort_keys=True) for t in targets}) != 1:
            raise ValueError("the data files of one position delete file share a partition")
        if file_scoped and len(deletes) != 1:
            raise ValueError("a file-scoped position delete file references one data file")
        rows = [{"file_path": p, "pos": pos} for p in sorted(deletes) for pos in sorted(set(deletes[p]))]
        path = self._name("pos-deletes", "parquet")
        fields = [_f(2147483546, "file_path", "string", True), _f(2147483545, "pos", "long", True)]
        metrics = self._write_parquet(path, fields, rows)
        df = self._content_file(1, path, "PARQUET", targets[0]["partition"], metrics,
                                referenced_data_file=next(iter(deletes)) if file_scoped else None)
        return self._commit("delete", {1: (0, [df])})

    def upgrade(self, version: int = 3) -> None:
        """"Format Versioning": the table's format version raised, in a metadata version of its
        own. Upgraded to v3 ("Row Lineage for Upgraded Tables"), ``next-row-id`` starts at 0 and
        the existing snapshots stay as written (no ``first-row-id``); the next commit assigns row
        ids to every data manifest that has none."""
        if version < self.version or version > 3:
            raise ValueError(f"cannot change format version {self.version} to {version}")
        if version == 3 and self.version < 3:
            self.next_row_id = 0
        self.version = version
        self._write_metadata()

    def deletion_vectors(self, deletes: dict[str, list[int]]) -> int:
        """"Deletion Vectors": one Puffin file holding one DV per data file of ``deletes`` (data
        file path -> deleted positions), each a delete-file entry with its blob's offset and size."""
        from .puffin import deletion_vector_blob, read_puffin, write_puffin

        if self.version < 3:
            raise ValueError("deletion vectors are a v3 feature")
        path = self._name("dvs", "puffin")
        with open(path, "wb") as f:
            f.write(write_puffin([deletion_vector_blob(pos, p) for p, pos in deletes.items()]))
        blobs = read_puffin(path).metadata.blobs
        size = os.path.getsize(path)
        dvs = []
        spec_id = 0
        for (data_path, positions), blob in zip(deletes.items(), blobs):
            target = self.data_files[data_path]
            dvs.append(self._content_file(1, path, "PUFFIN", target["partition"],
                                          {"record_count": len(set(positions)), "file_size_in_bytes": size},
                                          referenced_data_file=data_path, content_offset=blob.offset,
                                          content_size_in_bytes=blob.length, sort_order_id=None))
        return self._commit("delete", {1: (spec_id, dvs)})

    def compact(self, old_path: str) -> int:
        """A v2 compaction of one data file: its rows copied unchanged into a new file that keeps
        the old file's data sequence number, while its file sequence number is this commit's ("The
        file sequence number can't be used for pruning delete files as the data within the file may
        have an older data sequence number"). The old file's manifest is rewritten: the old file
        DELETED, its other files EXISTING, the new file ADDED with an explicit sequence_number."""
        if self.version != 2:
            raise ValueError("compact writes a v2 rewrite (a v3 rewrite carries row lineage: rewrite)")
        path = self._name("data", "parquet")
        rows = pq.read_table(old_path).to_pylist()
        df = self._content_file(0, path, "PARQUET", self.data_files[old_path]["partition"],
                                self._write_parquet(path, self.schema["fields"], rows))
        self.data_files[path] = df
        old_manifest, entries = self._replaced(old_path)
        entries.append({"status": 1, "snapshot_id": None, "sequence_number": self.file_info[old_path]["sequence_number"],
                        "file_sequence_number": None, "data_file": df})
        return self._commit("replace", {}, replace=(old_manifest, 0, entries))

    def _replaced(self, old_path: str) -> tuple[str, list[dict[str, Any]]]:
        """The manifest holding ``old_path`` and its entries for the next commit, which replaces
        that file: ``old_path`` DELETED by that commit, its other live files EXISTING with their
        inherited values written (and, in v3, their first_row_id)."""
        old_manifest = next(mf["manifest_path"] for mf in self.manifests if any(
            e["data_file"]["file_path"] == old_path for e in self.entries[mf["manifest_path"]]))
        entries = []
        for e in self.entries[old_manifest]:
            if e["status"] == 2:
                continue
            info = self.file_info[e["data_file"]["file_path"]]
            data_file = e["data_file"] if self.version < 3 else dict(e["data_file"], first_row_id=info["first_row_id"])
            kept: dict[str, Any] = {"status": 0, "snapshot_id": info["snapshot_id"],
                                    "sequence_number": info["sequence_number"],
                                    "file_sequence_number": info["sequence_number"], "data_file": data_file}
            if e["data_file"]["file_path"] == old_path:
                kept.update(status=2, snapshot_id=1000 + self.sequence_number + 1)
            entries.append(kept)
        return old_manifest, entries

    def rewrite(self, old_path: str, rows: list[dict[str, Any]], lineage: list[tuple[int, int | None]]) -> int:
        """Copy-on-write of one data file: ``old_path`` is replaced by a new file holding ``rows``
        and, for each row, the ``_row_id`` it keeps and its ``_last_updated_sequence_number``
        (``None`` for a modified row, which then inherits this commit's sequence number), as
        "Row Lineage" asks of a writer that moves existing rows. The old file's manifest is
        rewritten: the old file DELETED, its other files EXISTING, the new file ADDED."""
        if self.version < 3:
            raise ValueError("row lineage columns are a v3 feature")
        path = self._name("data", "parquet")
        fields = self.schema["fields"] + [_f(2147483540, "_row_id", "long"),
                                          _f(2147483539, "_last_updated_sequence_number", "long")]
        written = [dict(r, _row_id=rid, _last_updated_sequence_number=lusn) for r, (rid, lusn) in zip(rows, lineage)]
        metrics = self._write_parquet(path, fields, written)
        for k in ("value_counts", "null_value_counts"):
            metrics[k] = {fid: n for fid, n in metrics[k].items() if int(fid) < 2147483447}
        df = self._content_file(0, path, "PARQUET", self.data_files[old_path]["partition"], metrics)
        self.data_files[path] = df
        old_manifest, entries = self._replaced(old_path)
        entries.append({"status": 1, "snapshot_id": None, "sequence_number": None, "file_sequence_number": None,
                        "data_file": df})
        return self._commit("overwrite", {}, replace=(old_manifest, 0, entries))

    def _commit(self, operation: str, added: dict[int, tuple[int, list[dict[str, Any]]]],
                replace: tuple[str, int, list[dict[str, Any]]] | None = None) -> int:
        """A snapshot adding ``added`` (content -> (spec id, files)) in new manifests, and with
        ``replace`` = (manifest path, spec id, entries) a rewritten data manifest in place of
        that manifest; new manifests first, then the previous snapshot's manifests as they were
        ("Manifest Lists")."""
        seq = self.sequence_number + 1
        sid = 1000 + seq
        new = []
        to_write: list[tuple[int, int, list[dict[str, Any]]]] = [(content, spec_id, [{"status": 1, "snapshot_id": None, "sequence_number": None,
                                         "file_sequence_number": None, "data_file": df} for df in files])
                    for content, (spec_id, files) in sorted(added.items())]
        if replace is not None:
            to_write.append((0, replace[1], replace[2]))
            self.manifests = [mf for mf in self.manifests if mf["manifest_path"] != replace[0]]
        for content, spec_id, entries in to_write:
            kind = "data" if content == 0 else "deletes"
            spec_fields = self.specs[spec_id]["fields"]
            header = {"schema": json.dumps(self.schema, separators=(",", ":")),
                      "schema-id": str(self.schema["schema-id"]),
                      "partition-spec": json.dumps(spec_fields, separators=(",", ":")),
                      "partition-spec-id": str(spec_id), "format-version": str(self.version), "content": kind}
            name = f"manifest-{sid}-{content}{'-rewritten' if entries[0]['status'] != 1 else ''}.avro"
            mpath = os.path.join(self.meta_dir, name)
            omit = self.entry_fields_omitted if all(e["status"] == 1 for e in entries) else ()
            length = manifests.write_manifest(mpath, {"format_version": self.version, "metadata": header,
                                                      "entries": entries}, sync=_sync(name), omit=omit,
                                              deprecated=self.deprecated_fields and content == 0)
            self.entries[mpath] = entries

            def count(status: int, what: str = "files") -> int:
                return sum(1 if what == "files" else e["data_file"]["record_count"]
                           for e in entries if e["status"] == status)
            live_seqs = [seq if e["sequence_number"] is None else e["sequence_number"]
                         for e in entries if e["status"] != 2]
            mf: dict[str, Any] = {"manifest_path": mpath, "manifest_length": length, "partition_spec_id": spec_id,
                                  "content": 0 if content == 0 else 1, "sequence_number": seq,
                                  "min_sequence_number": min(live_seqs), "added_snapshot_id": sid,
                                  "added_files_count": count(1), "existing_files_count": count(0),
                                  "deleted_files_count": count(2), "added_rows_count": count(1, "rows"),
                                  "existing_rows_count": count(0, "rows"), "deleted_rows_count": count(2, "rows"),
                                  "partitions": manifests.summarize([e for e in entries if e["status"] != 2],
                                                                    manifests.partition_type(spec_fields,
                                                                                             self._struct()))
                                  if self.list_partitions else None,
                                  "key_metadata": None}
            new.append(mf)
        first_row_id = self.next_row_id
        added_rows = 0
        # data manifests kept from before an upgrade to v3 have no first_row_id yet
        unassigned = [mf for mf in self.manifests if mf["content"] == 0 and mf.get("first_row_id") is None] \
            if self.version >= 3 else []
        if self.version >= 3:
            # "Row Lineage": data manifests without a first_row_id get one, in list order (the
            # new manifests first, then those kept from before an upgrade)
            for mf in new + unassigned:
                mf["first_row_id"] = None
                if mf["content"] == 0:
                    mf["first_row_id"] = first_row_id + added_rows
                    added_rows += mf["added_rows_count"] + mf["existing_rows_count"]
            for mf in self.manifests:   # delete manifests kept from before an upgrade: no row ids
                mf.setdefault("first_row_id", None)
        for mf in new:   # "First Row ID Inheritance": what a reader resolves, for later rewrites
            next_id = mf.get("first_row_id")
            for e in self.entries[mf["manifest_path"]]:
                df = e["data_file"]
                if e["status"] == 1:
                    first = None
                    if mf["content"] == 0 and next_id is not None:
                        first, next_id = next_id, next_id + df["record_count"]
                    # an ADDED entry inherits the commit's sequence number unless it states one
                    data_seq = seq if e.get("sequence_number") is None else e["sequence_number"]
                    self.file_info[df["file_path"]] = {"snapshot_id": sid, "sequence_number": data_seq,
                                                       "first_row_id": first}
        for mf in unassigned:  # their live files, written without first_row_id, inherit in order
            next_id = mf["first_row_id"]
            for e in self.entries[mf["manifest_path"]]:
                if e["status"] != 2 and e["data_file"].get("first_row_id") is None:
                    self.file_info[e["data_file"]["file_path"]]["first_row_id"] = next_id
                    next_id += e["data_file"]["record_count"]
        self.manifests = new + self.manifests
        list_name = f"snap-{sid}.avro"
        list_path = os.path.join(self.meta_dir, list_name)
        list_meta = {"snapshot-id": str(sid), "format-version": str(self.version), "sequence-number": str(seq)}
        if not self.list_version_key:
            del list_meta["format-version"]
        if self.snapshots:
            list_meta["parent-snapshot-id"] = str(self.snapshots[-1]["snapshot-id"])
        if self.version >= 3:
            list_meta["first-row-id"] = str(first_row_id)
        manifests.write_manifest_list(list_path, {"format_version": self.version, "metadata": list_meta,
                                                  "manifests": self.manifests}, sync=_sync(list_name),
                                      names=self.list_field_names)
        snap: dict[str, Any] = {"snapshot-id": sid}
        if self.snapshots:
            snap["parent-snapshot-id"] = self.snapshots[-1]["snapshot-id"]
        snap.update({"sequence-number": seq, "timestamp-ms": BASE_MS + 1000 * seq, "manifest-list": list_path,
                     "summary": {"operation": operation}, "schema-id": self.schema["schema-id"]})
        if self.version >= 3:
            snap.update({"first-row-id": first_row_id, "added-rows": added_rows})
            self.next_row_id = first_row_id + added_rows
        self.snapshots.append(snap)
        self.sequence_number = seq
        self.snapshot_log.append({"timestamp-ms": snap["timestamp-ms"], "snapshot-id": sid})
        self._write_metadata()
        return sid

    def expire_snapshots(self) -> None:
        """"Snapshot expiry" of every snapshot but the current one: they leave the snapshot list
        and log (a metadata version of its own) and their manifest lists are deleted; manifests
        and data files stay, the current snapshot lists them all (this writer only appends to
        the manifest list)."""
        current = self.snapshots[-1]
        for snap in self.snapshots[:-1]:
            os.remove(snap["manifest-list"])
        self.snapshots = [current]
        self.snapshot_log = [e for e in self.snapshot_log if e["snapshot-id"] == current["snapshot-id"]]
        self._write_metadata()

    # -- metadata --------------------------------------------------------------------------

    def metadata_path(self) -> str:
        return os.path.join(self.meta_dir, f"v{len(self.metadata_log) + 1}.metadata.json")

    def _write_metadata(self) -> None:
        if os.path.exists(os.path.join(self.meta_dir, VERSION_HINT)):
            previous = self.metadata_path()
            self.metadata_log.append({"timestamp-ms": self._last_updated(), "metadata-file": previous})
        current = self.snapshots[-1]["snapshot-id"] if self.snapshots else None
        m: dict[str, Any] = {"format-version": self.version, "table-uuid": TABLE_UUID, "location": self.location,
                             "last-sequence-number": self.sequence_number,
                             "last-updated-ms": self._last_updated() + 1,
                             "last-column-id": self.last_column_id(),
                             "current-schema-id": self.schema["schema-id"], "schemas": self.schemas,
                             "default-spec-id": self.default_spec_id, "partition-specs": self.specs,
                             "last-partition-id": max([999] + [int(f["field-id"]) for s in self.specs
                                                              for f in s["fields"]]),
                             "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
                             "properties": self.properties, "current-snapshot-id": current if current else -1,
                             "snapshots": self.snapshots, "snapshot-log": self.snapshot_log,
                             "metadata-log": self.metadata_log,
                             "refs": {"main": {"snapshot-id": current, "type": "branch"}} if current else {}}
        if self.version >= 3:
            m["next-row-id"] = self.next_row_id
        if not self.write_snapshot_log:
            del m["snapshot-log"]
        path = self.metadata_path()
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(m, indent=2) + "\n")
        with open(os.path.join(self.meta_dir, VERSION_HINT), "w", encoding="utf-8") as f:
            f.write(str(len(self.metadata_log) + 1))

    def _last_updated(self) -> int:
        return BASE_MS + 1000 * self.sequence_number + len(self.metadata_log)
