"""Generate the geometry and geography vectors: ``binary/geo.json`` (WKB),
``binary/geo-bounds.json`` (bound points) and ``value-json/geo.json`` (WKT).

Run: ``python -m tools.vectors.geo`` (rewrites those three files). This kit's
``reference/`` is not used, nor Shapely (the reference reads WKB and WKT with it, so it would
be no independent check).

* **WKB** (Appendix D: "WKB format, see Appendix G"; Appendix G: the OGC Simple Feature Access
  WKB, "ISO supporting XY, XYZ, XYM, XYZM"): each case's bytes are built here with ``struct``
  from the ISO layout, written out in ``derived.from``: a byte order byte (``01`` little-endian,
  ``00`` big-endian), a uint32 type code (1 Point, 2 LineString, 3 Polygon, 4 MultiPoint,
  5 MultiLineString, 6 MultiPolygon, 7 GeometryCollection, plus 1000 for Z, 2000 for M, 3000
  for ZM), then uint32 counts (points of a line string, rings of a polygon and points of each
  ring, parts of a multi-geometry, each part a whole WKB geometry) and IEEE 754 doubles in the
  byte order given. The expected WKT is written by hand.
* **Bounds** (Appendix D, Bound serialization): the x:y, x:y:z, x:y:NaN:m or x:y:z:m
  concatenation of 8-byte little-endian doubles, packed with ``struct``.
* **JTS** 1.20 (``org.locationtech.jts``, bundled in the Iceberg 1.10.2 runtime jar) reads
  every WKB and WKT case through ``suites/spark/java/JtsGeo.java`` (a plain ``java`` process,
  no Spark) when Java 17 and the runtime jar are there; ``jts 1.20.0`` is added to
  ``derived.agreed`` where it gives the same WKT (compared by meaning, as the suites do), or
  refuses an input the case refuses. JTS writes no ISO WKB (its writer sets extended-WKB
  flags), so only its reading is compared. Disagreements are printed.

PyIceberg 0.12 keeps geometry/geography values as uninterpreted bytes (its ``to_json`` and
``from_json`` raise ``NotImplementedError``), and Iceberg Java 1.10.2's ``Conversions`` and
``SingleValueParser`` have no geometry/geography case: neither can check these cases.
"""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path
from typing import Any, Callable

from tools.vectors import VECTORS

HERE = VECTORS / "binary"
ROOT = VECTORS.parent
BINARY = "Appendix D: Single-value serialization / Binary single-value serialization"
BOUNDS = "Appendix D: Single-value serialization / Bound serialization"
JSON_SECTION = "Appendix D: Single-value serialization / JSON single-value serialization"
GEO_NOTES = "Appendix G: Geospatial Notes"
WKB_ROW = "`{t}` | WKB format, see [Appendix G](#appendix-g-geospatial-notes)"
WKT_ROW = "`{t}` | `JSON string` | `POINT (30 10)` | Stored using WKT representation, see [Appendix G](#appendix-g-geospatial-notes)"
BOUND_ROW = ("`{t}` | A single point, encoded as a x:y:z:m concatenation of its 8-byte little-endian IEEE 754 "
             "coordinate values. x and y are mandatory. This becomes x:y if z and m are both unset, x:y:z if only "
             "m is unset, and x:y:NaN:m if only z is unset.")
BBOX = ("For `geometry` and `geography` types, `lower_bounds` and `upper_bounds` are points with coordinates X, Y, "
        "Z (optional), and M (optional) that represent the lower and upper bounds of a bounding box that contains "
        "all objects in the file.")
WRAP = ("For `geography` only, xmin (X value of `lower_bounds`) may be greater than xmax (X value of `upper_bounds`), "
        "in which case an object in this bounding box may match if it contains an X such that x >= xmin OR x <= xmax.")
APPENDIX_G = ("The Geometry and Geography class hierarchy and its Well-known text (WKT) and Well-known binary (WKB) "
              "serializations (ISO supporting XY, XYZ, XYM, XYZM) are defined by [OpenGIS Implementation "
              "Specification for Geographic information – Simple feature access – Part 1: Common "
              "architecture](https://portal.ogc.org/files/?artifact_id=25355), from [OGC (Open Geospatial "
              "Consortium)](https://www.ogc.org/standard/sfa/).")
STDLIB = "python-stdlib 3.11 struct"
JTS = "jts 1.20.0 (org.locationtech.jts in the Iceberg 1.10.2 runtime jar)"


def spec(section: str, quote: str) -> dict[str, str]:
    return {"section": section, "quote": quote, "source": "current"}


# --- ISO WKB, built from its layout -----------------------------------------------------------

CODES = {"Point": 1, "LineString": 2, "Polygon": 3, "MultiPoint": 4, "MultiLineString": 5, "MultiPolygon": 6,
         "GeometryCollection": 7}
DIMS = {"": 0, "Z": 1000, "M": 2000, "ZM": 3000}
WIDTH = {"": 2, "Z": 3, "M": 3, "ZM": 4}


class Wkb:
    """Bytes of one WKB geometry and the layout they follow, part by part."""

    def __init__(self, order: str = "<") -> None:
        self.order = order
        self.data = b""
        self.layout: list[str] = []

    def _add(self, data: bytes, meaning: str) -> None:
        self.data += data
        self.layout.append(f"{data.hex()} {meaning}")

    def header(self, kind: str, dim: str) -> None:
        self._add(bytes([1 if self.order == "<" else 0]), "little-endian" if self.order == "<" else "big-endian")
        code = CODES[kind] + DIMS[dim]
        self._add(struct.pack(self.order + "I", code), f"type {code} ({kind}{' ' + dim if dim else ''})")

    def count(self, n: int, what: str) -> None:
        self._add(struct.pack(self.order + "I", n), f"{n} {what}")

    def coords(self, values: list[float]) -> None:
        data = struct.pack(self.order + f"{len(values)}d", *values)
        shown = ", ".join(f"{v:g}" for v in values)
        self.data += data
        self.layout.append(f"{data.hex()} doubles {shown}")

    def points(self, pts: list[tuple[float, ...]], dim: str) -> None:
        assert all(len(p) == WIDTH[dim] for p in pts)
        self.count(len(pts), "points")
        if pts:
            self.coords([c for p in pts for c in p])


Part = Callable[[Wkb], None]


def point(coords: tuple[float, ...], dim: str = "") -> Part:
    def build(w: Wkb) -> None:
        w.header("Point", dim)
        w.coords(list(coords))
    return build


def linestring(pts: list[tuple[float, ...]], dim: str = "") -> Part:
    def build(w: Wkb) -> None:
        w.header("LineString", dim)
        w.points(pts, dim)
    return build


def polygon(rings: list[list[tuple[float, ...]]], dim: str = "") -> Part:
    def build(w: Wkb) -> None:
        w.header("Polygon", dim)
        w.count(len(rings), "rings")
        for ring in rings:
            assert ring[0] == ring[-1], "a ring is closed"
            w.points(ring, dim)
    return build


def multi(kind: str, parts: list[Part], dim: str = "") -> Part:
    def build(w: Wkb) -> None:
        w.header(kind, dim)
        w.count(len(parts), "parts")
        for p in parts:
            p(w)
    return build


def wkb(part: Part, order: str = "<") -> tuple[bytes, str]:
    w = Wkb(order)
    part(w)
    return w.data, "ISO WKB: " + " | ".join(w.layout)


# --- JTS, through a plain java process ---------------------------------------------------------

class Jts:
    """JTS's WKBReader/WKTReader + WKTWriter (suites/spark/java/JtsGeo.java), or None."""

    def __init__(self) -> None:
        from iceberg_conformance.suites.spark import session

        jars = [session.runtime_jar(), session.oracle_jar()]
        self.proc = subprocess.Popen(
            ["java", "-cp", ":".join(str(j) for j in jars), "icebergconformance.JtsGeo"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, request: str) -> tuple[bool, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(request.replace("\n", " ") + "\n")
        self.proc.stdin.flush()
        status, _, text = self.proc.stdout.readline().rstrip("\n").partition(" ")
        return status == "ok", text


def start_jts() -> Jts | None:
    try:
        return Jts()
    except Exception as e:  # noqa: BLE001 - no Java here: the cases are written without JTS
        print(f"  JTS not available: {type(e).__name__}: {e}")
        return None


def same_wkt(expected: str, actual: str) -> bool:
    from iceberg_conformance.suites.harness.values import same_value  # the suites' comparison (no reference/)

    return bool(same_value("geometry", expected, actual))


# --- the cases ---------------------------------------------------------------------------------

def wkb_case(t: str, wkt: str, part: Part, *, order: str = "<", desc: str = "",
             roundtrip: bool = True) -> dict[str, Any]:
    data, layout = wkb(part, order)
    case: dict[str, Any] = {
        "description": desc or f"{t} {wkt}",
        "input": {"type": t, "bytes": data.hex()},
        "expected": wkt,
        "derived": {"from": layout, "agreed": [STDLIB]},
        "spec": [spec(BINARY, WKB_ROW.format(t=t)), spec(GEO_NOTES, APPENDIX_G)],
    }
    if not roundtrip:
        case["roundtrip"] = False
    return case


def bad_wkb(t: str, data: bytes, reason: str, desc: str, level: str = "must") -> dict[str, Any]:
    case: dict[str, Any] = {
        "description": desc,
        "input": {"type": t, "bytes": data.hex()},
        "error": {"rule": "binary.wkb", "reason": reason},
        "derived": {"from": reason, "agreed": []},
        "spec": [spec(BINARY, WKB_ROW.format(t=t)), spec(GEO_NOTES, APPENDIX_G)],
    }
    if level != "must":
        case["level"] = level
    return case


def wkt_case(t: str, wkt: str, expected: str | None = None, how: str = "") -> dict[str, Any]:
    return {
        "description": f"{t} {wkt} round-trips" if expected is None else f"{t} {wkt} is written back as {expected}",
        "input": {"type": t, "value": wkt},
        "expected": wkt if expected is None else expected,
        "derived": {"from": how or "spec table: geometry/geography: JSON string, WKT representation (Appendix G: "
                    "OGC Simple Feature Access WKT)", "agreed": []},
        "spec": [spec(JSON_SECTION, WKT_ROW.format(t=t)), spec(GEO_NOTES, APPENDIX_G)],
    }


def bad_wkt(t: str, value: Any, reason: str, desc: str = "") -> dict[str, Any]:
    return {
        "description": desc or f"{t} {json.dumps(value)} is refused",
        "input": {"type": t, "value": value},
        "error": {"rule": "values.json-form", "reason": reason},
        "derived": {"from": f"{reason}; spec table: geometry/geography: JSON string, WKT representation",
                    "agreed": []},
        "spec": [spec(JSON_SECTION, WKT_ROW.format(t=t)), spec(GEO_NOTES, APPENDIX_G)],
    }


NAN = struct.pack("<d", float("nan"))


def fmt(v: float) -> str:
    return "NaN" if v != v else f"{v:g}"


def bound_case(t: str, point_: dict[str, Any], *, data: bytes | None = None, desc: str = "", how: str = "",
               roundtrip: bool = True, extra: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """A bound point: ``x:y``, ``x:y:z``, ``x:y:NaN:m`` or ``x:y:z:m`` little-endian doubles."""
    x, y, z, m = (point_.get(k) for k in ("x", "y", "z", "m"))
    coords: list[float] = [x, y]
    if m is not None:
        coords += [float("nan") if z is None else z, m]
    elif z is not None:
        coords.append(z)
    made = struct.pack(f"<{len(coords)}d", *coords)
    data = made if data is None else data
    shape = {2: "x:y", 3: "x:y:z", 4: "x:y:NaN:m" if z is None else "x:y:z:m"}[len(coords)]
    layout = " | ".join(f"{data[i:i + 8].hex()} {n} {fmt(struct.unpack_from('<d', data, i)[0])}"
                        for i, n in zip(range(0, len(data), 8), ("x", "y", "z" if z is not None else "z unset", "m")))
    shown = ", ".join(f"{k}={fmt(v)}" for k, v in point_.items())
    case: dict[str, Any] = {
        "description": desc or f"{t} bound ({shown}) is {shape}, {len(data)} bytes",
        "input": {"type": t, "bytes": data.hex()},
        "expected": point_,
        "derived": {"from": (how + "; " if how else "") + f"{shape}, 8-byte little-endian doubles: {layout}",
                    "agreed": [STDLIB]},
        "spec": [spec(BOUNDS, BOUND_ROW.format(t=t))] + (extra or []),
    }
    if not roundtrip:
        case["roundtrip"] = False
    return case


def bad_bound(t: str, data: bytes, reason: str, desc: str) -> dict[str, Any]:
    return {
        "description": desc,
        "input": {"type": t, "bytes": data.hex()},
        "error": {"rule": "binary.length", "reason": reason},
        "derived": {"from": reason, "agreed": []},
        "spec": [spec(BOUNDS, BOUND_ROW.format(t=t))],
    }


def binary_cases() -> list[dict[str, Any]]:
    g, G = "geometry", "geography"
    square = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), (0.0, 0.0)]
    return [
        wkb_case(g, "POINT (30 10)", point((30.0, 10.0)), desc="geometry POINT (30 10), the spec's example"),
        wkb_case(G, "POINT (30 10)", point((30.0, 10.0)), desc="geography POINT (30 10), the spec's example"),
        wkb_case(g, "POINT (-122.4194 37.7749)", point((-122.4194, 37.7749))),
        wkb_case(G, "POINT (180 -90)", point((180.0, -90.0))),
        wkb_case(g, "POINT Z (1 2 3)", point((1.0, 2.0, 3.0), "Z")),
        wkb_case(g, "POINT M (1 2 4)", point((1.0, 2.0, 4.0), "M")),
        wkb_case(g, "POINT ZM (1 2 3 4)", point((1.0, 2.0, 3.0, 4.0), "ZM")),
        wkb_case(G, "POINT ZM (-70.5 45.25 100 7)", point((-70.5, 45.25, 100.0, 7.0), "ZM")),
        wkb_case(g, "LINESTRING (30 10, 10 30, 40 40)", linestring([(30.0, 10.0), (10.0, 30.0), (40.0, 40.0)])),
        wkb_case(G, "LINESTRING (170 10, -170 10)", linestring([(170.0, 10.0), (-170.0, 10.0)])),
        wkb_case(g, "LINESTRING Z (1 2 3, 4 5 6)", linestring([(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)], "Z")),
        wkb_case(g, "LINESTRING M (1 2 3, 4 5 6)", linestring([(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)], "M")),
        wkb_case(g, "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))", polygon([square])),
        wkb_case(g, "POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10), (20 30, 35 35, 30 20, 20 30))",
                 polygon([[(35.0, 10.0), (45.0, 45.0), (15.0, 40.0), (10.0, 20.0), (35.0, 10.0)],
                          [(20.0, 30.0), (35.0, 35.0), (30.0, 20.0), (20.0, 30.0)]]),
                 desc="geometry POLYGON with one hole (2 rings)"),
        wkb_case(G, "POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))",
                 polygon([[(0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (1.0, 1.0, 1.0), (0.0, 0.0, 1.0)]], "Z")),
        wkb_case(g, "MULTIPOINT ((10 40), (40 30))", multi("MultiPoint", [point((10.0, 40.0)), point((40.0, 30.0))])),
        wkb_case(g, "MULTIPOINT ZM ((1 2 3 4))", multi("MultiPoint", [point((1.0, 2.0, 3.0, 4.0), "ZM")], "ZM")),
        wkb_case(g, "MULTILINESTRING ((10 10, 20 20), (40 40, 30 30))",
                 multi("MultiLineString", [linestring([(10.0, 10.0), (20.0, 20.0)]),
                                           linestring([(40.0, 40.0), (30.0, 30.0)])])),
        wkb_case(G, "MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)), ((15 5, 40 10, 10 20, 5 10, 15 5)))",
                 multi("MultiPolygon", [polygon([[(30.0, 20.0), (45.0, 40.0), (10.0, 40.0), (30.0, 20.0)]]),
                                        polygon([[(15.0, 5.0), (40.0, 10.0), (10.0, 20.0), (5.0, 10.0), (15.0, 5.0)]])]),
                 desc="geography MULTIPOLYGON of 2 polygons"),
        wkb_case(g, "GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20))",
                 multi("GeometryCollection", [point((40.0, 10.0)), linestring([(10.0, 10.0), (20.0, 20.0)])])),
        wkb_case(g, "LINESTRING EMPTY", linestring([])),
        wkb_case(g, "POLYGON EMPTY", polygon([])),
        wkb_case(G, "MULTIPOINT EMPTY", multi("MultiPoint", [])),
        wkb_case(g, "GEOMETRYCOLLECTION EMPTY", multi("GeometryCollection", [])),
        wkb_case(g, "POINT (1 2)", point((1.0, 2.0)), order=">", roundtrip=False,
                 desc="geometry POINT (1 2) in big-endian WKB (byte order 00) reads as the same point"),
        wkb_case(g, "LINESTRING (1 2, 3 4)", linestring([(1.0, 2.0), (3.0, 4.0)]), order=">", roundtrip=False,
                 desc="geometry LINESTRING (1 2, 3 4) in big-endian WKB reads as the same line"),
        bad_wkb(g, b"", "WKB starts with a byte order byte and a type code; no bytes are no geometry",
                "geometry (empty bytes) is refused"),
        bad_wkb(g, bytes.fromhex("02") + struct.pack("<I", 1) + struct.pack("<2d", 1.0, 2.0),
                "the byte order byte is 00 (big-endian) or 01 (little-endian)",
                "geometry with byte order byte 02 is refused"),
        bad_wkb(g, bytes.fromhex("01") + struct.pack("<I", 1) + struct.pack("<d", 30.0),
                "a Point has two doubles; the bytes end after x", "geometry POINT cut after x (13 bytes) is refused"),
        bad_wkb(G, bytes.fromhex("01") + struct.pack("<I", 2) + struct.pack("<I", 3) + struct.pack("<4d", 1, 2, 3, 4),
                "a LineString of 3 points has 6 doubles; the bytes hold 4",
                "geography LINESTRING counting 3 points with 2 is refused"),
        bad_wkb(g, bytes.fromhex("01") + struct.pack("<I", 99) + struct.pack("<2d", 1.0, 2.0),
                "type code 99 is no geometry type of Simple Feature Access (1-7, plus 1000/2000/3000)",
                "geometry with WKB type code 99 is refused"),
        bad_wkb(g, bytes.fromhex("01") + struct.pack("<I", 1) + struct.pack("<2d", 30.0, 10.0) + b"\x00",
                "a Point's WKB is 21 bytes; a 22nd byte is not part of one WKB geometry",
                "geometry POINT (30 10) with a trailing byte is refused", level="should"),
    ]


def json_cases() -> list[dict[str, Any]]:
    g, G = "geometry", "geography"
    return [
        wkt_case(g, "POINT (30 10)", how="the spec's example for geometry: POINT (30 10)"),
        wkt_case(G, "POINT (30 10)", how="the spec's example for geography: POINT (30 10)"),
        wkt_case(g, "POINT (-122.4194 37.7749)"),
        wkt_case(g, "POINT Z (1 2 3)"),
        wkt_case(g, "POINT M (1 2 4)"),
        wkt_case(G, "POINT ZM (1 2 3 4)"),
        wkt_case(g, "LINESTRING (30 10, 10 30, 40 40)"),
        wkt_case(G, "LINESTRING (170 10, -170 10)"),
        wkt_case(g, "POLYGON ((35 10, 45 45, 15 40, 10 20, 35 10), (20 30, 35 35, 30 20, 20 30))"),
        wkt_case(g, "MULTIPOINT ((10 40), (40 30))"),
        wkt_case(G, "MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)), ((15 5, 40 10, 10 20, 5 10, 15 5)))"),
        wkt_case(g, "GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20))"),
        wkt_case(g, "LINESTRING EMPTY"),
        wkt_case(g, "POINT (30.0 10.0)", "POINT (30 10)",
                 how="WKT numbers are decimal text: 30.0 and 30 are the same double; compared by value"),
        bad_wkt(g, "POINT (30)", "a point has at least x and y", "geometry \"POINT (30)\" (one coordinate) is refused"),
        bad_wkt(g, "POINT (30 10", "the coordinate list is not closed", "geometry \"POINT (30 10\" (unclosed) is refused"),
        bad_wkt(g, "iceberg", "no WKT geometry type is called iceberg"),
        bad_wkt(G, 42, "the JSON form is a JSON string of WKT, not a number"),
        bad_wkt(g, "01010000000000000000003e400000000000002440",
                "the JSON form is WKT, not hex of the WKB", "geometry as WKB hex is refused (the JSON form is WKT)"),
    ]


def bound_cases() -> list[dict[str, Any]]:
    g, G = "geometry", "geography"
    wrap = [spec("Manifests / Bounds for Geometry and Geography", WRAP)]
    bbox = [spec("Manifests / Bounds for Geometry and Geography", BBOX)]
    odd_nan = struct.pack("<2d", 1.0, 2.0) + bytes.fromhex("000000000000f8ff") + struct.pack("<d", 4.0)
    return [
        bound_case(g, {"x": 1.0, "y": 2.0}, extra=bbox),
        bound_case(G, {"x": -122.5, "y": 37.25}, extra=bbox),
        bound_case(g, {"x": -1.5, "y": -2.5}),
        bound_case(g, {"x": 1.0, "y": 2.0, "z": 3.0}),
        bound_case(G, {"x": 10.0, "y": 20.0, "z": -5.0}),
        bound_case(g, {"x": 1.0, "y": 2.0, "m": 4.0}, how="z unset, m set: z is written as NaN"),
        bound_case(G, {"x": 10.0, "y": 20.0, "m": 1700000000.0}, how="z unset, m set: z is written as NaN"),
        bound_case(g, {"x": 1.0, "y": 2.0, "z": 3.0, "m": 4.0}),
        bound_case(G, {"x": -180.0, "y": -90.0, "z": 0.0, "m": 0.0}),
        bound_case(G, {"x": 180.0, "y": 90.0}),
        bound_case(g, {"x": 1.0, "y": 2.0, "m": 4.0}, data=odd_nan, roundtrip=False,
                   desc="geometry bound x:y:NaN:m with a sign-bit NaN z reads as z unset",
                   how="any NaN in the z place means z unset; the spec fixes no NaN bit pattern, so only reading is "
                       "checked"),
        bound_case(G, {"x": 170.0, "y": -10.0}, desc="geography lower bound x=170 (west of the antimeridian)",
                   extra=wrap, how="a lower bound of a box crossing the antimeridian: xmin 170 > xmax -170 is allowed "
                                   "for geography"),
        bound_case(G, {"x": -170.0, "y": 10.0}, desc="geography upper bound x=-170 (east of the antimeridian)",
                   extra=wrap, how="the upper bound of the same box: xmax -170 < xmin 170"),
        bad_bound(g, b"", "x and y are mandatory: a bound point is at least 16 bytes",
                  "geometry bound of 0 bytes is refused"),
        bad_bound(g, struct.pack("<d", 1.0), "x and y are mandatory: 8 bytes hold only x",
                  "geometry bound of 8 bytes (x only) is refused"),
        bad_bound(G, struct.pack("<d", 1.0) + b"\x00" * 4, "a bound point is 2, 3 or 4 doubles (16, 24 or 32 bytes)",
                  "geography bound of 12 bytes is refused"),
        bad_bound(g, struct.pack("<2d", 1.0, 2.0) + b"\x00", "a bound point is 2, 3 or 4 doubles (16, 24 or 32 bytes)",
                  "geometry bound of 17 bytes is refused"),
        bad_bound(G, struct.pack("<5d", 1, 2, 3, 4, 5), "a bound point has at most x, y, z and m (32 bytes)",
                  "geography bound of 40 bytes (5 doubles) is refused"),
        {"description": "geometry bound without y is refused when written",
         "input": {"type": g, "value": {"x": 1.0}},
         "error": {"rule": "binary.value", "reason": "x and y are mandatory"},
         "derived": {"from": "x and y are mandatory", "agreed": []},
         "spec": [spec(BOUNDS, BOUND_ROW.format(t=g))]},
    ]


# --- JTS agreement and writing -----------------------------------------------------------------

def jts_check(jts: Jts | None, tests: list[dict[str, Any]], kind: str) -> None:
    if jts is None:
        return
    for t in tests:
        inp = t["input"]
        request = f"wkb {inp['bytes']}" if kind == "wkb" else f"wkt {inp['value']}"
        if kind == "wkt" and not isinstance(inp["value"], str):
            continue  # not text: nothing for a WKT reader to read
        ok, text = jts.ask(request)
        if "error" in t:
            agrees = not ok
        else:
            agrees = ok and same_wkt(t["expected"], text)
        if agrees:
            t["derived"]["agreed"].append(JTS)
        else:
            print(f"  jts disagrees: {t['description']}: {'ok' if ok else 'error'} {text}")


def write(path: Path, doc: dict[str, Any]) -> None:
    descs = [t["description"] for t in doc["tests"]]
    assert len(descs) == len(set(descs)), [d for d in descs if descs.count(d) > 1]
    assert all(len(d) <= 120 for d in descs), [d for d in descs if len(d) > 120]
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(doc['tests'])} tests")


def main() -> None:
    jts = start_jts()
    binary = binary_cases()
    jts_check(jts, binary, "wkb")
    write(HERE / "geo.json", {
        "description": "Binary single values of geometry and geography: ISO WKB",
        "operation": "binary",
        "spec": [spec(BINARY, WKB_ROW.format(t="geometry")), spec(BINARY, WKB_ROW.format(t="geography"))],
        "format_versions": [3],
        "notes": "Reading the WKB gives the geometry, shown as WKT and compared by meaning (suites/test_value_json.py, "
                 "same_value); writing it back must give the same bytes for little-endian WKB. Big-endian input is "
                 "read only: the spec fixes no byte order for writers. POINT EMPTY has no WKB of its own in Simple "
                 "Feature Access 1.2.1 (implementations write NaN coordinates by convention), so it is not "
                 "covered. A trailing byte after one WKB geometry is refused at level should (vectors/README.md, "
                 "Normative levels): the geometry before it reads, and the spec does not say a reader must refuse it.",
        "tests": binary,
    })
    values = json_cases()
    jts_check(jts, values, "wkt")
    write(HERE.parent / "value-json" / "geo.json", {
        "description": "JSON single values of geometry and geography: WKT strings",
        "operation": "value-json",
        "spec": [spec(JSON_SECTION, WKT_ROW.format(t="geometry")), spec(JSON_SECTION, WKT_ROW.format(t="geography"))],
        "format_versions": [3],
        "notes": "The value read from the WKT is written back as WKT and compared by meaning "
                 "(suites/test_value_json.py, same_value): type words in any case, any white space around "
                 "parentheses and commas, coordinates by their double value; the dimension tag (Z, M, ZM) must be "
                 "kept. Refusals are must: a string that is no WKT geometry, or no string, has no reading as a "
                 "geometry.",
        "tests": values,
    })
    bounds = bound_cases()
    write(HERE / "geo-bounds.json", {
        "description": "Lower and upper bounds of geometry and geography: points of 2 to 4 doubles",
        "operation": "bound",
        "spec": [spec(BOUNDS, BOUND_ROW.format(t="geometry")), spec(BOUNDS, BOUND_ROW.format(t="geography"))],
        "format_versions": [3],
        "notes": "A bound point crosses as {\"x\", \"y\"[, \"z\"][, \"m\"]} (suites/api.py, BoundSerializing), an "
                 "unset coordinate left out; reading the bytes gives the point, and writing the point gives the same "
                 "bytes, where a NaN z may be any NaN. The antimeridian cases are the two bounds of one geography "
                 "box (xmin 170 > xmax -170), each a valid point; the pair is checked in manifests by the checker "
                 "rule manifests.bound-geo-point. Byte lengths other than 16, 24 and 32 have no reading as a point "
                 "(must).",
        "tests": bounds,
    })
    if jts is not None and jts.proc.stdin is not None:
        jts.proc.stdin.close()
        jts.proc.wait(timeout=30)


if __name__ == "__main__":
    main()
