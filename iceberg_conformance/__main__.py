"""``python -m iceberg_conformance`` is ``iceberg-conformance``."""

from iceberg_conformance.cli import entry

entry()
