"""First row id inheritance (spec: First Row ID Inheritance and First Row ID Assignment): a data
file without a first_row_id takes the manifest's first_row_id plus the record counts of the live
data files before it that had none; a DELETED entry takes no ids, since a manifest's range covers
its added and existing rows only (a snapshot advances next-row-id by added_rows_count +
existing_rows_count)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.manifests import inherit


def _entry(status: int, path: str, rows: int, first_row_id: int | None = None, content: int = 0) -> dict[str, Any]:
    return {"status": status, "snapshot_id": 1, "sequence_number": 1, "file_sequence_number": 1,
            "data_file": {"content": content, "file_path": path, "record_count": rows, "first_row_id": first_row_id}}


def _ids(entries: list[dict[str, Any]], manifest_first_row_id: int | None) -> list[Any]:
    manifest = {"sequence_number": 1, "added_snapshot_id": 1, "first_row_id": manifest_first_row_id}
    return [e["data_file"]["first_row_id"] for e in inherit(entries, manifest, 3)]


def test_added_and_existing_files_take_consecutive_ranges() -> None:
    # the spec's example: data1 keeps its id; data2 and data3 get 1,000 + 0 and 1,000 + 50
    entries = [_entry(0, "data1", 25, first_row_id=575), _entry(1, "data2", 50), _entry(1, "data3", 50)]
    assert _ids(entries, 1000) == [575, 1000, 1050]


def test_a_deleted_entry_takes_no_row_ids() -> None:
    entries = [_entry(2, "a", 5), _entry(0, "b", 3), _entry(1, "c", 4)]
    assert _ids(entries, 100) == [None, 100, 103]


def test_delete_files_and_unassigned_manifests_take_none() -> None:
    entries = [_entry(1, "d", 7, content=1), _entry(1, "e", 2)]
    assert _ids(entries, 10) == [None, 10]
    assert _ids([_entry(1, "f", 2)], None) == [None]
