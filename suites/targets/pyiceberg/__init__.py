"""The ``pyiceberg`` target: Apache PyIceberg (pin: 0.12), the Python implementation.

One mixin per area in this package; the target class lists them. Known failures are data:
``known-failures*.json`` in this package (reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets.pyiceberg.avro_schema import AvroSchemaMixin
from iceberg_conformance.suites.targets.pyiceberg.binary import BinaryMixin
from iceberg_conformance.suites.targets.pyiceberg.delete_planning import DeletePlanningMixin
from iceberg_conformance.suites.targets.pyiceberg.expressions import ExpressionsMixin
from iceberg_conformance.suites.targets.pyiceberg.hashing import HashingMixin
from iceberg_conformance.suites.targets.pyiceberg.manifests import ManifestsMixin
from iceberg_conformance.suites.targets.pyiceberg.metadata import MetadataMixin
from iceberg_conformance.suites.targets.pyiceberg.partitioning import PartitionSpecJsonMixin
from iceberg_conformance.suites.targets.pyiceberg.puffin import PuffinMixin
from iceberg_conformance.suites.targets.pyiceberg.residuals import ResidualMixin
from iceberg_conformance.suites.targets.pyiceberg.scan import TableScanMixin
from iceberg_conformance.suites.targets.pyiceberg.schema import SchemaJsonMixin
from iceberg_conformance.suites.targets.pyiceberg.transforms import TransformsMixin
from iceberg_conformance.suites.targets.pyiceberg.values import ValueJsonMixin


class _PyIcebergBase:
    reports_rules = False

    @property
    def version(self) -> str:
        import pyiceberg

        return str(pyiceberg.__version__)


class PyIcebergTarget(
        _PyIcebergBase, AvroSchemaMixin, BinaryMixin, DeletePlanningMixin, ExpressionsMixin,
        HashingMixin, ManifestsMixin, MetadataMixin, PartitionSpecJsonMixin, PuffinMixin, ResidualMixin,
        TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
):
    """The ``pyiceberg`` target: one mixin per area of this package."""

    name = "pyiceberg"
    capabilities = frozenset().union(*(m.CAPABILITIES for m in (
        AvroSchemaMixin, BinaryMixin, DeletePlanningMixin, ExpressionsMixin, HashingMixin,
        ManifestsMixin, MetadataMixin, PartitionSpecJsonMixin, PuffinMixin, ResidualMixin,
        TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
    )))
