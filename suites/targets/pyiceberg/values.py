"""PyIceberg target: capability ``value-json`` (``pyiceberg.conversions.from_json`` / ``to_json``).

PyIceberg's JSON single-value functions cover primitive types only; nested values are
UNSUPPORTED. Floats cross as JSON numbers, NaN and infinities as the kit's strings.
"""

from __future__ import annotations

import math
from typing import Any

from iceberg_conformance.suites.api import VALUE_JSON, Rejected, Unsupported
from iceberg_conformance.suites.targets.pyiceberg.binary import REFUSALS, _type

_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class ValueJsonMixin:
    CAPABILITIES = frozenset({VALUE_JSON})

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        from pyiceberg import conversions
        from pyiceberg import types as pty

        pt = _type(type_)
        if not isinstance(pt, pty.PrimitiveType):
            raise Unsupported("pyiceberg.conversions has no JSON single-value form for struct, list or map")
        for fn in (conversions.from_json, conversions.to_json):
            if fn.dispatch(type(pt)) is fn.dispatch(object):
                raise Unsupported(f"pyiceberg.conversions.{fn.__name__} does not handle {pt}")
        if isinstance(pt, (pty.FloatType, pty.DoubleType)) and isinstance(value, str) and value in _SPECIAL:
            value = _SPECIAL[value]
        try:
            out = conversions.to_json(pt, conversions.from_json(pt, value))
        except NotImplementedError as e:
            raise Unsupported(str(e)) from e
        except REFUSALS as e:
            raise Rejected(f"{type(e).__name__}: {e}") from e
        if isinstance(out, float) and not math.isfinite(out):
            return "NaN" if out != out else ("Infinity" if out > 0 else "-Infinity")
        return out
