"""Writers of Iceberg tables, driven by op-logs (``vectors/oplogs/*.json``), and their judging.

* :mod:`.oplogs` - the op-logs: load, validate, the operations each needs, the rows each step
  leaves (replayed from the op-log's own semantics);
* :mod:`.registry` - every writer behind one registry (``WRITERS``): what it declares it can do
  (operations, delete strategies, format versions) and how it runs an op-log (in this process,
  or a driver in the writer's own environment as a subprocess);
* :mod:`.drivers` - the drivers (no imports of the kit: they run in other environments too);
* :mod:`.judge` - a written table judged three ways (checker, rows per snapshot, relations), the
  known failures of writers (``known-failures-writers.json``) and the cell's status;
* :mod:`.report` - the writer matrix ``matrix-writers.{json,md,html}``.
"""
