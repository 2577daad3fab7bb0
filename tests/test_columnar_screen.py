"""The checker's columnar screen (``checker/units/columnar.py``) against the record reader.

The screen may only certify a manifest the record reader finds nothing wrong with in its entries;
when it certifies one, the findings and the live digest must be the record reader's. Held to that
on the reference writer's tables, on every damaged copy the damage cases write of them, and on
manifests with generated single- and multi-field damage to their entries; and each entry rule is
shown to make the screen decline (so no rule passes through it unseen).
"""

from __future__ import annotations

import json
import struct
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from iceberg_conformance.checker.units import columnar
from iceberg_conformance.checker.units.manifest import screen_agreement
from iceberg_conformance.checker.plan import live_digest
from iceberg_conformance.reference.binary import to_bytes
from iceberg_conformance.reference.manifests import ManifestContext, manifest_bytes, read_manifest
from iceberg_conformance.reference.types import parse_type
from iceberg_conformance.reference.writer import write_table

pytest.importorskip("polars", reason="the columnar screen decodes with Polars (a dependency of the kit)")


@pytest.mark.parametrize("version", [1, 2, 3])
def test_screen_certifies_and_agrees_on_reference_tables(tmp_path: Path, version: int) -> None:
    got = screen_agreement(write_table(str(tmp_path / "t"), version))
    assert got.differ == [] and got.declined == []
    assert got.manifests > 0 and got.certified == got.manifests


def test_screen_certifies_a_named_type_used_twice(tmp_path: Path) -> None:
    """A partition struct with two fields of one fixed type: the manifest's Avro schema defines
    ``fixed_4`` at the first field and names it at the second (Iceberg Java does the same with a
    decimal partition field and the void field it leaves behind in v1). Polars does not resolve a
    reference by name; the screen reads a copy that defines the type at each use."""
    from iceberg_conformance.reference.writer import TableBuilder

    t = TableBuilder(str(tmp_path / "t"), 2, [{"id": 1, "name": "id", "required": True, "type": "int"},
                                              {"id": 2, "name": "v", "required": False, "type": "fixed[4]"}],
                     [[{"source-id": 2, "field-id": 1000, "name": "a", "transform": "identity"},
                       {"source-id": 2, "field-id": 1001, "name": "b", "transform": "void"}]])
    t.append([{"id": 1, "v": "01020304"}, {"id": 2, "v": None}])
    got = screen_agreement(t.metadata_path())
    assert got.differ == [] and got.declined == []
    assert got.manifests == 1 and got.certified == 1


def test_screen_agrees_on_every_damaged_copy(tmp_path: Path) -> None:
    """Every damage case the checker has, on the v2 and v3 reference tables: wherever the screen
    certifies a damaged manifest, its findings and digest are the record reader's (a damage it let
    through would show as a difference: the record reader reports it)."""
    from iceberg_conformance.checker.damage import write_damaged

    copies = certified = declined = 0
    for version in (2, 3):
        table = write_table(str(tmp_path / f"t{version}"), version)
        _pristine, written, _skipped = write_damaged(table, str(tmp_path / f"d{version}"))
        for copy in written:
            got = screen_agreement(copy.metadata)
            assert got.differ == [], f"{copy.rule} ({copy.where}):\n" + "\n".join(got.differ)
            copies += 1
            certified += got.certified
            declined += got.manifests - got.certified
    assert copies >= 80 and certified > 0 and declined > 0, (copies, certified, declined)


# --- generated manifests -----------------------------------------------------------------------------

SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "l", "required": True, "type": "long"},
    {"id": 2, "name": "i", "required": False, "type": "int"},
    {"id": 3, "name": "d", "required": False, "type": "double"},
    {"id": 4, "name": "f", "required": False, "type": "float"},
    {"id": 5, "name": "s", "required": False, "type": "string"},
    {"id": 6, "name": "dec", "required": False, "type": "decimal(9,2)"},
    {"id": 7, "name": "u", "required": False, "type": "uuid"},
    {"id": 8, "name": "dt", "required": False, "type": "date"}]}
SPEC = [{"source-id": 2, "field-id": 1000, "name": "i", "transform": "identity"},
        {"source-id": 5, "field-id": 1001, "name": "s", "transform": "identity"}]
TYPES = {int(f["id"]): parse_type(f["type"]) for f in SCHEMA["fields"]}
SEQ, SNAPSHOT = 7, 70


def _bounds(n: int) -> tuple[dict[str, str], dict[str, str]]:
    values = {1: (n, n + 9), 2: (-n, n), 3: (-1.5 * n, 2.5), 4: (-0.0, 0.0), 5: (f"a{n}", f"b{n}\u00e9"),
              6: (Decimal("-1.25"), Decimal(f"{n}.00")), 7: (uuid.UUID(int=n), uuid.UUID(int=n + 1)), 8: (n, n + 3)}
    lo = {str(k): to_bytes(TYPES[k], v[0]).hex() for k, v in values.items()}
    hi = {str(k): to_bytes(TYPES[k], v[1]).hex() for k, v in values.items()}
    return lo, hi


def _entry(n: int, version: int) -> dict[str, Any]:
    lo, hi = _bounds(n)
    df: dict[str, Any] = {
        "content": 0, "file_path": f"/t/data/{n}.parquet", "file_format": "PARQUET",
        "partition": {"1000": n % 3 if n % 4 else None, "1001": f"p{n % 2}"}, "record_count": 10 + n,
        "file_size_in_bytes": 100 + n, "column_sizes": {"1": 8}, "value_counts": {"1": 10 + n},
        "null_value_counts": {"1": 0}, "nan_value_counts": {"3": 0}, "lower_bounds": lo, "upper_bounds": hi,
        "key_metadata": None, "split_offsets": [4, 40 + n], "equality_ids": None, "sort_order_id": 0}
    if version >= 2:
        df["referenced_data_file"] = None
    if version >= 3:
        df.update({"first_row_id": None, "content_offset": None, "content_size_in_bytes": None})
    e: dict[str, Any] = {"status": 1, "snapshot_id": None if version >= 2 else SNAPSHOT, "data_file": df}
    if version >= 2:
        e.update({"sequence_number": None, "file_sequence_number": None})
    return e


def _list_record(entries: list[dict[str, Any]], version: int) -> dict[str, Any]:
    """The manifest-list record a writer would write for ``entries`` (the pristine ones)."""
    rows = {s: [e["data_file"]["record_count"] for e in entries if e["status"] == s] for s in (0, 1, 2)}
    return {"manifest_path": "m.avro", "manifest_length": 1, "partition_spec_id": 0, "content": 0,
            "sequence_number": SEQ if version >= 2 else None, "min_sequence_number": SEQ if version >= 2 else None,
            "added_snapshot_id": SNAPSHOT, "added_files_count": len(rows[1]), "existing_files_count": len(rows[0]),
            "deleted_files_count": len(rows[2]), "added_rows_count": sum(rows[1]),
            "existing_rows_count": sum(rows[0]), "deleted_rows_count": sum(rows[2]),
            "partitions": [{"contains_null": True, "contains_nan": False, "lower_bound": "00000000",
                            "upper_bound": "02000000"},
                           {"contains_null": False, "contains_nan": False, "lower_bound": b"p0".hex(),
                            "upper_bound": b"p1".hex()}], "key_metadata": None}


def _write(path: Path, entries: list[dict[str, Any]], version: int) -> None:
    header = {"schema": json.dumps(SCHEMA), "schema-id": "0", "partition-spec": json.dumps(SPEC),
              "partition-spec-id": "0", "format-version": str(version)}
    if version >= 2:
        header["content"] = "data"
    path.write_bytes(manifest_bytes({"format_version": version, "metadata": header, "entries": entries},
                                    codec="deflate", block_bytes=2048))


def _both(path: Path, version: int, record: dict[str, Any]) -> tuple[columnar.Screened | None, list[str], Any]:
    """(the screen's verdict, the record reader's findings, its live digest)."""
    ctx = ManifestContext(version, SCHEMA, {"spec-id": 0, "fields": SPEC}, record, (0,))
    screened = columnar.screen_manifest(str(path), version, [ctx])
    entries, found = read_manifest(str(path), version, ctx, lean=True)
    return screened, [str(f) for f in found], live_digest(entries)


def _why_declined(path: Path, version: int, record: dict[str, Any]) -> object:
    """What the screen says of a manifest it declines (for a failure message)."""
    ctx = ManifestContext(version, SCHEMA, {"spec-id": 0, "fields": SPEC}, record, (0,))
    return columnar.screen(str(path), version, [ctx])


def _assert_agrees(path: Path, version: int, record: dict[str, Any]) -> columnar.Screened | None:
    screened, found, digest = _both(path, version, record)
    if screened is not None:
        assert [str(f) for f in screened.findings[0]] == found
        assert columnar.live_digest_columns(screened.frame) == digest
    return screened


#: one damage per entry rule of read_manifest (and its manifest-list record), as
#: (rule, versions, change to the decoded entry)
def _set(*path_value: Any) -> Any:
    def change(e: dict[str, Any]) -> None:
        for path, value in zip(path_value[::2], path_value[1::2]):
            target = e
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
    return change


def _swap(column: str) -> Any:
    def change(e: dict[str, Any]) -> None:
        df = e["data_file"]
        df["lower_bounds"][column], df["upper_bounds"][column] = df["upper_bounds"][column], df["lower_bounds"][column]
    return change


DF = "data_file"
RULE_DAMAGE: list[tuple[str, tuple[int, ...], Any]] = [
    ("manifests.status", (1, 2, 3), _set(("status",), 3)),
    ("manifests.sequence-number-explicit", (2, 3), _set(("status",), 0)),
    ("manifests.content", (2, 3), _set((DF, "content"), 3)),
    ("manifests.content-mismatch", (2, 3), _set((DF, "content"), 1)),
    ("manifests.content-version", (2,), _set((DF, "content"), 1, (DF, "file_format"), "PUFFIN")),
    ("manifests.negative", (1, 2, 3), _set((DF, "record_count"), -1)),
    ("manifests.negative", (1, 2, 3), _set((DF, "file_size_in_bytes"), -5)),
    ("manifests.equality-ids", (2, 3), _set((DF, "content"), 2, (DF, "equality_ids"), [])),
    ("manifests.sort-order-id", (1, 2, 3), _set((DF, "sort_order_id"), 9)),
    ("manifests.first-row-id-added", (3,), _set((DF, "first_row_id"), 5)),
    ("manifests.split-offsets-sorted", (1, 2, 3), _set((DF, "split_offsets"), [40, 4])),
    ("manifests.content-size", (3,), _set((DF, "content_offset"), 4)),
    ("manifests.dv-fields", (3,), _set((DF, "content"), 1, (DF, "file_format"), "puffin")),
    ("manifests.bounds-order", (1, 2, 3), _swap("1")),
    ("manifests.bounds-order", (1, 2, 3), _swap("2")),
    ("manifests.bounds-order", (1, 2, 3), _swap("3")),
    ("manifests.bounds-order", (1, 2, 3), _swap("5")),
    ("manifests.bounds-order", (1, 2, 3), _swap("6")),
    ("manifests.bounds-order", (1, 2, 3), _swap("7")),
    ("manifests.bounds-order", (1, 2, 3), _swap("8")),
    ("manifests.bound-nan", (1, 2, 3), _set((DF, "upper_bounds", "3"), struct.pack("<d", float("nan")).hex())),
    ("manifests.bound-nan", (1, 2, 3), _set((DF, "lower_bounds", "4"), struct.pack("<f", float("nan")).hex())),
    ("manifests.bound-decode", (1, 2, 3), _set((DF, "lower_bounds", "5"), "61ff62")),
    ("manifests.bound-decode", (1, 2, 3), _set((DF, "lower_bounds", "5"), "eda080")),
    ("manifests.bound-decode", (1, 2, 3), _set((DF, "upper_bounds", "7"), "00")),
    ("manifests.bound-decode", (1, 2, 3), _set((DF, "upper_bounds", "2"), "0102")),
    ("manifests.bound-decimal-minimal", (1, 2, 3), _set((DF, "upper_bounds", "6"), "0000007d")),
    ("manifests.entry-snapshot-id", (2, 3), _set(("snapshot_id",), SNAPSHOT + 1)),
    ("manifests.entry-file-sequence-number", (2, 3), _set(("file_sequence_number",), SEQ - 1)),
    ("manifests.entry-sequence-number", (2, 3), _set(("sequence_number",), SEQ + 1)),
    ("manifests.list-counts", (1, 2, 3), _set(("status",), 2)),
    ("manifests.list-min-sequence-number", (2, 3),
     _set(("status",), 0, ("sequence_number",), SEQ - 3, ("file_sequence_number",), SEQ - 3)),
    ("manifests.partition-summary", (1, 2, 3), _set((DF, "partition", "1000"), 7)),
    ("manifests.partition-summary", (1, 2, 3), _set((DF, "partition", "1001"), "a")),
]


@pytest.mark.parametrize(("rule", "version", "change"),
                         [(r, v, c) for r, vs, c in RULE_DAMAGE for v in vs],
                         ids=[f"{r}-v{v}-{i}" for i, (r, vs, _c) in enumerate(RULE_DAMAGE) for v in vs])
def test_each_entry_rule_makes_the_screen_decline(tmp_path: Path, rule: str, version: int, change: Any) -> None:
    entries = [_entry(n, version) for n in range(1, 40)]
    record = _list_record(entries, version)
    path = tmp_path / "m.avro"
    _write(path, entries, version)
    assert _assert_agrees(path, version, record) is not None, _why_declined(path, version, record)
    change(entries[17])
    _write(path, entries, version)
    screened, found, _digest = _both(path, version, record)
    assert any(f"[{rule}]" in f or f.startswith(rule) or rule in f for f in found), \
        f"the damage does not trigger {rule}: {found}"
    assert screened is None, f"the screen certified a manifest the record reader reports: {found}"


def _numbers(fmt: str) -> Any:
    values = st.floats(width=32 if fmt == "<f" else 64) if fmt in ("<f", "<d") else \
        st.integers(-(2 ** 31), 2 ** 31 - 1) if fmt == "<i" else st.integers(-(2 ** 63), 2 ** 63 - 1)
    return values.map(lambda v: struct.pack(fmt, v).hex())


BOUND = st.one_of(st.binary(max_size=17).map(bytes.hex), _numbers("<q"), _numbers("<i"), _numbers("<d"),
                  _numbers("<f"), st.text(max_size=4).map(lambda t: t.encode("utf-8", "surrogatepass").hex()),
                  st.sampled_from(["eda080", "c0af", "61ff", "0000007d", "ff"]))
#: each entry field the rules read, with values its Avro type can hold (right and wrong ones)
FIELDS: dict[tuple[str, ...], Any] = {
    ("status",): st.integers(-1, 3),
    ("snapshot_id",): st.one_of(st.none(), st.sampled_from([SNAPSHOT, SNAPSHOT + 1, 0])),
    ("sequence_number",): st.one_of(st.none(), st.integers(SEQ - 2, SEQ + 2)),
    ("file_sequence_number",): st.one_of(st.none(), st.integers(SEQ - 2, SEQ + 2)),
    (DF, "content"): st.integers(-1, 3),
    (DF, "file_format"): st.sampled_from(["PARQUET", "puffin", "PUFFIN", "avro", ""]),
    (DF, "record_count"): st.integers(-2, 50),
    (DF, "file_size_in_bytes"): st.integers(-2, 50),
    (DF, "split_offsets"): st.one_of(st.none(), st.lists(st.integers(0, 60), max_size=3)),
    (DF, "equality_ids"): st.one_of(st.none(), st.lists(st.integers(1, 8), max_size=2)),
    (DF, "sort_order_id"): st.one_of(st.none(), st.integers(-1, 2)),
    (DF, "partition", "1000"): st.one_of(st.none(), st.integers(-2, 5)),
    (DF, "partition", "1001"): st.one_of(st.none(), st.sampled_from(["p0", "p1", "a", "z", "\u00e9", ""])),
    (DF, "referenced_data_file"): st.one_of(st.none(), st.just("/t/data/1.parquet")),
    (DF, "first_row_id"): st.one_of(st.none(), st.integers(0, 100)),
    (DF, "content_offset"): st.one_of(st.none(), st.integers(0, 100)),
    (DF, "content_size_in_bytes"): st.one_of(st.none(), st.integers(0, 100)),
    **{(DF, w, str(k)): BOUND for w in ("lower_bounds", "upper_bounds") for k in TYPES},
}
CHANGE = st.sampled_from(sorted(FIELDS)).flatmap(lambda f: st.tuples(st.integers(0, 11), st.just(f), FIELDS[f]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(version=st.sampled_from([1, 2, 3]),
       changes=st.lists(CHANGE, max_size=4))
def test_screen_never_certifies_what_the_record_reader_reports(tmp_path: Path, version: int,
                                                               changes: list[tuple[int, tuple[str, ...], Any]]) -> None:
    entries = [_entry(n, version) for n in range(12)]
    record = _list_record(entries, version)
    for i, path, value in changes:
        target: Any = entries[i]
        for key in path[:-1]:
            target = target[key]
        if isinstance(target, dict):
            target[path[-1]] = value
    p = tmp_path / "m.avro"
    try:
        _write(p, entries, version)
    except Exception:  # noqa: BLE001 - a value the writer cannot encode: nothing to read
        event("not encodable")
        return
    event("certified" if _assert_agrees(p, version, record) is not None else "declined")


def test_row_counts_are_summed_without_wrapping(tmp_path: Path) -> None:
    """Two entries of 2**62 rows each: a manifest-list record claiming the 64-bit wrapped sum of
    the rows is wrong, and the screen must not certify it."""
    entries = [_entry(n, 2) for n in range(4)]
    for e in entries[:2]:
        e["data_file"]["record_count"] = 2 ** 62
    record = _list_record(entries, 2)
    record["added_rows_count"] = sum(e["data_file"]["record_count"] for e in entries) - 2 ** 64
    path = tmp_path / "m.avro"
    _write(path, entries, 2)
    screened, found, _digest = _both(path, 2, record)
    assert any("manifests.list-counts" in f for f in found)
    assert screened is None
