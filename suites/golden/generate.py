"""Write the golden tables: ``python -m iceberg_conformance.suites.golden.generate --out DIR [--only NAME ...]``.

Tables come from three producers: Spark/Iceberg Java (:mod:`suites.golden.spark_tables`), PyIceberg's
writer and the kit's reference writer (:mod:`suites.golden.producers`); all go to one warehouse.

``DIR/warehouse/db/<name>/`` holds each table (a Hadoop-catalog warehouse) and
``DIR/expected/<name>.json`` its expected contents per snapshot (see
:mod:`suites.golden.registry`); ``DIR/generation.json`` the timings and peak memory. One Spark
session writes all Spark tables (started only when one is selected).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.spark import session
from iceberg_conformance.suites.golden import producers

NAMESPACE = "db"
CATALOG = "golden"


def generate(out: Path, only: list[str] | None = None) -> dict[str, Any]:
    """Generate the tables into ``out``; returns the run summary (also in generation.json)."""
    names = only or list(golden.REGISTRY)
    unknown = [n for n in names if n not in golden.REGISTRY]
    if unknown:
        raise SystemExit(f"unknown golden table(s): {', '.join(unknown)}; known: {', '.join(golden.REGISTRY)}")
    out = out.resolve()
    warehouse = out / "warehouse"
    expected_dir = out / "expected"
    expected_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    spark = None
    per_table: dict[str, float] = {}
    per_producer: dict[str, int] = {}
    skipped: dict[str, str] = {}
    for i, name in enumerate(names, 1):
        spec = golden.REGISTRY[name]
        w: Any
        if spec.producer == "spark":
            if spark is None:
                spark = session.spark(warehouse)
                session.catalog(CATALOG, warehouse)
                spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.{NAMESPACE}")
            w = golden.TableWriter(spark, CATALOG, NAMESPACE, spec, warehouse)
        else:
            try:
                w = producers.WRITERS[spec.producer](spec, warehouse)
            except ImportError as e:   # that producer's library is not installed: its tables are left out
                session.progress(f"[{i}/{len(names)}] {name}: skipped, {spec.producer} is not available ({e})")
                skipped[name] = f"{spec.producer} is not available: {e}"
                continue
        if w.table_dir().exists():
            shutil.rmtree(w.table_dir())
        session.progress(f"[{i}/{len(names)}] {name} ({spec.producer}): {spec.description}")
        t1 = time.monotonic()
        try:
            spec.generate(w)
        except ImportError as e:
            if spec.producer == "spark":
                raise
            session.progress(f"[{i}/{len(names)}] {name}: skipped, {spec.producer} lacks a library ({e})")
            skipped[name] = f"{spec.producer} lacks a library: {e}"
            shutil.rmtree(w.table_dir(), ignore_errors=True)
            continue
        finally:
            if hasattr(w, "close"):
                w.close()
        secs = time.monotonic() - t1
        per_table[name] = round(secs, 2)
        per_producer[spec.producer] = per_producer.get(spec.producer, 0) + 1
        doc = golden.finish(w, secs, getattr(w, "producer", None))
        (expected_dir / f"{name}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                                                    encoding="utf-8")
        session.progress(f"[{i}/{len(names)}] {name}: {len(w.expectations)} snapshots in {secs:.1f} s")
    summary = {"tables": per_table, "tables_per_producer": per_producer, "skipped": skipped, "spark_start_seconds": round(session.STATS.get("start_seconds", 0.0), 2),
               "total_seconds": round(time.monotonic() - t0, 2), "peak_rss_mib": session.peak_rss_mib(),
               "warehouse": "warehouse", "expected": "expected"}
    (out / "generation.json").write_text(json.dumps(summary, indent=1) + "\n")
    session.progress(f"done: {len(per_table)} tables{f' ({len(skipped)} skipped)' if skipped else ''} in {summary['total_seconds']} s; peak memory {summary['peak_rss_mib']}")
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m iceberg_conformance.suites.golden.generate", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="output directory (created)")
    p.add_argument("--only", action="append", metavar="NAME", help="generate only this table (repeatable)")
    p.add_argument("--list", action="store_true", help="list the golden tables and exit")
    args = p.parse_args(argv)
    if args.list:
        for spec in golden.REGISTRY.values():
            print(f"{spec.name:<32} v{spec.format_version}  {spec.producer:<10} {spec.description}")
        return 0
    try:
        generate(Path(args.out), args.only)
    except session.SparkUnavailable as e:
        print(f"cannot generate golden tables: {e}", file=sys.stderr)
        return 2
    finally:
        session.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
