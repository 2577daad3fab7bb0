"""Partition transforms: parsing, result types and application to values.

Spec sections: "Partitioning / Partition Transforms", "Bucket Transform Details",
"Truncate Transform Details" and "Appendix C: JSON serialization / Partition Specs"
(transform strings). The hash behind ``bucket[N]`` is in :mod:`reference.hashing`
("Appendix B").

A transform is parsed from its string form with :func:`parse_transform`; ``str()`` gives the
canonical form back. :meth:`Transform.result_type` says what a transform produces from a
source type (or refuses the source type), :meth:`Transform.apply` applies it to a value in the
reference's Python form (:mod:`reference.values`); ``None`` (null) always gives ``None``.

Decisions where the spec leaves room:

* ``day`` has result type ``int`` as in the spec table (days from 1970-01-01). Java,
  PyIceberg, iceberg-rust and iceberg-cpp report the logical type ``date`` over the same int,
  as the Iceberg dev list settled; the vectors accept both.
* ``void`` has "Source type or ``int``" as result type; the reference answers the source type.
* An unknown transform string (v3 readers must tolerate them) parses to an
  :class:`UnknownTransform` that writes back unchanged but refuses ``result_type``/``apply``.
* Multi-argument transforms (v3 ``source-ids``): the spec defines none yet; every transform
  here takes one source value.
* ``bucket[N]``/``truncate[W]`` parameters must be positive; the spec sets no upper bound, the
  reference stops at the long range.
* ``truncate[W]`` of an ``int``/``long`` whose result leaves the type's range (e.g. the minimum
  int with ``W=10``) is refused (``transforms.result-overflow``) rather than wrapped around.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, ClassVar

from .errors import SpecViolation
from .hashing import hash_value, scaled, unscaled
from .types import (
    BinaryType, DateType, DecimalType, FixedType, GeographyType, GeometryType, IcebergType,
    IntegerType, LongType, PrimitiveType, StringType, TimestampNanoType, TimestampType,
    TimestamptzNanoType, TimestamptzType, TimeType, UUIDType, VariantType,
)

CLAUSE = "Partitioning / Partition Transforms"
CLAUSE_BUCKET = "Partitioning / Bucket Transform Details"
CLAUSE_TRUNCATE = "Partitioning / Truncate Transform Details"
CLAUSE_JSON = "Appendix C: JSON serialization / Partition Specs"

INT_MAX = 2**31 - 1
#: the spec sets no upper bound on N and W; this reference stops at the long range
PARAMETER_MAX = 2**63 - 1
_RANGES: dict[type, tuple[int, int]] = {
    IntegerType: (-(2**31), 2**31 - 1),
    LongType: (-(2**63), 2**63 - 1),
}
EPOCH = dt.date(1970, 1, 1)

_MICRO_TIMESTAMPS = (TimestampType, TimestamptzType)
_NANO_TIMESTAMPS = (TimestampNanoType, TimestamptzNanoType)
_TIMESTAMPS = _MICRO_TIMESTAMPS + _NANO_TIMESTAMPS
_BUCKET_SOURCES = (
    IntegerType, LongType, DecimalType, DateType, TimeType, *_TIMESTAMPS, StringType, UUIDType,
    FixedType, BinaryType,
)
_TRUNCATE_SOURCES = (IntegerType, LongType, DecimalType, StringType, BinaryType)
_NOT_IDENTITY = (GeometryType, GeographyType, VariantType)


class Transform:
    """A partition transform. Subclasses define which sources they accept and what they do."""

    #: the transform's name in its string form
    name: ClassVar[str] = ""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"parse_transform({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, str(self)))

    def accepts(self, source: IcebergType) -> bool:
        """Whether the spec allows ``source`` as this transform's source type."""
        raise NotImplementedError

    def _result(self, source: IcebergType) -> IcebergType:
        raise NotImplementedError

    def result_type(self, source: IcebergType) -> IcebergType:
        """The type of this transform's values for source type ``source``."""
        if not self.accepts(source):
            raise SpecViolation(
                "transforms.source-type", f"{self}: cannot transform {source} values", clause=CLAUSE,
            )
        return self._result(source)

    def _apply(self, source: IcebergType, value: Any) -> Any:
        raise NotImplementedError

    def apply(self, source: IcebergType, value: Any) -> Any:
        """This transform of ``value`` (Python form of ``source``); ``None`` for ``None``."""
        self.result_type(source)
        if value is None:
            return None
        return self._apply(source, value)


class IdentityTransform(Transform):
    name = "identity"

    def accepts(self, source: IcebergType) -> bool:
        return isinstance(source, PrimitiveType) and not isinstance(source, _NOT_IDENTITY)

    def _result(self, source: IcebergType) -> IcebergType:
        return source

    def _apply(self, source: IcebergType, value: Any) -> Any:
        return value


class BucketTransform(Transform):
    """``bucket[N]``: ``(hash(v) & Integer.MAX_VALUE) % N``."""

    name = "bucket"

    def __init__(self, num_buckets: int) -> None:
        _check_parameter("bucket", num_buckets)
        self.num_buckets = num_buckets

    def __str__(self) -> str:
        return f"bucket[{self.num_buckets}]"

    def accepts(self, source: IcebergType) -> bool:
        return isinstance(source, _BUCKET_SOURCES)

    def _result(self, source: IcebergType) -> IcebergType:
        return IntegerType()

    def _apply(self, source: IcebergType, value: Any) -> int:
        h = hash_value(source, value)
        assert h is not None  # only unknown hashes to null, and unknown is no bucket source
        return (h & INT_MAX) % self.num_buckets


class TruncateTransform(Transform):
    """``truncate[W]``: numbers down to a multiple of W (floor), strings to W code points,
    binary to W bytes."""

    name = "truncate"

    def __init__(self, width: int) -> None:
        _check_parameter("truncate", width)
        self.width = width

    def __str__(self) -> str:
        return f"truncate[{self.width}]"

    def accepts(self, source: IcebergType) -> bool:
        return isinstance(source, _TRUNCATE_SOURCES)

    def _result(self, source: IcebergType) -> IcebergType:
        return source

    def _apply(self, source: IcebergType, value: Any) -> Any:
        w = self.width
        if isinstance(source, (IntegerType, LongType)):
            # Python's % with a positive divisor is never negative: the remainder the spec asks for.
            result = int(value) - int(value) % w
            low, high = _RANGES[type(source)]
            if not low <= result <= high:
                raise SpecViolation(
                    "transforms.result-overflow",
                    f"{self} of {source} {value}: {result} is outside the {source} range",
                    clause=CLAUSE_TRUNCATE,
                )
            return result
        if isinstance(source, DecimalType):
            u = unscaled(value)
            return scaled(u - u % w, source.scale)
        if isinstance(source, StringType):
            return str(value)[:w]   # Python strings index by code point
        return bytes(value)[:w]


class _TimeTransform(Transform):
    """year, month, day, hour: whole units from 1970-01-01T00:00:00, rounded down (floor)."""

    def accepts(self, source: IcebergType) -> bool:
        return isinstance(source, (DateType, *_TIMESTAMPS))

    def _result(self, source: IcebergType) -> IcebergType:
        return IntegerType()

    def _days(self, source: IcebergType, value: int) -> int:
        if isinstance(source, DateType):
            return value
        per_day = 86_400 * (10**9 if isinstance(source, _NANO_TIMESTAMPS) else 10**6)
        return value // per_day


def _date_of(days: int) -> dt.date:
    try:
        return EPOCH + dt.timedelta(days=days)
    except OverflowError:
        raise SpecViolation(
            "transforms.date-range", f"{days} days from 1970-01-01 is outside years 1..9999",
            clause=CLAUSE,
        ) from None


class YearTransform(_TimeTransform):
    name = "year"

    def _apply(self, source: IcebergType, value: Any) -> int:
        return _date_of(self._days(source, value)).year - 1970


class MonthTransform(_TimeTransform):
    name = "month"

    def _apply(self, source: IcebergType, value: Any) -> int:
        d = _date_of(self._days(source, value))
        return (d.year - 1970) * 12 + d.month - 1


class DayTransform(_TimeTransform):
    name = "day"

    def _apply(self, source: IcebergType, value: Any) -> int:
        return self._days(source, value)


class HourTransform(_TimeTransform):
    name = "hour"

    def accepts(self, source: IcebergType) -> bool:
        return isinstance(source, _TIMESTAMPS)

    def _apply(self, source: IcebergType, value: Any) -> int:
        per_hour = 3600 * (10**9 if isinstance(source, _NANO_TIMESTAMPS) else 10**6)
        return int(value) // per_hour


class VoidTransform(Transform):
    name = "void"

    def accepts(self, source: IcebergType) -> bool:
        return True

    def _result(self, source: IcebergType) -> IcebergType:
        return source

    def _apply(self, source: IcebergType, value: Any) -> None:
        return None


class UnknownTransform(Transform):
    """A transform this reference does not know: kept as written, never applied."""

    name = "unknown"

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def accepts(self, source: IcebergType) -> bool:
        return False

    def result_type(self, source: IcebergType) -> IcebergType:
        raise SpecViolation(
            "transforms.unknown-transform",
            f"{self.text!r} is not a known transform: it can be read and ignored, not applied",
            clause=CLAUSE,
        )

    def apply(self, source: IcebergType, value: Any) -> Any:
        return self.result_type(source)


def _check_parameter(name: str, n: int) -> None:
    if not 1 <= n <= PARAMETER_MAX:
        raise SpecViolation(
            "transforms.bad-parameter",
            f"{name}[{n}]: the parameter must be a positive integer (at most {PARAMETER_MAX})",
            clause=CLAUSE_JSON,
        )


_SIMPLE: dict[str, type[Transform]] = {
    cls.name: cls for cls in (IdentityTransform, YearTransform, MonthTransform, DayTransform,
                              HourTransform, VoidTransform)
}
_PARAMETERIZED = re.compile(r"(bucket|truncate)((?:\[.*)?)", re.DOTALL)
_PARAMETER = re.compile(r"\[([0-9]+)\]")


def parse_transform(text: str) -> Transform:
    """A transform from its string form (``"bucket[16]"``, ``"day"``, ...).

    Strings naming no known transform give an :class:`UnknownTransform`; ``bucket`` and
    ``truncate`` with a missing, non-numeric or non-positive parameter are refused
    (``transforms.bad-parameter``).
    """
    if not isinstance(text, str):
        raise SpecViolation("transforms.json-shape", f"a transform is a JSON string, got {text!r}",
                            clause=CLAUSE_JSON)
    if text in _SIMPLE:
        return _SIMPLE[text]()
    if m := _PARAMETERIZED.fullmatch(text):
        name, rest = m.group(1), m.group(2)
        p = _PARAMETER.fullmatch(rest)
        if p is None:
            raise SpecViolation(
                "transforms.bad-parameter",
                f"{text!r}: {name} takes one positive integer parameter, {name}[<n>]",
                clause=CLAUSE_JSON,
            )
        digits = p.group(1)
        n = int(digits) if len(digits) <= 20 else PARAMETER_MAX + 1
        return BucketTransform(n) if name == "bucket" else TruncateTransform(n)
    return UnknownTransform(text)


__all__ = [
    "Transform", "IdentityTransform", "BucketTransform", "TruncateTransform", "YearTransform",
    "MonthTransform", "DayTransform", "HourTransform", "VoidTransform", "UnknownTransform",
    "parse_transform",
]
