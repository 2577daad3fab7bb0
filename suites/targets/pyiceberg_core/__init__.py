"""The ``pyiceberg-core`` target: iceberg-rust through its Python bindings (pin: 0.11).

``pyiceberg-core`` exposes iceberg-rust's partition transforms over Arrow arrays
(``pyiceberg_core.transform``) and manifest reading. One mixin per area in this package; the
target class lists them. Known failures are data: ``known-failures*.json`` in this package
(reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets.pyiceberg_core.transforms import TransformsMixin


class _PyIcebergCoreBase:
    reports_rules = False

    @property
    def version(self) -> str:
        from importlib.metadata import version

        return str(version("pyiceberg-core"))


class PyIcebergCoreTarget(
        _PyIcebergCoreBase, TransformsMixin,
):
    """The ``pyiceberg-core`` target: one mixin per area of this package."""

    name = "pyiceberg-core"
    capabilities = frozenset().union(*(m.CAPABILITIES for m in (
        TransformsMixin,
    )))
