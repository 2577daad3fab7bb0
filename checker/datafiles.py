"""Checks of one data or delete file against its manifest entry and the table's schemas.

What is compared (spec sections in each finding's clause):

* the file exists and its size equals ``file_size_in_bytes``;
* Parquet: field ids and physical/logical types per Appendix A and Parquet LogicalTypes.md
  (:mod:`reference.parquet`), the Arrow schema pyarrow derives maps to the Iceberg types
  (:mod:`reference.arrow`), ``record_count`` equals the rows in the file;
* per column (by field id): ``value_counts``, ``null_value_counts``, ``nan_value_counts``
  equal what the data holds, ``lower_bounds`` <= the smallest and ``upper_bounds`` >= the
  largest non-null, non-NaN value (a truncated string/binary bound is legitimate as long as it
  still bounds the data); a required table column holds no null;
* the file's partition tuple equals the partition transform of every row's source values.

Counts are compared for columns reached through structs only; for list elements and map
keys/values only the bounds are compared (writers count repeated values differently).
Files are opened read-only; nothing is written.
"""

from __future__ import annotations

import math
import os
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.types import (
    DateType, DecimalType, DoubleType, FloatType, GeographyType, GeometryType, IcebergType, ListType, MapType, StructType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType,
)

CLAUSE_DATA_FILE = "Manifests: data_file fields"
CLAUSE_METRICS = "Manifests: data_file value_counts, null_value_counts, nan_value_counts, lower_bounds, upper_bounds"
CLAUSE_GEO = "Manifests / Field-level Metrics and Statistics / Bounds for Geometry and Geography"
CLAUSE_PARTITION = "Partitioning: partition values of a data file are the transforms of its rows"
CLAUSE_REQUIRED = "Schemas and Data Types: required fields are never null"

POSITION_DELETE_FIELDS = {2147483546: ("file_path", "string"), 2147483545: ("pos", "long")}


@dataclass
class ColumnStats:
    """What the data of one column holds (Python values in :mod:`reference.values` form)."""

    count: int = 0
    nulls: int = 0
    nans: int = 0
    lo: Any = None
    hi: Any = None
    repeated: bool = False
    #: rows where an enclosing struct is null (some writers leave those out of the counts)
    parent_nulls: int = 0
    partition_values: set[Any] = field(default_factory=set)
    #: signs (-1.0, 1.0) of the float zeros the column holds (-0.0 precedes +0.0 in bounds)
    zero_signs: set[float] = field(default_factory=set)
    #: geometry/geography: (min, max) of the x, y, z and m of every vertex (NaN skipped; None
    #: where no vertex has that dimension)
    box: list[tuple[float, float] | None] | None = None


def local_path(uri: str) -> str | None:
    """A local filesystem path for ``uri`` (scheme-less absolute, ``file:/``, ``file:///``);
    None for other schemes."""
    if uri.startswith("file://"):
        rest = uri[len("file://"):]
        return rest if rest.startswith("/") else None
    if uri.startswith("file:"):
        return uri[len("file:"):]
    if "://" in uri.split("/", 1)[0] + "/" and not uri.startswith("/"):
        return None
    return uri


def _comparable(t: IcebergType, arr: Any) -> Any:
    """``arr`` as an Arrow array whose Python values are the reference's forms (ints for
    temporal types, storage bytes for uuid extension arrays)."""
    import pyarrow as pa

    if hasattr(arr, "storage") and getattr(arr.type, "extension_name", "") == "arrow.uuid":
        arr = arr.storage
    if isinstance(t, DateType) and pa.types.is_date(arr.type):
        return arr.cast(pa.int32()) if pa.types.is_date32(arr.type) else arr
    if isinstance(t, (TimeType, TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)):
        if pa.types.is_timestamp(arr.type) or pa.types.is_time(arr.type):
            return arr.cast(pa.int64())
    return arr


def _py(t: IcebergType, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(t, UUIDType) and isinstance(v, bytes):
        return uuid.UUID(bytes=v)
    return v


def _is_float(t: IcebergType) -> bool:
    return isinstance(t, (FloatType, DoubleType))


def accumulate(stats: ColumnStats, t: IcebergType, arr: Any, *, want_partition: bool) -> None:
    """Add one chunk of column values to ``stats``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = _comparable(t, arr)
    stats.count += len(arr)
    stats.nulls += arr.null_count
    values = arr.drop_null() if arr.null_count else arr
    if _is_float(t) and len(values):
        nan_mask = pc.is_nan(values)
        n = pc.sum(nan_mask).as_py() or 0
        stats.nans += n
        if n:
            values = values.filter(pc.invert(nan_mask))
        zeros = values.filter(pc.equal(values, 0))
        if len(zeros):  # 1/-0.0 is -inf, 1/+0.0 is +inf
            inv = pc.divide(pa.scalar(1.0, pa.float64()), zeros.cast(pa.float64())).to_pylist()
            stats.zero_signs.update(math.copysign(1.0, x) for x in set(inv))
    if want_partition:
        uniq = pc.unique(arr).to_pylist()
        stats.partition_values.update(
            _py(t, v) for v in uniq if not (isinstance(v, float) and math.isnan(v)))
        if _is_float(t) and stats.nans:
            stats.partition_values.add("NaN")
    if len(values) == 0 or pa.types.is_null(values.type):
        return
    if isinstance(t, (GeometryType, GeographyType)):
        _geo_accumulate(stats, values)
        return  # the order of WKB bytes means nothing
    if pa.types.is_boolean(values.type):
        lo = bool(pc.min(values.cast(pa.int8())).as_py())
        hi = bool(pc.max(values.cast(pa.int8())).as_py())
    else:
        mm = pc.min_max(values)
        lo, hi = _py(t, mm["min"].as_py()), _py(t, mm["max"].as_py())
    if stats.lo is None or _lt(lo, stats.lo):
        stats.lo = lo
    if stats.hi is None or _lt(stats.hi, hi):
        stats.hi = hi


def _geo_accumulate(stats: ColumnStats, values: Any) -> None:
    """Widen ``stats.box`` by the vertices of WKB ``values`` (undecodable values are skipped)."""
    import numpy as np
    import shapely

    if hasattr(values, "storage"):
        values = values.storage
    geoms = shapely.from_wkb(np.asarray(values.to_pylist(), dtype=object), on_invalid="ignore")
    box = stats.box or [None, None, None, None]
    for dim in range(4):
        coords = shapely.get_coordinates(geoms, include_z=dim == 2, include_m=dim == 3)
        column = coords[:, min(dim, 2)] if len(coords) else coords
        column = column[~np.isnan(column)] if len(column) else column
        if len(column) == 0:
            continue
        lo, hi = float(column.min()), float(column.max())
        old = box[dim]
        box[dim] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    stats.box = box


def _compare_geo(df: dict[str, Any], fid: int, t: IcebergType, s: ColumnStats,
                 add: Callable[[str, str, str, str], None]) -> None:
    """"Bounds for Geometry and Geography": the bound points are corners of a box containing every
    object of the file, so every vertex lies inside it (a geography box with xmin > xmax crosses
    the antimeridian; its x is not compared)."""
    from iceberg_conformance.reference.binary import bound_from_bytes
    from iceberg_conformance.reference.errors import SpecViolation

    key = str(fid)
    points: dict[str, Any] = {}
    for which in ("lower_bounds", "upper_bounds"):
        raw = (df.get(which) or {}).get(key)
        if raw is None:
            continue
        try:
            points[which] = bound_from_bytes(t, bytes.fromhex(raw))
        except (SpecViolation, ValueError):
            add("data.bound-undecodable", f"{which}[{fid}] = {raw} does not decode as a {t} bound point",
                CLAUSE_METRICS, f"{which}/{fid}")
    if s.box is None:
        return
    lower, upper = points.get("lower_bounds"), points.get("upper_bounds")
    wraps = (isinstance(t, GeographyType) and lower is not None and upper is not None
             and lower[0] is not None and upper[0] is not None and lower[0] > upper[0])
    for n, name in enumerate("xyzm"):
        have = s.box[n]
        if have is None or (n == 0 and wraps):
            continue
        if lower is not None and lower[n] is not None and lower[n] > have[0]:
            add("data.lower-bound", f"lower_bounds[{fid}] has {name} = {lower[n]:g}, a vertex in the file has "
                f"{name} = {have[0]:g} (the bounding box contains all objects in the file)", CLAUSE_GEO,
                f"lower_bounds/{fid}")
        if upper is not None and upper[n] is not None and upper[n] < have[1]:
            add("data.upper-bound", f"upper_bounds[{fid}] has {name} = {upper[n]:g}, a vertex in the file has "
                f"{name} = {have[1]:g} (the bounding box contains all objects in the file)", CLAUSE_GEO,
                f"upper_bounds/{fid}")


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def leaf_arrays(arr: Any, path: list[tuple[str, int]]) -> tuple[Any, bool, int]:
    """Follow ``path`` ((kind, index) steps: ``struct``/``list``/``key``/``value``) from a
    top-level column chunk to the leaf values; True when a list or map was crossed; the number
    of leaf slots whose enclosing struct is null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    repeated = False
    parent_nulls = 0
    for kind, idx in path:
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        if kind == "struct":
            parent_nulls = arr.null_count
            arr = arr.flatten()[idx]
        elif kind == "list":
            arr = pc.list_flatten(arr)
            repeated = True
            parent_nulls = 0
        elif kind == "key":
            arr = arr.keys
            repeated = True
            parent_nulls = 0
        elif kind == "value":
            arr = arr.items
            repeated = True
            parent_nulls = 0
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return arr, repeated, parent_nulls


def leaf_paths(schema: StructType) -> dict[int, tuple[str, list[tuple[str, int]], IcebergType, bool]]:
    """field id -> (top-level column name, steps, type, required) of each primitive leaf."""
    out: dict[int, tuple[str, list[tuple[str, int]], IcebergType, bool]] = {}

    def go(top: str, steps: list[tuple[str, int]], fid: int, t: IcebergType, required: bool) -> None:
        if isinstance(t, StructType):
            for i, f in enumerate(t.fields):
                go(top, steps + [("struct", i)], f.field_id, f.field_type, f.required)
        elif isinstance(t, ListType):
            go(top, steps + [("list", 0)], t.element_id, t.element_type, t.element_required)
        elif isinstance(t, MapType):
            go(top, steps + [("key", 0)], t.key_id, t.key_type, True)
            go(top, steps + [("value", 0)], t.value_id, t.value_type, t.value_required)
        else:
            out[fid] = (top, steps, t, required)

    for f in schema.fields:
        go(f.name, [], f.field_id, f.field_type, f.required)
    return out


def decode_bound(candidates: list[IcebergType], data: bytes) -> tuple[IcebergType, Any] | None:
    from iceberg_conformance.reference.binary import bound_from_bytes
    from iceberg_conformance.reference.errors import SpecViolation

    for t in candidates:
        try:
            return t, bound_from_bytes(t, data)
        except (SpecViolation, ValueError):
            continue
    return None


def compare_stats(df: dict[str, Any], fid: int, t: IcebergType, required: bool, s: ColumnStats,
                  add: Callable[[str, str, str, str], None], *, strict_counts: bool,
                  bound_types: list[IcebergType]) -> None:
    """Findings for one column's manifest metrics against ``s``."""
    key = str(fid)
    vc = (df.get("value_counts") or {}).get(key)
    nc = (df.get("null_value_counts") or {}).get(key)
    nan = (df.get("nan_value_counts") or {}).get(key)
    if strict_counts:
        # Inside a struct that is null in some rows, writers differ on whether those rows count
        # as null values of the child (the spec does not say): both readings are accepted.
        alt = f" ({s.count - s.parent_nulls} not counting rows where an enclosing struct is null)" \
            if s.parent_nulls else ""
        if vc is not None and vc not in (s.count, s.count - s.parent_nulls):
            add("data.value-count", f"value_counts[{fid}] is {vc}, the file holds {s.count} values{alt}",
                CLAUSE_METRICS, f"value_counts/{fid}")
        alt = f" ({s.nulls - s.parent_nulls} not counting rows where an enclosing struct is null)" \
            if s.parent_nulls else ""
        if nc is not None and nc not in (s.nulls, s.nulls - s.parent_nulls):
            add("data.null-value-count", f"null_value_counts[{fid}] is {nc}, the file holds {s.nulls} nulls{alt}",
                CLAUSE_METRICS, f"null_value_counts/{fid}")
        if nan is not None and _is_float(t) and nan != s.nans:
            add("data.nan-value-count", f"nan_value_counts[{fid}] is {nan}, the file holds {s.nans} NaN values",
                CLAUSE_METRICS, f"nan_value_counts/{fid}")
        if required and s.nulls - s.parent_nulls > 0 and not s.repeated:
            add("data.required-null", f"column {fid} is required in the table and the file holds {s.nulls} nulls",
                CLAUSE_REQUIRED, f"column {fid}")
    if isinstance(t, (GeometryType, GeographyType)):
        _compare_geo(df, fid, t, s, add)
        return
    for which, op in (("lower_bounds", "lower"), ("upper_bounds", "upper")):
        raw = (df.get(which) or {}).get(key)
        if raw is None:
            continue
        if s.lo is None:
            continue  # no non-null value: nothing to bound (whether bounds should be absent is not checked)
        decoded = decode_bound(bound_types or [t], bytes.fromhex(raw))
        if decoded is None:
            add("data.bound-undecodable", f"{which}[{fid}] = {raw} does not decode as {t}", CLAUSE_METRICS,
                f"{which}/{fid}")
            continue
        _, b = decoded
        if isinstance(b, float) and b == 0.0 and (-1.0 if op == "lower" else 1.0) in s.zero_signs \
                and math.copysign(1.0, b) == (1.0 if op == "lower" else -1.0):
            add(f"data.{op}-bound", f"{which}[{fid}] is {'+0.0' if op == 'lower' else '-0.0'}, the data holds "
                f"{'-0.0' if op == 'lower' else '+0.0'} (-0.0 precedes +0.0)", CLAUSE_METRICS, f"{which}/{fid}")
            continue
        try:
            if op == "lower" and _lt(s.lo, _norm(b, s.lo)):
                add("data.lower-bound", f"lower_bounds[{fid}] is {_show(b)}, the data's smallest value is "
                    f"{_show(s.lo)} (a lower bound must be <= every value)", CLAUSE_METRICS, f"lower_bounds/{fid}")
            if op == "upper" and _lt(_norm(b, s.hi), s.hi):
                add("data.upper-bound", f"upper_bounds[{fid}] is {_show(b)}, the data's largest value is "
                    f"{_show(s.hi)} (an upper bound must be >= every value)", CLAUSE_METRICS, f"upper_bounds/{fid}")
        except TypeError:
            add("data.bound-undecodable", f"{which}[{fid}] = {raw} is not comparable with the column values",
                CLAUSE_METRICS, f"{which}/{fid}")


def _norm(bound: Any, like: Any) -> Any:
    """A decoded bound in the same Python form as the data value it is compared with."""
    if isinstance(like, int) and not isinstance(like, bool) and isinstance(bound, bool):
        return int(bound)
    if isinstance(like, float) and isinstance(bound, (int, Decimal)) and not isinstance(bound, bool):
        return float(bound)
    if isinstance(like, int) and isinstance(bound, float) and bound.is_integer():
        return int(bound)
    return bound


def _show(v: Any) -> str:
    if isinstance(v, bytes):
        return v.hex()
    return repr(v) if isinstance(v, str) else str(v)


def absent(path: str) -> tuple[str, str] | None:
    """Why ``path`` cannot be read as a table file: (``files.missing``, "does not exist") or
    (``files.not-regular``, "is a FIFO ..."); None for a regular file. Opens nothing."""
    import stat

    from iceberg_conformance.reference.safeio import kind_of

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return "files.missing", "does not exist"
    if not stat.S_ISREG(mode):
        return "files.not-regular", f"is {kind_of(mode)}, not a regular file; it is not read"
    return None


def file_exists(path: str) -> bool:
    return os.path.isfile(path)


# --- one data or delete file --------------------------------------------------------------------

def format_version_of(doc: dict[str, Any]) -> int:
    v = doc.get("format-version", 1)
    return v if isinstance(v, int) else 1


def _annotation_findings(pf: Any, uri: str) -> list[Finding]:
    """LogicalTypes.md annotations of the leaf columns of a Parquet file (reference/parquet.py)."""
    import json

    from iceberg_conformance.reference import parquet as rp

    cols, ranges = [], []
    meta = pf.metadata
    for i in range(len(pf.schema)):
        c = pf.schema.column(i)
        lt = c.logical_type
        logical = json.loads(lt.to_json()) if lt is not None and lt.type != "NONE" else None
        cols.append((c.path, str(c.physical_type), logical, str(c.converted_type)))
        if logical and logical.get("Type") == "Int":
            for rg in range(meta.num_row_groups):
                st = meta.row_group(rg).column(i).statistics
                if st is not None and st.has_min_max:
                    ranges.append((c.path, logical, st.min, st.max))
    return [Finding("parquet.annotation", why, rp.CLAUSE_ANNOTATIONS, uri, name)
            for name, why in rp.annotation_problems(cols) + rp.int_range_problems(ranges)]


CLAUSE_EQUALITY_FIELDS = "Equality Delete Files: the column restrictions of identifier fields"
CLAUSE_POSITION_ROW = "Position Delete Files: 2147483544 row (required struct)"


def equality_field_problems(ids: list[Any], schemas: list[StructType]) -> list[str]:
    """Why equality delete columns ``ids`` break the identifier-field restrictions (optional
    columns and columns under optional structs allowed): a field of every schema that has it
    is a primitive other than float or double, outside any list or map."""
    from iceberg_conformance.reference.schema import walk
    from iceberg_conformance.reference.types import DoubleType, FloatType, VariantType

    found: dict[int, list[Any]] = {}
    for schema in schemas:
        for fid, info in walk(schema):
            found.setdefault(fid, []).append(info)
    out = []
    for fid in ids:
        for info in found.get(fid, [])[:1]:
            if info.in_list_or_map:
                out.append(f"equality field {info.name!r} ({fid}) is inside a list or map")
            elif not info.field_type.is_primitive or isinstance(info.field_type, VariantType):
                out.append(f"equality field {info.name!r} ({fid}) is {info.field_type}, not a primitive")
            elif isinstance(info.field_type, (FloatType, DoubleType)):
                out.append(f"equality field {info.name!r} ({fid}) is {info.field_type}; float and double cannot "
                           "identify rows")
    return out


def _schemas(doc: dict[str, Any]) -> tuple[list[StructType], StructType | None]:
    from iceberg_conformance.reference.metadata import current_schema, schema_by_id
    from iceberg_conformance.reference.types import parse_type

    out = []
    for s in schema_by_id(doc).values():
        try:
            t = parse_type({"type": "struct", "fields": s.get("fields", [])})
        except Exception:
            continue
        if isinstance(t, StructType):
            out.append(t)
    cur = current_schema(doc)
    current = None
    if isinstance(cur, dict):
        try:
            c = parse_type({"type": "struct", "fields": cur.get("fields", [])})
            current = c if isinstance(c, StructType) else None
        except Exception:
            current = None
    return out, current


def _required_ids(schema: StructType | None) -> set[int]:
    out: set[int] = set()
    if schema is None:
        return out

    def go(t: IcebergType, parents_required: bool) -> None:
        if isinstance(t, StructType):
            for f in t.fields:
                if f.required and parents_required:
                    out.add(f.field_id)
                go(f.field_type, parents_required and f.required)

    go(schema, True)
    return out


def _nested_ids(t: Any) -> list[int]:
    """Field ids of every field nested in Arrow type ``t`` (struct fields, list elements, map
    keys and values), from their ``PARQUET:field_id`` metadata."""
    import pyarrow as pa

    from iceberg_conformance.reference.arrow import field_id

    out: list[int] = []
    children = []
    if pa.types.is_struct(t):
        children = [t.field(i) for i in range(t.num_fields)]
    elif pa.types.is_map(t):
        children = [t.key_field, t.item_field]
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        children = [t.value_field]
    for f in children:
        fid = field_id(f)
        if fid is not None:
            out.append(fid)
        out.extend(_nested_ids(f.type))
    return out


def _arrow_leaves(schema: Any) -> dict[int, tuple[int, list[tuple[str, int]], Any]]:
    """field id -> (top-level column index, steps, arrow type) of each primitive leaf."""
    import pyarrow as pa

    from iceberg_conformance.reference.arrow import field_id

    out: dict[int, tuple[int, list[tuple[str, int]], Any]] = {}

    def go(top: int, steps: list[tuple[str, int]], f: Any) -> None:
        t = f.type
        if pa.types.is_struct(t):
            for i in range(t.num_fields):
                go(top, steps + [("struct", i)], t.field(i))
        elif pa.types.is_map(t):
            go(top, steps + [("key", 0)], t.key_field)
            go(top, steps + [("value", 0)], t.item_field)
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            go(top, steps + [("list", 0)], t.value_field)
        else:
            fid = field_id(f)
            if fid is not None:
                out[fid] = (top, steps, t)

    for i, f in enumerate(schema):
        go(i, [], f)
    return out


def check_file(doc: dict[str, Any], unit: Any) -> list[Finding]:
    """Findings for the data or delete file of a ``data-file``/``delete-file`` unit."""
    ctx = unit.context
    entry = ctx["entry"]
    df = entry["data_file"]
    manifest = str(ctx.get("manifest", ""))
    mloc = f"entries[{ctx.get('index', '?')}] data_file"
    uri = unit.path
    out: list[Finding] = []
    content = df.get("content", 0)
    what = "data file" if content == 0 else "delete file"

    def add(rule: str, msg: str, clause: str, loc: str, severity: Any = "error") -> None:
        out.append(Finding(rule, f"{what} {uri}: {msg}", clause, manifest, f"{mloc}/{loc}" if loc else mloc, severity))

    local = local_path(uri)
    if local is None:
        add("checker.not-checked", "check not available: not a local path", "-", "file_path", "warning")
        return out
    why = absent(local)
    if why is not None:
        add(why[0], why[1], CLAUSE_DATA_FILE + " (file_path)", "file_path")
        return out
    size = os.path.getsize(local)
    claimed = df.get("file_size_in_bytes")
    if isinstance(claimed, int) and claimed != size:
        add("files.size", f"file_size_in_bytes is {claimed}, the file has {size} bytes",
            CLAUSE_DATA_FILE + " (file_size_in_bytes)", "file_size_in_bytes")
    fmt = str(df.get("file_format", "")).upper()
    if fmt == "PUFFIN":
        out.extend(_check_dv(local, df, ctx.get("targets") or {}, add))
        return out
    if fmt in ("AVRO", "ORC") and content == 0:
        _check_rows(doc, df, ctx, add)
        return out
    if fmt != "PARQUET":
        add("checker.not-checked", f"check not available: {fmt} {what}s are not read", "-",
            "file_format", "warning")
        return out
    out.extend(_check_parquet(doc, local, uri, df, ctx, add))
    return out


def _check_parquet(doc: dict[str, Any], local: str, uri: str, df: dict[str, Any], ctx: dict[str, Any],
                   add: Callable[..., None]) -> list[Finding]:
    import pyarrow.parquet as pq

    from iceberg_conformance.reference import parquet as rp
    from iceberg_conformance.reference.arrow import arrow_matches
    from iceberg_conformance.reference.types import LongType, NestedField, StringType

    out: list[Finding] = []
    content = df.get("content", 0)
    schemas, current = _schemas(doc)
    if content == 1:  # position deletes: reserved columns; row holds table columns by their ids
        schemas = schemas + [StructType((NestedField(2147483546, "file_path", StringType(), True),
                                          NestedField(2147483545, "pos", LongType(), True),
                                          NestedField(2147483544, "row", StructType(()), True)))]
    if content == 0 and format_version_of(doc) >= 3:  # row lineage columns a writer may materialize
        schemas = schemas + [StructType((NestedField(2147483540, "_row_id", LongType(), False),
                                          NestedField(2147483539, "_last_updated_sequence_number",
                                                      LongType(), False)))]
    index = rp.index_fields(schemas)
    props = doc.get("properties")
    name_mapping = isinstance(props, dict) and "schema.name-mapping.default" in props
    from iceberg_conformance.reference.safeio import open_regular

    with open_regular(local) as fh:
        try:
            pf = pq.ParquetFile(fh)
            root = rp.parse_schema_text(str(pf.schema))
            arrow_schema = pf.schema_arrow
        except Exception as e:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... on a bad footer
            out.append(Finding("data.unreadable", f"not a readable Parquet file: {str(e).strip()[:300]}",
                               "Appendix A: Format-specific Requirements / Parquet", uri,
                               "footer (file metadata at the end of the file)"))
            return out
        schema_findings = rp.check_schema(root, index, file=uri, name_mapping=name_mapping)
        out.extend(schema_findings)
        out.extend(_annotation_findings(pf, uri))
        flagged = {f.location.split(".")[0] for f in schema_findings}
        from iceberg_conformance.reference.arrow import field_id

        for f in arrow_schema:
            fid = field_id(f)
            if fid is None or fid not in index or f.name in flagged:
                continue
            if not any(arrow_matches(t, f.type) for _, t, _ in index[fid]):
                out.append(Finding("arrow.type-mapping", f"column {f.name!r} (field {fid}) reads as Arrow {f.type}, "
                                   f"which carries none of {[str(t) for _, t, _ in index[fid]]}",
                                   "Arrow Schema.fbs; Schemas and Data Types", uri, f.name))
        rows = pf.metadata.num_rows
        rc = df.get("record_count")
        if isinstance(rc, int) and rc != rows:
            add("data.record-count", f"record_count is {rc}, the file has {rows} rows",
                CLAUSE_DATA_FILE + " (record_count)", "record_count")
        leaves = _arrow_leaves(arrow_schema)
        if content == 0 and ctx.get("appended_by") is not None:
            _check_appended_lineage(pf, arrow_schema, ctx["appended_by"], add)
        if content == 1:
            row = next((i for i, f in enumerate(arrow_schema) if field_id(f) == 2147483544), None)
            nulls = pf.read(columns=[arrow_schema[row].name]).column(0).null_count if row is not None else 0
            if nulls:
                add("deletes.position-row-null", f"{nulls} delete row(s) have no row values; the row column is "
                    "written for every delete or omitted", CLAUSE_POSITION_ROW, "file_path")
            unknown = sorted(i for i in _nested_ids(arrow_schema[row].type) if i not in index) if row is not None else []
            if unknown:
                add("deletes.position-row-field-id", f"the row column holds field id(s) {unknown[:10]} that no schema "
                    "of the table has", CLAUSE_POSITION_ROW, "file_path")
        if content == 2:
            missing = [i for i in df.get("equality_ids") or [] if i not in leaves]
            if missing:
                add("deletes.equality-field-missing", f"equality_ids {df.get('equality_ids')} name field(s) "
                    f"{missing} the file does not hold", CLAUSE_DATA_FILE + " (equality_ids)", "equality_ids")
            for why in equality_field_problems(df.get("equality_ids") or [], schemas):
                add("deletes.equality-field-type", why, CLAUSE_EQUALITY_FIELDS, "equality_ids")
        required = _required_ids(current) if content == 0 else set()
        # partition fields to verify
        # a file without field ids (reported above) cannot be matched to the partition sources
        # (under a name mapping a file without field ids is no finding, but still cannot be matched)
        no_ids = any(f.rule == "parquet.field-id-missing" for f in schema_findings) or not leaves
        checks = _partition_checks(doc, ctx, df, index, leaves, add) if content == 0 and not no_ids else []
        part_sources = {src for _, src, _, _, _ in checks}
        stats: dict[int, ColumnStats] = {}
        types: dict[int, IcebergType] = {}
        for fid, (top, steps, at) in leaves.items():
            cands = [t for _, t, _ in index.get(fid, [])]
            if not cands:
                continue
            types[fid] = next((t for t in cands if arrow_matches(t, at)), cands[-1])
            stats[fid] = ColumnStats(repeated=any(k != "struct" for k, _ in steps))
        tops = sorted({leaves[fid][0] for fid in stats})
        positions: list[tuple[str, int]] = []
        want_positions = content == 1 and 2147483546 in leaves and 2147483545 in leaves
        for rg in range(pf.num_row_groups):
            try:
                tbl = pf.read_row_group(rg, columns=[arrow_schema[i].name for i in tops]) if tops else None
                if tbl is None:
                    break
                col_of = {i: tbl.column(n) for n, i in enumerate(tops)}
                for fid, s in stats.items():
                    top, steps, _ = leaves[fid]
                    for chunk in col_of[top].chunks:
                        arr, _rep, parent_nulls = leaf_arrays(chunk, steps)
                        s.parent_nulls += parent_nulls
                        accumulate(s, types[fid], arr, want_partition=fid in part_sources and not s.repeated)
                if want_positions:
                    fp = col_of[leaves[2147483546][0]].to_pylist()
                    ps = col_of[leaves[2147483545][0]].to_pylist()
                    positions.extend(zip(fp, ps))
            except (OSError, ValueError) as e:  # corrupt pages: pyarrow's OSError, ArrowInvalid, bad UTF-8
                out.append(Finding("data.unreadable", f"row group {rg} does not decode: {str(e).strip()[:300]}",
                                   "Appendix A: Format-specific Requirements / Parquet", uri,
                                   _bad_chunk(pf, rg, [arrow_schema[i].name for i in tops])))
                return out  # metrics of a partly read file would be wrong: nothing more is compared
    for fid, s in stats.items():
        def add_metric(rule: str, msg: str, clause: str, loc: str) -> None:
            add(rule, msg, clause, loc)
        bound_types = [t for _, t, _ in index.get(fid, [])]
        compare_stats(df, fid, types[fid], fid in required, s, add_metric, strict_counts=not s.repeated,
                      bound_types=[types[fid]] + [t for t in bound_types if t != types[fid]])
    for name, src, transform, src_type, expected_json in checks:
        _compare_partition(name, src, transform, src_type, expected_json, stats.get(src), add)
    if content == 0:
        out.extend(_decimal_byte_order(local, pf, arrow_schema, df, types, stats, uri))
    if want_positions:
        _check_positions(positions, ctx.get("targets") or {}, add)
    return out


def unscaled(v: Decimal, scale: int) -> int:
    """The unscaled integer of a decimal value of scale ``scale`` (exact, no context rounding)."""
    sign, digits, exponent = v.as_tuple()
    n = int("".join(map(str, digits)) or "0")
    shift = int(exponent) + scale
    n = int(n * 10 ** shift) if shift >= 0 else int(n // 10 ** -shift)
    return -n if sign else n


def byte_reversed(u: int, width: int | None) -> int:
    """``u`` written as two's complement big-endian in ``width`` bytes (the minimum when None)
    and read back with the bytes in reverse order (as a little-endian writer meant them)."""
    n = width or max(1, (u.bit_length() + (1 if u >= 0 else 0) + 7) // 8)
    return int.from_bytes(u.to_bytes(n, "big", signed=True)[::-1], "big", signed=True)


def _decimal_byte_order(local: str, pf: Any, arrow_schema: Any, df: dict[str, Any], types: dict[int, IcebergType],
                        stats: dict[int, ColumnStats], uri: str) -> list[Finding]:
    """Top-level decimal columns stored as fixed_len_byte_array or binary: where the manifest's
    bounds do not bound the values read as big-endian two's complement, but are exactly the
    smallest and largest value when each value's bytes are read in reverse order, the file holds
    the unscaled values little-endian (Parquet LogicalTypes.md, DECIMAL). Without bounds the byte
    order is not observable: every reader decodes the bytes big-endian."""
    from iceberg_conformance.reference.arrow import field_id
    from iceberg_conformance.reference.binary import bound_from_bytes

    out: list[Finding] = []
    physical = {pf.metadata.schema.column(i).path: pf.metadata.schema.column(i)
                for i in range(pf.metadata.num_columns)}
    for f in arrow_schema:
        fid = field_id(f)
        t = types.get(fid) if fid is not None else None
        col = physical.get(f.name)
        if not isinstance(t, DecimalType) or col is None or col.physical_type not in ("FIXED_LEN_BYTE_ARRAY",
                                                                                      "BYTE_ARRAY"):
            continue
        s = stats.get(fid) if fid is not None else None
        lo_hex, hi_hex = ((df.get(k) or {}).get(str(fid)) for k in ("lower_bounds", "upper_bounds"))
        if s is None or s.lo is None or lo_hex is None or hi_hex is None:
            continue
        try:
            lo = unscaled(bound_from_bytes(t, bytes.fromhex(lo_hex)), t.scale)
            hi = unscaled(bound_from_bytes(t, bytes.fromhex(hi_hex)), t.scale)
        except Exception:  # noqa: BLE001 - an undecodable bound is reported by compare_stats
            continue
        if lo <= unscaled(s.lo, t.scale) and unscaled(s.hi, t.scale) <= hi:
            continue  # the bounds hold as the bytes are read: nothing points at another byte order
        width = col.length if col.physical_type == "FIXED_LEN_BYTE_ARRAY" else None
        import pyarrow.parquet as pq

        from iceberg_conformance.reference.safeio import open_regular

        with open_regular(local) as fh:  # ``pf``'s file is closed by now: metadata only
            values = [v for v in pq.ParquetFile(fh).read(columns=[f.name]).column(0).to_pylist() if v is not None]
        flipped = [byte_reversed(unscaled(v, t.scale), width) for v in values]
        if flipped and min(flipped) == lo and max(flipped) == hi:
            out.append(Finding("parquet.decimal-byte-order", f"decimal column {f.name!r} (field {fid}, "
                               f"{col.physical_type}): read as big-endian two's complement its values are "
                               f"{_show(s.lo)}..{_show(s.hi)}, outside the manifest's bounds; with each value's "
                               "bytes reversed they are exactly the bounds: the unscaled values are stored "
                               "little-endian", "Parquet LogicalTypes.md: DECIMAL", uri, f.name))
    return out


def _check_appended_lineage(pf: Any, arrow_schema: Any, snapshot_id: int, add: Callable[..., None]) -> None:
    """A data file ADDED by an ``append`` snapshot holds only new rows: where it materializes
    ``_row_id`` or ``_last_updated_sequence_number``, every value is null (Row lineage assignment)."""
    from iceberg_conformance.checker.lineage import ADDED_RULES, CLAUSE_ASSIGNMENT, LINEAGE_COLUMNS, non_null_lineage
    from iceberg_conformance.reference.arrow import field_id

    names = {field_id(f): f.name for f in arrow_schema if field_id(f) in LINEAGE_COLUMNS}
    if not names:
        return
    table = pf.read(columns=list(names.values()))
    found = non_null_lineage({fid: table.column(name).to_pylist() for fid, name in names.items()})
    for fid, (count, pos, value) in sorted(found.items()):
        what = "_row_id" if fid == 2147483540 else "_last_updated_sequence_number"
        add(ADDED_RULES[fid], f"added by append snapshot {snapshot_id} (new rows only), but its column "
            f"{names[fid]!r} (field {fid}, {what}) holds {count} non-null value(s), the first {value} at row "
            f"position {pos}; an added row's value is written null and inherited on read",
            CLAUSE_ASSIGNMENT, "file_path")


def _partition_checks(doc: dict[str, Any], ctx: dict[str, Any], df: dict[str, Any], index: Any,
                      leaves: dict[int, Any], add: Callable[..., None]) -> list[tuple[str, int, Any, IcebergType, Any]]:
    from iceberg_conformance.reference.metadata import spec_by_id
    from iceberg_conformance.reference.transforms import parse_transform

    spec = spec_by_id(doc).get(int(ctx.get("spec_id") or 0))
    if not isinstance(spec, dict):
        return []
    part = df.get("partition") or {}
    out = []
    fields = spec.get("fields")
    for pfield in fields if isinstance(fields, list) else []:
        if not isinstance(pfield, dict):
            continue  # a malformed spec is reported by the metadata checks
        src_ids = pfield.get("source-ids") or [pfield.get("source-id")]
        if not isinstance(src_ids, list) or len(src_ids) != 1 or not isinstance(src_ids[0], int):
            continue  # multi-argument transforms: none defined yet
        src = src_ids[0]
        cands = [t for _, t, _ in index.get(src, [])]
        if not cands:
            continue
        try:
            transform = parse_transform(str(pfield.get("transform")))
            transform.result_type(cands[-1])
        except Exception:
            continue
        key = str(pfield.get("field-id"))
        out.append((str(pfield.get("name")), src, transform, cands[-1], part.get(key)))
    return out


def _compare_partition(name: str, src: int, transform: Any, src_type: IcebergType, expected_json: Any,
                       s: ColumnStats | None, add: Callable[..., None]) -> None:
    from iceberg_conformance.reference.types import DateType as _Date
    from iceberg_conformance.reference.values import value_from_json

    if s is not None and s.repeated:
        return
    result_type = transform.result_type(src_type)
    try:
        expected = None if expected_json is None else value_from_json(result_type, expected_json)
    except Exception:
        try:
            expected = value_from_json(_Date(), expected_json)
        except Exception:
            add("data.partition-value", f"partition {name} = {expected_json!r} is not a {result_type} value",
                CLAUSE_PARTITION, f"partition/{name}")
            return
    values: set[Any] = {None} if s is None else set(s.partition_values)
    if s is not None and s.count == 0:
        return
    bad = []
    for v in values:
        if v == "NaN":
            v = float("nan")
        try:
            r = transform.apply(src_type, v)
        except Exception:
            continue
        if not (r == expected or (r is None and expected is None)):
            bad.append((v, r))
    if bad:
        shown = ", ".join(f"{_show(v)} -> {_show(r)}" for v, r in sorted(bad, key=lambda x: str(x))[:3])
        add("data.partition-value", f"partition {name} is {expected_json!r}, but {transform} of the rows' "
            f"column {src} gives other values ({shown}{', ...' if len(bad) > 3 else ''})",
            CLAUSE_PARTITION, f"partition/{name}")


def _check_positions(rows: list[tuple[str, int]], targets: dict[str, int], add: Callable[..., None]) -> None:
    prev: tuple[str, int] | None = None
    unsorted = False
    dangling: dict[str, int] = {}
    past: list[tuple[str, int, int]] = []
    for path, pos in rows:
        if prev is not None and (path, pos) < prev and not unsorted:
            unsorted = True
            add("deletes.position-order", f"rows are not sorted by file_path then pos ({prev} before {(path, pos)})",
                CLAUSE_DELETES_ORDER, "")
        prev = (path, pos)
        if path not in targets:
            dangling[path] = dangling.get(path, 0) + 1
        elif pos < 0 or pos >= targets[path]:
            past.append((path, pos, targets[path]))
    for path, n in dangling.items():
        add("deletes.target-not-live", f"{n} position(s) refer to {path}, which is no live data file of its "
            "partition in the snapshots this delete file is live in", "Scan Planning: position deletes apply to "
            "data files in the same partition", "", "warning")
    if past:
        path, pos, rc = past[0]
        add("deletes.position-out-of-range", f"{len(past)} position(s) are outside the referenced file, e.g. pos "
            f"{pos} of {path} which has {rc} rows", "Delete Formats: Position Delete Files (pos)", "")


CLAUSE_DELETES_ORDER = "Delete Formats: Position Delete Files (rows sorted by file_path then pos)"


def _check_dv(local: str, df: dict[str, Any], targets: dict[str, int], add: Callable[..., None]) -> list[Finding]:
    from iceberg_conformance.reference.deletion_vectors import check_blob_metadata, check_manifest_entry, decode_blob
    from iceberg_conformance.reference.errors import SpecViolation
    from iceberg_conformance.reference.puffin import read_puffin

    out: list[Finding] = []
    try:
        pf = read_puffin(local)
    except SpecViolation as e:
        add(e.rule, f"Puffin file unreadable: {e.detail}", e.clause or "Puffin spec", "file_path")
        return out
    off = df.get("content_offset")
    idx = next((i for i, b in enumerate(pf.metadata.blobs) if b.offset == off), None)
    if idx is None:
        add("dv.manifest-content-offset", f"content_offset {off} is the offset of no blob in the Puffin footer",
            "Manifests: content_offset", "content_offset")
        return out
    meta = pf.metadata.blobs[idx]
    dv = None
    try:
        dv = decode_blob(pf.blob_payload(idx), f"footer/blobs/{idx}")
    except SpecViolation as e:
        add(e.rule, e.detail, e.clause or "Puffin spec: deletion-vector-v1", "content_offset")
    for v in check_blob_metadata(meta.snapshot_id, meta.sequence_number, meta.compression_codec,
                                 dict(meta.properties), dv.cardinality if dv else None):
        add(v.rule, v.detail, v.clause or "Puffin spec: deletion-vector-v1", "content_offset")
    for f in check_manifest_entry(
            blob_offset=meta.offset, blob_length=meta.length,
            blob_referenced_data_file=meta.properties.get("referenced-data-file"),
            blob_cardinality=dv.cardinality if dv else None, content_offset=df.get("content_offset"),
            content_size_in_bytes=df.get("content_size_in_bytes"),
            referenced_data_file=df.get("referenced_data_file"), record_count=df.get("record_count")):
        add(f.rule, f.message, f.clause, f.location.rsplit("/", 1)[-1] if f.location else "")
    ref = df.get("referenced_data_file")
    if ref is not None and ref not in targets:
        add("dv.target-not-live", f"referenced_data_file {ref} is no live data file in the snapshots this "
            "deletion vector is live in", CLAUSE_DV_REF, "referenced_data_file", "warning")
    elif dv is not None and ref is not None:
        rc = targets[ref]
        past = [p for p in dv.positions if p >= rc]
        if past:
            add("dv.position-out-of-range", f"{len(past)} deleted position(s) are at or past the referenced "
                f"file's record_count {rc} (e.g. {past[0]})", CLAUSE_DV_REF, "content_offset")
    return out


def _bad_chunk(pf: Any, rg: int, columns: list[str]) -> str:
    """The location of the first column chunk of row group ``rg`` that does not decode."""
    for name in columns:
        try:
            pf.read_row_group(rg, columns=[name]).column(0).to_pylist()
        except (OSError, ValueError):
            return f"row group {rg}, column {name}"
    return f"row group {rg}"


CLAUSE_DV_REF = "Delete Formats: Deletion Vectors (positions of rows in referenced_data_file)"


def _check_rows(doc: dict[str, Any], df: dict[str, Any], ctx: dict[str, Any], add: Callable[..., None]) -> None:
    """Avro and ORC data files, read through :func:`reference.scan.file_rows` (values by field
    id): record count, metrics of columns reached through structs, partition values."""
    from iceberg_conformance.reference import scan as rs
    from iceberg_conformance.reference import parquet as rp
    from iceberg_conformance.reference.errors import SpecViolation

    schemas, current = _schemas(doc)
    if current is None:
        return
    entry = rs.FileEntry(df, 0, int(ctx.get("spec_id") or 0))
    try:
        rows = rs.file_rows(doc, current, entry)
    except (SpecViolation, OSError, ValueError) as e:
        rule = e.rule if isinstance(e, SpecViolation) else "data.unreadable"
        add(rule, f"cannot be read: {e}", "Appendix A: Format-specific Requirements", "file_path")
        return
    rc = df.get("record_count")
    if isinstance(rc, int) and rc != len(rows):
        add("data.record-count", f"record_count is {rc}, the file has {len(rows)} rows",
            CLAUSE_DATA_FILE + " (record_count)", "record_count")
    index = rp.index_fields(schemas)
    required = _required_ids(current)
    leaves: dict[int, tuple[list[int], IcebergType]] = {}

    def walk(path: list[int], t: IcebergType, fid: int) -> None:
        if isinstance(t, StructType):
            for f in t.fields:
                walk(path + [f.field_id], f.field_type, f.field_id)
        elif not isinstance(t, (ListType, MapType)):
            leaves[fid] = (path, t)

    for f in current.fields:
        walk([f.field_id], f.field_type, f.field_id)
    checks = _partition_checks(doc, ctx, df, index, {}, add)
    sources = {src for _, src, _, _, _ in checks}
    stats: dict[int, ColumnStats] = {}
    for fid, (path, t) in leaves.items():
        s = ColumnStats()
        for row in rows:
            v: Any = row
            parent_null = False
            for i, step in enumerate(path):
                v = v.get(step) if isinstance(v, dict) else None
                if v is None and i < len(path) - 1:
                    parent_null = True
                    break
            s.count += 1
            if v is None:
                s.nulls += 1
                s.parent_nulls += parent_null
                if fid in sources:
                    s.partition_values.add(None)
                continue
            if isinstance(v, float) and math.isnan(v):
                s.nans += 1
                if fid in sources:
                    s.partition_values.add("NaN")
                continue
            if fid in sources:
                s.partition_values.add(v)
            if isinstance(v, float) and v == 0.0:
                s.zero_signs.add(math.copysign(1.0, v))
            if s.lo is None or _lt(v, s.lo):
                s.lo = v
            if s.hi is None or _lt(s.hi, v):
                s.hi = v
        stats[fid] = s
        compare_stats(df, fid, t, fid in required, s, lambda r, m, c, loc: add(r, m, c, loc), strict_counts=True,
                      bound_types=[t] + [x for _, x, _ in index.get(fid, []) if x != t])
    for name, src, transform, src_type, expected_json in checks:
        _compare_partition(name, src, transform, src_type, expected_json, stats.get(src), add)


# --- deletion vectors against the position delete files they replace ---------------------------

CLAUSE_DV_MERGE = "Delete Formats: Deletion Vectors (a DV replaces the position delete files of its data file)"


def dv_positions(local: str, offset: int, size: int) -> tuple[int, ...] | None:
    """The positions of the deletion vector blob at ``offset`` (``size`` bytes) of a Puffin
    file; None when it does not decode (reported by the DV's own rules)."""
    from iceberg_conformance.reference.deletion_vectors import decode_blob
    from iceberg_conformance.reference.errors import SpecViolation
    from iceberg_conformance.reference.safeio import open_regular

    try:
        with open_regular(local) as fh:
            fh.seek(offset)
            blob = fh.read(size)
        return decode_blob(blob).positions
    except (SpecViolation, OSError, ValueError):
        return None


_POSITIONS_CACHE: dict[str, dict[str, set[int]] | None] = {}


def position_delete_rows(local: str) -> dict[str, set[int]] | None:
    """A Parquet position delete file's rows, as data file path -> deleted positions (columns
    found by field id, as :mod:`reference.scan` reads them); None when the file cannot be read
    (reported by the file's own unit). The last few files read are kept."""
    from iceberg_conformance.reference.scan import FILE_PATH_ID, POS_ID, _columns_by_id, _read_parquet

    if local in _POSITIONS_CACHE:
        return _POSITIONS_CACHE[local]
    out: dict[str, set[int]] | None
    try:
        tbl = _read_parquet(local)
        cols = _columns_by_id(tbl)
        if FILE_PATH_ID not in cols or POS_ID not in cols:
            out = None
        else:
            out = {}
            for fp, pos in zip(tbl.column(cols[FILE_PATH_ID]).to_pylist(), tbl.column(cols[POS_ID]).to_pylist()):
                if isinstance(fp, str) and isinstance(pos, int):
                    out.setdefault(fp, set()).add(pos)
    except (OSError, ValueError):
        out = None
    if len(_POSITIONS_CACHE) >= 16:
        _POSITIONS_CACHE.pop(next(iter(_POSITIONS_CACHE)))
    _POSITIONS_CACHE[local] = out
    return out


def check_dv_merge(dv: dict[str, Any], files: list[dict[str, Any]],
                   readable: Callable[[str], bool] = lambda _p: True) -> list[Finding]:
    """``dv.holds-position-deletes``: a deletion vector holds every position that the live
    position delete files applying to its data file (planned by ``table._plan_merges``) delete
    in that file. One finding per position delete file with missing positions, on the DV's
    manifest entry. ``readable`` says whether a local path may be read."""
    out: list[Finding] = []
    local = local_path(str(dv["path"]))
    off, size = dv.get("content_offset"), dv.get("content_size_in_bytes")
    if local is None or not readable(local) or not isinstance(off, int) or not isinstance(size, int):
        return out
    if absent(local) is not None:
        return out
    held = dv_positions(local, off, size)
    if held is None:
        return out
    have = set(held)
    ref = str(dv.get("referenced_data_file"))
    for p in files:
        plocal = local_path(str(p["path"]))
        if plocal is None or not readable(plocal) or absent(plocal) is not None:
            continue
        if not str(p["path"]).lower().endswith(".parquet"):
            continue  # Avro/ORC delete files are reported as not checked by their own unit
        rows = position_delete_rows(plocal)
        if rows is None:
            continue
        missing = sorted(rows.get(ref, set()) - have)
        if not missing:
            continue
        shown = ", ".join(str(x) for x in missing[:5]) + (", ..." if len(missing) > 5 else "")
        out.append(Finding(
            "dv.holds-position-deletes",
            f"snapshot {p.get('snapshot')}: the deletion vector of {ref} at content_offset {off} of {dv['path']} "
            f"(data sequence number {dv.get('sequence_number')}) lacks {len(missing)} position(s) that the live "
            f"position delete file {p['path']} (data sequence number {p.get('sequence_number')}, "
            f"{p['manifest']} entries[{p['index']}]) deletes in that data file: {shown}",
            CLAUSE_DV_MERGE, str(dv["manifest"]), f"entries[{dv['index']}] data_file/content_offset"))
    return out
