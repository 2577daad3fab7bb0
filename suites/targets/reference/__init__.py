"""The ``reference`` target: this kit's own reference implementation (``reference/``).

One mixin per area in this package (``hashing.py``, ...); the target class lists them.
Rejections carry the reference's rule id, so the suites also check that the reference rejects
invalid input for the rule the vector names.
"""

from __future__ import annotations

from iceberg_conformance.suites.targets.reference.avro_schema import AvroSchemaMixin
from iceberg_conformance.suites.targets.reference.binary import BinaryMixin
from iceberg_conformance.suites.targets.reference.bounds import BoundMixin
from iceberg_conformance.suites.targets.reference.delete_planning import DeletePlanningMixin
from iceberg_conformance.suites.targets.reference.evolution import EvolutionMixin
from iceberg_conformance.suites.targets.reference.expressions import ExpressionsMixin
from iceberg_conformance.suites.targets.reference.hashing import HashingMixin
from iceberg_conformance.suites.targets.reference.manifests import ManifestsMixin
from iceberg_conformance.suites.targets.reference.metadata import MetadataMixin
from iceberg_conformance.suites.targets.reference.partitioning import PartitionSpecJsonMixin
from iceberg_conformance.suites.targets.reference.puffin import PuffinMixin
from iceberg_conformance.suites.targets.reference.residuals import ResidualMixin
from iceberg_conformance.suites.targets.reference.scan import TableScanMixin
from iceberg_conformance.suites.targets.reference.schema import SchemaJsonMixin
from iceberg_conformance.suites.targets.reference.transforms import TransformsMixin
from iceberg_conformance.suites.targets.reference.values import ValueJsonMixin


class _ReferenceBase:
    reports_rules = True

    @property
    def version(self) -> str:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("iceberg-conformance")
        except PackageNotFoundError:
            return "source"


class ReferenceTarget(
        _ReferenceBase, AvroSchemaMixin, BinaryMixin, BoundMixin, DeletePlanningMixin, EvolutionMixin,
        ExpressionsMixin, HashingMixin, ManifestsMixin, MetadataMixin, PartitionSpecJsonMixin,
        PuffinMixin, ResidualMixin, TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
):
    """The ``reference`` target: one mixin per area of this package."""

    name = "reference"
    capabilities = frozenset().union(*(m.CAPABILITIES for m in (
        AvroSchemaMixin, BinaryMixin, BoundMixin, DeletePlanningMixin, EvolutionMixin, ExpressionsMixin,
        HashingMixin, ManifestsMixin, MetadataMixin, PartitionSpecJsonMixin, PuffinMixin, ResidualMixin,
        TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
    )))
