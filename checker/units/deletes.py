"""Delete files against the data they delete.

* position delete files: rows sorted by ``file_path`` then ``pos``, every position inside a live
  data file of the delete file's scope (:func:`check_positions`);
* equality delete files: the columns they compare follow the identifier-field restrictions
  (:func:`equality_field_problems`);
* deletion vectors: the blob at ``content_offset`` decodes, its footer entry and the manifest
  entry agree, its positions are inside the referenced data file (:func:`check_dv`); a Puffin
  file holding deletion vectors is read whole (the ``puffin`` unit);
* (v3) a deletion vector holds every position the live position delete files it replaces delete
  in its data file (the ``dv-merge`` unit, :func:`check_dv_merge`).
"""

from __future__ import annotations

from typing import Any, Callable

from iceberg_conformance.checker.find import absent, local_path
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.checker.run import CheckRun
from iceberg_conformance.reference.deletion_vectors import check_blob_metadata, check_manifest_entry, decode_blob
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.puffin import read_puffin, validate_puffin
from iceberg_conformance.reference.safeio import open_regular
from iceberg_conformance.reference.scan import columns_by_id, FILE_PATH_ID, POS_ID, read_arrow
from iceberg_conformance.reference.schema import walk
from iceberg_conformance.reference.types import DoubleType, FloatType, StructType, VariantType

CLAUSE_EQUALITY_FIELDS = "Equality Delete Files: the column restrictions of identifier fields"
CLAUSE_POSITION_ROW = "Position Delete Files: 2147483544 row (required struct)"


def equality_field_problems(ids: list[Any], schemas: list[StructType]) -> list[str]:
    """Why equality delete columns ``ids`` break the identifier-field restrictions (optional
    columns and columns under optional structs allowed): a field of every schema that has it
    is a primitive other than float or double, outside any list or map."""
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


CLAUSE_DELETES_ORDER = "Delete Formats: Position Delete Files (rows sorted by file_path then pos)"


def check_positions(rows: list[tuple[str, int]], targets: dict[str, int], add: Callable[..., None]) -> None:
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


CLAUSE_DV_REF = "Delete Formats: Deletion Vectors (positions of rows in referenced_data_file)"
CLAUSE_DV_PARTITION = "Scan Planning: a deletion vector applies to a data file of its spec and partition"


def check_dv(local: str, df: dict[str, Any], targets: dict[str, int], add: Callable[..., None],
             elsewhere: dict[str, Any] | None = None) -> list[Finding]:
    """A deletion vector's blob against its manifest entry and its referenced data file
    (``targets``: live data files of the DV's spec and partition with their record counts;
    ``elsewhere``: live data files of another spec or partition, path -> [spec id, partition])."""
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
    if ref is not None and ref not in targets and ref in (elsewhere or {}):
        spec_id, partition = (elsewhere or {})[ref]
        add("dv.partition", f"referenced_data_file {ref} is live in partition spec {spec_id} with partition "
            f"{partition}, the deletion vector's partition is {df.get('partition')}: a deletion vector applies "
            "only to a data file of its own spec and partition, so it deletes no row", CLAUSE_DV_PARTITION,
            "partition")
    elif ref is not None and ref not in targets:
        add("dv.target-not-live", f"referenced_data_file {ref} is no live data file in the snapshots this "
            "deletion vector is live in", CLAUSE_DV_REF, "referenced_data_file", "warning")
    elif dv is not None and ref is not None:
        rc = targets[ref]
        past = [p for p in dv.positions if p >= rc]
        if past:
            add("dv.position-out-of-range", f"{len(past)} deleted position(s) are at or past the referenced "
                f"file's record_count {rc} (e.g. {past[0]})", CLAUSE_DV_REF, "content_offset")
    return out


CLAUSE_DV_MERGE = "Delete Formats: Deletion Vectors (a DV replaces the position delete files of its data file)"


def dv_positions(local: str, offset: int, size: int) -> tuple[int, ...] | None:
    """The positions of the deletion vector blob at ``offset`` (``size`` bytes) of a Puffin
    file; None when it does not decode (reported by the DV's own rules)."""
    try:
        with open_regular(local) as fh:
            fh.seek(offset)
            blob = fh.read(size)
        return decode_blob(blob).positions
    except (SpecViolation, OSError, ValueError):
        return None


def check_dv_merge(dv: dict[str, Any], files: list[dict[str, Any]],
                   readable: Callable[[str], bool] = lambda _p: True,
                   rows_of: Callable[[str, str], dict[str, set[int]] | None] | None = None,
                   locate: Callable[[str], str | None] = local_path) -> list[Finding]:
    """``dv.holds-position-deletes``: a deletion vector holds every position that the live
    position delete files applying to its data file (planned by ``checker.plan``) delete
    in that file. One finding per position delete file with missing positions, on the DV's
    manifest entry. ``readable`` says whether a local path may be read; ``rows_of`` reads a
    position delete file of a file format (:func:`position_delete_rows` unless given); ``locate``
    where a recorded path is read."""
    rows_of = rows_of or position_delete_rows
    out: list[Finding] = []
    local = locate(str(dv["path"]))
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
        plocal = locate(str(p["path"]))
        if plocal is None or not readable(plocal) or absent(plocal) is not None:
            continue
        rows = rows_of(plocal, str(p.get("file_format") or "PARQUET"))
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


def check_dv_merge_unit(run: CheckRun, unit: Unit) -> list[Finding]:
    """A deletion vector against the older live position delete files of its data file."""
    return check_dv_merge(unit.context["dv"], unit.context.get("files") or [], lambda p: not run.outside(p),
                          lambda p, fmt: run.recent("position-delete-rows", p, lambda: position_delete_rows(p, fmt)),
                          run.local)


def check_puffin(run: CheckRun, unit: Unit) -> list[Finding]:
    """A Puffin file holding deletion vectors, as a whole: footer and every blob."""
    local = run.local(unit.path)
    if local is None or not run.readable(local):
        return []  # reported by the delete-file units
    return validate_puffin(local)


def position_delete_rows(local: str, file_format: str = "PARQUET") -> dict[str, set[int]] | None:
    """A position delete file's rows (Parquet, ORC or Avro), as data file path -> deleted
    positions (columns found by field id, as :mod:`reference.scan` reads them); None when the
    file cannot be read (reported by the file's own unit)."""
    out: dict[str, set[int]] | None
    try:
        tbl = read_arrow(local, file_format)
        cols = columns_by_id(tbl)
        if FILE_PATH_ID not in cols or POS_ID not in cols:
            return None
        out = {}
        for fp, pos in zip(tbl.column(cols[FILE_PATH_ID]).to_pylist(), tbl.column(cols[POS_ID]).to_pylist()):
            if isinstance(fp, str) and isinstance(pos, int):
                out.setdefault(fp, set()).add(pos)
    except (OSError, ValueError, SpecViolation):
        out = None
    return out
