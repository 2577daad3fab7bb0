"""Geometry and geography values: WKB (the binary single value) and WKT (the JSON single value).

Spec sections: "Appendix G: Geospatial Notes" (the class hierarchy, WKT and WKB "(ISO supporting
XY, XYZ, XYM, XYZM)" of OGC Simple Feature Access 1.2.1), and the ``geometry``/``geography`` rows
of "Appendix D: Single-value serialization" (binary: "WKB format"; JSON: "Stored using WKT
representation"). The reference's value of both types is the WKB ``bytes``.

WKB and WKT are read and written with Shapely (GEOS), not by hand:

* reading WKB accepts both byte orders (the first byte is ``00`` big-endian or ``01``
  little-endian; any other byte is refused) and the ISO type codes with the Z/M/ZM offsets 1000,
  2000 and 3000; bytes left over after the geometry, or an EWKB SRID, are refused: they are not
  the ISO form;
* writing WKB gives little-endian ISO WKB with every dimension of the value (Z and M kept);
* writing WKT gives the OGC form with the dimension tag (``POINT Z (1 2 3)``, ``POINT M (1 2 4)``),
  the shortest decimal of each coordinate that reads back as the same double, and one space
  after the type word (``POINT (30 10)``, as the spec's example); reading WKT accepts what
  GEOS accepts (any case, any white space).

Errors are :class:`SpecViolation` with rule ``binary.wkb`` (bytes that are not WKB) or
``values.json-form`` (a JSON value that is not a WKT string).
"""

from __future__ import annotations

from typing import Any

from .errors import SpecViolation
from .types import IcebergType

CLAUSE_BINARY = "Appendix D: Single-value serialization / Binary single-value serialization"
CLAUSE_JSON = "Appendix D: Single-value serialization / JSON single-value serialization"


def _shapely() -> Any:
    """Shapely, imported on first use (it loads numpy and GEOS, which most checks never need)."""
    import shapely

    return shapely


def _wkb(geometry: Any) -> bytes:
    return bytes(_shapely().to_wkb(geometry, flavor="iso", byte_order=1, output_dimension=4))


def read_wkb(t: IcebergType, data: bytes) -> Any:
    """The Shapely geometry of WKB ``data`` of type ``t``; refuses bytes that are not ISO WKB."""
    shapely = _shapely()
    shown = bytes(data[:32]).hex() + ("..." if len(data) > 32 else "")
    if not data or data[0] not in (0, 1):
        raise SpecViolation(
            "binary.wkb", f"{t}: WKB starts with a byte order byte 00 or 01, got {shown or '(empty)'}",
            clause=CLAUSE_BINARY)
    try:
        geometry = shapely.from_wkb(bytes(data))
    except (shapely.errors.GEOSException, ValueError, TypeError) as e:
        raise SpecViolation("binary.wkb", f"{t}: {shown} is not WKB ({e})", clause=CLAUSE_BINARY) from None
    if len(_wkb(geometry)) != len(data):
        raise SpecViolation(
            "binary.wkb", f"{t}: {shown} is not one ISO WKB geometry of {len(data)} bytes "
            "(bytes left over, or an extended-WKB SRID)", clause=CLAUSE_BINARY)
    return geometry


def check_wkb(t: IcebergType, data: bytes) -> bytes:
    """``data`` unchanged when it is one WKB geometry (see :func:`read_wkb`)."""
    read_wkb(t, data)
    return bytes(data)


def wkb_from_wkt(t: IcebergType, v: Any) -> bytes:
    """Little-endian ISO WKB of WKT text ``v`` (the JSON single value of ``t``)."""
    shapely = _shapely()
    if not isinstance(v, str):
        raise SpecViolation("values.json-form", f"{v!r} is not a {t} JSON value: expected a WKT string",
                            clause=CLAUSE_JSON)
    try:
        geometry = shapely.from_wkt(v)
    except (shapely.errors.GEOSException, ValueError, TypeError) as e:
        raise SpecViolation("values.json-form", f"{v!r} is not a {t} JSON value: not WKT ({e})",
                            clause=CLAUSE_JSON) from None
    if geometry is None:
        raise SpecViolation("values.json-form", f"{v!r} is not a {t} JSON value: not WKT", clause=CLAUSE_JSON)
    return _wkb(geometry)


def wkt_from_wkb(t: IcebergType, data: bytes) -> str:
    """The WKT text (JSON single value) of WKB ``data`` of type ``t``."""
    geometry = read_wkb(t, data)
    return str(_shapely().to_wkt(geometry, rounding_precision=-1, trim=True, output_dimension=4))
