"""The ``pyiceberg-core`` target: iceberg-rust through its Python bindings (pin: 0.11).

``pyiceberg-core`` exposes iceberg-rust's partition transforms over Arrow arrays
(``pyiceberg_core.transform``) and manifest reading. One mixin per area in this package,
assembled by :func:`suites.targets._compose.compose`. Known failures are data:
``known-failures*.json`` in this package (reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets._compose import compose


class _PyIcebergCoreBase:
    reports_rules = False

    @property
    def version(self) -> str:
        from importlib.metadata import version

        return str(version("pyiceberg-core"))


PyIcebergCoreTarget = compose(__name__, "PyIcebergCoreTarget", _PyIcebergCoreBase,
                              target_name="pyiceberg-core")
