"""The table checker (``checker/``): tables given with ``--table``, and damaged tables.

``test_table_conforms`` checks every table found under ``--table PATH`` (see
``suites/harness/tables_plugin.py``); each finding at or above ``--table-fail-on`` fails it.

The other tests write small tables (with :mod:`reference.writer`, and with pyiceberg), check
that the undamaged table has no finding, then damage one thing by hand and check that the
checker reports exactly that damage by its rule id: a bound narrower than the data, a wrong
partition value, a manifest without field ids, a missing data file, a wrong file size, a
deletion vector pointing past its data file's record count. A check never writes into the table.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest

from iceberg_conformance.checker.plan import Unit, plan_units

from iceberg_conformance.checker.check import check_table, run_unit

from iceberg_conformance.checker.find import find_tables, parse_relocate
from iceberg_conformance.checker.sources import check_source, Source, SourceError
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.suites.golden import small_tables as small
from iceberg_conformance.suites.harness.tables_plugin import format_findings

pytestmark = pytest.mark.area("table-check")


# --- tables given on the command line ------------------------------------------------------------

def test_table_conforms(iceberg_table: Source, request: pytest.FixtureRequest) -> None:
    levels = ("error",) if request.config.getoption("table_fail_on") == "error" else ("error", "warning")
    try:
        result = check_source(iceberg_table, relocate=parse_relocate(request.config.getoption("table_relocate")),
                              metadata_only=request.config.getoption("table_metadata_only"))
    except SourceError as e:  # a store that stopped answering while the check ran
        pytest.fail(f"{iceberg_table.label}: {e}", pytrace=False)
    bad = [f for f in result.findings if f.severity in levels]
    name = f"{iceberg_table.label} ({iceberg_table.current.why})" if iceberg_table.label != result.table else result.table
    if bad:
        pytest.fail(f"{name}: {len(bad)} finding(s)\n{format_findings(bad)}", pytrace=False)
    if result.incomplete:
        pytest.fail(f"{name}: the check is incomplete: {len(result.not_read)} part(s) of the table were not "
                    f"read\n{format_findings(result.not_read)}", pytrace=False)


# --- helpers ---------------------------------------------------------------------------------------


def _errors(metadata: str) -> list[Finding]:
    return [f for f in check_table(metadata).findings if f.severity == "error"]


def _rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}


def _rewrite_manifest(metadata: str, change: Callable[[dict[str, Any]], None], index: int = 0) -> str:
    """Rewrite the ``index``-th manifest of the current snapshot with ``change`` applied to its
    first entry (decoded form), and fix its length in every manifest list naming it."""
    from iceberg_conformance.reference import manifests as m

    ml = small.current_manifest_list(metadata)
    version = small.metadata_doc(metadata)["format-version"]
    mfs, _ = m.read_manifest_list(ml, version)
    path = mfs[index]["manifest_path"]
    entries, _ = m.read_manifest(path, version)
    from iceberg_conformance.reference.avro import read_container

    _, header, _ = read_container(path)
    change(entries[0])
    length = m.write_manifest(path, {"format_version": version, "metadata": header, "entries": entries})
    _fix_lengths(metadata, path, length)
    return str(path)


def _fix_lengths(metadata: str, manifest: str, length: int) -> None:
    from iceberg_conformance.reference import manifests as m
    from iceberg_conformance.reference.avro import read_container

    version = small.metadata_doc(metadata)["format-version"]
    for snap in small.metadata_doc(metadata)["snapshots"]:
        ml = snap["manifest-list"]
        mfs, _ = m.read_manifest_list(ml, version)
        if not any(mf["manifest_path"] == manifest for mf in mfs):
            continue
        for mf in mfs:
            if mf["manifest_path"] == manifest:
                mf["manifest_length"] = length
        _, header, _ = read_container(ml)
        m.write_manifest_list(ml, {"format_version": version, "metadata": header, "manifests": mfs})


def _tree_state(root: str) -> dict[str, tuple[str, int]]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            with open(p, "rb") as f:
                out[p] = (hashlib.sha256(f.read()).hexdigest(), os.stat(p).st_mtime_ns)
    return out


# --- undamaged tables -----------------------------------------------------------------------------

@pytest.mark.parametrize("version", [1, 2, 3])
def test_reference_written_table_has_no_finding(tmp_path: Path, version: int) -> None:
    md = small.write_reference_table(tmp_path, version)
    findings = check_table(md).findings
    assert findings == [], format_findings(findings)


def test_check_reads_only(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)
    root = str(tmp_path)
    before = _tree_state(root)
    check_table(md)
    assert _tree_state(root) == before


def test_table_found_from_directory_and_warehouse(tmp_path: Path) -> None:
    md2 = small.write_reference_table(tmp_path, 2)
    md3 = small.write_reference_table(tmp_path, 3)
    assert find_tables(str(tmp_path / "t2")) == [md2]
    assert find_tables(md3) == [md3]
    assert find_tables(f"file://{md3}") == [md3]
    assert sorted(find_tables(str(tmp_path))) == sorted([md2, md3])


def test_units_are_picklable(tmp_path: Path) -> None:
    import pickle

    md = small.write_reference_table(tmp_path, 2)
    units = plan_units(md)
    assert {u.kind for u in units} == {"metadata", "snapshot", "manifest", "data-file"}
    again = pickle.loads(pickle.dumps(units))
    assert [run_unit(u) for u in again] == [[] for _ in again]


def test_pyiceberg_written_table_has_no_error(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy", reason="pyiceberg's SqlCatalog needs sqlalchemy")
    md = small.write_pyiceberg_table(tmp_path)
    findings = check_table(md).findings
    errors = [f for f in findings if f.severity == "error"]
    assert errors == [], format_findings(errors)
    # pyiceberg 0.12 leaves 'schema-id' out of the manifest header (reported as a warning)
    assert _rules(findings) <= {"manifests.header-schema-id"}, format_findings(findings)


# --- damaged tables -------------------------------------------------------------------------------

def test_bound_narrower_than_data(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)

    def narrow(e: dict[str, Any]) -> None:
        # data holds ids 4..5 in the current manifest; an upper bound of 4 excludes 5
        e["data_file"]["upper_bounds"]["1"] = (4).to_bytes(8, "little").hex()

    _rewrite_manifest(md, narrow)
    errors = _errors(md)
    assert _rules(errors) == {"data.upper-bound"}, format_findings(errors)
    assert errors[0].location.endswith("upper_bounds/1")


def test_truncated_string_bounds_are_legitimate(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)

    def truncate(e: dict[str, Any]) -> None:
        # values 'd' and 'e': a lower bound '' (empty prefix) and upper bound 'f' still bound them
        e["data_file"]["lower_bounds"]["2"] = ""
        e["data_file"]["upper_bounds"]["2"] = b"f".hex()

    _rewrite_manifest(md, truncate)
    assert _errors(md) == []


def test_wrong_partition_value(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)

    def move(e: dict[str, Any]) -> None:
        e["data_file"]["partition"]["1000"] = "2017-11-18"

    _rewrite_manifest(md, move)
    errors = _errors(md)
    assert "data.partition-value" in _rules(errors), format_findings(errors)
    # the manifest list's partition summary no longer covers the entry either
    assert _rules(errors) <= {"data.partition-value", "manifests.partition-summary"}, format_findings(errors)


def test_manifest_without_field_ids(tmp_path: Path) -> None:
    from iceberg_conformance.reference.avro import read_container, write_container

    md = small.write_reference_table(tmp_path, 2)
    path = _rewrite_manifest(md, lambda e: None)
    schema, header, records = read_container(path)

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("field-id", "element-id", "key-id", "value-id")}
        if isinstance(node, list):
            return [strip(x) for x in node]
        return node

    with open(path, "wb") as f:
        write_container(f, strip(schema), records, header)
    _fix_lengths(md, path, os.path.getsize(path))
    errors = _errors(md)
    assert "manifests.field-id-missing" in _rules(errors), format_findings(errors)


def test_data_file_missing(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)
    doc = small.metadata_doc(md)
    data = sorted((Path(doc["location"]) / "data").rglob("*.parquet"))[0]
    data.unlink()
    errors = _errors(md)
    assert _rules(errors) == {"files.missing"}, format_findings(errors)
    assert str(data) in errors[0].message


def test_wrong_file_size(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)

    def grow(e: dict[str, Any]) -> None:
        e["data_file"]["file_size_in_bytes"] += 1

    _rewrite_manifest(md, grow)
    errors = _errors(md)
    assert _rules(errors) == {"files.size"}, format_findings(errors)


def test_wrong_value_count_and_record_count(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)

    def miscount(e: dict[str, Any]) -> None:
        e["data_file"]["null_value_counts"]["2"] = 1
        e["data_file"]["record_count"] = 7

    _rewrite_manifest(md, miscount)
    rules = _rules(_errors(md))
    assert {"data.null-value-count", "data.record-count"} <= rules


def test_position_deletes_apply_and_check_clean(tmp_path: Path) -> None:
    from iceberg_conformance.reference.scan import scan

    # the newest data file of the reference writer's table holds ids 4, 5 at positions 0, 1
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), [1])
    findings = check_table(md).findings
    assert findings == [], format_findings(findings)
    assert sorted(r["id"] for r in scan(md)) == [1, 2, 3, 4]


def test_position_delete_past_record_count(tmp_path: Path) -> None:
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), [1, 9])
    errors = _errors(md)
    assert _rules(errors) == {"deletes.position-out-of-range"}, format_findings(errors)


def test_position_deletes_unsorted(tmp_path: Path) -> None:
    md = small.add_position_deletes(small.write_reference_table(tmp_path, 2), [1, 0])
    errors = _errors(md)
    assert _rules(errors) == {"deletes.position-order"}, format_findings(errors)


def test_equality_deletes_apply_to_older_data_only(tmp_path: Path) -> None:
    import pyarrow as pa

    from iceberg_conformance.reference.scan import scan

    # deleting data = 'e' (id 5) by equality; the delete's sequence number is newer than the file's
    md = small.add_deletes(small.write_reference_table(tmp_path, 2), 2, {"data": ["e"]}, {"data": (pa.string(), 2)}, [2])
    findings = check_table(md).findings
    assert findings == [], format_findings(findings)
    assert sorted(r["id"] for r in scan(md)) == [1, 2, 3, 4]
    # the snapshot before the delete still has every row
    assert sorted(r["id"] for r in scan(md, 1002)) == [1, 2, 3, 4, 5]


def test_equality_delete_names_a_field_the_file_lacks(tmp_path: Path) -> None:
    import pyarrow as pa

    # equality_ids [2, 1]: the delete file holds field 2 (data) only
    md = small.add_deletes(small.write_reference_table(tmp_path, 2), 2, {"data": ["e"]}, {"data": (pa.string(), 2)}, [2, 1])
    errors = _errors(md)
    assert _rules(errors) == {"deletes.equality-field-missing"}, format_findings(errors)


def test_deletion_vector_within_record_count(tmp_path: Path) -> None:
    md = small.add_deletion_vector(small.write_reference_table(tmp_path, 3), [0])
    findings = check_table(md).findings
    assert findings == [], format_findings(findings)
    from iceberg_conformance.reference.scan import scan

    assert sorted(r["id"] for r in scan(md)) == [1, 2, 3, 5]


def test_deletion_vector_past_record_count(tmp_path: Path) -> None:
    md = small.add_deletion_vector(small.write_reference_table(tmp_path, 3), [0, 7])
    errors = _errors(md)
    assert _rules(errors) == {"dv.position-out-of-range"}, format_findings(errors)


def test_deletion_vector_cardinality_disagrees(tmp_path: Path) -> None:
    md = small.add_deletion_vector(small.write_reference_table(tmp_path, 3), [0, 1], record_count=3)
    errors = _errors(md)
    assert "dv.manifest-record-count" in _rules(errors), format_findings(errors)


def test_unit_of_unknown_file_reports_finding(tmp_path: Path) -> None:
    md = small.write_reference_table(tmp_path, 2)
    unit = Unit("data-file", md, str(tmp_path / "nowhere.parquet"),
                {"records": [{"entry": {"data_file": {"file_path": str(tmp_path / "nowhere.parquet"),
                                                      "file_format": "PARQUET", "record_count": 1,
                                                      "file_size_in_bytes": 1}},
                              "manifest": "m.avro", "index": 0, "spec_id": 0, "occurrences": 1}],
                 "snapshots": []})
    assert [f.rule for f in run_unit(unit)] == ["files.missing"]


def test_cli_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from iceberg_conformance.cli import main

    md = small.write_reference_table(tmp_path, 2)
    assert main(["check", md, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "missing"), "--quiet"]) == 2
    _rewrite_manifest(md, lambda e: e["data_file"].update(file_size_in_bytes=1))
    assert main(["check", str(tmp_path), "--json", "--quiet"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["error"] == 1
    assert report["tables"][0]["findings"][0]["rule"] == "files.size"


@pytest.mark.parametrize("victim", ["manifest", "manifest-list", "metadata"])
def test_truncated_file_is_a_finding_not_a_crash(tmp_path: Path, victim: str) -> None:
    from iceberg_conformance.reference import manifests as m

    md = small.write_reference_table(tmp_path, 2)
    ml = small.current_manifest_list(md)
    path = {"metadata": md, "manifest-list": ml,
            "manifest": m.read_manifest_list(ml, 2)[0][0]["manifest_path"]}[victim]
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    errors = _errors(md)
    assert errors, f"truncated {victim} gave no finding"
    assert "checker.internal-error" not in _rules(errors), format_findings(errors)


# --- Parquet and Arrow type mappings (Appendix A; Parquet LogicalTypes.md; Arrow Schema.fbs) ----

_PARQUET_CASES = [
    # (Iceberg type, Parquet column as printed by pyarrow, rule expected or None)
    ("int", "optional int32 field_id=1 c;", None),
    ("long", "optional int32 field_id=1 c;", "parquet.type-mapping"),
    ("string", "optional binary field_id=1 c (String);", None),
    ("string", "optional binary field_id=1 c;", "parquet.type-mapping"),
    ("binary", "optional binary field_id=1 c;", None),
    ("date", "optional int32 field_id=1 c (Date);", None),
    ("time", "optional int64 field_id=1 c (Time(isAdjustedToUTC=false, timeUnit=microseconds));", None),
    ("timestamp", "optional int64 field_id=1 c (Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, "
                  "is_from_converted_type=false, force_set_converted_type=false));", None),
    ("timestamptz", "optional int64 field_id=1 c (Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, "
                    "is_from_converted_type=false, force_set_converted_type=false));", "parquet.timestamp-utc"),
    ("timestamp", "optional int64 field_id=1 c (Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, "
                  "is_from_converted_type=false, force_set_converted_type=false));", "parquet.timestamp-utc"),
    ("timestamptz", "optional int64 field_id=1 c (Timestamp(isAdjustedToUTC=true, timeUnit=milliseconds, "
                    "is_from_converted_type=false, force_set_converted_type=false));", "parquet.timestamp-unit"),
    ("timestamptz_ns", "optional int64 field_id=1 c (Timestamp(isAdjustedToUTC=true, timeUnit=nanoseconds, "
                       "is_from_converted_type=false, force_set_converted_type=false));", None),
    ("uuid", "optional fixed_len_byte_array(16) field_id=1 c (UUID);", None),
    ("uuid", "optional fixed_len_byte_array(16) field_id=1 c;", "parquet.type-mapping"),
    ("fixed[4]", "optional fixed_len_byte_array(4) field_id=1 c;", None),
    ("fixed[4]", "optional fixed_len_byte_array(5) field_id=1 c;", "parquet.type-mapping"),
    ("decimal(9, 2)", "optional int32 field_id=1 c (Decimal(precision=9, scale=2));", None),
    ("decimal(18, 2)", "optional int64 field_id=1 c (Decimal(precision=18, scale=2));", None),
    ("decimal(10, 2)", "optional int32 field_id=1 c (Decimal(precision=10, scale=2));", "parquet.decimal-physical-type"),
    ("decimal(19, 2)", "optional int64 field_id=1 c (Decimal(precision=19, scale=2));", "parquet.decimal-physical-type"),
    # 9 bytes hold 20 digits (floor(log10(2^71 - 1)) = 21); 8 bytes hold 18
    ("decimal(20, 2)", "optional fixed_len_byte_array(9) field_id=1 c (Decimal(precision=20, scale=2));", None),
    ("decimal(20, 2)", "optional fixed_len_byte_array(8) field_id=1 c (Decimal(precision=20, scale=2));",
     "parquet.decimal-physical-type"),
    ("decimal(20, 2)", "optional fixed_len_byte_array(10) field_id=1 c (Decimal(precision=20, scale=2));",
     "parquet.decimal-fixed-length"),
    ("decimal(38, 10)", "optional fixed_len_byte_array(16) field_id=1 c (Decimal(precision=38, scale=10));", None),
    ("decimal(9, 2)", "optional int32 field_id=1 c (Decimal(precision=9, scale=3));", "parquet.type-mapping"),
    ("int", "optional int32 field_id=-1 c;", "parquet.field-id-missing"),
    ("int", "optional int32 field_id=2 c;", "parquet.field-id-unknown"),
]


@pytest.mark.parametrize(("iceberg", "column", "rule"), _PARQUET_CASES,
                         ids=[f"{c[0]} as {c[1].split(' c')[0]} -> {c[2]}" for c in _PARQUET_CASES])
def test_parquet_type_mapping(iceberg: str, column: str, rule: str | None) -> None:
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": iceberg}]})
    assert isinstance(schema, StructType)
    root = parse_schema_text("required group field_id=-1 schema {\n  " + column + "\n}\n")
    # the rule, whatever severity its normative level gives it (Appendix A's mapping is a "should")
    rules = {f.rule for f in check_schema(root, index_fields([schema]))}
    assert rules == ({rule} if rule else set())


_NESTED_LIST_3 = """required group field_id=-1 schema {
  optional group field_id=1 c (List) {
    repeated group field_id=-1 list {
      optional int64 field_id=2 element;
    }
  }
}"""
_NESTED_LIST_2 = """required group field_id=-1 schema {
  optional group field_id=1 c (List) {
    repeated int64 field_id=2 element;
  }
}"""
_NESTED_MAP = """required group field_id=-1 schema {
  optional group field_id=1 c (Map) {
    repeated group field_id=-1 key_value {
      required binary field_id=2 key (String);
      optional int32 field_id=3 value;
    }
  }
}"""


@pytest.mark.parametrize(("iceberg", "text", "rule"), [
    ({"type": "list", "element-id": 2, "element": "long", "element-required": False}, _NESTED_LIST_3, None),
    ({"type": "list", "element-id": 2, "element": "long", "element-required": False}, _NESTED_LIST_2,
     "parquet.list-structure"),
    ({"type": "list", "element-id": 3, "element": "long", "element-required": False}, _NESTED_LIST_3,
     "parquet.field-id-mismatch"),
    ({"type": "map", "key-id": 2, "key": "string", "value-id": 3, "value": "int", "value-required": False},
     _NESTED_MAP, None),
], ids=["3-level list", "2-level list", "element id differs", "3-level map"])
def test_parquet_nested_mapping(iceberg: Any, text: str, rule: str | None) -> None:
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": iceberg}]})
    assert isinstance(schema, StructType)
    rules = {f.rule for f in check_schema(parse_schema_text(text), index_fields([schema])) if f.severity == "error"}
    assert rules == ({rule} if rule else set())


def test_parquet_file_marks_optional_column_required() -> None:
    """A file may mark a column required that the table has optional (Spark writes such files)."""
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": "long"}]})
    assert isinstance(schema, StructType)
    root = parse_schema_text("required group field_id=-1 schema {\n  required int64 field_id=1 c;\n}\n")
    assert check_schema(root, index_fields([schema])) == []


@pytest.mark.parametrize(("iceberg", "arrow"), [
    ("boolean", "bool"), ("int", "int32"), ("long", "int64"), ("float", "float"), ("double", "double"),
    ("date", "date32[day]"), ("time", "time64[us]"), ("timestamp", "timestamp[us]"),
    ("timestamptz", "timestamp[us, tz=UTC]"), ("timestamp_ns", "timestamp[ns]"),
    ("timestamptz_ns", "timestamp[ns, tz=UTC]"), ("string", "string"), ("binary", "binary"),
    ("uuid", "extension<arrow.uuid>"), ("fixed[3]", "fixed_size_binary[3]"), ("decimal(9, 2)", "decimal128(9, 2)"),
    ("unknown", "null"),
])
def test_arrow_type_mapping(iceberg: str, arrow: str) -> None:
    """Iceberg primitive <-> Arrow (Schema.fbs) type, both ways; expected names are Arrow's own."""
    from iceberg_conformance.reference.arrow import arrow_matches, from_arrow, to_arrow
    from iceberg_conformance.reference.types import parse_type

    t = parse_type(iceberg)
    at = to_arrow(t)
    assert str(at) == arrow
    assert from_arrow(at) == t
    assert arrow_matches(t, at)
