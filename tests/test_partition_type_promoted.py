"""``manifests.partition-type`` after the source column of an identity partition is promoted.

"Schema Evolution" allows int -> long on a partition source when the transform gives the same
value (identity does). Iceberg Java keeps the manifests written before the promotion as they
are: their partition field is still an int, while the current schema's transform result is a
long. The checker accepts a written type that promotes to the expected one (int -> long, float
-> double, a wider decimal) and still reports one that does not.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"},
          {"id": 2, "name": "grp", "required": False, "type": "int"}]
SPEC = [{"name": "grp", "transform": "identity", "source-id": 2, "field-id": 1000}]


def _promoted(location: Path, to: str) -> str:
    """A v2 table partitioned by identity(grp) with one append while grp was an int; then the
    current schema (id 1) gives grp the type ``to``."""
    b = TableBuilder(str(location), 2, FIELDS, [SPEC])
    b.append([{"id": 0, "grp": 1}, {"id": 1, "grp": 2}])
    md = Path(b.metadata_path())
    doc = json.loads(md.read_text(encoding="utf-8"))
    schema = copy.deepcopy(doc["schemas"][-1])
    schema["schema-id"] = 1
    schema["fields"][1]["type"] = to
    doc["schemas"].append(schema)
    doc["current-schema-id"] = 1
    md.write_text(json.dumps(doc), encoding="utf-8")
    return str(md)


def _errors(md: str) -> set[str]:
    return {f.rule for f in check_table(md).findings if f.severity == "error"}


def test_manifests_written_before_int_to_long_pass(tmp_path: Path) -> None:
    assert _errors(_promoted(tmp_path / "t", "long")) == set()


def test_a_type_the_written_one_does_not_promote_to_is_reported(tmp_path: Path) -> None:
    assert "manifests.partition-type" in _errors(_promoted(tmp_path / "t", "string"))
