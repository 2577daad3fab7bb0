"""The deletion-vector and partition-statistics rules on tables Iceberg Java writes (Spark).

A v2 table partitioned by identity(grp) with ``write.delete.granularity=partition`` gets a
merge-on-read DELETE (position delete files that cover every data file of their partition, so
Iceberg Java cannot drop them when it later writes a DV), is upgraded to v3, and gets another
DELETE in a data file the earlier position deletes hit: Iceberg Java writes one Puffin file with
a DV per data file and merges the earlier positions into it. ``compute_partition_stats`` then
writes the partition statistics file. A second table is v3 from the start (deletion vectors
only).

The checker must report no error on either table; each DV that replaces earlier position
deletes must be paired with the position delete file (so the rule is exercised, not vacuous);
and the damage cases of the three rules must be reported on copies of the first table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .damage_assert import assert_damage_reported

pytestmark = [
    pytest.mark.spark,
    # py4j leaves its gateway sockets to the garbage collector
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

RULES = ["dv.holds-position-deletes", "files.partition-statistics-position-deletes",
         "files.partition-statistics-total-records"]


@pytest.fixture(scope="module")
def java_tables(spark_session: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from iceberg_conformance.suites.spark import session

    wh = tmp_path_factory.mktemp("dv-java")
    s = spark_session
    c = session.catalog("dvrules", wh)
    props = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
             "'write.distribution-mode'='none'")
    t = f"{c}.db.pos_then_dv"
    s.sql(f"CREATE TABLE {t} (id bigint, grp string) USING iceberg PARTITIONED BY (grp) TBLPROPERTIES "
          f"('format-version'='2', 'write.delete.granularity'='partition', {props})")
    s.sql(f"INSERT INTO {t} VALUES (0,'a'),(1,'a'),(2,'a'),(3,'a'),(4,'b'),(5,'b'),(6,'b'),(7,'b')")
    s.sql(f"INSERT INTO {t} VALUES (8,'a'),(9,'a'),(10,'a'),(11,'a')")
    s.sql(f"DELETE FROM {t} WHERE id IN (1, 8, 6)")
    s.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='3')")
    s.sql(f"DELETE FROM {t} WHERE id IN (3, 10)")
    s.sql(f"CALL {c}.system.compute_partition_stats('db.pos_then_dv')").collect()
    assert sorted(r.id for r in s.sql(f"SELECT id FROM {t}").collect()) == [0, 2, 4, 5, 7, 9, 11]
    v3 = f"{c}.db.dv_only"
    s.sql(f"CREATE TABLE {v3} (id bigint, grp string) USING iceberg PARTITIONED BY (grp) TBLPROPERTIES "
          f"('format-version'='3', {props})")
    s.sql(f"INSERT INTO {v3} VALUES (0,'a'),(1,'a'),(2,'a'),(3,'b'),(4,'b')")
    s.sql(f"DELETE FROM {v3} WHERE id IN (1, 3)")
    s.sql(f"DELETE FROM {v3} WHERE id = 2")
    s.sql(f"CALL {c}.system.compute_partition_stats('db.dv_only')").collect()
    return {"pos_then_dv": str(wh / "db" / "pos_then_dv"), "dv_only": str(wh / "db" / "dv_only")}


@pytest.mark.parametrize("name", ["pos_then_dv", "dv_only"])
def test_java_tables_check_clean(java_tables: dict[str, str], name: str) -> None:
    from iceberg_conformance.checker import check_table, find_tables

    md = find_tables(java_tables[name])[0]
    errors = [f for f in check_table(md).findings if f.severity == "error"]
    assert errors == []


def test_java_merges_earlier_positions_into_the_dv(java_tables: dict[str, str]) -> None:
    # the rule is not vacuous here: Iceberg Java's DV of the first data file of partition a holds
    # the position the partition-scoped delete file also deletes (id 1 at pos 1) and the new one
    # (id 3 at pos 3)
    from iceberg_conformance.checker.find import find_tables, local_path
    from iceberg_conformance.checker.plan import plan_units
    from iceberg_conformance.checker.units.deletes import dv_positions, position_delete_rows

    shared: list[tuple[str, set[int], set[int]]] = []
    for u in plan_units(find_tables(java_tables["pos_then_dv"])[0]):
        if u.kind != "dv-merge":
            continue
        dv = u.context["dv"]
        held = set(dv_positions(str(local_path(dv["path"])), dv["content_offset"], dv["content_size_in_bytes"]) or ())
        for f in u.context["files"]:
            rows = position_delete_rows(str(local_path(f["path"]))) or {}
            shared.append((dv["referenced_data_file"], held, rows.get(dv["referenced_data_file"], set())))
    assert any(old and old <= held for _ref, held, old in shared), shared
    assert all(old <= held for _ref, held, old in shared)


def test_java_partition_statistics_counts(java_tables: dict[str, str]) -> None:
    # Iceberg Java's own position_delete_record_count: partition a = 2 rows of the
    # partition-scoped file + DVs of 2 and 1 positions; b = 1 (no DV)
    import pyarrow.parquet as pq

    from iceberg_conformance.checker.find import find_tables, local_path
    from iceberg_conformance.checker.run import CheckRun

    doc: Any = CheckRun(find_tables(java_tables["pos_then_dv"])[0]).doc
    rows = pq.read_table(str(local_path(doc["partition-statistics"][0]["statistics-path"]))).to_pylist()
    counts = {r["partition"]["grp"]: r["position_delete_record_count"] for r in rows}
    assert counts == {"a": 5, "b": 1}


@pytest.mark.parametrize("rule", RULES)
def test_damage_on_java_table_is_reported(java_tables: dict[str, str], tmp_path: Path, rule: str) -> None:
    table = java_tables["dv_only" if rule == "files.partition-statistics-total-records" else "pos_then_dv"]
    assert_damage_reported(table, tmp_path / "damaged", rule)
