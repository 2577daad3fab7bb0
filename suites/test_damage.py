"""The checker's mutation self-test: single-violation copies of valid tables.

For a valid table, :mod:`checker.damage` writes a pristine copy (every manifest and manifest
list rewritten, nothing changed) and one copy per damage case, each breaking one rule. The
checker must report no error on the pristine copy, report each copy's rule, and report no other
error rule than the consequences the case declares. Recall per area (metadata, manifest list,
manifest, data file, delete file, Puffin) is written to ``damage-recall.md`` and ``.json`` in
the ``--conformance-report`` directory.

Tables: those the reference writer writes (v1, v2 with position deletes, v3 with deletion
vectors), one PyIceberg writes (v2, partitioned, with a delete), and in the Spark lane the golden tables Iceberg Java wrote (``$ICEBERG_CONFORMANCE_GOLDEN``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.damage import AREAS, DAMAGES, recall_by_area, self_test, write_damaged
from iceberg_conformance.reference.writer import write_table
from iceberg_conformance.suites.golden import small_tables as t
from iceberg_conformance.suites.golden.registry import GOLDEN_ENV

pytestmark = pytest.mark.area("table-check")

#: golden tables the Spark lane damages: v1; v2 with position deletes; v3 with deletion
#: vectors (several in one Puffin file where the golden set has it) and statistics; v3 primitives
GOLDEN = ("v1_partitioned", "v2_merge_on_read", "v2_statistics", "v2_transforms_bucket_truncate",
          # every primitive type, a decimal(38) stored as fixed_len_byte_array(16)
          "v3_primitives",
          # Avro and ORC data files (Appendix A's Avro and ORC rules)
          "v2_avro_data", "v2_orc_data",
          "v3_deletion_vectors", "v3_multi_dv", "v2_multi_position_deletes", "v1_upgraded_to_v3",
          # written by the other producers: equality deletes, row lineage, several DVs in one Puffin
          # file, defaults, PyIceberg's partitioned writes
          "ref_v2_equality_deletes", "ref_v3_equality_deletes", "ref_v3_row_lineage", "ref_v3_multi_dv",
          "ref_v3_defaults", "pyiceberg_v2_partitioned")

_RESULTS: dict[str, dict[str, Any]] = {}


def _reference_table(tmp: Path, version: int) -> str:
    md = write_table(str(tmp / f"ref-v{version}"), version)
    if version >= 2:
        md = t.add_deletion_vector(md, [0]) if version >= 3 else t.add_position_deletes(md, [0])
    return md


def _run(table: str, out: Path, name: str, request: pytest.FixtureRequest) -> set[str]:
    """The damage self-test of one table; returns the rules of the copies written."""
    pristine, copies, skipped = write_damaged(table, str(out))
    control, verdicts = self_test(str(out), copies, pristine)
    _RESULTS[name] = {"recall": recall_by_area(verdicts), "copies": len(copies), "no_victim": skipped,
                      "missed": [v.copy.rule for v in verdicts if not v.reported]}
    _write_report(request)
    problems = []
    if control:
        problems.append(f"the pristine copy has errors: {', '.join(control)}")
    for v in verdicts:
        if not v.reported:
            problems.append(f"MISSED {v.copy.rule}: {v.copy.where} -> the checker reported {v.error_rules or 'no error'}")
        elif v.extra_errors:
            problems.append(f"NOISY  {v.copy.rule}: {v.copy.where} -> also reported {', '.join(v.extra_errors)}")
    assert copies, f"{name}: no damage case applies"
    assert not problems, f"{name} ({len(copies)} copies under {out}):\n" + "\n".join(problems)
    return {c.rule for c in copies}


def _write_report(request: pytest.FixtureRequest) -> None:
    report = request.config.getoption("conformance_report", default=None)
    if not report:
        return
    out = Path(report)
    out.mkdir(parents=True, exist_ok=True)
    totals: dict[str, list[int]] = {a: [0, 0] for a in AREAS}
    for r in _RESULTS.values():
        for area, (hit, total) in r["recall"].items():
            totals[area][0] += hit
            totals[area][1] += total
    lines = ["# Damage self-test: recall per area", "",
             "| table | copies | " + " | ".join(AREAS) + " | missed |", "|---|---:|" + "---:|" * len(AREAS) + "---|"]
    for name, r in sorted(_RESULTS.items()):
        cells = [f"{r['recall'][a][0]}/{r['recall'][a][1]}" if a in r["recall"] else "-" for a in AREAS]
        lines.append(f"| {name} | {r['copies']} | " + " | ".join(cells) + f" | {', '.join(r['missed']) or '-'} |")
    cells = [f"{h}/{t} ({100 * h // t} %)" if t else "-" for h, t in totals.values()]
    lines.append("| **all** | | " + " | ".join(cells) + " | |")
    (out / "damage-recall.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "damage-recall.json").write_text(json.dumps(
        {"tables": {n: dict(r, recall={a: list(v) for a, v in r["recall"].items()}) for n, r in _RESULTS.items()},
         "totals": totals, "cases": len(DAMAGES)}, indent=2), encoding="utf-8")


@pytest.mark.parametrize("version", [1, 2, 3])
def test_reference_table_damage_is_reported(version: int, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    table = _reference_table(tmp_path, version)
    _run(table, tmp_path / "damaged", f"reference-v{version}", request)


def test_variant_table_damage_is_reported(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The reference writer's v3 table with a shredded variant column and its bounds by path
    (no golden table holds a variant: Spark 3.5 writes none)."""
    written = _run(t.write_variant_table(tmp_path), tmp_path / "damaged", "reference-v3-variant", request)
    variant_rules = {"manifests.variant-bound-type", "data.variant-bound-mixed-types", "parquet.variant-sorted-strings",
                     "parquet.variant-object-field-order"}
    assert variant_rules <= written, f"variant cases with no victim in the variant table: {variant_rules - written}"


def test_pyiceberg_table_damage_is_reported(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    pytest.importorskip("pyiceberg", reason="the pyiceberg extra writes this table")
    pytest.importorskip("sqlalchemy", reason="pyiceberg's SqlCatalog needs sqlalchemy")
    _run(t.write_pyiceberg_table(tmp_path), tmp_path / "damaged", "pyiceberg-v2", request)


@pytest.mark.spark
@pytest.mark.parametrize("name", GOLDEN)
def test_golden_table_damage_is_reported(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    given = os.environ.get(GOLDEN_ENV)
    if not given:
        pytest.skip(f"the golden tables are generated by the Spark lane (${GOLDEN_ENV} is not set)")
    table = Path(given) / "warehouse" / "db" / name
    if not table.is_dir():
        pytest.skip(f"{table} is missing (that golden directory was generated without {name})")
    _run(str(table), tmp_path / "damaged", name, request)
