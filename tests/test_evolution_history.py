"""Schema and partition evolution across the history a table's metadata records.

The metadata unit judges every schema of ``schemas`` against the schemas listed before it and
every partition spec of ``partition-specs`` against the specs before it ("Schema Evolution",
"Partitioning", "Partition Evolution"). Expected rules come from the spec's sentences:

* "Adding a new field assigns a new ID for that field and for any nested fields." A column added
  under the id of a dropped column is ``evolution.field-id-reused``;
* "Valid primitive type promotions are:" int -> long, float -> double, decimal(P, S) ->
  decimal(P', S) with P' > P, and in v3 date -> timestamp / timestamp_ns; any other type change
  under the same id is ``evolution.type-change``;
* "In v2 table metadata, it [a partition field id] is unique across all partition specs": an id
  given to another source or transform is ``evolution.partition-field-id-reused``;
* "Partition field IDs must be reused if an existing partition spec contains an equivalent
  field", equivalent being "the same source column IDs, transform definition and partition
  name": ``evolution.partition-field-id-not-reused``.

Valid histories stay clean: a rename keeps the id, a column dropped and added again under its
name gets a new id, promotions, an optional column made from a required one, partition fields
added, removed, renamed and re-added (written by the reference writer and by PyIceberg here; by
Iceberg Java in ``test_evolution_history_java.py``).
"""

from __future__ import annotations

import copy
import datetime
import decimal
import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.evolution import partition_evolution_problems
from iceberg_conformance.reference.partitioning import parse_partition_spec
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.reference.writer import TableBuilder
from iceberg_conformance.vectors.cases import cases_for

from .damage_assert import assert_damage_reported


def _f(fid: int, name: str, type_: str, required: bool = False) -> dict[str, Any]:
    return {"id": fid, "name": name, "required": required, "type": type_}


def _pf(source: int, fid: int, name: str, transform: str) -> dict[str, Any]:
    return {"source-id": source, "field-id": fid, "name": name, "transform": transform}


def _evolution(md: str) -> list[tuple[str, str]]:
    """(rule, location) of every evolution finding of the table, any severity."""
    return sorted((f.rule, f.location) for f in check_table(md).findings if f.rule.startswith("evolution."))


def _errors(md: str) -> list[str]:
    return sorted(str(f) for f in check_table(md).findings if f.severity == "error")


def _add_schema(b: TableBuilder, change: dict[str, str]) -> None:
    """A new current schema: the current one with the types of ``change`` (name -> type)."""
    s = copy.deepcopy(b.schema)
    s["schema-id"] = len(b.schemas)
    for f in s["fields"]:
        f["type"] = change.get(f["name"], f["type"])
    b.schemas.append(s)
    b._write_metadata()


def _edit(md: str, edit: Any) -> str:
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    edit(doc)
    Path(md).write_text(json.dumps(doc), encoding="utf-8")
    return md


# --- a field id reused ----------------------------------------------------------------------

def _drop_then_add(location: Path, new_id: int) -> str:
    """A v2 table: id, data; temp_col (id 3) added and written, dropped, then new_col added
    under ``new_id``, each step a commit."""
    b = TableBuilder(str(location), 2, [_f(1, "id", "long", True), _f(2, "data", "string")])
    b.append([{"id": 1, "data": "a"}])
    b.add_column(_f(3, "temp_col", "string"))
    b.append([{"id": 2, "data": "b", "temp_col": "old value"}])
    b.drop_column("temp_col")
    b.add_column(_f(new_id, "new_col", "string"))
    b.append([{"id": 3, "data": "c", "new_col": "new value"}])
    return b.metadata_path()


def test_iceberg_go_942_new_column_under_the_dropped_highest_id(tmp_path: Path) -> None:
    """iceberg-go seeded the id counter of a schema update from the highest id of the current
    schema instead of last-column-id: after the highest-id column was dropped, the next column
    added got its id, and the old files' values of the dropped column came back under the new
    one (https://github.com/apache/iceberg-go/issues/942). last-column-id stays 3, so only the
    history shows it."""
    md = _drop_then_add(tmp_path / "t", 3)
    assert _evolution(md) == [("evolution.field-id-reused", "/schemas/3")]
    assert [e for e in _errors(md) if "evolution.field-id-reused" not in e] == []


def test_a_column_added_under_a_fresh_id_is_clean(tmp_path: Path) -> None:
    md = _drop_then_add(tmp_path / "t", 4)
    assert _evolution(md) == [] and _errors(md) == []


def test_the_damage_case_is_reported_on_the_iceberg_go_history(tmp_path: Path) -> None:
    assert_damage_reported(_drop_then_add(tmp_path / "t", 4), tmp_path / "damaged", "evolution.field-id-reused")


def _history(tmp: Path, schemas: list[list[dict[str, Any]]], snapshots: list[dict[str, Any]] | None = None,
             current_snapshot: int | None = None, specs: list[list[dict[str, Any]]] | None = None,
             version: int = 2) -> str:
    """A metadata file (v2 unless ``version``, no data) listing ``schemas`` (schema ids 0, 1, ...;
    the last is current) and ``specs`` (spec ids 0, 1, ...; the last is the default; one
    unpartitioned spec when not given)."""
    last = max(f["id"] for fields in schemas for f in fields)
    specs = specs if specs is not None else [[]]
    doc: dict[str, Any] = {
           "format-version": version, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1", "location": str(tmp),
           "last-sequence-number": len(snapshots or []), "last-updated-ms": 1_700_000_009_000, "last-column-id": last,
           "current-schema-id": len(schemas) - 1,
           "schemas": [{"type": "struct", "schema-id": i, "fields": fields} for i, fields in enumerate(schemas)],
           "default-spec-id": len(specs) - 1,
           "partition-specs": [{"spec-id": i, "fields": fields} for i, fields in enumerate(specs)],
           "last-partition-id": max([999] + [f["field-id"] for fields in specs for f in fields]),
           "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
           "current-snapshot-id": current_snapshot, "snapshots": snapshots or [], "snapshot-log": [],
           "metadata-log": []}
    if version == 1:
        doc.pop("last-sequence-number")
    path = tmp / "v1.metadata.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _history_rules(md: str) -> list[tuple[str, str]]:
    """The evolution findings of a metadata file written by :func:`_history` (whose snapshots
    name no files: the checker's other findings about them are not looked at)."""
    return _evolution(md)


A, B, C = _f(1, "a", "long"), _f(2, "b", "string"), _f(3, "c", "int")


def test_a_restored_column_keeps_its_id(tmp_path: Path) -> None:
    """"Field deletion cannot be rolled back unless ...": the spec knows rolled-back deletions. A
    column that comes back under its old name, type and place is that column."""
    assert _history_rules(_history(tmp_path, [[A, B, C], [A, B], [A, B, C, _f(4, "d", "string")]])) == []


def test_an_id_back_under_another_name_is_reused(tmp_path: Path) -> None:
    md = _history(tmp_path, [[A, B, C], [A, B], [A, B, _f(3, "other", "int")]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/2")]


def test_an_id_back_under_another_parent_is_reused(tmp_path: Path) -> None:
    nested = {"id": 4, "name": "s", "required": False, "type": {"type": "struct", "fields": [C]}}
    md = _history(tmp_path, [[A, B, C], [A, B], [A, B, nested]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/2")]


def test_a_rename_keeps_the_id_and_a_re_added_name_gets_a_new_one(tmp_path: Path) -> None:
    md = _history(tmp_path, [[A, B, C], [A, _f(2, "label", "string"), C], [A, _f(2, "label", "string")],
                             [A, _f(2, "label", "string"), _f(4, "c", "string")]])
    assert _history_rules(md) == []


@pytest.mark.parametrize("retyped", [_f(3, "flag", "boolean"), _f(3, "label", "string")], ids=["boolean", "string"])
def test_renamed_and_retyped_under_one_id_is_reused(tmp_path: Path, retyped: dict[str, Any]) -> None:
    md = _history(tmp_path, [[A, B, C], [A, B, retyped]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/1")]


def test_a_field_is_judged_against_its_last_schema_across_one_without_it(tmp_path: Path) -> None:
    """Back under its name and place after a schema without it, a column is the old column (a
    rolled-back deletion): int cannot become date. Under another name it is another column."""
    md = _history(tmp_path, [[A, B, C], [A, B], [A, B, _f(3, "c", "date")]])
    assert _history_rules(md) == [("evolution.type-change", "/schemas/2")]
    md = _history(tmp_path, [[A, B, C], [A, B], [A, B, _f(3, "d", "date")]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/2")]


# --- a field id reused, as the earlier metadata files show it --------------------------------

def _files(tmp: Path, files: list[tuple[list[int], int]], schemas: list[list[dict[str, Any]]]) -> str:
    """Metadata files v1, v2, ... of one table, each listing the ``schemas`` (by schema id) given
    for it with the given current schema and naming the files before it in metadata-log; the
    path of the last."""
    base = json.loads(Path(_history(tmp, schemas)).read_text(encoding="utf-8"))
    log: list[dict[str, Any]] = []
    path = ""
    for n, (listed, current) in enumerate(files, 1):
        doc = dict(base, **{"schemas": [s for s in base["schemas"] if s["schema-id"] in listed],
                            "current-schema-id": current, "last-updated-ms": base["last-updated-ms"] + n,
                            "metadata-log": list(log)})
        path = str(tmp / f"v{n}.metadata.json")
        Path(path).write_text(json.dumps(doc), encoding="utf-8")
        log.append({"timestamp-ms": doc["last-updated-ms"], "metadata-file": path})
    return path


ID, X, Y = _f(1, "id", "long"), _f(2, "x", "string"), _f(2, "y", "string")


def test_a_drop_written_as_an_earlier_schema_made_current_again_frees_no_id(tmp_path: Path) -> None:
    """iceberg-go #942 as the writer committed it: x added (schema 1), dropped by making schema 0
    current again (it equals the schema without x), then y added under x's id (schema 2). The
    schemas list alone reads x -> y as a rename; the metadata files show the drop."""
    md = _files(tmp_path, [([0], 0), ([0, 1], 1), ([0, 1], 0), ([0, 1, 2], 2)], [[ID], [ID, X], [ID, Y]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/2")]


def test_a_schema_no_longer_listed_still_holds_its_ids(tmp_path: Path) -> None:
    """Schema 0 (with x) was removed from the list after x was dropped; y under x's id is another
    column all the same."""
    md = _files(tmp_path, [([0], 0), ([0, 1], 1), ([1, 2], 2)], [[ID, X], [ID], [ID, Y]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/1")]


def test_a_reuse_both_the_list_and_the_files_show_is_reported_once(tmp_path: Path) -> None:
    md = _files(tmp_path, [([0], 0), ([0, 1], 1), ([0, 1, 2], 2)], [[ID, X], [ID], [ID, Y]])
    assert _history_rules(md) == [("evolution.field-id-reused", "/schemas/2")]


@pytest.mark.parametrize("files,schemas", [
    # the drop rolled back: schema 0 (with x) current again
    ([([0], 0), ([0, 1], 1), ([0, 1], 0)], [[ID, X], [ID]]),
    # x dropped, a new column under a new id
    ([([0], 0), ([0, 1], 1), ([0, 1, 2], 2)], [[ID, X], [ID], [ID, _f(3, "y", "string")]]),
    # x renamed to y: the id is never absent
    ([([0], 0), ([0, 1], 1)], [[ID, X], [ID, Y]]),
    # x added, dropped by making schema 0 current again, added again under its name: a new id
    ([([0], 0), ([0, 1], 1), ([0, 1], 0), ([0, 1, 2], 2)], [[ID], [ID, X], [ID, _f(3, "x", "string")]]),
], ids=["restored", "new id", "rename", "re-added"])
def test_field_ids_of_a_valid_history_of_files_are_not_reported(tmp_path: Path, files: list[tuple[list[int], int]],
                                                               schemas: list[list[dict[str, Any]]]) -> None:
    assert _history_rules(_files(tmp_path, files, schemas)) == []


# --- type changes ---------------------------------------------------------------------------

@pytest.mark.parametrize("version,old,new,value", [
    (2, "long", "int", 1),
    (2, "int", "string", 1),
    (2, "string", "binary", "a"),
    (2, "double", "float", 1.5),
    (2, "date", "timestamp", "2024-01-01"),     # a v3 promotion only
    (3, "date", "timestamptz", "2024-01-01"),   # "Promotion to timestamptz ... is not allowed"
    (2, "decimal(9, 2)", "decimal(9, 3)", None),  # "Widen precision only"
    (2, "decimal(18, 2)", "decimal(9, 2)", None),
])
def test_a_type_change_that_is_no_promotion_is_reported(tmp_path: Path, version: int, old: str, new: str,
                                                       value: Any) -> None:
    b = TableBuilder(str(tmp_path / "t"), version, [_f(1, "id", "long", True), _f(2, "c", old)])
    if value is not None:  # the reference writer writes no decimal columns
        b.append([{"id": 1, "c": value}])
    _add_schema(b, {"c": new})
    assert _evolution(b.metadata_path()) == [("evolution.type-change", "/schemas/1")]


@pytest.mark.parametrize("version,old,new,value", [
    (2, "int", "long", 1),
    (2, "float", "double", 1.5),
    (2, "decimal(9, 2)", "decimal(18, 2)", None),
    (3, "date", "timestamp", "2024-01-01"),
    (3, "date", "timestamp_ns", "2024-01-01"),
])
def test_a_promotion_is_clean(tmp_path: Path, version: int, old: str, new: str, value: Any) -> None:
    b = TableBuilder(str(tmp_path / "t"), version, [_f(1, "id", "long", True), _f(2, "c", old)])
    if value is not None:
        b.append([{"id": 1, "c": value}])
    _add_schema(b, {"c": new})
    assert _evolution(b.metadata_path()) == [] and _errors(b.metadata_path()) == []


def test_a_replaced_table_may_change_types(tmp_path: Path) -> None:
    """REPLACE TABLE (Iceberg Java) keeps the snapshots, gives a column of the new schema the id
    of the current column of that name whatever its type, and removes the main branch: the next
    snapshot has no parent. Such a schema starts the table anew; the same schema after a
    snapshot that has a parent is an evolution and is judged."""
    def snap(sid: int, seq: int, schema: int, parent: int | None) -> dict[str, Any]:
        s = {"snapshot-id": sid, "sequence-number": seq, "timestamp-ms": 1_700_000_000_000 + seq,
             "manifest-list": str(tmp_path / f"snap-{sid}.avro"), "summary": {"operation": "append"},
             "schema-id": schema}
        return s if parent is None else dict(s, **{"parent-snapshot-id": parent})

    replaced = [[_f(1, "id", "long"), _f(2, "data", "string")], [_f(1, "id", "int"), _f(2, "data", "int")]]
    md = _history(tmp_path, replaced, [snap(11, 1, 0, None), snap(12, 2, 1, None)], 12)
    assert _history_rules(md) == []
    md = _history(tmp_path, replaced, [snap(11, 1, 0, None)], None)  # replaced, nothing written since
    assert _history_rules(md) == []
    md = _history(tmp_path, replaced, [snap(11, 1, 0, None), snap(12, 2, 1, 11)], 12)
    assert _history_rules(md) == [("evolution.type-change", "/schemas/1")] * 2


def test_a_type_change_is_judged_where_data_written_with_the_old_type_is_read(tmp_path: Path) -> None:
    """Once a replacement's earlier snapshots are expired, no parentless snapshot tells it; but
    no data written with the old type is read any more. The same schemas while the current
    snapshot was written with the old type are an evolution and judged."""
    def snap(schema: int) -> dict[str, Any]:
        return {"snapshot-id": 5, "sequence-number": 1, "timestamp-ms": 1_700_000_000_000,
                "manifest-list": str(tmp_path / "snap-5.avro"), "summary": {"operation": "append"},
                "schema-id": schema}

    schemas = [[_f(1, "a", "int")], [_f(1, "a", "string")]]
    assert _history_rules(_history(tmp_path, schemas, [snap(1)], 5)) == []
    assert _history_rules(_history(tmp_path, schemas, [snap(0)], 5)) == [("evolution.type-change", "/schemas/1")]


# --- partition specs ------------------------------------------------------------------------

COLS = [_f(1, "id", "long", True), _f(2, "c", "string")]


def _specs(tmp: Path, version: int, specs: list[list[dict[str, Any]]]) -> str:
    b = TableBuilder(str(tmp / "t"), version, COLS, specs)
    b.append([{"id": 1, "c": "a"}])
    return b.metadata_path()


def test_a_partition_field_id_given_to_another_transform_is_reported(tmp_path: Path) -> None:
    md = _specs(tmp_path, 2, [[_pf(2, 1000, "c", "identity")], [_pf(1, 1000, "id_bucket", "bucket[16]")]])
    assert _evolution(md) == [("evolution.partition-field-id-reused", "/partition-specs/1/fields/0")]


def test_a_partition_field_id_names_one_field_in_every_spec(tmp_path: Path) -> None:
    """"In v2 table metadata, it is unique across all partition specs": a field kept under its id
    beside a new field is clean; the id of a removed field given to the new one is reused."""
    cols = [[_f(1, "id", "long"), _f(2, "data", "string"), _f(3, "dt", "date")]]
    first = [_pf(1, 1000, "id_bucket", "bucket[16]"), _pf(3, 1001, "dt_day", "day")]
    ok = [_pf(1, 1000, "id_bucket", "bucket[16]"), _pf(2, 1002, "data", "identity")]
    assert _history_rules(_history(tmp_path, cols, specs=[first, ok])) == []
    reused = [_pf(1, 1000, "id_bucket", "bucket[16]"), _pf(2, 1001, "data", "identity")]
    assert _history_rules(_history(tmp_path, cols, specs=[first, reused])) == [
        ("evolution.partition-field-id-reused", "/partition-specs/1/fields/1")]


def test_an_equivalent_partition_field_under_a_new_id_is_reported(tmp_path: Path) -> None:
    """Dropped and added again under its name, a field keeps its id."""
    md = _specs(tmp_path, 2, [[_pf(2, 1000, "c", "identity")], [_pf(1, 1001, "id_bucket", "bucket[4]")],
                              [_pf(1, 1001, "id_bucket", "bucket[4]"), _pf(2, 1002, "c", "identity")]])
    assert _evolution(md) == [("evolution.partition-field-id-not-reused", "/partition-specs/2/fields/1")]
    kept = _specs(tmp_path / "kept", 2, [[_pf(2, 1000, "c", "identity")], [_pf(1, 1001, "id_bucket", "bucket[4]")],
                                         [_pf(1, 1001, "id_bucket", "bucket[4]"), _pf(2, 1000, "c", "identity")]])
    assert _evolution(kept) == []


def test_a_spec_equivalent_to_an_earlier_one_is_reported(tmp_path: Path) -> None:
    """"Writers must not create a new partition spec if there already exists a compatible
    partition spec defined in the table": going back to the fields of spec 0 is spec 0 again."""
    md = _specs(tmp_path, 2, [[_pf(2, 1000, "c", "identity")], [], [_pf(2, 1000, "c", "identity")]])
    assert _evolution(md) == [("evolution.partition-equivalent-spec", "/partition-specs/2")]


def test_partition_evolution_as_writers_do_it_is_clean(tmp_path: Path) -> None:
    """Added, renamed, removed, re-added under its name (old id) and re-added under another name
    (a new field: Iceberg Java and PyIceberg assign a new id then)."""
    md = _specs(tmp_path, 2, [
        [_pf(2, 1000, "c_trunc", "truncate[2]")],
        [_pf(2, 1000, "c_trunc", "truncate[2]"), _pf(1, 1001, "id_bucket", "bucket[4]")],
        [_pf(2, 1000, "c_t2", "truncate[2]"), _pf(1, 1001, "id_bucket", "bucket[4]")],
        [_pf(1, 1001, "id_bucket", "bucket[4]")],
        [_pf(1, 1001, "id_bucket", "bucket[4]"), _pf(2, 1000, "c_t2", "truncate[2]")],
        [_pf(2, 1000, "c_t2", "truncate[2]")],
        [_pf(2, 1000, "c_t2", "truncate[2]"), _pf(1, 1002, "id_b4", "bucket[4]")],
    ])
    assert _evolution(md) == [] and _errors(md) == []


def test_a_field_re_added_under_another_name_may_take_a_new_id() -> None:
    """The equivalence of "Partition field IDs must be reused if an existing partition spec
    contains an equivalent field" includes the partition name."""
    schema = parse_schema({"type": "struct", "fields": COLS})
    old = parse_partition_spec({"spec-id": 0, "fields": [_pf(2, 1000, "lab", "truncate[2]")]}, 2)
    new = parse_partition_spec({"spec-id": 1, "fields": [_pf(2, 1001, "lab2", "truncate[2]")]}, 2)
    assert partition_evolution_problems(old, new, schema, 2) == []
    same = parse_partition_spec({"spec-id": 1, "fields": [_pf(2, 1001, "lab", "truncate[2]"),
                                                          _pf(1, 1002, "id_bucket", "bucket[4]")]}, 2)
    assert [p.rule for p in partition_evolution_problems(old, same, schema, 2)] == [
        "evolution.partition-field-id-not-reused"]


def _upgraded(tmp: Path, specs: list[list[dict[str, Any]]], logged: bool) -> str:
    """A v2 metadata file whose specs were all written while the table was v1; with ``logged``
    its metadata-log names the last v1 file (which lists them)."""
    v1 = json.loads(Path(_history(tmp, [COLS])).read_text(encoding="utf-8"))
    v1.update({"format-version": 1, "partition-specs": [{"spec-id": i, "fields": f} for i, f in enumerate(specs)],
               "default-spec-id": len(specs) - 1, "last-partition-id": 999 + max(len(f) for f in specs)})
    v1.pop("last-sequence-number")
    (tmp / "v1.metadata.json").write_text(json.dumps(v1), encoding="utf-8")
    v2 = dict(v1, **{"format-version": 2, "last-sequence-number": 0})
    if logged:
        v2["metadata-log"] = [{"timestamp-ms": 1_700_000_008_000, "metadata-file": str(tmp / "v1.metadata.json")}]
    (tmp / "v2.metadata.json").write_text(json.dumps(v2), encoding="utf-8")
    return str(tmp / "v2.metadata.json")


def test_v1_positional_specs_of_an_upgraded_table_are_clean(tmp_path: Path) -> None:
    """Iceberg Java, v1: a dropped field becomes void in place and a field added again goes to the
    end under the next position (1000 + position); the table is then upgraded to v2. Nothing
    tells the v1 era apart without the old metadata file: the positional ids do."""
    specs = [[_pf(1, 1000, "id_bucket", "bucket[4]")],
             [_pf(1, 1000, "id_bucket", "void")],
             [_pf(1, 1000, "id_bucket_1000", "void"), _pf(1, 1001, "id_bucket", "bucket[4]")]]
    assert _history_rules(_upgraded(tmp_path, specs, logged=False)) == []
    # void in place, the field added again under another name and the next position
    specs = [[_pf(2, 1000, "c", "identity")], [_pf(2, 1000, "c", "void")],
             [_pf(2, 1000, "c", "void"), _pf(2, 1001, "c_2", "identity")]]
    assert _history_rules(_upgraded(tmp_path, specs, logged=False)) == []


def test_v1_partition_field_is_voided_not_dropped(tmp_path: Path) -> None:
    """Partition Evolution (v1): "Do not drop partition fields; instead replace the field's
    transform with the `void` transform"."""
    first = [_pf(2, 1000, "c", "identity"), _pf(1, 1001, "id", "identity")]
    dropped = _history(tmp_path, [COLS], specs=[first, [_pf(2, 1000, "c", "identity")]], version=1)
    assert _history_rules(dropped) == [("evolution.partition-v1-field-dropped", "/partition-specs/1")]
    voided = [_pf(2, 1000, "c", "identity"), _pf(1, 1001, "id", "void")]
    assert _history_rules(_history(tmp_path, [COLS], specs=[first, voided], version=1)) == []


def test_v1_specs_of_an_upgraded_table_are_judged_by_v1_rules(tmp_path: Path) -> None:
    """A v1 REPLACE TABLE that numbered its new spec from 1000 again: allowed while the table was
    v1, where ids were not tracked across specs ("In v2 table metadata, it is unique across all
    partition specs"). The earlier metadata file tells; without it the reuse is reported."""
    specs = [[_pf(1, 1000, "id_bucket", "bucket[4]")], [_pf(2, 1000, "c", "identity")]]
    assert _history_rules(_upgraded(tmp_path, specs, logged=True)) == []
    assert _history_rules(_upgraded(tmp_path, specs, logged=False)) == [
        ("evolution.partition-field-id-reused", "/partition-specs/1/fields/0")]


# --- valid tables written by writers, and the valid metadata vectors --------------------------

def _pyiceberg_table(tmp: Path, version: int) -> str:
    """PyIceberg: a column renamed, one dropped and added again under its name, int -> long,
    float -> double, decimal(9, 2) -> decimal(18, 2), a required column made optional; partition
    fields removed (v1: replaced by void), added, renamed and (v2) re-added; data between."""
    pytest.importorskip("pyiceberg", reason="the pyiceberg extra writes this table")
    pytest.importorskip("sqlalchemy", reason="pyiceberg's SqlCatalog needs sqlalchemy")
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import BucketTransform, DayTransform, MonthTransform, TruncateTransform
    from pyiceberg.types import (
        DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType, NestedField, StringType,
    )

    wh = tmp / "wh"
    wh.mkdir()
    cat = SqlCatalog("c", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", IntegerType(), required=True), NestedField(2, "name", StringType()),
                    NestedField(3, "score", FloatType()), NestedField(4, "price", DecimalType(9, 2)),
                    NestedField(5, "d", DateType()), NestedField(6, "cat", StringType()),
                    NestedField(7, "n", LongType(), required=True))
    spec = PartitionSpec(PartitionField(5, 1000, DayTransform(), "d_day"),
                         PartitionField(1, 1001, BucketTransform(4), "id_bucket"))
    t = cat.create_table("db.t", schema, partition_spec=spec, properties={"format-version": str(version)})

    def append(i: int) -> None:
        names = [f.name for f in t.schema().fields]
        row = {"id": i, "name": f"n{i}", "label": f"n{i}", "score": i / 2, "price": decimal.Decimal(i) / 4,
               "d": datetime.date(2024, 1 + i, 1), "cat": "x", "n": i}
        t.append(pa.Table.from_pylist([{k: row[k] for k in names}], schema=t.schema().as_arrow()))

    append(1)
    with t.update_schema() as u:
        u.rename_column("name", "label")
    with t.update_schema() as u:
        u.delete_column("cat")
    with t.update_schema() as u:
        u.add_column("cat", StringType())
    with t.update_schema() as u:
        u.update_column("id", LongType())
        u.update_column("score", DoubleType())
        u.update_column("price", DecimalType(18, 2))
    with t.update_schema() as u:
        u.make_column_optional("n")
    append(2)
    with t.update_spec() as s:
        s.remove_field("d_day")
        if version >= 2:
            s.add_field("d", MonthTransform(), "d_month")
        else:  # PyIceberg 0.12 cannot write a v1 spec with void(d) beside another transform of d
            s.add_field("label", TruncateTransform(2), "label_trunc")
    with t.update_spec() as s:
        s.rename_field("id_bucket", "id_b4")
    if version >= 2:
        with t.update_spec() as s:
            s.add_field("d", DayTransform(), "d_day")  # under its old name: v2 keeps its id
        with t.update_spec() as s:
            s.remove_field("d_month")
    append(3)
    return str(t.metadata_location)


def test_pyiceberg_v2_evolution_is_clean(tmp_path: Path) -> None:
    md = _pyiceberg_table(tmp_path, 2)
    doc = json.loads(Path(md.removeprefix("file://")).read_text(encoding="utf-8"))
    assert len(doc["schemas"]) == 6 and len(doc["partition-specs"]) == 5  # the history is there to judge
    assert _evolution(md) == [] and _errors(md) == []


def test_pyiceberg_v1_evolution_breaks_no_evolution_rule(tmp_path: Path) -> None:
    """(PyIceberg 0.12 leaves the deprecated v1 ``schema`` and ``partition-spec`` at their first
    values, which other rules report; the history itself is valid.)"""
    md = _pyiceberg_table(tmp_path, 1)
    assert _evolution(md) == []


@pytest.mark.parametrize("case", [c for c in cases_for("metadata") if not c.expects_error], ids=lambda c: c.id)
def test_valid_metadata_vectors_have_a_valid_history(case: Any) -> None:
    assert _evolution(str(case.path(case.input["file"]))) == []
