"""The metadata-only check costs the distinct files and records of a table, not its commits times
its files (issue 25). Each test pins one way of it by what it does, on a PyIceberg table of 20
appends (20 snapshots whose manifest lists repeat each other, 20 earlier metadata files each
holding every snapshot before it) or on a document built here:

* the earlier metadata files of ``metadata-log`` share the arrays they repeat
  (:func:`reference.metadata.load_metadata_after`), and read what :func:`load_metadata` reads;
* the JSON Schema judges one snapshot (log entry) per shape, the whole document when one is wrong;
* a valid metadata text is parsed once, without the located parse's hooks;
* a snapshot unit works out what a manifest-list record gives once per record;
* a manifest list whose block ends with the previous list's does not go through those records;
* ``CheckRun.repeated_keys`` names only the content keys live in more than one manifest.
"""

from __future__ import annotations

import gc
import json
import math
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.plan import LiveDigest
from iceberg_conformance.checker.run import CheckRun
from iceberg_conformance.checker.units import snapshot as snapshot_unit
from iceberg_conformance.reference import metadata as md
from iceberg_conformance.reference.avro import SharedBlocks
from iceberg_conformance.reference.manifests import read_manifest_list, RepeatingEntries

APPENDS = 20


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The current metadata file of a v2 PyIceberg table of ``APPENDS`` appends."""
    pytest.importorskip("pyiceberg", reason="PyIceberg writes the table (extra pyiceberg)")
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    root = tmp_path_factory.mktemp("history")
    catalog = SqlCatalog("c", uri=f"sqlite:///{root / 'c.db'}", warehouse=f"file://{root}")
    catalog.create_namespace("db")
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("s", pa.string())])
    t = catalog.create_table("db.t", schema, properties={"format-version": "2"})
    for i in range(APPENDS):
        t.append(pa.table({"id": pa.array([2 * i, 2 * i + 1], pa.int64()), "s": pa.array(["a", None])}))
    return str(t.metadata_location).removeprefix("file://")


def _doc(path: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(path).read_text())
    return doc


# --- the earlier metadata files ----------------------------------------------------------------

def test_logged_files_share_the_snapshots_they_repeat(table: str) -> None:
    logged = CheckRun(table).logged()
    assert len(logged) == APPENDS  # the create and every append but the last
    for (_i, _p, before), (_j, path, after) in zip(logged, logged[1:]):
        assert after == md.load_metadata(Path(table).parent / Path(path).name)[0]
        old, new = before["snapshots"], after["snapshots"]
        assert len(new) == len(old) + 1
        assert all(a is b for a, b in zip(old, new))  # not parsed again: the very values


@pytest.mark.parametrize("text", [
    '{"a":[1,{"k":2}],"b":3}',                    # one element more
    '{"a":[1,{"k":2}] , "b" : 3 }',               # whitespace around
    '{"a":[1,{"k":2},],"b":3}',                   # a trailing comma: not JSON
    '{"a":[1,{"k":2,"k":3}],"b":3}',              # a duplicate key in the new element
    '{"a":[1,NaN],"b":3}',                        # not a JSON number
    '{"a":[1,9223372036854775808],"b":3}',        # beyond the long range
    '{"a":[1,' + "[" * md.MAX_DEPTH + "]" * md.MAX_DEPTH + '],"b":3}',  # nested too deeply
    '{"a":[12],"b":3}',                           # begins with the old text, not with its elements
    '{"a":[1],"b":3,"b":4}',                      # a duplicate top-level key
    '{"a":[1,2]',                                 # cut short
    '{"a":[1,2]} {}',                             # something after the object
    '[1]',                                        # not an object
])
def test_reading_after_an_earlier_file_reads_what_load_metadata_reads(tmp_path: Path, text: str) -> None:
    first, second = tmp_path / "1.metadata.json", tmp_path / "2.metadata.json"
    first.write_text('{"a":[1],"b":2}')
    second.write_text(text)
    shared: md.SharedArrays = {}
    assert md.load_metadata_after(first, shared) == {"a": [1], "b": 2}
    assert md.load_metadata_after(second, shared) == md.load_metadata(second)[0]


# --- the JSON Schema by shape -------------------------------------------------------------------

def _document(snapshots: int) -> dict[str, Any]:
    """A valid v2 metadata document with ``snapshots`` appends in its history."""
    snaps, log = [], []
    for i in range(snapshots):
        snaps.append({"snapshot-id": 1000 + i, "parent-snapshot-id": 999 + i if i else None,
                      "sequence-number": i + 1, "timestamp-ms": 1_700_000_000_000 + i,
                      "manifest-list": f"s3://b/t/metadata/snap-{i}.avro", "schema-id": 0,
                      "summary": {"operation": "append", "added-records": str(i)}})
        if not i:
            del snaps[0]["parent-snapshot-id"]
        log.append({"snapshot-id": 1000 + i, "timestamp-ms": 1_700_000_000_000 + i})
    return {"format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1", "location": "s3://b/t",
            "last-sequence-number": snapshots, "last-updated-ms": 1_700_000_000_000 + snapshots,
            "last-column-id": 1, "current-schema-id": 0,
            "schemas": [{"type": "struct", "schema-id": 0,
                         "fields": [{"id": 1, "name": "id", "required": True, "type": "long"}]}],
            "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
            "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}], "properties": {},
            "current-snapshot-id": 999 + snapshots, "snapshots": snaps, "snapshot-log": log, "metadata-log": [],
            "refs": {"main": {"snapshot-id": 999 + snapshots, "type": "branch"}}}


@pytest.fixture()
def validated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of snapshots of each document the JSON Schema validator is given."""
    seen: list[int] = []
    real = md._validator

    class Counting:
        def __init__(self, version: int) -> None:
            self.inner = real(version)

        def iter_errors(self, doc: Any) -> Any:
            seen.append(len(doc.get("snapshots") or []) if isinstance(doc, dict) else 0)
            return self.inner.iter_errors(doc)

    monkeypatch.setattr(md, "_validator", Counting)
    return seen


def test_the_json_schema_judges_one_snapshot_per_shape(validated: list[int]) -> None:
    doc = _document(40)
    assert md.validate_metadata(doc, "t") == []
    # the first snapshot (no parent) and the others: two shapes, not 40 snapshots
    assert validated == [2]


@pytest.mark.parametrize("where, value", [
    ("timestamp-ms", "1700000000013"),  # a string where the spec's long is
    ("schema-id", 2**31),               # beyond the int range of schema-id
    ("sequence-number", 1.5),           # a number that is no integer
])
def test_a_wrong_snapshot_among_many_is_reported_where_it_is(validated: list[int], where: str,
                                                              value: Any) -> None:
    doc = _document(40)
    doc["snapshots"][13][where] = value
    found = md.validate_metadata(doc, "t")
    assert [(f.rule, f.location) for f in found] == [("metadata.shape", f"/snapshots/13/{where}")]
    assert validated[-1] == 40  # the whole document was judged


def test_the_schemas_judge_the_long_arrays_by_what_shape_keeps() -> None:
    """The keywords reachable from the items of the arrays judged by shape are those whose verdict
    :func:`reference.metadata._shape` keeps (a bound compared with is one of ``_BOUNDS``)."""
    covered = {"type", "required", "properties", "additionalProperties", "items", "minimum", "maximum", "$ref"}
    for version in (1, 2, 3):
        schema = md.metadata_json_schema(version)
        defs = schema["$defs"]
        todo = [schema["properties"][key] for key in md.SHAPED_ARRAYS]
        seen: set[str] = set()
        while todo:
            node = todo.pop()
            if isinstance(node, list):
                todo.extend(node)
                continue
            if not isinstance(node, dict):
                continue
            assert set(node) <= covered, (version, set(node) - covered)
            for bound in ("minimum", "maximum"):
                if bound in node:
                    assert node[bound] in md._BOUNDS
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                todo.append(defs[ref.rsplit("/", 1)[-1]])
            todo.extend(node.get("properties", {}).values())
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    todo.append(node[key])


def test_shape_tells_apart_what_the_schemas_tell_apart() -> None:
    shape = md._shape
    assert shape(True) != shape(1)
    assert shape(1.0) != shape(1) and shape(1.0) != shape(1.5)
    assert shape(2**31 - 1) != shape(2**31) and shape(-1) != shape(0) and shape(2**63) != shape(2**63 - 1)
    assert shape({"a": 1}) != shape({"b": 1}) and shape([1]) != shape([1, 1])
    assert shape({"a": 5, "b": "x"}) == shape({"b": "y", "a": 7})
    assert shape(math.inf) != shape(1.0)


# --- the metadata text, parsed once --------------------------------------------------------------

def test_a_valid_metadata_text_is_parsed_without_the_located_hooks(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    calls: list[int] = []
    real = md._pairs

    def pairs(p: list[tuple[str, Any]]) -> dict[str, Any]:
        calls.append(len(p))
        return real(p)

    monkeypatch.setattr(md, "_pairs", pairs)
    path = tmp_path / "v1.metadata.json"
    path.write_text(json.dumps(_document(3)))
    doc, findings = md.load_metadata(path)
    assert doc == _document(3) and findings == [] and calls == []
    path.write_text(json.dumps(_document(3))[:-1] + ', "location": "s3://b/u"}')
    _doc_, findings = md.load_metadata(path)
    assert [f.rule for f in findings] == ["metadata.json-duplicate-key"] and calls


# --- snapshot units and manifest lists ------------------------------------------------------------

def test_a_snapshot_unit_works_out_a_record_once(table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    records: list[str] = []
    real = snapshot_unit._record_facts

    def counting(run: CheckRun, mf: dict[str, Any], spec_ids: set[int]) -> Any:
        records.append(str(mf.get("manifest_path")))
        return real(run, mf, spec_ids)

    monkeypatch.setattr(snapshot_unit, "_record_facts", counting)
    result = check_table(table, metadata_only=True, workers=1)
    assert not [f for f in result.findings if f.rule.startswith("snapshot.") or f.severity == "error"]
    # 20 snapshots list 1 + 2 + ... + 20 = 210 records; 20 of them distinct
    assert len(records) == APPENDS == len(set(records))


def test_a_snapshot_unit_carries_its_totals_from_the_list_it_repeats(table: str, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The totals of a snapshot whose records give no finding are its parent's plus its new
    records': the 20 snapshot units look up 21 records, not the 210 of 20 whole lists; the
    summaries are judged as before (a wrong total is still reported where it is)."""
    looked: list[int] = []
    real = CheckRun.record_facts

    class Counting(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            looked.append(key)
            return super().get(key, default)

    def counting(self: CheckRun) -> Any:
        facts = real(self)
        if not isinstance(facts, Counting):
            facts = Counting(facts)
            self._record_facts = (self._record_facts[0], facts)
        return facts

    monkeypatch.setattr(CheckRun, "record_facts", counting)
    result = check_table(table, metadata_only=True, workers=1)
    assert not [f for f in result.findings if f.rule.startswith("snapshot.") or f.severity == "error"]
    assert len(looked) <= APPENDS + 1  # the first list's record once more, where the lists begin to share
    # the same table with a wrong total in its last snapshot (a metadata file beside the table:
    # the lists and manifests are read where they are)
    doc = _doc(table)
    last = max(doc["snapshots"], key=lambda s: s["sequence-number"])
    last["summary"]["total-records"] = str(int(last["summary"]["total-records"]) + 1)
    md = tmp_path / "metadata" / Path(table).name
    md.parent.mkdir()
    md.write_text(json.dumps(doc))
    wrong = [f for f in check_table(str(md), metadata_only=True, workers=1).findings if f.rule.startswith("snapshot.")]
    assert [(f.rule, f.location) for f in wrong] == [
        ("snapshot.summary-totals", f"snapshot {last['snapshot-id']} summary/total-records")], wrong


def test_the_operation_rule_looks_at_the_records_a_snapshot_added(table: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot whose list repeats its parent's is judged against its operation through the
    records it added, known from the carried state (not by going through every record of every
    list): the positions are those a look at each record gives, and a snapshot whose operation
    its records contradict is still reported at its record."""
    seen: list[tuple[Any, list[int] | None, list[int]]] = []
    real = snapshot_unit.check_operation

    def watching(snap: dict[str, Any], manifests: Any, file: str, added_here: list[int] | None = None) -> Any:
        every = [i for i, mf in enumerate(manifests) if mf.get("added_snapshot_id") == snap.get("snapshot-id")]
        seen.append((snap.get("snapshot-id"), added_here, every))
        return real(snap, manifests, file, added_here)

    monkeypatch.setattr(snapshot_unit, "check_operation", watching)
    check_table(table, metadata_only=True, workers=1)
    assert len(seen) == APPENDS
    carried = [(sid, here, every) for sid, here, every in seen if here is not None]
    assert len(carried) >= APPENDS - 2  # every list after the ones where the sharing begins
    assert all(here == every and len(every) == 1 for _sid, here, every in carried), carried
    # two appends called deletes (a delete that adds data files): each reported at its own record
    doc = _doc(table)
    snaps = sorted(doc["snapshots"], key=lambda s: s["sequence-number"])
    for snap in (snaps[len(snaps) // 2], snaps[-1]):
        snap["summary"]["operation"] = "delete"
    md = tmp_path / "metadata" / Path(table).name
    md.parent.mkdir()
    md.write_text(json.dumps(doc))
    seen.clear()
    wrong = [f for f in check_table(str(md), metadata_only=True, workers=1).findings
             if f.rule == "snapshot.operation-files"]
    assert sorted((f.location, str(snaps[len(snaps) // 2]["snapshot-id"]) in f.message) for f in wrong) == [
        ("manifests[0]", False), ("manifests[0]", True)], wrong
    assert [here for _sid, here, _every in seen if here is not None]  # the carried path judged them


class _CountingMemo(dict):  # type: ignore[type-arg]
    """A manifest-list memo counting the records looked up in it."""

    looked = 0

    def get(self, key: Any, default: Any = None) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int):
            type(self).looked += 1
        return super().get(key, default)


def test_a_list_does_not_go_through_the_records_of_the_list_it_repeats(table: str) -> None:
    snaps = sorted(_doc(table)["snapshots"], key=lambda s: s["sequence-number"])
    lists = [s["manifest-list"].removeprefix("file://") for s in snaps]
    memo, blocks = _CountingMemo(), SharedBlocks()
    _CountingMemo.looked = 0
    got = [read_manifest_list(path, 2, memo, blocks) for path in lists]
    assert [len(entries) for entries, _f in got] == list(range(1, APPENDS + 1))
    assert all(a[0][1:] == b[0] for a, b in zip(got[1:], got))  # each repeats its parent's records
    assert _CountingMemo.looked == APPENDS  # the new record of each list only, not 210 records


def _references_held(values: list[Any]) -> int:
    """The element references of the containers that hold ``values`` (followed down to their
    items: records, dicts, are not gone into), each container counted once."""
    seen: set[int] = set()
    held = 0
    todo = list(values)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (dict, str, int)):
            continue
        seen.add(id(obj))
        if isinstance(obj, list):
            held += len(obj)
        todo.extend(gc.get_referents(obj))
    return held


def test_the_run_s_lists_hold_each_record_once_not_once_per_list(table: str) -> None:
    """A list that repeats its parent's records holds its new ones and its parent's list: the
    20 lists the run keeps hold about 20 record references (distinct records), not the 210 of
    20 whole lists (1 + 2 + ... + 20), and still read as the whole lists."""
    snaps = sorted(_doc(table)["snapshots"], key=lambda s: s["sequence-number"])
    lists = [s["manifest-list"].removeprefix("file://") for s in snaps]
    run = CheckRun(table)
    kept = [run.manifest_list(path)[0] for path in lists]
    for path, entries in zip(lists, kept):
        assert list(entries) == read_manifest_list(path, 2)[0]
        assert len(entries) == len(read_manifest_list(path, 2)[0])
    assert [entries[-1] for entries in kept] == [kept[0][0]] * APPENDS  # each ends with the first record
    assert _references_held(kept) <= 2 * APPENDS


def test_lists_repeating_one_list_read_as_their_own_entries_then_its() -> None:
    """Two lists repeating one list (a branch), and a list repeating each: each reads as its own
    entries followed by the repeated list's, by index too, and a replaced entry is replaced in
    every list holding it."""
    r = [{"manifest_path": f"m{i}"} for i in range(6)]
    base = RepeatingEntries([r[1]], [r[0]])
    main = RepeatingEntries([r[2]], base)
    branch = RepeatingEntries([r[3], r[4]], base)
    after = RepeatingEntries([r[5]], main)
    expected = {"base": [r[1], r[0]], "main": [r[2], r[1], r[0]], "branch": [r[3], r[4], r[1], r[0]],
                "after": [r[5], r[2], r[1], r[0]]}
    for name, entries in {"base": base, "main": main, "branch": branch, "after": after}.items():
        assert list(entries) == expected[name], name
        assert len(entries) == len(expected[name]), name
        assert [entries[i] for i in range(-len(entries), len(entries))] == expected[name] * 2, name
        assert entries[1:] == expected[name][1:], name
        with pytest.raises(IndexError):
            entries[len(entries)]
    other = {"manifest_path": "m1"}
    main.replace(1, other)
    assert main[1] is other and after[2] is other and base[0] is other
    assert list(main) == [r[2], other, r[0]]


def test_repeated_keys_are_the_keys_live_in_more_than_one_manifest(table: str) -> None:
    run = CheckRun(table)
    one, two, three = (LiveDigest(keys=keys, index=list(range(len(keys))))
                       for keys in (["a", "b"], ["b", "c"], ["d"]))
    run.digests.update({"m1": one, "m2": two, "m3": three})
    repeated = run.repeated_keys()
    assert repeated == {id(one): [("b", 1)], id(two): [("b", 0)], id(three): []}
