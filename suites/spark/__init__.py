"""The Spark lane: Iceberg Java 1.10.2 through a local Spark 3.5 session.

* :mod:`suites.spark.session` starts one offline Spark session with the Iceberg runtime jar
  (from the ``snowpark-connect-deps-iceberg`` wheel) and the kit's small Java oracle helper.
* :mod:`suites.spark.golden` / :mod:`suites.spark.tables` / :mod:`suites.spark.generate`
  write golden tables with Spark SQL and their expected contents per snapshot.
* :mod:`suites.spark.distributed` runs per-unit table checks as Spark tasks.
"""
