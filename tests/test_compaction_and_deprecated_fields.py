"""Two shapes of old tables the reference writer writes for the traps of the bug corpus.

* A v2 compaction that keeps the replaced file's data sequence number (``TableBuilder.compact``):
  the new file's manifest entry states sequence_number 1 while the commit's (its file sequence
  number) is 2. After the upgrade to v3 and an append, "Replace any null or missing
  `_last_updated_sequence_number` to the data file's `data_sequence_number`" (Appendix E) makes
  the compacted rows' value 1, not 2 (Iceberg Java before apache/iceberg#17039 read 2).
* Data manifests that also carry the deprecated data_file fields 106, 107 and 111
  (``deprecated_fields``): "Deprecated. Do not write.", a warning of the checker
  (``manifests.deprecated-field``), not an error; a reader reads the rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastavro

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.reference.scan import scan
from iceberg_conformance.reference.writer import TableBuilder

FIELDS = [{"id": 1, "name": "id", "required": True, "type": "long"},
          {"id": 2, "name": "data", "required": False, "type": "string"}]
ROWS = [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]


def _entries(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        return [r for r in fastavro.reader(f) if isinstance(r, dict)]


def test_compaction_keeps_the_data_sequence_number_and_lineage_inherits_it(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path / "t"), 2, FIELDS, bounds=True)
    b.append(ROWS)
    old = next(iter(b.data_files))
    b.compact(old)
    rewritten = b.manifests[0]["manifest_path"]
    by_status = {e["status"]: e for e in _entries(rewritten)}
    assert by_status[2]["data_file"]["file_path"] == old and by_status[2]["snapshot_id"] == 1002
    assert by_status[1]["sequence_number"] == 1 and by_status[1]["file_sequence_number"] is None
    assert b.manifests[0]["sequence_number"] == 2 and b.manifests[0]["min_sequence_number"] == 1
    b.upgrade(3)
    b.append([{"id": 3, "data": "c"}])
    md = b.metadata_path()
    assert [f for f in check_table(md).findings if f.severity == "error"] == []
    got = {r["id"]: (r["_row_id"], r["_last_updated_sequence_number"]) for r in scan(md, 1003, lineage=True)}
    # the append's own manifest takes row id 0, then the compacted file's manifest ids 1, 2
    assert got == {3: (0, 3), 1: (1, 1), 2: (2, 1)}


def test_compaction_is_a_v2_operation(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path / "t"), 3, FIELDS)
    b.append(ROWS)
    try:
        b.compact(next(iter(b.data_files)))
    except ValueError as e:
        assert "v2" in str(e)
    else:
        raise AssertionError("a v3 compaction must carry row lineage (rewrite)")


def test_deprecated_data_file_fields_are_a_warning_and_the_rows_read(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path / "t"), 2, FIELDS, bounds=True, deprecated_fields=True)
    b.append(ROWS)
    md = b.metadata_path()
    with open(b.manifests[0]["manifest_path"], "rb") as f:
        schema = fastavro.reader(f).writer_schema
    assert isinstance(schema, dict)
    data_file = next(fl for fl in schema["fields"] if fl["name"] == "data_file")["type"]
    ids = {fl["name"]: fl.get("field-id") for fl in data_file["fields"]}
    assert (ids["file_ordinal"], ids["sort_columns"], ids["distinct_counts"]) == (106, 107, 111)
    findings = check_table(md).findings
    assert [f for f in findings if f.severity == "error"] == []
    assert any(f.rule == "manifests.deprecated-field" for f in findings)
    assert sorted(r["id"] for r in scan(md, 1001)) == [1, 2]
