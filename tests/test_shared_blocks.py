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
