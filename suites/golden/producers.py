"""Golden tables written by producers other than Spark: PyIceberg's writer and the kit's
reference writer (:class:`reference.writer.TableBuilder`).

Same contract as :mod:`suites.golden.registry`: a generator registered with
``@golden_table(..., producer=...)`` writes its table through the writer it is given, keeps its
own model of the rows (declared in the spec's JSON single-value form) and calls
``w.expect(label, rows)`` after each commit. ``expected/<name>.json`` then carries a
``"producer"`` key ("pyiceberg-<version>" or "reference").

The reference writer writes what Spark 3.5 cannot: ``timestamp_ns``/``timestamptz_ns``,
``unknown``, ``initial-default``/``write-default``, equality deletes (partition-scoped and
global, with the sequence-number rule), v3 row lineage and several DVs in one Puffin file.
PyIceberg 0.12 writes v1 and v2 only ("Writing V3 is not yet supported").
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.golden.registry import Expectation, GoldenTable, Row, golden_table

NAMESPACE = "db"


class _Writer:
    def __init__(self, spec: GoldenTable, warehouse: Path) -> None:
        self.spec = spec
        self.warehouse = warehouse
        self.expectations: list[Expectation] = []

    def table_dir(self) -> Path:
        return self.warehouse / NAMESPACE / self.spec.name

    def _expect(self, label: str, snapshot_id: int, rows: list[Row]) -> None:
        self.expectations.append(Expectation(label, "main", snapshot_id, [dict(r) for r in rows]))


# --- the reference writer ------------------------------------------------------------------

class ReferenceWriter(_Writer):
    """Gives a generator a :class:`reference.writer.TableBuilder` at the table's directory."""

    producer = "reference"

    def create(self, fields: list[dict[str, Any]], specs: list[list[dict[str, Any]]] | None = None,
               version: int | None = None, bounds: bool = False, **options: Any) -> Any:
        """``version``: the format version to start at (the table's by default; a v2 table the
        generator upgrades later); ``bounds``: write column bounds; ``options``: the other
        keyword arguments of ``TableBuilder`` (row group size, optional metadata left out)."""
        from iceberg_conformance.reference.writer import TableBuilder

        self.table = TableBuilder(str(self.table_dir()), version or self.spec.format_version, fields, specs,
                                  bounds=bounds, **options)
        return self.table

    def expect(self, label: str, rows: list[Row],
               lineage: dict[int, tuple[int | None, int | None]] | None = None) -> None:
        """``lineage``: id -> (_row_id, _last_updated_sequence_number) of every row the snapshot holds."""
        self._expect(label, self.table.snapshots[-1]["snapshot-id"], rows)
        if lineage is not None:
            self.expectations[-1].lineage = [{"id": i, "_row_id": rid, "_last_updated_sequence_number": seq}
                                             for i, (rid, seq) in sorted(lineage.items())]

    def metadata_file(self) -> Path:
        return Path(self.table.metadata_path())


def _f(fid: int, name: str, type_: str, required: bool = False, **extra: Any) -> dict[str, Any]:
    return {"id": fid, "name": name, "required": required, "type": type_, **extra}


@golden_table(name="ref_v3_timestamp_ns", format_version=3, producer="reference",
              features=("v3", "timestamp_ns", "timestamptz_ns", "day", "pre-1970", "row-lineage"),
              description="v3 table (reference writer) with timestamp_ns and timestamptz_ns columns, "
                          "partitioned by day of the nanosecond timestamp, values before 1970 and at int64 extremes")
def ref_v3_timestamp_ns(w: ReferenceWriter) -> None:
    t = w.create([_f(1, "id", "long", True), _f(2, "ts", "timestamp_ns"), _f(3, "tstz", "timestamptz_ns")],
                 [[{"source-id": 2, "field-id": 1000, "name": "ts_day", "transform": "day"}]])
    rows: list[Row] = [
        {"id": 1, "ts": "2017-11-16T22:31:08.123456789", "tstz": "2017-11-16T22:31:08.123456789+00:00"},
        {"id": 2, "ts": "1969-12-31T23:59:59.999999999", "tstz": "1969-12-31T23:59:59.999999999+00:00"},
        {"id": 3, "ts": "1677-09-21T00:12:43.145224192", "tstz": "2262-04-11T23:47:16.854775807+00:00"},
        {"id": 4, "ts": None, "tstz": None},
    ]
    t.append(rows[:2])
    w.expect("append 1, 2", rows[:2])
    t.append(rows[2:])
    w.expect("append 3, 4", rows)


@golden_table(name="ref_v3_unknown", format_version=3, producer="reference", features=("v3", "unknown"),
              description="v3 table (reference writer) with an unknown-typed column, never stored in data files")
def ref_v3_unknown(w: ReferenceWriter) -> None:
    t = w.create([_f(1, "id", "long", True), _f(2, "u", "unknown"), _f(3, "data", "string")])
    rows: list[Row] = [{"id": 1, "u": None, "data": "a"}, {"id": 2, "u": None, "data": None}]
    t.append(rows)
    w.expect("append", rows)


def _defaults(w: ReferenceWriter) -> tuple[Any, list[Row]]:
    t = w.create([_f(1, "id", "long", True), _f(2, "data", "string")])
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": None}]
    t.append(rows)
    w.expect("schema 0", rows)
    # "Default values": a required column may be added when it has an initial-default
    t.add_column(_f(3, "n", "int", True, **{"initial-default": 7, "write-default": 9}))
    t.add_column(_f(4, "label", "string", False, **{"initial-default": "before", "write-default": "after"}))
    rows = [dict(r, n=7, label="before") for r in rows]
    more: list[Row] = [{"id": 3, "data": "c", "n": 1, "label": None}, {"id": 4, "data": "d"}]
    t.append(more)       # id 4 takes the write-defaults, written into the file
    rows += [more[0], {"id": 4, "data": "d", "n": 9, "label": "after"}]
    w.expect("after adding n and label", rows)
    return t, rows


@golden_table(name="ref_v3_defaults", format_version=3, producer="reference",
              features=("v3", "defaults", "initial-default", "write-default", "schema-evolution", "add"),
              description="v3 table (reference writer): columns added with initial-default and write-default "
                          "after data files were written; older files read the initial default")
def ref_v3_defaults(w: ReferenceWriter) -> None:
    _defaults(w)


@golden_table(name="ref_v3_defaults_equality_delete", format_version=3, producer="reference",
              features=("v3", "defaults", "initial-default", "write-default", "schema-evolution", "add",
                        "equality-deletes"),
              description="v3 table (reference writer): an equality delete on a column added with an "
                          "initial-default matches the rows of files written before the column existed")
def ref_v3_defaults_equality_delete(w: ReferenceWriter) -> None:
    t, rows = _defaults(w)
    # "Equality Delete Files": a delete column added later is read for older data files by the
    # normal projection rules, here its initial-default: n = 7 deletes the rows of the first file
    t.equality_delete([{"n": 7}], ["n"])
    rows = [r for r in rows if r["n"] != 7]
    w.expect("equality delete n = 7 (the initial default of the older file)", rows)


def _equality_deletes(w: ReferenceWriter) -> None:
    t = w.create([_f(1, "id", "long", True), _f(2, "cat", "string", True), _f(3, "data", "string")],
                 [[{"source-id": 2, "field-id": 1000, "name": "cat", "transform": "identity"}], []])
    rows: list[Row] = [{"id": 1, "cat": "a", "data": "x"}, {"id": 2, "cat": "a", "data": "y"},
                       {"id": 3, "cat": "a", "data": "z"}, {"id": 1, "cat": "b", "data": "p"},
                       {"id": 4, "cat": "b", "data": "q"}]
    t.append(rows)
    w.expect("append", rows)
    # scoped to partition cat=a: the row id 1 of cat=b stays
    t.equality_delete([{"id": 1}], ["id"], partition_row={"cat": "a"})
    rows = [r for r in rows if (r["id"], r["cat"]) != (1, "a")]
    w.expect("delete id 1 in cat=a", rows)
    # a newer data file is not affected by an older equality delete
    again: list[Row] = [{"id": 1, "cat": "a", "data": "again"}]
    t.append(again)
    rows += again
    w.expect("append id 1 again", rows)
    # global: the delete file is in the unpartitioned spec 1
    t.equality_delete([{"data": "y"}, {"data": "q"}], ["data"], spec_id=1)
    rows = [r for r in rows if r["data"] not in ("y", "q")]
    w.expect("global delete data y, q", rows)
    # a delete applies to data files of lower sequence numbers only: not to one of the same commit
    same: list[Row] = [{"id": 3, "cat": "a", "data": "same commit"}]
    t.equality_delete([{"id": 3}], ["id"], partition_row={"cat": "a"}, also_append=same)
    rows = [r for r in rows if r["id"] != 3] + same
    w.expect("delete id 3 with an append of id 3 in the same commit", rows)


@golden_table(name="ref_v2_equality_deletes", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "partition-scoped-deletes", "global-deletes", "identity",
                        "sequence-numbers"),
              description="v2 table (reference writer): equality deletes scoped to a partition and global "
                          "(unpartitioned spec), not applied to newer or same-commit data files")
def ref_v2_equality_deletes(w: ReferenceWriter) -> None:
    _equality_deletes(w)


@golden_table(name="ref_v3_equality_deletes", format_version=3, producer="reference",
              features=("v3", "equality-deletes", "partition-scoped-deletes", "global-deletes", "identity",
                        "sequence-numbers", "row-lineage"),
              description="v3 table (reference writer): equality deletes scoped to a partition and global, "
                          "sequence-number rules, row lineage on every data commit")
def ref_v3_equality_deletes(w: ReferenceWriter) -> None:
    _equality_deletes(w)


@golden_table(name="ref_v2_equality_delete_dropped_column", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "schema-evolution", "drop", "sequence-numbers"),
              description="v2 table (reference writer): an equality delete on a column that is dropped "
                          "afterwards still deletes the rows it matched")
def ref_v2_equality_delete_dropped_column(w: ReferenceWriter) -> None:
    # Equality Delete Files: "If a delete column in an equality delete file is later dropped from
    # the table, it must still be used when applying the equality deletes."
    t = w.create([_f(1, "id", "long", True), _f(2, "cat", "string"), _f(3, "data", "string")])
    rows: list[Row] = [{"id": 1, "cat": "x", "data": "a"}, {"id": 2, "cat": "y", "data": "b"},
                       {"id": 3, "cat": "x", "data": "c"}, {"id": 4, "cat": None, "data": "d"}]
    t.append(rows)
    w.expect("append", rows)
    t.equality_delete([{"cat": "x"}], ["cat"])
    rows = [r for r in rows if r["cat"] != "x"]
    w.expect("equality delete cat = x", rows)
    later: list[Row] = [{"id": 5, "cat": "x", "data": "e"}]     # newer than the delete: kept
    t.append(later)
    rows += later
    w.expect("append cat = x after the delete", rows)
    t.drop_column("cat")
    more: list[Row] = [{"id": 6, "data": "f"}]
    t.append(more)
    rows = [{"id": r["id"], "data": r["data"]} for r in rows] + more
    w.expect("drop cat, append", rows)


def _grouped(ids: range) -> list[Row]:
    return [{"id": i, "grp": "abc"[i % 3], "data": f"d{i}"} for i in ids]


_GROUPED = [_f(1, "id", "long", True), _f(2, "grp", "string", True), _f(3, "data", "string")]
_BY_GRP = [[{"source-id": 2, "field-id": 1000, "name": "grp", "transform": "identity"}]]


@golden_table(name="ref_v3_row_lineage", format_version=3, producer="reference",
              features=("v3", "row-lineage", "row-lineage-columns", "identity", "copy-on-write", "update",
                        "existing-entries", "deleted-entries"),
              description="v3 table (reference writer): three appends of several data files (row ids inherited "
                          "from first_row_id), then a copy-on-write update that keeps _row_id and writes "
                          "_last_updated_sequence_number explicitly")
def ref_v3_row_lineage(w: ReferenceWriter) -> None:
    t = w.create(_GROUPED, _BY_GRP)
    rows: list[Row] = []
    lineage: dict[int, tuple[int | None, int | None]] = {}
    next_row_id = 0
    for seq, ids in enumerate((range(1, 7), range(7, 9), range(9, 16)), start=1):
        more = _grouped(ids)
        t.append(more)
        # "Row Lineage": a row's _row_id is its file's first_row_id plus its position; the writer
        # writes one file per grp in order of first appearance, files take ids in manifest order
        for g in dict.fromkeys(r["grp"] for r in more):
            for r in more:
                if r["grp"] == g:
                    lineage[r["id"]] = (next_row_id, seq)
                    next_row_id += 1
        rows += more
        w.expect(f"append {ids.start}..{ids.stop - 1}", rows, lineage)
    # update id 3 in the first append's grp=a file (ids 3, 6): id 3 keeps its _row_id and takes
    # this commit's sequence number (null written); id 6 is copied with both values
    old = next(p for p, df in t.data_files.items() if df["partition"]["1000"] == "a")
    moved = [dict(r, data=r["data"] + "-updated") if r["id"] == 3 else r for r in _grouped(range(1, 7))
             if r["grp"] == "a"]
    t.rewrite(old, moved, [(lineage[r["id"]][0], None if r["id"] == 3 else lineage[r["id"]][1]) for r in moved])
    lineage[3] = (lineage[3][0], 4)
    rows = [next(m for m in moved if m["id"] == 3) if r["id"] == 3 else r for r in rows]
    w.expect("update id 3 (copy-on-write, row ids kept)", rows, lineage)


@golden_table(name="ref_v3_upgraded_row_lineage", format_version=3, producer="reference",
              features=("v2", "v3", "upgrade", "row-lineage", "row-lineage-columns", "identity"),
              description="v2 table (reference writer) upgraded to v3: the snapshot from before the upgrade reads "
                          "null row lineage (its files have no first_row_id); the first v3 append assigns row ids "
                          "to the new and the older data files")
def ref_v3_upgraded_row_lineage(w: ReferenceWriter) -> None:
    t = w.create(_GROUPED, _BY_GRP, version=2)
    rows = _grouped(range(1, 5))
    t.append(rows)
    # "Row Lineage for Upgraded Tables": snapshots from before the upgrade keep no first-row-id, so
    # their data files have a null first_row_id, and readers produce null for _row_id and
    # _last_updated_sequence_number (Appendix E, Version 3)
    w.expect("append 1..4 (v2)", rows, {r["id"]: (None, None) for r in rows})
    t.upgrade()  # next-row-id 0, a metadata version of its own
    more = _grouped(range(5, 7))
    t.append(more)
    # the v3 append assigns first_row_id to every data manifest in list order: its own manifest
    # first (first_row_id 0), then the v2 manifest (first_row_id 2); files take ids in manifest
    # order, one file per grp in order of first appearance; rows without a stored value inherit
    # their file's data sequence number (1 for the v2 files, 2 for the new ones)
    lineage: dict[int, tuple[int | None, int | None]] = {}
    next_row_id = 0
    for batch, seq in ((more, 2), (rows, 1)):
        for g in dict.fromkeys(r["grp"] for r in batch):
            for r in batch:
                if r["grp"] == g:
                    lineage[r["id"]] = (next_row_id, seq)
                    next_row_id += 1
    w.expect("append 5..6 (v3, after the upgrade)", rows + more, lineage)


@golden_table(name="ref_v3_multi_dv", format_version=3, producer="reference",
              features=("v3", "deletion-vectors", "puffin", "multi-dv-puffin", "delete", "merge-on-read",
                        "row-lineage", "identity"),
              description="v3 table (reference writer): one Puffin file holding the deletion vectors of three "
                          "data files, then an append")
def ref_v3_multi_dv(w: ReferenceWriter) -> None:
    t = w.create(_GROUPED, _BY_GRP)
    rows = _grouped(range(1, 13))
    t.append(rows)
    w.expect("append 1..12", rows)
    # each data file holds one grp, rows in the order given: positions within the file
    files = {df["partition"]["1000"]: path for path, df in t.data_files.items()}
    in_file = {g: [r for r in rows if r["grp"] == g] for g in "abc"}
    deleted = {g: [0, 2] if g != "b" else [1] for g in "abc"}
    t.deletion_vectors({files[g]: deleted[g] for g in "abc"})
    gone = {in_file[g][p]["id"] for g in "abc" for p in deleted[g]}
    rows = [r for r in rows if r["id"] not in gone]
    w.expect("delete with three DVs in one Puffin file", rows)
    more = _grouped(range(13, 16))
    t.append(more)
    rows += more
    w.expect("append 13..15", rows)


# --- PyIceberg ---------------------------------------------------------------------------

class PyIcebergWriter(_Writer):
    """Gives a generator a PyIceberg table (a SQL catalog in a temporary directory, the table's
    location in the warehouse); rows are converted from JSON single-value form to Arrow."""

    def __init__(self, spec: GoldenTable, warehouse: Path) -> None:
        super().__init__(spec, warehouse)
        import pyiceberg

        self.producer = f"pyiceberg-{pyiceberg.__version__}"
        self._tmp = tempfile.TemporaryDirectory(prefix="pyiceberg-catalog-")

    def create(self, schema: Any, partition_spec: Any = None, properties: dict[str, str] | None = None) -> Any:
        from pyiceberg.catalog.sql import SqlCatalog
        from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC

        catalog = SqlCatalog("golden", uri=f"sqlite:///{self._tmp.name}/catalog.db",
                             warehouse=f"file://{self.warehouse}")
        catalog.create_namespace(NAMESPACE)
        self.table = catalog.create_table(
            f"{NAMESPACE}.{self.spec.name}", schema, location=str(self.table_dir()),
            partition_spec=partition_spec or UNPARTITIONED_PARTITION_SPEC,
            properties={"format-version": str(self.spec.format_version), **(properties or {})})
        return self.table

    def arrow(self, rows: list[Row]) -> Any:
        """``rows`` (JSON single-value form) as an Arrow table of the table's current schema."""
        import pyarrow as pa

        from iceberg_conformance.reference.types import parse_type
        from iceberg_conformance.reference.values import value_from_json

        schema = self.table.schema()
        arrow_schema = schema.as_arrow()
        cols = []
        for f, af in zip(schema.fields, arrow_schema):
            t = parse_type(str(f.field_type) if f.field_type.is_primitive else f.field_type.model_dump())
            cols.append(pa.array([value_from_json(t, r.get(f.name)) for r in rows], af.type))
        return pa.Table.from_arrays(cols, schema=arrow_schema)

    def expect(self, label: str, rows: list[Row]) -> None:
        self.table = self.table.refresh()
        self._expect(label, self.table.current_snapshot().snapshot_id, rows)

    def metadata_file(self) -> Path:
        return Path(str(self.table.metadata_location).removeprefix("file://"))

    def close(self) -> None:
        self._tmp.cleanup()


def _schema(*fields: tuple[int, str, Any, bool]) -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import NestedField

    return Schema(*[NestedField(fid, name, t, required=req) for fid, name, t, req in fields])


_PEOPLE = [{"id": i, "name": n, "score": s} for i, n, s in
           [(1, "ann", 10), (2, "bob", 20), (3, "cy", 30), (4, "dee", 40), (5, "eve", 50), (6, "fay", 60)]]


@golden_table(name="pyiceberg_v1_append", format_version=1, producer="pyiceberg",
              features=("v1", "append", "types"),
              description="v1 table (PyIceberg) with primitive columns, two appends")
def pyiceberg_v1_append(w: PyIcebergWriter) -> None:
    from pyiceberg.types import BinaryType, BooleanType, DateType, DoubleType, LongType, StringType, TimestamptzType

    w.create(_schema((1, "id", LongType(), True), (2, "b", BooleanType(), False), (3, "d", DoubleType(), False),
                     (4, "dt", DateType(), False), (5, "tstz", TimestamptzType(), False),
                     (6, "s", StringType(), False), (7, "bin", BinaryType(), False)))
    first: list[Row] = [
        {"id": 1, "b": True, "d": 3.25, "dt": "2017-11-16", "tstz": "2017-11-16T22:31:08.123456+00:00",
         "s": "iceberg", "bin": "0001ff"},
        {"id": -9223372036854775808, "b": False, "d": -0.0, "dt": "1969-12-31",
         "tstz": "1900-01-01T00:00:00.000001+00:00", "s": "Straße 🧊", "bin": ""}]
    w.table.append(w.arrow(first))
    w.expect("first append", first)
    second: list[Row] = [{"id": 3, "b": None, "d": None, "dt": None, "tstz": None, "s": None, "bin": None}]
    w.table.append(w.arrow(second))
    w.expect("second append", first + second)


@golden_table(name="pyiceberg_v2_partitioned", format_version=2, producer="pyiceberg",
              features=("v2", "identity", "bucket", "truncate", "day", "month", "year", "pre-1970", "non-ascii",
                        "negative"),
              description="v2 table (PyIceberg) partitioned by identity, bucket, truncate, day, month and year of "
                          "negative, non-ASCII and pre-1970 values")
def pyiceberg_v2_partitioned(w: PyIcebergWriter) -> None:
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import (BucketTransform, DayTransform, IdentityTransform, MonthTransform,
                                      TruncateTransform, YearTransform)
    from pyiceberg.types import DateType, IntegerType, LongType, StringType, TimestampType, TimestamptzType

    schema = _schema((1, "id", LongType(), True), (2, "cat", StringType(), False), (3, "n", IntegerType(), False),
                     (4, "s", StringType(), False), (5, "dt", DateType(), False), (6, "ts", TimestampType(), False),
                     (7, "tstz", TimestamptzType(), False))
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "cat"),
                         PartitionField(1, 1001, BucketTransform(8), "id_bucket"),
                         PartitionField(3, 1002, TruncateTransform(10), "n_trunc"),
                         PartitionField(4, 1003, TruncateTransform(2), "s_trunc"),
                         PartitionField(5, 1004, YearTransform(), "dt_year"),
                         PartitionField(6, 1005, MonthTransform(), "ts_month"),
                         PartitionField(7, 1006, DayTransform(), "tstz_day"))
    w.create(schema, spec)
    rows: list[Row] = [
        {"id": -1, "cat": "x", "n": -1, "s": "😀😁😂", "dt": "1969-12-31", "ts": "1969-12-31T23:59:59.999999",
         "tstz": "1969-12-31T23:59:59.999999+00:00"},
        {"id": 34, "cat": "x", "n": -10, "s": "ab", "dt": "1900-01-01", "ts": "1900-01-01T00:00:00.000000",
         "tstz": "1900-03-01T01:02:03.000004+00:00"},
        {"id": 9223372036854775807, "cat": "ü", "n": 9, "s": "中文字", "dt": "2024-02-29",
         "ts": "2024-02-29T12:34:56.000001", "tstz": "2024-02-29T23:59:59.000000+00:00"},
        {"id": 0, "cat": None, "n": None, "s": None, "dt": None, "ts": None, "tstz": None},
    ]
    w.table.append(w.arrow(rows))
    w.expect("append", rows)


@golden_table(name="pyiceberg_v2_overwrite_delete", format_version=2, producer="pyiceberg",
              features=("v2", "delete", "overwrite", "copy-on-write"),
              description="v2 table (PyIceberg): append, delete by filter, overwrite by filter")
def pyiceberg_v2_overwrite_delete(w: PyIcebergWriter) -> None:
    from pyiceberg.expressions import EqualTo, In
    from pyiceberg.types import IntegerType, StringType

    w.create(_schema((1, "id", IntegerType(), True), (2, "name", StringType(), False),
                     (3, "score", IntegerType(), False)))
    rows: list[Row] = list(_PEOPLE)
    w.table.append(w.arrow(rows))
    w.expect("append", rows)
    w.table.delete(In("id", [2, 5]))
    rows = [r for r in rows if r["id"] not in (2, 5)]
    w.expect("delete ids 2 and 5", rows)
    new: list[Row] = [{"id": 3, "name": "cy", "score": 31}]
    w.table.overwrite(w.arrow(new), overwrite_filter=EqualTo("id", 3))
    rows = [r for r in rows if r["id"] != 3] + new
    w.expect("overwrite id 3", rows)


@golden_table(name="pyiceberg_v2_schema_evolution", format_version=2, producer="pyiceberg",
              features=("v2", "schema-evolution", "add", "rename", "promote"),
              description="v2 table (PyIceberg): add and rename columns, promote int to long, then append")
def pyiceberg_v2_schema_evolution(w: PyIcebergWriter) -> None:
    from pyiceberg.types import FloatType, IntegerType, LongType, StringType

    w.create(_schema((1, "id", IntegerType(), True), (2, "name", StringType(), False),
                     (3, "score", FloatType(), False)))
    rows: list[Row] = [{"id": 1, "name": "a", "score": 1.5}, {"id": 2, "name": "b", "score": -2.25}]
    w.table.append(w.arrow(rows))
    w.expect("schema 0", rows)
    with w.table.update_schema() as u:
        u.add_column("extra", StringType())
        u.rename_column("name", "label")
        u.update_column("id", LongType())
    w.table = w.table.refresh()
    rows = [{"id": r["id"], "label": r["name"], "score": r["score"], "extra": None} for r in rows]
    new: list[Row] = [{"id": 3000000000, "label": "c", "score": 0.5, "extra": "new"}]
    w.table.append(w.arrow(new))
    rows += new
    w.expect("after add/rename/promote", rows)


def _import_file(w: PyIcebergWriter, name: str, columns: dict[str, Any]) -> str:
    """A Parquet file written by pyarrow alone (no field ids), inside the table's data folder,
    as a migration or an import leaves them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = w.table_dir() / "data" / "imported"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    pq.write_table(pa.table(columns), path)
    return str(path)


@golden_table(name="pyiceberg_v2_name_mapping", format_version=2, producer="pyiceberg",
              features=("v2", "name-mapping", "schema-evolution", "rename"),
              description="v2 table (PyIceberg add_files): Parquet files without field ids, read through "
                          "schema.name-mapping.default: columns in another order, a column and a struct missing "
                          "from a file, columns renamed in the table and a file written under the new names")
def pyiceberg_v2_name_mapping(w: PyIcebergWriter) -> None:
    # Column Projection: "Use schema.name-mapping.default metadata to map field id to columns
    # without field id as described below and use the column if it is present."; a field the
    # file does not have reads as null.
    import pyarrow as pa
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, StructType

    w.create(_schema((1, "id", LongType(), False), (2, "name", StringType(), False),
                     (3, "score", DoubleType(), False),
                     (4, "loc", StructType(NestedField(5, "lat", DoubleType(), required=False),
                                           NestedField(6, "lon", DoubleType(), required=False)), False)))
    first = _import_file(w, "f1.parquet", {
        "id": pa.array([1, 2], pa.int64()), "name": ["a", "b"], "score": [1.5, -0.0],
        "loc": [{"lat": 47.5, "lon": -122.25}, None]})
    # another column order; no name, no loc
    second = _import_file(w, "f2.parquet", {"score": [3.5], "id": pa.array([3], pa.int64())})
    w.table.add_files([first, second])
    rows: list[Row] = [
        {"id": 1, "name": "a", "score": 1.5, "loc": {"lat": 47.5, "lon": -122.25}},
        {"id": 2, "name": "b", "score": -0.0, "loc": None},
        {"id": 3, "name": None, "score": 3.5, "loc": None}]
    w.expect("add_files of two files without field ids", rows)
    # renames keep the old names in the mapping: files written before read as before
    with w.table.update_schema() as u:
        u.rename_column("name", "label")
        u.rename_column("loc.lat", "latitude")
    w.table = w.table.refresh()
    third = _import_file(w, "f3.parquet", {
        "label": ["c"], "id": pa.array([4], pa.int64()), "loc": [{"latitude": -33.75, "lon": 151.0}]})
    w.table.add_files([third])
    rows = [{"id": r["id"], "label": r["name"], "score": r["score"],
             "loc": r["loc"] and {"latitude": r["loc"]["lat"], "lon": r["loc"]["lon"]}} for r in rows]
    rows.append({"id": 4, "label": "c", "score": None, "loc": {"latitude": -33.75, "lon": 151.0}})
    w.expect("rename name -> label, loc.lat -> latitude; add_files of a file under the new names", rows)


#: the writer each non-Spark producer's generators get
WRITERS: dict[str, type[_Writer]] = {"reference": ReferenceWriter, "pyiceberg": PyIcebergWriter}
