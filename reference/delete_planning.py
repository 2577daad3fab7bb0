"""Which delete files apply to a data file.

Spec section: "Scan Planning" (the rules after "Delete files that match the query filter must
be applied to data files at read time, limited by the scope of the delete file using the
following rules."), with deletion vectors of format v3 ("Deletion Vectors").

* An **equality** delete file (``content`` 2) applies when the data file's data sequence number
  is strictly less than the delete file's, and the partitions are equal (spec id and values)
  or the delete file's spec is unpartitioned (a global delete).
* A **deletion vector** (``content`` 1 in a ``puffin`` file) applies when its
  ``referenced_data_file`` is the data file's ``file_path``, the data file's data sequence
  number is less than or equal to the vector's, and the partitions are equal.
* A **position delete file** (``content`` 1, other formats) applies when its
  ``referenced_data_file``, if set, is the data file's path, the data file's data sequence
  number is less than or equal to the delete file's, the partitions are equal, and no deletion
  vector applies to the data file.

Partition values compare by their JSON single-value form (``null`` equals ``null``).
:func:`applicable` returns the paths of the delete files that apply, sorted; a data file
(content 0) is required, and a delete file with another content is refused.
"""

from __future__ import annotations

from typing import Any

from .errors import SpecViolation
from .types import JSON

CLAUSE = "Scan Planning"
DATA, POSITION_DELETES, EQUALITY_DELETES = 0, 1, 2


def _err(rule: str, message: str) -> SpecViolation:
    return SpecViolation(rule, message, clause=CLAUSE)


def _same_partition(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(a["spec_id"] == b["spec_id"] and (a.get("partition") or {}) == (b.get("partition") or {}))


def _is_dv(f: dict[str, Any]) -> bool:
    return f.get("content") == POSITION_DELETES and str(f.get("file_format", "")).lower() == "puffin"


def applicable(data_file: JSON, delete_files: JSON, specs: JSON) -> list[str]:
    """The paths of the delete files of ``delete_files`` that apply to ``data_file`` (each
    with ``file_path``, ``content``, ``data_sequence_number``, ``spec_id``, ``partition``
    keyed by partition field id; delete files with ``file_format`` and, where set,
    ``referenced_data_file``); ``specs`` lists the partition specs by ``spec-id``."""
    if not isinstance(data_file, dict) or data_file.get("content", DATA) != DATA:
        raise _err("scan.delete-planning-input", "the file to plan for must be a data file (content 0)")
    if not isinstance(delete_files, list) or not isinstance(specs, list):
        raise _err("scan.delete-planning-input", "delete_files and specs are lists")
    unpartitioned = {s["spec-id"] for s in specs if not s.get("fields")}
    seq = int(data_file["data_sequence_number"])
    path = data_file["file_path"]
    dvs, positions, equalities = [], [], []
    for d in delete_files:
        content = d.get("content")
        if content not in (POSITION_DELETES, EQUALITY_DELETES):
            raise _err("scan.delete-planning-input", f"{d.get('file_path')}: content {content} is no delete file")
        dseq = int(d["data_sequence_number"])
        if content == EQUALITY_DELETES:
            if seq < dseq and (_same_partition(data_file, d) or d["spec_id"] in unpartitioned):
                equalities.append(d["file_path"])
        elif _is_dv(d):
            if d.get("referenced_data_file") == path and seq <= dseq and _same_partition(data_file, d):
                dvs.append(d["file_path"])
        else:
            ref = d.get("referenced_data_file")
            if (ref is None or ref == path) and seq <= dseq and _same_partition(data_file, d):
                positions.append(d["file_path"])
    return sorted(dvs + equalities + ([] if dvs else positions))
