"""Table checker: is a table on disk (metadata, manifests, data and delete files) what the
Iceberg spec says it must be?

    iceberg-conformance check PATH [--json] [--fail-on error|warning]

``PATH`` is a metadata file, a table directory or a warehouse. A check is a straight line:
:mod:`.find` (tables, the current metadata file, local paths, confinement) -> :mod:`.run` (what
one check run knows and has read) -> :mod:`.plan` (the work as picklable units) ->
:mod:`.units` (one module per kind of unit) -> :mod:`.check` (running the units, here or
elsewhere) -> :mod:`.report` (findings grouped by cause, as text and JSON).
"""

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.checker")


from iceberg_conformance.checker.check import check_table, run_unit, TableResult
from iceberg_conformance.checker.find import find_tables
from iceberg_conformance.checker.plan import plan_units, Unit

__all__ = ["TableResult", "Unit", "check_table", "find_tables", "plan_units", "run_unit"]
