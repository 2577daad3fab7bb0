"""The table checker beyond one machine: its units of work as Spark tasks.

:func:`checker.plan.plan_units` lists a table's work as picklable units (the metadata file,
each snapshot, each manifest, each data or delete file) and :func:`checker.check.run_batch`
turns a batch of units into findings without side effects. :func:`spark_mapper` runs batches as
Spark tasks (``sc.parallelize(batches).map(run_batch)``); :func:`check_table_on_spark` is
``checker.check_table`` with that mapper, so the findings are the same as a local run's (same
units, same function, deduplicated the same way).

``iceberg-conformance check --spark TABLE...`` runs them on the user's Spark: the session
:func:`user_session` gets (``SparkSession.builder.getOrCreate()``: spark-submit's options,
``SPARK_CONF_DIR``'s ``spark-defaults.conf``, ``PYSPARK_SUBMIT_ARGS``, an active session), no
Iceberg jar needed, with progress per stage (:class:`StageProgress`).

``python -m iceberg_conformance.suites.spark.distributed TABLE...`` checks tables on the kit's own
local session and, with ``--compare``, also locally, and says whether the findings agree.
``--synthetic DIR --files N`` first writes a table of N single-row data files, each in its own
manifest, to show the split on a table with many manifests.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

from iceberg_conformance.suites.spark import session

#: the application name of a check whose configuration names none
APP_NAME = "iceberg-conformance check"
SparkUnavailable = session.SparkUnavailable
#: what a task runs: a batch of units to its results
Runner = Callable[[Any], Any]


def user_session(master: str | None = None, conf: Iterable[tuple[str, str]] = ()) -> tuple[Any, bool]:
    """The user's SparkSession and whether it was started here (then the caller stops it): the
    active one, else ``SparkSession.builder.getOrCreate()`` with ``master`` and ``conf`` over what
    spark-submit, ``spark-defaults.conf`` and ``PYSPARK_SUBMIT_ARGS`` configure. Without
    ``PYSPARK_PYTHON``, the Python workers run ``spark.pyspark.python`` when it is set, else, with
    a local master, this interpreter (which imports the kit). SparkUnavailable when pyspark is
    missing or Spark does not start."""
    try:
        from pyspark import SparkConf, SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("pyspark is not installed: pip install 'iceberg-conformance[spark]'") from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    given = dict(conf)
    if master:
        given["spark.master"] = master
    try:
        # the JVM, started through spark-submit, holds the user's configuration as system properties
        SparkContext._ensure_initialized()
        defaults = SparkConf()
        if not given.get("spark.app.name") and defaults.get("spark.app.name", "pyspark-shell") == "pyspark-shell":
            given["spark.app.name"] = APP_NAME
        chosen = given.get("spark.master") or defaults.get("spark.master", "local[*]") or ""
        python = given.get("spark.pyspark.python") or defaults.get("spark.pyspark.python", None)
        if "PYSPARK_PYTHON" not in os.environ and (python or chosen.startswith("local")):
            # PySpark's workers run $PYSPARK_PYTHON (else python3), whatever spark.pyspark.python says
            os.environ["PYSPARK_PYTHON"] = python or sys.executable
        builder = SparkSession.builder
        for k, v in given.items():
            builder = builder.config(k, v)
        return builder.getOrCreate(), True
    except Exception as e:  # the JVM did not come up, or a bad master: one line, not a traceback
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise SparkUnavailable(f"Spark did not start: {type(e).__name__}: {first}") from None


def describe(spark: Any) -> str:
    """The session a check runs on, in words: application, master, task slots."""
    sc = spark.sparkContext
    return (f"Spark {spark.version}: application {sc.appName!r} ({sc.applicationId}), master {sc.master}, "
            f"default parallelism {sc.defaultParallelism}")


class _CountKinds:
    """Unit counts per kind, summed over tasks (a ``pyspark.AccumulatorParam``)."""

    def zero(self, value: dict[str, int]) -> dict[str, int]:
        return {}

    def addInPlace(self, a: dict[str, int], b: dict[str, int]) -> dict[str, int]:  # noqa: N802 (pyspark's name)
        for k, n in b.items():
            a[k] = a.get(k, 0) + n
        return a


def _counted(fn: Callable[[Any], Any], acc: Any) -> Callable[[Any], Any]:
    """``fn`` over a batch of units, the batch's units counted per kind in ``acc`` once done."""
    def run(batch: Any) -> Any:
        out = fn(batch)
        acc.add(dict(Counter(getattr(u, "kind", "unit") for u in batch)))
        return out
    return run


def _kinds(counts: dict[str, int], of: dict[str, int] | None = None) -> str:
    return ", ".join(f"{k} {counts.get(k, 0)}/{n}" if of is not None else f"{n} {k}"
                     for k, n in sorted((of or counts).items()))


class StageProgress:
    """Progress of a check on Spark, one line per stage on stderr (``say``): planning, each
    Spark stage (the units of each kind done, updated while it runs, and its time), the snapshot
    units on the driver, and the merge of the findings."""

    def __init__(self, spark: Any, say: Callable[[str], None] | None, every: float = 5.0) -> None:
        self.spark = spark
        self.say = say
        self.every = every
        self.start = self.mark = time.monotonic()
        self.snapshots = self.stages = 0

    def _line(self, msg: str) -> None:
        if self.say is not None:
            self.say(msg)

    def begin(self) -> None:
        self.start = self.mark = time.monotonic()
        self.snapshots = self.stages = 0

    def planned(self, units: list[Any]) -> None:
        now = time.monotonic()
        self._line(f"planning: {len(units)} units ({_kinds(dict(Counter(u.kind for u in units)))}) in "
                   f"{now - self.mark:.1f} s")
        self.snapshots = sum(u.kind == "snapshot" for u in units)
        self.mark = now

    def _driver_stage(self) -> None:
        """The snapshot units ran on the driver since the last stage (from its digests)."""
        if self.snapshots:
            now = time.monotonic()
            self._line(f"snapshot: {self.snapshots} units on the driver in {now - self.mark:.1f} s")
            self.snapshots = 0
            self.mark = now

    def mapper(self, slices: int | None = None, wrap: Callable[[Runner], Runner] | None = None
               ) -> Callable[[Runner, list[Any]], Iterable[Any]]:
        """A ``mapper`` for ``checker.check_table``: batches as Spark tasks (``wrap``: what a task
        runs around a batch's runner), their progress said."""
        sc = self.spark.sparkContext

        def mapper(fn: Runner, batches: list[Any]) -> Iterable[Any]:
            if not batches:
                return []
            if wrap is not None:
                fn = wrap(fn)
            if self.stages:
                self._driver_stage()  # the snapshot units ran between the first stage and this one
            self.stages += 1
            began = time.monotonic()
            total = dict(Counter(getattr(u, "kind", "unit") for b in batches for u in b))
            acc = sc.accumulator({}, _CountKinds())
            n = slices or max(1, min(len(batches), 4 * int(sc.defaultParallelism)))
            stop = threading.Event()

            def watch() -> None:
                shown: dict[str, int] = {}
                while not stop.wait(self.every):
                    done = dict(acc.value)
                    if done != shown:
                        shown = done
                        self._line(f"  {_kinds(done, total)} units ({time.monotonic() - began:.0f} s)")
            watcher = threading.Thread(target=watch, daemon=True)
            if self.say is not None:
                watcher.start()
            try:
                # one result per batch, in batch order (collect keeps partition order)
                result: list[Any] = sc.parallelize(batches, n).map(_counted(fn, acc)).collect()
            finally:
                stop.set()
            now = time.monotonic()
            done = dict(acc.value)
            self._line(f"stage {'+'.join(sorted(total))}: {sum(done.values())}/{sum(total.values())} units "
                       f"({_kinds(done, total)}) as {n} Spark tasks in {now - began:.1f} s")
            self.mark = now
            return result
        return mapper

    def finished(self, findings: int) -> None:
        """The check's results are in: the snapshot stage if it was the last, the merge."""
        self._driver_stage()
        now = time.monotonic()
        self._line(f"merge: {findings} findings in {now - self.mark:.1f} s; checked in {now - self.start:.1f} s")
        self.mark = now


def spark_mapper(spark: Any, slices: int | None = None) -> Callable[[Callable[[Any], Any], list[Any]], Iterable[Any]]:
    """A ``mapper`` for ``checker.check_table`` that runs every batch of units as a Spark task."""
    return StageProgress(spark, None).mapper(slices)


def check_table_on_spark(table: Any, spark: Any | None = None, metadata_only: bool = False,
                         progress: StageProgress | None = None, **kwargs: Any) -> Any:
    """``checker.check_table`` with its units run as Spark tasks (the snapshot units run on the
    driver, from the digests the manifest tasks return), in batches of about an eighth of a
    task slot's share. ``table``: a metadata file or a :class:`~checker.sources.Source` (one
    read from an object store is read again from there by an executor on another machine than
    the driver, :func:`checker.stores.spooled_here`); ``kwargs``: ``check_table``'s."""
    from functools import partial

    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.sources import check_source, Source
    from iceberg_conformance.checker.stores import reading_from

    spark = spark or session.spark()
    stages = progress or StageProgress(spark, None)
    told: Callable[[list[Any]], None] | None = kwargs.pop("planned", None)

    def planned(units: list[Any]) -> None:
        stages.planned(units)
        if told is not None:
            told(units)
    stages.begin()
    spooled = table.spooled if isinstance(table, Source) else None
    wrap = partial(reading_from, spooled) if spooled is not None else None
    kwargs.update(mapper=stages.mapper(wrap=wrap), metadata_only=metadata_only, planned=planned,
                  workers=max(1, int(spark.sparkContext.defaultParallelism)))
    result = check_source(table, **kwargs) if isinstance(table, Source) else check_table(table, **kwargs)
    stages.finished(len(result.findings))
    return result


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
            remote = check_table_on_spark(table, spark, args.metadata_only, StageProgress(spark, session.progress))
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
