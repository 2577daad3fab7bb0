"""The op-logs and the writer judge: expected rows from the op-log's own semantics, the judge's
three verdicts on a table the reference writer wrote, known-failure matching, the command line."""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.writers import judge, oplogs
from iceberg_conformance.suites.writers.drivers import common
from iceberg_conformance.suites.writers.registry import WRITERS

LOGS = oplogs.load_all()


def test_there_are_op_logs_over_every_format_version() -> None:
    assert len(LOGS) >= 12
    assert {o["format-version"] for o in LOGS.values()} == {1, 2, 3}
    kinds = {s["strategy"] for o in LOGS.values() for s in o["steps"] if s["op"] == "delete"}
    assert {"copy-on-write", "position", "equality", "deletion-vector"} <= kinds
    ops = {s["op"] for o in LOGS.values() for s in o["steps"]}
    assert {"append", "overwrite", "delete", "update", "compact", "add-column", "rename-column", "drop-column",
            "promote-column", "set-partition-spec"} <= ops


@pytest.mark.parametrize("name", sorted(LOGS))
def test_expected_rows_follow_from_the_op_log(name: str) -> None:
    """Each data step's ``expect`` is what the op-log's semantics leave (a delete removes what
    its filter selects, whatever the strategy; an update sets columns; a compaction changes
    nothing), in the JSON single-value form of the columns after the step."""
    doc = LOGS[name]
    replayed = dict(oplogs.replay(doc))
    for i, step in enumerate(doc["steps"]):
        if step["op"] in oplogs.DATA_STEPS:
            expect = oplogs.canonical_rows(oplogs.fields_after(doc, i), step["expect"])
            key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
            assert sorted(expect, key=key) == sorted(replayed[i], key=key), f"{name} step {i}"
        else:
            assert "expect" not in step


def test_replay_of_a_delete_is_the_set_difference() -> None:
    doc = LOGS["v2-delete-position"]
    rows = dict(oplogs.replay(doc))
    assert sorted(r["id"] for r in rows[1]) == [1, 3, 5]
    assert sorted(r["id"] for r in rows[2]) == [1, 3]


def test_every_op_log_names_its_spec_clause_and_open_choices_of_deletes() -> None:
    for name, doc in LOGS.items():
        assert doc["spec"]["section"] and doc["spec"]["level"] in ("must", "should", "may"), name
        if any(s["op"] in ("delete", "update") for s in doc["steps"]):
            assert "delete-strategy" in doc.get("open-choices", {}), name


def test_sql_condition_of_a_row_filter() -> None:
    types = {"id": "long", "dt": "date", "data": "string"}
    expr = {"type": "and", "left": {"type": "in", "child": {"type": "reference", "name": "id"}, "values": [2, 4]},
            "right": {"type": "eq", "left": {"type": "reference", "name": "data"}, "right": "it's"}}
    assert common.sql_condition(expr, types) == "(id IN (2, 4) AND data = 'it''s')"
    assert common.sql_literal("2024-01-01", "date") == "DATE '2024-01-01'"


def _run(oplog: dict[str, Any], tmp: Path, known: list[dict[str, Any]] | None = None) -> judge.Cell:
    return judge.run_cell(WRITERS["reference"], oplog, str(tmp / "t"), known=known or [])


def test_reference_writer_passes_a_position_delete_op_log(tmp_path: Path) -> None:
    cell = _run(LOGS["v2-delete-position"], tmp_path)
    assert cell.status == judge.PASS, cell.message
    assert [s["op"] for s in cell.snapshots] == ["append", "delete", "delete"]


def test_a_step_the_writer_reports_nothing_for_fails_the_cell(tmp_path: Path) -> None:
    """A driver that stops early or loses a step's record is not a pass: every data step is judged
    or has a failed step before it."""
    reference = WRITERS["reference"]
    assert reference.run_here is not None
    run_here = reference.run_here

    def forgetful(oplog: dict[str, Any], root: str) -> dict[str, Any]:
        result = run_here(oplog, root)
        result["steps"] = [s for s in result["steps"] if s["index"] != 2]
        return result

    cell = judge.run_cell(dataclasses.replace(reference, run_here=forgetful), LOGS["v2-delete-position"],
                          str(tmp_path / "t"), known=[])
    assert cell.status == judge.FAIL
    assert set(cell.problems) == {"missing:step2"}, cell.problems


def test_wrong_expected_rows_fail_the_cell(tmp_path: Path) -> None:
    """The rows judge compares with the op-log, not with what the writer did: an op-log whose
    second delete expects a row gone that the writer kept makes the cell FAIL at that step."""
    doc = copy.deepcopy(LOGS["v2-delete-position"])
    doc["steps"][2]["expect"] = doc["steps"][2]["expect"][:-1]
    cell = _run(doc, tmp_path)
    assert cell.status == judge.FAIL
    assert set(cell.problems) == {"rows:step2"}


def test_a_checker_error_fails_and_a_known_failure_must_match_exactly(tmp_path: Path) -> None:
    """The reference writer's second deletion vector for a data file leaves the first one live:
    the checker's dv.one-per-data-file error, and the rows are wrong."""
    doc = LOGS["v3-delete-deletion-vector"]
    first = _run(doc, tmp_path / "a")
    assert first.status == judge.FAIL and "checker:dv.one-per-data-file" in first.problems
    entry = {"writer": "reference", "oplog": "v3-delete-*", "problems": sorted(first.problems), "reason": "r",
             "upstream": ""}
    assert _run(doc, tmp_path / "b", [entry]).status == judge.KNOWN
    partial = dict(entry, problems=["checker:dv.one-per-data-file"])
    assert _run(doc, tmp_path / "c", [partial]).status == judge.FAIL
    stale = dict(entry, problems=entry["problems"] + ["error:step9"])
    assert _run(doc, tmp_path / "d", [stale]).status == judge.FAIL


def test_a_known_failure_of_a_passing_cell_is_stale(tmp_path: Path) -> None:
    entry = {"writer": "reference", "oplog": "v2-delete-position", "problems": ["rows:step1"], "reason": "r"}
    cell = _run(LOGS["v2-delete-position"], tmp_path, [entry])
    assert cell.status == judge.FAIL and "stale" in cell.message, cell.message


def test_an_undeclared_operation_is_unsupported_and_not_run(tmp_path: Path) -> None:
    cell = _run(LOGS["v2-compaction"], tmp_path)
    assert cell.status == judge.UNSUPPORTED and "compact" in cell.message
    assert not (tmp_path / "t").exists()


def test_known_failures_name_writers_op_logs_and_upstream() -> None:
    for e in judge.known_failures():
        assert e["writer"] in WRITERS, e
        globs = e["oplog"] if isinstance(e["oplog"], list) else [e["oplog"]]
        assert all(any(fnmatch.fnmatchcase(name, g) for name in LOGS) for g in globs), e
        assert (e["problems"] or e.get("advisories")) and e["reason"] and e["rule"] and "upstream" in e, e


def test_write_command_exit_codes(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "iceberg_conformance", "write", "--writer", "reference"]
    ok = subprocess.run(cmd + ["v2-delete-equality", str(tmp_path / "a")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("PASS")
    no = subprocess.run(cmd + ["v2-compaction", str(tmp_path / "b")], capture_output=True, text=True)
    assert no.returncode == 3 and no.stdout.startswith("UNSUPPORTED")
    bad = copy.deepcopy(LOGS["v2-append"])
    bad["steps"][0]["expect"] = []
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    fail = subprocess.run(cmd + [str(tmp_path / "bad.json"), str(tmp_path / "c")], capture_output=True, text=True)
    assert fail.returncode == 1 and fail.stdout.startswith("FAIL"), fail.stdout
    listing = subprocess.run([sys.executable, "-m", "iceberg_conformance", "write", "--list"], capture_output=True,
                             text=True)
    assert listing.returncode == 0 and "sidequery-pyiceberg" in listing.stdout and "v3-append" in listing.stdout


def test_sql_condition_keeps_iceberg_two_valued_logic() -> None:
    """``n != 5`` selects a null n in Iceberg (a comparison with null is false, its negation
    true) but not in SQL: the translation adds the null rows explicitly."""
    types = {"n": "int"}
    ref = {"type": "reference", "name": "n"}
    assert common.sql_condition({"type": "not-eq", "left": ref, "right": 5}, types) == "(n <> 5 OR n IS NULL)"
    assert common.sql_condition({"type": "not-in", "child": ref, "values": [5, 6]}, types) == \
        "(n NOT IN (5, 6) OR n IS NULL)"
    assert common.sql_condition({"type": "not", "child": {"type": "eq", "left": ref, "right": 2}}, types) == \
        "(NOT COALESCE(n = 2, FALSE))"


def test_written_tables_are_recorded_as_producers_and_read_back(tmp_path: Path) -> None:
    """A written table exported for the consumer matrix (suites/writers/produce.py) is read by a
    consumer through the matrix's own workspace: every data step's snapshot, against the op-log's
    rows; a record whose rows are wrong is a problem of that snapshot."""
    from iceberg_conformance.suites.engines.registry import ENGINES
    from iceberg_conformance.suites.engines.workspace import Workspace, read_table
    from iceberg_conformance.suites.writers import produce

    doc = LOGS["v2-delete-position"]
    root = tmp_path / "written"
    cell = judge.run_cell(WRITERS["reference"], doc, str(root / "warehouse" / produce.table_name("reference", doc["id"])),
                          known=[])
    path = produce.export(root, cell, doc)
    assert path is not None
    record = produce.written_tables(root)["reference__v2-delete-position"]
    assert [s["label"] for s in record["snapshots"]] == ["step0-append", "step1-delete", "step2-delete"]
    assert record["producer"] == "writer:reference" and record["checker_errors"] == []
    ws = Workspace(root, tmp_path / "ws")
    try:
        problems, read = read_table(ENGINES["reference"], ws, record)
        assert (problems, read) == ([], 3)
        record["snapshots"][1]["rows"] = record["snapshots"][1]["rows"][:-1]
        problems, _ = read_table(ENGINES["reference"], ws, record)
        assert [p["snapshot"] for p in problems] == ["step1-delete"]
    finally:
        ws.close()


def test_an_intermittent_problem_is_covered_when_seen_and_not_required() -> None:
    """DuckDB's writer sometimes marks a data manifest 'deletes': an entry lists such problems as
    intermittent; any other problem still fails the cell, and the entry's own problems stay required."""
    entry = {"writer": "w", "oplog": "o", "problems": ["checker:a"], "intermittent": ["checker:b"],
             "rule": "a", "reason": "r", "upstream": "none"}

    def status(*problems: str) -> str:
        cell = judge.Cell("w", "o", "append", 2, problems={p: "seen" for p in problems})
        judge._apply_known(cell, [entry])
        return cell.status

    assert status("checker:a") == judge.KNOWN
    assert status("checker:a", "checker:b") == judge.KNOWN
    assert status("checker:a", "checker:c") == judge.FAIL
    assert status("checker:b") == judge.FAIL  # checker:a is required: the entry is stale without it


def test_an_error_is_known_only_when_it_says_the_entrys_text() -> None:
    """An entry with error_match explains a step's error only when the error says that text:
    another exception at the same step (a bug of the driver, another refusal) fails the cell, and
    the entry is then stale."""
    entry = {"writer": "w", "oplog": "o", "problems": ["error:step0"], "error_match": "KeyError: 'tags.list.item'",
             "rule": "a", "reason": "r", "upstream": "none"}

    def status(error: str) -> str:
        cell = judge.Cell("w", "o", "append", 2, problems={"error:step0": f"add-files: {error}"})
        judge._apply_known(cell, [entry])
        return cell.status

    assert status("KeyError: 'tags.list.item'") == judge.KNOWN
    assert status("TypeError: add_files() got an unexpected keyword argument") == judge.FAIL
    assert status("KeyError: 'other.list.item'") == judge.FAIL
    loose = {k: v for k, v in entry.items() if k != "error_match"}
    cell = judge.Cell("w", "o", "append", 2, problems={"error:step0": "add-files: TypeError"})
    judge._apply_known(cell, [loose])
    assert cell.status == judge.KNOWN   # without error_match any error of that step is the entry's


def test_every_known_error_of_a_step_names_its_text() -> None:
    """The writers' known failures that explain a step's error say which error (error_match)."""
    loose = [(e["writer"], e["oplog"]) for e in judge.known_failures()
             if any(p.startswith("error:") for p in e["problems"]) and not e.get("error_match")]
    assert not loose, loose


def test_replay_of_an_upsert_keeps_each_key_once_with_its_last_row() -> None:
    rows = dict(oplogs.replay(LOGS["v2-upsert-same-key-twice"]))[1]
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "b"), (2, "a"), (3, "c")]
    moved = dict(oplogs.replay(LOGS["v2-upsert-partition-change"]))[1]
    assert sorted((r["id"], r["p"], r["v"]) for r in moved) == [(1, "b", "y"), (2, "a", "x")]


def test_add_files_needs_its_operation_and_list_columns_declared(tmp_path: Path) -> None:
    doc = LOGS["v2-add-files-list-item"]
    assert oplogs.requirements(doc) == ["type:list", "add-files"]
    cell = _run(doc, tmp_path)
    assert cell.status == judge.UNSUPPORTED and "add-files" in cell.message and "type:list" in cell.message
    assert not WRITERS["pyiceberg"].missing(doc) and not WRITERS["pyiceberg"].missing(LOGS["v2-add-files-hour-partition"])


def test_add_files_parquet_names_the_list_element_as_the_op_log_says(tmp_path: Path) -> None:
    """The file an add-files step adds is written by pyarrow without field ids; its list's
    element is named 'item' (pyarrow's legacy 3-level naming) when the step says so."""
    pq = pytest.importorskip("pyarrow.parquet")
    from iceberg_conformance.suites.writers.drivers.pyiceberg_driver import external_parquet

    doc = LOGS["v2-add-files-list-item"]
    step, fields = doc["steps"][0], doc["schema"]["fields"]
    legacy = pq.ParquetFile(external_parquet(str(tmp_path / "item.parquet"), step, fields))
    assert [c.path for c in legacy.schema] == ["id", "tags.list.item"]
    compliant = dict(step, parquet={"list-element": "element"})
    spec = pq.ParquetFile(external_parquet(str(tmp_path / "element.parquet"), compliant, fields))
    assert [c.path for c in spec.schema] == ["id", "tags.list.element"]
    assert not legacy.schema_arrow.field("id").metadata  # no field id
    assert legacy.read().to_pylist() == [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}, {"id": 3, "tags": None}]
