"""Table checker: is a table on disk (metadata, manifests, data and delete files) what the
Iceberg spec says it must be?

    python -m iceberg_conformance.checker PATH [--json] [--fail-on error|warning]

``PATH`` is a metadata file, a table directory or a warehouse. The work is split into
picklable units (:func:`plan_units`, :func:`run_unit`) so an engine can run them in parallel.
"""

from iceberg_conformance.checker.table import Unit, check_table, find_tables, plan_units, run_unit

__all__ = ["Unit", "check_table", "find_tables", "plan_units", "run_unit"]
