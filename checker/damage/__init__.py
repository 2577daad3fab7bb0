"""Single-violation copies of a valid table: the checker's mutation self-test.

``iceberg-conformance damage TABLE OUT [--rule R]`` writes, for every damage case that can be
applied to TABLE, a copy of the table in which exactly one recorded fact is wrong
(:mod:`.overlay`), and ``OUT/damage.json`` listing each copy with the rule the checker must
report (:mod:`.selftest`). The cases are registered in :mod:`.registry`, one module per area
(:mod:`.metadata`, :mod:`.manifest_list`, :mod:`.manifest`, :mod:`.data_file`,
:mod:`.delete_file`, :mod:`.puffin`); importing this package registers them all, area by area, then
the cases that write the metadata, manifests, data files and delete files of bugs implementations
shipped (:mod:`.shipped_metadata`, :mod:`.shipped_files`).
"""

from iceberg_conformance.checker.damage import metadata  # noqa: F401  (registration, in area order)
from iceberg_conformance.checker.damage import manifest_list  # noqa: F401, I001
from iceberg_conformance.checker.damage import manifest  # noqa: F401, I001
from iceberg_conformance.checker.damage import data_file  # noqa: F401, I001
from iceberg_conformance.checker.damage import delete_file  # noqa: F401, I001
from iceberg_conformance.checker.damage import puffin  # noqa: F401, I001
from iceberg_conformance.checker.damage import shipped_metadata  # noqa: F401, I001  (bugs that shipped)
from iceberg_conformance.checker.damage import shipped_files  # noqa: F401, I001
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import DAMAGES, Damage
from iceberg_conformance.checker.damage.selftest import (
    AREAS, Copy, Verdict, recall_by_area, render, self_test, write_damaged,
)

__all__ = ["AREAS", "DAMAGES", "Copy", "Damage", "Overlay", "Verdict", "recall_by_area", "render", "self_test",
           "write_damaged"]
