"""Java target: capability ``hash`` (Appendix B) through the bucket transform's own hash.

Iceberg Java hashes with the ``hash`` method of the bucket transform it would bind to the
type (``Transforms.bucket(type, n)``), so the suites see what Java writes partitions with;
float and double (no bucket transform) go through ``BucketUtil.hash``.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import HASH
from iceberg_conformance.suites.targets.java._oracle import call


class HashingMixin:
    CAPABILITIES = frozenset({HASH})

    def hash(self, type_: Any, value: Any) -> int:
        return int(call("hash", type=type_, value=value))
