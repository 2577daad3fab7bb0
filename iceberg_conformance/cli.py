"""``iceberg-conformance``: the kit's command line.

* ``iceberg-conformance run [--target NAME ...] [--report DIR] [-- PYTEST ARGS]`` runs the
  suites against the targets and writes the target x area matrix (``matrix.html``,
  ``matrix.md``, ``matrix.json``) and a JUnit file into DIR. Exit code: pytest's (0 all
  passed, 1 failures; "no tests ran" is turned into 1 so a CI gate cannot pass on nothing).
* ``iceberg-conformance check PATH ... [OPTIONS]`` checks tables on disk; it takes every option
  of ``iceberg-conformance-check`` (``--json``, ``--fail-on``, ``--quiet``).
* ``iceberg-conformance rules [--json] [--area A]`` lists every rule the checker reports: id,
  severity, normative level, spec section and sentence, and the damage cases that break it.
* ``iceberg-conformance damage TABLE OUT [--rule R] [--check]`` writes single-violation copies
  of a valid table and, with ``--check``, runs the checker on each (recall per area).
* ``iceberg-conformance coverage [--json] [--all]`` reports, per spec section, the normative
  statements the rules, vectors and damage cases check, and every unchecked MUST with its reason
  (:mod:`iceberg_conformance.statements.coverage`).
* ``iceberg-conformance export DIR`` writes the vectors and an ``index.json`` of every case,
  for implementations that consume the vectors with their own test runner;
  ``export --archive DIR [--golden G]`` writes the release archive for other languages
  (:mod:`iceberg_conformance.vectors.archive`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: the suites' own directory: the repository's suites/ in a checkout, the installed package otherwise
SUITES = Path(__file__).resolve().parent
NO_TESTS_COLLECTED = 5


def _run(args: argparse.Namespace, passthrough: list[str]) -> int:
    import pytest

    report = Path(args.report).resolve()
    report.mkdir(parents=True, exist_ok=True)
    # the CLI has imported the kit before pytest loads its plugin: no assertion rewriting there
    argv = [str(SUITES), "-W", "ignore::pytest.PytestAssertRewriteWarning", "-p", "no:cacheprovider", "--conformance-report", str(report),
            f"--junitxml={report / 'junit.xml'}", "-q", "-rfE"]
    if not args.spark:
        argv += ["-m", "not spark"]
    for t in args.target:
        argv += ["--target", t]
    code = int(pytest.main(argv + passthrough))
    matrix = report / "matrix.md"
    if matrix.exists():
        print("\niceberg-conformance: target x area (PASS/FAIL/UNSUPPORTED/KNOWN-FAILURE/ADVISORY/SKIP)")
        print(matrix.read_text(encoding="utf-8"), end="")
    print(f"report: {report / 'matrix.html'} (also matrix.md, matrix.json, junit.xml)")
    return 1 if code == NO_TESTS_COLLECTED else code


def _check(args: argparse.Namespace, passthrough: list[str]) -> int:
    try:
        from iceberg_conformance.checker.cli import main as check_main
    except ImportError as e:  # pragma: no cover - the checker ships with the kit
        print(f"iceberg-conformance check: the table checker is not available: {e}", file=sys.stderr)
        return 2
    return int(check_main(args.args + passthrough))


def _damage(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.checker.damage import main as damage_main

    return int(damage_main(args.args + passthrough))


def _rules(args: argparse.Namespace, passthrough: list[str]) -> int:
    from iceberg_conformance.checker.damage import DAMAGES
    from iceberg_conformance.reference.rules import LEVELS, catalogue, spec_revision

    damaged = {d.rule for d in DAMAGES}
    rules = [r for r in catalogue().values() if not args.area or r.area in args.area]
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
    from iceberg_conformance.statements.coverage import main as coverage_main

    return coverage_main((["--json"] if args.json else []) + (["--all"] if args.all else []) + passthrough)


def _export(args: argparse.Namespace, passthrough: list[str]) -> int:
    import os

    from iceberg_conformance.vectors.archive import build_archive, export_tree
    from iceberg_conformance.vectors.cases import case_files, vectors_root

    if args.archive:
        golden_dir = args.golden or os.environ.get("ICEBERG_CONFORMANCE_GOLDEN")
        golden = Path(golden_dir).resolve() if golden_dir else None
        if golden is not None and not (golden / "warehouse").is_dir():
            print(f"iceberg-conformance export: {golden} has no warehouse/ (write one with: python -m "
                  "iceberg_conformance.suites.golden.generate --out DIR)", file=sys.stderr)
            return 2
        target = Path(args.archive).resolve()
        target.mkdir(parents=True, exist_ok=True)
        path, cases, tables = build_archive(target, golden, progress=lambda s: print(f"  {s}", file=sys.stderr))
        print(f"wrote {path}: {cases} cases, {tables} golden tables"
              + ("" if golden else " (no golden tables: give --golden DIR or $ICEBERG_CONFORMANCE_GOLDEN)"))
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("check", "damage"):  # everything after the subcommand is its own
        if argv[0] == "check":
            from iceberg_conformance.checker.cli import main as check_main

            return int(check_main(argv[1:]))
        from iceberg_conformance.checker.damage import main as damage_main

        return int(damage_main(argv[1:]))
    passthrough: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, passthrough = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(prog="iceberg-conformance", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the suites against targets and write the matrix report")
    run.add_argument("--target", action="append", default=[],
                     help="target name or package.module:attr (repeatable; default: reference)")
    run.add_argument("--report", default="report", help="report directory (default: report/)")
    run.add_argument("--spark", action="store_true", help="also run the Spark lane (golden tables)")
    run.set_defaults(func=_run)
    check = sub.add_parser("check", add_help=False,
                           help="check Iceberg tables on disk against the spec (options: check --help)")
    check.add_argument("args", nargs=argparse.REMAINDER, help="what iceberg-conformance-check takes")
    check.set_defaults(func=_check)
    rules = sub.add_parser("rules", help="list every rule: id, severity, level, spec section and sentence")
    rules.add_argument("--json", action="store_true", help="JSON on stdout")
    rules.add_argument("--area", action="append", default=[],
                       help="only rules of this area (metadata, manifest-list, manifest, data-file, delete-file, "
                            "puffin, values, kit)")
    rules.set_defaults(func=_rules)
    damage = sub.add_parser("damage", add_help=False,
                            help="write single-violation copies of a valid table (options: damage --help)")
    damage.add_argument("args", nargs=argparse.REMAINDER, help="TABLE OUT [--rule R] [--seed N] [--check]")
    damage.set_defaults(func=_damage)
    export = sub.add_parser("export", help="write the vectors and an index of every case, or the release archive")
    export.add_argument("out", nargs="?", help="output directory (must be empty or absent)")
    export.add_argument("--archive", metavar="DIR",
                        help="write iceberg-conformance-vectors-<version>.tar.gz into DIR instead (vectors, index, "
                             "golden tables with relative paths, README, a standard-library consumer)")
    export.add_argument("--golden", metavar="DIR", help="golden tables to include (default: $ICEBERG_CONFORMANCE_GOLDEN)")
    export.set_defaults(func=_export)
    coverage = sub.add_parser("coverage", help="how much of the spec the kit checks: per section, MUST and SHOULD "
                                               "coverage, every unchecked MUST with its reason")
    coverage.add_argument("--json", action="store_true", help="JSON on stdout")
    coverage.add_argument("--all", action="store_true", help="list every unchecked MUST (default: the first 40)")
    coverage.set_defaults(func=_coverage)
    args = parser.parse_args(argv)
    return int(args.func(args, passthrough))


def entry() -> None:
    """The ``iceberg-conformance`` command (see :func:`checker.cli.exit_hard` for why it exits so)."""
    from iceberg_conformance.checker.cli import exit_hard

    exit_hard(main())


if __name__ == "__main__":
    entry()
