"""Row-lineage rules on a table with EXISTING entries and manifests carried between snapshots.

``ref_v3_row_lineage`` (the reference writer's golden table, no JVM needed: three appends, then
a copy-on-write rewrite that leaves EXISTING and DELETED entries) is damaged once per
row-lineage rule; the checker reports each copy's rule and no other error rule than the
consequences the damage case declares, and nothing on the pristine copy. The rewrite's data
file writes non-null ``_row_id`` (kept) and ``_last_updated_sequence_number`` (copied) values in
an ``overwrite`` snapshot, which the rules on appended files leave alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .damage_assert import assert_damage_reported

RULES = ["manifests.first-row-id-changed", "snapshot.manifest-first-row-id-kept", "metadata.row-lineage",
         "data.added-row-id-null", "data.added-last-updated-null"]


@pytest.fixture(scope="module")
def lineage_table(tmp_path_factory: pytest.TempPathFactory) -> str:
    from iceberg_conformance.suites.golden import registry as golden
    from iceberg_conformance.suites.golden.generate import generate

    out = tmp_path_factory.mktemp("lineage")
    summary = generate(out, ["ref_v3_row_lineage"])
    if "ref_v3_row_lineage" in summary.get("skipped", {}):
        pytest.skip(summary["skipped"]["ref_v3_row_lineage"])
    assert "ref_v3_row_lineage" in golden.REGISTRY
    return str(out / "warehouse" / "db" / "ref_v3_row_lineage")


@pytest.mark.parametrize("rule", RULES)
def test_row_lineage_damage_is_reported(lineage_table: str, tmp_path: Path, rule: str) -> None:
    assert_damage_reported(lineage_table, tmp_path / "damaged", rule)


def test_rewritten_rows_keep_lineage_unreported(lineage_table: str) -> None:
    """Non-null lineage values in a file ADDED by an ``overwrite`` (rows moved by a rewrite) are
    not reported: only files ADDED by ``append`` snapshots hold new rows only."""
    import json

    import pyarrow.parquet as pq

    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.checker.find import latest_metadata, local_path
    from iceberg_conformance.checker.plan import live_entries
    from iceberg_conformance.checker.run import CheckRun

    md = latest_metadata(lineage_table)
    assert md is not None
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    last = doc["snapshots"][-1]
    assert last["summary"]["operation"] == "overwrite"
    moved = [e["data_file"]["file_path"] for _mf, e, _i in live_entries(CheckRun(md), last)
             if e["status"] == 1 and e["snapshot_id"] == last["snapshot-id"]]
    assert len(moved) == 1
    kept = pq.read_table(local_path(moved[0]) or moved[0]).column("_row_id").to_pylist()
    assert kept and None not in kept  # the premise: the rewrite writes the rows' ids
    result = check_table(md)
    assert result.units > len(doc["snapshots"])  # the data files were checked
    assert [f for f in result.findings if f.severity == "error"] == []
