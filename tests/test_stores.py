"""Tables where they live: which metadata file is current, moved and copied tables
(``--relocate``), object stores (an S3 server on the loopback interface) and catalogs.

The S3 tests start moto's server mode on 127.0.0.1 (``pip install 'iceberg-conformance[stores]'``)
and write the table through it with PyIceberg; the same table is written locally, and the two
checks must give the same findings once the table's location is taken out of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.find import Current, current_metadata, find_current
from iceberg_conformance.checker.sources import check_source, resolve, SourceError

pytest.importorskip("pyiceberg", reason="the tables are written by PyIceberg (extra pyiceberg)")

ROWS = 30


def _write(warehouse: str, catalog_dir: Path, commits: int = 3, **props: str) -> Any:
    """A v2 table ``db.events`` (day partitions), ``commits`` appends; the PyIceberg table."""
    import datetime

    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import DayTransform
    from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

    catalog_dir.mkdir(parents=True, exist_ok=True)
    cat = SqlCatalog("t", uri=f"sqlite:///{catalog_dir}/catalog.db", warehouse=warehouse, **props)
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "ts", TimestamptzType()),
                    NestedField(3, "name", StringType()))
    t = cat.create_table("db.events", schema, partition_spec=PartitionSpec(PartitionField(2, 1000, DayTransform(),
                                                                                          "ts_day")),
                         properties={"format-version": "2"})
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    for c in range(commits):
        ids = list(range(c * ROWS, (c + 1) * ROWS))
        t.append(pa.Table.from_pydict({"id": ids, "ts": [base + datetime.timedelta(days=c, seconds=i) for i in ids],
                                       "name": [f"n{i}" for i in ids]}, schema=t.schema().as_arrow()))
    return t


@pytest.fixture
def table(tmp_path: Path) -> str:
    """The table directory of a PyIceberg table of three commits."""
    _write(f"file://{tmp_path}/wh", tmp_path / "wh")
    return str(tmp_path / "wh" / "db" / "events")


def _shape(findings: list[Any], *prefixes: str) -> list[tuple[str, str, str, str]]:
    """Findings as (rule, severity, file, message) with the table's prefixes written as <T>."""
    def plain(s: str) -> str:
        for p in prefixes:
            s = s.replace(p, "<T>")
        return s
    return sorted((f.rule, f.severity, plain(f.file), plain(f.message)) for f in findings)


# --- which metadata file is current ---------------------------------------------------------------

def test_version_hint_chooses_and_newer_files_are_reported(table: str) -> None:
    meta = Path(table) / "metadata"
    newest = current_metadata(table)
    assert newest is not None and "highest version" in newest.why and newest.newer == ()
    # a Hadoop-style table: version-hint.text names v1; v2 was written and never made current
    doc = json.loads(Path(newest.path).read_text())
    (meta / "v1.metadata.json").write_text(json.dumps(doc))
    (meta / "v2.metadata.json").write_text(json.dumps(doc))
    (meta / "version-hint.text").write_text("1\n")
    for p in meta.glob("0*.metadata.json"):
        p.unlink()
    chosen = current_metadata(table)
    assert chosen is not None and chosen.path == str(meta / "v1.metadata.json")
    assert chosen.why == "metadata/version-hint.text names version 1"
    assert chosen.newer == (str(meta / "v2.metadata.json"),)
    result = check_table(chosen)
    newer = [f for f in result.findings if f.rule == "metadata.newer-metadata-files"]
    assert len(newer) == 1 and newer[0].severity == "warning" and "v2.metadata.json" in newer[0].message
    assert result.chosen == chosen.why


def test_a_metadata_file_named_directly_is_not_questioned(table: str) -> None:
    first = sorted((Path(table) / "metadata").glob("00001-*.metadata.json"))[0]
    (found,) = find_current(str(first))
    assert found.why == "named directly" and found.newer == ()
    assert not [f for f in check_table(found).findings if f.rule == "metadata.newer-metadata-files"]


def test_an_orphan_beside_the_catalogs_pointer_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _write(f"file://{tmp_path}/wh", tmp_path / "wh")
    pointer = str(t.metadata_location)[len("file://"):]
    meta = Path(pointer).parent
    orphan = meta / "00004-0b8e4c2e-6a38-4d53-9c55-3e0c0f6e8a11.metadata.json"
    shutil.copy(pointer, orphan)   # a commit that wrote its file and lost the race to swap it in
    monkeypatch.setenv("PYICEBERG_CATALOG__T__URI", f"sqlite:///{tmp_path}/wh/catalog.db")
    monkeypatch.setenv("PYICEBERG_CATALOG__T__TYPE", "sql")
    monkeypatch.setenv("PYICEBERG_CATALOG__T__WAREHOUSE", f"file://{tmp_path}/wh")
    (src,) = resolve("db.events", catalog="t")
    assert src.current.path == pointer
    assert src.current.why == "catalog t points at it for db.events"
    result = check_source(src)
    assert result.table == pointer
    newer = [f for f in result.findings if f.rule == "metadata.newer-metadata-files"]
    assert len(newer) == 1 and str(orphan) in newer[0].message
    # the directory alone would have chosen the orphan
    assert current_metadata(str(meta.parent)).path == str(orphan)  # type: ignore[union-attr]
    # a namespace names each of its tables; the command line says which file it checked and why
    _write_second(tmp_path)
    assert sorted(s.label for s in resolve("db", catalog="t")) == ["t:db.events", "t:db.more"]
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance.cli", "check", "--catalog", "t", "db.events"],
                         capture_output=True, text=True, env=dict(os.environ), cwd=tmp_path)
    assert f"checking t:db.events: catalog t points at it for db.events" in run.stderr, run.stderr
    assert "metadata.newer-metadata-files" in run.stdout and pointer in run.stdout
    with pytest.raises(SourceError, match="no table or namespace"):
        resolve("nope", catalog="t")


def test_an_orphan_beside_the_catalogs_pointer_in_a_store_is_reported(s3_endpoint: str,
                                                                     s3_bucket: Callable[[str], None],
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for a table in a store: the orphan is in the store's listing, not in the local
    copy (the check reads only the metadata files it checks)."""
    import pyarrow.fs as pafs

    s3_bucket("orphans")
    props = {"s3.endpoint": s3_endpoint, "s3.access-key-id": "testing", "s3.secret-access-key": "testing",
             "s3.region": "us-east-1"}
    t = _write("s3://orphans", tmp_path / "cat", **props)
    pointer = str(t.metadata_location)
    orphan = pointer.rsplit("/", 1)[0] + "/00004-0b8e4c2e-6a38-4d53-9c55-3e0c0f6e8a11.metadata.json"
    fs = pafs.S3FileSystem(endpoint_override=s3_endpoint.split("://")[1], scheme="http", access_key="testing",
                           secret_key="testing", region="us-east-1")
    fs.copy_file(pointer[len("s3://"):], orphan[len("s3://"):])
    monkeypatch.setenv("PYICEBERG_CATALOG__T__URI", f"sqlite:///{tmp_path}/cat/catalog.db")
    monkeypatch.setenv("PYICEBERG_CATALOG__T__TYPE", "sql")
    monkeypatch.setenv("PYICEBERG_CATALOG__T__WAREHOUSE", "s3://orphans")
    for k, v in props.items():
        monkeypatch.setenv(f"PYICEBERG_CATALOG__T__{k.upper().replace('.', '__').replace('-', '_')}", v)
    (src,) = resolve("db.events", catalog="t", metadata_only=True)
    try:
        result = check_source(src, metadata_only=True)
    finally:
        src.close()
    assert result.table == pointer and result.chosen == "catalog t points at it for db.events"
    newer = [f for f in result.findings if f.rule == "metadata.newer-metadata-files"]
    assert len(newer) == 1 and orphan in newer[0].message, result.findings


def _write_second(tmp_path: Path) -> None:
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField

    cat = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/wh/catalog.db", warehouse=f"file://{tmp_path}/wh")
    t = cat.create_table("db.more", Schema(NestedField(1, "id", LongType(), required=True)))
    t.append(pa.Table.from_pydict({"id": [1, 2]}, schema=t.schema().as_arrow()))


# --- moved and copied tables -------------------------------------------------------------------------

def test_a_moved_table_gets_one_finding_and_relocate_checks_it(table: str, tmp_path: Path) -> None:
    before = check_table(current_metadata(table))  # type: ignore[arg-type]
    moved = tmp_path / "moved" / "events"
    shutil.move(table, moved)
    (cur,) = find_current(str(moved))
    result = check_table(cur)
    placed = [f for f in result.findings if f.rule.startswith("files.table-")]
    assert [f.rule for f in placed] == ["files.table-moved"]
    assert f"file://{table}" in placed[0].message and f"--relocate file://{table}={moved}" in placed[0].message
    assert not [f for f in result.findings if f.rule.startswith("files.") and f not in placed], result.findings
    assert result.verdict() == "incomplete"
    after = check_table(cur, relocate=[(f"file://{table}", str(moved))])
    assert _shape(after.findings, str(moved)) == _shape(before.findings, table)
    assert after.units == before.units


def test_a_copied_table_says_it_reads_the_original(table: str, tmp_path: Path) -> None:
    copy = tmp_path / "copy" / "events"
    shutil.copytree(table, copy)
    (cur,) = find_current(str(copy))
    result = check_table(cur)
    assert [f.rule for f in result.findings if f.rule.startswith("files.table-")] == ["files.table-copied"]
    # relocated, the copy's own files are read: a damaged copy file is found, not the original's
    victim = sorted((copy / "metadata").glob("snap-*.avro"))[-1]
    victim.write_bytes(b"not avro")
    relocated = check_table(cur, relocate=[(table, str(copy))])   # a plain path matches file:// paths too
    assert not [f for f in relocated.findings if f.rule.startswith("files.table-")]
    assert any(str(victim) in f.file or str(victim) in f.message for f in relocated.findings), relocated.findings
    assert not any(str(victim) in f.file for f in check_table(cur).findings)


def test_a_table_rewritten_to_a_new_location_keeps_its_lengths(table: str, tmp_path: Path) -> None:
    """``relocate_table`` rewrites manifests (their paths change length) and re-stamps each
    ``manifest_length`` in the lists, also when the lists record the manifests as URIs
    (``file:///t/...``, as PyIceberg writes them): the rewritten table is as clean as the
    original, under its new location."""
    from iceberg_conformance.checker.relocate import relocate_table

    before = check_table(current_metadata(table))  # type: ignore[arg-type]
    dst = tmp_path / "rewritten" / "events"
    relocate_table(table, str(dst), f"file://{table}", f"file://{dst}")
    (cur,) = find_current(str(dst))
    after = check_table(cur)
    assert _shape(after.findings, f"file://{dst}", str(dst)) == _shape(before.findings, f"file://{table}", table)
    assert not [f for f in after.findings if f.severity == "error"], after.findings
    # a copy of the table (read elsewhere than it records) whose warehouse is moved: a prefix
    # above the table, as the engines' workspaces move it
    warehouse = os.path.dirname(os.path.dirname(table))
    elsewhere = tmp_path / "copy" / "events"
    shutil.copytree(table, elsewhere)
    moved = tmp_path / "wh2"
    relocate_table(str(elsewhere), str(moved / "db" / "events"), f"file://{warehouse}", f"file://{moved}")
    (cur,) = find_current(str(moved / "db" / "events"))
    after = check_table(cur)
    assert not [f for f in after.findings if f.severity == "error"], after.findings


def test_relocate_arguments(table: str) -> None:
    from iceberg_conformance.checker.find import Locator, parse_relocate

    assert parse_relocate(["s3://b/t=/x"]) == [("s3://b/t", "/x")]
    with pytest.raises(ValueError, match="OLD=NEW"):
        parse_relocate(["/only"])
    loc = Locator([("/old/t", "/new/t")])
    assert loc("file:///old/t/data/a.parquet") == "/new/t/data/a.parquet"
    assert loc("/old/t") == "/new/t"
    assert loc("/old/tables/a") == "/old/tables/a"   # whole segments only
    # moves chain, each at most once: the user's move of a copy to a store, then the store's own
    # move to where it is read (and two moves that undo each other do not loop)
    chained = Locator([("s3://b/t", "/spool/t"), ("/copy/t", "s3://b/t")])
    assert chained("file:///copy/t/data/a.parquet") == "/spool/t/data/a.parquet"
    assert chained("s3://b/t/metadata/v1.metadata.json") == "/spool/t/metadata/v1.metadata.json"
    assert Locator([("/a", "/b"), ("/b", "/a")]).moved("/a/x") == "/a/x"


# --- object stores -----------------------------------------------------------------------------------

def test_unknown_scheme_is_named(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance.cli", "check", "hdfs://nn/warehouse/t"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2
    assert "the scheme hdfs:// is not one the checker reads" in run.stderr and "no Iceberg table" not in run.stderr


def test_s3_table_gives_the_local_copys_findings(s3_endpoint: str, s3_bucket: Callable[[str], None],
                                                tmp_path: Path) -> None:
    s3_bucket("warehouse")
    t = _write("s3://warehouse", tmp_path / "cat", **{"s3.endpoint": s3_endpoint, "s3.access-key-id": "testing",
                                              "s3.secret-access-key": "testing", "s3.region": "us-east-1"})
    uri = "s3://warehouse/db/events"
    assert str(t.metadata_location).startswith(uri + "/metadata/")
    # the same table, downloaded as it is (paths still say s3://), checked locally with --relocate
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(endpoint_override=s3_endpoint.split("://")[1], scheme="http", access_key="testing",
                           secret_key="testing", region="us-east-1")
    local = tmp_path / "local" / "events"
    local.mkdir(parents=True)
    pafs.copy_files("warehouse/db/events", str(local), source_filesystem=fs, destination_filesystem=pafs.LocalFileSystem())
    (cur,) = find_current(str(local))
    here = check_table(cur, relocate=[(uri, str(local))])
    for metadata_only in (False, True):
        (src,) = resolve(uri, s3_endpoint=s3_endpoint, metadata_only=metadata_only)
        try:
            there = check_source(src, metadata_only=metadata_only)
        finally:
            src.close()
        assert src.spooled is None
        expected = here if not metadata_only else check_table(cur, relocate=[(uri, str(local))], metadata_only=True)
        assert _shape(there.findings, uri) == _shape(expected.findings, str(local))
        assert there.units == expected.units and there.units > 3
        assert there.table.startswith(uri + "/metadata/") and all(str(tmp_path) not in f.file for f in there.findings)
    # a metadata file's URI, and the command line with the endpoint in the environment
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance.cli", "check", str(t.metadata_location)],
                         capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, AWS_ENDPOINT_URL=s3_endpoint))
    assert run.returncode == 0, run.stderr + run.stdout
    assert f"table {t.metadata_location}:" in run.stdout
    run = subprocess.run([sys.executable, "-m", "iceberg_conformance.cli", "check", "s3://warehouse/db/nothing",
                          "--s3-endpoint", s3_endpoint], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 2 and "no Iceberg table at s3://warehouse/db/nothing" in run.stderr


def test_a_copy_uploaded_to_a_store_is_checked_with_relocate(s3_endpoint: str, s3_bucket: Callable[[str], None],
                                                             table: str, tmp_path: Path) -> None:
    """A local table uploaded as it is to a bucket (its metadata still records the local paths):
    without --relocate the check reads the original's files and says so (a copy: exit 3); with
    --relocate LOCAL=URI the copy's own files are read from the store, as the finding says to."""
    import pyarrow.fs as pafs

    s3_bucket("uploads")
    fs = pafs.S3FileSystem(endpoint_override=s3_endpoint.split("://")[1], scheme="http", access_key="testing",
                           secret_key="testing", region="us-east-1")
    pafs.copy_files(table, "uploads/events", source_filesystem=pafs.LocalFileSystem(), destination_filesystem=fs)
    uri = "s3://uploads/events"
    args = [sys.executable, "-m", "iceberg_conformance.cli", "check", uri, "--s3-endpoint", s3_endpoint]
    before = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert before.returncode == 3 and "files.table-copied" in before.stdout, before.stdout + before.stderr
    after = subprocess.run(args + ["--relocate", f"{table}={uri}"], capture_output=True, text=True, cwd=tmp_path)
    assert after.returncode == 0 and "files.table-" not in after.stdout, after.stdout + after.stderr


# --- the same through pytest --table ------------------------------------------------------------------

SUITE = Path(__file__).resolve().parent.parent / "suites" / "test_table_check.py"


def _pytest(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", f"{SUITE}::test_table_conforms", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "--rootdir", str(tmp_path), *args],
                          capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, **(env or {})))


def test_pytest_table_relocate_and_catalog(table: str, tmp_path: Path) -> None:
    moved = tmp_path / "moved" / "events"
    shutil.move(table, moved)
    run = _pytest(tmp_path, "--table", str(moved))
    assert run.returncode == 1 and "files.table-moved" in run.stdout, run.stdout[-2000:]
    run = _pytest(tmp_path, "--table", str(moved), "--table-relocate", f"{table}={moved}")
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-2000:]
    shutil.move(moved, table)
    env = {"PYICEBERG_CATALOG__T__URI": f"sqlite:///{tmp_path}/wh/catalog.db", "PYICEBERG_CATALOG__T__TYPE": "sql"}
    run = _pytest(tmp_path, "--table-catalog", "t", env=env)
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-2000:]
    run = _pytest(tmp_path, "--table-catalog", "t", "--collect-only", env=env)
    assert "t:db.events @ 00003-" in run.stdout, run.stdout[-2000:]


def test_pytest_table_s3(s3_endpoint: str, s3_bucket: Callable[[str], None], tmp_path: Path) -> None:
    s3_bucket("plugin")
    _write("s3://plugin", tmp_path / "cat", **{"s3.endpoint": s3_endpoint, "s3.access-key-id": "testing",
                                              "s3.secret-access-key": "testing", "s3.region": "us-east-1"})
    given = ("--table", "s3://plugin/db/events", "--table-s3-endpoint", s3_endpoint)
    run = _pytest(tmp_path, *given)
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-2000:]
    assert "s3://plugin/db/events @ 00003-" in _pytest(tmp_path, *given, "--collect-only").stdout


def test_progress_on_a_terminal_shows_units_bytes_and_time_left(tmp_path: Path) -> None:
    """On a terminal (a pseudo-terminal here) a full check of more than 20 units shows units done,
    megabytes read and the time left; piped, it prints no progress."""
    import pty

    _write(f"file://{tmp_path}/wh", tmp_path / "wh", commits=8)
    table = str(tmp_path / "wh" / "db" / "events")
    out = bytearray()

    def read(fd: int) -> bytes:
        data = os.read(fd, 65536)
        out.extend(data)
        return data
    code = pty.spawn([sys.executable, "-c", "import sys; from iceberg_conformance.cli import main; "
                      f"sys.stdout = open({str(tmp_path / 'out.txt')!r}, 'w'); main(['check', {table!r}])"], read)
    text = out.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(code) in (0, 1), text
    assert " MB" in text and "/25" in text and ("-:--:--" in text or "0:00:0" in text), text[-3000:]
    piped = subprocess.run([sys.executable, "-m", "iceberg_conformance.cli", "check", table], capture_output=True,
                           text=True, cwd=tmp_path)
    assert " MB" not in piped.stderr, piped.stderr


def test_a_copied_table_is_an_incomplete_verdict_that_says_what_to_do(table: str, tmp_path: Path) -> None:
    """A copy is checked against the original's files: its own manifest lists, manifests and data
    files were not read, so the verdict is incomplete (never a clean pass), and it says to relocate."""
    from iceberg_conformance.checker.report import render_text

    copy = tmp_path / "copy" / "events"
    shutil.copytree(table, copy)
    (cur,) = find_current(str(copy))
    result = check_table(cur)
    assert result.verdict() == "incomplete"
    text = render_text([result])
    assert "(files.table-copied below)" in text, text
    assert "what to do: give --relocate OLD=NEW" in text, text


def test_an_executor_on_another_machine_reads_the_table_from_the_store(s3_endpoint: str,
                                                                      s3_bucket: Callable[[str], None],
                                                                      tmp_path: Path) -> None:
    """check --spark of a table in a store: an executor on another machine than the driver has
    not the driver's copy; it reads the table from the store into the same directory before its
    batch runs, and the check gives the findings of the driver's copy."""
    from iceberg_conformance.checker.stores import reading_from

    s3_bucket("remote")
    _write("s3://remote", tmp_path / "cat", **{"s3.endpoint": s3_endpoint, "s3.access-key-id": "testing",
                                            "s3.secret-access-key": "testing", "s3.region": "us-east-1"})
    for metadata_only in (False, True):
        (src,) = resolve("s3://remote/db/events", s3_endpoint=s3_endpoint, metadata_only=metadata_only)
        try:
            expected = check_source(src, metadata_only=metadata_only)
            spooled = src.spooled
            assert spooled is not None
            batches = 0

            def elsewhere(fn: Callable[[Any], Any], units: list[Any]) -> list[Any]:
                nonlocal batches
                out = []
                for batch in units:
                    shutil.rmtree(spooled.directory)  # this batch runs where the driver's copy is not
                    out.append(reading_from(spooled, fn)(batch))
                    batches += 1
                return out
            got = check_source(src, metadata_only=metadata_only, mapper=elsewhere, workers=2)
            assert batches > 1 and os.path.isdir(os.path.join(spooled.directory, "metadata"))
            assert os.path.isdir(os.path.join(spooled.directory, "data")) != metadata_only
        finally:
            src.close()
        assert got.units == expected.units and got.units > 3
        assert got.findings == expected.findings
        assert not [f for f in got.findings if f.severity == "error"], got.findings


def test_a_copy_that_fails_midway_leaves_nothing_behind(table: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The spool directory of a table whose copy fails is removed, and the failure is the kit's
    sentence naming the URI, not the store library's traceback."""
    import tempfile

    from iceberg_conformance.checker import stores

    spools = tmp_path / "spools"
    spools.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    calls: list[str] = []

    def copy_then_fail(fs: object, files: object, source: str, target: str) -> None:
        calls.append(source)
        raise OSError("the connection was reset")

    monkeypatch.setattr(stores, "_copy", copy_then_fail)
    with pytest.raises(stores.StoreError, match="reading the table from the store failed"):
        stores.spool(f"file://{table}")
    assert calls and list(spools.iterdir()) == []


def test_a_store_that_does_not_answer_is_said_so_within_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """No network here: Google Cloud Storage cannot get a credential. The client would retry for
    15 minutes; the checker says the store does not answer after its timeout."""
    import time

    from iceberg_conformance.checker import stores

    monkeypatch.setattr(stores, "TIMEOUT_S", 2.0)
    start = time.monotonic()
    with pytest.raises(stores.StoreError, match="does not answer"):
        stores.spool("gs://no-such-bucket/db/table")
    assert time.monotonic() - start < 60


# --- the check begins before the data files have arrived ---------------------------------------------

def _slow_data(monkeypatch: pytest.MonkeyPatch, delay: float, fail: str | None = None, workers: int = 1,
               manifests: bool = False, only: str = "", done_at: dict[str, float] | None = None,
               data_later: float = 0.0) -> list[str]:
    """Make the copy of every file not under metadata/ (with ``manifests``: every file but the
    metadata files, JSON) take ``delay`` seconds, ``data_later`` more for a file not under
    metadata/ (and raise for a name ending with ``fail``), counted from when the check's
    ``workers`` pool processes have started (with more than one); the names fetched, in order."""
    import multiprocessing
    import time

    from iceberg_conformance.checker import stores

    fetched: list[str] = []
    real = stores._fetch

    def slow(store: Any, job: tuple[str, str, int, float], partial: str | None = None) -> None:
        if "/metadata/" not in job[0] or (manifests and ".metadata.json" not in job[0]):
            while workers > 1 and len(multiprocessing.active_children()) < workers:
                time.sleep(0.01)
            time.sleep(delay if "/metadata/" in job[0] else delay + data_later)
            if fail is not None and job[0].endswith(fail) and only in job[0]:
                raise OSError("the connection was reset")
        fetched.append(job[0])
        real(store, job, partial)
        if done_at is not None:
            done_at[job[0]] = time.monotonic()
    monkeypatch.setattr(stores, "_fetch", slow)
    return fetched


def _upload(table: str, s3_endpoint: str, bucket: str, skip: str | None = None) -> str:
    """The table directory uploaded as it is (without a file named ``skip``); its URI."""
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(endpoint_override=s3_endpoint.split("://")[1], scheme="http", access_key="testing",
                           secret_key="testing", region="us-east-1", allow_bucket_creation=True)
    fs.create_dir(bucket)
    for f in sorted(Path(table).rglob("*")):
        if f.is_file() and f.name != skip:
            with fs.open_output_stream(f"{bucket}/events/{f.relative_to(table)}") as out:
                out.write(f.read_bytes())
    return f"s3://{bucket}/events"


@pytest.mark.parametrize("workers,manifests", [(1, False), (2, False), (1, True)])
def test_files_still_arriving_are_waited_for(s3_endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch,
                                             workers: int, manifests: bool) -> None:
    """A table read from a store is checked once its metadata files (JSON) are there; its
    manifest lists, manifests and data files arrive while the check runs (here each data file,
    or each file but the JSON ones, takes 0.3 s, or 3 s once the pool has started, and a data
    file 1 s more). Planning and
    units that read a file not there yet wait for it, in this process and in the pool's: the
    findings are those of the table on disk."""
    import time

    from iceberg_conformance.checker import stores

    expected = check_table(find_current(table)[0])
    uri = _upload(table, s3_endpoint, f"arriving{workers}{'m' if manifests else ''}")
    done_at: dict[str, float] = {}
    fetched = _slow_data(monkeypatch, 0.3 if workers == 1 else 3.0, workers=workers, manifests=manifests,
                         done_at=done_at, data_later=1.0)
    (src,) = resolve(uri, s3_endpoint=s3_endpoint)
    planned_at: list[float] = []
    try:
        spooled = src.spooled
        assert spooled is not None
        assert not list(Path(spooled.directory, "data").rglob("*.parquet")), "data files read before the check"
        assert not list(Path(spooled.directory, "metadata").glob("*.avro")), "manifests read before the check"
        got = check_source(src, relocate=[(table, uri)], workers=workers,
                           planned=lambda _units: planned_at.append(time.monotonic()))
        assert not os.path.exists(spooled.directory + ".arriving")
    finally:
        src.close()
    assert len([p for p in fetched if "/data/" in p]) == 3
    # the check was planned before the last data file had arrived: it ran while they came
    assert planned_at and planned_at[0] < max(t for p, t in done_at.items() if "/data/" in p)
    assert _shape(got.findings, uri) == _shape(expected.findings, table)
    assert got.units == expected.units
    assert not [f for f in got.findings if f.severity == "error"], got.findings
    assert stores._FILLERS == {}


def test_a_data_file_the_store_lacks_is_missing_once_the_copy_ends(s3_endpoint: str, table: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A data file the manifests list but the store does not hold is reported missing, as on
    disk: its unit waits while the other data files arrive, then finds it missing."""
    victim = sorted(Path(table, "data").rglob("*.parquet"))[0].name
    uri = _upload(table, s3_endpoint, "lacking", skip=victim)
    _slow_data(monkeypatch, 0.3)
    (src,) = resolve(uri, s3_endpoint=s3_endpoint)
    try:
        got = check_source(src, relocate=[(table, uri)])
    finally:
        src.close()
    missing = [f for f in got.findings if f.rule == "files.missing"]
    assert len(missing) == 1 and victim in missing[0].message, got.findings


def test_a_copy_that_fails_while_the_check_runs_is_said_so(s3_endpoint: str, table: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A data file that cannot be read from the store midway: the check does not report the
    files that never arrived as missing; it says the store failed, naming the table's URI.
    Nothing is left behind."""
    import tempfile

    name = sorted(Path(table, "data").rglob("*.parquet"))[1].name
    uri = _upload(table, s3_endpoint, "failing")
    spools = tmp_path / "spools"
    spools.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    _slow_data(monkeypatch, 0.05, fail=name)
    (src,) = resolve(uri, s3_endpoint=s3_endpoint)
    try:
        with pytest.raises(SourceError, match=f"{uri}: reading the table's files from the store failed "
                                              r"\(the connection was reset\)"):
            check_source(src, relocate=[(table, uri)])
    finally:
        src.close()
    assert list(spools.iterdir()) == []


def test_s3_objects_are_read_in_one_request_each_and_pyarrow_takes_over_a_failure(
        s3_endpoint: str, table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow asks an object's size (HEAD) before reading it; the listing gives the size, so
    botocore's one GET per object reads the table. A GET botocore cannot make leaves the files
    to pyarrow, and the check is the same."""
    from iceberg_conformance.checker import stores

    pytest.importorskip("botocore", reason="botocore reads s3:// objects (extra stores)")
    uri = _upload(table, s3_endpoint, "onerequest")
    expected = check_table(find_current(table)[0])
    gets: list[str] = []
    real = stores._Store._get

    def counted(self: Any, job: Any, out: Any) -> None:
        gets.append(job[0])
        real(self, job, out)
    monkeypatch.setattr(stores._Store, "_get", counted)
    files = [p for p in Path(table).rglob("*") if p.is_file()]
    for failing in (False, True):
        gets.clear()
        if failing:
            def refused(self: Any, job: Any, out: Any) -> None:
                gets.append(job[0])
                out.write(b"half")
                raise RuntimeError("no credentials botocore finds")
            monkeypatch.setattr(stores._Store, "_get", refused)
        (src,) = resolve(uri, s3_endpoint=s3_endpoint)
        try:
            got = check_source(src, relocate=[(table, uri)])
        finally:
            src.close()
        assert _shape(got.findings, uri) == _shape(expected.findings, table)
        # every file once (the current metadata file's log names every other one); after a
        # failure none by botocore
        if failing:
            assert len(gets) == 1, gets
        else:
            assert sorted(gets) == sorted(f"onerequest/events/{p.relative_to(table)}" for p in files), gets


def test_a_copy_follows_the_order_the_check_asks_for() -> None:
    """The files not begun come in the order the units will read them, the others after."""
    from iceberg_conformance.checker import stores

    jobs = [(f"b/{n}", f"/spool/{n}", 1, 0.0) for n in "abcdef"]
    filler = stores._Filler(stores._Store(None), list(jobs), "/spool")
    assert filler._take() == jobs[0]
    filler.prioritize(["/spool/e", "/spool/a", "/spool/c"])
    assert [filler._take() for _ in range(5)] == [jobs[4], jobs[2], jobs[1], jobs[3], jobs[5]]
    assert filler._take() is None


def test_one_store_failing_leaves_the_others_checked(s3_endpoint: str, table: str,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Two tables on the command line, the second's store failing midway: the first one's
    report is printed, the second is said not checked, and the command exits 2."""
    from iceberg_conformance.cli import main

    good = _upload(table, s3_endpoint, "goodone")
    bad = _upload(table, s3_endpoint, "badone")
    name = sorted(Path(table, "data").rglob("*.parquet"))[1].name
    _slow_data(monkeypatch, 0.0, fail=name, only="badone/events/data/")
    code = main(["check", good, bad, "--s3-endpoint", s3_endpoint, "--relocate", f"{table}={good}",
                 "--relocate", f"{table}={bad}"])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert f"table {good}/metadata/" in out and f"table {bad}/metadata/" not in out, out
    assert f"iceberg-conformance check: {bad}: reading the table's files from the store failed" in err, err
