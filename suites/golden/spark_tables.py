"""The golden-table generators (see :mod:`suites.golden.registry` for the contract).

Each generator keeps a Python model of its rows and states after every commit what the new
snapshot holds. Values are chosen to hit known interoperability traps: pre-1970 dates and
timestamps, negative numbers under truncate, non-ASCII and non-BMP strings under bucket and
truncate, NaN and -0.0, decimal extremes, empty and null nested values.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.golden.registry import Row, TableWriter, golden_table

PRIMITIVES: list[tuple[str, Any]] = [
    ("id", "int"), ("b", "boolean"), ("i", "int"), ("l", "long"), ("f", "float"), ("d", "double"),
    ("dec", "decimal(9, 2)"), ("dec38", "decimal(38, 10)"), ("dt", "date"), ("ts", "timestamp"),
    ("tstz", "timestamptz"), ("s", "string"), ("bin", "binary"),
]

PRIMITIVE_ROWS: list[Row] = [
    {"id": 1, "b": True, "i": 34, "l": 34, "f": 1.5, "d": 3.25, "dec": "14.20",
     "dec38": "1234567890123456789012345678.0123456789", "dt": "2017-11-16",
     "ts": "2017-11-16T22:31:08.123456", "tstz": "2017-11-16T22:31:08.123456+00:00",
     "s": "iceberg", "bin": "0001ff"},
    {"id": 2, "b": False, "i": -2147483648, "l": -9223372036854775808, "f": -0.0, "d": "NaN",
     "dec": "-1.28", "dec38": "-0.0000000001", "dt": "1969-12-31",
     "ts": "1969-12-31T23:59:59.999999", "tstz": "1900-01-01T00:00:00.000001+00:00",
     "s": "Straße 🧊", "bin": ""},
    {"id": 3, "b": True, "i": 2147483647, "l": 9223372036854775807, "f": "Infinity", "d": "-Infinity",
     "dec": "9999999.99", "dec38": "9999999999999999999999999999.9999999999", "dt": "0001-01-01",
     "ts": "1970-01-01T00:00:00.000000", "tstz": "2262-04-11T23:47:16.854775+00:00",
     "s": "", "bin": "00"},
    {"id": 4, "b": None, "i": None, "l": None, "f": None, "d": None, "dec": None, "dec38": None,
     "dt": None, "ts": None, "tstz": None, "s": None, "bin": None},
]


@golden_table(name="v1_basic", format_version=1, features=("v1", "append", "gzip-metadata"),
              description="v1 table, unpartitioned, two appends, gzip-compressed metadata JSON")
def v1_basic(t: TableWriter) -> None:
    t.create([("id", "long"), ("data", "string")],
             properties={"write.metadata.compression-codec": "gzip"})
    first = [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]
    t.insert(first)
    t.expect("first append", first)
    second = [{"id": 3, "data": "c"}]
    t.insert(second)
    t.expect("second append", first + second)


@golden_table(name="v1_partitioned", format_version=1, features=("v1", "identity", "bucket", "day"),
              description="v1 table partitioned by identity, bucket and day, one append")
def v1_partitioned(t: TableWriter) -> None:
    t.create([("id", "long"), ("cat", "string"), ("ts", "timestamptz")],
             partitioned_by="cat, bucket(4, id), days(ts)")
    rows = [{"id": 1, "cat": "x", "ts": "2017-11-16T22:31:08.000000+00:00"},
            {"id": -7, "cat": "x", "ts": "1969-12-31T23:00:00.000000+00:00"},
            {"id": 100, "cat": "y", "ts": "2000-02-29T12:00:00.000000+00:00"}]
    t.insert(rows)
    t.expect("append", rows)


@golden_table(name="v2_primitives", format_version=2, features=("v2", "types"),
              description="v2 table with every primitive type Spark 3.5 writes, extremes, NaN, -0.0, nulls")
def v2_primitives(t: TableWriter) -> None:
    t.create(PRIMITIVES)
    t.insert(PRIMITIVE_ROWS)
    t.expect("append", PRIMITIVE_ROWS)


@golden_table(name="v3_primitives", format_version=3, features=("v3", "types", "row-lineage"),
              description="v3 table with every primitive type Spark 3.5 writes, extremes, NaN, -0.0, nulls")
def v3_primitives(t: TableWriter) -> None:
    t.create(PRIMITIVES)
    t.insert(PRIMITIVE_ROWS[:2])
    t.expect("first append", PRIMITIVE_ROWS[:2])
    t.insert(PRIMITIVE_ROWS[2:])
    t.expect("second append", PRIMITIVE_ROWS)


NESTED = [
    ("id", "int"),
    ("point", ("struct", [("x", "double"), ("y", "double"), ("label", "string")])),
    ("tags", ("list", "string")),
    ("scores", ("map", "string", "int")),
    ("events", ("list", ("struct", [("at", "timestamptz"), ("what", "string")]))),
    ("attrs", ("map", "string", ("struct", [("v", "long"), ("xs", ("list", "int"))]))),
]


@golden_table(name="v2_nested", format_version=2, features=("v2", "struct", "list", "map"),
              description="v2 table with struct, list, map and their nestings, empty and null values")
def v2_nested(t: TableWriter) -> None:
    t.create(NESTED)
    rows: list[Row] = [
        {"id": 1, "point": {"x": 1.0, "y": -2.5, "label": "p"}, "tags": ["a", "b", None],
         "scores": {"keys": ["m", "n"], "values": [1, None]},
         "events": [{"at": "1969-07-20T20:17:40.000000+00:00", "what": "landing"}],
         "attrs": {"keys": ["k"], "values": [{"v": 5, "xs": [1, 2, 3]}]}},
        {"id": 2, "point": {"x": None, "y": 0.0, "label": None}, "tags": [],
         "scores": {"keys": [], "values": []}, "events": [],
         "attrs": {"keys": ["e"], "values": [{"v": None, "xs": []}]}},
        {"id": 3, "point": None, "tags": None, "scores": None, "events": None, "attrs": None},
    ]
    t.insert(rows)
    t.expect("append", rows)


@golden_table(name="v2_transforms_bucket_truncate", format_version=2,
              features=("v2", "bucket", "truncate", "non-ascii", "negative"),
              description="v2 table partitioned by bucket and truncate of negative and non-ASCII values")
def v2_transforms_bucket_truncate(t: TableWriter) -> None:
    t.create([("id", "long"), ("n", "int"), ("s", "string"), ("dec", "decimal(9, 2)"), ("bin", "binary")],
             partitioned_by="bucket(16, id), truncate(10, n), truncate(2, s), bucket(8, s), "
                            "truncate(50, dec), truncate(3, bin)",
             properties={"write.spark.fanout.enabled": "true"})
    rows: list[Row] = [
        {"id": -1, "n": -1, "s": "😀😁😂", "dec": "-0.05", "bin": "ffeeddcc"},
        {"id": 34, "n": -10, "s": "ab", "dec": "12.34", "bin": "00"},
        {"id": -9223372036854775808, "n": -11, "s": "Ünïcödé", "dec": "-10.51", "bin": ""},
        {"id": 9223372036854775807, "n": 9, "s": "中文字", "dec": "0.00", "bin": "0102030405"},
        {"id": 0, "n": None, "s": None, "dec": None, "bin": None},
    ]
    t.insert(rows)
    t.expect("append", rows)


LONG_PREFIX = "iceberg-conformance-"      # 20 characters: longer than the 16 of Spark's truncated bounds
CATEGORY = "category-with-a-long-common-prefix/"


@golden_table(name="v2_long_string_prefixes", format_version=2,
              features=("v2", "identity", "truncated-bounds", "non-ascii"),
              description="v2 table whose strings share prefixes longer than the 16 characters Iceberg Java keeps "
                          "in string bounds, identity-partitioned by a long string, in several data files")
def v2_long_string_prefixes(t: TableWriter) -> None:
    # Iceberg Java's default metrics mode truncate(16) writes the lower bound cut to 16 characters
    # and the upper bound cut and incremented ("iceberg-conformb"): a reader must treat them as
    # bounds, not as values (Manifests: "... may be truncated").
    t.create([("id", "int"), ("cat", "string"), ("s", "string")], partitioned_by="cat")
    one, two = CATEGORY + "1", CATEGORY + "2"
    rows = [{"id": 1, "cat": one, "s": LONG_PREFIX + "aaa"}, {"id": 2, "cat": one, "s": LONG_PREFIX + "abc"},
            {"id": 3, "cat": two, "s": LONG_PREFIX + "zzz"}]
    t.insert(rows)
    t.expect("append", rows)
    more = [{"id": 4, "cat": one, "s": LONG_PREFIX + "zzzz"}, {"id": 5, "cat": two, "s": "iceberg-conformanc"},
            {"id": 6, "cat": two, "s": None}]
    t.insert(more)
    rows += more
    t.expect("append shorter and null", rows)
    last = [{"id": 7, "cat": one, "s": LONG_PREFIX + "é"}, {"id": 8, "cat": two, "s": "iceberg-conformb"},
            {"id": 9, "cat": two, "s": LONG_PREFIX + "😀"}]
    t.insert(last)
    rows += last
    t.expect("append beyond the truncated upper bound", rows)


@golden_table(name="v2_transforms_temporal", format_version=2,
              features=("v2", "year", "month", "day", "hour", "pre-1970"),
              description="v2 table partitioned by year/month/day/hour of dates and timestamps before 1970")
def v2_transforms_temporal(t: TableWriter) -> None:
    t.create([("id", "int"), ("dt", "date"), ("ts", "timestamp"), ("tstz", "timestamptz"), ("h", "timestamp")],
             partitioned_by="years(dt), months(ts), days(tstz), hours(h)",
             properties={"write.spark.fanout.enabled": "true"})
    rows: list[Row] = [
        {"id": 1, "dt": "1969-12-31", "ts": "1969-12-31T23:59:59.999999",
         "tstz": "1969-12-31T23:59:59.999999+00:00", "h": "1969-12-31T23:00:00.000000"},
        {"id": 2, "dt": "1900-01-01", "ts": "1900-01-01T00:00:00.000000",
         "tstz": "1900-03-01T01:02:03.000004+00:00", "h": "1969-12-31T22:59:59.999999"},
        {"id": 3, "dt": "1970-01-01", "ts": "1970-01-01T00:00:00.000000",
         "tstz": "1970-01-01T00:00:00.000000+00:00", "h": "1970-01-01T00:59:59.999999"},
        {"id": 4, "dt": "2024-02-29", "ts": "2024-02-29T12:34:56.000001",
         "tstz": "2024-02-29T23:59:59.000000+00:00", "h": "1950-06-01T12:30:00.000000"},
        {"id": 5, "dt": None, "ts": None, "tstz": None, "h": None},
    ]
    t.insert(rows)
    t.expect("append", rows)


def _people() -> list[Row]:
    return [{"id": i, "name": n, "score": s} for i, n, s in
            [(1, "ann", 10), (2, "bob", 20), (3, "cy", 30), (4, "dee", 40), (5, "eve", 50), (6, "fay", 60)]]


def _delete_update(t: TableWriter, mode: str) -> None:
    t.create([("id", "int"), ("name", "string"), ("score", "int")],
             properties={"write.delete.mode": mode, "write.update.mode": mode,
                         "write.merge.mode": mode, "write.distribution-mode": "none"})
    rows = _people()
    t.insert(rows)
    t.expect("append", rows)
    t.sql("DELETE FROM {t} WHERE id IN (2, 5)")
    rows = [r for r in rows if r["id"] not in (2, 5)]
    t.expect("delete ids 2 and 5", rows)
    t.sql("UPDATE {t} SET score = score + 1 WHERE id = 3")
    rows = [dict(r, score=r["score"] + 1) if r["id"] == 3 else r for r in rows]
    t.expect("update id 3", rows)
    t.sql("DELETE FROM {t} WHERE name = 'ann'")
    rows = [r for r in rows if r["name"] != "ann"]
    t.expect("delete ann", rows)


@golden_table(name="v2_copy_on_write", format_version=2, features=("v2", "copy-on-write", "delete", "update"),
              description="v2 table: DELETE and UPDATE in copy-on-write mode (data files rewritten)")
def v2_copy_on_write(t: TableWriter) -> None:
    _delete_update(t, "copy-on-write")


@golden_table(name="v2_merge_on_read", format_version=2,
              features=("v2", "merge-on-read", "position-deletes", "delete", "update"),
              description="v2 table: DELETE and UPDATE in merge-on-read mode (position delete files)")
def v2_merge_on_read(t: TableWriter) -> None:
    _delete_update(t, "merge-on-read")


@golden_table(name="v3_deletion_vectors", format_version=3,
              features=("v3", "merge-on-read", "deletion-vectors", "puffin", "delete", "update"),
              description="v3 table: DELETE and UPDATE in merge-on-read mode (deletion vectors in Puffin)")
def v3_deletion_vectors(t: TableWriter) -> None:
    _delete_update(t, "merge-on-read")


@golden_table(name="v2_schema_evolution", format_version=2,
              features=("v2", "schema-evolution", "add", "rename", "drop", "promote"),
              description="v2 table: add, rename, drop columns and promote int to long, float to double")
def v2_schema_evolution(t: TableWriter) -> None:
    t.create([("id", "int"), ("name", "string"), ("score", "float"), ("gone", "string")])
    rows: list[Row] = [{"id": 1, "name": "a", "score": 1.5, "gone": "x"},
                       {"id": 2, "name": "b", "score": -2.25, "gone": "y"}]
    t.insert(rows)
    t.expect("schema 0", rows)
    t.sql("ALTER TABLE {t} ADD COLUMN extra string")
    t.sql("ALTER TABLE {t} RENAME COLUMN name TO label")
    t.sql("ALTER TABLE {t} DROP COLUMN gone")
    t.sql("ALTER TABLE {t} ALTER COLUMN id TYPE bigint")
    t.sql("ALTER TABLE {t} ALTER COLUMN score TYPE double")
    t.columns = [("id", "long"), ("label", "string"), ("score", "double"), ("extra", "string")]
    rows = [{"id": r["id"], "label": r["name"], "score": r["score"], "extra": None} for r in rows]
    new = [{"id": 3000000000, "label": "c", "score": 0.1, "extra": "new"}]
    t.insert(new)
    rows += new
    t.expect("after add/rename/drop/promote", rows)


@golden_table(name="v2_partition_evolution", format_version=2,
              features=("v2", "partition-evolution"),
              description="v2 table: identity partition, then bucket added, then identity dropped")
def v2_partition_evolution(t: TableWriter) -> None:
    t.create([("id", "long"), ("cat", "string"), ("ts", "timestamptz")], partitioned_by="cat",
             properties={"write.spark.fanout.enabled": "true"})
    rows = [{"id": 1, "cat": "a", "ts": "2020-01-01T00:00:00.000000+00:00"},
            {"id": 2, "cat": "b", "ts": "1960-06-15T08:00:00.000000+00:00"}]
    t.insert(rows)
    t.expect("spec 0", rows)
    t.sql("ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)")
    more = [{"id": 3, "cat": "a", "ts": "2021-01-01T00:00:00.000000+00:00"}]
    t.insert(more)
    rows = rows + more
    t.expect("spec 1 (cat, bucket)", rows)
    t.sql("ALTER TABLE {t} DROP PARTITION FIELD cat")
    t.sql("ALTER TABLE {t} ADD PARTITION FIELD months(ts)")
    more = [{"id": 4, "cat": "c", "ts": "1969-12-31T23:59:59.000000+00:00"}]
    t.insert(more)
    rows = rows + more
    t.expect("spec 2 (bucket, month)", rows)


@golden_table(name="v2_statistics", format_version=2, features=("v2", "puffin", "theta-sketch", "partition-stats"),
              description="v2 table with table statistics (Puffin theta sketches) and partition statistics")
def v2_statistics(t: TableWriter) -> None:
    t.create([("id", "long"), ("cat", "string")], partitioned_by="cat")
    rows = [{"id": i, "cat": "odd" if i % 2 else "even"} for i in range(1, 21)]
    t.insert(rows)
    t.expect("append", rows)
    t.sql(f"CALL {t.catalog}.system.compute_table_stats(table => '{t.namespace}.{t.spec.name}')")
    t.sql(f"CALL {t.catalog}.system.compute_partition_stats(table => '{t.namespace}.{t.spec.name}')")


@golden_table(name="v2_avro_data", format_version=2, features=("v2", "avro-data"),
              description="v2 table whose data files are Avro")
def v2_avro_data(t: TableWriter) -> None:
    t.create(PRIMITIVES, properties={"write.format.default": "avro"})
    t.insert(PRIMITIVE_ROWS)
    t.expect("append", PRIMITIVE_ROWS)


# ORC stores a timestamp as whole seconds (truncated toward zero) plus nanoseconds, so a value in
# the last second before 1970 is stored exactly like one a second later: 1969-12-31T23:59:59.999999
# reads back as 1970-01-01T00:00:00.999999 from every ORC reader, Iceberg Java's included
# (ORC-763). That is a limit of the ORC format, not of a reader: the ORC table's pre-1970 value
# is one second earlier, where the readers' adjustment for negative seconds applies.
ORC_ROWS: list[Row] = [dict(r, ts="1969-12-31T23:59:58.999999") if r["id"] == 2 else r for r in PRIMITIVE_ROWS]


@golden_table(name="v2_orc_data", format_version=2, features=("v2", "orc-data"),
              description="v2 table whose data files are ORC (its pre-1970 timestamp is 1969-12-31T23:59:58.999999: "
                          "ORC cannot tell the last second before 1970 from the first after)")
def v2_orc_data(t: TableWriter) -> None:
    t.create(PRIMITIVES, properties={"write.format.default": "orc"})
    t.insert(ORC_ROWS)
    t.expect("append", ORC_ROWS)


@golden_table(name="v2_branches_tags", format_version=2, features=("v2", "branch", "tag", "refs"),
              description="v2 table with a tag on the first snapshot and a branch that diverges from main")
def v2_branches_tags(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")])
    base = [{"id": 1, "data": "base"}]
    t.insert(base)
    t.expect("base", base)
    t.sql("ALTER TABLE {t} CREATE TAG v1")
    t.expect("tag v1", base, ref="v1")
    t.sql("ALTER TABLE {t} CREATE BRANCH dev")
    dev = base + [{"id": 2, "data": "dev only"}]
    t.insert(dev[1:], branch="dev")
    t.expect("branch dev", dev, ref="dev")
    main = base + [{"id": 3, "data": "main only"}]
    t.insert(main[1:])
    t.expect("main after branch", main)


@golden_table(name="v2_expired_snapshots", format_version=2, features=("v2", "expire-snapshots"),
              description="v2 table with three appends of which the first two snapshots are expired")
def v2_expired_snapshots(t: TableWriter) -> None:
    t.create([("id", "int")])
    rows: list[Row] = []
    for i in range(3):
        rows = rows + [{"id": i}]
        t.insert([{"id": i}])
        t.expect(f"append {i}", rows)
    t.sql(f"CALL {t.catalog}.system.expire_snapshots(table => '{t.namespace}.{t.spec.name}', "
          "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)")


# --- layouts real writers produce that trip table checkers ----------------------------------
# Several data files over three identity partitions and two appends; manifests merged on every
# commit (min-count-to-merge 2), so earlier data files turn EXISTING in the merged manifest and
# a commit that adds no manifest of a content re-lists the previous snapshot's manifest; then
# merge-on-read DELETEs whose one task writes the deletes of many data files into one file
# (v3: one Puffin file holding several deletion vectors; v2: partition-scoped position delete
# files naming several data files), a second DELETE over some of the same data files (v3: the
# earlier DVs are replaced, DELETED entries), an UPDATE, and table statistics.

_MERGE_PROPS = {"commit.manifest-merge.enabled": "true", "commit.manifest.min-count-to-merge": "2",
                "write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
                "write.merge.mode": "merge-on-read", "write.distribution-mode": "none",
                "write.delete.distribution-mode": "none", "write.update.distribution-mode": "none",
                "write.spark.fanout.enabled": "true",
                # no split by parallelism: a statement's scan is one task, so one writer takes
                # the deletes of every data file (one Puffin file / one delete file per partition)
                "read.split.adaptive-size.enabled": "false"}


def _grouped(ids: range) -> list[Row]:
    return [{"id": i, "grp": "abc"[i % 3], "name": f"n{i}", "score": i * 10} for i in ids]


def _multi_file_deletes(t: TableWriter, extra: dict[str, str]) -> None:
    t.create([("id", "int"), ("grp", "string"), ("name", "string"), ("score", "int")],
             partitioned_by="grp", properties={**_MERGE_PROPS, **extra})
    rows = _grouped(range(1, 13))                 # 3 data files (one per grp)
    t.insert(rows)
    t.expect("append 1..12", rows)
    more = _grouped(range(13, 25))                # 3 more; the two manifests merge (3 EXISTING + 3 ADDED)
    t.insert(more)
    rows = rows + more
    t.expect("append 13..24", rows)
    t.sql("DELETE FROM {t} WHERE id % 4 = 1")     # rows in all 6 data files
    rows = [r for r in rows if r["id"] % 4 != 1]
    t.expect("delete id % 4 = 1", rows)
    t.sql("DELETE FROM {t} WHERE id IN (2, 6, 15)")   # files already holding deletes
    rows = [r for r in rows if r["id"] not in (2, 6, 15)]
    t.expect("delete ids 2, 6, 15", rows)
    t.sql("UPDATE {t} SET score = score + 1 WHERE id IN (3, 4, 20)")
    rows = [dict(r, score=r["score"] + 1) if r["id"] in (3, 4, 20) else r for r in rows]
    t.expect("update ids 3, 4, 20", rows)
    t.sql(f"CALL {t.catalog}.system.compute_table_stats(table => '{t.namespace}.{t.spec.name}')")


@golden_table(name="v3_multi_dv", format_version=3,
              features=("v3", "merge-on-read", "deletion-vectors", "puffin", "delete", "update", "theta-sketch",
                        "multi-dv-puffin", "existing-entries", "deleted-entries", "shared-manifests"),
              description="v3 table: one Puffin file holding the DVs of several data files, DVs replaced by a "
                          "second DELETE, UPDATE, manifests merged on commit, table statistics")
def v3_multi_dv(t: TableWriter) -> None:
    _multi_file_deletes(t, {})


@golden_table(name="v2_multi_position_deletes", format_version=2,
              features=("v2", "merge-on-read", "position-deletes", "delete", "update", "theta-sketch",
                        "multi-file-position-deletes", "existing-entries", "shared-manifests"),
              description="v2 table: partition-scoped position delete files naming several data files, "
                          "DELETE twice, UPDATE, manifests merged on commit, table statistics")
def v2_multi_position_deletes(t: TableWriter) -> None:
    _multi_file_deletes(t, {"write.delete.granularity": "partition"})


@golden_table(name="v1_upgraded_to_v3", format_version=1,
              features=("v1", "v2", "v3", "upgrade", "existing-entries", "merge-on-read", "position-deletes",
                        "deletion-vectors", "delete"),
              description="v1 table upgraded to v2 then v3: v1 manifests and manifest lists kept by earlier "
                          "snapshots, position deletes after v2, deletion vectors after v3")
def v1_upgraded_to_v3(t: TableWriter) -> None:
    t.create([("id", "long"), ("data", "string")],
             properties={"commit.manifest-merge.enabled": "true", "commit.manifest.min-count-to-merge": "2",
                         "write.distribution-mode": "none"})
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]
    t.insert(rows)
    t.expect("v1 append", rows)
    more: list[Row] = [{"id": 3, "data": "c"}, {"id": 4, "data": "d"}]
    t.insert(more)
    rows = rows + more
    t.expect("v1 second append (manifests merged)", rows)
    t.sql("ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', "
          "'write.update.mode'='merge-on-read')")
    more = [{"id": 5, "data": "e"}]
    t.insert(more)
    rows = rows + more
    t.expect("v2 append after upgrade", rows)
    t.sql("DELETE FROM {t} WHERE id IN (1, 5)")
    rows = [r for r in rows if r["id"] not in (1, 5)]
    t.expect("v2 delete (position deletes)", rows)
    # each data file its own read task and no shuffle before the delete writers, so each deletion
    # vector of the next DELETE lands in a Puffin file of its own (a hash shuffle by file path,
    # which holds a random UUID, would put the two in one file or two by chance; several DVs in
    # one Puffin file: v3_multi_dv)
    t.sql("ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='3', 'read.split.open-file-cost'='134217728', "
          "'write.delete.distribution-mode'='none')")
    more = [{"id": 6, "data": "f"}]
    t.insert(more)
    rows = rows + more
    t.expect("v3 append after upgrade", rows)
    t.sql("DELETE FROM {t} WHERE id IN (2, 6)")
    rows = [r for r in rows if r["id"] not in (2, 6)]
    t.expect("v3 delete (deletion vectors)", rows)
