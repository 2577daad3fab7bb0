"""Partition statistics of a table partitioned by ``day``, against manifests that write the day
as an Avro ``date`` (Iceberg Java does; the spec gives the transform an int, days from the
epoch). The checker reads the manifest's date as the same day count, so the counts of
``files.partition-statistics-position-deletes`` are compared per partition (before, the date
string did not decode as an int and nothing was compared).
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from iceberg_conformance.checker.units.statistics import check_partition_position_deletes, manifest_partition_key
from iceberg_conformance.reference.types import IntegerType

DOC: dict[str, Any] = {
    "format-version": 2, "current-schema-id": 0, "default-spec-id": 0,
    "schemas": [{"schema-id": 0, "type": "struct",
                 "fields": [{"id": 1, "name": "ts", "required": False, "type": "timestamp"}]}],
    "partition-specs": [{"spec-id": 0, "fields": [{"name": "ts_day", "transform": "day", "source-id": 1,
                                                   "field-id": 1000}]}],
}
DAY = datetime.date(2024, 3, 1)  # 19783 days from 1970-01-01


def _field(name: str, t: Any, fid: int, nullable: bool = False) -> pa.Field:
    return pa.field(name, t, nullable=nullable, metadata={b"PARQUET:field_id": str(fid).encode()})


def _stats(path: Path, position_deletes: int) -> str:
    """One row for partition ts_day = 2024-03-01, its day written as a Parquet DATE."""
    schema = pa.schema([_field("partition", pa.struct([_field("ts_day", pa.date32(), 1000, True)]), 1),
                        _field("spec_id", pa.int32(), 2), _field("data_record_count", pa.int64(), 3),
                        _field("data_file_count", pa.int32(), 4), _field("total_data_file_size_in_bytes", pa.int64(), 5),
                        _field("position_delete_record_count", pa.int64(), 6)])
    row = {"partition": {"ts_day": DAY}, "spec_id": 0, "data_record_count": 10, "data_file_count": 1,
           "total_data_file_size_in_bytes": 100, "position_delete_record_count": position_deletes}
    pq.write_table(pa.Table.from_pylist([row], schema=schema), path)
    return str(path)


def test_a_manifest_date_is_the_day_count() -> None:
    assert manifest_partition_key({"1000": "2024-03-01"}, {1000: IntegerType()}) == \
        manifest_partition_key({"1000": 19783}, {1000: IntegerType()})


@pytest.mark.parametrize("claimed, found", [(4, []), (5, ["files.partition-statistics-position-deletes"])])
def test_position_delete_counts_of_a_day_partition_are_compared(tmp_path: Path, claimed: int,
                                                                 found: list[str]) -> None:
    live = [(0, {"content": 0, "partition": {"1000": "2024-03-01"}, "record_count": 10}),
            (0, {"content": 1, "partition": {"1000": "2024-03-01"}, "record_count": 3}),
            (0, {"content": 1, "partition": {"1000": "2024-03-01"}, "record_count": 1})]
    path = _stats(tmp_path / "stats.parquet", claimed)
    assert [f.rule for f in check_partition_position_deletes(DOC, live, path, "t", "/partition-statistics/0")] == found
