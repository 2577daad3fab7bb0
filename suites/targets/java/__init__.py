"""The ``java`` target: Apache Iceberg Java 1.10.2, reached through a local Spark session's JVM.

Calls go through the kit's small Java helper (``suites/spark/java/ConformanceOracle.java``,
compiled at first use against the Iceberg runtime jar): every argument and result crosses
py4j as a JSON string, so Java builds its own typed values (``SingleValueParser.fromJson``)
and py4j's number boxing never changes a long into an int. One Spark session per process,
started on the first call and stopped at exit (:mod:`suites.spark.session`).

One mixin per area in this package, assembled by :func:`suites.targets._compose.compose`.
Known failures are data: ``known-failures*.json`` in this package (reason and link each).
"""

from __future__ import annotations

from iceberg_conformance.suites.targets._compose import compose
from iceberg_conformance.suites.targets.java._oracle import java_version


class _JavaBase:
    reports_rules = False

    @property
    def version(self) -> str:
        return java_version()


JavaTarget = compose(__name__, "JavaTarget", _JavaBase, target_name="java")
