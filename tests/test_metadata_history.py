"""Rules of a table's history and of its metadata file that shipped bugs broke
(reference/metadata.py, checker/units/history.py): schema and partition evolution across the
metadata's schemas and specs, a field id given to another column after a drop, snapshot-log
entries lost, parent-snapshot-id -1, a metadata-log naming its own file, GZIP metadata without
the suffix readers look for. Each rule is shown to fire on the violation and to stay silent on
the valid history next to it."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.units.history import check_field_ids, check_snapshot_log
from iceberg_conformance.reference.metadata import load_metadata, validate_metadata


def _field(fid: int, name: str, type_: str = "string") -> dict[str, Any]:
    return {"id": fid, "name": name, "required": False, "type": type_}


def _doc(version: int = 2, fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    fields = fields or [_field(1, "id", "long"), _field(2, "data"), _field(3, "dt", "date")]
    doc: dict[str, Any] = {
        "format-version": version, "table-uuid": "00000000-0000-0000-0000-000000000001", "location": "/t",
        "last-updated-ms": 1000, "last-column-id": max(f["id"] for f in fields), "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": fields}], "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
        "snapshots": [], "snapshot-log": [], "metadata-log": [],
    }
    if version >= 2:
        doc["last-sequence-number"] = 0
    if version >= 3:
        doc["next-row-id"] = 0
    if version == 1:
        doc["schema"] = copy.deepcopy(doc["schemas"][0])
        doc["partition-spec"] = []
    return doc


def _rules(doc: dict[str, Any], file: str = "") -> list[str]:
    return sorted(f.rule for f in validate_metadata(doc, file))


def _specs(doc: dict[str, Any], *fields: list[tuple[int, str, int, str]]) -> dict[str, Any]:
    """``doc`` with one spec per argument, each a list of (field id, name, source id, transform)."""
    doc["partition-specs"] = [{"spec-id": i, "fields": [{"field-id": f, "name": n, "source-id": s, "transform": t}
                                                        for f, n, s, t in spec]} for i, spec in enumerate(fields)]
    doc["default-spec-id"] = len(fields) - 1
    doc["last-partition-id"] = max([f for spec in fields for f, _n, _s, _t in spec] + [999])
    if doc["format-version"] == 1:
        doc["partition-spec"] = copy.deepcopy(doc["partition-specs"][-1]["fields"])
    return doc


# --- partition evolution across the specs of one metadata file ---------------------------------

def test_v2_partition_field_id_names_one_field_in_every_spec() -> None:
    # Partitioning: "In v2 table metadata, it is unique across all partition specs."
    ok = _specs(_doc(), [(1000, "id_bucket", 1, "bucket[16]"), (1001, "dt_day", 3, "day")],
                [(1000, "id_bucket", 1, "bucket[16]"), (1002, "data", 2, "identity")])
    assert _rules(ok) == []
    reused = _specs(_doc(), [(1000, "id_bucket", 1, "bucket[16]"), (1001, "dt_day", 3, "day")],
                    [(1000, "id_bucket", 1, "bucket[16]"), (1001, "data", 2, "identity")])
    assert _rules(reused) == ["evolution.partition-field-id-reused"]


def test_v2_equivalent_partition_field_keeps_its_id() -> None:
    # "Partition field IDs must be reused if an existing partition spec contains an equivalent field."
    readded = _specs(_doc(), [(1000, "dt", 3, "identity")], [], [(1001, "dt", 3, "identity")])
    assert _rules(readded) == ["evolution.partition-field-id-not-reused"]
    kept = _specs(_doc(), [(1000, "dt", 3, "identity")], [], [(1000, "dt", 3, "identity")])
    assert _rules(kept) == []


def test_specs_evolved_under_v1_are_not_judged_for_reused_equivalent_ids() -> None:
    # a v1 removal keeps the id with the void transform; v1 gave a field added again a new id
    upgraded = _specs(_doc(), [(1000, "dt", 3, "identity")], [(1000, "dt", 3, "void")],
                      [(1000, "dt", 3, "void"), (1001, "dt_2", 3, "identity")])
    assert _rules(upgraded) == []


def test_v1_partition_field_is_voided_not_dropped() -> None:
    # Partition Evolution (v1): "Do not drop partition fields; instead replace the field's transform
    # with the `void` transform"
    dropped = _specs(_doc(1), [(1000, "dt", 3, "identity"), (1001, "data", 2, "identity")],
                     [(1000, "dt", 3, "identity")])
    assert _rules(dropped) == ["evolution.partition-v1-field-dropped"]
    voided = _specs(_doc(1), [(1000, "dt", 3, "identity"), (1001, "data", 2, "identity")],
                    [(1000, "dt", 3, "identity"), (1001, "data", 2, "void")])
    assert _rules(voided) == []


# --- schema evolution across the schemas of one metadata file ----------------------------------

def _with_schema(doc: dict[str, Any], fields: list[dict[str, Any]]) -> dict[str, Any]:
    doc["schemas"].append({"type": "struct", "schema-id": len(doc["schemas"]), "fields": fields})
    doc["current-schema-id"] = len(doc["schemas"]) - 1
    doc["last-column-id"] = max(doc["last-column-id"], *(f["id"] for f in fields))
    return doc


def _current_snapshot(doc: dict[str, Any], schema_id: int) -> dict[str, Any]:
    doc["snapshots"] = [{"snapshot-id": 5, "sequence-number": 1, "timestamp-ms": 900, "schema-id": schema_id,
                         "manifest-list": "/t/metadata/snap-5.avro", "summary": {"operation": "append"}}]
    doc["current-snapshot-id"], doc["last-sequence-number"] = 5, 1
    return doc


def test_same_named_field_changing_type_is_judged_where_old_data_is_reached() -> None:
    # a replace (Iceberg Java's REPLACE TABLE keeps the ids of same-named columns) leaves no
    # snapshot written with the old type: not reported
    replaced = _with_schema(_doc(fields=[_field(1, "a", "int")]), [_field(1, "a", "string")])
    assert _rules(replaced) == []
    # the current snapshot was written with the old type: its files would be read as strings
    evolved = _with_schema(_current_snapshot(_doc(fields=[_field(1, "a", "int")]), 0), [_field(1, "a", "string")])
    assert _rules(evolved) == ["evolution.type-change"]


def test_field_type_changes_only_by_promotion_across_schemas() -> None:
    promoted = _with_schema(_doc(fields=[_field(1, "n", "int")]), [_field(1, "n", "long")])
    assert _rules(promoted) == []
    replaced = _with_schema(_doc(fields=[_field(1, "a", "int")]), [_field(1, "c", "string")])
    assert _rules(replaced) == ["evolution.type-change"]
    # compared with the last schema that has the field, across one that dropped it
    dropped = _with_schema(_with_schema(_doc(fields=[_field(1, "id", "long"), _field(2, "a", "int")]),
                                        [_field(1, "id", "long")]), [_field(1, "id", "long"), _field(2, "b", "date")])
    assert _rules(dropped) == ["evolution.type-change"]


# --- the history of metadata files ------------------------------------------------------------

def _history(*currents: list[dict[str, Any]]) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    """Logged files (index, document) with these current schemas, oldest first; the last is the
    current metadata."""
    docs = [_doc(fields=fields) for fields in currents]
    return list(enumerate(docs[:-1])), docs[-1]


def test_field_id_given_to_another_column_after_a_drop_is_reported() -> None:
    # Schema Evolution: "Adding a new field assigns a new ID for that field and for any nested fields."
    base = [_field(1, "id", "long")]
    earlier, current = _history(base + [_field(2, "x")], base, base + [_field(2, "y")])
    found = check_field_ids(earlier, current, "t")
    assert [f.rule for f in found] == ["evolution.field-id-reused"]
    assert found[0].location == "/current-schema-id"


@pytest.mark.parametrize("later", [
    [_field(1, "id", "long"), _field(2, "x")],         # the dropped field restored as it was (a rollback)
    [_field(1, "id", "long"), _field(3, "y")],         # a new column with a new id
], ids=["restored", "new id"])
def test_field_ids_of_a_valid_history_are_not_reported(later: list[dict[str, Any]]) -> None:
    earlier, current = _history([_field(1, "id", "long"), _field(2, "x")], [_field(1, "id", "long")], later)
    assert check_field_ids(earlier, current, "t") == []


def test_a_rename_is_not_a_reused_id() -> None:
    # renaming keeps the id and the field is never absent
    earlier, current = _history([_field(1, "id", "long"), _field(2, "x")], [_field(1, "id", "long"), _field(2, "y")])
    assert check_field_ids(earlier, current, "t") == []


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
