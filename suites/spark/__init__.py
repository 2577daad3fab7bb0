"""Iceberg Java 1.10.2 through a local Spark 3.5 session, offline.

* :mod:`.session` starts one offline Spark session with the Iceberg runtime jar (from the
  ``snowpark-connect-deps-iceberg`` wheel) and the kit's small Java oracle helper (``java/``);
* :mod:`.distributed` runs the table checker's units as Spark tasks.

The golden tables Spark writes are in :mod:`iceberg_conformance.suites.golden`.
"""
