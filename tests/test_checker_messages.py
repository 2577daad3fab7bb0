"""The checker's messages as a user reads them: the root first with its consequences counted
(a format version that is not an integer, under which the rest of the table was judged as v1),
no summary-totals warning computed from a manifest that could not be read, a truncated Parquet
file described in the kit's words (not the Parquet library's), a "what to do" line for every
rule family (text and JSON)."""

from __future__ import annotations

import glob
import json
from pathlib import Path

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.report import WHAT_TO_DO, group, render_text, to_json
from iceberg_conformance.reference.rules import catalogue
from iceberg_conformance.suites.golden.small_tables import write_reference_table


def truncate(path: str) -> None:
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])


def edit(metadata: str, change) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads(Path(metadata).read_text())
    change(doc)
    Path(metadata).write_text(json.dumps(doc))


def test_unknown_format_version_is_the_root_of_everything_else(tmp_path: Path) -> None:
    metadata = write_reference_table(tmp_path, 2)
    edit(metadata, lambda d: d.update({"format-version": "two"}))
    result = check_table(metadata)
    errors = [f for f in result.findings if f.severity == "error"]
    assert len(errors) > 1, errors  # the manifests, judged as v1's, break v1 rules
    groups = group(result.findings)
    assert groups[0].rule == "metadata.format-version"
    assert [g.rule for g in groups] == ["metadata.format-version"]
    assert sum(groups[0].consequences.values()) == len(result.findings) - 1
    text = render_text([result])
    first = [line for line in text.splitlines() if line.startswith("  error: ")][0]
    assert "[metadata.format-version]" in first
    assert f"{len(result.findings) - 1} consequence(s) follow from this" in text


def test_no_summary_totals_from_a_manifest_that_was_not_read(tmp_path: Path) -> None:
    metadata = write_reference_table(tmp_path, 2)

    def totals(doc: dict) -> None:  # type: ignore[type-arg]
        # the writer's snapshots are appends: the totals are the sums of what each added
        assert {s["summary"]["operation"] for s in doc["snapshots"]} == {"append"}
        files = sum(int(s["summary"]["added-data-files"]) for s in doc["snapshots"])
        records = sum(int(s["summary"]["added-records"]) for s in doc["snapshots"])
        current = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
        current["summary"].update({"total-data-files": str(files), "total-records": str(records)})
    edit(metadata, totals)
    assert not [f for f in check_table(metadata).findings if f.rule == "snapshot.summary-totals"]
    manifests = sorted(p for p in glob.glob(str(Path(metadata).parent / "*.avro")) if "snap-" not in Path(p).name)
    truncate(manifests[0])
    found = check_table(metadata).findings
    assert "avro.unreadable" in {f.rule for f in found}
    assert not [f for f in found if f.rule == "snapshot.summary-totals"], [str(f) for f in found]


def test_truncated_manifest_list_quotes_the_manifest_lists_sentence(tmp_path: Path) -> None:
    metadata = write_reference_table(tmp_path, 2)
    lists = sorted(glob.glob(str(Path(metadata).parent / "snap-*.avro")))
    truncate(lists[-1])
    found = check_table(metadata).findings
    [unreadable] = [f for f in found if f.file == lists[-1]]
    assert unreadable.rule == "avro.list-unreadable", unreadable
    assert unreadable.clause == "Manifest Lists"
    assert catalogue()[unreadable.rule].quote.startswith("A manifest list is a valid Iceberg data file")
    assert "avro.unreadable" not in {f.rule for f in found}  # the manifest's sentence


def test_truncated_parquet_file_in_the_kits_words(tmp_path: Path) -> None:
    metadata = write_reference_table(tmp_path, 2)
    data = sorted(glob.glob(str(Path(metadata).parent.parent / "data" / "**" / "*.parquet"), recursive=True))
    truncate(data[-1])
    [unreadable] = [f for f in check_table(metadata).findings if f.rule == "data.unreadable"]
    assert "does not end with Parquet's magic number PAR1" in unreadable.message, unreadable.message
    assert "magic bytes not found" not in unreadable.message  # pyarrow's own sentence


def test_every_rule_family_says_what_to_do(tmp_path: Path) -> None:
    families = {rule.split(".", 1)[0] for rule in catalogue()}
    assert families <= set(WHAT_TO_DO), sorted(families - set(WHAT_TO_DO))
    metadata = write_reference_table(tmp_path, 2)
    edit(metadata, lambda d: d.update({"format-version": "two"}))
    result = check_table(metadata)
    assert f"      what to do: {WHAT_TO_DO['metadata']}" in render_text([result])
    assert to_json([result])["tables"][0]["groups"][0]["what_to_do"] == WHAT_TO_DO["metadata"]
