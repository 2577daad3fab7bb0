"""pytest plugin for checking tables on disk: ``pytest suites/test_table_check.py --table PATH``.

Options (group ``iceberg-conformance``):

* ``--table PATH`` (repeatable; ``$ICEBERG_CONFORMANCE_TABLE``, several separated by ``,``):
  a metadata file, a table directory or a warehouse; every table found below it becomes one
  parametrized case of the fixture ``iceberg_table`` (its metadata file path).
* ``--table-fail-on error|warning`` (default ``error``): the lowest finding severity that
  fails a table.
* ``--table-relocate OLD=NEW`` (repeatable): the tables were moved or copied; files recorded
  under OLD are read from NEW.
* ``--table-catalog NAME``: ``--table`` values name tables (``db.table``) or namespaces (``db``)
  of PyIceberg's catalog NAME (none: every table of the catalog).
* ``--table-s3-endpoint URL``: the S3 endpoint of ``s3://`` tables (default: the AWS environment).

``--table`` also takes a table's URI in an object store (``s3://``, ``gs://``, ``abfs(s)://``,
``file://``); it is read once at collection, its findings named by the URI.

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
    group.addoption(
        "--table-relocate", action="append", default=[], metavar="OLD=NEW",
        help="the --table tables were moved or copied: read files recorded under OLD from NEW (repeatable)")
    group.addoption(
        "--table-catalog", metavar="NAME", default=None,
        help="--table names tables (db.table) or namespaces (db) of PyIceberg's catalog NAME; "
             "without --table, every table of the catalog")
    group.addoption(
        "--table-s3-endpoint", metavar="URL", default=None,
        help="the S3 endpoint of s3:// tables (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, AWS)")


def table_paths(config: pytest.Config) -> list[str]:
    given = config.getoption("table") or [
        p.strip() for p in os.environ.get(ENV_TABLE, "").split(",") if p.strip()]
    return list(dict.fromkeys(given))


def pytest_report_header(config: pytest.Config) -> list[str]:
    given = table_paths(config)
    catalog = config.getoption("table_catalog")
    head = f"catalog {catalog}: " if catalog else ""
    return [f"iceberg-conformance: tables: {head}{', '.join(given) or 'all'}"] if given or catalog else []


#: the sources read for this session (object-store tables are copied locally): closed at its end
_OPEN: list[Any] = []


def pytest_unconfigure(config: pytest.Config) -> None:
    while _OPEN:
        _OPEN.pop().close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "iceberg_table" not in metafunc.fixturenames:
        return
    from iceberg_conformance.checker.find import parse_relocate  # loaded only where tables are given
    from iceberg_conformance.checker.sources import resolve, SourceError

    config = metafunc.config
    catalog = config.getoption("table_catalog")
    try:
        parse_relocate(config.getoption("table_relocate"))
    except ValueError as e:
        raise pytest.UsageError(str(e)) from e
    tables: list[Any] = []
    for p in table_paths(config) or ([""] if catalog else []):
        try:
            found = resolve(p, catalog=catalog, metadata_only=config.getoption("table_metadata_only"),
                            s3_endpoint=config.getoption("table_s3_endpoint"))
        except SourceError as e:
            raise pytest.UsageError(f"--table {p}: {e}") from e
        _OPEN.extend(found)
        for s in found:
            t = s.current.path
            if s.spooled is not None or catalog:
                tables.append(pytest.param(s, id=f"{s.label} @ {os.path.basename(t)}"))
                continue
            table_dir = os.path.dirname(os.path.dirname(t))
            base = os.path.abspath(p) if os.path.isdir(p) else table_dir
            rel = os.path.relpath(table_dir, base)
            name = os.path.basename(table_dir) if rel == "." else rel
            tables.append(pytest.param(s, id=f"{name} @ {os.path.basename(t)}"))
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
