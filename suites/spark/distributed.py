"""The table checker beyond one machine: its units of work as Spark tasks.

:func:`checker.plan.plan_units` lists a table's work as picklable units (the metadata file,
each snapshot, each manifest, each data or delete file) and :func:`checker.check.run_unit`
turns one unit into findings without side effects. :func:`spark_mapper` runs them as Spark
tasks (``sc.parallelize(units).map(run_unit)``); :func:`check_table_on_spark` is
``checker.check_table`` with that mapper, so the findings are the same as a local run's
(same units, same function, deduplicated the same way).

``python -m iceberg_conformance.suites.spark.distributed TABLE...`` checks tables on Spark and, with ``--compare``,
also locally, and says whether the findings agree. ``--synthetic DIR --files N`` first
writes a table of N single-row data files, each in its own manifest, to show the split on a
table with many manifests.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from iceberg_conformance.suites.spark import session


def spark_mapper(spark: Any, slices: int | None = None) -> Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]:
    """A ``mapper`` for ``checker.check_table`` that runs every unit as a Spark task."""
    def mapper(fn: Callable[[Any], Any], units: list[Any]) -> Iterable[Any]:
        if not units:
            return []
        n = slices or max(1, min(len(units), 4 * int(spark.sparkContext.defaultParallelism)))
        # one result per unit, in unit order (collect keeps partition order)
        result: list[Any] = spark.sparkContext.parallelize(units, n).map(fn).collect()
        return result
    return mapper


def check_table_on_spark(table: str, spark: Any | None = None, metadata_only: bool = False) -> Any:
    """``checker.check_table`` with its units run as Spark tasks (the snapshot units run
    on the driver, from the digests the manifest tasks return)."""
    from iceberg_conformance.checker.check import check_table

    spark = spark or session.spark()
    return check_table(table, mapper=spark_mapper(spark), metadata_only=metadata_only)


def make_synthetic_table(out: Path, files: int) -> str:
    """A v2 table with ``files`` single-row data files, each in its own manifest.

    Spark writes the files in one INSERT (identity-partitioned by ``id``, so one file per row);
    the kit's Java helper then rewrites the snapshot's manifests into one manifest per file
    (``RewriteManifests``, entries kept as EXISTING). Returns the metadata file."""
    from iceberg_conformance.checker.find import latest_metadata

    spark = session.spark()
    cat = session.catalog("synthetic", out)
    name = f"{cat}.db.many_manifests"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {cat}.db")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, data STRING) USING iceberg PARTITIONED BY (id) "
              "TBLPROPERTIES ('format-version'='2', 'write.distribution-mode'='none', "
              "'write.spark.fanout.enabled'='false')")
    # one task, rows sorted by the partition column: the clustered writer keeps one file open
    (spark.range(files).selectExpr("id", "concat('row ', id) AS data").repartition(1)
     .sortWithinPartitions("id").writeTo(name).append())
    jvm = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, name)
    written = int(session.java_class("icebergconformance.SyntheticTables").oneManifestPerFile(table))
    session.progress(f"synthetic table: {files} data files, rewritten into {written} manifests")
    return str(latest_metadata(str(out / "db" / "many_manifests")))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m iceberg_conformance.suites.spark.distributed", description=__doc__.split("\n\n")[0])
    p.add_argument("tables", nargs="*", help="metadata files or table directories")
    p.add_argument("--compare", action="store_true", help="also run locally and compare the findings")
    p.add_argument("--synthetic", metavar="DIR", help="first write a many-manifest table into DIR and check it")
    p.add_argument("--files", type=int, default=1000, help="data files (= manifests) of the synthetic table")
    p.add_argument("--metadata-only", action="store_true",
                   help="metadata, manifest lists and manifests only; data and delete files are not opened")
    args = p.parse_args(argv)
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.find import find_tables

    tables = [t for given in args.tables for t in find_tables(given)]
    if args.synthetic:
        t0 = time.monotonic()
        tables.append(make_synthetic_table(Path(args.synthetic).resolve(), args.files))
        session.progress(f"synthetic table written in {time.monotonic() - t0:.1f} s: {tables[-1]}")
    if not tables:
        p.error("no tables given")
    status = 0
    try:
        spark = session.spark()
        for table in tables:
            t0 = time.monotonic()
            remote = check_table_on_spark(table, spark, args.metadata_only)
            session.progress(f"{table}: {remote.units} units on Spark in {time.monotonic() - t0:.1f} s, "
                             f"{len(remote.findings)} findings")
            if args.compare:
                t0 = time.monotonic()
                local = check_table(table, metadata_only=args.metadata_only)
                session.progress(f"{table}: {local.units} units locally in {time.monotonic() - t0:.1f} s, "
                                 f"{len(local.findings)} findings")
                same = sorted(map(str, local.findings)) == sorted(map(str, remote.findings))
                print(f"{table}: units {remote.units}; findings local {len(local.findings)}, "
                      f"Spark {len(remote.findings)}: {'EQUAL' if same else 'DIFFERENT'}")
                if not same:
                    status = 1
                    for f in sorted(set(map(str, local.findings)) ^ set(map(str, remote.findings))):
                        print(f"  differs: {f}")
            for f in remote.findings[:20]:
                print(f"  {f}")
    except session.SparkUnavailable as e:
        print(f"cannot run on Spark: {e}", file=sys.stderr)
        return 2
    finally:
        session.stop()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
