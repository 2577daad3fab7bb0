"""pytest plugin for checking tables on disk: ``pytest suites/test_table_check.py --table PATH``.

Options (group ``iceberg-conformance``):

* ``--table PATH`` (repeatable; ``$ICEBERG_CONFORMANCE_TABLE``, several separated by ``,``):
  a metadata file, a table directory or a warehouse; every table found below it becomes one
  parametrized case of the fixture ``iceberg_table`` (its metadata file path).
* ``--table-fail-on error|warning`` (default ``error``): the lowest finding severity that
  fails a table.

A table's test fails with every finding listed: severity, rule id, spec clause, file and
location. Without ``--table`` the tables test is reported as skipped (nothing was given to check).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

ENV_TABLE = "ICEBERG_CONFORMANCE_TABLE"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("iceberg-conformance", "Iceberg conformance kit")
    group.addoption(
        "--table", action="append", default=[], metavar="PATH",
        help="check the Iceberg table(s) at PATH: a metadata file, a table directory or a warehouse "
             f"(repeatable; env {ENV_TABLE}, comma-separated)")
    group.addoption(
        "--table-metadata-only", action="store_true", default=False,
        help="check only metadata, manifest lists and manifests of --table tables (no data or delete files)")
    group.addoption(
        "--table-fail-on", choices=("error", "warning"), default="error",
        help="lowest finding severity that fails a table check (default: error)")


def table_paths(config: pytest.Config) -> list[str]:
    given = config.getoption("table") or [
        p.strip() for p in os.environ.get(ENV_TABLE, "").split(",") if p.strip()]
    return list(dict.fromkeys(given))


def pytest_report_header(config: pytest.Config) -> list[str]:
    given = table_paths(config)
    return [f"iceberg-conformance: tables: {', '.join(given)}"] if given else []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "iceberg_table" not in metafunc.fixturenames:
        return
    from iceberg_conformance.checker.find import find_tables  # loaded only where tables are given

    tables: list[Any] = []
    for p in table_paths(metafunc.config):
        found = find_tables(p)
        if not found:
            raise pytest.UsageError(f"--table {p}: no Iceberg table there (expected a metadata file, a table "
                                    "directory with metadata/, or a warehouse)")
        for t in found:
            table_dir = os.path.dirname(os.path.dirname(t))
            base = os.path.abspath(p) if os.path.isdir(p) else table_dir
            rel = os.path.relpath(table_dir, base)
            name = os.path.basename(table_dir) if rel == "." else rel
            tables.append(pytest.param(t, id=f"{name} @ {os.path.basename(t)}"))
    metafunc.parametrize("iceberg_table", tables)


def format_findings(findings: list[Any]) -> str:
    """One line per finding, grouped by file."""
    by_file: dict[str, list[Any]] = {}
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    lines = []
    for file in sorted(by_file):
        lines.append(f"{file}:")
        for f in by_file[file]:
            loc = f" at {f.location}" if f.location else ""
            lines.append(f"  {f.severity}: [{f.rule}]{loc}: {f.message}\n      spec: {f.clause}")
    return "\n".join(lines)
