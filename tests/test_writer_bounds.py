"""The reference writer's column bounds, spec evolution and snapshot expiry (``TableBuilder``).

With ``bounds=True`` a data file's ``lower_bounds`` / ``upper_bounds`` are the least and greatest
non-null, non-NaN values of each primitive column in the spec's order ("Manifests": "Each value
must be less than or equal to all non-null, non-NaN values in the column for the file"; "For
float and double, the value -0.0 must precede +0.0"), serialized as Appendix D says; the
values below are worked out by hand: strings by their UTF-8 bytes, uuid and fixed unsigned
byte-wise. ``evolve_spec`` and ``expire_snapshots`` leave a table the checker finds clean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iceberg_conformance.checker import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "int"},
          {"id": 2, "name": "f", "required": False, "type": "float"},
          {"id": 3, "name": "u", "required": False, "type": "uuid"},
          {"id": 4, "name": "x", "required": False, "type": "fixed[2]"},
          {"id": 5, "name": "s", "required": False, "type": "string"},
          {"id": 6, "name": "t", "required": False, "type": "time"}]
ROWS = [{"id": 1, "f": 0.0, "u": "7fffffff-ffff-ffff-ffff-ffffffffffff", "x": "8000", "s": "é", "t": "12:00:00.000000"},
        {"id": 2, "f": -0.0, "u": "80000000-0000-0000-0000-000000000000", "x": "7f00", "s": "z", "t": "00:00:00.000001"},
        {"id": 3, "f": "NaN", "u": None, "x": None, "s": None, "t": None},
        {"id": 4, "f": 1.5, "u": None, "x": None, "s": None, "t": None}]


def _errors(metadata: str) -> list[Any]:
    return [f for f in check_table(metadata).findings if f.severity == "error"]


def test_bounds_are_the_extremes_in_the_spec_order(tmp_path: Path) -> None:
    t = TableBuilder(str(tmp_path / "t"), 2, FIELDS, bounds=True)
    t.append(ROWS)
    (df,) = t.data_files.values()
    assert df["lower_bounds"] == {
        "1": "01000000",                                 # int 1, little-endian
        "2": "00000080",                                 # -0.0 precedes +0.0 (NaN is no bound)
        "3": "7fffffffffffffffffffffffffffffff",         # unsigned: 7f... before 80...
        "4": "7f00",
        "5": "7a",                                       # "z" (7a) before "é" (c3 a9)
        "6": "0100000000000000",                         # one microsecond after midnight
    }
    assert df["upper_bounds"] == {
        "1": "04000000", "2": "0000c03f", "3": "80000000000000000000000000000000", "4": "8000",
        "5": "c3a9", "6": "00b0eb0e0a000000"}            # 1.5f; 12:00 = 43,200,000,000 µs = 0x0a0eebb000
    assert df["nan_value_counts"] == {"2": 1}
    assert df["null_value_counts"] == {"1": 0, "2": 0, "3": 2, "4": 2, "5": 2, "6": 2}
    assert _errors(t.metadata_path()) == []


def test_evolved_specs_and_expired_snapshots_are_clean(tmp_path: Path) -> None:
    t = TableBuilder(str(tmp_path / "t"), 2, FIELDS,
                     [[{"source-id": 3, "field-id": 1000, "name": "u_identity", "transform": "identity"}]],
                     bounds=True)
    t.append(ROWS)
    assert t.evolve_spec([{"source-id": 3, "field-id": 1001, "name": "u_bucket", "transform": "bucket[4]"}]) == 1
    t.append(ROWS)
    t.evolve_spec([{"source-id": 4, "field-id": 1002, "name": "x_void", "transform": "void"}])
    t.append(ROWS)
    t.expire_snapshots()
    md = json.loads(Path(t.metadata_path()).read_text(encoding="utf-8"))
    assert md["default-spec-id"] == 2 and len(md["partition-specs"]) == 3
    assert [s["snapshot-id"] for s in md["snapshots"]] == [1003] and md["last-sequence-number"] == 3
    assert {df["partition"].get("1000") for df in t.data_files.values()} >= {"7fffffff-ffff-ffff-ffff-ffffffffffff"}
    assert _errors(t.metadata_path()) == []
