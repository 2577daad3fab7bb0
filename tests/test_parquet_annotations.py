"""LogicalTypes.md annotations of Parquet leaf columns (reference/parquet.py annotation_problems):
each LogicalType written with its exact ConvertedType counterpart, TIME on the physical type its
unit takes, the deprecated TIME/TIMESTAMP ConvertedTypes on int32/int64 as the text gives."""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.reference.parquet import annotation_problems


def _time(unit: str, utc: bool = False) -> dict[str, Any]:
    return {"Type": "Time", "isAdjustedToUTC": utc, "timeUnit": unit}


def _ts(unit: str, utc: bool) -> dict[str, Any]:
    return {"Type": "Timestamp", "isAdjustedToUTC": utc, "timeUnit": unit}


@pytest.mark.parametrize("column", [
    ("s", "BYTE_ARRAY", {"Type": "String"}, "UTF8"),
    ("d", "INT32", {"Type": "Date"}, "DATE"),
    ("x", "FIXED_LEN_BYTE_ARRAY", {"Type": "Decimal", "precision": 20, "scale": 2}, "DECIMAL"),
    ("t", "INT64", _ts("microseconds", True), "TIMESTAMP_MICROS"),
    ("t", "INT64", _ts("microseconds", False), "NONE"),         # local: no exact counterpart
    ("t", "INT64", _ts("microseconds", False), "TIMESTAMP_MICROS"),  # the legacy annotation, also fine
    ("t", "INT64", _ts("nanoseconds", True), "NONE"),
    ("t", "INT64", _time("microseconds"), "NONE"),
    ("t", "INT32", _time("milliseconds", True), "TIME_MILLIS"),
    ("t", "INT64", _time("nanoseconds"), "NONE"),
    ("i", "INT32", {"Type": "Int", "bitWidth": 8, "isSigned": True}, "INT_8"),
    ("i", "INT64", None, "NONE"),
    ("u", "FIXED_LEN_BYTE_ARRAY", {"Type": "UUID"}, "NONE"),
], ids=["string", "date", "decimal", "utc timestamp", "local timestamp", "local timestamp legacy", "nanos",
        "local time", "utc time millis", "time nanos", "int8", "plain long", "uuid"])
def test_annotations_as_logical_types_gives_them(column: tuple[str, str, Any, str]) -> None:
    assert annotation_problems([column]) == []


@pytest.mark.parametrize(("column", "word"), [
    (("s", "BYTE_ARRAY", {"Type": "String"}, "NONE"), "UTF8"),
    (("d", "INT32", {"Type": "Date"}, "NONE"), "DATE"),
    (("t", "INT64", _ts("milliseconds", True), "NONE"), "TIMESTAMP_MILLIS"),
    (("t", "INT64", _time("milliseconds"), "NONE"), "annotates int32"),
    (("t", "INT32", _time("nanoseconds"), "NONE"), "annotates int64"),
    (("t", "INT32", _time("microseconds"), "NONE"), "annotates int64"),
    (("t", "INT64", None, "TIME_MILLIS"), "annotates int32"),
    (("t", "INT32", None, "TIME_MICROS"), "annotates int64"),
    (("t", "INT32", None, "TIMESTAMP_MILLIS"), "annotates int64"),
    (("t", "INT32", None, "TIMESTAMP_MICROS"), "annotates int64"),
], ids=["string without UTF8", "date without DATE", "utc millis without", "time millis on int64",
        "time nanos on int32", "time micros on int32", "TIME_MILLIS on int64", "TIME_MICROS on int32",
        "TIMESTAMP_MILLIS on int32", "TIMESTAMP_MICROS on int32"])
def test_annotation_problems(column: tuple[str, str, Any, str], word: str) -> None:
    found = annotation_problems([column])
    assert len(found) == 1 and word in found[0][1], found


@pytest.mark.parametrize(("iceberg", "annotation", "bad"), [
    ("decimal(9, 2)", "Decimal(precision=9, scale=2)", False),
    ("decimal(9, 0)", "Decimal(precision=9, scale=0)", False),
    ("decimal(5, 6)", "Decimal(precision=5, scale=6)", True),
], ids=["scale 2", "scale 0", "scale above precision"])
def test_decimal_scale_is_within_precision(iceberg: str, annotation: str, bad: bool) -> None:
    from iceberg_conformance.reference.parquet import check_schema, index_fields, parse_schema_text
    from iceberg_conformance.reference.types import StructType, parse_type

    schema = parse_type({"type": "struct", "fields": [{"id": 1, "name": "c", "required": False, "type": iceberg}]})
    assert isinstance(schema, StructType)
    text = f"required group field_id=-1 schema {{\n  optional int32 field_id=1 c ({annotation});\n}}"
    found = [f for f in check_schema(parse_schema_text(text), index_fields([schema])) if f.severity == "error"]
    assert bool([f for f in found if "outside 0.." in f.message]) == bad, found


@pytest.mark.parametrize(("logical", "lo", "hi", "bad"), [
    ({"Type": "Int", "bitWidth": 8, "isSigned": True}, -128, 127, False),
    ({"Type": "Int", "bitWidth": 8, "isSigned": True}, -129, 0, True),
    ({"Type": "Int", "bitWidth": 16, "isSigned": True}, 0, 40000, True),
    ({"Type": "Int", "bitWidth": 8, "isSigned": False}, 0, 255, False),
    ({"Type": "Int", "bitWidth": 8, "isSigned": False}, -1, 3, True),
    (None, -(1 << 40), 1 << 40, False),
], ids=["int8 range", "below int8", "above int16", "uint8 range", "negative uint8", "no annotation"])
def test_values_fit_the_int_annotation(logical: Any, lo: int, hi: int, bad: bool) -> None:
    from iceberg_conformance.reference.parquet import int_range_problems

    assert bool(int_range_problems([("c", logical, lo, hi)])) == bad


def test_a_written_int8_column_checks_clean(tmp_path: Any) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from iceberg_conformance.checker.units.datafile import _annotation_findings

    path = tmp_path / "i8.parquet"
    pq.write_table(pa.table({"b": pa.array([-128, 5, 127], pa.int8())}), path)
    assert _annotation_findings(pq.ParquetFile(path), str(path)) == []
