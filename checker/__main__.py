"""``python -m iceberg_conformance.checker`` is ``iceberg-conformance check``."""

from iceberg_conformance.cli import check_entry

check_entry()
