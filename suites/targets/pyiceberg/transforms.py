"""pyiceberg target: capability ``transform`` (``pyiceberg.transforms``).

Transforms are parsed by PyIceberg (``parse_transform``), source types by PyIceberg's type
model; values are converted with :mod:`suites.targets.pyiceberg._convert`. PyIceberg's
transform functions return the physical result: an ``int`` for bucket/year/month/day/hour
(also for ``day``, whose result type PyIceberg names ``date``), the source value's form for
identity and truncate.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import TRANSFORM, Rejected, Unsupported
from iceberg_conformance.suites.targets.pyiceberg._convert import InputConversionError, from_native, iceberg_type, to_native


def _parse(transform: str) -> Any:
    from pyiceberg.exceptions import ValidationError
    from pyiceberg.transforms import parse_transform

    try:
        return parse_transform(transform)
    except (ValidationError, ValueError, TypeError) as e:
        raise Rejected(f"pyiceberg refuses transform {transform!r}: {e}") from e


def _source(type_: Any) -> Any:
    try:
        return iceberg_type(type_)
    except InputConversionError as e:
        raise Unsupported(f"pyiceberg has no type {type_!r}") from e


def _check(t: Any, source: Any) -> None:
    from pyiceberg.transforms import UnknownTransform

    if isinstance(t, UnknownTransform):
        try:
            t.transform(source)
        except AttributeError as e:   # how PyIceberg refuses to apply an unknown transform
            raise Rejected(str(e)) from e
    if not t.can_transform(source):
        raise Rejected(f"pyiceberg: {t} cannot transform {source}")


class TransformsMixin:
    CAPABILITIES = frozenset({TRANSFORM})

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        from pyiceberg.transforms import BucketTransform, TimeTransform, VoidTransform

        t = _parse(transform)
        source = _source(type_)
        _check(t, source)
        result = t.transform(source)(to_native(type_, value))
        if isinstance(t, (BucketTransform, TimeTransform)) or result is None:
            return result
        if isinstance(t, VoidTransform):
            return result  # not null: reported as is, the suite compares it with null
        return from_native(type_, result)

    def result_type(self, transform: str, type_: Any) -> Any:
        t = _parse(transform)
        source = _source(type_)
        _check(t, source)
        return str(t.result_type(source))
