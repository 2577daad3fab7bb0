"""Bounds of geometry and geography columns ("Bounds for Geometry and Geography", Appendix D
"Bound serialization"): the reference writer's bound points, and the checker's rule
``manifests.bound-geo-point`` with the data rules that compare the box with the file's objects.

The tables are written by the reference writer (``reference/writer.py``); the writer's bounds
are compared with the geospatial statistics Arrow C++ writes into the same Parquet file, an
independent computation of the same box.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.damage import Overlay, self_test, write_damaged
from iceberg_conformance.checker.damage.registry import data_entries as _data_entries
from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.manifests import geo_box_problems
from iceberg_conformance.reference.types import GeographyType, GeometryType
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "geom", "required": False, "type": "geometry(OGC:CRS84)"},
    {"id": 3, "name": "geog", "required": False, "type": "geography(OGC:CRS84, spherical)"},
]
ROWS = [
    {"id": 1, "geom": "POINT (30 10)", "geog": "POINT (170 -10)"},
    {"id": 2, "geom": "LINESTRING Z (1 2 3, 40 -5 6)", "geog": "POINT (-170 10)"},
    {"id": 3, "geom": None, "geog": None},
]


def _table(tmp_path: Path) -> str:
    b = TableBuilder(str(tmp_path / "t"), 3, FIELDS)
    b.append(ROWS)
    return b.metadata_path()


def _point(hex_: str) -> tuple[float, ...]:
    data = bytes.fromhex(hex_)
    return struct.unpack(f"<{len(data) // 8}d", data)


def _rules(metadata: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in check_table(metadata).findings:
        out.setdefault(f.rule, []).append(f.message)
    return out


def _errors(metadata: str) -> list[str]:
    return sorted({f.rule for f in check_table(metadata).findings if f.severity == "error"})


def test_writer_bounds_are_the_box_arrow_computes(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    metadata = _table(tmp_path)
    o = Overlay(metadata)
    [(_, _, entry)] = list(_data_entries(o))
    df = entry["data_file"]
    bounds = {which: {int(kv["key"]): kv["value"].hex() for kv in df[which]} for which in ("lower_bounds", "upper_bounds")}
    meta = pq.ParquetFile(df["file_path"]).metadata.row_group(0)
    stats = {meta.column(i).path_in_schema: meta.column(i).geo_statistics for i in range(meta.num_columns)}
    geom = stats["geom"]
    # geom holds POINT (30 10) and LINESTRING Z (1 2 3, 40 -5 6): x 1..40, y -5..10, z 3..6 (the point has no z)
    assert (geom.xmin, geom.ymin, geom.zmin) == (1.0, -5.0, 3.0)
    assert _point(bounds["lower_bounds"][2]) == (geom.xmin, geom.ymin, geom.zmin)
    assert _point(bounds["upper_bounds"][2]) == (geom.xmax, geom.ymax, geom.zmax)
    # geography points only: x:y, the box of the points (bounds of spherical edges are not written)
    assert _point(bounds["lower_bounds"][3]) == (-170.0, -10.0)
    assert _point(bounds["upper_bounds"][3]) == (170.0, 10.0)


def test_valid_table_has_no_error(tmp_path: Path) -> None:
    assert _errors(_table(tmp_path)) == []


def _rebound(metadata: str, out: Path, column: int, lower: tuple[float, ...], upper: tuple[float, ...]) -> str:
    o = Overlay(metadata)
    for p, _, entry in _data_entries(o):
        for which, point in (("lower_bounds", lower), ("upper_bounds", upper)):
            for kv in entry["data_file"][which]:
                if kv["key"] == column:
                    kv["value"] = struct.pack(f"<{len(point)}d", *point)
        o.touch_manifest(p)
    return o.write(str(out))


def test_geography_box_across_the_antimeridian_is_valid(tmp_path: Path) -> None:
    """The geography points 170 and -170: the box from x 170 east to x -170 holds both."""
    damaged = _rebound(_table(tmp_path), tmp_path / "wrap", 3, (170.0, -10.0), (-170.0, 10.0))
    assert _errors(damaged) == []


def test_geometry_box_with_lower_x_above_upper_x_is_reported(tmp_path: Path) -> None:
    damaged = _rebound(_table(tmp_path), tmp_path / "geom", 2, (40.0, -5.0, 3.0), (1.0, 10.0, 6.0))
    found = _rules(damaged)
    assert any("lower bound x 40 is greater than upper bound x 1" in m for m in found["manifests.bound-geo-point"])
    assert "data.lower-bound" in found and "data.upper-bound" in found


def test_box_not_holding_a_vertex_is_reported(tmp_path: Path) -> None:
    """The y of LINESTRING Z (1 2 3, 40 -5 6) reaches -5: a lower bound y of -4 leaves it out."""
    damaged = _rebound(_table(tmp_path), tmp_path / "y", 2, (1.0, -4.0, 3.0), (40.0, 10.0, 6.0))
    found = _rules(damaged)
    assert any("has y = -4" in m for m in found["data.lower-bound"])
    assert "manifests.bound-geo-point" not in found


def test_bound_point_of_wrong_length_is_reported(tmp_path: Path) -> None:
    metadata = _table(tmp_path)
    o = Overlay(metadata)
    for p, _, entry in _data_entries(o):
        for kv in entry["data_file"]["lower_bounds"]:
            if kv["key"] == 2:
                kv["value"] = kv["value"][:20]
        o.touch_manifest(p)
    found = _rules(o.write(str(tmp_path / "short")))
    assert any("16, 24 or 32 bytes" in m for m in found["manifests.bound-geo-point"])


def test_damage_case_is_reported(tmp_path: Path) -> None:
    pristine, copies, skipped = write_damaged(_table(tmp_path), str(tmp_path / "damage"),
                                              rules=["manifests.bound-geo-point"])
    assert skipped == [] and len(copies) == 1
    control, verdicts = self_test(str(tmp_path / "damage"), copies, pristine)
    assert control == []
    assert verdicts[0].reported and verdicts[0].extra_errors == []


GEOM, GEOG = GeometryType(), GeographyType()


@pytest.mark.parametrize("t, lower, upper, problem", [
    (GEOM, (1.0, 2.0, None, None), (3.0, 4.0, None, None), None),
    (GEOM, (1.0, 2.0, 3.0, 4.0), (1.0, 2.0, 3.0, 4.0), None),
    (GEOG, (170.0, -10.0, None, None), (-170.0, 10.0, None, None), None),
    (GEOM, (170.0, -10.0, None, None), (-170.0, 10.0, None, None), "lower bound x 170 is greater than upper bound x -170"),
    (GEOG, (1.0, 5.0, None, None), (2.0, 4.0, None, None), "lower bound y 5 is greater than upper bound y 4"),
    (GEOM, (1.0, 2.0, 9.0, None), (3.0, 4.0, 8.0, None), "lower bound z 9 is greater than upper bound z 8"),
    (GEOM, (1.0, 2.0, None, 7.0), (3.0, 4.0, None, 6.0), "lower bound m 7 is greater than upper bound m 6"),
    (GEOM, (1.0, 2.0, 3.0, None), (3.0, 4.0, None, None), "z is 3 in the lower bound but unset in the upper bound"),
    (GEOG, (-181.0, 0.0, None, None), (10.0, 1.0, None, None), "outside x [-180..180], y [-90..90]"),
    (GEOG, (0.0, 0.0, None, None), (10.0, 91.0, None, None), "outside x [-180..180], y [-90..90]"),
])
def test_box_problems(t: Any, lower: Any, upper: Any, problem: str | None) -> None:
    found = geo_box_problems(t, lower, upper)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found
