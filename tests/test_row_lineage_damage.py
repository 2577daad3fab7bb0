"""Row-lineage rules on a table with EXISTING entries and manifests carried between snapshots.

``ref_v3_row_lineage`` (the reference writer's golden table, no JVM needed: three appends, then
a copy-on-write rewrite that leaves EXISTING and DELETED entries) is damaged once per
row-lineage rule; the checker reports each copy's rule and no other error rule than the
consequences the damage case declares, and nothing on the pristine copy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

RULES = ["manifests.first-row-id-changed", "snapshot.manifest-first-row-id-kept", "metadata.row-lineage"]


@pytest.fixture(scope="module")
def lineage_table(tmp_path_factory: pytest.TempPathFactory) -> str:
    from iceberg_conformance.suites.spark import golden
    from iceberg_conformance.suites.spark import producers as _producers  # noqa: F401  (registers it)
    from iceberg_conformance.suites.spark.generate import generate

    out = tmp_path_factory.mktemp("lineage")
    summary = generate(out, ["ref_v3_row_lineage"])
    if "ref_v3_row_lineage" in summary.get("skipped", {}):
        pytest.skip(summary["skipped"]["ref_v3_row_lineage"])
    assert "ref_v3_row_lineage" in golden.REGISTRY
    return str(out / "warehouse" / "db" / "ref_v3_row_lineage")


@pytest.mark.parametrize("rule", RULES)
def test_row_lineage_damage_is_reported(lineage_table: str, tmp_path: Path, rule: str) -> None:
    from iceberg_conformance.checker.damage import self_test, write_damaged

    pristine, copies, skipped = write_damaged(lineage_table, str(tmp_path / "damaged"), rules=[rule])
    assert rule not in skipped and copies, f"{rule}: no victim in ref_v3_row_lineage"
    control, verdicts = self_test(str(tmp_path / "damaged"), copies, pristine)
    assert control == []
    for v in verdicts:
        assert v.reported, f"MISSED {v.copy.rule}: {v.copy.where} -> {v.error_rules}"
        assert not v.extra_errors, f"NOISY {v.copy.rule}: {v.copy.where} -> {v.extra_errors}"
