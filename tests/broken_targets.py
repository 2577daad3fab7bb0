"""Deliberately broken targets: each repeats a bug real implementations shipped.

The suite must catch every one of them with specific, explained failures
(tests/test_broken_targets.py). They wrap the reference and break one thing each.

:data:`VALUE_BUGS` lists the classic value bugs (hashing, bucket, truncate, time transforms,
binary single values) with the property test of suites/test_properties.py that must catch each
on its own, without the vectors.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
import uuid
from typing import Any, ClassVar

from iceberg_conformance.suites.api import Rejected
from iceberg_conformance.suites.targets.reference import ReferenceTarget


class _Broken(ReferenceTarget):  # type: ignore[misc,valid-type]
    """The reference with one bug: each subclass names itself; its refusals are still the
    reference's, with the kit's rule ids."""

    reports_rules = True


class SignedModuloBucket(_Broken):
    """bucket[N] as ``hash % N`` with a truncating (C/Java) remainder: negative buckets."""

    name: ClassVar[str] = "broken-signed-modulo"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = re.fullmatch(r"bucket\[(\d+)\]", transform)
        if m is None or value is None:
            return super().transform(transform, type_, value)
        n, h = int(m.group(1)), self.hash(type_, value)
        return h - n * int(h / n)  # truncating division, as `%` in C and Java


class LittleEndianUuid(_Broken):
    """UUIDs serialized little-endian (``uuid.UUID.bytes_le``), both ways."""

    name: ClassVar[str] = "broken-uuid-little-endian"

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        if type_ == "uuid":
            return uuid.UUID(value).bytes_le
        return bytes(super().to_bytes(type_, value))

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        if type_ == "uuid" and len(data) == 16:
            return str(uuid.UUID(bytes_le=data))
        return super().from_bytes(type_, data)


class CrashInsteadOfReject(_Broken):
    """Fails on invalid schemas with an unrelated exception: a crash is not a rejection."""

    name: ClassVar[str] = "broken-crash"

    def schema_json_roundtrip(self, schema: Any, format_version: int) -> Any:
        try:
            return super().schema_json_roundtrip(schema, format_version)
        except Rejected:
            raise AttributeError("'NoneType' object has no attribute 'fields'") from None


class LenientZulu(_Broken):
    """Reads a timestamptz JSON value ending in ``Z`` as UTC (a reader's leniency: the spec's
    ``+00:00`` binds the stored form; nothing says a reader must refuse ``Z``). Writes right."""

    name: ClassVar[str] = "lenient-zulu"

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        if type_ in ("timestamptz", "timestamptz_ns") and isinstance(value, str) and value.endswith("Z"):
            value = value[:-1] + "+00:00"
        return super().value_json_roundtrip(type_, value)


class ZuluWriter(_Broken):
    """Writes timestamptz JSON values with ``Z`` instead of ``+00:00``: a writer that breaks the
    spec's "must be '+00:00'"."""

    name: ClassVar[str] = "zulu-writer"

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        out = super().value_json_roundtrip(type_, value)
        if type_ in ("timestamptz", "timestamptz_ns") and isinstance(out, str) and out.endswith("+00:00"):
            return out[: -len("+00:00")] + "Z"
        return out


class LittleEndianUuidBucket(_Broken):
    """bucket[N] of a uuid hashes its little-endian bytes (Appendix B hashes the 16 big-endian
    bytes): caught by the hash vectors read through ``bucket[2147483647]``."""

    name: ClassVar[str] = "broken-uuid-bucket"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = re.fullmatch(r"bucket\[(\d+)\]", transform)
        if m is None or type_ != "uuid" or value is None:
            return super().transform(transform, type_, value)
        import mmh3

        return (mmh3.hash(uuid.UUID(value).bytes_le) & 0x7FFFFFFF) % int(m.group(1))


class KeepsEveryPredicate(_Broken):
    """Returns the row filter itself as every partition's residual: sound (the filter agrees with
    itself on every row), never tight."""

    name: ClassVar[str] = "keeps-every-predicate"

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        return expr


class NullsFirstResidual(_Broken):
    """Decides an order comparison on a null partition value as if nulls came first (null < 5
    true), as Iceberg Java 1.10's ResidualEvaluator does: rows the filter rejects are returned."""

    name: ClassVar[str] = "nulls-first-residual"

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        if not partition and isinstance(expr, dict) and expr.get("type") in ("lt", "lt-eq"):
            return True
        return super().residual(schema, spec, expr, partition, case_sensitive)


# --- classic value bugs -------------------------------------------------------------------------

_MAX_INT = 2**31 - 1
_BUCKET = re.compile(r"bucket\[(\d+)\]")
_TRUNCATE = re.compile(r"truncate\[(\d+)\]")


def _python(type_: Any, value: Any) -> Any:
    """The reference's Python form of a JSON single value (days, micros, Decimal, ...)."""
    from iceberg_conformance.reference.types import parse_type
    from iceberg_conformance.reference.values import from_json

    return from_json(parse_type(type_), value)


def _murmur(data: bytes) -> int:
    import mmh3

    return int(mmh3.hash(data, 0, signed=True))


def _toward_zero(a: int, b: int) -> int:
    """``a / b`` rounded toward zero (C and Java integer division), for ``b > 0``."""
    return a // b if a >= 0 else -(-a // b)


class _OwnHash(_Broken):
    """A target whose hash of some types is wrong (``wrong_hash`` returns it, ``None`` for the
    types it gets right) and whose bucket[N] is that hash mod N, as an implementation's is."""

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        raise NotImplementedError

    def hash(self, type_: Any, value: Any) -> int | None:
        got = None if value is None else self.wrong_hash(type_, value)
        return super().hash(type_, value) if got is None else got

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = _BUCKET.fullmatch(transform)
        got = None if m is None or value is None else self.wrong_hash(type_, value)
        if got is None:
            return super().transform(transform, type_, value)
        return (got & _MAX_INT) % int(m.group(1))


class IntHashedAsFourBytes(_OwnHash):
    """int hashed as its 4 little-endian bytes (``hashInt``); Appendix B: ``hashLong(long(v))``."""

    name: ClassVar[str] = "broken-int-hash-4-bytes"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        return _murmur(struct.pack("<i", value)) if type_ == "int" else None


class DateTimeHashedAsText(_OwnHash):
    """date and time hashed as the UTF-8 of their ISO text, not their day or microsecond count."""

    name: ClassVar[str] = "broken-date-time-hash-text"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        return _murmur(str(value).encode()) if type_ in ("date", "time") else None


class NanosNotFlooredForHash(_OwnHash):
    """timestamp_ns hashed after dividing by 1000 toward zero: a pre-1970 value that is not a
    whole microsecond hashes as the microsecond after its own (the spec floors to micros)."""

    name: ClassVar[str] = "broken-nanos-hash-toward-zero"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        if type_ not in ("timestamp_ns", "timestamptz_ns"):
            return None
        return _murmur(struct.pack("<q", _toward_zero(_python(type_, value), 1000)))


class FloatHashRawBits(_OwnHash):
    """float and double hashed from their raw bits: -0.0 not made 0.0, and NaN hashed as the
    NaN an x86 division makes (0xfff8...), not Java's canonical ``doubleToLongBits`` NaN."""

    name: ClassVar[str] = "broken-float-hash-raw-bits"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        if type_ not in ("float", "double"):
            return None
        v = _python(type_, value)
        raw = b"\x00\x00\x00\x00\x00\x00\xf8\xff" if v != v else struct.pack("<d", v)
        return _murmur(raw)


class DecimalHashPaddedBytes(_OwnHash):
    """decimal hashed from ``(bit_length + 8) // 8`` big-endian bytes of the unscaled value: one
    byte too many for -128, -32768, ... (Appendix B: the minimum number of bytes)."""

    name: ClassVar[str] = "broken-decimal-hash-padded"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        if not str(type_).startswith("decimal"):
            return None
        from iceberg_conformance.reference.hashing import unscaled

        u = unscaled(_python(type_, value))
        return _murmur(u.to_bytes((abs(u).bit_length() + 8) // 8, "big", signed=True))


class DecimalHashIgnoresScale(_OwnHash):
    """decimal hashed from its value at scale 0 (the fraction dropped), not its unscaled value."""

    name: ClassVar[str] = "broken-decimal-hash-scale"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        if not str(type_).startswith("decimal"):
            return None
        from iceberg_conformance.reference.hashing import min_big_endian

        return _murmur(min_big_endian(int(_python(type_, value))))


class StringHashUtf16(_OwnHash):
    """string hashed from its UTF-16 code units (a JVM ``char[]``), not its UTF-8 bytes."""

    name: ClassVar[str] = "broken-string-hash-utf16"

    def wrong_hash(self, type_: Any, value: Any) -> int | None:
        return _murmur(value.encode("utf-16-le")) if type_ == "string" else None


class TruncateTowardZero(_Broken):
    """truncate[W] of int, long and decimal as ``v - v % W`` with a truncating remainder: a
    negative value rounds up toward zero (the spec: the remainder must be positive)."""

    name: ClassVar[str] = "broken-truncate-toward-zero"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = _TRUNCATE.fullmatch(transform)
        if m is None or value is None or type_ not in ("int", "long") and not str(type_).startswith("decimal"):
            return super().transform(transform, type_, value)
        w = int(m.group(1))
        if type_ in ("int", "long"):
            return _toward_zero(value, w) * w
        from iceberg_conformance.reference.hashing import scaled, unscaled
        from iceberg_conformance.reference.types import parse_type
        from iceberg_conformance.reference.values import to_json

        t = parse_type(type_)
        return to_json(t, scaled(_toward_zero(unscaled(_python(type_, value)), w) * w, t.scale))


class TruncateUtf16Units(_Broken):
    """truncate[W] of a string keeps W UTF-16 code units (a JVM ``substring``), dropping a pair
    it would split: a non-BMP character counts twice (the spec: W code points)."""

    name: ClassVar[str] = "broken-truncate-utf16"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = _TRUNCATE.fullmatch(transform)
        if m is None or type_ != "string" or value is None:
            return super().transform(transform, type_, value)
        units = value.encode("utf-16-le", "surrogatepass")[:2 * int(m.group(1))]
        return units.decode("utf-16-le", "ignore")


class TimeTransformsTowardZero(_Broken):
    """year, month, day and hour of a timestamp from a division toward zero: a pre-1970 value
    lands in the next hour, day, month or year (the spec: whole units from the epoch, floored)."""

    name: ClassVar[str] = "broken-time-transforms-toward-zero"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        timestamps = ("timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns")
        if transform not in ("year", "month", "day", "hour") or type_ not in timestamps or value is None:
            return super().transform(transform, type_, value)
        per_second = 10**9 if type_.endswith("_ns") else 10**6
        v = _python(type_, value)
        if transform == "hour":
            return _toward_zero(v, 3600 * per_second)
        days = _toward_zero(v, 86400 * per_second)
        if transform == "day":
            return days
        d = dt.date(1970, 1, 1) + dt.timedelta(days=days)
        return d.year - 1970 if transform == "year" else (d.year - 1970) * 12 + d.month - 1


class TimeWrittenAsMillis(_Broken):
    """time written to bytes truncated to whole milliseconds (an Avro ``time-millis`` habit):
    the microseconds are lost."""

    name: ClassVar[str] = "broken-time-bytes-millis"

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        if type_ == "time" and value is not None:
            return struct.pack("<q", _python(type_, value) // 1000 * 1000)
        return bytes(super().to_bytes(type_, value))


class LittleEndianDecimalBytes(_Broken):
    """decimal single values written and read as little-endian two's complement, both ways
    (Appendix D: big-endian)."""

    name: ClassVar[str] = "broken-decimal-little-endian"

    def to_bytes(self, type_: Any, value: Any) -> bytes:
        data = bytes(super().to_bytes(type_, value))
        return data[::-1] if str(type_).startswith("decimal") else data

    def from_bytes(self, type_: Any, data: bytes) -> Any:
        return super().from_bytes(type_, data[::-1] if str(type_).startswith("decimal") else data)


#: the classic value bugs: target class name -> (the property of suites/test_properties.py that
#: must catch it on its own, the type kind its falsifying example has)
VALUE_BUGS: dict[str, tuple[str, str]] = {
    "SignedModuloBucket": ("test_bucket_in_range", ""),
    "LittleEndianUuid": ("test_binary_agrees_with_reference", "uuid"),
    "LittleEndianUuidBucket": ("test_bucket_is_the_hash_modulo_n", "uuid"),
    "IntHashedAsFourBytes": ("test_hash_int_long_and_float_double_agree", "int"),
    "DateTimeHashedAsText": ("test_hash_agrees_with_reference", "date"),
    "NanosNotFlooredForHash": ("test_hash_agrees_with_reference", "timestamp"),
    "FloatHashRawBits": ("test_hash_agrees_with_reference", "float"),
    "DecimalHashPaddedBytes": ("test_hash_agrees_with_reference", "decimal"),
    "DecimalHashIgnoresScale": ("test_hash_agrees_with_reference", "decimal"),
    "StringHashUtf16": ("test_hash_agrees_with_reference", "string"),
    "TruncateTowardZero": ("test_truncate_is_a_floor", ""),
    "TruncateUtf16Units": ("test_transforms_agree_with_reference", "string"),
    "TimeTransformsTowardZero": ("test_transforms_agree_with_reference", "timestamp"),
    "TimeWrittenAsMillis": ("test_binary_round_trip", "time"),
    "LittleEndianDecimalBytes": ("test_binary_agrees_with_reference", "decimal"),
}
