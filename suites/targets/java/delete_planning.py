"""Java target: capability ``delete-planning`` through ``org.apache.iceberg.DeleteFileIndex``.

The index is package-private in Iceberg Java 1.10: the helper reaches
``DeleteFileIndex.builderFor(Iterable<DeleteFile>)``, ``specsById`` and
``forDataFile(DataFile)`` by reflection, with delete files built by
``FileMetadata.deleteFileBuilder`` and the data file by ``DataFiles.builder``; their data and
file sequence numbers (and a delete file's ``sort_order_id``) are set as a manifest read sets
them, and Java plans with the data file's own data sequence number (as ``forEntry`` does).
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.suites.api import DELETE_PLANNING
from iceberg_conformance.suites.targets.java._oracle import call


class DeletePlanningMixin:
    CAPABILITIES = frozenset({DELETE_PLANNING})

    def applicable_deletes(self, schema: Any, specs: Any, data_file: Any, delete_files: Any) -> list[str]:
        return list(call("delete_planning", schema=schema, specs=specs, data_file=data_file, delete_files=delete_files))
