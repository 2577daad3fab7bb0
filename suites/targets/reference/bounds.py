"""Reference target: capability ``bound`` (Appendix D, Bound serialization).

A geometry/geography bound crosses as a point object ``{"x", "y"[, "z"][, "m"]}`` (see
:class:`suites.api.BoundSerializing`); every other bound as its JSON single value.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.binary import CLAUSE_BOUNDS, Point, bound_from_bytes, bound_to_bytes
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.types import DoubleType, GeographyType, GeometryType, IcebergType
from iceberg_conformance.reference.values import float_value, from_json, to_json
from iceberg_conformance.suites.api import BOUND
from iceberg_conformance.suites.targets.reference._common import rejecting, typ

_KEYS = ("x", "y", "z", "m")


def _point(t: IcebergType, value: Any) -> Point:
    if not isinstance(value, dict) or not {"x", "y"} <= set(value) <= set(_KEYS):
        raise SpecViolation("binary.value", f"{t} bound must be a point object with x, y and optional z, m; "
                            f"got {value!r}", clause=CLAUSE_BOUNDS)
    c = {k: float_value(t, value[k]) for k in value}
    return (c["x"], c["y"], c.get("z"), c.get("m"))


class BoundMixin:
    CAPABILITIES = frozenset({BOUND})

    def bound_to_bytes(self, type_: Any, value: Any) -> bytes:
        t = typ(type_)
        with rejecting():
            if isinstance(t, (GeometryType, GeographyType)):
                return bound_to_bytes(t, _point(t, value))
            return bound_to_bytes(t, from_json(t, value))

    def bound_from_bytes(self, type_: Any, data: bytes) -> Any:
        t = typ(type_)
        with rejecting():
            got = bound_from_bytes(t, data)
            if isinstance(t, (GeometryType, GeographyType)):
                return {k: to_json(DoubleType(), v) for k, v in zip(_KEYS, got) if v is not None}
            return to_json(t, got)
