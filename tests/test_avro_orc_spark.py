"""Avro and ORC data and delete files as Iceberg Java writes them (Spark), checked like Parquet ones.

Two v2 merge-on-read tables, one with ``write.format.default`` and ``write.delete.format.default``
avro, one with orc: a required column, a timestamptz, a decimal, a struct, a list, a map with
string keys and one with int keys (Avro: an array of key/value records), and a DELETE of two
rows of one data file (a position delete file of two rows, in the table's format) and an
UPDATE. The checker must report no error on either table and read their delete files (no
``checker.not-checked``); the reference scan must read the rows Spark reads (the Avro/ORC
position deletes applied); and each damage case of the Avro/ORC and position-delete rules must be
reported on a copy of the table.
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

ROWS = ("(0, 'a', TIMESTAMP '2020-01-01 00:00:00', 1.5, named_struct('x', 1, 'y', 'p'), array(1, 2), "
        "map('k', 1), map(1, 'v')), "
        "(1, 'a', TIMESTAMP '1960-01-01 00:00:00.123456', -2.25, named_struct('x', CAST(NULL AS INT), 'y', 'q'), "
        "array(), map(), map()), "
        "(2, 'a', NULL, NULL, NULL, NULL, NULL, NULL), "
        "(3, 'a', TIMESTAMP '2001-02-03 04:05:06.789', 3.0, NULL, array(CAST(NULL AS INT)), map('z', CAST(NULL AS INT)), "
        "map(2, CAST(NULL AS STRING)))")
#: ids left after DELETE id IN (1, 3) and the UPDATE of id 2
LIVE = [0, 2]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory, spark_catalog: Any) -> dict[str, str]:
    wh = tmp_path_factory.mktemp("avro-orc")
    s, c = spark_catalog("avroorc", wh)
    out = {}
    for fmt in ("avro", "orc"):
        t = f"{c}.db.{fmt}_mor"
        s.sql(f"CREATE TABLE {t} (id bigint NOT NULL, grp string, ts timestamp, dec decimal(20, 3), "
              "st struct<x: int, y: string>, l array<int>, m map<string, int>, mi map<int, string>) USING iceberg "
              f"TBLPROPERTIES ('format-version'='2', 'write.format.default'='{fmt}', "
              f"'write.delete.format.default'='{fmt}', 'write.delete.mode'='merge-on-read', "
              "'write.update.mode'='merge-on-read', 'write.distribution-mode'='none')")
        s.sql(f"INSERT INTO {t} SELECT /*+ COALESCE(1) */ * FROM VALUES {ROWS}")  # one data file
        s.sql(f"DELETE FROM {t} WHERE id IN (1, 3)")
        s.sql(f"UPDATE {t} SET dec = 9.5 WHERE id = 2")
        assert sorted(r.id for r in s.sql(f"SELECT id FROM {t}").collect()) == LIVE
        out[fmt] = str(wh / "db" / f"{fmt}_mor")
    return out


def _metadata(table: str) -> str:
    from iceberg_conformance.checker import find_tables

    return find_tables(table)[0]


@pytest.mark.parametrize("fmt", ["avro", "orc"])
def test_java_avro_orc_tables_check_clean(tables: dict[str, str], fmt: str) -> None:
    from iceberg_conformance.checker import check_table

    findings = check_table(_metadata(tables[fmt])).findings
    assert [f for f in findings if f.severity == "error"] == []
    assert [f for f in findings if f.rule == "checker.not-checked"] == []


@pytest.mark.parametrize("fmt", ["avro", "orc"])
def test_reference_scan_applies_avro_orc_position_deletes(tables: dict[str, str], fmt: str) -> None:
    from iceberg_conformance.reference.scan import scan

    assert sorted(r["id"] for r in scan(_metadata(tables[fmt]))) == LIVE


@pytest.mark.parametrize("fmt, rule", [
    ("avro", "deletes.position-order"), ("avro", "deletes.position-out-of-range"),
    ("avro", "avro.field-id-missing"), ("avro", "avro.map-non-string-key"), ("avro", "avro.decimal-fixed-size"),
    ("orc", "deletes.position-order"), ("orc", "deletes.position-out-of-range"),
    ("orc", "orc.field-id-missing"), ("orc", "orc.required-attribute"), ("orc", "orc.type-mapping"),
    ("orc", "orc.timestamp-nanos"),
])
def test_damage_to_java_avro_orc_files_is_reported(tables: dict[str, str], fmt: str, rule: str,
                                                   tmp_path: Path) -> None:
    assert_damage_reported(_metadata(tables[fmt]), tmp_path / "damaged", rule)
