"""Deliberately broken targets: each repeats a bug real implementations shipped.

The suite must catch every one of them with specific, explained failures
(tests/test_broken_targets.py). They wrap the reference and break one thing each.
"""

from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar

from iceberg_conformance.suites.api import Rejected
from iceberg_conformance.suites.targets.reference import ReferenceTarget


class SignedModuloBucket(ReferenceTarget):  # type: ignore[misc,valid-type]
    """bucket[N] as ``hash % N`` with a truncating (C/Java) remainder: negative buckets."""

    name: ClassVar[str] = "broken-signed-modulo"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = re.fullmatch(r"bucket\[(\d+)\]", transform)
        if m is None or value is None:
            return super().transform(transform, type_, value)
        n, h = int(m.group(1)), self.hash(type_, value)
        return h - n * int(h / n)  # truncating division, as `%` in C and Java


class LittleEndianUuid(ReferenceTarget):  # type: ignore[misc,valid-type]
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


class CrashInsteadOfReject(ReferenceTarget):  # type: ignore[misc,valid-type]
    """Fails on invalid schemas with an unrelated exception: a crash is not a rejection."""

    name: ClassVar[str] = "broken-crash"

    def schema_json_roundtrip(self, schema: Any, format_version: int) -> Any:
        try:
            return super().schema_json_roundtrip(schema, format_version)
        except Rejected:
            raise AttributeError("'NoneType' object has no attribute 'fields'") from None


class LenientZulu(ReferenceTarget):  # type: ignore[misc,valid-type]
    """Reads a timestamptz JSON value ending in ``Z`` as UTC (a reader's leniency: the spec's
    ``+00:00`` binds the stored form; nothing says a reader must refuse ``Z``). Writes right."""

    name: ClassVar[str] = "lenient-zulu"

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        if type_ in ("timestamptz", "timestamptz_ns") and isinstance(value, str) and value.endswith("Z"):
            value = value[:-1] + "+00:00"
        return super().value_json_roundtrip(type_, value)


class ZuluWriter(ReferenceTarget):  # type: ignore[misc,valid-type]
    """Writes timestamptz JSON values with ``Z`` instead of ``+00:00``: a writer that breaks the
    spec's "must be '+00:00'"."""

    name: ClassVar[str] = "zulu-writer"

    def value_json_roundtrip(self, type_: Any, value: Any) -> Any:
        out = super().value_json_roundtrip(type_, value)
        if type_ in ("timestamptz", "timestamptz_ns") and isinstance(out, str) and out.endswith("+00:00"):
            return out[: -len("+00:00")] + "Z"
        return out


class LittleEndianUuidBucket(ReferenceTarget):  # type: ignore[misc,valid-type]
    """bucket[N] of a uuid hashes its little-endian bytes (Appendix B hashes the 16 big-endian
    bytes): caught by the hash vectors read through ``bucket[2147483647]``."""

    name: ClassVar[str] = "broken-uuid-bucket"

    def transform(self, transform: str, type_: Any, value: Any) -> Any:
        m = re.fullmatch(r"bucket\[(\d+)\]", transform)
        if m is None or type_ != "uuid" or value is None:
            return super().transform(transform, type_, value)
        import mmh3

        return (mmh3.hash(uuid.UUID(value).bytes_le) & 0x7FFFFFFF) % int(m.group(1))


class KeepsEveryPredicate(ReferenceTarget):  # type: ignore[misc,valid-type]
    """Returns the row filter itself as every partition's residual: sound (the filter agrees with
    itself on every row), never tight."""

    name: ClassVar[str] = "keeps-every-predicate"

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        return expr


class NullsFirstResidual(ReferenceTarget):  # type: ignore[misc,valid-type]
    """Decides an order comparison on a null partition value as if nulls came first (null < 5
    true), as Iceberg Java 1.10's ResidualEvaluator does: rows the filter rejects are returned."""

    name: ClassVar[str] = "nulls-first-residual"

    def residual(self, schema: Any, spec: Any, expr: Any, partition: Any, case_sensitive: bool) -> Any:
        if not partition and isinstance(expr, dict) and expr.get("type") in ("lt", "lt-eq"):
            return True
        return super().residual(schema, spec, expr, partition, case_sensitive)
