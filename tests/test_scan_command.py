"""``iceberg-conformance scan``: reading a table the kit did not write (PyIceberg writes it here)
with an engine of the registry, under a filter, against another engine; exit codes and messages."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.engines import command
from iceberg_conformance.suites.engines.registry import ENGINES, CaseRead, Engine, ReadRequest, SnapshotRead

LT_3 = json.dumps({"type": "lt", "left": {"type": "reference", "name": "id"}, "right": 3})


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A v2 table written by PyIceberg's own writer: two appends, partitioned by day(ts), a null."""
    pytest.importorskip("pyiceberg")
    pytest.importorskip("sqlalchemy")
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import DayTransform
    from pyiceberg.types import LongType, NestedField, StringType, TimestampType

    root = tmp_path_factory.mktemp("pyiceberg")
    catalog = SqlCatalog("t", uri=f"sqlite:///{root}/catalog.db", warehouse=f"file://{root}/warehouse")
    catalog.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "s", StringType(), required=False),
                    NestedField(3, "ts", TimestampType(), required=False))
    t = catalog.create_table("db.events", schema=schema,
                             partition_spec=PartitionSpec(PartitionField(3, 1000, DayTransform(), "ts_day")))
    arrow = pa.schema([pa.field("id", pa.int64()), pa.field("s", pa.string()), pa.field("ts", pa.timestamp("us"))])
    t.append(pa.table({"id": [1, 2], "s": ["a", None], "ts": [dt.datetime(1969, 12, 31, 23), dt.datetime(2024, 1, 1)]},
                      schema=arrow))
    t.append(pa.table({"id": [3, 4], "s": ["c", "d"], "ts": [dt.datetime(1970, 1, 1), None]}, schema=arrow))
    return Path(t.metadata_location.removeprefix("file://"))


def _scan(*args: Any, **kw: Any) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = command.scan(*args, out=out, err=err, **kw)
    return code, [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue()


def test_reads_a_table_directory_with_the_reference(table: Path) -> None:
    code, rows, err = _scan(str(table.parent.parent), "reference")
    assert code == 0, err
    assert sorted(r["id"] for r in rows) == [1, 2, 3, 4]
    assert {"id": 1, "s": "a", "ts": "1969-12-31T23:00:00.000000"} in rows


def test_an_older_snapshot_and_a_filter(table: Path) -> None:
    md = json.loads(table.read_text())
    first = md["snapshots"][0]["snapshot-id"]
    code, rows, err = _scan(str(table), "reference", snapshot=first, filter_text=LT_3)
    assert code == 0, err
    assert sorted(r["id"] for r in rows) == [1, 2]


def test_duckdb_against_the_reference(table: Path) -> None:
    pytest.importorskip("duckdb_extension_iceberg")
    not_a = json.dumps({"type": "not-eq", "left": {"type": "reference", "name": "s"}, "right": "a"})
    code, rows, err = _scan(str(table), "duckdb", filter_text=not_a, compare="reference")
    # SQL's <> drops the row whose s is null, the spec's not-eq keeps it: a semantic difference,
    # listed apart and not counted
    assert "semantics differ" in err and '"id": 2' in err
    assert code == 0, err
    assert sorted(r["id"] for r in rows) == [3, 4]


def _liar(drop: int) -> Engine:
    """An engine whose read under a filter loses the row with id ``drop`` (a pruning bug)."""
    def read(r: ReadRequest) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = ENGINES["reference"].read(r)
        return rows

    def scan(r: ReadRequest, filters: dict[str, Any]) -> SnapshotRead:
        base = read(r)
        cases = {}
        for key, expr in filters.items():
            kept = ENGINES["reference"].scan(r, {key: expr}).cases[key].pushed or []
            cases[key] = CaseRead(condition="liar", pushed=[x for x in kept if x["id"] != drop])
        return SnapshotRead(base=base, cases=cases)
    return Engine("liar", "an engine that prunes wrongly", (), read, scan, lambda: "0", json_rows=True)


def test_a_filtered_read_that_loses_rows_exits_1_and_names_them(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ENGINES, "liar", _liar(drop=1))
    code, rows, err = _scan(str(table), "liar", filter_text=LT_3)
    assert code == 1
    assert "differs from its own evaluation" in err and '"id": 1' in err
    code, rows, err = _scan(str(table), "liar", filter_text=LT_3, compare="reference")
    assert code == 1 and "only reference" in err


@pytest.mark.parametrize(("kw", "message"), [
    ({"engine_name": "nope"}, "no engine 'nope'"),
    ({"engine_name": "reference", "ref": "nope"}, "no ref 'nope'"),
    ({"engine_name": "reference", "snapshot": 1}, "no snapshot 1"),
    ({"engine_name": "reference", "filter_text": "{not json"}, "--filter: not JSON"),
    ({"engine_name": "reference", "filter_text": json.dumps({"type": "is-null", "child": {"type": "reference", "name": "nope"}})},
     "names a column"),
    ({"engine_name": "reference", "compare": "nope"}, "--compare: no engine"),
])
def test_usage_errors_exit_2_with_a_message(table: Path, kw: dict[str, Any], message: str) -> None:
    code, rows, err = _scan(str(table), **kw)
    assert code == 2 and message in err and not rows
    assert "Traceback" not in err


def test_a_missing_table_exits_2(tmp_path: Path) -> None:
    code, _, err = _scan(str(tmp_path / "nope"), "reference")
    assert code == 2 and "no such file or directory" in err


def test_the_table_is_only_read(table: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in table.parent.parent.rglob("*")}
    for engine in ("reference", "icebird"):   # icebird (absent here or not) reads a relocated copy
        _scan(str(table), engine, filter_text=LT_3)
    assert {p: p.stat().st_mtime_ns for p in table.parent.parent.rglob("*")} == before


def test_the_command_line_reaches_scan(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from iceberg_conformance.cli import main

    assert main(["scan", str(table), "--engine", "reference", "--filter", LT_3]) == 0
    out = capsys.readouterr()
    assert sorted(json.loads(x)["id"] for x in out.out.splitlines()) == [1, 2]


def test_the_command_leaves_no_engine_process_holding_its_output(table: Path) -> None:
    """An engine that runs in a worker process of its own (DuckDB) is ended with the command: the
    command line ends with os._exit, which runs no exit handler, and a worker left behind would
    hold the output pipe open (``iceberg-conformance scan ... | tail`` would never end)."""
    pytest.importorskip("duckdb_extension_iceberg")
    import subprocess
    import sys

    # run() reads the pipes to their end: a process still holding them makes it time out
    done = subprocess.run([sys.executable, "-m", "iceberg_conformance", "scan", str(table), "--engine", "duckdb",
                           "--filter", LT_3, "--compare"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(x)["id"] for x in done.stdout.splitlines()) == [1, 2]
