"""The ``pyiceberg`` target: Apache PyIceberg (pin: 0.12), the Python implementation.

One mixin per area in this package, assembled by :func:`suites.targets._compose.compose`.
Known failures are data: ``known-failures*.json`` in this package (reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets._compose import compose


class _PyIcebergBase:
    reports_rules = False

    @property
    def version(self) -> str:
        import pyiceberg

        return str(pyiceberg.__version__)


PyIcebergTarget = compose(__name__, "PyIcebergTarget", _PyIcebergBase, target_name="pyiceberg")
