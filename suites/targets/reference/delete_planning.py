"""Reference target: capability ``delete-planning`` (the delete files that apply to a data file)."""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference.delete_planning import applicable
from iceberg_conformance.suites.api import DELETE_PLANNING
from iceberg_conformance.suites.targets.reference._common import rejecting


class DeletePlanningMixin:
    CAPABILITIES = frozenset({DELETE_PLANNING})

    def applicable_deletes(self, schema: Any, specs: Any, data_file: Any, delete_files: Any) -> list[str]:
        with rejecting():
            return applicable(data_file, delete_files, specs)
