"""What a column of a data file holds, against the metrics its manifest entry records.

:class:`ColumnStats` accumulates a column's values (:func:`accumulate`, chunk by chunk, or value
by value for row-wise formats): counts of values, nulls and NaN, the smallest and largest value
(NaN and nulls excluded; the signs of float zeros; geometry and geography bounding boxes), and
the partition values a transform is applied to. :func:`compare_stats` compares them with
``value_counts``, ``null_value_counts``, ``nan_value_counts``, ``lower_bounds`` and
``upper_bounds`` (a truncated string/binary bound is legitimate as long as it still bounds the
data). Counts are compared for columns reached through structs only; for list elements and map
keys/values only the bounds are compared (writers count repeated values differently).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from iceberg_conformance.reference.binary import bound_from_bytes
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.types import (
    DateType, DoubleType, FloatType, GeographyType, GeometryType, IcebergType, ListType, MapType, StructType,
    TimestampNanoType, TimestampType, TimestamptzNanoType, TimestamptzType, TimeType, UUIDType,
)
from iceberg_conformance.reference.variant import (
    PathValues, bounds_from_bytes as variant_bounds_from_bytes, order_class, order_key, show as show_variant,
    sorted_strings_problem, unshred,
)

CLAUSE_METRICS = "Manifests: data_file value_counts, null_value_counts, nan_value_counts, lower_bounds, upper_bounds"
CLAUSE_GEO = "Manifests / Field-level Metrics and Statistics / Bounds for Geometry and Geography"
CLAUSE_REQUIRED = "Schemas and Data Types: required fields are never null"


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
    #: the distinct values of each chunk the partition is judged from, as Arrow arrays with the
    #: column's type (:attr:`partition_values` turns them into Python values when asked)
    partition_chunks: list[tuple[IcebergType, Any]] = field(default_factory=list)
    #: False when :func:`accumulate` kept only the least and greatest value of each integer chunk
    #: (``want_partition="ends"``): :attr:`partition_values` then holds those ends, not every value
    partition_complete: bool = True
    #: signs (-1.0, 1.0) of the float zeros the column holds (-0.0 precedes +0.0 in bounds)
    zero_signs: set[float] = field(default_factory=set)
    #: geometry/geography: (min, max) of the x, y, z and m of every vertex (NaN skipped; None
    #: where no vertex has that dimension)
    box: list[tuple[float, float] | None] | None = None

    @property
    def partition_values(self) -> set[Any]:
        """The distinct values the partition is judged from (NaN as ``"NaN"``, null as None)."""
        out: set[Any] = set()
        for t, uniq in self.partition_chunks:
            out.update(python_value(t, v) for v in uniq.to_pylist() if not (isinstance(v, float) and math.isnan(v)))
            if _is_float(t) and self.nans:
                out.add("NaN")
        return out

    def partition_int_range(self) -> tuple[int, int, bool] | None:
        """(least, greatest, whether a null is among them) of the partition values when every one
        that is not null is an integer (an Arrow integer column) and one is; else None."""
        chunks = [uniq for _t, uniq in self.partition_chunks]
        if not chunks or not all(pa.types.is_integer(c.type) for c in chunks):
            return None
        present = [c for c in chunks if len(c) > c.null_count]
        if not present:
            return None
        ranges = [pc.min_max(c) for c in present]
        return (min(r["min"].as_py() for r in ranges), max(r["max"].as_py() for r in ranges),
                any(c.null_count for c in chunks))


def comparable(t: IcebergType, arr: Any) -> Any:
    """``arr`` as an Arrow array whose Python values are the reference's forms (ints for
    temporal types, storage bytes for uuid extension arrays)."""
    if hasattr(arr, "storage") and getattr(arr.type, "extension_name", "") == "arrow.uuid":
        arr = arr.storage
    if isinstance(t, DateType) and pa.types.is_date(arr.type):
        return arr.cast(pa.int32()) if pa.types.is_date32(arr.type) else arr
    if isinstance(t, (TimeType, TimestampType, TimestamptzType, TimestampNanoType, TimestamptzNanoType)):
        if isinstance(t, (TimestampType, TimestamptzType)) and pa.types.is_timestamp(arr.type) \
                and arr.type.unit == "ns":  # ORC's timestamps: microseconds of a microsecond type
            arr = arr.cast(pa.timestamp("us", arr.type.tz), safe=False)
        if pa.types.is_timestamp(arr.type) or pa.types.is_time(arr.type):
            return arr.cast(pa.int64())
    return arr


def python_value(t: IcebergType, v: Any) -> Any:
    """A value Arrow gives (``to_pylist``) in the reference's form (a uuid as ``uuid.UUID``)."""
    if v is None:
        return None
    if isinstance(t, UUIDType) and isinstance(v, bytes):
        return uuid.UUID(bytes=v)
    return v


def _is_float(t: IcebergType) -> bool:
    return isinstance(t, (FloatType, DoubleType))


def accumulate(stats: ColumnStats, t: IcebergType, arr: Any, *, want_partition: bool | str) -> None:
    """Add one chunk of column values to ``stats``. ``want_partition``: keep the chunk's
    distinct values for the partition check; ``"ends"``: of an integer chunk only its least and
    greatest value and whether it holds a null (enough for a transform that never decreases,
    :meth:`ColumnStats.partition_int_range`), one ``min_max`` instead of a hash of every value."""
    arr = comparable(t, arr)
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
    if want_partition == "ends" and pa.types.is_integer(arr.type):
        stats.partition_complete = False
        ends = pc.min_max(arr) if len(arr) > arr.null_count else None
        stats.partition_chunks.append((t, pa.array(([] if ends is None else [ends["min"].as_py(), ends["max"].as_py()])
                                                   + ([None] if arr.null_count else []), arr.type)))
    elif want_partition:
        stats.partition_chunks.append((t, pc.unique(arr)))
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
        lo, hi = python_value(t, mm["min"].as_py()), python_value(t, mm["max"].as_py())
    if stats.lo is None or value_lt(lo, stats.lo):
        stats.lo = lo
    if stats.hi is None or value_lt(stats.hi, hi):
        stats.hi = hi


def _geo_accumulate(stats: ColumnStats, values: Any) -> None:
    """Widen ``stats.box`` by the vertices of WKB ``values`` (undecodable values are skipped)."""
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


def same_value(a: Any, b: Any) -> bool:
    """Whether two values of one Iceberg type are the same value: NaN is the same as NaN (the
    spec's values compare so; Python's ``==`` says NaN differs from itself), null as null."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def value_lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def leaf_arrays(arr: Any, path: list[tuple[str, int]]) -> tuple[Any, bool, int]:
    """Follow ``path`` ((kind, index) steps: ``struct``/``list``/``key``/``value``) from a
    top-level column chunk to the leaf values; True when a list or map was crossed; the number
    of leaf slots whose enclosing struct is null."""
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
    return {fid: (info.path[0], [(kind, i) for kind, i in info.steps[1:]], info.field_type, info.required)
            for fid, info in walk(schema) if not isinstance(info.field_type, (StructType, ListType, MapType))}


def decode_bound(candidates: list[IcebergType], data: bytes) -> tuple[IcebergType, Any] | None:
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
            if op == "lower" and value_lt(s.lo, _norm(b, s.lo)):
                add("data.lower-bound", f"lower_bounds[{fid}] is {show(b)}, the data's smallest value is "
                    f"{show(s.lo)} (a lower bound must be <= every value)", CLAUSE_METRICS, f"lower_bounds/{fid}")
            if op == "upper" and value_lt(_norm(b, s.hi), s.hi):
                add("data.upper-bound", f"upper_bounds[{fid}] is {show(b)}, the data's largest value is "
                    f"{show(s.hi)} (an upper bound must be >= every value)", CLAUSE_METRICS, f"upper_bounds/{fid}")
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


def show(v: Any) -> str:
    if isinstance(v, bytes):
        return v.hex()
    return repr(v) if isinstance(v, str) else str(v)


@dataclass
class VariantStats:
    """What the values of one variant column hold by normalized path (their types, the least and
    greatest value of each order class: :class:`reference.variant.PathValues`); why the column did
    not decode, if it did not."""

    values: PathValues = field(default_factory=PathValues)
    undecodable: str | None = None
    #: rows read so far; the first row whose metadata breaks its sorted_strings bit, and why
    rows: int = 0
    unsorted: tuple[int, str] | None = None
    #: the first row holding an object whose field ids are not in the order of their names, and why
    misordered: tuple[int, str] | None = None


def accumulate_variant(stats: VariantStats, arr: Any) -> None:
    """Add one chunk of a variant column (metadata, value and shredded typed_value) to ``stats``."""
    if stats.undecodable is not None:
        return
    first, stats.rows = stats.rows, stats.rows + len(arr)
    if stats.unsorted is None:
        stats.unsorted = unsorted_metadata(arr, first)
    misordered: list[tuple[int, str]] | None = [] if stats.misordered is None else None
    try:
        rows = unshred(arr, misordered)
    except SpecViolation as e:
        stats.undecodable = e.detail
        return
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, NotImplementedError, RecursionError) as e:
        # a column of a shape the codec does not foresee: this column is unreadable, the file's other
        # findings stand ("Untrusted tables: the checker never crashes, never hangs")
        stats.undecodable = f"{type(e).__name__}: {e}"
        return
    if misordered:
        row, why = misordered[0]
        stats.misordered = (first + row, why)
    for r in rows:
        if r is not None:
            stats.values.add(r)


def unsorted_metadata(arr: Any, first: int) -> tuple[int, str] | None:
    """The first row (counted from ``first``) of a variant column chunk whose metadata sets
    ``sorted_strings`` over a dictionary that is not sorted and unique, and why; each distinct
    metadata is looked at once."""
    import pyarrow as pa

    t = arr.type
    if not pa.types.is_struct(t) or t.get_field_index("metadata") < 0:
        return None  # unshred reports the shape
    metas = arr.flatten()[t.get_field_index("metadata")].to_pylist()
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * len(metas)
    seen: set[bytes] = set()
    for n, (ok, meta) in enumerate(zip(valid, metas)):
        if not ok or not isinstance(meta, bytes) or meta in seen:
            continue
        seen.add(meta)
        why = sorted_strings_problem(meta)
        if why is not None:
            return first + n, why
    return None


CLAUSE_VARIANT = ("Manifests / Field-level Metrics and Statistics / Bounds for Variant (\"Bounds for a field must be "
                  "accurate for all non-null values of the field in a data file.\")")


CLAUSE_VARIANT_MIXED = ("Manifests / Field-level Metrics and Statistics / Bounds for Variant (\"Bounds must not be "
                        "written to describe values with mixed Variant types (other than null).\")")


def compare_variant(df: dict[str, Any], fid: int, s: VariantStats, add: Callable[[str, str, str, str], None]) -> None:
    """Findings for the bounds of variant column ``fid`` (Appendix D: a serialized Variant object of
    normalized path -> bound) against the values at each path: a lower bound above the least value
    of its order class, an upper bound below the greatest (a truncated upper bound must still be
    >= the greatest value). Values of another class than the bound's are not compared; values of
    more than one Variant type at a path with bounds (:meth:`reference.variant.PathValues.mixed`)
    are mixed Variant types, which bounds must not describe."""
    mixed: set[str] = set()
    for which, op in (("lower_bounds", "lower"), ("upper_bounds", "upper")):
        raw = (df.get(which) or {}).get(str(fid))
        if raw is None:
            continue
        try:
            bounds = variant_bounds_from_bytes(bytes.fromhex(raw))
        except (SpecViolation, ValueError) as e:
            add("data.bound-undecodable", f"{which}[{fid}] (variant) = {raw[:80]} does not decode: "
                f"{getattr(e, 'detail', e)}", CLAUSE_METRICS, f"{which}/{fid}")
            continue
        for path, b in sorted(bounds.items()):
            kinds = s.values.mixed(path, exact=False)
            if kinds and path not in mixed:
                mixed.add(path)
                add("data.variant-bound-mixed-types", f"{which}[{fid}] has a bound for {path}, whose values in the "
                    f"file are of mixed Variant types ({', '.join(kinds)})", CLAUSE_VARIANT_MIXED,
                    f"{which}/{fid}/{path}")
            cls, key = order_class(b), order_key(b)
            have = s.values.ranges.get(path, {}).get(cls or "")
            if have is None or key is None:
                continue
            lo_key, lo, hi_key, hi = have
            if op == "lower" and lo_key < key:
                add("data.lower-bound", f"lower_bounds[{fid}] at {path} is {show_variant(b)}, the data's smallest value "
                    f"there is {show_variant(lo)} (a lower bound must be <= every value)", CLAUSE_VARIANT,
                    f"lower_bounds/{fid}/{path}")
            if op == "upper" and key < hi_key:
                add("data.upper-bound", f"upper_bounds[{fid}] at {path} is {show_variant(b)}, the data's largest value "
                    f"there is {show_variant(hi)} (an upper bound must be >= every value)", CLAUSE_VARIANT,
                    f"upper_bounds/{fid}/{path}")
