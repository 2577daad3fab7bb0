"""Hostile Variant input: the codec refuses it with its own error, in work linear in the input,
and the checker reports it as a finding for the column ("Untrusted tables: the checker never
crashes, never hangs").

The layout rules come from Parquet's VariantEncoding.md: "A ``field_offset`` represents the byte
offset (relative to the first byte of the first ``value``) where the i-th ``value`` starts", "The
last entry is the offset that is one byte past the last field (i.e. the total size of all fields
in bytes)", ``fields: <value>*``; an object's values "do not need to be in any particular order".
The shredded layout from VariantShredding.md: "Each shredded field in the ``typed_value`` group is
represented as a required group that contains optional ``value`` and ``typed_value`` fields", a
binary ``metadata``, UUID as a 16-byte fixed-length binary.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.checker.units.metrics import VariantStats, accumulate_variant
from iceberg_conformance.reference import variant as v
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.manifests import bound_columns, check_bounds
from iceberg_conformance.reference.types import NestedField, VariantType

INT8_5 = b"\x0c\x05"  # type id 3 << 2, then 5
META_EMPTY = b"\x01\x00\x00"  # version 1, no strings, offset 0
META_ROOT = b"\x11\x01\x00\x01$"  # version 1, sorted, one string "$"


def _array(children: list[bytes], offsets: list[int], size: int = 1) -> bytes:
    """An array (basic type 3) with ``size``-byte offsets, 1-byte count, then the children's bytes."""
    head = bytes([3 | (size - 1) << 2, len(offsets) - 1])
    return head + b"".join(o.to_bytes(size, "little") for o in offsets) + b"".join(children)


def _fan_out(levels: int) -> bytes:
    """Arrays of 255 elements whose offsets all point at the one nested array that follows (read
    as written, 255**levels values)."""
    val = INT8_5
    for _ in range(levels):
        val = _array([val], [0] * 255 + [len(val)], size=2)
    return val


def _nested(levels: int) -> bytes:
    """``levels`` arrays each holding the next, the innermost holding int8 5."""
    val = INT8_5
    for _ in range(levels):
        val = _array([val], [0, len(val)], size=2)
    return val


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = v.decode_value

    def counted(*a: Any, **k: Any) -> Any:
        calls[0] += 1
        return real(*a, **k)
    monkeypatch.setattr(v, "decode_value", counted)
    return calls


@pytest.mark.timeout(20)
def test_offsets_that_all_point_at_one_value_are_refused_without_reading_it_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    hostile = _fan_out(5)  # 255**5 decodes if each offset is followed
    with pytest.raises(SpecViolation, match="do not increase"):
        v.decode(META_EMPTY, hostile)
    assert calls[0] <= len(hostile)


@pytest.mark.timeout(20)
def test_object_fields_that_share_one_value_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch)
    keys = [f"k{i}" for i in range(200)]
    meta = v.encode_metadata(keys)
    inner = _fan_out(4)
    # 200 fields, ids 0..199, every offset 0: 200 names for one value
    # value_metadata 2 | 1 << 2: an object of 1-byte ids and 2-byte offsets
    obj = bytes([2 | 1 << 2, 200]) + bytes(range(200)) + b"\x00\x00" * 200 + len(inner).to_bytes(2, "little") + inner
    with pytest.raises(SpecViolation, match="do not delimit"):
        v.decode(meta, obj)
    assert calls[0] <= len(obj)


def test_values_that_overlap_or_run_past_their_field_offsets_are_refused() -> None:
    # an array of two int8 whose second offset starts inside the first value
    with pytest.raises(SpecViolation, match="needs 1 bytes"):
        v.decode(META_EMPTY, _array([INT8_5, INT8_5], [0, 1, 4]))
    # an element that runs past the next element's offset
    with pytest.raises(SpecViolation):
        v.decode(META_EMPTY, _array([INT8_5, INT8_5], [0, 3, 4]))
    # the last offset beyond the fields
    with pytest.raises(SpecViolation, match="runs past"):
        v.decode(META_EMPTY, _array([INT8_5], [0, 9]))


def test_object_values_in_another_order_than_their_ids_still_decode() -> None:
    # the spec's example: ids and offsets listed for "a", "b", "c"; the values stored c, b, a
    meta = v.encode_metadata(["a", "b", "c"])
    values = b"\x0c\x03" b"\x0c\x02" b"\x0c\x01"
    obj = bytes([2, 3, 0, 1, 2, 4, 2, 0, 6]) + values
    assert v.decode(meta, obj) == {"a": v.Primitive("int8", 1), "b": v.Primitive("int8", 2),
                                   "c": v.Primitive("int8", 3)}


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error() -> None:
    v.decode(META_EMPTY, _nested(v.MAX_DEPTH))  # as deep as allowed: reads
    with pytest.raises(SpecViolation, match="nested deeper"):
        v.decode(META_EMPTY, _nested(v.MAX_DEPTH + 1))
    with pytest.raises(SpecViolation, match="nested deeper"):
        v.decode(META_EMPTY, _nested(2000))


def _bound(value: bytes) -> bytes:
    """A serialized bound: metadata of "$" then an object {"$": value} of 2-byte offsets."""
    return META_ROOT + bytes([2 | 1 << 2, 1, 0, 0, 0]) + len(value).to_bytes(2, "little") + value


@pytest.mark.timeout(20)
@pytest.mark.parametrize("hostile", [_fan_out(4), _nested(2000)], ids=["fan-out", "deep"])
def test_a_hostile_manifest_bound_is_a_finding_for_its_column(hostile: bytes) -> None:
    columns = bound_columns({2: NestedField(2, "v", VariantType(), False)})
    good = v.bounds_to_bytes({"$": v.Primitive("int8", 5)}).hex()
    entries = [{"data_file": {"lower_bounds": {"2": _bound(hostile).hex()}, "upper_bounds": {"2": good}}},
               {"data_file": {"lower_bounds": {"2": good}, "upper_bounds": {"2": "0100"}}}]
    found = check_bounds(entries, columns, "m.avro")
    assert [(f.rule, f.location) for f in found[0]] == [("manifests.bound-decode", "entries[0].lower_bounds[2]")]
    assert "column 2" in found[0][0].message
    assert [(f.rule, f.location) for f in found[1]] == [("manifests.bound-decode", "entries[1].upper_bounds[2]")]


# --- shredded columns ---------------------------------------------------------------------------

def _column(typed_type: pa.DataType | None, typed: list[Any], value: list[bytes | None] | None = None,
            metadata: pa.Array | None = None) -> pa.StructArray:
    n = len(typed)
    meta = metadata if metadata is not None else pa.array([META_EMPTY] * n, pa.binary())
    arrays = [meta, pa.array(value or [None] * n, pa.binary())]
    names = ["metadata", "value"]
    if typed_type is not None:
        arrays.append(pa.array(typed, typed_type))
        names.append("typed_value")
    return pa.StructArray.from_arrays(arrays, names)


MALFORMED = {
    "uuid of 4 bytes": _column(pa.binary(4), [b"\x00\x01\x02\x03"]),
    "field not a group": _column(pa.struct([pa.field("a", pa.int32())]), [{"a": 1}]),
    "element not a group": _column(pa.list_(pa.int32()), [[1, 2]]),
    "metadata not binary": _column(None, [None], [INT8_5], pa.array(["\x01\x00\x00"], pa.string())),
    "trailing bytes after value": _column(None, [None], [INT8_5 + b"\x00"]),
    "trailing bytes after a field's value": _column(
        pa.struct([pa.field("a", pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", pa.int8())]))]),
        [{"a": {"value": INT8_5 + b"\x00", "typed_value": None}}]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_shredded_columns_raise_the_codec_error(name: str) -> None:
    with pytest.raises(SpecViolation):
        v.unshred(MALFORMED[name])
    stats = VariantStats()
    accumulate_variant(stats, MALFORMED[name])
    assert stats.undecodable


def test_a_malformed_shredded_column_is_unreadable_for_that_column_only(tmp_path: Path) -> None:
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.damage.overlay import Overlay
    from iceberg_conformance.suites.golden.small_tables import write_variant_table

    o = Overlay(write_variant_table(tmp_path / "src"))
    (mpath, _i, entry), = [e for e in o.entries() if e[2]["data_file"].get("content", 0) == 0]
    df = entry["data_file"]
    table = pq.read_table(str(df["file_path"]).removeprefix("file://"))
    i = table.schema.get_field_index("v")
    f = table.schema.field(i)
    n = table.num_rows
    bad = pa.StructArray.from_arrays(
        [pa.array([META_EMPTY] * n, pa.binary()), pa.array([None] * n, pa.binary()),
         pa.array([{"a": 1}] * n, pa.struct([pa.field("a", pa.int32())]))], ["metadata", "value", "typed_value"])
    table = table.set_column(i, pa.field("v", bad.type, metadata=f.metadata), bad)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    o.copy_file(str(df["file_path"]), buf.getvalue())
    # a second problem in the same file's entry: the lower bound of id (column 1) above its values
    for item in df["lower_bounds"]:
        if item["key"] == 1:
            item["value"] = (1 << 40).to_bytes(8, "little")
    o.touch_manifest(mpath)
    found = check_table(o.write(str(tmp_path / "damaged"))).findings
    rules = {(f.rule, f.location.rsplit(" ", 1)[-1] if f.rule == "data.unreadable" else "") for f in found}
    assert ("data.unreadable", "2") in rules
    assert not [f for f in found if f.rule == "checker.internal-error"]
    assert [f for f in found if f.rule == "data.lower-bound" and f.location.endswith("lower_bounds/1")]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("hostile", [_fan_out(4), _nested(2000)], ids=["fan-out", "deep"])
def test_a_table_with_a_hostile_variant_bound_keeps_the_manifest_findings(tmp_path: Path, hostile: bytes) -> None:
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.damage.overlay import Overlay
    from iceberg_conformance.suites.golden.small_tables import write_variant_table

    o = Overlay(write_variant_table(tmp_path / "src"))
    (mpath, _i, entry), = [e for e in o.entries() if e[2]["data_file"].get("content", 0) == 0]
    for item in entry["data_file"]["upper_bounds"]:
        if item["key"] == 2:
            item["value"] = _bound(hostile)
    for item in entry["data_file"]["lower_bounds"]:
        if item["key"] == 1:
            item["value"] = (1 << 40).to_bytes(8, "little")
    o.touch_manifest(mpath)
    found = check_table(o.write(str(tmp_path / "damaged"))).findings
    assert not [f for f in found if f.rule == "checker.internal-error"]
    decode = [f for f in found if f.rule == "manifests.bound-decode"]
    assert [f.location for f in decode] == ["entries[0].upper_bounds[2]"] and "column 2" in decode[0].message
    assert [f for f in found if f.rule == "manifests.bounds-order" and "column 1" in f.message]
