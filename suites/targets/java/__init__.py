"""The ``java`` target: Apache Iceberg Java 1.10.2, reached through a local Spark session's JVM.

Calls go through the kit's small Java helper (``suites/spark/java/ConformanceOracle.java``,
compiled at first use against the Iceberg runtime jar): every argument and result crosses py4j
as a JSON string, so Java builds its own typed values (``SingleValueParser.fromJson``) and
py4j's number boxing never changes a long into an int. One Spark session per process, started on
the first call and stopped at exit (:mod:`suites.spark.session`).

One mixin per area in this package; the target class lists them. Known failures are data:
``known-failures*.json`` in this package (reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets.java.avro_schema import AvroSchemaMixin
from iceberg_conformance.suites.targets.java.binary import BinaryMixin
from iceberg_conformance.suites.targets.java.delete_planning import DeletePlanningMixin
from iceberg_conformance.suites.targets.java.expressions import ExpressionsMixin
from iceberg_conformance.suites.targets.java.hashing import HashingMixin
from iceberg_conformance.suites.targets.java.metadata import MetadataMixin
from iceberg_conformance.suites.targets.java.residuals import ResidualMixin
from iceberg_conformance.suites.targets.java.scan import TableScanMixin
from iceberg_conformance.suites.targets.java.schema_json import SchemaJsonMixin
from iceberg_conformance.suites.targets.java.transforms import TransformsMixin
from iceberg_conformance.suites.targets.java.value_json import ValueJsonMixin
from iceberg_conformance.suites.targets.java._oracle import java_version


class _JavaBase:
    reports_rules = False

    @property
    def version(self) -> str:
        return java_version()


class JavaTarget(
        _JavaBase, AvroSchemaMixin, BinaryMixin, DeletePlanningMixin, ExpressionsMixin, HashingMixin,
        MetadataMixin, ResidualMixin, TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
):
    """The ``java`` target: one mixin per area of this package."""

    name = "java"
    capabilities = frozenset().union(*(m.CAPABILITIES for m in (
        AvroSchemaMixin, BinaryMixin, DeletePlanningMixin, ExpressionsMixin, HashingMixin,
        MetadataMixin, ResidualMixin, TableScanMixin, SchemaJsonMixin, TransformsMixin, ValueJsonMixin,
    )))
