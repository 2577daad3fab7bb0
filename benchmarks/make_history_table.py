"""Write the same rows as a PyIceberg table in many commits: the table of issue 25's benchmark.

    python benchmarks/make_history_table.py DIR [--rows N] [--commits C] [--days D] [--fast] [--verify]

Creates a SQL catalog (SQLite, ``DIR/catalog.db``) with warehouse ``DIR`` and a v2 table
``db.events`` partitioned by ``day(ts)``; ``C`` appends of ``N / C`` rows each, append ``i``
holding rows of day ``i % D`` only (one data file per commit), the same rows whatever ``C`` is.
Prints the metadata file's path. With ``--s3-endpoint URL`` (and ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` in the environment) the warehouse is ``s3://BUCKET/`` at that
endpoint (``--bucket``), written through PyIceberg's own FileIO.

``--fast`` writes the same kind of table in minutes where PyIceberg's appends slow down with
the history (900 commits took 35 minutes): each commit is made of PyIceberg's own parts, its
data file writer, manifest writer, snapshot summary and the steps of ``update_table_metadata``,
but the history is neither read back nor deep-copied at each commit. The manifest list of commit ``i`` is PyIceberg's list
writer's file for the new manifest alone with its one Avro block extended by the previous
list's records (PyIceberg writes a list as one block, the new manifest first and then the
parent's, each record encoded as before: so the same bytes but for the random sync marker).
The variant: only the current metadata file and the 100 its ``metadata-log`` names are written
(as PyIceberg does with ``write.metadata.delete-after-commit.enabled``, which the table sets);
6,000 commits would otherwise leave 10 GB of metadata JSON.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from typing import Any


def rows_of(start: int, count: int, day: int) -> dict[str, list[Any]]:
    """``count`` rows numbered from ``start``, every timestamp inside day ``day`` of 2024."""
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(days=day)
    return {"id": list(range(start, start + count)),
            "ts": [base + datetime.timedelta(seconds=(i * 7) % 86_400) for i in range(start, start + count)],
            "name": [f"n{i % 997}" for i in range(start, start + count)],
            "x": [i * 0.5 for i in range(start, start + count)]}


def write(directory: str, rows: int, commits: int, days: int, s3_endpoint: str | None = None,
          bucket: str = "warehouse") -> str:
    """Write the table; returns its metadata file's location."""
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import DayTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType

    os.makedirs(directory, exist_ok=True)
    props: dict[str, str] = {"uri": f"sqlite:///{os.path.abspath(directory)}/catalog.db",
                             "warehouse": f"file://{os.path.abspath(directory)}"}
    if s3_endpoint:
        props.update({"warehouse": f"s3://{bucket}", "s3.endpoint": s3_endpoint,
                      "s3.access-key-id": os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
                      "s3.secret-access-key": os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
                      "s3.region": os.environ.get("AWS_DEFAULT_REGION", "us-east-1")})
    cat = SqlCatalog("bench", **props)
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "ts", TimestamptzType()),
                    NestedField(3, "name", StringType()), NestedField(4, "x", DoubleType()))
    spec = PartitionSpec(PartitionField(2, 1000, DayTransform(), "ts_day"))
    t = cat.create_table("db.events", schema, partition_spec=spec, properties={"format-version": "2"})
    arrow_schema = t.schema().as_arrow()
    per = rows // commits
    for i in range(commits):
        t.append(pa.Table.from_pydict(rows_of(i * per, per, i % days), schema=arrow_schema))
    return str(t.metadata_location)


def _one_block(data: bytes) -> tuple[bytes, int, bytes, bytes]:
    """(header with its sync marker, record count, block data, sync marker) of an Avro container
    file holding one block."""
    from iceberg_conformance.reference.avro import _read_header, _read_long

    _meta, at = _read_header(data)
    sync = data[at:at + 16]
    count, pos = _read_long(data, at + 16)
    size, pos = _read_long(data, pos)
    assert data[pos + size:] == sync, "one block expected"
    return data[:at + 16], count, data[pos:pos + size], sync


def _commit(meta: Any, updates: tuple[Any, ...], location: str) -> Any:
    """PyIceberg's ``update_table_metadata`` of one commit, its steps in its order, but for the deep
    copy of the whole metadata it ends with (which makes each commit cost the history)."""
    from pyiceberg.table.update import _apply_table_update, _TableMetadataUpdateContext, _update_table_metadata_log
    from pyiceberg.utils.datetime import datetime_to_millis

    context = _TableMetadataUpdateContext()
    new = meta
    for update in updates:
        new = _apply_table_update(update, new, context)
    new = _update_table_metadata_log(new, location, meta.last_updated_ms)
    if meta.last_updated_ms == new.last_updated_ms:
        new = new.model_copy(update={"last_updated_ms": datetime_to_millis(datetime.datetime.now().astimezone())})
    return new


def write_fast(directory: str, rows: int, commits: int, days: int) -> str:
    """The table of :func:`write` made of PyIceberg's parts without reading the history back
    (see the module's docstring); returns its metadata file's location."""
    import itertools
    import sqlite3
    import uuid

    import pyarrow as pa
    from pyiceberg.avro.codecs import DeflateCodec
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.io.pyarrow import _dataframe_to_data_files
    from pyiceberg.manifest import ManifestEntry, ManifestEntryStatus, write_manifest, write_manifest_list
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.serializers import ToOutputFile
    from pyiceberg.table.metadata import _generate_snapshot_id
    from pyiceberg.table.refs import MAIN_BRANCH, SnapshotRefType
    from pyiceberg.table.snapshots import (Operation, Snapshot, SnapshotSummaryCollector, Summary,
                                           update_snapshot_summaries)
    from pyiceberg.table.update import AddSnapshotUpdate, SetSnapshotRefUpdate
    from pyiceberg.table.update.snapshot import _new_manifest_file_name, _new_manifest_list_file_name
    from pyiceberg.transforms import DayTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType

    from iceberg_conformance.reference.avro import _zigzag

    os.makedirs(directory, exist_ok=True)
    catalog_db = f"{os.path.abspath(directory)}/catalog.db"
    cat = SqlCatalog("bench", uri=f"sqlite:///{catalog_db}", warehouse=f"file://{os.path.abspath(directory)}")
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=True), NestedField(2, "ts", TimestamptzType()),
                    NestedField(3, "name", StringType()), NestedField(4, "x", DoubleType()))
    spec = PartitionSpec(PartitionField(2, 1000, DayTransform(), "ts_day"))
    t = cat.create_table("db.events", schema, partition_spec=spec, properties={
        "format-version": "2", "write.metadata.delete-after-commit.enabled": "true",
        "write.metadata.previous-versions-max": "100"})
    io, meta, location = t.io, t.metadata, str(t.metadata_location)
    first_location = location
    places = t.location_provider()
    arrow_schema = t.schema().as_arrow()
    codec = meta.properties.get("write.avro.compression-codec", "deflate")
    assert codec == "deflate", codec
    body = b""  # the previous manifest list's records, uncompressed
    per = rows // commits
    for i in range(commits):
        sid, parent, commit = _generate_snapshot_id(), meta.current_snapshot_id, uuid.uuid4()
        df = pa.Table.from_pydict(rows_of(i * per, per, i % days), schema=arrow_schema)
        data_files = list(_dataframe_to_data_files(meta, df, io, write_uuid=commit, counter=itertools.count(0)))
        with write_manifest(2, meta.spec(), meta.schema(), io.new_output(
                places.new_metadata_location(_new_manifest_file_name(0, commit))), sid, codec) as mw:
            for f in data_files:
                mw.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=sid, sequence_number=None,
                                               file_sequence_number=None, data_file=f))
        manifest = mw.to_manifest_file()
        collector = SnapshotSummaryCollector(partition_summary_limit=int(
            meta.properties.get("write.summary.partition-limit", "0")))
        for f in data_files:
            collector.add_file(f, partition_spec=meta.spec(), schema=meta.schema())
        previous = meta.snapshot_by_id(parent) if parent is not None else None
        summary = update_snapshot_summaries(Summary(operation=Operation.APPEND, **collector.build()),
                                            previous.summary if previous is not None else None)
        seq = meta.next_sequence_number()
        list_path = places.new_metadata_location(_new_manifest_list_file_name(sid, 0, commit))
        with write_manifest_list(2, io.new_output(list_path), sid, parent, seq, codec) as lw:
            lw.add_manifests([manifest])
        with open(list_path.removeprefix("file://"), "rb") as fh:
            header, count, block, sync = _one_block(fh.read())
        body = DeflateCodec.decompress(block) + body
        packed = DeflateCodec.compress(body)[0]
        with open(list_path.removeprefix("file://"), "wb") as fh:
            fh.write(header + _zigzag(count + i) + _zigzag(len(packed)) + packed + sync)
        snapshot = Snapshot(snapshot_id=sid, parent_snapshot_id=parent, manifest_list=list_path, sequence_number=seq,
                            summary=summary, schema_id=meta.current_schema_id)
        meta = _commit(meta, (AddSnapshotUpdate(snapshot=snapshot), SetSnapshotRefUpdate(
            snapshot_id=sid, parent_snapshot_id=parent, ref_name=MAIN_BRANCH, type=SnapshotRefType.BRANCH)),
            location)
        location = places.new_table_metadata_file_location(i + 1)
        if i >= commits - 101:
            ToOutputFile.table_metadata(meta, io.new_output(location))
    if commits > 100:
        os.remove(first_location.removeprefix("file://"))  # out of the log: deleted after commit
    with sqlite3.connect(catalog_db) as db:
        db.execute("UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
                   "WHERE table_namespace = 'db' AND table_name = 'events'",
                   (location, meta.metadata_log[-1].metadata_file if meta.metadata_log else None))
    return location


def verify(directory: str, rows: int, commits: int, days: int) -> int:
    """PyIceberg's scan of the table in ``directory`` (through its catalog) against the rows
    written: the number of rows that differ (0: equal)."""
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    cat = SqlCatalog("bench", uri=f"sqlite:///{os.path.abspath(directory)}/catalog.db",
                     warehouse=f"file://{os.path.abspath(directory)}")
    t = cat.load_table("db.events")
    got = t.scan().to_arrow().sort_by("id")
    schema = t.schema().as_arrow()
    per = rows // commits
    want = pa.concat_tables([pa.Table.from_pydict(rows_of(i * per, per, i % days), schema=schema)
                             for i in range(commits)]).sort_by("id")
    if got.num_rows != want.num_rows:
        return abs(got.num_rows - want.num_rows) or 1
    return sum(not got.column(n).equals(want.column(n)) for n in want.column_names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("directory")
    ap.add_argument("--rows", type=int, default=6_000_000)
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--s3-endpoint")
    ap.add_argument("--bucket", default="warehouse")
    ap.add_argument("--fast", action="store_true", help="write without reading the history back (local only)")
    ap.add_argument("--verify", action="store_true", help="only compare PyIceberg's scan of DIR's table with the rows")
    a = ap.parse_args(argv)
    if a.verify:
        bad = verify(a.directory, a.rows, a.commits, a.days)
        print("scan equals the rows written" if not bad else f"scan differs from the rows written ({bad})")
        return 1 if bad else 0
    if a.fast:
        print(write_fast(a.directory, a.rows, a.commits, a.days))
        return 0
    print(write(a.directory, a.rows, a.commits, a.days, a.s3_endpoint, a.bucket))
    return 0


if __name__ == "__main__":
    sys.exit(main())
