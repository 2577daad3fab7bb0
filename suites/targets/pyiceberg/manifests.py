"""PyIceberg target: capabilities ``manifest-read`` and ``manifest-write``.

Reading goes through ``pyiceberg.manifest``: ``read_manifest_list`` for lists and
``ManifestFile.fetch_manifest_entry`` (with nothing to inherit: the manifest-list fields it
would inherit from are left unset) for manifests, over a local ``PyArrowFileIO``. Entries are
turned into the decoded form of ``vectors/manifests`` (see :mod:`reference.manifests`) with
PyIceberg's own value conversion (``pyiceberg.conversions.to_json``); the partition field ids
and types come from the file's Avro schema as PyIceberg converts it.

Writing uses ``write_manifest`` / ``write_manifest_list``; PyIceberg 0.12 writes data
manifests of v1 and v2 and manifest lists of v1 and v2 only, so delete manifests and v3 are
UNSUPPORTED.

``commit_retry`` (for ``suites/test_commit.py``) covers schema updates only: PyIceberg's schema
update commits carry the requirement ``AssertCurrentSchemaId``, which is validated against the
current metadata; other operations have no retry rule in PyIceberg 0.12 (UNSUPPORTED).
"""

from __future__ import annotations

import json
from typing import Any

from iceberg_conformance.suites.api import COMMIT_RETRY, MANIFEST_READ, MANIFEST_WRITE, Rejected, Unsupported

_DATA_FILE_FIELDS = {
    1: ["file_path", "file_format", "partition", "record_count", "file_size_in_bytes", "column_sizes",
        "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata",
        "split_offsets", "sort_order_id"],
    2: ["content", "file_path", "file_format", "partition", "record_count", "file_size_in_bytes", "column_sizes",
        "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata",
        "split_offsets", "equality_ids", "sort_order_id", "referenced_data_file"],
    3: ["content", "file_path", "file_format", "partition", "record_count", "file_size_in_bytes", "column_sizes",
        "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata",
        "split_offsets", "equality_ids", "sort_order_id", "first_row_id", "referenced_data_file", "content_offset",
        "content_size_in_bytes"],
}
_LIST_FIELDS = {
    1: ["manifest_path", "manifest_length", "partition_spec_id", "added_snapshot_id", "added_files_count",
        "existing_files_count", "deleted_files_count", "added_rows_count", "existing_rows_count",
        "deleted_rows_count", "partitions", "key_metadata"],
}
_LIST_FIELDS[2] = _LIST_FIELDS[1][:3] + ["content", "sequence_number", "min_sequence_number"] + _LIST_FIELDS[1][3:]
_LIST_FIELDS[3] = _LIST_FIELDS[2] + ["first_row_id"]


def _io() -> Any:
    from pyiceberg.io.pyarrow import PyArrowFileIO

    return PyArrowFileIO()


def _enum(v: Any) -> Any:
    return getattr(v, "value", v)


def _hex(b: Any) -> str | None:
    return None if b is None else bytes(b).hex()


def _partition_types(path: str) -> list[tuple[int, Any]]:
    """(field id, pyiceberg type) of the partition struct in the file's Avro schema."""
    from pyiceberg.avro.file import AvroFile
    from pyiceberg.manifest import MANIFEST_ENTRY_SCHEMAS, DEFAULT_READ_VERSION

    with AvroFile(_io().new_input(path), MANIFEST_ENTRY_SCHEMAS[DEFAULT_READ_VERSION]) as f:
        schema = f.schema
    data_file = schema.find_field(2).field_type
    partition = data_file.field(102).field_type
    return [(pf.field_id, pf.field_type) for pf in partition.fields]


def _attr(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except AttributeError:
        return None  # a field this PyIceberg version does not model


def _pyiceberg_errors() -> tuple[type[BaseException], ...]:
    from pydantic import ValidationError as PydanticError
    from pyiceberg.exceptions import ResolveError, ValidationError

    return (ValueError, ValidationError, ResolveError, PydanticError, KeyError, EOFError)


class ManifestsMixin:
    CAPABILITIES = frozenset({MANIFEST_READ, MANIFEST_WRITE, COMMIT_RETRY})

    # --- reading --------------------------------------------------------------------------------

    def read_manifest(self, path: str, format_version: int) -> list[Any]:
        return self._read(path, format_version, None)

    def read_manifest_inherited(self, path: str, format_version: int, manifest_list_entry: Any) -> list[Any]:
        """Entries with inherited values, as ``ManifestFile.fetch_manifest_entry`` fills them in."""
        return self._read(path, format_version, manifest_list_entry)

    def _read(self, path: str, format_version: int, mle: Any) -> list[Any]:
        from pyiceberg.conversions import to_json
        from pyiceberg.manifest import ManifestContent, ManifestFile

        inherited = mle is not None
        mle = mle or {}
        try:
            ptypes = _partition_types(path)
            # read as stored: nothing to inherit from. Inherited: the fields the manifest-list
            # entry lacks (a v1 list has no content or sequence numbers) take PyIceberg's defaults
            keys = ("sequence_number", "min_sequence_number", "added_snapshot_id", "first_row_id")
            given: dict[str, Any] = {k: mle[k] for k in keys if k in mle} if inherited else dict.fromkeys(keys)
            if "content" in mle or not inherited:
                given["content"] = ManifestContent(mle.get("content", 0))
            mf = ManifestFile.from_args(
                manifest_path=path, manifest_length=mle.get("manifest_length", 0),
                partition_spec_id=mle.get("partition_spec_id", 0), **given)
            entries = mf.fetch_manifest_entry(_io(), discard_deleted=False)
        except _pyiceberg_errors() as e:
            raise Rejected(f"pyiceberg: {type(e).__name__}: {e}") from e
        out = []
        for ent in entries:
            d: dict[str, Any] = {"status": _enum(ent.status), "snapshot_id": ent.snapshot_id}
            if format_version >= 2 or inherited:  # the sequence numbers a v2 reader reads
                d["sequence_number"] = ent.sequence_number
                d["file_sequence_number"] = ent.file_sequence_number
            df = ent.data_file
            fields: dict[str, Any] = {}
            for name in _DATA_FILE_FIELDS[format_version]:
                v = _attr(df, name)
                if name == "partition":
                    values = list(v._data) if v is not None else []
                    v = {str(fid): (None if x is None else to_json(t, x))
                         for (fid, t), x in zip(ptypes, values)}
                elif name in ("content", "file_format"):
                    v = _enum(v)
                elif name in ("lower_bounds", "upper_bounds") and v is not None:
                    v = {str(k): _hex(b) for k, b in v.items()}
                elif name in ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts") \
                        and v is not None:
                    v = {str(k): n for k, n in v.items()}
                elif name == "key_metadata":
                    v = _hex(v)
                elif isinstance(v, (list, tuple)):
                    v = list(v)
                fields[name] = v
            d["data_file"] = fields
            out.append(d)
        return json.loads(json.dumps(out))

    def read_manifest_list(self, path: str, format_version: int) -> list[Any]:
        from pyiceberg.manifest import read_manifest_list

        try:
            files = list(read_manifest_list(_io().new_input(path)))
        except _pyiceberg_errors() as e:
            raise Rejected(f"pyiceberg: {type(e).__name__}: {e}") from e
        out = []
        for mf in files:
            d: dict[str, Any] = {}
            for name in _LIST_FIELDS[format_version]:
                v = _attr(mf, name)
                if name == "partitions" and v is not None:
                    v = [{"contains_null": s.contains_null, "contains_nan": s.contains_nan,
                          "lower_bound": _hex(s.lower_bound), "upper_bound": _hex(s.upper_bound)} for s in v]
                elif name == "key_metadata":
                    v = _hex(v)
                elif name == "content":
                    v = _enum(v)
                d[name] = v
            out.append(d)
        return json.loads(json.dumps(out))

    def commit_retry(self, spec: Any) -> Any:
        from pyiceberg.exceptions import CommitFailedException
        from pyiceberg.table.metadata import TableMetadataUtil
        from pyiceberg.table.update import AssertCurrentSchemaId

        if spec["operation"] != "update-schema":
            raise Unsupported(f"pyiceberg 0.12 has no retry rule for {spec['operation']}")
        current = {"format-version": 2, "table-uuid": "00000000-0000-0000-0000-000000000001",
                   "location": "file:/t", "last-sequence-number": 0, "last-updated-ms": 0,
                   "last-column-id": max((f["id"] for s in spec["current"]["schemas"] for f in s["fields"]), default=0),
                   "schemas": spec["current"]["schemas"], "current-schema-id": spec["current"]["current-schema-id"],
                   "partition-specs": [{"spec-id": 0, "fields": []}], "default-spec-id": 0,
                   "last-partition-id": 999, "sort-orders": [{"order-id": 0, "fields": []}],
                   "default-sort-order-id": 0}
        try:
            AssertCurrentSchemaId(current_schema_id=spec["base"]["current-schema-id"]).validate(
                TableMetadataUtil.parse_obj(current))
        except CommitFailedException as e:
            raise Rejected(str(e)) from e
        return {"retry": True}

    # --- writing --------------------------------------------------------------------------------

    def write_manifest(self, path: str, manifest: Any) -> None:
        from pyiceberg.io.pyarrow import PyArrowFileIO
        from pyiceberg.manifest import (
            DataFile, DataFileContent, FileFormat, ManifestEntry, ManifestEntryStatus, write_manifest,
        )
        from pyiceberg.partitioning import PartitionField, PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.transforms import parse_transform
        from pyiceberg.typedef import Record

        from iceberg_conformance.suites.targets.pyiceberg._convert import to_native

        version = int(manifest["format_version"])
        meta = manifest["metadata"]
        if version not in (1, 2):
            raise Unsupported(f"pyiceberg 0.12 writes manifests of v1 and v2 only, not v{version}")
        if meta.get("content", "data") != "data":
            raise Unsupported("pyiceberg 0.12 has no delete-manifest writer")
        schema = Schema.model_validate_json(meta["schema"])
        spec = PartitionSpec(*(PartitionField(source_id=f["source-id"], field_id=f["field-id"],
                                              transform=parse_transform(f["transform"]), name=f["name"])
                               for f in json.loads(meta["partition-spec"])),
                             spec_id=int(meta.get("partition-spec-id", 0)))
        ptype = spec.partition_type(schema)
        snapshot_ids = [e["snapshot_id"] for e in manifest["entries"] if e.get("snapshot_id") is not None]
        writer_snapshot = snapshot_ids[0] if snapshot_ids else 1
        with write_manifest(version, spec, schema, PyArrowFileIO().new_output(path), writer_snapshot,
                            "null") as w:
            for e in manifest["entries"]:
                d = e["data_file"]
                part = Record(*(to_native(json.loads(f.field_type.model_dump_json()), d["partition"].get(str(f.field_id)))
                                for f in ptype.fields))

                def ints(m: Any) -> Any:
                    return None if m is None else {int(k): v for k, v in m.items()}

                def bins(m: Any) -> Any:
                    return None if m is None else {int(k): bytes.fromhex(v) for k, v in m.items()}

                data_file = DataFile.from_args(
                    content=DataFileContent(d.get("content", 0)), file_path=d["file_path"],
                    file_format=FileFormat(d["file_format"].upper()), partition=part,
                    record_count=d["record_count"], file_size_in_bytes=d["file_size_in_bytes"],
                    column_sizes=ints(d.get("column_sizes")), value_counts=ints(d.get("value_counts")),
                    null_value_counts=ints(d.get("null_value_counts")),
                    nan_value_counts=ints(d.get("nan_value_counts")),
                    lower_bounds=bins(d.get("lower_bounds")), upper_bounds=bins(d.get("upper_bounds")),
                    key_metadata=None if d.get("key_metadata") is None else bytes.fromhex(d["key_metadata"]),
                    split_offsets=d.get("split_offsets"), equality_ids=d.get("equality_ids"),
                    sort_order_id=d.get("sort_order_id"),
                )
                w.add_entry(ManifestEntry.from_args(
                    status=ManifestEntryStatus(e["status"]), snapshot_id=e.get("snapshot_id"),
                    sequence_number=e.get("sequence_number"), file_sequence_number=e.get("file_sequence_number"),
                    data_file=data_file))

    def write_manifest_list(self, path: str, manifest_list: Any) -> None:
        from pyiceberg.io.pyarrow import PyArrowFileIO
        from pyiceberg.manifest import ManifestContent, ManifestFile, PartitionFieldSummary, write_manifest_list

        version = int(manifest_list["format_version"])
        if version not in (1, 2):
            raise Unsupported(f"pyiceberg 0.12 writes manifest lists of v1 and v2 only, not v{version}")
        meta = manifest_list.get("metadata", {})
        snapshot_id = int(meta.get("snapshot-id", manifest_list["manifests"][0]["added_snapshot_id"]))
        parent = meta.get("parent-snapshot-id")
        seq = meta.get("sequence-number")
        files = []
        for m in manifest_list["manifests"]:
            parts = None if m.get("partitions") is None else [
                PartitionFieldSummary(
                    s["contains_null"], s.get("contains_nan"),
                    None if s.get("lower_bound") is None else bytes.fromhex(s["lower_bound"]),
                    None if s.get("upper_bound") is None else bytes.fromhex(s["upper_bound"]))
                for s in m["partitions"]]
            files.append(ManifestFile.from_args(
                manifest_path=m["manifest_path"], manifest_length=m["manifest_length"],
                partition_spec_id=m["partition_spec_id"], content=ManifestContent(m.get("content", 0)),
                sequence_number=m.get("sequence_number", 0), min_sequence_number=m.get("min_sequence_number", 0),
                added_snapshot_id=m["added_snapshot_id"], added_files_count=m.get("added_files_count"),
                existing_files_count=m.get("existing_files_count"), deleted_files_count=m.get("deleted_files_count"),
                added_rows_count=m.get("added_rows_count"), existing_rows_count=m.get("existing_rows_count"),
                deleted_rows_count=m.get("deleted_rows_count"), partitions=parts,
                key_metadata=None if m.get("key_metadata") is None else bytes.fromhex(m["key_metadata"])))
        with write_manifest_list(version, PyArrowFileIO().new_output(path), snapshot_id,
                                 None if parent is None else int(parent), None if seq is None else int(seq),
                                 "null") as w:
            w.add_manifests(files)
