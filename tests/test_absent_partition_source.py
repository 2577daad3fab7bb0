"""Data files that do not store the source column of an identity partition field.

A table migrated from Hive keeps its partition columns in the directory names, not in the data
files; "Column Projection" reads such a column from the partition value: "Return the value from
partition metadata if an Identity Transform exists for the field and the partition value is
present in the `partition` struct on `data_file` object in the manifest." The checker used to
read the absent column as null and report ``data.partition-value`` on these valid tables. A
column absent under any other transform still reads null, whose transform is null: a non-null
partition value there is still reported.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "int"},
          {"id": 2, "name": "p", "required": False, "type": "string"}]


def _errors(location: Path, transform: str) -> list[str]:
    b = TableBuilder(str(location), 2, FIELDS,
                     [[{"source-id": 2, "field-id": 1000, "name": "p_part", "transform": transform}]], bounds=True)
    b.append([{"id": 1, "p": "a"}, {"id": 2, "p": "b"}], omit=("p",))
    for path in b.data_files:
        assert pq.read_schema(path).names == ["id"]
    return sorted({f.rule for f in check_table(b.metadata_path()).findings if f.severity == "error"})


def test_identity_source_absent_from_the_files_reads_the_partition_value(tmp_path: Path) -> None:
    assert _errors(tmp_path / "t", "identity") == []


def test_other_transform_of_an_absent_source_is_still_compared(tmp_path: Path) -> None:
    # the absent column reads null, bucket[4](null) is null: a non-null partition value is wrong
    assert _errors(tmp_path / "t", "bucket[4]") == ["data.partition-value"]
