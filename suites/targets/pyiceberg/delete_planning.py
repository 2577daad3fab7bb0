"""PyIceberg target: capability ``delete-planning`` through ``pyiceberg.table.delete_file_index``.

PyIceberg 0.12 indexes position delete files (``DeleteFileIndex.add_delete_file`` with the
manifest entry's sequence number and the partition tuple; ``for_data_file``); it plans no
equality deletes (a scan with one raises), so a case with an equality delete file is
UNSUPPORTED. Deletion vectors are given as what they are in a manifest: position delete
entries in ``puffin`` format with ``referenced_data_file``, content offset and size. A delete
file's entry carries its file sequence number (the data sequence number where the case gives
none); the data file is planned with its data sequence number, as PyIceberg's scan calls
``for_data_file(manifest_entry.sequence_number, ...)``.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import DELETE_PLANNING, Unsupported


def _partition(specs: Any, f: Any) -> Any:
    from pyiceberg.typedef import Record

    spec = next(s for s in specs if s["spec-id"] == f["spec_id"])
    values = f.get("partition") or {}
    return Record(*[values.get(str(pf["field-id"])) for pf in spec["fields"]])


def _file(specs: Any, f: Any) -> Any:
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat

    extra = {k: f[k] for k in ("referenced_data_file", "content_offset", "content_size_in_bytes", "sort_order_id")
             if k in f}
    if "equality_ids" in f:
        extra["equality_ids"] = f["equality_ids"]
    data_file = DataFile.from_args(
        _table_format_version=3, content=DataFileContent(f["content"]), file_path=f["file_path"],
        file_format=FileFormat(str(f.get("file_format", "parquet")).upper()), partition=_partition(specs, f),
        record_count=1, file_size_in_bytes=1024, **extra)
    data_file.spec_id = f["spec_id"]
    return data_file


class DeletePlanningMixin:
    CAPABILITIES = frozenset({DELETE_PLANNING})

    def applicable_deletes(self, schema: Any, specs: Any, data_file: Any, delete_files: Any) -> list[str]:
        from pyiceberg.manifest import ManifestEntry, ManifestEntryStatus
        from pyiceberg.table.delete_file_index import DeleteFileIndex

        if any(d["content"] == 2 for d in delete_files):
            raise Unsupported("PyIceberg 0.12 plans no equality deletes")
        index = DeleteFileIndex()
        for d in delete_files:
            seq = d["data_sequence_number"]
            entry = ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=1, sequence_number=seq,
                                            file_sequence_number=d.get("file_sequence_number", seq),
                                            data_file=_file(specs, d))
            index.add_delete_file(entry, partition_key=_partition(specs, d))
        found = index.for_data_file(data_file["data_sequence_number"], _file(specs, data_file),
                                    partition_key=_partition(specs, data_file))
        return sorted(f.file_path for f in found)
