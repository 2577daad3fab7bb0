"""What keeps a full check near the cost of reading the table once: one pool of workers per
check, each data file opened once, a store's files fetched many at once. Each test watches
the behaviour (processes started, files opened, requests in flight), and the findings stay
those of the plain way."""

from __future__ import annotations

import multiprocessing.context
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.suites.golden.small_tables import write_reference_table


def test_a_check_with_workers_starts_them_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Manifests and content files run in the same pool: ``workers`` processes start, not a
    new set for each phase (each start imports the kit again: about half a second a process)."""
    table = write_reference_table(tmp_path, 2)
    started: list[str] = []
    original = multiprocessing.context.SpawnProcess.start

    def counted(self: Any) -> None:
        started.append(self.name)
        original(self)
    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", counted)
    two = check_table(table, workers=2)
    assert len(started) == 2, started
    one = check_table(table)
    assert two.units == one.units
    assert sorted(map(str, two.findings)) == sorted(map(str, one.findings))


def test_each_data_file_is_opened_once(tmp_path: Path) -> None:
    """A full check opens each data file once: the footer, the row groups and every column the
    rules need come from that one open."""
    table = write_reference_table(tmp_path, 2)
    root = os.path.dirname(os.path.dirname(table))
    files = sorted(os.path.join(d, n) for d, _s, names in os.walk(root) for n in names if n.endswith(".parquet"))
    watched = set(files)
    opened: list[str] = []

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and args and args[0] in watched:
            opened.append(str(args[0]))
    sys.addaudithook(hook)
    try:
        result = check_table(table)
    finally:
        watched.clear()  # an audit hook stays for the process: from here on it matches nothing
    assert files and result.units > len(files)
    assert sorted(opened) == files, opened


def test_a_store_table_is_fetched_many_files_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table in a store is copied with many requests in flight, metadata and data files in one
    batch (a store's latency is paid once per batch of files, not once per file or directory),
    every file exactly once and byte for byte; of the metadata files (JSON) only the current one
    and those its metadata-log names (a table keeps one per commit; the check reads no other),
    and the check finds what it finds in the table where it was written."""
    import pyarrow.fs as pafs

    from iceberg_conformance.checker import stores

    import json

    table = write_reference_table(tmp_path, 2)
    root = os.path.dirname(os.path.dirname(table))
    # the current file (v3) logs v2; v1 is named by no one: a check never reads it
    doc = json.loads(Path(table).read_text())
    doc["metadata-log"] = [{"timestamp-ms": doc["last-updated-ms"] - 1,
                            "metadata-file": f"{root}/metadata/v2.metadata.json"}]
    Path(table).write_text(json.dumps(doc))
    lock = threading.Lock()
    state = {"now": 0, "most": 0}
    flying: list[str] = []
    together: set[str] = set()   # the table's top-level directories that had files in flight at once
    opened: list[str] = []

    class Slow(pafs.FileSystemHandler):  # a local directory behind a store's latency
        def __init__(self) -> None:
            self.fs = pafs.LocalFileSystem()

        def get_type_name(self) -> str:
            return "slow"

        def normalize_path(self, path: str) -> str:
            return path

        def get_file_info(self, paths: list[str]) -> Any:
            return self.fs.get_file_info(paths)

        def get_file_info_selector(self, selector: Any) -> Any:
            return self.fs.get_file_info(selector)

        def open_input_stream(self, path: str) -> Any:
            self._count(path)
            return self.fs.open_input_stream(path)

        def open_input_file(self, path: str) -> Any:
            self._count(path)
            return self.fs.open_input_file(path)

        def _count(self, path: str) -> None:
            top = os.path.relpath(path, root).split(os.sep)[0]
            with lock:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
                opened.append(path)
                flying.append(top)
                if len(set(flying)) > 1:
                    together.update(flying)
            time.sleep(0.05)
            with lock:
                state["now"] -= 1
                flying.remove(top)

        def _refused(self, *args: Any) -> Any:
            raise NotImplementedError("the copy only reads")

        copy_file = create_dir = delete_dir = delete_dir_contents = delete_file = _refused
        delete_root_dir_contents = move = open_append_stream = open_output_stream = _refused

    monkeypatch.setattr(stores, "filesystem", lambda uri, endpoint=None: (pafs.PyFileSystem(Slow()), root))
    spooled = stores.spool("s3://bucket/table")
    try:
        copied = sorted(os.path.relpath(os.path.join(d, n), spooled.directory)
                        for d, _s, names in os.walk(spooled.directory) for n in names)
        originals = sorted(os.path.relpath(os.path.join(d, n), root) for d, _s, names in os.walk(root) for n in names)
        assert copied == [r for r in originals if r != os.path.join("metadata", "v1.metadata.json")]
        assert len(copied) > 4
        assert spooled.current.path == os.path.join(spooled.directory, "metadata", "v3.metadata.json")
        for rel in copied:
            assert Path(spooled.directory, rel).read_bytes() == Path(root, rel).read_bytes()
        here = check_table(table)
        there = check_table(spooled.current, relocate=[(root, spooled.directory)])
        moved = sorted(str(f).replace(spooled.directory, root) for f in there.findings)
        assert moved == sorted(map(str, here.findings))
    finally:
        stores.remove(spooled)
    assert sorted(opened) == sorted(set(opened)) and len(opened) == len(copied)
    assert state["most"] > 1 and {"metadata", "data"} <= together, (state, together)


def test_a_day_partition_source_keeps_two_values_per_chunk_with_every_value_s_range(tmp_path: Path) -> None:
    """The source of a day (year, month, hour) partition keeps, per chunk, its least and greatest
    value, not every distinct one, and gives the range every value gives (the next test: a bad
    row is still named, found by reading the column again)."""
    import datetime

    import pyarrow as pa

    from iceberg_conformance.checker.units.metrics import accumulate, ColumnStats
    from iceberg_conformance.reference.types import TimestamptzType

    day = datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)
    values = pa.array([day + datetime.timedelta(seconds=i) for i in range(5000)] + [None], pa.timestamp("us", "UTC"))
    ends, every = ColumnStats(), ColumnStats()
    accumulate(ends, TimestamptzType(), values, want_partition="ends")
    accumulate(every, TimestamptzType(), values, want_partition=True)
    assert sum(len(c) for _t, c in ends.partition_chunks) == 3 and not ends.partition_complete
    assert sum(len(c) for _t, c in every.partition_chunks) == 5001 and every.partition_complete
    assert ends.partition_int_range() == every.partition_int_range() == (
        1704153600000000, 1704153600000000 + 4999 * 10**6, True)


def test_a_file_of_another_day_is_reported_with_its_rows_values(tmp_path: Path) -> None:
    """Two files' day partition values swapped: their least and greatest values disagree with
    the partition, so the column is read again and the finding shows the rows' values and days."""
    from iceberg_conformance.checker.damage.selftest import write_damaged
    from iceberg_conformance.suites.golden.small_tables import write_pyiceberg_table

    pytest.importorskip("pyiceberg", reason="the table is written by PyIceberg (extra pyiceberg)")
    table = write_pyiceberg_table(tmp_path)
    swapped = []
    for seed in range(40):  # the case swaps one of the three partition fields: the day one is wanted
        _pristine, copies, _none = write_damaged(table, str(tmp_path / f"out{seed}"), rules=["data.partition-value"],
                                                 seed=seed)
        swapped = [c for c in copies if "partition d_day swapped" in c.where]
        if swapped:
            break
    assert swapped
    found = [f for f in check_table(swapped[0].metadata).findings if f.rule == "data.partition-value"]
    assert len(found) == 2, found
    import datetime
    import re

    for f in found:
        # the file's rows are of the day its directory names (PyIceberg's layout); a date and its
        # day are the days since 1970-01-01
        written = re.search(r"d_day=(\d{4}-\d\d-\d\d)/", f.message)
        assert written is not None, f.message
        days = (datetime.date.fromisoformat(written.group(1)) - datetime.date(1970, 1, 1)).days
        assert "partition d_day is" in f.message and written.group(1) not in f.message.split("partition d_day is")[1]
        assert f"day of the rows' column 5 gives other values ({days} -> {days})" in f.message, f.message


def test_the_check_command_starts_without_the_other_commands_modules(tmp_path: Path) -> None:
    """``iceberg-conformance check`` imports the checker, not the damage cases, the suites' golden
    tables and targets or the spec coverage (a third of the kit's import time at every start)."""
    import subprocess

    table = write_reference_table(tmp_path, 2)
    code = ("import sys, contextlib, io\n"
            "from iceberg_conformance.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['check', {table!r}, '--quiet'])\n"
            "print(code, sorted(m for m in sys.modules if m.startswith('iceberg_conformance.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    status, _, loaded = out.partition(" ")
    assert status == "0" and "iceberg_conformance.checker.units.datafile" in loaded, out
    for module in ("iceberg_conformance.checker.damage", "iceberg_conformance.statements.coverage",
                   "iceberg_conformance.suites.golden.registry", "iceberg_conformance.suites.targets"):
        assert f"'{module}'" not in loaded, module


def test_the_metadata_unit_is_handed_to_the_pool_before_the_plan_is_made(tmp_path: Path) -> None:
    """The metadata unit needs no plan: the pool gets it first, while this process plans (on a
    long history its earlier metadata files are a second of work); the findings are unchanged."""
    import time

    from iceberg_conformance.checker.check import _check_table
    from iceberg_conformance.checker.find import Current

    table = write_reference_table(tmp_path, 2)
    events: list[tuple[str, Any]] = []

    def mapper(fn: Any, batches: list[Any]) -> Any:
        events.append(("batches", [[u.kind for u in b] for b in batches]))
        return [fn(b) for b in batches]

    result = _check_table(Current(table, "named directly"), time.monotonic(), None, mapper, None, False, 2,
                          lambda units: events.append(("planned", len(units))), None, ahead=True)
    assert events[0] == ("batches", [["metadata"]]) and events[1][0] == "planned", events
    assert all("metadata" not in kinds for _e, batches in events[2:] for kinds in batches), events
    assert sorted(map(str, result.findings)) == sorted(map(str, check_table(table).findings))


def test_parquet_is_read_through_arrow_s_own_file_not_a_python_one(tmp_path: Path) -> None:
    """pyarrow reads a Python file object from its own threads under the interpreter lock; one of
    them still at it when the interpreter exits aborted the process ("terminate called without an
    active exception", about one full check in five). The checker gives pyarrow a native file on
    the same open file instead."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from iceberg_conformance.reference.safeio import arrow_file, open_regular

    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    with open_regular(path) as fh:
        native = arrow_file(fh)
        assert isinstance(native, pa.NativeFile) and not isinstance(native, pa.PythonFile)
        assert pq.ParquetFile(native).read().column("a").to_pylist() == [1, 2, 3]


def test_the_process_that_plans_does_not_import_polars(tmp_path: Path) -> None:
    """Importing Polars takes about a second; the columnar screen runs where the manifest units
    run (the pool's workers import it while the parent plans), so the parent only asks whether
    it is installed. Its findings are those of the screen."""
    import subprocess

    pytest.importorskip("polars", reason="the columnar screen needs Polars")
    table = write_reference_table(tmp_path, 2)
    code = ("import sys; from iceberg_conformance.checker.check import check_table; "
            f"r = check_table({table!r}, workers=2); "
            "print('polars' in sys.modules, sorted(f.rule for f in r.findings))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    imported, rules = out.stdout.strip().split(" ", 1)
    assert imported == "False"
    assert rules == str(sorted(f.rule for f in check_table(table).findings))
