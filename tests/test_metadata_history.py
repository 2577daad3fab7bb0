"""Rules of a table's history and of its metadata file that shipped bugs broke
(reference/metadata.py, checker/units/history.py): snapshot-log entries lost, parent-snapshot-id
-1, a metadata-log naming its own file, GZIP metadata without the suffix readers look for. Each
rule is shown to fire on the violation and to stay silent on the valid history next to it.
Schema and partition evolution across the metadata's schemas and specs and its earlier
metadata files are in test_evolution_history.py."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.units.history import check_snapshot_log
from iceberg_conformance.reference.metadata import load_metadata, validate_metadata


def _field(fid: int, name: str, type_: str = "string") -> dict[str, Any]:
    return {"id": fid, "name": name, "required": False, "type": type_}


def _doc() -> dict[str, Any]:
    """A valid v2 metadata document without snapshots."""
    fields = [_field(1, "id", "long"), _field(2, "data"), _field(3, "dt", "date")]
    return {
        "format-version": 2, "table-uuid": "00000000-0000-0000-0000-000000000001", "location": "/t",
        "last-updated-ms": 1000, "last-column-id": 3, "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": fields}], "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
        "snapshots": [], "snapshot-log": [], "metadata-log": [], "last-sequence-number": 0,
    }


def _rules(doc: dict[str, Any], file: str = "") -> list[str]:
    return sorted(f.rule for f in validate_metadata(doc, file))


# --- the snapshot log across metadata files ---------------------------------------------------

def _logged(doc: dict[str, Any], live: list[int], log: list[int]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["snapshots"] = [{"snapshot-id": s} for s in live]
    doc["snapshot-log"] = [{"snapshot-id": s, "timestamp-ms": 100 * s} for s in log]
    return doc


def test_snapshot_log_entries_of_live_snapshots_are_kept() -> None:
    # "Each time the current-snapshot-id is changed, a new entry should be added ..."; entries go
    # only "When snapshots are expired from the list of valid snapshots"
    previous = _logged(_doc(), [1, 2], [1, 2])
    cleared = _logged(_doc(), [1, 2, 3], [3])
    assert [f.rule for f in check_snapshot_log(previous, cleared, "t")] == ["metadata.snapshot-log-truncated"]
    assert check_snapshot_log(previous, _logged(_doc(), [1, 2, 3], [1, 2, 3]), "t") == []


def test_snapshot_log_entries_before_an_expired_snapshot_may_go() -> None:
    # "all entries before a snapshot that has expired should be removed"
    previous = _logged(_doc(), [1, 2, 3], [1, 2, 3])
    expired = _logged(_doc(), [1, 3, 4], [3, 4])     # 2 expired: the entries of 1 and 2 are removed
    assert check_snapshot_log(previous, expired, "t") == []


# --- one metadata file ------------------------------------------------------------------------

def test_parent_snapshot_id_minus_one_is_reported() -> None:
    # Snapshots: parent-snapshot-id is "Omitted for any snapshot with no parent"
    doc = _doc()
    doc["snapshots"] = [{"snapshot-id": 5, "parent-snapshot-id": -1, "sequence-number": 1, "timestamp-ms": 900,
                         "manifest-list": "/t/metadata/snap-5.avro", "summary": {"operation": "append"}}]
    doc["last-sequence-number"] = 1
    assert _rules(doc) == ["metadata.snapshot-parent-minus-one"]
    doc["snapshots"][0]["parent-snapshot-id"] = 4  # an expired parent: normal
    assert _rules(doc) == []


def test_metadata_log_naming_its_own_file_is_reported(tmp_path: Path) -> None:
    # metadata-log: "a new entry of the previous metadata file location should be added"
    path = tmp_path / "v3.metadata.json"
    doc = _doc()
    doc["metadata-log"] = [{"metadata-file": str(tmp_path / "v2.metadata.json"), "timestamp-ms": 900},
                           {"metadata-file": f"file://{path}", "timestamp-ms": 1000}]
    assert _rules(doc, str(path)) == ["metadata.metadata-log-self"]
    doc["metadata-log"].pop()
    assert _rules(doc, str(path)) == []


@pytest.mark.parametrize(("name", "reported"), [
    ("v1.gz.metadata.json", False), ("v1.metadata.json.gz", False), ("v1.gzip.metadata.json", True),
    ("00001-abc.metadata.json", True),
])
def test_gzip_metadata_is_named_as_readers_expect(tmp_path: Path, name: str, reported: bool) -> None:
    # Appendix F: "Some implementations require that GZIP compressed files have the suffix
    # `.gz.metadata.json` to be read correctly."
    path = tmp_path / name
    path.write_bytes(gzip.compress(json.dumps(_doc()).encode()))
    doc, findings = load_metadata(path)
    assert doc is not None
    assert [(f.rule, f.severity) for f in findings] == ([("metadata.gzip-suffix", "info")] if reported else [])
