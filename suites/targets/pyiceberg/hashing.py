"""pyiceberg target: capability ``hash``.

PyIceberg exposes the Appendix B hash through ``BucketTransform.transform(source,
bucket=False)``, for the bucket source types only; the hash of boolean, float and double
(defined by Appendix B, but not bucket sources) is UNSUPPORTED.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import HASH, Unsupported
from iceberg_conformance.suites.targets.pyiceberg._convert import InputConversionError, iceberg_type, to_native


class HashingMixin:
    CAPABILITIES = frozenset({HASH})

    def hash(self, type_: Any, value: Any) -> int:
        from pyiceberg.transforms import BucketTransform

        try:
            source = iceberg_type(type_)
        except InputConversionError as e:
            raise Unsupported(f"pyiceberg has no type {type_!r}") from e
        bucket = BucketTransform(1)
        if not bucket.can_transform(source):
            raise Unsupported(f"pyiceberg hashes bucket source types only, not {source}")
        return int(bucket.transform(source, bucket=False)(to_native(type_, value)))
