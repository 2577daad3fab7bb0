"""Variant values and variant bounds (:mod:`reference.variant`, checker/units/metrics.py).

Expected bytes are derived by hand from Parquet's VariantEncoding.md (metadata header
``version | sorted_strings << 4 | offset_size_minus_one << 6``; value_metadata ``basic_type |
value_header << 2``; short string header = length; binary type id 15 with a 4-byte
little-endian length; object header ``is_large << 4 | field_id_size_minus_one << 2 |
field_offset_size_minus_one``) and Iceberg's Appendix D ("A serialized Variant of encoded v1
metadata concatenated with an encoded variant object. Object keys are normalized JSON paths to
identify fields; values are lower or upper bound values.").
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.units.metrics import VariantStats, accumulate_variant, compare_variant
from iceberg_conformance.reference import variant as v
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.manifests import bound_columns, check_bounds
from iceberg_conformance.reference.types import NestedField, VariantType

# metadata: header 0x11 (version 1, sorted strings, 1-byte offsets), 1 string, offsets 0 and 6
META_S = "11" "01" "00" "06" + "$['s']".encode().hex()
# object: header 0x02 (basic type 2, 1-byte ids and offsets), 1 field, id 0, offsets 0 and 5,
# then the short string U+1F600: 0x11 (basic type 1, length 4) and its UTF-8 bytes
EMOJI_BOUND = META_S + "02" "01" "00" "00" "05" "11" "f09f9880"
# binary 0x0102 at $['b']: 0x3c (type id 15 << 2), length 02000000, the bytes
BINARY_BOUND = "11" "01" "00" "06" + "$['b']".encode().hex() + "02" "01" "00" "00" "07" "3c" "02000000" "0102"
# int8 5 at the root $: 0x0c (type id 3 << 2), 05
ROOT_BOUND = "11" "01" "00" "01" "24" + "02" "01" "00" "00" "02" "0c" "05"


@pytest.mark.parametrize("hexed, expected", [
    (EMOJI_BOUND, {"$['s']": v.Primitive("string", "\U0001f600")}),
    (BINARY_BOUND, {"$['b']": v.Primitive("binary", b"\x01\x02")}),
    (ROOT_BOUND, {"$": v.Primitive("int8", 5)}),
])
def test_bound_serialization_reads_and_writes_the_spec_bytes(hexed: str, expected: dict[str, v.Primitive]) -> None:
    assert v.bounds_from_bytes(bytes.fromhex(hexed)) == expected
    assert v.bounds_to_bytes(expected).hex() == hexed


@pytest.mark.parametrize("hexed, why", [
    ("12" + EMOJI_BOUND[2:], "metadata version"),          # version 2
    (EMOJI_BOUND[:-2], "runs past"),                       # the string cut short
    (META_S + "11" "f09f9880", "not an object"),           # a bare string, not an object
    ("11" "01" "00" "01" "73" "02" "01" "00" "00" "02" "0c" "05", "normalized JSON path"),  # key "s"
    (EMOJI_BOUND + "00", "ends at byte"),                  # a trailing byte
    ("11" "01" "00" "01" "24" + "02" "01" "00" "00" "01" "00", "not a primitive"),  # a null bound
])
def test_malformed_bounds_are_refused(hexed: str, why: str) -> None:
    with pytest.raises(SpecViolation, match=why) as e:
        v.bounds_from_bytes(bytes.fromhex(hexed))
    assert e.value.rule == "manifests.bound-decode"


def test_values_round_trip_through_the_encoding() -> None:
    value = v.from_python({"b": b"\x00" * 70, "s": "x" * 70, "n": [1, 300, 70000, 2**40], "d": Decimal("1.25"),
                           "t": True, "z": None, "o": {"k": -1.5}})
    metadata, encoded = v.encode(value)
    assert v.decode(metadata, encoded) == value
    # keys sorted by their bytes: the dictionary is b d n o s t z k -> b d k n o s t z
    assert v.decode_metadata(metadata)[0] == ["b", "d", "k", "n", "o", "s", "t", "z"]


def test_normalized_paths_follow_the_spec_examples() -> None:
    assert v.field_path("$", "event_type") == "$['event_type']"
    assert v.field_path("$", "user.name") == "$['user.name']"
    assert v.field_path(v.field_path("$", "location"), "latitude") == "$['location']['latitude']"
    assert v.field_path("$", "it's") == "$['it\\'s']"
    assert all(v.is_normalized_path(p) for p in ("$", "$['a']['b']", "$['it\\'s']"))
    assert not any(v.is_normalized_path(p) for p in ("s", "$.s", "$['a'", "$[0]"))


def test_array_values_belong_to_the_array_path() -> None:
    got = v.values_by_path(v.from_python({"tags": ["a", "b"], "addresses": [{"zip": 1}, {"zip": None}]}))
    assert got == {"$['tags']": [v.Primitive("string", "a"), v.Primitive("string", "b")],
                   "$['addresses']['zip']": [v.Primitive("int8", 1)]}


def test_strings_order_by_utf8_bytes_and_truncated_bounds_round_up() -> None:
    assert v.order_key(v.Primitive("string", "\ufffd")) < v.order_key(v.Primitive("string", "\U0001f600"))
    long = bytes(range(1, 21))
    assert v.truncate_upper(v.Primitive("binary", long), 16) == v.Primitive("binary", bytes(range(1, 16)) + b"\x11")
    assert v.truncate_upper(v.Primitive("binary", b"\x01" + b"\xff" * 20), 16) == v.Primitive("binary", b"\x02")
    assert v.truncate_upper(v.Primitive("binary", b"\xff" * 20), 16) is None
    assert v.truncate_upper(v.Primitive("string", "ab\U0010ffff!"), 3) == v.Primitive("string", "ac")
    assert v.truncate_lower(v.Primitive("string", "abcdef"), 2) == v.Primitive("string", "ab")


def test_shredded_columns_read_back_as_written() -> None:
    rows: list[v.Variant | None] = [v.from_python({"b": b"\x01", "s": "x", "m": 1}), v.from_python({"s": "y", "m": "z"}),
                                    v.from_python([1, 2]), None]
    arr, t = v.shred(rows)
    assert [t.field(i).name for i in range(t.num_fields)] == ["metadata", "value", "typed_value"]
    assert [f.name for f in t.field("typed_value").type] == ["b", "s"]  # m has two types: left in value
    assert v.unshred(arr) == rows


@pytest.mark.parametrize("variant_type, value, arrow_type", [
    # VariantShredding.md, "Shredded Value Types": boolean BOOLEAN; int8 INT32 INT(8, signed=true);
    # int16 INT32 INT(16, ...); int32 INT32; int64 INT64; float FLOAT; double DOUBLE; binary BINARY;
    # string BINARY STRING -- as Arrow reads those Parquet types
    ("boolean", True, "bool"), ("int8", -5, "int8"), ("int16", 300, "int16"), ("int32", 70000, "int32"),
    ("int64", 2**40, "int64"), ("float", 1.5, "float"), ("double", 2.5, "double"), ("binary", b"\x00\xff", "binary"),
    ("string", "x", "string"),
])
def test_each_shredded_type_is_written_and_read_as_its_arrow_type(variant_type: str, value: Any, arrow_type: str) -> None:
    rows: list[v.Variant | None] = [{"f": v.Primitive(variant_type, value)}, {"f": v.Primitive(variant_type, value)}]
    arr, t = v.shred(rows)
    assert str(t.field("typed_value").type.field("f").type.field("typed_value").type) == arrow_type
    assert arr.field("value").null_count == 2  # every field shredded, nothing left in value
    assert v.unshred(arr) == rows


def _stats(rows: list[Any]) -> VariantStats:
    s = VariantStats()
    arr, _ = v.shred([None if r is None else v.from_python(r) for r in rows])
    accumulate_variant(s, arr)
    return s


def _findings(df: dict[str, Any], s: VariantStats) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    compare_variant(df, 2, s, lambda rule, msg, clause, loc: out.append((rule, loc)))
    return out


def test_the_checker_compares_each_path_with_the_values() -> None:
    s = _stats([{"b": bytes(range(1, 21)), "s": "\ufffd"}, {"b": b"\x01\x02", "s": "\U0001f600"}, None])
    good = {"lower_bounds": {"2": v.bounds_to_bytes({"$['b']": v.Primitive("binary", b"\x01\x02"),
                                                    "$['s']": v.Primitive("string", "\ufffd")}).hex()},
            "upper_bounds": {"2": v.bounds_to_bytes({"$['b']": v.Primitive("binary", bytes(range(1, 16)) + b"\x11"),
                                                    "$['s']": v.Primitive("string", "\U0001f600")}).hex()}}
    assert _findings(good, s) == []
    down = dict(good, upper_bounds={"2": v.bounds_to_bytes({"$['b']": v.Primitive("binary", bytes(range(1, 17)))}).hex()})
    assert _findings(down, s) == [("data.upper-bound", "upper_bounds/2/$['b']")]
    utf16 = dict(good, upper_bounds={"2": v.bounds_to_bytes({"$['s']": v.Primitive("string", "\ufffd")}).hex()})
    assert _findings(utf16, s) == [("data.upper-bound", "upper_bounds/2/$['s']")]
    high = dict(good, lower_bounds={"2": v.bounds_to_bytes({"$['s']": v.Primitive("string", "\U0001f600")}).hex()})
    assert _findings(high, s) == [("data.lower-bound", "lower_bounds/2/$['s']")]
    # a bound of another type than the values is not compared with them
    other = {"upper_bounds": {"2": v.bounds_to_bytes({"$['s']": v.Primitive("int8", 0)}).hex()}}
    assert _findings(other, s) == []


def test_a_malformed_variant_bound_is_a_finding_naming_the_field() -> None:
    s = _stats([{"s": "x"}])
    assert _findings({"upper_bounds": {"2": "ff00"}}, s) == [("data.bound-undecodable", "upper_bounds/2")]
    columns = bound_columns({2: NestedField(2, "v", VariantType(), False)})
    found = check_bounds([{"data_file": {"lower_bounds": {"2": "0100"}, "upper_bounds": {"2": EMOJI_BOUND}}}], columns,
                         "m.avro")
    assert [(f.rule, f.location) for f in found[0]] == [("manifests.bound-decode", "entries[0].lower_bounds[2]")]
    assert "column 2" in found[0][0].message


def test_manifest_bounds_of_one_path_have_one_type_and_order() -> None:
    columns = bound_columns({2: NestedField(2, "v", VariantType(), False)})

    def rules(lower: dict[str, v.Primitive], upper: dict[str, v.Primitive]) -> list[str]:
        df = {"lower_bounds": {"2": v.bounds_to_bytes(lower).hex()}, "upper_bounds": {"2": v.bounds_to_bytes(upper).hex()}}
        return [f.rule for f in check_bounds([{"data_file": df}], columns, "m.avro").get(0, [])]
    s, b = v.Primitive("string", "a"), v.Primitive("binary", b"a")
    assert rules({"$": s}, {"$": s}) == []
    assert rules({"$": s}, {"$": b}) == ["manifests.variant-bound-type"]
    assert rules({"$": v.Primitive("string", "b")}, {"$": s}) == ["manifests.bounds-order"]


def test_the_reference_writer_variant_table_checks_clean(tmp_path: Path) -> None:
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.suites.golden.small_tables import newest_data_file, write_variant_table

    md = write_variant_table(tmp_path)
    assert [f for f in check_table(md).findings if f.severity == "error"] == []
    df = newest_data_file(md)
    upper = v.bounds_from_bytes(bytes.fromhex(df["upper_bounds"]["2"]))
    # $['b']'s 20-byte maximum 0x0102..14 cut to 16 bytes and rounded up; $['s'] by UTF-8 bytes;
    # no bound for $ (objects and a string there) or $['m'] (a string and an int)
    assert upper["$['b']"] == v.Primitive("binary", bytes(range(1, 16)) + b"\x11")
    assert upper["$['s']"] == v.Primitive("string", "\U0001f600")
    assert "$" not in upper and "$['m']" not in upper


def test_bounds_of_a_path_with_mixed_types_are_reported() -> None:
    # "a measurement field that contains int64 and null values may have bounds, but if the field
    # also contained a string value such as n/a or 0 then the field may not have bounds"
    bound = v.bounds_to_bytes({"$['measurement']": v.Primitive("int64", 1)}).hex()
    df = {"lower_bounds": {"2": bound}, "upper_bounds": {"2": bound}}
    assert _findings(df, _stats([{"measurement": 1}, {"measurement": None}, None])) == []
    assert _findings(df, _stats([{"measurement": 1}, {"measurement": "n/a"}])) == [
        ("data.variant-bound-mixed-types", "lower_bounds/2/$['measurement']")]
    assert _findings(df, _stats([{"measurement": 1}, {"measurement": {"unit": "m"}}])) == [
        ("data.variant-bound-mixed-types", "lower_bounds/2/$['measurement']")]


def test_two_physical_types_of_one_class_the_writer_does_not_bound_and_the_checker_accepts() -> None:
    # int8 1 and int16 300 at $['n'] (from_python, like JSON parsers: the narrowest integer type):
    # two physical types of VariantEncoding.md's table, ordered as numbers together. Whether they
    # are "mixed Variant types" the spec does not say: the reference writer writes no bounds over
    # them, and the checker does not fault a writer that bounds them as numbers (int16 1 and
    # int16 300, as a writer widening them would write); a number beside a string it does fault
    rows = [{"n": 1}, {"n": 300}, {"n": None}]
    lower, upper = v.column_bounds([v.from_python(r) for r in rows])
    assert "$['n']" not in lower and "$['n']" not in upper
    df = {which: {"2": v.bounds_to_bytes({"$['n']": v.Primitive("int16", n)}).hex()}
          for which, n in (("lower_bounds", 1), ("upper_bounds", 300))}
    assert _findings(df, _stats(rows)) == []
    assert _findings(df, _stats([{"n": 200}, {"n": 300}])) == []  # int16 only
    assert _findings(df, _stats([{"n": 200}, {"n": "300"}])) == [
        ("data.variant-bound-mixed-types", "lower_bounds/2/$['n']")]
    # a NaN has no place in the order, and is still a number beside a string
    nan_and_string: list[v.Variant | None] = [{"n": v.Primitive("double", float("nan"))}, {"n": "300"}]
    assert ("data.variant-bound-mixed-types", "lower_bounds/2/$['n']") in _findings(df, _stats(nan_and_string))
    # below the least number of the file: the bound is compared across the class's physical types
    low = {**df, "lower_bounds": {"2": v.bounds_to_bytes({"$['n']": v.Primitive("int16", 2)}).hex()}}
    assert [r for r, _loc in _findings(low, _stats(rows))] == ["data.lower-bound"]
    # float 1.5 and double 2.5: two types for the writer too
    floats: list[v.Variant | None] = [{"x": v.Primitive("float", 1.5)}, {"x": v.Primitive("double", 2.5)}]
    assert v.column_bounds(floats) == ({}, {})
    df = {which: {"2": v.bounds_to_bytes({"$['x']": v.Primitive("double", x)}).hex()}
          for which, x in (("lower_bounds", 1.5), ("upper_bounds", 2.5))}
    assert _findings(df, _stats(floats)) == []
    assert v.column_bounds([{"x": v.Primitive("double", 2.5)}, {"x": v.Primitive("double", 1.5)}]) == (
        {"$['x']": v.Primitive("double", 1.5)}, {"$['x']": v.Primitive("double", 2.5)})


def _duckdb_with_variant() -> tuple[Any, str]:
    """A DuckDB connection and DuckDB's version; the test is skipped without duckdb or VARIANT."""
    duckdb = pytest.importorskip("duckdb", reason="the duckdb extra writes the Variant file")
    con = duckdb.connect()
    try:
        con.sql("SELECT 1::VARIANT").fetchall()
    except duckdb.Error:
        pytest.skip(f"duckdb {duckdb.__version__} has no VARIANT type")
    return con, str(duckdb.__version__)


def test_variant_columns_duckdb_writes_decode_to_their_sql_values(tmp_path: Path) -> None:
    """An independent writer: DuckDB's Parquet Variant columns (metadata, value and a shredded
    typed_value) read back as the SQL values written."""
    import pyarrow.parquet as pq

    con, _ = _duckdb_with_variant()
    out = tmp_path / "v.parquet"
    con.sql(f"""COPY (SELECT * FROM (VALUES
        (1, {{'s': '\U0001f600', 'b': 'abc'::BLOB, 'd': 1.25::DECIMAL(9, 2), 'arr': ['x', 'y'],
             'o': {{'z': -2.5::DOUBLE}}}}::VARIANT),
        (2, 'plain'::VARIANT), (3, DATE '2024-01-02'::VARIANT), (4, true::VARIANT), (5, NULL::VARIANT)
    ) t(id, v) ORDER BY id) TO '{out}' (FORMAT parquet)""")
    got = [x for chunk in pq.read_table(out).column("v").chunks for x in v.unshred(chunk)]
    assert got[:4] == [
        {"s": v.Primitive("string", "\U0001f600"), "b": v.Primitive("binary", b"abc"),
         "d": v.Primitive("decimal4", Decimal("1.25")), "arr": [v.Primitive("string", "x"), v.Primitive("string", "y")],
         "o": {"z": v.Primitive("double", -2.5)}},
        v.Primitive("string", "plain"),
        v.Primitive("date", 19724),  # 2024-01-02 is day 19724 from 1970-01-01
        v.Primitive("boolean", True),
    ]
    assert got[4] in (None, v.NULL)  # a SQL null or a Variant null


# metadata of the dictionary ["b", "a"]: header 0x11 (version 1, sorted_strings set, 1-byte
# offsets), 2 strings, offsets 0 1 2, then "b" "a" -- the bit claims an order the strings lack
UNSORTED_META = "11" "02" "00" "01" "02" "62" "61"


@pytest.mark.parametrize("hexed, problem", [
    ("11" "02" "00" "01" "02" "61" "62", None),          # ["a", "b"]: unique and sorted
    ("01" "02" "00" "01" "02" "62" "61", None),          # ["b", "a"] with the bit clear: no promise
    (UNSORTED_META, "'a' sorts before string 0 'b'"),   # ["b", "a"] with the bit set
    ("11" "02" "00" "01" "02" "61" "61", "repeats"),     # ["a", "a"]: sorted but not unique
    # U+FFFD (ef bf bd) then U+1F600 (f0 9f 98 80): sorted by UTF-8 bytes (and code points),
    # though not by UTF-16 code units
    ("11" "02" "00" "03" "07" "efbfbd" "f09f9880", None),
])
def test_sorted_strings_promises_a_unique_sorted_dictionary(hexed: str, problem: str | None) -> None:
    got = v.sorted_strings_problem(bytes.fromhex(hexed))
    assert got is None if problem is None else problem in (got or "")


def test_a_dictionary_breaking_sorted_strings_still_decodes() -> None:
    # {"a": 1, "b": 2}: field ids 1 ("a") and 0 ("b") in name order, offsets 0 2 4, int8 1 and 2.
    # The ids index the dictionary: no lookup relies on the bit.
    value = bytes.fromhex("02" "02" "01" "00" "00" "02" "04" "0c01" "0c02")
    assert v.decode(bytes.fromhex(UNSORTED_META), value) == {"a": v.Primitive("int8", 1), "b": v.Primitive("int8", 2)}


def test_the_checker_reports_an_unsorted_dictionary_once_per_column() -> None:
    import pyarrow as pa

    good = v.encode_metadata(["a", "b"])
    value = v.encode_value({"a": v.Primitive("int8", 1)}, {"a": 0, "b": 1})
    bad_value = bytes.fromhex("02" "01" "01" "00" "02" "0c01")  # {"a": 1}, "a" is id 1 of ["b", "a"]
    arr = pa.StructArray.from_arrays([pa.array([good, bytes.fromhex(UNSORTED_META)] * 2, pa.binary()),
                                      pa.array([value, bad_value] * 2, pa.binary())], ["metadata", "value"])
    s = VariantStats()
    accumulate_variant(s, arr)
    accumulate_variant(s, arr)
    assert s.undecodable is None and s.unsorted is not None
    assert s.unsorted[0] == 1  # the first offending row, once for the column
    clean = VariantStats()
    accumulate_variant(clean, pa.StructArray.from_arrays([pa.array([good] * 3, pa.binary()),
                                                          pa.array([value] * 3, pa.binary())], ["metadata", "value"]))
    assert clean.unsorted is None


def _bound_findings(bound: bytes) -> list[tuple[str, str]]:
    """(rule, location) of what check_bounds finds in a variant column whose lower and upper
    bound are both ``bound``."""
    columns = bound_columns({2: NestedField(2, "v", VariantType(), False)})
    df = {"lower_bounds": {"2": bound.hex()}, "upper_bounds": {"2": bound.hex()}}
    return sorted((f.rule, f.location) for f in check_bounds([{"data_file": df}], columns, "m.avro").get(0, []))


def test_a_variant_bound_whose_metadata_breaks_sorted_strings_is_reported() -> None:
    # bound {"$['b']": int8 1, "$['a']": int8 2} with the dictionary ["$['b']", "$['a']"], bit set
    keys = ["$['b']", "$['a']"]
    meta = bytes([0x11, 2, 0, 6, 12]) + "".join(keys).encode()
    bound = meta + bytes.fromhex("02" "02" "01" "00" "00" "02" "04" "0c02" "0c01")
    assert v.bounds_from_bytes(bound) == {"$['a']": v.Primitive("int8", 2), "$['b']": v.Primitive("int8", 1)}
    assert _bound_findings(bound) == [("parquet.variant-sorted-strings", "entries[0].lower_bounds[2]"),
                                      ("parquet.variant-sorted-strings", "entries[0].upper_bounds[2]")]


def _duckdb_column(tmp_path: Path, select: str) -> tuple[Any, str, VariantStats]:
    """The variant column ``v`` of the Parquet file DuckDB writes for ``select``, DuckDB's version,
    and what the checker reads of the column (which must decode)."""
    import pyarrow.parquet as pq

    con, version = _duckdb_with_variant()
    out = tmp_path / "v.parquet"
    con.sql(f"COPY ({select}) TO '{out}' (FORMAT parquet)")
    col = pq.read_table(out).column("v")
    s = VariantStats()
    for chunk in col.chunks:
        accumulate_variant(s, chunk)
    assert s.undecodable is None
    return col, version, s


def test_the_kit_reports_the_sorted_strings_bit_duckdb_sets(tmp_path: Path) -> None:
    """DuckDB's Parquet Variant writer (duckdb/duckdb#23591; 1.5.5 still has it) lists the keys in
    the order it meets them and sets sorted_strings: the checker reports the file it writes (and
    none from a DuckDB with the fix); the values still decode."""
    col, version, s = _duckdb_column(tmp_path, """SELECT '{"b":1,"a":2}'::JSON::VARIANT AS v""")
    meta = col.chunks[0].flatten()[0].to_pylist()[0]
    keys = v.decode_metadata(meta)[0]
    # the bit (0x10 of the header) promises unique keys in lexicographic order; a DuckDB with the
    # fix keeps the promise (or does not make it) and must check clean
    broken = bool(meta[0] & 0x10) and keys != ["a", "b"]
    # the pinned DuckDB (the duckdb extra) is the one the bug record says writes it: a new pin that
    # no longer does is a change of the record, made on purpose
    assert broken or version != "1.5.5", f"duckdb {version} wrote {meta.hex()}: update duckdb-23591's record"
    assert (s.unsorted is not None and s.unsorted[0] == 0) == broken, f"duckdb {version}: {meta.hex()}"
    got = [x for chunk in col.chunks for x in v.unshred(chunk)]
    assert len(got) == 1 and isinstance(got[0], dict)
    assert {k: x.value for k, x in got[0].items() if isinstance(x, v.Primitive)} == {"a": 2, "b": 1}


def test_a_38_digit_decimal16_decodes_exactly() -> None:
    """decimal16 (primitive type id 10: value_metadata 10 << 2), a 1-byte scale, then the unscaled
    value as 16 little-endian bytes; 38 digits, beyond a default decimal context's 28."""
    unscaled = 12345678901234567890123456789012345678
    value = bytes([10 << 2, 2]) + unscaled.to_bytes(16, "little", signed=True)
    got = v.decode(bytes.fromhex("010000"), value)  # metadata: version 1, an empty dictionary
    assert got == v.Primitive("decimal16", Decimal("123456789012345678901234567890123456.78"))
    assert v.encode_value(got, {}) == value


def test_an_array_of_integers_true_and_null_has_the_spec_bytes() -> None:
    """Derived by hand: array header 0x03 (basic type 3, 1-byte offsets), 5 elements, offsets
    0 3 8 17 18 19; int16 300 (type 4: 0x10, 2c 01), int32 70000 (type 5: 0x14, 70 11 01 00),
    int64 2**40 (type 6: 0x18, eight little-endian bytes), true (type 1: 0x04), null (type 0: 0x00)."""
    value = ("03" "05" "000308111213" "102c01" "1470110100" "18" "0000000000010000" "04" "00")
    metadata, encoded = v.encode(v.from_python([300, 70000, 2**40, True, None]))
    assert encoded.hex() == value
    assert v.decode(metadata, bytes.fromhex(value)) == v.from_python([300, 70000, 2**40, True, None])


# An object's field ids (and offsets) must be "listed in the order of the corresponding field
# names, sorted lexicographically (using unsigned byte ordering for UTF-8)" (VariantEncoding.md,
# Object field ID order and uniqueness); its values may be in any order.
SORTED_AB = "11" "02" "00" "01" "02" "61" "62"     # ["a", "b"], sorted_strings set
UNSORTED_BA = "01" "02" "00" "01" "02" "62" "61"   # ["b", "a"], sorted_strings clear (no promise)


@pytest.mark.parametrize("meta, value, problem", [
    # header 0x02 (object, 1-byte ids and offsets), 2 fields, ids 0 1 ("a", "b"), offsets 0 2 4,
    # int8 1 (0c 01) and int8 2 (0c 02)
    (SORTED_AB, "02" "02" "0001" "000204" "0c01" "0c02", None),
    # values in the other order, ids still "a", "b": offsets 2 0 4 -- allowed
    (SORTED_AB, "02" "02" "0001" "020004" "0c02" "0c01", None),
    # ids 1 0: "b" listed before "a"
    (SORTED_AB, "02" "02" "0100" "020004" "0c01" "0c02", "lists field 'b' (id 1) before 'a' (id 0)"),
    # over ["b", "a"] increasing ids 0 1 name "b" then "a" (what DuckDB 1.5.5 writes): the order is
    # of the names, not of the ids
    (UNSORTED_BA, "02" "02" "0001" "000204" "0c01" "0c02", "lists field 'b' (id 0) before 'a' (id 1)"),
    (UNSORTED_BA, "02" "02" "0100" "020004" "0c01" "0c02", None),
    # an array (03, 1 element, offsets 0 11) holding the misordered object: nested objects count
    (SORTED_AB, "03" "01" "000b" "02" "02" "0100" "020004" "0c01" "0c02", "'b' (id 1) before 'a' (id 0)"),
])
def test_field_ids_follow_the_order_of_their_names(meta: str, value: str, problem: str | None) -> None:
    found: list[str] = []
    keys, _ = v.decode_metadata(bytes.fromhex(meta))
    got, _end = v.decode_value(keys, bytes.fromhex(value), misordered=found)
    assert got  # the value decodes either way: no lookup relies on the order
    assert found == [] if problem is None else problem in found[0]


def test_the_encoder_lists_field_ids_in_the_order_of_the_names() -> None:
    # the spec's example {"c": 3, "b": 2, "a": 1}: "The field_id list must be [<id for key "a">,
    # <id for key "b">, <id for key "c">]" -- ids 0 1 2 of the sorted dictionary, offsets 0 2 4 6
    metadata, value = v.encode(v.from_python({"c": 3, "b": 2, "a": 1}))
    assert metadata.hex() == "11" "03" "00010203" "616263"
    assert value.hex() == "02" "03" "000102" "00020406" "0c01" "0c02" "0c03"
    assert v.field_order_problem(metadata + value) is None
    descending = v.encode_value(v.from_python({"c": 3, "b": 2, "a": 1}), {"a": 0, "b": 1, "c": 2}, descending=True)
    assert descending.hex() == "02" "03" "020100" "00020406" "0c03" "0c02" "0c01"
    assert "'c' (id 2) before 'b' (id 1)" in (v.field_order_problem(metadata + descending) or "")


def test_the_checker_reports_misordered_field_ids_once_per_column() -> None:
    import pyarrow as pa

    meta = bytes.fromhex(SORTED_AB)
    good, bad = bytes.fromhex("02" "02" "0001" "000204" "0c01" "0c02"), bytes.fromhex("02" "02" "0100" "020004" "0c01" "0c02")
    s = VariantStats()
    for values in ([good, good], [good, bad]):  # the second chunk's second row: row 3 of the column
        accumulate_variant(s, pa.StructArray.from_arrays([pa.array([meta] * 2, pa.binary()),
                                                          pa.array(values, pa.binary())], ["metadata", "value"]))
    assert s.undecodable is None and s.unsorted is None
    assert s.misordered is not None and s.misordered[0] == 3 and "'b' (id 1) before 'a' (id 0)" in s.misordered[1]
    # a shredded field's value is read too: row {"o": {"a": 1, "b": 2}}, "o" a shredded field
    # whose value holds the object (dictionary ["a", "b", "o"])
    shredded = pa.struct([pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary()),
                          pa.field("typed_value", pa.struct([pa.field("o", pa.struct([pa.field("value", pa.binary())]),
                                                                      nullable=False)]))])
    meta3 = v.encode_metadata(["a", "b", "o"])
    for value, misordered in ((good, None), (bad, 0)):
        s = VariantStats()
        accumulate_variant(s, pa.array([{"metadata": meta3, "value": None, "typed_value": {"o": {"value": value}}}],
                                       shredded))
        assert s.undecodable is None and (s.misordered and s.misordered[0]) == misordered


def test_a_variant_bound_whose_object_lists_fields_out_of_order_is_reported() -> None:
    keys = ["$['a']", "$['b']"]
    meta = bytes([0x11, 2, 0, 6, 12]) + "".join(keys).encode()  # sorted, bit set
    # field ids 1 0: "$['b']" listed before "$['a']"
    bound = meta + bytes.fromhex("02" "02" "0100" "020004" "0c01" "0c02")
    assert v.bounds_from_bytes(bound) == {"$['a']": v.Primitive("int8", 1), "$['b']": v.Primitive("int8", 2)}
    assert _bound_findings(bound) == [("parquet.variant-object-field-order", "entries[0].lower_bounds[2]"),
                                      ("parquet.variant-object-field-order", "entries[0].upper_bounds[2]")]
    assert _bound_findings(v.bounds_to_bytes({"$['b']": v.Primitive("int8", 2), "$['a']": v.Primitive("int8", 1)})) == []


def test_the_kit_reports_the_field_order_duckdb_writes(tmp_path: Path) -> None:
    """DuckDB's Parquet Variant writer lists an object's field ids in the order it meets the keys
    (record duckdb-variant-object-field-order; 1.5.5 has it): the checker reports the file it
    writes (and none from a DuckDB that orders them); the values still decode. A scalar row beside
    the object keeps DuckDB from shredding the object, so it is encoded in value."""
    col, version, s = _duckdb_column(
        tmp_path, """SELECT * FROM (VALUES ('{"b":1,"a":2}'::JSON::VARIANT), ('1'::JSON::VARIANT)) t(v)""")
    row = col.chunks[0][0].as_py()
    assert row["value"] is not None and row["value"][0] & 0x3 == 2, f"duckdb {version} shredded the object: {row}"
    keys = v.decode_metadata(row["metadata"])[0]
    count = row["value"][1]  # 1-byte num_elements, then 1-byte field ids (header 0x02)
    names = [keys[i] for i in row["value"][2:2 + count]]
    broken = names != sorted(names, key=lambda k: k.encode("utf-8"))
    assert broken or version != "1.5.5", f"duckdb {version} wrote {row['value'].hex()}: update the record"
    assert (s.misordered is not None and s.misordered[0] == 0) == broken, f"duckdb {version}: {row['value'].hex()}"
    got = [x for chunk in col.chunks for x in v.unshred(chunk)]
    assert got[0] == {"a": v.Primitive("int64", 2), "b": v.Primitive("int64", 1)}
