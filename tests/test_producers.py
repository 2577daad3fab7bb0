"""The written tables as producers of the consumer matrix (suites/writers/produce.py), and the
op-log steps for branches, tags and merges (suites/writers/oplogs.py)."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path

import pytest

from iceberg_conformance.suites.golden.filters import expected_rows
from iceberg_conformance.suites.writers import judge, oplogs, produce
from iceberg_conformance.suites.writers.registry import WRITERS

FIELDS = [{"id": 1, "name": "id", "type": "long", "required": True},
          {"id": 2, "name": "data", "type": "string", "required": False},
          {"id": 3, "name": "dt", "type": "date", "required": False}]


def _snap(label: str, sid: int, refs: list[str], rows: list[dict[str, object]]) -> dict[str, object]:
    return {"label": label, "snapshot_id": sid, "refs": refs, "expired": False, "rows": rows, "schema_id": 0}


def _doc() -> dict[str, object]:
    return {"snapshots": [
        _snap("step0-append", 10, ["t1"], [{"id": 1, "data": "a", "dt": "2024-01-01"},
                                           {"id": 2, "data": "b", "dt": "2024-01-01"}]),
        _snap("step1-delete", 11, [], [{"id": 1, "data": "a", "dt": "2024-01-01"}]),
        _snap("step2-append", 12, ["main"], [{"id": 1, "data": "a", "dt": "2024-01-01"},
                                             {"id": 3, "data": None, "dt": "2024-01-02"}]),
    ]}


def test_fixed_filters_of_a_written_table() -> None:
    """eq on the first int/long column (the final snapshot's largest value), lt at the middle of
    its values, is-null on the optional column holding a null, in over a string value the final
    snapshot holds and one only an earlier snapshot held (row 2, deleted)."""
    filters = {f["id"]: f["filter"] for f in produce.filters_for(_doc(), FIELDS)}
    ref = lambda n: {"type": "reference", "name": n}  # noqa: E731
    assert filters == {
        "id-eq": {"type": "eq", "left": ref("id"), "right": 3},
        "id-lt": {"type": "lt", "left": ref("id"), "right": 3},
        "data-is-null": {"type": "is-null", "child": ref("data")},
        "data-in": {"type": "in", "child": ref("data"), "values": ["a", "b"]},
    }
    schema = {"type": "struct", "schema-id": 0, "fields": FIELDS}
    final = _doc()["snapshots"][2]["rows"]  # type: ignore[index]
    # each selects a part of the final rows, none all and none nothing but eq
    assert [r["id"] for r in expected_rows(schema, final, filters["id-eq"]) or []] == [3]
    assert [r["id"] for r in expected_rows(schema, final, filters["id-lt"]) or []] == [1]
    assert [r["id"] for r in expected_rows(schema, final, filters["data-is-null"]) or []] == [3]
    assert [r["id"] for r in expected_rows(schema, final, filters["data-in"]) or []] == [1]


def test_a_written_table_is_read_at_its_current_snapshot_and_named_refs() -> None:
    """Not every step's snapshot: the current one (main) and those a tag or branch names."""
    assert [s["label"] for s in produce.read_snapshots(_doc())] == ["step0-append", "step2-append"]


def test_a_merge_replaces_matched_rows_whole_and_adds_the_others() -> None:
    doc = oplogs.load("v2-merge-upsert")
    after = dict(oplogs.replay(doc))
    # step 2 merges id 1 with data null: the matched row takes every column of the given row
    assert {r["id"]: r["data"] for r in after[2]} == {1: None, 2: "B", 3: "c", 4: "D", 5: "e", 6: "f"}
    assert oplogs.requirements(doc) == ["append", "merge:copy-on-write"]


def test_an_append_to_a_branch_leaves_main_alone() -> None:
    doc = oplogs.load("v2-branch-tag")
    after = dict(oplogs.replay(doc))
    assert sorted(r["id"] for r in after[3]) == [1, 2, 3, 4, 5]     # the branch b1
    assert sorted(r["id"] for r in after[4]) == [1, 2, 3, 6]        # main
    assert oplogs.requirements(doc) == ["append", "create-tag", "create-branch", "append-to-branch"]


def test_a_writer_without_branches_or_merge_declares_them_unsupported(tmp_path: Path) -> None:
    for name in ("v2-branch-tag", "v2-merge-upsert"):
        cell = judge.run_cell(WRITERS["reference"], oplogs.load(name), str(tmp_path / name), known=[])
        assert cell.status == judge.UNSUPPORTED, (name, cell.status, cell.message)


def test_the_refs_of_a_written_table_name_its_snapshots(tmp_path: Path) -> None:
    """PyIceberg writes the branch/tag op-log; the export records the tag on the first append's
    snapshot, the branch on the branch's append and main on the last append."""
    pytest.importorskip("pyiceberg")
    doc = oplogs.load("v2-branch-tag")
    root = tmp_path / "written"
    cell = judge.run_cell(WRITERS["pyiceberg"], doc, str(root / "warehouse" / produce.table_name("pyiceberg", doc["id"])),
                          known=[])
    assert cell.status in (judge.PASS, judge.ADVISORY), cell.problems
    assert produce.export(root, cell, doc) is not None
    record = produce.written_tables(root)["pyiceberg__v2-branch-tag"]
    assert {s["label"]: s["refs"] for s in record["snapshots"]} == {
        "step0-append": ["t1"], "step3-append": ["b1"], "step4-append": ["main"]}
    assert [s["label"] for s in produce.read_snapshots(record)] == ["step0-append", "step3-append", "step4-append"]
    assert json.loads(json.dumps(record["filters"]))[0]["id"] == "id-eq"


def test_known_failures_on_written_tables_say_whose_fault_case_by_case() -> None:
    """Every entry of known-failures-written.json: a real consumer, the fault named (a writer's
    entry names a problem the writer's own known failure lists for that op-log), one 16-hex digest
    (or a list, for a failure that varies) per written table it covers, each table listed once
    per consumer: no entry covers a table it does not list."""
    from iceberg_conformance.suites.engines.registry import ENGINES
    from iceberg_conformance.suites.harness import consumer_matrix as report

    writer_known = judge.known_failures()
    seen = set()
    entries = report.known_failures(report.WRITTEN_KNOWN_FILE)
    assert entries
    for e in entries:
        where = f"{e['consumer']}: {e['reason'][:60]}"
        assert e["consumer"] in ENGINES and e["test"] == "written", where
        assert e["kind"] in ("bug", "unsupported") and e["reason"], where
        assert e["upstream"] == "none exists yet" or e["upstream"].startswith("https://"), where
        assert e["fault"] in ("writer", "reader"), where
        assert e["digests"] and set(e["differs"]) == set(e["digests"]), where
        for table, dig in e["digests"].items():
            writer, _, oplog = table.partition("__")
            assert writer in WRITERS and oplog in oplogs.load_all(), f"{where}: {table}"
            assert all(re.fullmatch(r"[0-9a-f]{16}", d) for d in (dig if isinstance(dig, list) else [dig])), where
            assert report.find_entry(entries, table, e["consumer"], "written") is e, f"{where}: {table} listed twice"
            assert (e["consumer"], table) not in seen
            seen.add((e["consumer"], table))
            if e["fault"] == "writer":
                assert any(w["writer"] == writer and judge._names(w, oplog) and
                           any(fnmatch.fnmatchcase(e["writer_problem"], p) for p in w["problems"] + w.get("intermittent", []))
                           for w in writer_known), f"{where}: {table}: the writer's known failures do not list {e['writer_problem']}"


def test_a_written_table_cell_attributed_to_the_writer_holds_only_while_the_writer_shows_it() -> None:
    from iceberg_conformance.suites.harness import consumer_matrix as report

    entry = {"consumer": "duckdb", "test": "written", "table": "*", "fault": "writer", "writer_problem": "checker:x",
             "kind": "bug", "reason": "r", "upstream": "none exists yet", "digests": {"w__o": "0123456789abcdef"},
             "differs": {"w__o": []}}
    v = report.judge([entry], "w__o", "duckdb", [{"snapshot": "s", "error": "E"}], "0123456789abcdef", "written")
    assert v.status == report.KNOWN and v.message.startswith("the writer broke the spec (checker:x)")
    # another table, or another digest, is not covered
    assert report.judge([entry], "w__p", "duckdb", [{"snapshot": "s", "error": "E"}], "0123456789abcdef",
                        "written").status == report.FAIL
    assert report.judge([entry], "w__o", "duckdb", [{"snapshot": "s", "error": "F"}], "fedcba9876543210",
                        "written").status == report.FAIL
    # read right: the entry is stale
    assert report.judge([entry], "w__o", "duckdb", [], "", "written").status == report.FAIL
