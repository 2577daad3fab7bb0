"""The golden tables: tables written by real producers, with their expected rows per snapshot.

* :mod:`.registry` - the registry of small generators (``@golden_table``), the Spark table
  writer and the expected-rows file each table gets;
* :mod:`.spark_tables` - tables Iceberg Java writes through Spark SQL;
* :mod:`.producers` - tables PyIceberg's writer and the kit's reference writer write;
* :mod:`.generate` - ``python -m iceberg_conformance.suites.golden.generate --out DIR``.

Importing this package registers every table, Spark's first (the registry's order is the order
the tables are generated and reported in).
"""

from iceberg_conformance.suites.golden import spark_tables  # noqa: F401  (registration: Spark's tables first)
from iceberg_conformance.suites.golden import producers  # noqa: F401, I001  (then the other producers')
