"""The manifest lists of a table are decoded by their new records only (reference/avro.py
SharedBlocks): a list repeating the blocks of a list read before decodes the records before that
tail and reuses the rest. What it gives must be what decoding every list whole gives: the same
entries and the same findings, list by list, on a table whose lists do repeat each other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iceberg_conformance.reference.avro import SharedBlocks, read_container_shared
from iceberg_conformance.reference.manifests import read_manifest_list


@pytest.fixture(scope="module")
def lists(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The manifest lists, oldest first, of a PyIceberg table of eight appends."""
    pytest.importorskip("pyiceberg", reason="PyIceberg writes the table (extra pyiceberg)")
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    root = tmp_path_factory.mktemp("lists")
    catalog = SqlCatalog("c", uri=f"sqlite:///{root / 'c.db'}", warehouse=f"file://{root}")
    catalog.create_namespace("db")
    data = pa.table({"id": pa.array([1, 2], pa.int64()), "s": pa.array(["a", None], pa.string())})
    t = catalog.create_table("db.t", data.schema, properties={"format-version": "2"})
    for _ in range(8):
        t.append(data)
    doc = json.loads(Path(str(t.metadata_location).removeprefix("file://")).read_text())
    snaps = sorted(doc["snapshots"], key=lambda s: s["sequence-number"])
    return [s["manifest-list"].removeprefix("file://") for s in snaps]


def test_lists_read_by_their_new_records_equal_lists_read_whole(lists: list[str]) -> None:
    blocks, memo = SharedBlocks(), {}  # with a memo, as the checker reads them: the reuse of a tail needs both
    for path in lists:
        shared_entries, shared_findings = read_manifest_list(path, 2, memo, blocks)
        whole_entries, whole_findings = read_manifest_list(path, 2, None, None)
        assert shared_entries == whole_entries, path
        assert [f.rule for f in shared_findings] == [f.rule for f in whole_findings], path


def test_the_table_s_lists_do_repeat_each_other(lists: list[str]) -> None:
    """Without this the test above would compare two whole decodings."""
    blocks = SharedBlocks()
    hits = [read_container_shared(path, blocks)[3] for path in lists]
    assert not hits[0] and sum(hits) >= len(lists) - 2, hits


def test_a_repeated_record_with_a_finding_is_reported_in_every_list_repeating_it(tmp_path: Path) -> None:
    """Lists [m0], [m1, m0], [m2, m1, m0], [m3, m2, m1, m0] written by the reference writer (one
    block each, so each ends with the bytes of the one before), m1 with a negative
    added_files_count: each list from m1 on reports it at m1's place, as reading it whole does,
    though its entries are those of the list it repeats."""
    from iceberg_conformance.reference.manifests import write_manifest_list

    sidecar = json.loads((Path(__file__).parents[1] / "vectors/manifests/files/v2-list.sidecar.json").read_text())
    records = []
    for i in range(4):
        record = dict(sidecar["manifests"][0], manifest_path=f"s3://b/m{i}.avro", added_snapshot_id=100 + i)
        records.append(record)
    records[1]["added_files_count"] = -1
    paths = []
    for k in range(1, 5):
        paths.append(str(tmp_path / f"list{k}.avro"))
        write_manifest_list(paths[-1], {"format_version": 2, "metadata": sidecar["metadata"],
                                        "manifests": records[:k][::-1]})
    blocks = SharedBlocks()
    assert [read_container_shared(p, blocks)[3] for p in paths] == [False, True, True, True]
    memo, blocks = {}, SharedBlocks()
    for k, path in enumerate(paths, 1):
        entries, findings = read_manifest_list(path, 2, memo, blocks)
        assert entries == read_manifest_list(path, 2)[0]
        expected = [] if k == 1 else [("manifests.negative", f"manifests[{k - 2}]")]
        assert [(f.rule, f.location) for f in findings] == expected, path


def _records(n: int) -> tuple[list[dict], dict]:
    sidecar = json.loads((Path(__file__).parents[1] / "vectors/manifests/files/v2-list.sidecar.json").read_text())
    return [dict(sidecar["manifests"][0], manifest_path=f"s3://b/m{i}.avro", added_snapshot_id=100 + i)
            for i in range(n)], sidecar["metadata"]


def test_lists_written_in_several_blocks_repeat_each_other(tmp_path: Path) -> None:
    """Iceberg Java cuts a list into blocks of 64,000 bytes (a 700-manifest list Spark 3.5 wrote
    with Iceberg 1.10: blocks of 613 and 87 records), so the blocks of a list and of the list it
    repeats do not line up: the lists are read as runs of records, each decoding its new ones."""
    from iceberg_conformance.reference.manifests import write_manifest_list

    records, metadata = _records(12)
    paths = []
    for k in range(1, len(records) + 1):
        paths.append(str(tmp_path / f"list{k}.avro"))
        write_manifest_list(paths[-1], {"format_version": 2, "metadata": metadata, "manifests": records[:k][::-1]},
                            block_bytes=150)  # a block every two or three records
    assert len(_blocks(paths[-1])) > 3
    blocks = SharedBlocks()
    hits = [read_container_shared(p, blocks)[3] for p in paths]
    assert hits == [False] + [True] * (len(paths) - 1), hits
    memo, blocks = {}, SharedBlocks()
    for path in paths:
        assert read_manifest_list(path, 2, memo, blocks) == read_manifest_list(path, 2), path


def _blocks(path: str) -> list[tuple[int, bytes]]:
    from iceberg_conformance.reference.avro import _open_rebuilt

    f, *_rest, blocks, _texts = _open_rebuilt(path)
    with f:
        return list(blocks.bodies())


def _container(like: str, parts: list[tuple[int, bytes]]) -> bytes:
    """The container ``like`` (codec null) with the blocks ``parts``."""
    from iceberg_conformance.reference.avro import _read_header, _zigzag

    data = Path(like).read_bytes()
    _meta, at = _read_header(data)
    sync = data[at:at + 16]
    return data[:at + 16] + b"".join(_zigzag(c) + _zigzag(len(b)) + b + sync for c, b in parts)


@pytest.mark.parametrize("shape", ["junk after the first block's record", "a record across two blocks"])
def test_blocks_that_are_no_run_of_records_are_read_block_by_block(tmp_path: Path, shape: str) -> None:
    """A list whose bytes end with those of a list read before, but whose first block does not
    end where its record does: it is read as a block reader reads it, block by block."""
    from iceberg_conformance.reference.manifests import write_manifest_list

    records, metadata = _records(3)
    one = str(tmp_path / "one.avro")  # [m1, m0] in one block
    write_manifest_list(one, {"format_version": 2, "metadata": metadata, "manifests": records[:2][::-1]})
    three = str(tmp_path / "three.avro")  # [m2, m1, m0] in one block
    write_manifest_list(three, {"format_version": 2, "metadata": metadata, "manifests": records[::-1]})
    (_, tail), (_, whole) = _blocks(one)[0], _blocks(three)[0]
    m2 = whole[:len(whole) - len(tail)]
    if shape == "junk after the first block's record":
        parts = [(1, m2 + b"\x00"), (2, tail)]
    else:
        parts = [(1, m2 + tail[:1]), (2, tail[1:])]
    damaged = tmp_path / "damaged.avro"
    damaged.write_bytes(_container(three, parts))
    _assert_read_as_a_block_reader_reads(one, str(damaged))


def test_a_list_read_before_with_junk_inside_is_not_repeated(tmp_path: Path) -> None:
    """A list whose first block holds a byte after its record is no run of records: a later list
    ending with its bytes, junk included, is read as a block reader reads it."""
    from iceberg_conformance.reference.manifests import write_manifest_list

    records, metadata = _records(3)
    one, two, three = (str(tmp_path / f"{n}.avro") for n in ("one", "two", "three"))
    write_manifest_list(one, {"format_version": 2, "metadata": metadata, "manifests": records[:1]})
    write_manifest_list(two, {"format_version": 2, "metadata": metadata, "manifests": records[:2][::-1]})
    write_manifest_list(three, {"format_version": 2, "metadata": metadata, "manifests": records[::-1]})
    m0 = _blocks(one)[0][1]
    m1 = _blocks(two)[0][1][:-len(m0)]
    m2 = _blocks(three)[0][1][:-len(m0) - len(m1)]
    kept = tmp_path / "kept.avro"  # [m1] + junk, then [m0]
    kept.write_bytes(_container(three, [(1, m1 + b"\x00"), (1, m0)]))
    later = tmp_path / "later.avro"  # one block: m2, then the bytes of the list above
    later.write_bytes(_container(three, [(3, m2 + m1 + b"\x00" + m0)]))
    _assert_read_as_a_block_reader_reads(str(kept), str(later))


def _assert_read_as_a_block_reader_reads(before: str, path: str) -> None:
    """``path``, read after ``before`` through shared blocks, gives what a block reader gives
    (its records, or no records), and no repeated tail."""
    from iceberg_conformance.reference.avro import read_container

    blocks = SharedBlocks()
    read_container_shared(before, blocks)
    try:
        expected: object = read_container(path)[2]
    except Exception:  # noqa: BLE001 - the block reader's outcome, whatever it is
        expected = "does not decode"
    try:
        _schema, _meta, got, hit, _text = read_container_shared(path, blocks)
    except Exception:  # noqa: BLE001
        got, hit = "does not decode", False
    assert (got, hit) == (expected, False)


_ARRAY_OF_NULLS = {"type": "record", "name": "r", "fields": [
    {"name": "x", "type": ["null", {"type": "array", "items": "null"}], "default": None},
    {"name": "n", "type": "long"}]}


def _generic(path: Path, parts: list[tuple[int, bytes]]) -> str:
    """A container of ``_ARRAY_OF_NULLS`` records with the blocks ``parts`` (codec null)."""
    from iceberg_conformance.reference.avro import _header_bytes, _zigzag

    sync = bytes(range(16))
    head = _header_bytes({"avro.schema": json.dumps(_ARRAY_OF_NULLS).encode(), "avro.codec": b"null"}) + sync
    path.write_bytes(head + b"".join(_zigzag(c) + _zigzag(len(b)) + b + sync for c, b in parts))
    return str(path)


def _encoded(n: int) -> bytes:
    import io

    import fastavro

    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(_ARRAY_OF_NULLS), {"x": None, "n": n})
    return out.getvalue()


def test_the_records_in_front_are_never_read_across_a_block_s_end(tmp_path: Path) -> None:
    """The bytes after a block's records are never decoded (a block reader skips them): here
    they declare an array of 2**62 nulls, which fastavro would go on appending for minutes and
    gigabytes. Run in a child with 10 s and 1 GiB, so that a regression fails instead of
    taking the machine."""
    import subprocess
    import sys
    import textwrap

    kept = _generic(tmp_path / "kept.avro", [(1, _encoded(0))])
    junk = b"\x02" + b"\xfe\xff\xff\xff\xff\xff\xff\xff\x7f"  # the array branch, then ~2**62 items
    later = _generic(tmp_path / "later.avro", [(1, _encoded(2) + junk), (2, _encoded(1) + _encoded(0))])
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from iceberg_conformance.reference.avro import SharedBlocks, read_container, read_container_shared
        blocks = SharedBlocks()
        read_container_shared({kept!r}, blocks)
        _s, _m, got, hit, _t = read_container_shared({later!r}, blocks)
        assert (got, hit) == (read_container({later!r})[2], False), got
        print([r["n"] for r in got])
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=10)
    assert run.returncode == 0 and run.stdout.strip() == "[2, 1, 0]", run.stderr[-2000:]


def test_a_list_bigger_than_a_block_is_read_block_by_block_and_not_kept(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A list whose blocks hold more than a block's limit together is not held whole: each block
    is decoded as it is read, and nothing of it is kept (the memory stays a block's)."""
    from iceberg_conformance.reference import avro

    parts = [(2, _encoded(2 * i + 1) + _encoded(2 * i)) for i in range(4)]
    path = _generic(tmp_path / "big.avro", parts)
    size = sum(len(b) for _, b in parts)
    monkeypatch.setattr(avro, "MAX_BLOCK_BYTES", size - 1)  # each block is under it, all four over it
    blocks = SharedBlocks()
    _s, _m, got, hit, _t = read_container_shared(path, blocks)
    assert [r["n"] for r in got] == [1, 0, 3, 2, 5, 4, 7, 6] and not hit
    assert not blocks._tails
    monkeypatch.setattr(avro, "MAX_BLOCK_BYTES", size)
    read_container_shared(path, blocks)
    assert len(blocks._tails) == 1


def test_a_list_without_records_is_not_kept(tmp_path: Path) -> None:
    """Every list ends with the bytes of an empty one: it is no tail to match."""
    blocks = SharedBlocks()
    read_container_shared(_generic(tmp_path / "empty.avro", [(0, b"")]), blocks)
    assert not blocks._tails
