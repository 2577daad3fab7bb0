"""The ``reference`` target: this kit's own reference implementation (``reference/``).

One mixin per area in this package (``hashing.py``, ...), assembled by
:func:`suites.targets._compose.compose`. Rejections carry the reference's rule id, so the
suites also check that the reference rejects invalid input for the rule the vector names.
"""

from __future__ import annotations

from iceberg_conformance.suites.targets._compose import compose


class _ReferenceBase:
    reports_rules = True

    @property
    def version(self) -> str:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("iceberg-conformance")
        except PackageNotFoundError:
            return "source"


ReferenceTarget = compose(__name__, "ReferenceTarget", _ReferenceBase, target_name="reference")
