"""``iceberg-conformance``: the kit's command line, one argparse tree.

* ``iceberg-conformance --version``: the kit's version and its vector set's.
* ``iceberg-conformance run [--target NAME ...] [--report DIR] [PYTEST ARGS] [-- PYTEST ARGS]`` runs the
  suites against the targets and writes the target x area matrix (``matrix.html``,
  ``matrix.md``, ``matrix.json``, each with the run's overall status) and a JUnit file into
  DIR. Exit code: pytest's (0 all passed, 1 failures or errors, 2 interrupted, 4 usage error, 5
  no tests ran: a CI gate cannot pass on nothing). Options ``run`` does not know (``-k``,
  ``-n``, ...) and everything after ``--`` go to pytest.
* ``iceberg-conformance check PATH ... [--json] [--fail-on LEVEL] [--metadata-only] ...`` checks
  tables on disk (``iceberg-conformance-check`` is the same command). Exit code: 0 when no
  finding reaches ``--fail-on`` (default ``error``) and every part of the tables was read, 1
  when a finding reaches it, 2 for a usage error or when no table can be found or read, 3 when no
  finding reaches it but parts of a table were not read (the verdict is incomplete).
* ``iceberg-conformance rules [ID ...] [--json] [--area A]`` lists every rule the checker
  reports: id, severity, normative level, spec section and sentence, and the damage cases that
  break it; given ids, those rules in full.
* ``iceberg-conformance damage TABLE OUT [--rule R] [--check]`` writes single-violation copies
  of a valid table and, with ``--check``, runs the checker on each (recall per area).
* ``iceberg-conformance coverage [--json] [--all] [--readme]`` reports, per spec section, the
  normative statements the rules, vectors and damage cases check, and every unchecked MUST with
  its reason (:mod:`iceberg_conformance.statements.coverage`).
* ``iceberg-conformance bugs [--json] [--implementation I] [--kind K] [--all]`` lists the bugs
  Iceberg implementations shipped (the corpus, :mod:`iceberg_conformance.bugs`) with the case that
  reproduces each and the rule or vector that catches it.
* ``iceberg-conformance scan TABLE --engine NAME [--snapshot ID | --ref NAME] [--filter JSON]
  [--compare [ENGINE]]`` reads a table with any registered engine and prints its rows as JSON
  lines; with ``--filter`` it checks the engine's filtered read against its own evaluation of
  the condition, with ``--compare`` against another engine (default ``reference``). Exit code:
  0 the reads agree, 1 rows differ or a read failed, 2 a usage error
  (:mod:`iceberg_conformance.suites.engines.command`).
* ``iceberg-conformance harness-check COMMAND [--timeout S]`` speaks the harness protocol
  (``docs/harness-protocol.md``) to the program COMMAND and says in plain words what it does
  wrong (malformed replies, wrong ids, missing ``start`` fields, crashes, hangs) before any vector
  runs. Exit code: 0 no problem, 1 problems (:mod:`iceberg_conformance.suites.targets.subprocess.check`).
* ``iceberg-conformance export DIR`` writes the vectors and an ``index.json`` of every case,
  for implementations that consume the vectors with their own test runner;
  ``export --archive DIR [--golden G]`` writes the release archive for other languages
  (:mod:`iceberg_conformance.vectors.archive`).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import re
import sys
import textwrap
import time
from importlib.metadata import PackageNotFoundError, version as installed_version
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence, TYPE_CHECKING

import iceberg_conformance.suites
from iceberg_conformance import bugs
from iceberg_conformance.checker.find import parse_relocate
from iceberg_conformance.checker.sources import check_source, resolve_all, Source, SourceError
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.checker.report import render_text, to_json
from iceberg_conformance.reference.rules import LEVELS, Rule, catalogue, spec_revision
from iceberg_conformance.vectors.cases import case_files, load_file, vectors_root, vectors_version

if TYPE_CHECKING:
    from iceberg_conformance.checker.damage import Damage

# the damage cases, the suites' golden tables and targets, the spec coverage and the archive are
# imported by the commands that use them: ``check`` starts without them (a third of its imports)

#: the suites' own directory: the repository's suites/ in a checkout, the installed package otherwise
SUITES = Path(iceberg_conformance.suites.__file__).resolve().parent
#: from this many data and delete files on, a full check says what it will open
BIG_TABLE_FILES = 10_000
#: check's exit codes beyond 0 (clean) and 2 (usage error, or no table readable at a PATH)
EXIT_FINDINGS = 1     # a finding at or above --fail-on
EXIT_INCOMPLETE = 3   # no such finding, but parts of a table were not read (files.outside-table,
                      # checker.not-checked): the check could not see everything
#: rules whose finding on the metadata file itself means the table could not be read at all
UNREADABLE = ("metadata.json-syntax", "metadata.file-unreadable", "metadata.file-too-large", "metadata.gzip")


# --- run --------------------------------------------------------------------------------------

def _run(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.statements import coverage
    import pytest  # the suites' runner: imported when the suites run, not for every command

    report = Path(args.report).resolve()
    report.mkdir(parents=True, exist_ok=True)
    for stale in ("matrix.md", "matrix.json", "matrix.html", "junit.xml"):  # never show an earlier run's
        (report / stale).unlink(missing_ok=True)
    # the spec coverage page beside the matrix (which links it)
    (report / "coverage.html").write_text(coverage.render_html(coverage.collect()), encoding="utf-8")
    # the CLI has imported the kit before pytest loads its plugin: no assertion rewriting there
    argv = [str(SUITES), "-W", "ignore::pytest.PytestAssertRewriteWarning", "-p", "no:cacheprovider",
            "--conformance-report", str(report), f"--junitxml={report / 'junit.xml'}", "-q", "-rfE"]
    if not args.spark:
        argv += ["-m", "not spark"]
    for t in args.target:
        argv += ["--target", t]
    code = int(pytest.main(argv + passthrough))
    # the target x area matrix is in pytest's terminal summary above (the kit's plugin prints it)
    if (report / "matrix.md").exists():
        print(f"report: {report / 'matrix.html'} (also matrix.md, matrix.json, junit.xml, coverage.html)")
    return code


# --- check ------------------------------------------------------------------------------------

def _add_check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="a metadata file, a table directory or a warehouse directory; a table's (or metadata file's) "
                        "URI in an object store (s3://, gs://, abfs://, abfss://, file://); with --catalog, a table "
                        "(db.table) or a namespace (db), none for the whole catalog")
    p.add_argument("--json", action="store_true", help="print a JSON report on stdout")
    p.add_argument("--fail-on", choices=("error", "warning", "info"), default="error",
                   help="lowest severity that makes the exit status 1 (default: error)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--metadata-only", action="store_true",
                   help="check metadata, manifest lists and manifests only (every entry's rules, counts, bounds "
                        "encodings, summaries, inheritance); data and delete files are not opened")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="run the checks in N local processes (default 1)")
    p.add_argument("--allow-root", action="append", default=[], metavar="DIR",
                   help="also read files under DIR (by default only files under the table's location and "
                        "directory are read; others are reported as files.outside-table)")
    p.add_argument("--relocate", action="append", default=[], metavar="OLD=NEW",
                   help="the table was moved or copied: read files recorded under the prefix OLD from NEW "
                        "(repeatable)")
    p.add_argument("--catalog", metavar="NAME",
                   help="name tables through PyIceberg's catalog NAME (.pyiceberg.yaml, PYICEBERG_CATALOG__NAME__* "
                        "environment variables): the metadata file the catalog points at is checked")
    p.add_argument("--s3-endpoint", metavar="URL",
                   help="the S3 endpoint (MinIO, a local server; default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, "
                        "the catalog's s3.endpoint, else AWS)")
    p.add_argument("--spark", action="store_true",
                   help="run the checks as tasks of your Spark (SparkSession.builder.getOrCreate(): spark-submit's "
                        "options, SPARK_CONF_DIR/spark-defaults.conf, PYSPARK_SUBMIT_ARGS, an active session); "
                        "the same findings as a local run, progress per stage. Executors must import the kit "
                        "(README: On your Spark)")
    p.add_argument("--spark-master", metavar="URL", help="with --spark: the master (default: your configuration's, "
                                                          "else local[*])")
    p.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                   help="with --spark: a Spark setting over your configuration's (repeatable)")


def _spark_settings(args: argparse.Namespace) -> list[tuple[str, str]]:
    """``--spark-conf`` as (key, value) pairs; ValueError for a malformed one or one without ``--spark``."""
    if (args.spark_master or args.spark_conf) and not args.spark:
        raise ValueError("--spark-master and --spark-conf go with --spark")
    if args.spark and args.workers > 1:
        raise ValueError("--workers runs local processes; with --spark the executors run the checks")
    out = []
    for given in args.spark_conf:
        key, sep, value = given.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--spark-conf {given}: expected KEY=VALUE")
        out.append((key.strip(), value))
    return out


def _check(args: argparse.Namespace, passthrough: list[str]) -> int:
    if not args.paths and not args.catalog:
        print("iceberg-conformance check: give a PATH (or --catalog NAME)", file=sys.stderr)
        return 2
    try:
        settings = _spark_settings(args)
        relocate = parse_relocate(args.relocate)
    except ValueError as e:
        print(f"iceberg-conformance check: {e}", file=sys.stderr)
        return 2
    spark, started = None, False
    if args.spark:  # before the tables are read: a Spark that does not start is said at once
        from iceberg_conformance.suites.spark import distributed

        try:
            spark, started = distributed.user_session(args.spark_master, settings)
        except distributed.SparkUnavailable as e:
            print(f"iceberg-conformance check --spark: {e}", file=sys.stderr)
            return 2
        if not args.quiet:
            _say_stage(distributed.describe(spark))
    tables: list[Source] = []
    try:
        try:
            tables = resolve_all(args.paths, catalog=args.catalog, metadata_only=args.metadata_only,
                                 s3_endpoint=args.s3_endpoint)
        except (ValueError, SourceError) as e:
            print(f"iceberg-conformance check: {e}", file=sys.stderr)
            return 2
        return _check_sources(args, tables, relocate, spark)
    finally:
        if started and spark is not None:
            spark.stop()
        for t in tables:
            t.close()


def unit_bytes(u: Unit) -> int:
    """The bytes a unit reads, as the table records them (a content file's file_size_in_bytes, a
    manifest's manifest_length; 0 when not recorded)."""
    records = u.context.get("records") or [{}]
    first = records[0] if isinstance(records[0], dict) else {}
    if u.kind in ("data-file", "delete-file"):
        size = (first.get("entry") or {}).get("data_file", {}).get("file_size_in_bytes")
    elif u.kind == "manifest":
        size = (first.get("record") or {}).get("manifest_length")
    else:
        size = None
    return size if isinstance(size, int) and size > 0 else 0


class _Progress:
    """Progress of a check on a terminal: units (files) done of all, bytes read of all, time left.
    With rich installed, a progress bar; else one line rewritten in place."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self.started = 0.0
        self.total_bytes = self.done_bytes = 0
        self._bar: Any = None
        self._task: Any = None

    def planned(self, units: list[Unit]) -> None:
        self.started = time.monotonic()
        self.total_bytes = sum(unit_bytes(u) for u in units)
        self.done_bytes = 0
        if not self.show or len(units) <= 20:
            return
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        except ImportError:
            return
        self._bar = Progress(TextColumn("  {task.description:<12}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[read]}"), TimeRemainingColumn(),
                             console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("planned", total=len(units), read="")
        self._bar.start()

    def tick(self, i: int, n: int, u: Unit) -> None:
        self.done_bytes += unit_bytes(u)
        read = f"{self.done_bytes / 1e6:,.1f} of {self.total_bytes / 1e6:,.1f} MB"
        if self._bar is not None:
            self._bar.update(self._task, completed=i + 1, description=u.kind, read=read)
        elif self.show and (n > 20 and i % max(1, n // 50) == 0):
            elapsed = time.monotonic() - self.started
            left = f", about {elapsed / i * (n - i):.0f} s left" if i and elapsed > 2 else ""
            print(f"\r  {i}/{n} {u.kind:<12} {read}{left}   ", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        elif self.show:
            print("\r", end="", file=sys.stderr)


def _check_sources(args: argparse.Namespace, tables: list[Source], relocate: list[tuple[str, str]],
                   spark: Any = None) -> int:
    """Check every source (here, in local processes, or with ``spark``: as Spark tasks) and report."""
    bar = _Progress(not args.quiet and sys.stderr.isatty() and spark is None)

    def planned(units: list[Unit]) -> None:
        bar.planned(units)
        files = sum(u.kind in ("data-file", "delete-file") for u in units)
        if not args.quiet and not args.metadata_only and files >= BIG_TABLE_FILES:
            print(f"  {files} data and delete files will be opened and read; progress shows the time left. "
                  "--metadata-only checks metadata, manifest lists and manifests without opening them.",
                  file=sys.stderr)

    results = []
    failed: list[str] = []
    for t in tables:
        if not args.quiet:
            print(f"checking {t.label}: {t.current.why}", file=sys.stderr)
        options: dict[str, Any] = dict(relocate=relocate, planned=planned, allowed_roots=args.allow_root)
        try:
            if spark is not None:
                from iceberg_conformance.suites.spark.distributed import check_table_on_spark, StageProgress

                say = None if args.quiet else _say_stage
                results.append(check_table_on_spark(t, spark, args.metadata_only, StageProgress(spark, say), **options))
            else:
                results.append(check_source(t, progress=bar.tick, metadata_only=args.metadata_only,
                                            workers=max(1, args.workers), **options))
        except SourceError as e:  # a store that stopped answering while the check ran: the others go on
            bar.close()
            print(f"iceberg-conformance check: {e}", file=sys.stderr)
            failed.append(t.label)
        finally:
            bar.close()
    unreadable = [r for r in results if any(f.rule in UNREADABLE and f.file == r.table for f in r.findings)
                  and r.units <= 1]
    if failed and not results:
        return 2
    if args.json:
        print(json.dumps(to_json(results), indent=2))
    else:
        print(render_text(results))
    if failed or (unreadable and len(unreadable) == len(results)):
        return 2  # a table not checked (its store failed), said on stderr
    levels = {"error": ("error",), "warning": ("error", "warning"), "info": ("error", "warning", "info")}[args.fail_on]
    verdicts = [r.verdict(levels) for r in results]
    return EXIT_FINDINGS if "findings" in verdicts else EXIT_INCOMPLETE if "incomplete" in verdicts else 0


def _say_stage(msg: str) -> None:
    """A progress line of a check on Spark (stderr)."""
    print(f"  [spark {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --- damage -----------------------------------------------------------------------------------

def _damage(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.checker.damage import (
        DAMAGES, recall_by_area, render as render_damage, self_test, write_damaged,
    )
    if args.list:
        for d in DAMAGES:
            print(f"{d.name:<40} {d.area:<14} {d.description}" + (f" [rule {d.rule}]" if d.name != d.rule else ""))
        return 0
    if args.table is None or args.out is None:
        print("iceberg-conformance damage: give TABLE and OUT (or --list)", file=sys.stderr)
        return 2
    unknown = [r for r in args.rule if r not in {d.rule for d in DAMAGES} | {d.name for d in DAMAGES}]
    if unknown:
        print(f"iceberg-conformance damage: no damage case for {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    try:
        pristine, copies, skipped = write_damaged(
            args.table, args.out, rules=args.rule or None, seed=args.seed,
            progress=None if args.json else lambda s: print(f"wrote {s}", file=sys.stderr))
    except (ValueError, OSError) as e:
        print(f"iceberg-conformance damage: {e}", file=sys.stderr)
        return 2
    if not args.check:
        print(f"{len(copies)} damaged copies and the pristine copy in {args.out} (damage.json lists them)")
        return 0
    control, verdicts = self_test(args.out, copies, pristine)
    if args.json:
        print(json.dumps({"pristine_errors": control, "no_victim": skipped,
                          "copies": [dict(v.copy.to_json(), reported=v.reported, error_rules=v.error_rules,
                                          extra_errors=v.extra_errors) for v in verdicts],
                          "recall": {a: {"caught": h, "copies": t} for a, (h, t) in recall_by_area(verdicts).items()}},
                         indent=2))
    else:
        print(render_damage(control, verdicts, skipped))
    return 0 if not control and all(v.reported for v in verdicts) else 1


# --- bugs ---------------------------------------------------------------------------------------

def caught_traps() -> set[str]:
    """Every ``<golden table> > <filter id> > <engine>`` and ``<golden table> > <engine>`` where the
    kit shows an engine's wrong rows or failure: the cases the known failures of the consumer
    matrix, the scan suite, the golden-table readers and Iceberg Java's row-lineage reads
    (``<table> > java``) list (each is a strict expectation: the suites fail when the engine stops
    failing so)."""
    from iceberg_conformance.suites.golden import filters as golden_filters
    from iceberg_conformance.suites.golden.registry import REGISTRY
    from iceberg_conformance.suites.harness import consumer_matrix, known
    from iceberg_conformance.suites.engines import registry as engines

    filters = golden_filters.load()
    cases = [(t, f["id"]) for t in REGISTRY for f in filters.get(t, [])]
    out: set[str] = set()
    for e in consumer_matrix.known_failures():
        if e.get("test") in ("filter", "projection"):
            out |= {f"{case} > {e['consumer']}" for case in e.get("digests", {})}
        elif e.get("test", "table") == "table":
            k = consumer_matrix.as_known(e)
            out |= {f"{t} > {e['consumer']}" for t in REGISTRY if k.matches(consumer_matrix.subject(t, e["consumer"]))}
    here = Path(engines.__file__).resolve().parent
    for entry in known.load(here / "known-failures-scan.json"):
        for reader in ("reference", "pyiceberg", "java"):
            out |= {f"{t} > {f} > {reader}" for t, f in cases if entry.matches(f"test_scan: {t} > {f} > {reader}")}
    for entry in known.load(here / "known-failures-readers.json"):
        for reader in ("reference", "pyiceberg", "duckdb"):
            out |= {f"{t} > {reader}" for t in REGISTRY
                    if entry.matches(f"test_reader_reads_golden_table: {t} > {reader}")}
    # the row lineage Iceberg Java's generic reader (the engine "java") resolves: suites/test_producers.py
    producers = Path(golden_filters.__file__).resolve().parent / "known-failures-producers.json"
    for entry in known.load(producers, match=lambda e: str(e["table"]), required=("table", "reason", "link")):
        out |= {f"{t} > java" for t in REGISTRY if entry.matches(f"{t} (row lineage)")}
    return out


#: how the consumer matrix records rows that differ (``suites/engines/rows.diff_rows``): a known
#: failure holding one of these lines shows wrong rows, not an error or a refusal
_ROW_LINES = re.compile(r"^\s*(- missing:|\+ unexpected:|row count:|columns:)")


def shows_rows(differs: list[str]) -> bool:
    """Whether a known failure's recorded differences show wrong rows (rather than an error or a
    refusal only); an entry that records no differences shows nothing either way and counts as
    showing them (it cannot prove a refusal)."""
    return not differs or any(_ROW_LINES.match(line) for line in differs)


def refused_traps() -> set[str]:
    """The cases of :func:`caught_traps` the consumer matrix lists with an error or a refusal only:
    ``<golden table> > <filter id> > <engine>`` and ``<golden table> > <engine>`` whose known
    failure's recorded differences hold no wrong rows (no missing, unexpected or miscounted rows,
    no other columns). The scan suite's and the readers' known failures record no differences and
    add nothing here."""
    from iceberg_conformance.suites.golden.registry import REGISTRY
    from iceberg_conformance.suites.harness import consumer_matrix

    out: set[str] = set()
    for e in consumer_matrix.known_failures():
        if e.get("test") in ("filter", "projection"):
            out |= {f"{case} > {e['consumer']}" for case in e.get("digests", {})
                    if not shows_rows(e.get("differs", {}).get(case, []))}
        elif e.get("test", "table") == "table" and not shows_rows(e.get("differs", [])):
            k = consumer_matrix.as_known(e)
            out |= {f"{t} > {e['consumer']}" for t in REGISTRY if k.matches(consumer_matrix.subject(t, e["consumer"]))}
    return out


def caught_oplogs() -> set[str]:
    """Every ``<op-log id> > <writer>`` a known failure of the writers lists with a problem of the
    op-log's own judgement (wrong rows, a refused step, a broken relation: strict, the writers
    lane fails when the writer stops failing so). An entry naming checker findings only is a table
    rule's finding, not the op-log's: a writer bug of that kind is reproduced by a damage case."""
    from iceberg_conformance.suites.writers import judge, oplogs

    ids = sorted(oplogs.load_all())
    out: set[str] = set()
    for e in judge.known_failures():
        if all(p.startswith("checker:") for p in e["problems"]):
            continue
        globs = e["oplog"] if isinstance(e["oplog"], list) else [e["oplog"]]
        out |= {f"{o} > {e['writer']}" for o in ids if any(fnmatch.fnmatchcase(o, g) for g in globs)}
    return out


def bug_reproductions() -> list[tuple[dict[str, Any], bugs.Reproduction]]:
    """Every record of the bug corpus with what the kit has for it today."""
    from iceberg_conformance.checker.damage import DAMAGES
    from iceberg_conformance.suites.golden import filters as golden_filters
    from iceberg_conformance.suites.golden import projections as golden_projections
    from iceberg_conformance.suites.golden.registry import REGISTRY
    from iceberg_conformance.suites.writers import oplogs

    damage_cases = {d.name: d for d in DAMAGES}
    vector_ids = {c.id for p in case_files() for c in load_file(p)}
    traps = set(REGISTRY) | {f"{t} > {f['id']}" for t, fs in golden_filters.load().items() for f in fs}
    traps |= {f"{t} > {p['id']}" for t, ps in golden_projections.load().items() for p in ps}
    traps |= set(oplogs.load_all())  # the op-logs: a writer bug's "trap"
    caught = caught_traps() | caught_oplogs()
    refused = refused_traps()
    return [(r, bugs.reproduction(r, damage_cases, vector_ids, caught, traps, refused)) for r in bugs.records()]


def _bugs(args: argparse.Namespace, passthrough: list[str]) -> int:
    rows = [(r, rep) for r, rep in bug_reproductions()
            if (not args.implementation or r["implementation"] in args.implementation)
            and (not args.kind or r["kind"] in args.kind)]
    if args.readme:
        print(bugs.readme_table(rows))
        return 0
    if args.json:
        print(json.dumps({"bugs": [dict(r, kit={"status": rep.status, "how": rep.how, "case": rep.case,
                                                "rule": rep.rule, "why": rep.why}) for r, rep in rows]},
                         indent=1, ensure_ascii=False))
        return 0
    real = [(r, rep) for r, rep in rows if r["verdict"] == "bug"]
    linked = [r for r, _rep in real if r["upstream"] == "linked"]
    print(f"{len(rows)} records: {len(real)} bugs ({len(linked)} with upstream links, "
          f"{len({r['implementation'] for r in linked})} implementations), "
          f"{len(rows) - len(real)} not bugs or unclear")
    print(f"reproduced by the kit: {sum(rep.reproduced for _r, rep in real)} of {len(real)} bugs; "
          f"{sum(rep.status in bugs.TRAP_ONLY for _r, rep in real)} more have their trap only (in an engine the kit "
          "does not run, or one the version it runs does not have"
          f"; {sum(rep.status == 'fails earlier' for _r, rep in real)} of them where the engine fails the trap "
          "earlier, with no wrong rows); "
          f"{sum(rep.status == 'out of reach' for _r, rep in real)} are out of reach (implementations the kit cannot "
          "run here)")
    for r, rep in rows:
        if not args.all and rep.status in ("reproduced", "not a bug", "out of reach") + bugs.TRAP_ONLY:
            continue
        where = f"{rep.how} {rep.case}" + (f" -> {rep.rule}" if rep.rule else "") if rep.case else rep.how
        print(f"  {rep.status:<12} {r['id']}: {where}" + (f" ({rep.why})" if rep.why and args.all else ""))
        for link in r["links"][:1]:
            print(f"             {link}")
    return 0


# --- rules, coverage, export ---------------------------------------------------------------------

def _rule_in_full(rule: Rule, damage_cases: list[Damage]) -> list[str]:
    """One rule as ``rules ID`` prints it: every field, and the damage cases that break it."""
    lines = [rule.id, f"  area: {rule.area}; severity: {rule.severity}; level: {rule.level}",
             f"  spec section: {rule.section}"]
    lines += [f"  spec sentence: {rule.quote}" if rule.quote else "  spec sentence: (none)", f"  summary: {rule.summary}"]
    lines += [f"  note: {rule.note}"] if rule.note else []
    lines += ["  damage cases (iceberg-conformance damage --rule NAME):" if damage_cases else "  damage cases: (none)"]
    lines += [f"    {d.name}: {d.description}" for d in damage_cases]
    return lines


def _rules(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.checker.damage import DAMAGES
    damaged = {d.rule for d in DAMAGES}
    known = catalogue()
    unknown = [i for i in args.ids if i not in known]
    if unknown:
        for i in unknown:
            close = difflib.get_close_matches(i, known, n=3)
            print(f"iceberg-conformance rules: no rule {i!r}" + (f" (did you mean {', '.join(close)}?)" if close else
                                                                 " (iceberg-conformance rules lists them)"),
                  file=sys.stderr)
        return 2
    rules = [r for r in known.values() if (not args.area or r.area in args.area) and (not args.ids or r.id in args.ids)]
    if args.ids and not args.json:
        for r in rules:
            print("\n".join(_rule_in_full(r, [d for d in DAMAGES if d.rule == r.id])))
        return 0
    if args.json:
        print(json.dumps({"spec_revision": spec_revision(),
                          "rules": [dict(r.to_json(), damage_case=r.id in damaged) for r in rules]},
                         indent=2, ensure_ascii=False))
        return 0
    for r in rules:
        print(f"{r.id}  [{r.severity}; {r.level}; {r.area}]{'  (damage case)' if r.id in damaged else ''}")
        print(f"    {r.section}: {r.quote if r.quote else '(no sentence) ' + (r.note or r.summary)}")
        if r.quote and r.note and r.severity != LEVELS.get(r.level):
            print(f"    reported as {r.severity}: {r.note}")
    print(f"{len(rules)} rules; spec revision {spec_revision()}")
    return 0


def _coverage(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.statements import coverage
    rep = coverage.collect()
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False))
    elif args.readme:
        print(coverage.render_readme(rep))
    else:
        print(coverage.render_text(rep, None if args.all else 40))
    return 0


def _harness_check(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.suites.targets.subprocess.check import check

    command: str | list[str] = args.harness[0] if len(args.harness) == 1 else list(args.harness)
    report = check(command, timeout=args.timeout)
    print(report.text())
    return 1 if report.problems else 0


def _export(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.suites.golden.registry import GOLDEN_ENV
    from iceberg_conformance.vectors.archive import build_archive, export_tree
    if args.archive:
        golden_dir = args.golden or os.environ.get(GOLDEN_ENV)
        golden = Path(golden_dir).resolve() if golden_dir else None
        if golden is not None and not (golden / "warehouse").is_dir():
            print(f"iceberg-conformance export: {golden} has no warehouse/ (write one with: python -m "
                  "iceberg_conformance.suites.golden.generate --out DIR)", file=sys.stderr)
            return 2
        target = Path(args.archive).resolve()
        target.mkdir(parents=True, exist_ok=True)
        path, cases, tables = build_archive(target, golden, progress=lambda s: print(f"  {s}", file=sys.stderr))
        print(f"wrote {path}: {cases} cases, {tables} golden tables"
              + ("" if golden else f" (no golden tables: give --golden DIR or ${GOLDEN_ENV})"))
        return 0
    if not args.out:
        print("iceberg-conformance export: give an output directory or --archive DIR", file=sys.stderr)
        return 2
    out = Path(args.out).resolve()
    if out.exists() and any(out.iterdir()):
        print(f"iceberg-conformance export: {out} is not empty", file=sys.stderr)
        return 2
    n = export_tree(out)
    print(f"exported {n} cases from {len(case_files(vectors_root()))} files to {out}")
    return 0


# --- the tree ---------------------------------------------------------------------------------

def _scan(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.suites.engines.command import main_args

    return main_args(args)


def _write(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.suites.writers.command import main_args

    return main_args(args)


def kit_version() -> str:
    """The installed kit's version and its vector set's, as ``--version`` prints them."""
    try:
        kit = installed_version("iceberg-conformance")
    except PackageNotFoundError:  # imported from a checkout that was never installed
        kit = "(not installed)"
    return f"iceberg-conformance {kit} (vector set {vectors_version()})"


def _run_epilog() -> str:
    """``run --help``'s closing text: the built-in targets and how arguments reach pytest."""
    from iceberg_conformance.suites.targets import BUILTIN, DEFAULT_TARGET, EXTRAS, NEEDS
    width = max(len(n) for n in BUILTIN) + 2
    targets = [f"  {name:<{width}}" + (f"needs pip install 'iceberg-conformance[{EXTRAS[name]}]'" if name in EXTRAS
                                        else "installed with the kit")
               + (f" and {NEEDS[name]}" if name in NEEDS else "") + (" (the default)" if name == DEFAULT_TARGET else "")
               for name in BUILTIN]
    return "\n".join([
        "built-in targets (--target NAME):", *targets,
        f"  {'harness:COMMAND':<{width}}a program that speaks the harness protocol (docs/harness-protocol.md)",
        f"  {'MODULE:ATTR':<{width}}your own adapter: a class, factory or instance in an importable module",
        "",
        "pytest arguments: an option run does not know goes to pytest, and so does everything after --:",
        "  iceberg-conformance run --target reference -k hash -n 2",
        "  iceberg-conformance run --target reference -- -x --lf"])


def _described(text: str) -> str:
    """A description wrapped for a subcommand whose help keeps its layout (the run command's)."""
    return textwrap.fill(text, 78)


def _add_run_parser(sub: Any) -> None:
    """The ``run`` command's arguments."""
    run = sub.add_parser("run", help="run the suites against targets and write the matrix report",
                         formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
                         usage="%(prog)s [-h] [--target NAME] [--report DIR] [--spark]\n"
                               + " " * len("usage: iceberg-conformance run ") + "[PYTEST ARGS ...] [-- PYTEST ARGS ...]",
                         description=_described(
                             "Run the conformance suites (pytest) against one or more targets and write the target x "
                             "area matrix (matrix.html, matrix.md, matrix.json, each with the run's overall status) "
                             "and junit.xml into the report directory. Exit code: pytest's (0 all passed, 1 failures "
                             "or errors, 5 no tests ran)."),
                         epilog=_run_epilog())
    run.add_argument("--target", action="append", default=[], metavar="NAME",
                     help="target name or package.module:attr (repeatable; default: reference)")
    run.add_argument("--report", default="report", metavar="DIR", help="report directory (default: report/)")
    run.add_argument("--spark", action="store_true", help="also run the Spark lane (golden tables)")
    run.set_defaults(func=_run)


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The kit's one argument parser (``only="check"``: the check command alone, which needs
    none of the other commands' modules)."""
    top = argparse.ArgumentParser(prog="iceberg-conformance", description="A conformance kit for Apache Iceberg: run the "
                                  "suites against an implementation, check tables on disk, list the rules, export the "
                                  "vectors.")
    top.add_argument("--version", action="version", version=kit_version())
    sub = top.add_subparsers(dest="command", required=True)
    if only is None:
        _add_run_parser(sub)
    check = sub.add_parser("check", help="check Iceberg tables on disk against the spec",
                           description="Check Iceberg tables (metadata, manifests, data and delete files) against "
                                       "the spec.")
    _add_check_arguments(check)
    check.set_defaults(func=_check)
    if only == "check":
        return top
    from iceberg_conformance.checker.damage import AREAS
    from iceberg_conformance.suites.golden.registry import GOLDEN_ENV
    rules = sub.add_parser("rules", help="list every rule: id, severity, level, spec section and sentence",
                           description="List the rules the checker reports (id, severity, normative level, spec "
                                       "section and sentence, whether a damage case breaks it), or, given ids, those "
                                       "rules in full.")
    rules.add_argument("ids", nargs="*", metavar="ID", help="only this rule, shown in full (e.g. metadata.json-syntax)")
    rules.add_argument("--json", action="store_true", help="JSON on stdout")
    rules.add_argument("--area", action="append", default=[],
                       help="only rules of this area (metadata, manifest-list, manifest, data-file, delete-file, "
                            "puffin, values, kit)")
    rules.set_defaults(func=_rules)
    damage = sub.add_parser("damage", help="write single-violation copies of a valid table",
                            description="Write single-violation copies of a valid table (and, with --check, run the "
                                        "checker on each and print recall per area).")
    damage.add_argument("table", nargs="?", help="a metadata file or table directory (read only)")
    damage.add_argument("out", nargs="?", help="directory for the copies (one subdirectory per case, and damage.json)")
    damage.add_argument("--rule", action="append", default=[],
                        help="only the cases breaking this rule, or the case of this name (repeatable)")
    damage.add_argument("--seed", type=int, default=0, help="choice of victims (default 0)")
    damage.add_argument("--check", action="store_true", help="run the checker on every copy and report recall")
    damage.add_argument("--list", action="store_true",
                        help=f"list the damage cases and exit (areas: {', '.join(AREAS)})")
    damage.add_argument("--json", action="store_true", help="with --check: the verdicts as JSON on stdout")
    damage.set_defaults(func=_damage)
    hc = sub.add_parser("harness-check", help="speak the harness protocol to a program and say what it does wrong",
                        description="Start COMMAND (one shell-like string, or the program and its arguments), "
                                    "check its start reply, probe each operation of every capability it declares "
                                    "and check each reply against the protocol (docs/harness-protocol.md). Exit "
                                    "code: 0 no problem, 1 problems.")
    hc.add_argument("harness", nargs="+", metavar="COMMAND")
    hc.add_argument("--timeout", type=float, default=10.0, metavar="S",
                    help="seconds a reply may take (default 10)")
    hc.set_defaults(func=_harness_check)
    export = sub.add_parser("export", help="write the vectors and an index of every case, or the release archive",
                            description="Write the vectors and an index.json of every case into a directory, for "
                                        "implementations that run the vectors with their own test runner; or, with "
                                        "--archive, the release archive for other languages.")
    export.add_argument("out", nargs="?", help="output directory (must be empty or absent)")
    export.add_argument("--archive", metavar="DIR",
                        help="write iceberg-conformance-vectors-<version>.tar.gz into DIR instead (vectors, index, "
                             "golden tables with relative paths, README, a standard-library consumer)")
    export.add_argument("--golden", metavar="DIR", help=f"golden tables to include (default: ${GOLDEN_ENV})")
    export.set_defaults(func=_export)
    bug = sub.add_parser("bugs", help="the bugs Iceberg implementations shipped, and how the kit reproduces "
                                      "and catches each",
                         description="List the bugs Iceberg implementations shipped (the kit's bug corpus) with the "
                                     "case that reproduces each and the rule or vector that catches it; by default "
                                     "those not yet reproduced.")
    bug.add_argument("--json", action="store_true", help="every record with what the kit has for it, as JSON")
    bug.add_argument("--implementation", action="append", default=[], help="only this implementation (repeatable)")
    bug.add_argument("--kind", action="append", default=[], choices=bugs.KINDS, help="only this kind (repeatable)")
    bug.add_argument("--all", action="store_true", help="list every record (default: those not yet reproduced)")
    bug.add_argument("--readme", action="store_true",
                     help="the README's table: bugs by implementation and artifact, caught/bugs per artifact (Markdown)")
    bug.set_defaults(func=_bugs)
    scan = sub.add_parser("scan", help="read a table with an engine (DuckDB, ClickHouse, Polars, Daft, DataFusion, "
                                       "Spark SQL, PyIceberg, ...), optionally under a filter and against another",
                          description="Read a table with any registered engine and print its rows (JSON lines). "
                                      "With --filter, check the engine's filtered read against its own evaluation "
                                      "of the condition; with --compare, against another engine's read.")
    scan.add_argument("table", help="a metadata file or table directory (read only)")
    scan.add_argument("--engine", required=True, help="the engine that reads (see --list-engines)")
    which = scan.add_mutually_exclusive_group()
    which.add_argument("--snapshot", type=int, help="snapshot id (default: the current snapshot)")
    which.add_argument("--ref", help="branch or tag name")
    scan.add_argument("--filter", help="a predicate in the JSON form of the expressions spec, or @FILE")
    scan.add_argument("--compare", nargs="?", const="reference", metavar="ENGINE",
                      help="also read with ENGINE (default: reference) and print the rows that differ")
    scan.set_defaults(func=_scan)
    wr = sub.add_parser("write", help="run an op-log with a writer (Spark, PyIceberg, chdb, Daft, repark, ...) into "
                                      "a directory and judge what it wrote",
                        description="Run one op-log (vectors/oplogs) with one writer into DIR and judge the table: "
                                    "the checker, the reference reader's rows per snapshot against the op-log's, "
                                    "and the op-log's relations. Exit 0 PASS/ADVISORY, 1 FAIL/KNOWN-FAILURE, "
                                    "3 UNSUPPORTED, 4 writer not available.")
    from iceberg_conformance.suites.writers.command import add_arguments as _write_arguments
    _write_arguments(wr)
    wr.set_defaults(func=_write)
    cov = sub.add_parser("coverage", help="how much of the spec the kit checks: per section, MUST and SHOULD "
                                          "coverage, every unchecked MUST with its reason",
                         description="Report how much of the spec the kit checks: per spec section, the MUST and "
                                     "SHOULD statements the rules, vectors and damage cases cover, and every "
                                     "unchecked MUST with its reason.")
    cov.add_argument("--json", action="store_true", help="JSON on stdout")
    cov.add_argument("--all", action="store_true", help="list every unchecked MUST (default: the first 40)")
    cov.add_argument("--readme", action="store_true", help="the README's 'What is covered' table (Markdown)")
    cov.set_defaults(func=_coverage)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (2 for a usage error)."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    passthrough: list[str] = []
    if args_in[:1] == ["run"] and "--" in args_in:  # everything after -- goes to pytest
        i = args_in.index("--")
        args_in, passthrough = args_in[:i], args_in[i + 1:]
    top = parser("check" if args_in[:1] == ["check"] else None)
    try:
        args, unknown = top.parse_known_args(args_in)
        if unknown and args.command != "run":
            top.parse_args(args_in)  # argparse's own error for the arguments no command takes
        passthrough = unknown + passthrough  # run: what it does not know goes to pytest
    except SystemExit as e:  # argparse: --help or --version (0) or a usage error (2)
        return 0 if e.code in (0, None) else 2
    func: Callable[[argparse.Namespace, list[str]], int] = args.func
    return int(func(args, passthrough))


def exit_hard(code: int) -> NoReturn:
    """End the process with ``code`` once the output is flushed, without running native
    libraries' exit-time destructors: a thread pool torn down at interpreter exit can abort the
    process ("terminate called without an active exception", exit 134) after a complete report,
    which a CI gate would read as a crash. Engine worker processes the command started are ended
    first: ``os._exit`` runs no exit handler, and they would hold the output pipe open."""
    engines = sys.modules.get("iceberg_conformance.suites.engines.process")
    if engines is not None:
        try:
            engines.shutdown_all()
        except Exception:  # a worker already gone: the exit code stays the command's
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader went away (e.g. `| head`)
            pass
    os._exit(code)


#: the exit code of a command whose reader went away (``| head``): the shell's for SIGPIPE
EXIT_BROKEN_PIPE = 141


def _run_command(argv: Sequence[str] | None) -> int:
    try:
        return main(argv)
    except BrokenPipeError:   # the reader stopped reading: end quietly, as a command killed by SIGPIPE
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return EXIT_BROKEN_PIPE


def entry() -> None:
    """The ``iceberg-conformance`` command."""
    exit_hard(_run_command(None))


def check_entry() -> None:
    """``iceberg-conformance-check``, the same as ``iceberg-conformance check``."""
    exit_hard(_run_command(["check", *sys.argv[1:]]))


if __name__ == "__main__":
    entry()
