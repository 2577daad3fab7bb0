"""How the bug corpus decides what the kit has for a reader bug or a writer bug judged by an op-log
(``bugs.reproduction``), on made-up records: a trap (an op-log) counts as reproduced only where a
known failure of the engine (the writer) lists it, and a bug fixed in the version the kit runs
keeps its trap only when the engine passes it."""

from __future__ import annotations

from typing import Any

from iceberg_conformance import bugs


def _record(case: str | None, **extra: Any) -> dict[str, Any]:
    return {"id": "duckdb-iceberg-0-made-up", "implementation": "duckdb-iceberg", "verdict": "bug",
            "reproduce": {"how": "trap", "rule": None, "detail": "made up", "case": case, **extra}}


TRAPS = frozenset({"trap_t", "trap_t > f1"})


def test_trap_listed_by_a_known_failure_is_reproduced() -> None:
    got = bugs.reproduction(_record("trap_t > f1 > duckdb"), {}, set(), {"trap_t > f1 > duckdb"}, TRAPS)
    assert got.status == "reproduced"


def test_trap_no_known_failure_lists_is_missing() -> None:
    got = bugs.reproduction(_record("trap_t > f1 > duckdb"), {}, set(), set(), TRAPS)
    assert got.status == "missing" and "no known failure of duckdb" in got.why


def test_fixed_bug_keeps_its_trap_while_the_engine_passes() -> None:
    got = bugs.reproduction(_record("trap_t > f1", fixed="PR #1, DuckDB 1.5.5 runs it"), {}, set(), set(), TRAPS)
    assert got.status == "trap" and "duckdb must pass it" in got.why and not got.reproduced


def test_fixed_bug_whose_engine_still_fails_names_the_failure() -> None:
    got = bugs.reproduction(_record("trap_t > f1", fixed="PR #1, DuckDB 1.5.5 runs it"), {}, set(),
                            {"trap_t > f1 > duckdb"}, TRAPS)
    assert got.status == "missing" and "trap_t > f1 > duckdb" in got.why


def test_fixed_bug_without_its_trap_is_missing() -> None:
    got = bugs.reproduction(_record("trap_gone > f9", fixed="PR #1, DuckDB 1.5.5 runs it"), {}, set(), set(), TRAPS)
    assert got.status == "missing" and "trap_gone > f9" in got.why


def _writer_record(case: str | None, implementation: str = "pyiceberg", **extra: Any) -> dict[str, Any]:
    return {"id": "pyiceberg-0-made-up", "implementation": implementation, "verdict": "bug",
            "reproduce": {"how": "oplog", "rule": None, "detail": "made up", "case": case, **extra}}


OPLOGS = frozenset({"v2-made-up"})


def test_oplog_listed_by_a_known_failure_of_the_writer_is_reproduced() -> None:
    got = bugs.reproduction(_writer_record("v2-made-up > pyiceberg"), {}, set(), {"v2-made-up > pyiceberg"}, OPLOGS)
    assert got.status == "reproduced"


def test_oplog_the_writer_passes_is_missing_unless_fixed() -> None:
    got = bugs.reproduction(_writer_record("v2-made-up > pyiceberg"), {}, set(), set(), OPLOGS)
    assert got.status == "missing" and "no known failure of pyiceberg" in got.why
    got = bugs.reproduction(_writer_record("v2-made-up", fixed="0.8; the kit runs 0.12"), {}, set(), set(), OPLOGS)
    assert got.status == "trap" and "the op-log is there" in got.why and "pyiceberg must pass it" in got.why


def test_oplog_of_a_writer_the_kit_does_not_run_keeps_it_for_those_who_do() -> None:
    got = bugs.reproduction(_writer_record("v2-made-up", implementation="flink"), {}, set(), set(), OPLOGS)
    assert got.status == "trap" and "op-log is there for those who do" in got.why
    got = bugs.reproduction(_writer_record("v2-gone", implementation="flink"), {}, set(), set(), OPLOGS)
    assert got.status == "missing"


# --- a trap the pinned engine fails earlier, with an error or a refusal ---------------------------

def _earlier(case: str = "trap_t") -> dict[str, Any]:
    return _record(case, fails_earlier="DuckDB 1.5.5 refuses the table ('Unrecognized primitive type')")


def test_trap_the_engine_refuses_earlier_says_so() -> None:
    got = bugs.reproduction(_earlier(), {}, set(), {"trap_t > duckdb"}, TRAPS, {"trap_t > duckdb"})
    assert got.status == "fails earlier" and not got.reproduced and "Unrecognized primitive type" in got.why
    assert got.status in bugs.TRAP_ONLY


def test_refusal_of_the_whole_table_covers_its_filter_cases() -> None:
    got = bugs.reproduction(_earlier("trap_t > f1"), {}, set(), {"trap_t > duckdb"}, TRAPS, {"trap_t > duckdb"})
    assert got.status == "fails earlier"


def test_wrong_rows_where_the_record_says_the_engine_fails_earlier_contradict_it() -> None:
    # the known failure lists the trap, but it is not an error or a refusal: the engine read rows
    got = bugs.reproduction(_earlier(), {}, set(), {"trap_t > duckdb"}, TRAPS, set())
    assert got.status == "missing" and "wrong rows" in got.why and "trap_t > duckdb" in got.why
    # a filter case with wrong rows, even where the whole table is refused elsewhere
    got = bugs.reproduction(_earlier("trap_t > f1"), {}, set(), {"trap_t > f1 > duckdb", "trap_t > duckdb"}, TRAPS,
                            {"trap_t > duckdb"})
    assert got.status == "missing" and "trap_t > f1 > duckdb" in got.why


def test_engine_that_passes_where_the_record_says_it_fails_earlier_contradicts_it() -> None:
    got = bugs.reproduction(_earlier(), {}, set(), set(), TRAPS, set())
    assert got.status == "missing" and "passes it" in got.why


def test_fails_earlier_without_its_trap_is_missing() -> None:
    got = bugs.reproduction(_earlier("trap_gone"), {}, set(), {"trap_gone > duckdb"}, TRAPS, {"trap_gone > duckdb"})
    assert got.status == "missing" and "no golden table" in got.why


def test_fixed_bug_whose_engine_returns_wrong_rows_is_a_contradiction() -> None:
    # the engine now returns wrong rows on the trap of a bug the record calls fixed
    got = bugs.reproduction(_record("trap_t", fixed="PR #1, DuckDB 1.5.5 runs it"), {}, set(), {"trap_t > duckdb"},
                            TRAPS, set())
    assert got.status == "missing" and "trap_t > duckdb" in got.why


def test_wrong_rows_are_told_from_errors_in_recorded_differences() -> None:
    from iceberg_conformance.cli import shows_rows
    from iceberg_conformance.suites.engines.rows import diff_rows

    header = "snapshot 'append 1, 2':"
    # a row the engine lost, one it made up, and the same rows all read as null
    assert shows_rows([header] + diff_rows([{"id": 1}, {"id": 2}], [{"id": 2}]))
    assert shows_rows([header] + diff_rows([{"id": 1}], [{"id": 1}, {"id": 7}]))
    assert shows_rows([header] + diff_rows([{"a": 1, "b": "x"}], [{"a": None, "b": None}]))
    assert not shows_rows(["snapshot 'append 1, 2': DaftCoreException: <file>.parquet carries no parquet field IDs"])
    assert shows_rows([])  # nothing recorded proves no refusal


def test_out_of_reach_is_its_own_status_never_caught() -> None:
    """A bug of an implementation the kit cannot run is out of reach (with the evidence), never
    reproduced, and the README's table counts it apart from caught, trap-only and not-yet."""
    evidence = "the sink is a Maven artifact and no Maven repository is reachable"
    got = bugs.reproduction(_writer_record(None, implementation="flink", out_of_reach=evidence), {}, set(), set(), OPLOGS)
    assert got.status == "out of reach" and got.why == evidence and not got.reproduced
    named = bugs.reproduction(_writer_record("v2-made-up", implementation="flink", out_of_reach=evidence), {}, set(),
                              set(), OPLOGS)
    assert named.status == "out of reach" and named.case == "v2-made-up"
    gone = bugs.reproduction(_writer_record("v2-gone", implementation="flink", out_of_reach=evidence), {}, set(), set(),
                             OPLOGS)
    assert gone.status == "missing" and "v2-gone" in gone.why
    record = dict(_writer_record(None, implementation="flink", out_of_reach=evidence), artifact="delete-file")
    table = bugs.readme_table([(record, got)])
    header, _rule, flink, _all = table.splitlines()
    assert header.endswith("| caught | trap only | out of reach | not yet |")
    assert flink == "| flink | 1 | 0/1 | 0 | 0 | 1 | 0 |"


def test_oplog_known_failure_of_checker_findings_alone_is_not_the_op_logs_catch() -> None:
    """An op-log record is caught by a known failure of its writer that is the op-log's own
    judgement (rows, a refused step); DuckDB's known failure on v2-append-string-bound-multibyte
    is the metadata.shape finding of every COPY table, which says nothing of the bounds the op-log
    is about, so the fixed duckdb-iceberg-1022 keeps its op-log as a guard."""
    from iceberg_conformance.cli import caught_oplogs
    from iceberg_conformance.suites.writers import judge

    entries = [e for e in judge.known_failures() if e["writer"] == "duckdb"
               and "v2-append-string-bound-multibyte" in e["oplog"]]
    assert entries and all(p.startswith("checker:") for e in entries for p in e["problems"])
    caught = caught_oplogs()
    assert "v2-append-string-bound-multibyte > duckdb" not in caught
    assert "v2-add-files-list-item > pyiceberg" in caught and "v2-delete-not-eq-nulls > pyiceberg" in caught
