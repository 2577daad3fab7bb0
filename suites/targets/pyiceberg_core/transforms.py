"""pyiceberg-core target: capability ``transform`` (``pyiceberg_core.transform``).

iceberg-rust's bindings apply ``identity``, ``void``, ``bucket(array, N)``,
``truncate(array, W)``, ``year``, ``month``, ``day`` and ``hour`` to Arrow arrays; the source
type is implied by the Arrow type (see :mod:`suites.targets.pyiceberg_core._arrow`). A value is
passed as a one-element array. The bindings do not parse transform strings, so this adapter
maps the spec's strings onto those functions; a string it cannot map (an unknown transform,
``bucket[x]``) is UNSUPPORTED, not a rejection by iceberg-rust. The bindings expose no result
types: ``result_type`` is UNSUPPORTED.

Refusals: iceberg-rust raises ``ValueError`` for a source type a transform does not accept and
``OverflowError`` for a parameter outside its ``u32`` range; both count as rejections. A Rust
panic (``pyo3_runtime.PanicException``, a ``BaseException``) is reported as a crash.
"""

from __future__ import annotations

import re
from typing import Any

from iceberg_conformance.suites.api import TRANSFORM, Rejected, Unsupported
from iceberg_conformance.suites.targets.pyiceberg_core._arrow import NoArrowType, from_arrow, to_arrow

_PARAMETERIZED = re.compile(r"(bucket|truncate)\[(-?[0-9]+)\]")
_SIMPLE = ("identity", "void", "year", "month", "day", "hour")


class RustPanic(RuntimeError):
    """iceberg-rust panicked inside the bindings (a crash, not a refusal)."""


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (ValueError, OverflowError) as e:
        raise Rejected(f"pyiceberg-core: {e}") from e
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception:
        raise
    except BaseException as e:  # pyo3 PanicException derives from BaseException
        raise RustPanic(f"iceberg-rust panicked: {type(e).__name__}: {e}") from None


class TransformsMixin:
    CAPABILITIES = frozenset({TRANSFORM})

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        from pyiceberg_core import transform as core

        args: tuple[int, ...]
        if transform in _SIMPLE:
            fn, args = getattr(core, transform), ()
            result_type = "int" if transform in ("year", "month", "day", "hour") else type_
        elif m := _PARAMETERIZED.fullmatch(transform):
            fn, args = getattr(core, m.group(1)), (int(m.group(2)),)
            result_type = "int" if m.group(1) == "bucket" else type_
        else:
            raise Unsupported(f"pyiceberg-core has no parser for transform strings; cannot map {transform!r}")
        try:
            array = to_arrow(type_, [value])
        except NoArrowType as e:
            raise Unsupported(str(e)) from e
        result = _call(fn, array, *args)
        return from_arrow(result_type, result)[0]

    def result_type(self, transform: str, type_: Any) -> Any:
        raise Unsupported("pyiceberg-core 0.11 exposes no transform result types")
