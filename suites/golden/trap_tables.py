"""Trap tables (``trap_*``): a systematic grid of the values scan pruning gets wrong.

Wrong rows come from pruning, and pruning only happens under a row filter: a partition
predicate projected through a transform, a file's bounds and counts, deletes under a filter.
These tables are built so that the filters of ``trap-filters.json`` (written from
:data:`TYPE_TRAPS` and :data:`EXTRA_TRAPS` by ``python -m tools.golden.trap_filters``) meet
every transform on every source type it takes, at the values around each boundary.

**One table per source type.** Its column ``v`` holds the same boundary values (and a null)
once under each partition spec the table goes through: the spec *evolves* through every
transform the type takes (identity, bucket[N], truncate[W], year, month, day, hour), and the
last spec leaves only ``void`` fields (``ALTER TABLE ... DROP PARTITION FIELD`` in v1 makes a
dropped field ``void``; "Partition Evolution"). The final snapshot therefore holds data files
of every spec; older snapshots are expired, so each filter is one case. Row ``id`` is
``100 * spec + i``: a missing row names the spec whose files were pruned wrongly.

* Spark (Iceberg Java 1.10.2) writes the types Spark 3.5 has, as v1 tables (void fields, real
  metrics: string and binary bounds truncated to 16, decimals as int32/int64/fixed);
* the reference writer (:class:`reference.writer.TableBuilder`, with bounds) writes time, uuid,
  fixed (v2) and timestamp_ns, timestamptz_ns (v3); its last spec is a ``void`` field as well
  (a transform of every format version, "Partition Transforms").

The values: both sides of 1970-01-01 and the instants around it (the time transforms round
toward negative infinity: 1969-12-31T23:59:59.999999 is hour -1, day -1, month -1, year -1),
zero and +-1, the truncate widths W-1, W, W+1 and -1, -W, -W-1 (``truncate`` is a floor:
truncate[16](-1) is -16), negative decimals (bucket hashes their two's-complement bytes), the
type minima and maxima, strings sharing a prefix longer than the 16 characters Iceberg Java
keeps in bounds, code points whose UTF-8 and UTF-16 orders differ, empty strings and binary,
bytes on both sides of 0x80 (signed versus unsigned), NaN, -0.0, 0.0 and the infinities.

**Extra tables** (:func:`trap_v2_partition_evolution` and below): partition evolution in v2 (a
field dropped and re-added with its old field id, several columns, ``and``/``or``), a column
dropped and re-added under the same name (a new field id), nested struct fields as filter
columns and partition sources, and a rename followed by a new column under the old name, with
the older snapshot live (a filter binds to each snapshot's own schema).

Expected rows come from the generators' models, as for every golden table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from iceberg_conformance.suites.golden.producers import ReferenceWriter
from iceberg_conformance.suites.golden.registry import Row, TableWriter, golden_table

#: JSON single-value forms of type extremes used below
INT_MIN, INT_MAX = -2147483648, 2147483647
LONG_MIN, LONG_MAX = -9223372036854775808, 9223372036854775807
#: the largest float of the float table: 2^24, the last of the consecutive integers a float holds
FLOAT_MAX = 16777216.0
DOUBLE_MAX = 1.7976931348623157e+308
LONG_PREFIX = "iceberg-conformance-"          # 20 characters: longer than the 16 Java keeps in bounds


@dataclass(frozen=True)
class TrapColumn:
    """A column filters are built on: its name (``a.b`` for a nested field), its Iceberg type,
    the boundary literals the filters compare with, each with why it is one, and the prefixes
    of starts-with (strings). ``values`` are the distinct non-null values the table holds in it
    (JSON single-value form); every trap table also holds nulls there."""

    name: str
    type: str
    values: tuple[Any, ...]
    literals: tuple[tuple[Any, str], ...]
    prefixes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TypeTrap:
    """One table per source type: its column ``v`` and the transforms its spec evolves through."""

    table: str
    column: TrapColumn
    transforms: tuple[str, ...]
    producer: str = "spark"
    format_version: int = 1

    @property
    def features(self) -> tuple[str, ...]:
        named = {"bucket", "truncate", "identity", "year", "month", "day", "hour"}
        out = [f"v{self.format_version}", "void", "trap", "types"]
        if len(self.transforms) >= 2:                    # three specs or more (with the void one)
            out.append("partition-evolution")
        out += [t.split("[")[0] for t in self.transforms if t.split("[")[0] in named]
        out += list(_TYPE_FEATURES.get(self.column.type.split("(")[0].split("[")[0], ()))
        return tuple(dict.fromkeys(out))


_TYPE_FEATURES = {
    "int": ("negative",), "long": ("negative",), "decimal": ("negative",), "float": ("negative", "nan"),
    "double": ("negative", "nan"), "date": ("pre-1970",), "timestamp": ("pre-1970",),
    "timestamptz": ("pre-1970",), "timestamp_ns": ("pre-1970", "timestamp_ns"),
    "timestamptz_ns": ("pre-1970", "timestamptz_ns"), "string": ("non-ascii", "truncated-bounds"),
    "binary": ("truncated-bounds",), "uuid": ("uuid",), "fixed": ("fixed",), "time": ("time",),
}


def _dates(*days: str) -> tuple[str, ...]:
    return days


# --- the grid: one trap column per source type --------------------------------------------
# Literals are values of the column (each filter then selects a non-empty proper subset);
# "mid" literals sit inside a partition that also holds a value on their other side, which is
# what catches a projection of v < c to T(v) < T(c) (instead of T(v) <= T(c)).

TYPE_TRAPS: list[TypeTrap] = [
    TypeTrap("trap_v1_boolean", TrapColumn(
        "v", "boolean", (False, True),
        ((False, "false sorts before true; identity partitions false and true, bucket takes no boolean"),
         (True, "the upper value; a void field's null partition value must not prune either"))),
        ("identity",)),
    TypeTrap("trap_v1_int", TrapColumn(
        "v", "int", (INT_MIN, -17, -16, -1, 0, 1, 15, 16, 17, INT_MAX),
        ((-1, "-1: truncate[16] is -16 (floor; truncating toward zero gives 0), shared with -16 (mid literal)"),
         (0, "zero: the partition 0 holds 0, 1 and 15 (mid literal for > 0)"),
         (17, "W+1: truncate[16] is 16, shared with 16 (mid literal for < 17)"))),
        ("identity", "bucket[8]", "truncate[16]")),
    TypeTrap("trap_v1_long", TrapColumn(
        "v", "long", (LONG_MIN, -2147483649, -1025, -1024, -1, 0, 1, 1023, 1024, 1025, 2147483648, LONG_MAX),
        ((-1, "-1: truncate[1024] is -1024 (floor), shared with -1024 (mid literal)"),
         (1025, "W+1: truncate[1024] is 1024, shared with 1024 (mid literal)"),
         (2147483648, "one above the int range: a long literal or bound narrowed to int wraps around"))),
        ("identity", "bucket[8]", "truncate[1024]")),
    *[TypeTrap(f"trap_v1_{t}", TrapColumn(
        "v", t, ("-Infinity", -top, -1.5, -0.0, 0.0, 1.5, top, "Infinity", "NaN"),
        ((-1.5, "a negative value: its bits compare in reverse as unsigned integers"),
         (1.5, "a positive value: NaN is neither above nor below it"),
         (top, f"{why}: only +Infinity is above it, NaN is not"))),
        ("identity",))
      for t, top, why in (("float", FLOAT_MAX, "2^24, the largest finite float of the table"),
                          ("double", DOUBLE_MAX, "the largest finite double"))],
    TypeTrap("trap_v1_decimal_9_2", TrapColumn(
        "v", "decimal(9, 2)", ("-9999999.99", "-0.04", "-0.03", "-0.01", "0.00", "0.02", "0.03", "0.04",
                               "14.20", "9999999.99"),
        (("-0.01", "-1 unscaled: truncate[3] is -0.03 (floor), not 0.00; bucket hashes the byte ff"),
         ("0.02", "W-1: truncate[3] is 0.00, shared with 0.00 (mid literal)"),
         ("0.04", "W+1: truncate[3] is 0.03, shared with 0.03 (mid literal)"))),
        ("identity", "bucket[4]", "truncate[3]")),
    TypeTrap("trap_v1_decimal_18_4", TrapColumn(
        "v", "decimal(18, 4)", ("-99999999999999.9999", "-0.0010", "-0.0009", "-0.0001", "0.0000", "0.0008",
                                "0.0009", "0.0010", "99999999999999.9999"),
        (("-0.0001", "-1 unscaled: truncate[9] is -0.0009 (floor), not 0"),
         ("0.0008", "W-1: truncate[9] is 0, shared with 0.0000 (mid literal)"),
         ("0.0010", "W+1: truncate[9] is 0.0009, shared with 0.0009 (mid literal)"))),
        ("identity", "bucket[4]", "truncate[9]")),
    TypeTrap("trap_v1_decimal_38_10", TrapColumn(
        "v", "decimal(38, 10)", ("-9999999999999999999999999999.9999999999", "-0.0000000012", "-0.0000000011",
                                 "-0.0000000001", "0.0000000000", "0.0000000010", "0.0000000011", "0.0000000012",
                                 "1234567890123456789012345678.0123456789",
                                 "9999999999999999999999999999.9999999999"),
        (("-0.0000000001", "-1 unscaled: truncate[11] is -11 (floor), not 0; 16-byte bounds compare signed"),
         ("0.0000000010", "W-1: truncate[11] is 0, shared with 0 (mid literal)"),
         ("0.0000000012", "W+1: truncate[11] is 11, shared with 11 (mid literal)"))),
        ("identity", "bucket[4]", "truncate[11]")),
    TypeTrap("trap_v1_date", TrapColumn(
        "v", "date", _dates("0001-01-01", "1900-01-01", "1968-12-31", "1969-01-01", "1969-11-30", "1969-12-01",
                            "1969-12-31", "1970-01-01", "1970-01-02", "2024-02-29", "9999-12-31"),
        (("1969-01-01", "the first day of year -1, shared with 1969-11-30 .. 1969-12-31 (mid literal for >)"),
         ("1969-12-31", "day -1, month -1, year -1 (floor): rounding toward zero puts it in 0"),
         ("1970-01-01", "the epoch: day 0; everything before it is in negative partitions"))),
        ("identity", "bucket[4]", "year", "month", "day")),
    *[TypeTrap(f"trap_v1_{t}", TrapColumn(
        "v", t, tuple(x + z for x in (
            "0001-01-01T00:00:00.000000", "1900-01-01T00:00:00.000000", "1968-12-31T23:59:59.999999",
            "1969-01-01T00:00:00.000000", "1969-12-31T00:00:00.000000", "1969-12-31T22:59:59.999999",
            "1969-12-31T23:00:00.000000", "1969-12-31T23:59:59.999999", "1970-01-01T00:00:00.000000",
            "1970-01-01T00:00:00.000001", "1970-01-01T01:00:00.000000", "2024-02-29T12:00:00.000000",
            "9999-12-31T23:59:59.999999")),
        (("1969-12-31T23:00:00.000000" + z, "the first microsecond of hour -1, shared with 23:59:59.999999; "
                                            "day -1 also holds 00:00 and 22:59:59.999999"),
         ("1969-12-31T23:59:59.999999" + z, "the last microsecond before the epoch: hour, day, month and year -1 "
                                            "(floor); rounding toward zero puts it in 0"),
         ("1970-01-01T00:00:00.000000" + z, "the epoch: partition 0 of every time transform"))),
        ("identity", "bucket[4]", "year", "month", "day", "hour"))
      for t, z in (("timestamp", ""), ("timestamptz", "+00:00"))],
    TypeTrap("trap_v1_string", TrapColumn(
        "v", "string", ("", "ab", "abc", "abcd", "iceberg-conforma", LONG_PREFIX + "a", LONG_PREFIX + "b",
                        "iceberg-conformb", "é", "ｚ", "😀", "😀😁😂", "😀😁😂😃"),
        (("abc", "W: truncate[3] of abcd is abc too (mid literal for >)"),
         (LONG_PREFIX + "a", "longer than 16 characters: Java's bounds are iceberg-conforma .. iceberg-conformb"),
         ("😀", "U+1F600: one code point, two UTF-16 units (D83D DE00), four UTF-8 bytes; ｚ (U+FF5A) is below "
                "it in UTF-8 and code points but above it in UTF-16; truncate[3] counts code points")),
        ((LONG_PREFIX, "a prefix longer than the 16 characters of Java's truncated bounds and longer than W"),
         ("ab", "a prefix shorter than W: truncate[3] partitions ab, abc keep it"),
         ("😀", "a prefix of one code point (two UTF-16 units): partitions 😀 and 😀😁😂 start with it"))),
        ("identity", "bucket[4]", "truncate[3]")),
    TypeTrap("trap_v1_binary", TrapColumn(
        "v", "binary", ("", "00", "0001", "01", "0102", "010203", "7f", "7fff", "80", "ff", "ffff",
                        "00112233445566778899aabbccddeeff00", "00112233445566778899aabbccddeeff01"),
        (("0102", "W: truncate[2] of 010203 is 0102 too (mid literal for >)"),
         ("7f", "the last byte below 0x80: signed bytes put 80 .. ff below it"),
         ("80", "the first byte above 0x7f: signed, it is the lowest"))),
        ("identity", "bucket[4]", "truncate[2]")),
    # --- written by the reference writer: the types Spark 3.5 cannot write ----------------
    TypeTrap("trap_v2_time", TrapColumn(
        "v", "time", ("00:00:00.000000", "00:00:00.000001", "11:59:59.999999", "12:00:00.000000",
                      "23:59:59.999999"),
        (("00:00:00.000001", "one microsecond after midnight: 0 is the only value below it"),
         ("12:00:00.000000", "noon, one microsecond after 11:59:59.999999"),
         ("23:59:59.999999", "the last microsecond of the day, the type's maximum"))),
        ("identity", "bucket[4]"), producer="reference", format_version=2),
    TypeTrap("trap_v2_uuid", TrapColumn(
        "v", "uuid", ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-7fff-ffffffffffff",
                      "00000000-0000-0000-8000-000000000000", "7fffffff-ffff-ffff-ffff-ffffffffffff",
                      "80000000-0000-0000-0000-000000000000", "f79c3e09-677c-4bbd-a479-3f349cb785e7",
                      "ffffffff-ffff-ffff-ffff-ffffffffffff"),
        (("00000000-0000-0000-8000-000000000000", "the low 64 bits at 0x8000...: signed, they sort below 0x7fff..."),
         ("7fffffff-ffff-ffff-ffff-ffffffffffff", "the last uuid whose high 64 bits are positive as a signed long"),
         ("80000000-0000-0000-0000-000000000000", "the first uuid above 0x7fff...: java.util.UUID.compareTo puts it "
                                                  "below every other"))),
        ("identity", "bucket[4]"), producer="reference", format_version=2),
    TypeTrap("trap_v2_fixed", TrapColumn(
        "v", "fixed[4]", ("00000000", "00000001", "7fffffff", "80000000", "ffffffff"),
        (("00000001", "one above the lowest value"),
         ("7fffffff", "the last value whose first byte is below 0x80"),
         ("80000000", "the first byte 0x80: signed, it sorts below 00000000"))),
        ("identity", "bucket[4]"), producer="reference", format_version=2),
    *[TypeTrap(f"trap_v3_{t}", TrapColumn(
        "v", t, tuple(x + z for x in (
            "1677-09-21T00:12:43.145224192", "1968-12-31T23:59:59.999999999", "1969-01-01T00:00:00.000000000",
            "1969-12-31T00:00:00.000000000", "1969-12-31T22:59:59.999999999", "1969-12-31T23:00:00.000000000",
            "1969-12-31T23:59:59.999999000", "1969-12-31T23:59:59.999999999", "1970-01-01T00:00:00.000000000",
            "1970-01-01T00:00:00.000000001", "2024-02-29T12:00:00.000000001", "2262-04-11T23:47:16.854775807")),
        (("1969-12-31T23:00:00.000000000" + z, "the first nanosecond of hour -1; day -1 also holds 00:00 and "
                                               "22:59:59.999999999"),
         ("1969-12-31T23:59:59.999999999" + z, "the last nanosecond before the epoch: -1 nanosecond is -1 "
                                               "microsecond and hour, day, month, year -1 (floor)"),
         ("1970-01-01T00:00:00.000000001" + z, "one nanosecond after the epoch: a reader keeping microseconds "
                                               "reads it as the epoch"))),
        ("identity", "bucket[4]", "year", "month", "day", "hour"), producer="reference", format_version=3)
      for t, z in (("timestamp_ns", ""), ("timestamptz_ns", "+00:00"))],
]


def _sql_transform(transform: str, column: str) -> str:
    """Spark SQL partition expression of an Iceberg transform."""
    if transform == "identity":
        return column
    if transform.startswith(("bucket[", "truncate[")):
        name, n = transform[:-1].split("[")
        return f"{name}({n}, {column})"
    return {"year": "years", "month": "months", "day": "days", "hour": "hours"}[transform] + f"({column})"


def _batch(trap: TypeTrap, spec: int) -> list[Row]:
    values = list(trap.column.values) + [None]
    return [{"id": 100 * spec + i, "v": v} for i, v in enumerate(values)]


def _spark_type_table(trap: TypeTrap) -> Any:
    def generate(t: TableWriter) -> None:
        first, *rest = trap.transforms
        t.create([("id", "int"), ("v", trap.column.type)], partitioned_by=_sql_transform(first, "v"),
                 properties={"write.spark.fanout.enabled": "true"})
        rows: list[Row] = []
        previous = first
        for spec, transform in enumerate([first, *rest, "void"]):
            if spec and transform == "void":
                t.sql(f"ALTER TABLE {{t}} DROP PARTITION FIELD {_sql_transform(previous, 'v')}")
            elif spec:
                t.sql(f"ALTER TABLE {{t}} REPLACE PARTITION FIELD {_sql_transform(previous, 'v')} "
                      f"WITH {_sql_transform(transform, 'v')}")
            batch = _batch(trap, spec)
            t.insert(batch)
            rows += batch
            previous = transform
        t.expect("one append under each spec: " + ", ".join([*trap.transforms, "void"]), rows)
        _expire(t)
    return generate


def _expire(t: TableWriter) -> None:
    """Expire every snapshot but the current one ("Snapshot expiry"), through Iceberg Java's
    table API in the session's JVM (the table of the Hadoop catalog is the table at its path):
    the same commit as the expire_snapshots procedure, without its Spark jobs."""
    jvm = t.spark._jvm
    table = jvm.org.apache.iceberg.hadoop.HadoopTables(t.spark._jsc.hadoopConfiguration()).load(str(t.table_dir()))
    table.expireSnapshots().expireOlderThan(jvm.java.lang.Long.MAX_VALUE).retainLast(1).commit()
    t.sql("REFRESH TABLE {t}")


def _reference_type_table(trap: TypeTrap) -> Any:
    def generate(w: ReferenceWriter) -> None:
        field = {"id": 2, "name": "v", "required": False, "type": trap.column.type}
        name = trap.transforms[0].replace("[", "_").rstrip("]")
        t = w.create([{"id": 1, "name": "id", "required": True, "type": "int"}, field],
                     [[{"source-id": 2, "field-id": 1000, "name": f"v_{name}", "transform": trap.transforms[0]}]],
                     bounds=True)
        rows: list[Row] = []
        for spec, transform in enumerate([*trap.transforms, "void"]):
            if spec:
                name = transform.replace("[", "_").rstrip("]")
                t.evolve_spec([{"source-id": 2, "field-id": 1000 + spec, "name": f"v_{name}", "transform": transform}])
            batch = _batch(trap, spec)
            t.append(batch)
            rows += batch
        t.expire_snapshots()
        w.expect("one append under each spec: " + ", ".join([*trap.transforms, "void"]), rows)
    return generate


def _describe(trap: TypeTrap) -> str:
    who = "Spark" if trap.producer == "spark" else "reference writer"
    return (f"v{trap.format_version} trap table ({who}): one {trap.column.type} column holding its boundary values "
            f"and null once under each spec it evolves through ({', '.join(trap.transforms)}, then void)")


for _trap in TYPE_TRAPS:
    golden_table(name=_trap.table, description=_describe(_trap), format_version=_trap.format_version,
                 features=_trap.features, producer=_trap.producer)(
        _spark_type_table(_trap) if _trap.producer == "spark" else _reference_type_table(_trap))


# --- extra tables ----------------------------------------------------------------------------

#: trap columns of the extra tables, by table (the filters of these tables are written by hand
#: in tools/golden/trap_filters.py from these values)
EXTRA_TRAPS: dict[str, list[TrapColumn]] = {}


def _ts(v: str) -> str:
    return v + "+00:00"


EVOLUTION_ROWS: list[tuple[str | None, str | None, int | None]] = [
    (_ts("1969-12-31T23:59:59.999999"), "a", -1), (_ts("1969-12-31T23:00:00.000000"), "b", 0),
    (_ts("1970-01-01T00:00:00.000000"), "a", 15), (_ts("1970-01-01T00:59:59.999999"), "b", 16),
    (_ts("2024-02-29T12:00:00.000000"), "😀", -17), (None, None, None),
]


@golden_table(name="trap_v2_partition_evolution", format_version=2,
              features=("v2", "partition-evolution", "day", "hour", "identity", "bucket", "truncate", "year",
                        "pre-1970", "trap"),
              description="v2 trap table (Spark): the spec evolves over three columns (day and identity, then "
                          "hour and bucket, then truncate only, then year and the identity field re-added with its "
                          "old field id), the same rows appended under each spec")
def trap_v2_partition_evolution(t: TableWriter) -> None:
    t.create([("id", "int"), ("ts", "timestamptz"), ("cat", "string"), ("n", "long")],
             partitioned_by="days(ts), cat", properties={"write.spark.fanout.enabled": "true"})
    steps = [
        [],
        ["ALTER TABLE {t} REPLACE PARTITION FIELD days(ts) WITH hours(ts)",
         "ALTER TABLE {t} REPLACE PARTITION FIELD cat WITH bucket(4, cat)"],
        ["ALTER TABLE {t} DROP PARTITION FIELD hours(ts)", "ALTER TABLE {t} DROP PARTITION FIELD bucket(4, cat)",
         "ALTER TABLE {t} ADD PARTITION FIELD truncate(16, n)"],
        ["ALTER TABLE {t} DROP PARTITION FIELD truncate(16, n)", "ALTER TABLE {t} ADD PARTITION FIELD years(ts)",
         "ALTER TABLE {t} ADD PARTITION FIELD cat"],
    ]
    rows: list[Row] = []
    for spec, statements in enumerate(steps):
        for s in statements:
            t.sql(s)
        batch = [{"id": 100 * spec + i, "ts": ts, "cat": cat, "n": n} for i, (ts, cat, n) in enumerate(EVOLUTION_ROWS)]
        t.insert(batch)
        rows += batch
    t.expect("one append under each of four specs", rows)
    _expire(t)


EXTRA_TRAPS["trap_v2_partition_evolution"] = [
    TrapColumn("ts", "timestamptz", tuple(r[0] for r in EVOLUTION_ROWS if r[0]), ()),
    TrapColumn("cat", "string", ("a", "b", "😀"), ()),
    TrapColumn("n", "long", (-17, -1, 0, 15, 16), ()),
]


@golden_table(name="trap_v2_dropped_readded", format_version=2,
              features=("v2", "schema-evolution", "drop", "add", "identity", "trap"),
              description="v2 trap table (Spark): column c dropped and added again under the same name and type "
                          "(a new field id); the files written before hold the old c, whose bounds are of the old id")
def trap_v2_dropped_readded(t: TableWriter) -> None:
    t.create([("id", "int"), ("grp", "string"), ("c", "int")], partitioned_by="grp",
             properties={"write.spark.fanout.enabled": "true"})
    old: list[Row] = [{"id": i, "grp": g, "c": c} for i, g, c in
                      [(1, "x", 1), (2, "x", 2), (3, "y", 3), (4, "y", 30), (5, "z", None)]]
    t.insert(old)
    t.expect("schema 0: c is field 3", old)
    t.sql("ALTER TABLE {t} DROP COLUMN c")
    t.sql("ALTER TABLE {t} ADD COLUMN c int")
    # the old files keep their column c (field 3) with bounds 1..30; the new c is field 4: null there
    rows = [dict(r, c=None) for r in old]
    new: list[Row] = [{"id": i, "grp": g, "c": c} for i, g, c in [(6, "x", 3), (7, "y", -1), (8, "w", None)]]
    t.insert(new)
    t.expect("c dropped and added again (field 4)", rows + new)


EXTRA_TRAPS["trap_v2_dropped_readded"] = [TrapColumn("c", "int", (1, 2, 3, 30, -1), ())]


NESTED_TYPE = ("struct", [("a", "int"), ("b", "string"), ("t", ("struct", [("d", "date")]))])
NESTED_VALUES: list[Any] = [
    {"a": -1, "b": "iceberg-conformance-nested", "t": {"d": "1969-12-31"}},
    {"a": 0, "b": "é", "t": {"d": "1970-01-01"}},
    {"a": 15, "b": "ab", "t": None},
    {"a": 16, "b": None, "t": {"d": None}},
    {"a": None, "b": "abc", "t": {"d": "1968-12-31"}},
    None,
]


@golden_table(name="trap_v2_nested", format_version=2,
              features=("v2", "struct", "identity", "truncate", "year", "partition-evolution", "pre-1970", "trap"),
              description="v2 trap table (Spark): fields of a struct (and of a struct inside it) as filter columns "
                          "and partition sources (identity(s.a) and year(s.t.d), then truncate[16](s.a)); null "
                          "structs and null fields")
def trap_v2_nested(t: TableWriter) -> None:
    t.create([("id", "int"), ("s", NESTED_TYPE)], partitioned_by="s.a, years(s.t.d)",
             properties={"write.spark.fanout.enabled": "true"})
    rows: list[Row] = []
    steps = [[], ["ALTER TABLE {t} REPLACE PARTITION FIELD s.a WITH truncate(16, s.a)"],
             ["ALTER TABLE {t} DROP PARTITION FIELD truncate(16, s.a)", "ALTER TABLE {t} DROP PARTITION FIELD years(s.t.d)"]]
    for spec, statements in enumerate(steps):
        for s in statements:
            t.sql(s)
        batch = [{"id": 100 * spec + i, "s": v} for i, v in enumerate(NESTED_VALUES)]
        t.insert(batch)
        rows += batch
    t.expect("one append under each of three specs", rows)
    _expire(t)


EXTRA_TRAPS["trap_v2_nested"] = [
    TrapColumn("s.a", "int", (-1, 0, 15, 16), ()),
    TrapColumn("s.b", "string", ("iceberg-conformance-nested", "é", "ab", "abc"), ()),
    TrapColumn("s.t.d", "date", ("1968-12-31", "1969-12-31", "1970-01-01"), ()),
]


@golden_table(name="trap_v2_renamed", format_version=2,
              features=("v2", "schema-evolution", "rename", "add", "truncate", "trap"),
              description="v2 trap table (Spark): column a (partitioned by truncate[16]) renamed to b, then a new "
                          "column a added; the snapshot from before the rename stays live, where a is field 2")
def trap_v2_renamed(t: TableWriter) -> None:
    t.create([("id", "int"), ("a", "int")], partitioned_by="truncate(16, a)",
             properties={"write.spark.fanout.enabled": "true"})
    first: list[Row] = [{"id": 1, "a": -1}, {"id": 2, "a": 5}, {"id": 3, "a": 16}, {"id": 4, "a": None}]
    t.insert(first)
    t.expect("schema 0: a is field 2", first)
    t.sql("ALTER TABLE {t} RENAME COLUMN a TO b")
    t.sql("ALTER TABLE {t} ADD COLUMN a int")
    t.columns = [("id", "int"), ("b", "int"), ("a", "int")]
    rows: list[Row] = [{"id": r["id"], "b": r["a"], "a": None} for r in first]
    more: list[Row] = [{"id": 5, "b": 17, "a": 5}, {"id": 6, "b": -17, "a": -1}, {"id": 7, "b": None, "a": 16}]
    t.insert(more)
    t.expect("a renamed to b (field 2), a new column a (field 3)", rows + more)


EXTRA_TRAPS["trap_v2_renamed"] = [TrapColumn("a", "int", (-1, 5, 16), ()), TrapColumn("b", "int", (-17, -1, 5, 16, 17), ())]


# --- traps of the bug corpus: shapes no other golden table holds -----------------------------
# Each table holds the trigger of reader bugs of bugs/corpus (named in its description) and is
# valid by the spec; its expected rows come from the model below, never from reading it back.

def _rf(fid: int, name: str, type_: Any, required: bool = False) -> dict[str, Any]:
    return {"id": fid, "name": name, "required": required, "type": type_}


#: the rows of the row-group tables: two files (ids 0..11, 100..105, in order), and the ids (=
#: positions) deleted from the first; every row of the second is deleted
ROW_GROUP_FIRST: list[Row] = [{"id": i, "data": f"d{i}"} for i in range(12)]
ROW_GROUP_SECOND: list[Row] = [{"id": i, "data": f"d{i}"} for i in range(100, 106)]
ROW_GROUP_DELETED = [0, 1, 2, 7, 9, 11]


@golden_table(name="trap_v2_pos_deletes_row_groups", format_version=2, producer="reference",
              features=("v2", "position-deletes", "multi-file-position-deletes", "merge-on-read", "row-groups",
                        "trap"),
              description="v2 trap table (reference writer): two Parquet data files of row groups of 3 rows "
                          "(ids 0..11 and 100..105, sorted, with row-group statistics) and one position delete "
                          "file (also in row groups of 3) deleting the whole first row group, rows inside and at "
                          "the edges of later row groups, and every row of the second file: positions count "
                          "from the start of the file, not of a row group")
def trap_v2_pos_deletes_row_groups(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], bounds=True, row_group_size=3)
    t.append(ROW_GROUP_FIRST)
    t.append(ROW_GROUP_SECOND)
    w.expect("two appends of 12 and 6 rows, row groups of 3", ROW_GROUP_FIRST + ROW_GROUP_SECOND)
    paths = list(t.data_files)
    # "Position Delete Files": pos is the row's ordinal in the data file, starting at 0; the
    # rows of the first file are in id order, so position p holds id p
    t.position_deletes({paths[0]: ROW_GROUP_DELETED, paths[1]: list(range(len(ROW_GROUP_SECOND)))})
    kept = [r for r in ROW_GROUP_FIRST if r["id"] not in ROW_GROUP_DELETED]
    w.expect("position deletes: positions 0, 1, 2, 7, 9, 11 of the first file, every row of the second", kept)


@golden_table(name="trap_v2_pos_deletes_row_groups_spark", format_version=2,
              features=("v2", "position-deletes", "merge-on-read", "delete", "row-groups", "trap"),
              description="v2 trap table (Spark): Parquet data files Iceberg Java writes in row groups of three rows "
                          "and pages of at most two rows (ids 0..11 and 100..105, with column indexes), then "
                          "merge-on-read deletes of ids 0, 1, 2, 7, 9, 11 and of every row of the second file")
def trap_v2_pos_deletes_row_groups_spark(t: TableWriter) -> None:
    # a row group is flushed whenever its size is checked (target 1 byte), and the size is
    # checked every three rows; each page holds at most two rows
    t.create([("id", "long"), ("data", "string")],
             properties={"write.delete.mode": "merge-on-read", "write.parquet.row-group-size-bytes": "1",
                         "write.parquet.row-group-check-min-record-count": "3",
                         "write.parquet.row-group-check-max-record-count": "3",
                         "write.parquet.page-row-limit": "2"})
    t.insert(ROW_GROUP_FIRST)
    t.insert(ROW_GROUP_SECOND)
    t.expect("two appends of 12 and 6 rows, small row groups", ROW_GROUP_FIRST + ROW_GROUP_SECOND)
    t.sql(f"DELETE FROM {{t}} WHERE id IN ({', '.join(map(str, ROW_GROUP_DELETED))})")
    # a condition no file's metrics decide, so Spark writes position deletes for the whole file
    t.sql("DELETE FROM {t} WHERE id >= 100 AND id % 2 IN (0, 1)")
    kept = [r for r in ROW_GROUP_FIRST if r["id"] not in ROW_GROUP_DELETED]
    t.expect("merge-on-read deletes of ids 0, 1, 2, 7, 9, 11 and of every row of the second file", kept)


@golden_table(name="trap_v2_avro_pos_deletes", format_version=2,
              features=("v2", "avro-deletes", "merge-on-read", "delete", "update", "trap"),
              description="v2 trap table (Spark): merge-on-read DELETE and UPDATE with "
                          "write.delete.format.default=avro: the position delete files are Avro, the data files "
                          "Parquet")
def trap_v2_avro_pos_deletes(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")],
             properties={"write.delete.format.default": "avro", "write.delete.mode": "merge-on-read",
                         "write.update.mode": "merge-on-read"})
    rows: list[Row] = [{"id": i, "data": d} for i, d in enumerate("abcde", start=1)]
    t.insert(rows)
    t.expect("append ids 1..5", rows)
    t.sql("DELETE FROM {t} WHERE id = 2")
    rows = [r for r in rows if r["id"] != 2]
    t.expect("delete id 2 (an Avro position delete file)", rows)
    t.sql("UPDATE {t} SET data = 'D' WHERE id = 4")
    rows = [dict(r, data="D") if r["id"] == 4 else r for r in rows]
    t.expect("update id 4 (an Avro position delete file and a new data file)", rows)


@golden_table(name="trap_v2_eq_delete_column_order", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "multi-column-equality-delete", "trap"),
              description="v2 trap table (reference writer): an equality delete on two columns whose file stores "
                          "them in the reverse of the table's order (b, a) with equality_ids [3, 2]; the deleted "
                          "pairs also occur crossed over in rows that stay")
def trap_v2_eq_delete_column_order(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "a", "int"), _rf(3, "b", "string")])
    rows: list[Row] = [{"id": 1, "a": 1, "b": "x"}, {"id": 2, "a": 2, "b": "y"}, {"id": 3, "a": 1, "b": "y"},
                       {"id": 4, "a": 2, "b": "x"}, {"id": 5, "a": None, "b": "x"}]
    t.append(rows)
    w.expect("append", rows)
    # "Equality Delete Files": a row is deleted when its values equal the delete row's values in
    # every delete column, the columns identified by id: (b x, a 1) deletes id 1, (b y, a 2) id 2
    t.equality_delete([{"b": "x", "a": 1}, {"b": "y", "a": 2}], ["b", "a"])
    rows = [r for r in rows if (r["a"], r["b"]) not in ((1, "x"), (2, "y"))]
    w.expect("equality delete on (b, a): (x, 1), (y, 2)", rows)


@golden_table(name="trap_v2_eq_delete_nested", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "struct", "trap"),
              description="v2 trap table (reference writer): an equality delete whose equality_ids name a field "
                          "of a struct (root.nested, field 3); another row holds the deleted value in the sibling "
                          "field root.nested_other, one row has a null struct")
def trap_v2_eq_delete_nested(w: ReferenceWriter) -> None:
    root = {"type": "struct", "fields": [_rf(3, "nested", "long"), _rf(4, "nested_other", "long")]}
    t = w.create([_rf(1, "id", "long", True), _rf(2, "root", root)])
    values = [(1, (1, 1)), (2, (2, 2)), (3, (3, 2)), (4, None)]
    # the writer takes structs keyed by field id (JSON single-value form), the expectation by name
    t.append([{"id": i, "root": None if v is None else {"3": v[0], "4": v[1]}} for i, v in values])
    rows: list[Row] = [{"id": i, "root": None if v is None else {"nested": v[0], "nested_other": v[1]}}
                       for i, v in values]
    w.expect("append", rows)
    t.equality_delete([{"root": {"3": 2}}], ["root.nested"])
    rows = [r for r in rows if r["id"] != 2]
    w.expect("equality delete root.nested = 2", rows)


@golden_table(name="trap_v2_no_snapshot_log", format_version=2, producer="reference",
              features=("v2", "no-snapshot-log", "trap"),
              description="v2 trap table (reference writer): no metadata file has a snapshot-log (optional in "
                          "every format version), two appends")
def trap_v2_no_snapshot_log(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], snapshot_log=False)
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": None}]
    t.append(rows)
    w.expect("append 1, 2", rows)
    more: list[Row] = [{"id": 3, "data": "c"}]
    t.append(more)
    w.expect("append 3", rows + more)


@golden_table(name="trap_v3_manifest_list_no_version", format_version=3, producer="reference",
              features=("v3", "manifest-list-no-format-version", "deletion-vectors", "puffin", "delete",
                        "merge-on-read", "row-lineage", "trap"),
              description="v3 trap table (reference writer): manifest lists without the format-version key in "
                          "their Avro metadata (no version requires it; the table metadata gives the version), a "
                          "data file of ids 1..3 and a deletion vector deleting position 1")
def trap_v3_manifest_list_no_version(w: ReferenceWriter) -> None:
    _manifest_list_no_version(w, "deletion_vectors", "deletion vector of position 1")


def _manifest_list_no_version(w: ReferenceWriter, deletes: str, label: str) -> None:
    """Ids 1..3, then position 1 deleted by ``deletes`` (a ``TableBuilder`` method: a deletion
    vector in v3, a position delete file in v2), manifest lists written without format-version."""
    t = w.create([_rf(1, "id", "long", True)], list_version_key=False)
    rows: list[Row] = [{"id": 1}, {"id": 2}, {"id": 3}]
    t.append(rows)
    w.expect("append 1..3", rows)
    getattr(t, deletes)({next(iter(t.data_files)): [1]})
    w.expect(label, [{"id": 1}, {"id": 3}])


@golden_table(name="trap_v2_manifest_list_no_version", format_version=2, producer="reference",
              features=("v2", "manifest-list-no-format-version", "position-deletes", "merge-on-read", "trap"),
              description="v2 trap table (reference writer): manifest lists without the format-version key in "
                          "their Avro metadata, a data file of ids 1..3 and a Parquet position delete file (in a "
                          "delete manifest, content 1, sequence number 2) deleting position 1")
def trap_v2_manifest_list_no_version(w: ReferenceWriter) -> None:
    _manifest_list_no_version(w, "position_deletes", "position delete of position 1")


@golden_table(name="trap_v2_manifest_list_legacy_names", format_version=2, producer="reference",
              features=("v2", "legacy-names", "trap"),
              description="v2 trap table (reference writer): manifest lists name fields 504..506 "
                          "added_data_files_count, existing_data_files_count, deleted_data_files_count (the "
                          "names Iceberg Java wrote before 1.4; fields are identified by id), two appends")
def trap_v2_manifest_list_legacy_names(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")],
                 list_field_names={504: "added_data_files_count", 505: "existing_data_files_count",
                                   506: "deleted_data_files_count"})
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}, {"id": 3, "data": None}]
    t.append(rows)
    w.expect("append 1..3", rows)
    more: list[Row] = [{"id": 4, "data": "d"}]
    t.append(more)
    w.expect("append 4", rows + more)


@golden_table(name="trap_v2_field_id_zero", format_version=2, producer="reference",
              features=("v2", "field-id-zero", "identity", "trap"),
              description="v2 trap table (reference writer): schema field ids start at 0 (id 0, name 1), "
                          "partitioned by identity(name); the spec bounds field ids only from above")
def trap_v2_field_id_zero(w: ReferenceWriter) -> None:
    t = w.create([_rf(0, "id", "long", True), _rf(1, "name", "string")],
                 [[{"source-id": 1, "field-id": 1000, "name": "name", "transform": "identity"}]], bounds=True)
    rows: list[Row] = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": None}]
    t.append(rows)
    w.expect("append", rows)


@golden_table(name="trap_v2_partition_column_absent", format_version=2, producer="reference",
              features=("v2", "identity", "migrated", "trap"),
              description="v2 trap table (reference writer): partitioned by identity(p), data files that do not "
                          "store p (as in a table migrated from Hive): p is read from the partition tuple")
def trap_v2_partition_column_absent(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "int", True), _rf(2, "p", "string")],
                 [[{"source-id": 2, "field-id": 1000, "name": "p", "transform": "identity"}]], bounds=True)
    rows: list[Row] = [{"id": 1, "p": "a"}, {"id": 2, "p": "a"}, {"id": 3, "p": "b"}, {"id": 4, "p": None}]
    # "Column Projection": "Return the value from partition metadata if an Identity Transform
    # exists for the field and the partition value is present in the partition struct"
    t.append(rows, omit=("p",))
    w.expect("append; the files store id only", rows)


@golden_table(name="trap_v2_dropped_partition_source", format_version=2, producer="reference",
              features=("v2", "dropped-partition-source", "schema-evolution", "drop", "identity", "trap"),
              description="v2 trap table (reference writer): spec 0 is identity(q), identity(p); spec 1 keeps "
                          "identity(p) only, then column q is dropped: the manifests of spec 0 still hold q's "
                          "field summary first, p's second")
def trap_v2_dropped_partition_source(w: ReferenceWriter) -> None:
    p_field = {"source-id": 3, "field-id": 1001, "name": "p", "transform": "identity"}
    t = w.create([_rf(1, "id", "int", True), _rf(2, "q", "int"), _rf(3, "p", "int")],
                 [[{"source-id": 2, "field-id": 1000, "name": "q", "transform": "identity"}, p_field]], bounds=True)
    rows: list[Row] = [{"id": 1, "q": 10, "p": 2}, {"id": 2, "q": 20, "p": 3}]
    t.append(rows)
    w.expect("append under identity(q), identity(p)", rows)
    t.evolve_spec([p_field])
    t.drop_column("q")
    rows = [{"id": r["id"], "p": r["p"]} for r in rows]
    more: list[Row] = [{"id": 3, "p": 2}, {"id": 4, "p": 30}]
    t.append(more)
    w.expect("q dropped (spec 1: identity(p)), append", rows + more)


# --- traps of the bug corpus, part b: reader bugs of Iceberg Java, PyIceberg and iceberg-rust ----

#: the rows of trap_v2_dictionary_nulls: five rows whose values the filters exclude (each value
#: repeated, so that the Parquet writer keeps the dictionary encoding), one of nulls; e holds NaN
#: among numbers (Parquet row-group statistics may then carry NaN as the maximum)
DICTIONARY_NULL_ROWS: list[Row] = [
    {"id": i, "s": s, "d": "NaN", "c": "a", "e": e}
    for i, s, e in ((1, "some1", 1.0), (2, "some2", 5.0), (3, "some1", "NaN"), (4, "some2", 1.0), (5, "some1", 5.0))
] + [{"id": 6, "s": None, "d": None, "c": None, "e": None}]


@golden_table(name="trap_v2_dictionary_nulls", format_version=2,
              features=("v2", "types", "dictionary-encoding", "nan", "trap"),
              description="v2 trap table (Spark): one Parquet data file, one row group, whose columns are "
                          "dictionary-encoded: s ('some1', 'some2' and null), d (NaN and null), c ('a' and null); "
                          "a dictionary holds no null, so a row-group filter that judges by the dictionary alone "
                          "drops the null row that not-starts-with, not-nan and not-eq select; e holds 1.0, 5.0, "
                          "NaN and null")
def trap_v2_dictionary_nulls(t: TableWriter) -> None:
    t.create([("id", "int"), ("s", "string"), ("d", "double"), ("c", "string"), ("e", "double")])
    t.insert(DICTIONARY_NULL_ROWS)
    t.expect("append of six rows in one file", DICTIONARY_NULL_ROWS)


#: 17 code points whose 16th is U+D7FF, the last scalar value before the surrogates: an upper
#: bound truncated to 16 code points must end in U+E000 (UTF-8 ee 80 80), the next scalar
#: value; U+D800 is no character and has no UTF-8 form
SURROGATE_EDGE = "a" * 15 + "\ud7ff"
SURROGATE_ROWS: list[Row] = [{"id": 1, "s": SURROGATE_EDGE + "b"}, {"id": 2, "s": SURROGATE_EDGE},
                             {"id": 3, "s": "a" * 16}, {"id": 4, "s": None}]


@golden_table(name="trap_v2_string_bound_surrogate", format_version=2,
              features=("v2", "truncated-bounds", "non-ascii", "trap"),
              description="v2 trap table (Spark): a string of 17 code points whose 16th is U+D7FF (its upper bound, "
                          "truncated to 16 code points, must end in U+E000, the next scalar value after the "
                          "surrogate range), its 16-code-point prefix, 'a' x 16 and null in one data file")
def trap_v2_string_bound_surrogate(t: TableWriter) -> None:
    t.create([("id", "int"), ("s", "string")])
    t.insert(SURROGATE_ROWS)
    t.expect("append of four rows in one file", SURROGATE_ROWS)


NULL_PARTITION_ROWS: list[Row] = [{"id": 1, "i": 1, "ts": "2017-11-16T10:00:00.000000+00:00"},
                                  {"id": 2, "i": None, "ts": None},
                                  {"id": 3, "i": 7, "ts": "2017-11-17T10:00:00.000000+00:00"}]


@golden_table(name="trap_v2_null_partition_residual", format_version=2,
              features=("v2", "identity", "day", "null-partition", "trap"),
              description="v2 trap table (Spark): partitioned by identity(i) and day(ts), one file per partition, "
                          "one of them the null partition (i and ts null); under a filter that ors a partition "
                          "column's comparison with a condition on another column, no partition is pruned and the "
                          "residual meets the null partition value")
def trap_v2_null_partition_residual(t: TableWriter) -> None:
    t.create([("id", "int"), ("i", "int"), ("ts", "timestamptz")], partitioned_by="i, days(ts)",
             properties={"write.spark.fanout.enabled": "true"})
    t.insert(NULL_PARTITION_ROWS)
    t.expect("append: partitions (1, 2017-11-16), (null, null), (7, 2017-11-17)", NULL_PARTITION_ROWS)


TRUNCATE_PREFIX_ROWS: list[Row] = [{"id": 1, "s": "aab"}, {"id": 2, "s": "aaa"}, {"id": 3, "s": "ab"},
                                   {"id": 4, "s": "b"}]


@golden_table(name="trap_v2_truncate_not_starts_with", format_version=2,
              features=("v2", "truncate", "trap"),
              description="v2 trap table (Spark): partitioned by truncate[2](s), no nulls: the partition 'aa' holds "
                          "'aab' and 'aaa'; a prefix longer than the width ('aaa') decides no partition 'aa' row")
def trap_v2_truncate_not_starts_with(t: TableWriter) -> None:
    t.create([("id", "int"), ("s", "string")], partitioned_by="truncate(2, s)",
             properties={"write.spark.fanout.enabled": "true"})
    t.insert(TRUNCATE_PREFIX_ROWS)
    t.expect("append: partitions aa (aab, aaa), ab, b", TRUNCATE_PREFIX_ROWS)


@golden_table(name="trap_v2_global_eq_delete_same_commit", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "global-deletes", "sequence-numbers", "identity", "trap"),
              description="v2 trap table (reference writer): partitioned by identity(data); one commit adds a global "
                          "equality delete (unpartitioned spec 1) of id 2 and 3 and a data file holding id 2: the "
                          "delete removes the older id 3, not the id 2 of its own sequence number")
def trap_v2_global_eq_delete_same_commit(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")],
                 [[{"source-id": 2, "field-id": 1000, "name": "data", "transform": "identity"}], []])
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 3, "data": "c"}]
    t.append(rows)
    w.expect("append 1, 3", rows)
    # "Scan Planning": an equality delete file applies to a data file when the data file's data
    # sequence number is strictly less than the delete's; a global delete (unpartitioned spec)
    # applies in every partition
    same: list[Row] = [{"id": 2, "data": "b"}]
    t.equality_delete([{"id": 2}, {"id": 3}], ["id"], spec_id=1, also_append=same)
    rows = [r for r in rows if r["id"] != 3] + same
    w.expect("global equality delete of id 2, 3 and an append of id 2 in one commit", rows)


@golden_table(name="trap_v2_eq_delete_extra_columns", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "sequence-numbers", "trap"),
              description="v2 trap table (reference writer): an equality delete on id whose file also stores the "
                          "column dt (the new row's value, 2022-01-01, as an upsert writer put it) with its bounds, "
                          "committed with the new row: the delete's dt bounds say nothing of the rows it deletes")
def trap_v2_eq_delete_extra_columns(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "int", True), _rf(2, "dt", "date")], bounds=True)
    rows: list[Row] = [{"id": 1, "dt": "2021-01-01"}, {"id": 2, "dt": "2021-06-01"}]
    t.append(rows)
    w.expect("append 1, 2", rows)
    # "Equality Delete Files": equality_ids [1]; a data row is deleted when its id equals a
    # delete row's id, whatever dt holds ("store any subset of a table's columns")
    new: list[Row] = [{"id": 1, "dt": "2022-01-01"}]
    t.equality_delete(new, ["id"], stored=("dt",), also_append=new)
    rows = [r for r in rows if r["id"] != 1] + new
    w.expect("upsert of id 1: equality delete (id; dt stored) and the new row in one commit", rows)


def _snapshots_list_manifests(t: TableWriter) -> None:
    """A new metadata version of Spark's v1 table in which every snapshot lists its manifests in
    ``manifests`` instead of naming a manifest list ("Snapshots": in v1 ``manifests`` is "A list
    of manifest file locations. Must be omitted if ``manifest-list`` is present"); the manifest
    lists stay on disk, named by no snapshot."""
    import json

    import fastavro

    from iceberg_conformance.suites.golden.registry import latest_metadata

    current = latest_metadata(t.table_dir())
    md = json.loads(current.read_text(encoding="utf-8"))
    for snap in md["snapshots"]:
        with open(snap.pop("manifest-list").removeprefix("file:"), "rb") as f:
            snap["manifests"] = [cast(dict[str, Any], m)["manifest_path"] for m in fastavro.reader(f)]
    version = int(current.name.split(".")[0][1:]) + 1
    # the file just replaced joins the metadata log, written as Spark wrote the table's locations
    where = str(current) if md["location"].startswith("/") else current.as_uri()
    md["metadata-log"] = md.get("metadata-log", []) + [{"timestamp-ms": md["last-updated-ms"], "metadata-file": where}]
    out = current.with_name(f"v{version}.metadata.json")
    out.write_text(json.dumps(md, indent=2), encoding="utf-8")
    (current.parent / "version-hint.text").write_text(str(version), encoding="utf-8")


@golden_table(name="trap_v1_snapshot_manifests", format_version=1,
              features=("v1", "snapshot-manifests", "trap"),
              description="v1 trap table (Spark, then its metadata rewritten): two appends whose snapshots list their "
                          "manifests in the v1 field manifests and name no manifest list")
def trap_v1_snapshot_manifests(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")])
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": None}]
    t.insert(rows)
    t.expect("append 1, 2", rows)
    more: list[Row] = [{"id": 3, "data": "c"}]
    t.insert(more)
    t.expect("append 3", rows + more)
    _snapshots_list_manifests(t)


# --- traps of the bug corpus, part 4a: reader bugs of ClickHouse, DuckDB, Daft and Impala --------

DANGLING_ROWS: list[Row] = [{"id": i, "data": f"d{i}"} for i in range(1, 11)]


@golden_table(name="trap_v2_dangling_deletes", format_version=2,
              features=("v2", "position-deletes", "merge-on-read", "delete", "rewrite", "dangling-deletes", "trap"),
              description="v2 trap table (Spark): 10 rows in one file, a merge-on-read DELETE of ids 3 and 7 (a "
                          "position delete file), then rewrite_data_files: a new file of the 8 live rows while the "
                          "delete file stays live, naming a data file no longer in the table (a count that "
                          "subtracts every delete record is 6, not 8)")
def trap_v2_dangling_deletes(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")], properties={"write.delete.mode": "merge-on-read"})
    t.insert(DANGLING_ROWS)
    t.expect("append ids 1..10", DANGLING_ROWS)
    t.sql("DELETE FROM {t} WHERE id IN (3, 7)")
    rows = [r for r in DANGLING_ROWS if r["id"] not in (3, 7)]
    t.expect("merge-on-read delete of ids 3, 7", rows)
    # the rewrite applies the deletes to the rows it writes; it does not remove the delete file
    # (remove-dangling-deletes is off by default), which then names only a removed data file
    t.sql(f"CALL {t.catalog}.system.rewrite_data_files(table => '{t.namespace}.{t.spec.name}', "
          "options => map('rewrite-all', 'true'))")
    t.expect("rewrite_data_files: one file of the 8 live rows; the delete file stays live", rows)


@golden_table(name="trap_v2_identity_added", format_version=2,
              features=("v2", "added-partition-field", "identity", "trap"),
              description="v2 trap table (Spark): unpartitioned spec 0 with one file holding dt a, b and null, "
                          "then identity(dt) added (spec 1) and a file of dt a and c: a filter on dt must still "
                          "filter the rows of the spec-0 file, which has no partition value to prune by")
def trap_v2_identity_added(t: TableWriter) -> None:
    t.create([("id", "int"), ("dt", "string"), ("x", "int")])
    first: list[Row] = [{"id": 1, "dt": "a", "x": 1}, {"id": 2, "dt": "b", "x": 3}, {"id": 3, "dt": None, "x": 5}]
    t.insert(first)
    t.expect("spec 0 (unpartitioned): dt a, b, null in one file", first)
    t.sql("ALTER TABLE {t} ADD PARTITION FIELD dt")
    more: list[Row] = [{"id": 4, "dt": "a", "x": 6}, {"id": 5, "dt": "c", "x": 7}]
    t.insert(more)
    t.expect("spec 1 identity(dt): dt a, c", first + more)


@golden_table(name="trap_v2_empty_snapshot", format_version=2,
              features=("v2", "empty-snapshot", "trap"),
              description="v2 trap table (Spark): an INSERT of no rows commits a snapshot whose manifest list "
                          "holds no manifest (an Avro file with a header and no data block), then an append")
def trap_v2_empty_snapshot(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")])
    t.sql("INSERT INTO {t} SELECT * FROM VALUES (1, 'a') AS v(id, data) WHERE false")
    t.expect("an INSERT of no rows", [])
    rows: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": None}]
    t.insert(rows)
    t.expect("append 1, 2", rows)


@golden_table(name="trap_v2_manifest_entry_inherited", format_version=2, producer="reference",
              features=("v2", "equality-deletes", "inherited-sequence-numbers", "trap"),
              description="v2 trap table (reference writer): manifests whose Avro schema has no snapshot_id, "
                          "sequence_number and file_sequence_number (optional fields, every entry ADDED: the values "
                          "are inherited from the manifest list, as BigQuery writes them); ids 1..5, an equality "
                          "delete of id 5 (sequence number 2), then ids 5, 6 again (sequence number 3: not deleted)")
def trap_v2_manifest_entry_inherited(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], bounds=True,
                 entry_fields_omitted=(1, 3, 4))
    rows: list[Row] = [{"id": i, "data": f"d{i}"} for i in range(1, 6)]
    t.append(rows)
    w.expect("append 1..5", rows)
    # "Equality Delete Files": applies to data files of a strictly lower data sequence number
    t.equality_delete([{"id": 5}], ["id"])
    rows = [r for r in rows if r["id"] != 5]
    w.expect("equality delete id = 5 (sequence number 2)", rows)
    more: list[Row] = [{"id": 5, "data": "again"}, {"id": 6, "data": "d6"}]
    t.append(more)
    w.expect("append 5, 6 (sequence number 3: the delete does not apply)", rows + more)


@golden_table(name="trap_v2_list_no_partition_summaries", format_version=2, producer="reference",
              features=("v2", "identity", "no-partition-summaries", "trap"),
              description="v2 trap table (reference writer): partitioned by identity(p), manifest lists whose "
                          "optional partitions field (field summaries) is null; two appends in two partitions")
def trap_v2_list_no_partition_summaries(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "p", "string")],
                 [[{"source-id": 2, "field-id": 1000, "name": "p", "transform": "identity"}]], bounds=True,
                 list_partitions=False)
    rows: list[Row] = [{"id": 1, "p": "a"}, {"id": 2, "p": "a"}]
    t.append(rows)
    w.expect("append p = a", rows)
    more: list[Row] = [{"id": 3, "p": "b"}, {"id": 4, "p": None}]
    t.append(more)
    w.expect("append p = b and null", rows + more)


@golden_table(name="trap_v2_dropped_column_schema_removed", format_version=2, producer="reference",
              features=("v2", "drop", "removed-schema", "expire-snapshots", "trap"),
              description="v2 trap table (reference writer): a file written with columns id, extra, data; extra "
                          "dropped, another append, the older snapshot expired and its schema removed: the file "
                          "holds a column (field 2) no schema of the metadata has")
def trap_v2_dropped_column_schema_removed(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "extra", "string"), _rf(3, "data", "string")], bounds=True)
    first: list[Row] = [{"id": 1, "extra": "x", "data": "a"}, {"id": 2, "extra": None, "data": "b"}]
    t.append(first)
    w.expect("append with extra", first)
    t.drop_column("extra")
    more: list[Row] = [{"id": 3, "data": "c"}]
    t.append(more)
    w.expect("extra dropped, append", [{"id": r["id"], "data": r["data"]} for r in first] + more)
    t.expire_snapshots()
    t.remove_unused_schemas()


@golden_table(name="trap_v1_existing_deleted", format_version=1,
              features=("v1", "identity", "delete", "existing-entries", "deleted-entries", "trap"),
              description="v1 trap table (Spark): one append writes the files of partitions a and b into one "
                          "manifest; a DELETE of partition b rewrites it with b's file DELETED and a's EXISTING (v1 "
                          "manifest entries have no sequence numbers)")
def trap_v1_existing_deleted(t: TableWriter) -> None:
    t.create([("id", "int"), ("p", "string")], partitioned_by="p", properties={"write.spark.fanout.enabled": "true"})
    rows: list[Row] = [{"id": 1, "p": "a"}, {"id": 2, "p": "a"}, {"id": 3, "p": "b"}, {"id": 4, "p": "b"}]
    t.insert(rows)
    t.expect("one append: the files of partitions a and b in one manifest", rows)
    t.sql("DELETE FROM {t} WHERE p = 'b'")
    rows = [r for r in rows if r["p"] != "b"]
    t.expect("delete of partition b: b's file DELETED, a's EXISTING", rows)


MONTH_ROWS: list[Row] = [{"id": i, "ts": ts} for i, ts in enumerate(
    ["2025-01-03T10:00:00.000000", "2025-01-10T00:00:00.000000", "2025-01-17T12:30:00.000000",
     "2025-01-24T23:59:59.999999", "2025-01-31T23:59:59.999999", "2025-02-01T00:00:00.000000",
     "2025-02-14T08:00:00.000000", "2025-02-28T23:59:59.999999", "2025-03-01T00:00:00.000000",
     "2025-03-15T16:45:00.000000"], start=1)]


@golden_table(name="trap_v2_month_boundary", format_version=2,
              features=("v2", "month", "trap"),
              description="v2 trap table (Spark): partitioned by month(ts), rows on several days of 2025-01, "
                          "2025-02 and 2025-03, one at exactly 2025-02-01T00:00 and the last microsecond before it: "
                          "months far from the epoch, whose count of months is not a count of days")
def trap_v2_month_boundary(t: TableWriter) -> None:
    t.create([("id", "int"), ("ts", "timestamp")], partitioned_by="months(ts)",
             properties={"write.spark.fanout.enabled": "true"})
    t.insert(MONTH_ROWS)
    t.expect("one append: three month partitions", MONTH_ROWS)


@golden_table(name="trap_v2_existing_expired", format_version=2,
              features=("v2", "existing-entries", "expire-snapshots", "trap"),
              description="v2 trap table (Spark): manifests merged on the second append (min-count-to-merge 2), "
                          "so the first file is an EXISTING entry whose snapshot_id names the first snapshot; then "
                          "that snapshot is expired: the entry outlives the snapshot that added it")
def trap_v2_existing_expired(t: TableWriter) -> None:
    t.create([("id", "int"), ("data", "string")],
             properties={"commit.manifest-merge.enabled": "true", "commit.manifest.min-count-to-merge": "2"})
    first: list[Row] = [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]
    t.insert(first)
    t.expect("append 1, 2", first)
    more: list[Row] = [{"id": 3, "data": "c"}]
    t.insert(more)
    t.expect("append 3: one merged manifest, the first file EXISTING", first + more)
    _expire(t)


@golden_table(name="trap_v3_dv_one_of_two_files", format_version=3, producer="reference",
              features=("v3", "deletion-vectors", "puffin", "delete", "merge-on-read", "row-lineage",
                        "dv-beside-other-files", "trap"),
              description="v3 trap table (reference writer): one partition (unpartitioned) holding two data files, "
                          "A (ids 1..3) and B (ids 4..6), and one deletion vector whose referenced_data_file is A, "
                          "deleting position 0; the deletion vector has no file_path bounds, so only "
                          "referenced_data_file scopes it to A")
def trap_v3_dv_one_of_two_files(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], bounds=True)
    first: list[Row] = [{"id": i, "data": f"a{i}"} for i in (1, 2, 3)]
    t.append(first)
    # "Row Lineage": each append's data file takes first_row_id = the table's next-row-id
    # (0, then 3); rows without stored lineage inherit it and the file's sequence number
    lineage: dict[int, tuple[int | None, int | None]] = {int(r["id"]): (i, 1) for i, r in enumerate(first)}
    w.expect("append A: ids 1..3", first, dict(lineage))
    second: list[Row] = [{"id": i, "data": f"b{i}"} for i in (4, 5, 6)]
    t.append(second)
    lineage.update({int(r["id"]): (3 + i, 2) for i, r in enumerate(second)})
    w.expect("append B: ids 4..6", first + second, dict(lineage))
    file_a = next(iter(t.data_files))
    # "Deletion Vectors": a DV applies to the one data file its referenced_data_file names;
    # position 0 of A (rows in the order given) holds id 1
    t.deletion_vectors({file_a: [0]})
    del lineage[1]
    w.expect("deletion vector of A: position 0 (id 1); B untouched", first[1:] + second, lineage)


#: rows on both sides of 2024-01-01T15:00 UTC, which is midnight of 2024-01-02 in UTC+09:00
SESSION_ZONE_ROWS: list[Row] = [{"id": i, "ts": ts} for i, ts in enumerate(
    ["2023-12-31T23:30:00.000000", "2024-01-01T00:00:00.000000", "2024-01-01T14:59:59.999999",
     "2024-01-01T15:00:00.000000", "2024-01-01T23:30:00.000000", "2024-01-02T00:00:00.000000", None], start=1)]


@golden_table(name="trap_v2_day_session_time_zone", format_version=2, producer="reference",
              features=("v2", "day", "session-time-zone", "trap"), session_time_zone="Asia/Tokyo",
              description="v2 trap table (reference writer), read by the consumers that have a session time zone "
                          "in UTC+09:00 (Asia/Tokyo): a timestamp column partitioned by day(ts), rows on 2023-12-31, "
                          "2024-01-01 (before and after 15:00, the start of 2024-01-02 in UTC+09:00) and 2024-01-02; "
                          "day(ts) counts days from 1970-01-01 of the stored value, whatever the session's zone")
def trap_v2_day_session_time_zone(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "ts", "timestamp")],
                 [[{"source-id": 2, "field-id": 1000, "name": "ts_day", "transform": "day"}]], bounds=True)
    t.append(SESSION_ZONE_ROWS)
    w.expect("one append: the days 2023-12-31, 2024-01-01, 2024-01-02 and null", SESSION_ZONE_ROWS)


@golden_table(name="trap_v3_compacted_before_upgrade", format_version=3, producer="reference",
              features=("v2", "v3", "upgrade", "row-lineage", "row-lineage-columns", "compaction", "trap"),
              description="v2 trap table (reference writer) upgraded to v3: a file appended at sequence number 1 is "
                          "compacted (a replace commit at sequence number 2 whose new file keeps data sequence number "
                          "1), the table is upgraded to v3 and appended to: the compacted rows' "
                          "_last_updated_sequence_number is their file's data sequence number 1, not its file "
                          "sequence number 2")
def trap_v3_compacted_before_upgrade(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], version=2, bounds=True)
    rows: list[Row] = [{"id": i, "data": f"d{i}"} for i in (1, 2, 3)]
    t.append(rows)
    # "Row Lineage for Upgraded Tables": data files of snapshots from before the upgrade have a
    # null first_row_id, so readers produce null lineage for them
    w.expect("append 1..3 (v2, sequence number 1)", rows, {r["id"]: (None, None) for r in rows})
    t.compact(next(iter(t.data_files)))
    w.expect("compaction (v2, sequence number 2; the new file keeps data sequence number 1)", rows,
             {r["id"]: (None, None) for r in rows})
    t.upgrade()
    more: list[Row] = [{"id": 4, "data": "d4"}]
    t.append(more)
    # the v3 append (sequence number 3) assigns first_row_id to its own manifest first (row id 0),
    # then to the manifest of the compacted file (row ids 1..3); "Replace any null or missing
    # _last_updated_sequence_number to the data file's data_sequence_number": 3 and 1
    lineage = {4: (0, 3)} | {r["id"]: (i + 1, 1) for i, r in enumerate(rows)}
    w.expect("append 4 (v3, after the upgrade)", rows + more, lineage)


@golden_table(name="trap_v2_deprecated_data_file_fields", format_version=2, producer="reference",
              features=("v2", "deprecated-fields", "trap"),
              description="v2 trap table (reference writer): data manifests whose data_file record also has the "
                          "deprecated optional fields 106 file_ordinal, 107 sort_columns (list) and 111 "
                          "distinct_counts (map), null in every entry, as manifests of early Iceberg Java carry "
                          "them; a reader's read schema lacks them and must skip them (a checker warning, not an "
                          "error); one append")
def trap_v2_deprecated_data_file_fields(w: ReferenceWriter) -> None:
    t = w.create([_rf(1, "id", "long", True), _rf(2, "data", "string")], bounds=True, deprecated_fields=True)
    rows: list[Row] = [{"id": i, "data": d} for i, d in enumerate("abc", start=1)]
    t.append(rows)
    w.expect("append 1..3", rows)
