"""The producer x consumer matrix without engines: judging a table x consumer test against the
known-failure data, normalizing and digesting problems, combining tables into capability cells,
the heat-map, and the data files (capabilities, known failures) against the golden-table registry.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.harness import consumer_matrix as report
from iceberg_conformance.suites.engines.registry import ENGINES, Engine, ReadRequest, SnapshotRead
from iceberg_conformance.suites.engines.workspace import (
    HttpServer, Workspace, digest, normalize, normalize_error, pinned, problem_lines, read_table,
)
from iceberg_conformance.suites.golden import filters as golden_filters
from iceberg_conformance.suites.golden import projections as golden_projections
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.engines.rows import diff_rows

BUG = {"consumer": "duckdb", "table": "ref_v*_equality_deletes", "kind": "bug", "capabilities": ["equality-deletes"],
       "reason": "applies a partition's delete to another partition", "upstream": "none exists yet", "digest": "0123456789abcdef"}
UNSUP = {"consumer": "chdb", "table": "ref_v3_unknown", "kind": "unsupported", "capabilities": ["unknown-type"],
         "reason": "no unknown type", "upstream": "https://example.invalid/issue/1", "digest": "fedcba9876543210"}
PROBLEM = [{"snapshot": "delete", "rows": ["row count: expected 4, read 3"]}]


# --- judging ---------------------------------------------------------------------------------

def test_no_problems_and_no_entry_is_pass() -> None:
    assert report.judge([BUG], "v1_basic", "duckdb", [], "").status == report.PASS


def test_an_entry_for_a_table_read_right_is_a_failure() -> None:
    v = report.judge([BUG], "ref_v2_equality_deletes", "duckdb", [], "")
    assert v.status == report.FAIL and "remove the entry" in v.message


def test_problems_without_entry_fail() -> None:
    assert report.judge([BUG], "ref_v2_equality_deletes", "polars", PROBLEM, "0123456789abcdef").status == report.FAIL


def test_entry_with_the_same_digest_is_known_failure_and_globs_match() -> None:
    for table in ("ref_v2_equality_deletes", "ref_v3_equality_deletes"):
        v = report.judge([BUG], table, "duckdb", PROBLEM, "0123456789abcdef")
        assert v.status == report.KNOWN and v.entry is BUG


def test_entry_of_kind_unsupported_is_unsupported() -> None:
    assert report.judge([UNSUP], "ref_v3_unknown", "chdb", PROBLEM, "fedcba9876543210").status == report.UNSUPPORTED


def test_entry_with_another_digest_fails_naming_both() -> None:
    v = report.judge([BUG], "ref_v2_equality_deletes", "duckdb", PROBLEM, "1111111111111111")
    assert v.status == report.FAIL and "0123456789abcdef" in v.message and "1111111111111111" in v.message


def test_entry_with_several_digests_matches_each_and_no_other() -> None:
    """An engine that fails one of several ways (by the order its parallel reads finish) is
    recorded with each; a third way still fails the test."""
    racing = dict(BUG, digest=["0123456789abcdef", "2222222222222222"])
    for dig in racing["digest"]:
        assert report.judge([racing], "ref_v2_equality_deletes", "duckdb", PROBLEM, dig).status == report.KNOWN
    v = report.judge([racing], "ref_v2_equality_deletes", "duckdb", PROBLEM, "1111111111111111")
    assert v.status == report.FAIL and "0123456789abcdef or 2222222222222222" in v.message


def test_entry_of_another_test_does_not_match() -> None:
    plain = dict(BUG, test="plain-paths", table="*")
    assert report.find_entry([plain], "v1_basic", "duckdb") is None
    assert report.find_entry([plain], "v1_basic", "duckdb", "plain-paths") is plain


# --- normalizing and digests -------------------------------------------------------------------

def test_errors_from_other_golden_directories_have_one_digest() -> None:
    a = normalize_error("Error: corrupt footer in /tmp/g1/warehouse/db/t/data/00000-12-8f0e1c2a-1111-2222-3333-444455556666"
                        "-00001-deletes.puffin for snapshot 1234567890123456789", {"/tmp/g1": "<golden>"})
    b = normalize_error("Error: corrupt footer in /work/x/warehouse/db/t/data/00000-99-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
                        "-00001-deletes.puffin for snapshot 987654321987654321", {"/work/x": "<golden>"})
    assert a == b == "Error: corrupt footer in <file>.puffin for snapshot <id>"
    assert digest([{"snapshot": "s", "error": a}]) == digest([{"snapshot": "s", "error": b}])


def test_uris_and_loopback_ports_are_normalized() -> None:
    text = normalize_error("fetch http://127.0.0.1:40211/db/t/metadata/v3.metadata.json and "
                           "file:///tmp/w/file-uri/db/t/data/a.parquet", {"/tmp/w": "<work>"})
    assert "40211" not in text and "file://" not in text.replace("<file>", "")
    assert text.count("<file>") == 2


def test_a_sql_engines_echo_of_the_query_is_dropped() -> None:
    a = normalize_error("Error: Unrecognized primitive type: unknown LINE 1: SELECT * FROM iceberg_scan('/tmp/ice...  ^", {})
    b = normalize_error("Error: Unrecognized primitive type: unknown LINE 1: SELECT * FROM iceberg_scan('/work/golden/wa... ^", {})
    assert a == b == "Error: Unrecognized primitive type: unknown"


def test_a_hash_map_printed_in_random_order_has_one_digest() -> None:
    # iceberg-rust's errors print a schema whose id_lookup HashMap comes in hash order
    a = normalize_error("No column with source column id 2 in schema Schema { id_lookup: OnceLock({3: 1, 1: 0}) }", {})
    b = normalize_error("No column with source column id 2 in schema Schema { id_lookup: OnceLock({1: 0, 3: 1}) }", {})
    assert a == b == "No column with source column id 2 in schema Schema { id_lookup: OnceLock({1: 0, 3: 1}) }"


def test_different_rows_have_different_digests() -> None:
    one = [{"snapshot": "s", "rows": ["- missing:    {\"id\": 1}"]}]
    two = [{"snapshot": "s", "rows": ["- missing:    {\"id\": 2}"]}]
    assert digest(one) != digest(two) and len(digest(one)) == 16


def test_uuid_values_of_rows_are_kept() -> None:
    """A uuid column's values are row values (from the generator): two reads missing different
    uuids differ, and the row says which; only an error's UUIDs (file names, query ids) go."""
    rows = [normalize(f"- missing:    {{\"id\": 4, \"v\": \"{u}\"}}", {})
            for u in ("80000000-0000-0000-0000-000000000000", "7fffffff-ffff-ffff-ffff-ffffffffffff")]
    assert "80000000-0000-0000-0000-000000000000" in rows[0]
    assert digest([{"snapshot": "s", "rows": rows[:1]}]) != digest([{"snapshot": "s", "rows": rows[1:]}])
    assert normalize_error("query 8f0e1c2a-1111-2222-3333-444455556666 failed", {}) == "query <uuid> failed"


def test_row_differences_do_not_depend_on_read_order() -> None:
    expected = [{"id": 1}, {"id": 2}, {"id": 3}]
    assert diff_rows(expected, [{"id": 9}, {"id": 8}, {"id": 1}]) == diff_rows(expected, [{"id": 1}, {"id": 8}, {"id": 9}])
    assert diff_rows(expected, [{"id": 3}, {"id": 1}, {"id": 2}]) == []


def test_problem_lines_limit_rows_per_snapshot() -> None:
    lines = problem_lines([{"snapshot": "s", "rows": [f"+ unexpected: {i}" for i in range(30)]}], limit=5)
    assert lines[0] == "snapshot 's':" and len(lines) == 7 and lines[-1].strip() == "... 25 more lines"


# --- the harness with a stand-in consumer --------------------------------------------------------

def _tiny_table(tmp: Path) -> dict[str, Any]:
    """A golden directory with one table's metadata (two snapshots) and its expected rows."""
    meta = tmp / "golden" / "warehouse" / "db" / "t" / "metadata"
    meta.mkdir(parents=True)
    md = {"format-version": 2, "current-snapshot-id": 2, "current-schema-id": 0,
          "schemas": [{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": False, "type": "long"}]}],
          "snapshots": [{"snapshot-id": 1, "schema-id": 0}, {"snapshot-id": 2, "schema-id": 0}],
          "refs": {"main": {"snapshot-id": 2, "type": "branch"}, "t1": {"snapshot-id": 1, "type": "tag"}}}
    (meta / "v2.metadata.json").write_text(json.dumps(md))
    return {"name": "t", "table": "db/t", "metadata": "db/t/metadata/v2.metadata.json",
            "snapshots": [{"label": "first", "ref": "main", "snapshot_id": 1, "schema_id": 0, "expired": False, "rows": [{"id": 1}]},
                          {"label": "second", "ref": "main", "snapshot_id": 2, "schema_id": 0, "expired": False,
                           "rows": [{"id": 1}, {"id": 2}]}]}


def _stand_in(rows_by_snapshot: dict[int, Any], **flags: Any) -> Engine:
    def read(r: ReadRequest) -> list[dict[str, Any]]:
        got = rows_by_snapshot[r.snapshot_id if flags.get("time_travel", True)
                               else json.loads(r.metadata.read_text())["current-snapshot-id"]]
        if isinstance(got, Exception):
            raise got
        return list(got)
    def scan(r: ReadRequest, filters: dict[str, Any]) -> SnapshotRead:
        return SnapshotRead(base=read(r))
    return Engine("stand-in", "a stand-in", (), read, scan, lambda: "0", **flags)


def test_read_table_reports_the_snapshot_and_the_rows_that_differ(tmp_path: Path) -> None:
    doc = _tiny_table(tmp_path)
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    problems, read = read_table(_stand_in({1: [{"id": 1}], 2: [{"id": 1}, {"id": 3}]}), ws, doc)
    assert read == 2
    assert problems == [{"snapshot": "second", "rows": ["- missing:    {\"id\": 2}", "+ unexpected: {\"id\": 3}"]}]


def test_read_table_turns_a_crash_into_a_normalized_problem(tmp_path: Path) -> None:
    doc = _tiny_table(tmp_path)
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    boom = ValueError(f"cannot open {tmp_path / 'golden'}/warehouse/db/t/data/x.avro")
    problems, read = read_table(_stand_in({1: [{"id": 1}], 2: boom}), ws, doc)
    assert read == 1 and problems == [{"snapshot": "second", "error": "ValueError: cannot open <file>.avro"}]


def test_a_consumer_without_time_travel_gets_metadata_pinned_to_each_snapshot(tmp_path: Path) -> None:
    doc = _tiny_table(tmp_path)
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    consumer = _stand_in({1: [{"id": 1}], 2: [{"id": 1}, {"id": 2}]}, time_travel=False)
    assert read_table(consumer, ws, doc) == ([], 2)
    assert not list((tmp_path / "golden").rglob("pinned-*")), "the golden directory is only read"
    assert len(list((tmp_path / "work").rglob("pinned-*"))) == 2


def test_a_golden_table_names_the_session_time_zone_it_is_read_in(tmp_path: Path) -> None:
    """Every table is read in UTC but one that names another zone (``session_time_zone``)."""
    doc = _tiny_table(tmp_path)
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    consumer = _stand_in({1: [{"id": 1}]})
    assert "t" not in golden.REGISTRY and ws.request(consumer, doc, 1).session_time_zone == "UTC"
    zoned = [n for n, t in golden.REGISTRY.items() if t.session_time_zone != "UTC"]
    assert zoned == ["trap_v2_day_session_time_zone"]
    assert golden.REGISTRY[zoned[0]].session_time_zone == "Asia/Tokyo"
    assert ws.request(consumer, dict(doc, name=zoned[0]), 1).session_time_zone == "Asia/Tokyo"


def test_a_session_time_zone_is_a_zone_name_not_sql() -> None:
    from iceberg_conformance.suites.engines.registry import _zone

    r = ReadRequest.__new__(ReadRequest)
    r.session_time_zone = "Asia/Tokyo"
    assert _zone(r) == "'Asia/Tokyo'"
    r.session_time_zone = "UTC'; DROP TABLE t; --"
    with pytest.raises(ValueError):
        _zone(r)


def test_pinned_metadata_moves_current_and_main_only() -> None:
    md = {"current-snapshot-id": 2, "current-schema-id": 1, "snapshots": [{"snapshot-id": 1, "schema-id": 0}, {"snapshot-id": 2, "schema-id": 1}],
          "refs": {"main": {"snapshot-id": 2, "type": "branch"}, "t1": {"snapshot-id": 2, "type": "tag"}}}
    p = pinned(md, 1)
    assert p["current-snapshot-id"] == 1 and p["refs"]["main"]["snapshot-id"] == 1 and p["current-schema-id"] == 0
    assert p["refs"]["t1"]["snapshot-id"] == 2 and md["current-snapshot-id"] == 2


def test_loopback_server_serves_file_names_with_percent_verbatim(tmp_path: Path) -> None:
    (tmp_path / "s_trunc=St%C3%A9").mkdir()
    (tmp_path / "s_trunc=St%C3%A9" / "a.txt").write_text("ok")
    server = HttpServer(tmp_path)
    try:
        assert server.base.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(server.base + "/s_trunc=St%C3%A9/a.txt", timeout=10) as r:
            assert r.read() == b"ok"
    finally:
        server.close()


def test_loopback_server_serves_nothing_beside_its_directory(tmp_path: Path) -> None:
    (tmp_path / "http").mkdir()
    (tmp_path / "http2").mkdir()
    (tmp_path / "http2" / "secret.txt").write_text("not a table file")
    server = HttpServer(tmp_path / "http")
    try:
        for path in ("/../http2/secret.txt", "/%2e%2e/http2/secret.txt", "/../../" + str(tmp_path / "http2" / "secret.txt")):
            try:
                with urllib.request.urlopen(server.base + path, timeout=10) as r:
                    assert b"not a table file" not in r.read(), path
            except urllib.error.HTTPError:
                pass
    finally:
        server.close()


def test_a_moved_golden_directory_is_read_where_it_is_now(tmp_path: Path) -> None:
    """Recorded paths are absolute: a golden directory moved after generation is read through a
    copy whose paths name where it is now, never from where it was generated."""
    doc = _tiny_table(tmp_path)
    md_path = tmp_path / "golden" / "warehouse" / doc["metadata"]
    md = json.loads(md_path.read_text())
    md["location"] = "/generated/elsewhere/warehouse/db/t"
    md_path.write_text(json.dumps(md))
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    assert ws.moved(doc) and ws.recorded_warehouse(doc) == "/generated/elsewhere/warehouse"
    copy = ws.table_copy(doc, "plain")
    assert copy.is_relative_to(tmp_path / "work")
    assert json.loads(copy.read_text())["location"] == str(tmp_path / "work" / "plain" / "db" / "t")
    assert ws.places(doc)["/generated/elsewhere"] == "<golden>"
    assert read_table(_stand_in({1: [{"id": 1}], 2: [{"id": 1}, {"id": 2}]}), ws, doc) == ([], 2)


def test_a_golden_directory_in_place_is_read_as_written(tmp_path: Path) -> None:
    doc = _tiny_table(tmp_path)
    md_path = tmp_path / "golden" / "warehouse" / doc["metadata"]
    md = json.loads(md_path.read_text())
    md["location"] = str(tmp_path / "golden" / "warehouse" / "db" / "t")
    md_path.write_text(json.dumps(md))
    ws = Workspace(tmp_path / "golden", tmp_path / "work")
    assert not ws.moved(doc) and ws.table_copy(doc, "plain") == md_path


# --- capability cells -------------------------------------------------------------------------

def _rec(table: str, status: str, caps: list[str] | None = None, consumer: str = "duckdb", producer: str = "spark") -> dict[str, Any]:
    return {"table": table, "consumer": consumer, "producer": producer, "test": "table", "status": status,
            "capabilities": caps or [], "lines": ["snapshot 's':", "  - missing:    {\"id\": 1}"], "digest": "ab" * 8,
            "known": {"kind": "bug", "reason": "r <b>", "upstream": "none exists yet"} if status == report.KNOWN else None}


def test_the_worst_status_of_a_cells_tables_wins() -> None:
    assert report.cell_status([_rec("a", report.PASS), _rec("b", report.FAIL)], "x")[0] == report.FAIL
    assert report.cell_status([_rec("a", report.PASS), _rec("b", report.KNOWN, ["x"])], "x")[0] == report.KNOWN
    assert report.cell_status([_rec("a", report.UNSUPPORTED, ["x"]), _rec("b", report.PASS)], "x")[0] == report.UNSUPPORTED


def test_a_known_failure_about_another_capability_does_not_count() -> None:
    status, counted = report.cell_status([_rec("a", report.PASS), _rec("b", report.KNOWN, ["orc-data"])], "format-v2")
    assert status == report.PASS and [r["table"] for r in counted] == ["a"]
    assert report.cell_status([_rec("b", report.KNOWN, ["orc-data"])], "format-v2")[0] == report.UNTESTED


CAPS = [{"id": "format-v2", "title": "Format v2", "group": "format", "tables": ["a", "b"]},
        {"id": "orc-data", "title": "ORC data files", "group": "files", "tables": ["b"]},
        {"id": "time-travel", "title": "Time travel", "group": "snapshots", "tables": ["a"]}]


def _doc() -> dict[str, Any]:
    records = [_rec("a", report.PASS), _rec("b", report.KNOWN, ["orc-data"]),
               _rec("a", report.PASS, consumer="icebird"), _rec("b", report.FAIL, consumer="icebird")]
    consumers = {"duckdb": {"title": "DuckDB", "time_travel": True}, "icebird": {"title": "icebird", "time_travel": False}}
    return report.build(records, CAPS, consumers, [{"consumer": "gone", "reason": "cannot read local tables", "error": "E"}])


def test_build_combines_tables_and_declared_flags() -> None:
    doc = _doc()
    cell = {(c["capability"], c["consumer"]): c["status"] for c in doc["cells"]}
    assert cell[("format-v2", "duckdb")] == report.PASS
    assert cell[("orc-data", "duckdb")] == report.KNOWN
    assert cell[("format-v2", "icebird")] == report.FAIL
    assert cell[("time-travel", "icebird")] == report.UNSUPPORTED     # declared: current snapshot only
    assert cell[("time-travel", "duckdb")] == report.PASS
    assert cell[("format-v2", "gone")] == report.NOT_RUN
    assert doc["counts"]["table_x_consumer"][report.FAIL] == 1


def test_heat_map_is_self_contained_and_links_failures_to_their_rows() -> None:
    page = report.render_html(_doc())
    assert not re.search(r"<(script|link|img)\b", page) and "@import" not in page and "url(" not in page
    assert f"background:{report.COLORS[report.FAIL]}" in page and f"background:{report.COLORS[report.KNOWN]}" in page
    target = report.anchor("b", "icebird")
    assert f'href="#{target}"' in page and f"id='{target}'" in page
    assert "test_consumer_reads_golden_table[b-icebird]" in page and "&quot;id&quot;: 1" in page
    assert "r &lt;b&gt;" in page and "<b>r" not in page           # reasons are escaped
    # links work wherever the report folder is copied: anchors or absolute upstream addresses,
    # never a path into a checkout (../suites/test_matrix.py)
    hrefs = re.findall(r"href=['\"]([^'\"]*)['\"]", page)
    assert hrefs and all(h.startswith(("#", "https://", "http://")) for h in hrefs), hrefs


def test_markdown_lists_cells_and_not_passing_tests() -> None:
    md = report.render_md(_doc())
    assert "| Format v2 | PASS | FAIL | NOT-RUN |" in md
    assert "### FAIL: icebird on b" in md and "`suites/test_matrix.py::test_consumer_reads_golden_table[b-icebird]`" in md


# --- the data files ---------------------------------------------------------------------------

FEATURES = {name: set(t.features) for name, t in golden.REGISTRY.items()}


def test_capabilities_list_the_tables_their_features_select() -> None:
    for cap in report.capabilities():
        if "features" in cap:
            assert cap["tables"] == report.tables_for(cap, FEATURES), cap["id"]
        else:
            assert cap.get("derive") and set(cap["tables"]) <= set(golden.REGISTRY), cap["id"]
        assert cap["tables"] or cap.get("missing"), f"{cap['id']}: no golden table and no 'missing' note"


def test_every_golden_table_exercises_a_capability_beyond_format_and_paths() -> None:
    generic = {"format-v1", "format-v2", "format-v3", "plain-paths", "time-travel"}
    covered = {t for cap in report.capabilities() if cap["id"] not in generic for t in cap["tables"]}
    assert set(golden.REGISTRY) - covered == set()


def test_known_failures_name_real_consumers_tables_and_capabilities() -> None:
    caps = {c["id"]: c for c in report.capabilities()}
    seen = set()
    for k in report.known_failures():
        where = f"{k['consumer']} on {k['table']}"
        assert k["consumer"] in ENGINES, where
        assert k["kind"] in ("bug", "unsupported"), where
        assert k["reason"] and k["differs"], where
        assert k["upstream"] == "none exists yet" or k["upstream"].startswith("https://"), where
        if k.get("test") in ("filter", "projection"):
            # an entry about filter (or projection) cases: one digest (and its differences) per case it lists
            assert k["digests"] and set(k["differs"]) == set(k["digests"]), where
            ids = golden_filters.load() if k["test"] == "filter" else golden_projections.load()
            for case, dig in k["digests"].items():
                table, _, fid = case.partition(" > ")
                assert re.fullmatch(r"[0-9a-f]{16}", dig), f"{where}: {case}"
                assert any(f["id"] == fid for f in ids.get(table, [])), f"{where}: no {k['test']} {case}"
                assert report.as_known(k).matches(report.subject(table, k["consumer"], k["test"], fid)), f"{where}: {case}"
            tables = sorted({c.partition(" > ")[0] for c in k["digests"]})
        else:
            digests = k["digest"] if isinstance(k["digest"], list) else [k["digest"]]
            assert digests and all(re.fullmatch(r"[0-9a-f]{16}", d) for d in digests), where
            tables = [t for t in golden.REGISTRY
                      if report.as_known(k).matches(report.subject(t, k["consumer"], k.get("test", "table")))]
        assert tables, f"{where}: matches no golden table"
        assert k["capabilities"] and set(k["capabilities"]) <= set(caps), where
        for t in tables:
            assert any(t in caps[c]["tables"] for c in k["capabilities"]), f"{where}: {t} exercises none of {k['capabilities']}"
        keys = ([(k["consumer"], k["test"], case) for case in k["digests"]] if k.get("test") in ("filter", "projection")
                else [(k["consumer"], k.get("test", "table"), k["table"])])
        for key in keys:
            assert key not in seen, f"{where}: {key} listed twice"
            seen.add(key)


def test_not_run_entries_say_why() -> None:
    for s in report.not_run():
        assert s["consumer"] and s["reason"] and s["error"]


@pytest.mark.parametrize("name", list(ENGINES))
def test_consumer_flags_are_what_the_harness_knows(name: str) -> None:
    c = ENGINES[name]
    assert c.paths in ("plain", "file-uri", "http") and c.packages and c.title


# --- filter cases ----------------------------------------------------------------------------

FILTER_BUG = {"consumer": "duckdb", "test": "filter", "table": "*", "filter": "*", "kind": "bug",
              "capabilities": ["pre-1970"], "reason": "prunes pre-1970 partitions", "upstream": "none exists yet",
              "digests": {"v2_transforms_temporal > dt-eq-1969-12-31": "0123456789abcdef"},
              "differs": {"v2_transforms_temporal > dt-eq-1969-12-31": ["row count: expected 1, read 0"]}}


def test_a_filter_entry_knows_only_the_cases_it_lists() -> None:
    known = [FILTER_BUG]
    v = report.judge(known, "v2_transforms_temporal", "duckdb", PROBLEM, "0123456789abcdef", "filter", "dt-eq-1969-12-31")
    assert v.status == report.KNOWN
    other = report.judge(known, "v2_transforms_temporal", "duckdb", PROBLEM, "0123456789abcdef", "filter", "dt-in-epoch-edges")
    assert other.status == report.FAIL and other.entry is None
    changed = report.judge(known, "v2_transforms_temporal", "duckdb", PROBLEM, "1111111111111111", "filter", "dt-eq-1969-12-31")
    assert changed.status == report.FAIL and "0123456789abcdef" in changed.message
    fixed = report.judge(known, "v2_transforms_temporal", "duckdb", [], "", "filter", "dt-eq-1969-12-31")
    assert fixed.status == report.FAIL and "remove the entry" in fixed.message
    # a table cell of the same consumer is not matched by an entry about filter cases
    assert report.judge(known, "v2_transforms_temporal", "duckdb", PROBLEM, "0123456789abcdef").status == report.FAIL


def _filter_record(table: str, row_filter: str, consumer: str, status: str, **cases: int) -> dict[str, Any]:
    counts = {k: cases.get(k.replace("-", "_"), 0) for k in report.CASE_KINDS}
    return {"table": table, "consumer": consumer, "producer": "spark", "test": "filter", "filter": row_filter,
            "status": status, "message": "", "cases": counts, "problems": [], "lines": ["row count: expected 1, read 0"],
            "digest": "0123456789abcdef" if status != report.PASS else "", "capabilities": [], "known": None}


def test_filter_cells_count_cases_and_link_the_first_failing_test() -> None:
    records = [_filter_record("v2_transforms_temporal", "dt-eq-1969-12-31", "duckdb", report.FAIL, judged=1, wrong=1),
               _filter_record("v2_transforms_temporal", "dt-before-1970", "duckdb", report.PASS, judged=2, correct=2),
               _filter_record("v2_transforms_temporal", "dt-before-1970", "icebird", report.UNSUPPORTED, unsupported=1)]
    caps = [{"id": "pre-1970", "title": "Pre-1970 values", "group": "values", "tables": ["v2_transforms_temporal"]}]
    doc = report.build(records, caps, {"duckdb": {"title": "DuckDB"}, "icebird": {"title": "icebird"}})
    cells = {c["consumer"]: c for c in doc["filter_cells"]}
    assert cells["duckdb"]["status"] == report.FAIL and cells["duckdb"]["cases"]["wrong"] == 1
    assert cells["duckdb"]["cases"]["judged"] == 3 and cells["duckdb"]["failing"] == [["v2_transforms_temporal", "dt-eq-1969-12-31"]]
    assert cells["icebird"]["status"] == report.UNSUPPORTED
    assert doc["counts"]["filter_cases"] == {"judged": 3, "correct": 2, "wrong": 1, "unsupported": 1, "not-judged": 0}
    page = report.render_html(doc)
    assert "under row filters" in page and report.anchor("v2_transforms_temporal", "duckdb", "filter", "dt-eq-1969-12-31") in page
    md = report.render_md(doc)
    assert "FAIL (1 wrong of 3)" in md and "v2_transforms_temporal under filter dt-eq-1969-12-31" in md
    assert report.nodeid("t", "duckdb", "filter", "f") == "suites/test_matrix.py::test_consumer_filters_golden_table[t-f-duckdb]"


PROJECTION_BUG = {"table": "trap_v2_eq_delete_column_order", "consumer": "spark-sql", "test": "projection",
                  "kind": "bug", "reason": "r", "upstream": "u",
                  "digests": {"trap_v2_eq_delete_column_order > project-b-a": "0123456789abcdef"}}


def test_a_projection_entry_knows_only_its_cases_and_no_filter_or_table() -> None:
    known = [PROJECTION_BUG]
    t = "trap_v2_eq_delete_column_order"
    assert report.judge(known, t, "spark-sql", PROBLEM, "0123456789abcdef", "projection", "project-b-a").status == report.KNOWN
    assert report.judge(known, t, "spark-sql", PROBLEM, "0123456789abcdef", "projection", "project-id").status == report.FAIL
    assert report.judge(known, t, "spark-sql", PROBLEM, "0123456789abcdef", "filter", "project-b-a").status == report.FAIL
    assert report.judge(known, t, "spark-sql", PROBLEM, "0123456789abcdef").status == report.FAIL
    assert report.nodeid(t, "duckdb", "projection", "project-id") == \
        f"suites/test_matrix.py::test_consumer_projects_golden_table[{t}-project-id-duckdb]"


def test_projections_name_golden_tables_and_their_columns() -> None:
    tables = golden_projections.load()
    assert tables and set(tables) <= set(golden.REGISTRY)
    for table, ps in tables.items():
        assert len({p["id"] for p in ps}) == len(ps), table
        for p in ps:
            assert p["columns"] and len(set(p["columns"])) == len(p["columns"]) and p["trap"], (table, p["id"])
    schema = {"fields": [{"id": 1, "name": "id", "type": "long"}, {"id": 2, "name": "a", "type": "int"},
                         {"id": 3, "name": "b", "type": "string"}]}
    assert [f["name"] for f in golden_projections.projected_schema(schema, ["b", "a"])["fields"]] == ["b", "a"]
    assert golden_projections.projected_rows([{"id": 3, "a": 1, "b": "y"}], ["b", "id"]) == [{"b": "y", "id": 3}]
    assert not golden_projections.binds(schema, ["b", "c"])


def test_suggested_entries_group_a_consumers_projection_cases_apart_from_its_filter_cases() -> None:
    t = "trap_v2_eq_delete_column_order"
    records = [dict(_filter_record(t, "project-b-a", "duckdb", report.FAIL), test="projection"),
               dict(_filter_record(t, "project-id", "duckdb", report.FAIL), test="projection"),
               _filter_record("v2_transforms_temporal", "dt-eq-1969-12-31", "duckdb", report.FAIL)]
    entries = {e["test"]: e for e in report.suggest(records)}
    assert set(entries) == {"filter", "projection"}
    assert set(entries["projection"]["digests"]) == {f"{t} > project-b-a", f"{t} > project-id"}
    assert set(entries["filter"]["digests"]) == {"v2_transforms_temporal > dt-eq-1969-12-31"}
