"""Write the same rows as a PyIceberg table in many commits: the table of issue 25's benchmark.

    python benchmarks/make_history_table.py DIR [--rows N] [--commits C] [--days D]

Creates a SQL catalog (SQLite, ``DIR/catalog.db``) with warehouse ``DIR`` and a v2 table
``db.events`` partitioned by ``day(ts)``; ``C`` appends of ``N / C`` rows each, append ``i``
holding rows of day ``i % D`` only (one data file per commit), the same rows whatever ``C`` is.
Prints the metadata file's path. With ``--s3-endpoint URL`` (and ``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY`` in the environment) the warehouse is ``s3://BUCKET/`` at that
endpoint (``--bucket``), written through PyIceberg's own FileIO.
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("directory")
    ap.add_argument("--rows", type=int, default=6_000_000)
    ap.add_argument("--commits", type=int, default=60)
    ap.add_argument("--days", type=int, default=10)
    ap.add_argument("--s3-endpoint")
    ap.add_argument("--bucket", default="warehouse")
    a = ap.parse_args(argv)
    print(write(a.directory, a.rows, a.commits, a.days, a.s3_endpoint, a.bucket))
    return 0


if __name__ == "__main__":
    sys.exit(main())
