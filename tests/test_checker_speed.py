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
            return self.fs.open_input_stream(path)

        def open_input_file(self, path: str) -> Any:
            return self.open_input_stream(path)

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
