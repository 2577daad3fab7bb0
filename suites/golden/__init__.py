"""The golden tables: tables written by real producers, with their expected rows per snapshot.

* :mod:`.registry` - the registry of small generators (``@golden_table``), the Spark table
  writer and the expected-rows file each table gets;
* :mod:`.spark_tables` - tables Iceberg Java writes through Spark SQL;
* :mod:`.producers` - tables PyIceberg's writer and the kit's reference writer write;
* :mod:`.trap_tables` - the trap tables (``trap_*``, Spark's and the reference writer's): the
  grid of transforms x source types x boundary values the filters of ``trap-filters.json`` hit;
* :mod:`.generate` - ``python -m iceberg_conformance.suites.golden.generate --out DIR``.

Importing this package registers every table, Spark's first, the trap tables last (the
registry's order is the order the tables are generated and reported in).
"""

from iceberg_conformance.suites.golden import spark_tables  # noqa: F401  (registration: Spark's tables first)
from iceberg_conformance.suites.golden import producers  # noqa: F401, I001  (then the other producers')
from iceberg_conformance.suites.golden import trap_tables  # noqa: F401, I001  (the trap tables last)
