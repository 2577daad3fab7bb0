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
