"""``python -m iceberg_conformance.suites`` is ``iceberg-conformance``."""

from iceberg_conformance.suites.cli import entry

entry()
