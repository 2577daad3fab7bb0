"""Schema and partition evolution as Iceberg Java writes it (Spark): the history is clean.

Tables: a v2 table whose columns are renamed, dropped and added again under their names,
promoted (int -> bigint, float -> double, decimal(9,2) -> decimal(18,2)), and whose partition
fields are dropped, added, replaced (bucket[4] -> bucket[8]), re-added under their old name (the
old id comes back) and under another name (a new id); a v1 table whose partition fields are
dropped (void in place) and re-added at the end, then upgraded to v2 and evolved again; a v1
table replaced (REPLACE TABLE) and upgraded; a v2 table replaced twice with other column types
(REPLACE TABLE keeps the id of a column of the same name whatever its type, and starts a new
history: the next snapshot has no parent). No evolution rule is reported on any of them, and
the damage cases of the history rules are reported on copies of the first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.find import latest_metadata

from .damage_assert import assert_damage_reported

pytestmark = [
    pytest.mark.spark,
    # py4j leaves its gateway sockets to the garbage collector
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.fixture(scope="module")
def java_tables(tmp_path_factory: pytest.TempPathFactory, spark_catalog: Any) -> dict[str, str]:
    wh = tmp_path_factory.mktemp("evolution-java")
    s, c = spark_catalog("evohist", wh)
    ts = "TIMESTAMP '2024-01-01 00:00:00'"

    t = f"{c}.db.evolved"
    for q in [
        f"CREATE TABLE {t} (id int, data string, f float, d decimal(9,2), ts timestamp, cat string) USING iceberg "
        "PARTITIONED BY (days(ts), bucket(4, id)) TBLPROPERTIES ('format-version'='2')",
        f"INSERT INTO {t} VALUES (1, 'a', 1.0, 1.5, {ts}, 'x')",
        f"ALTER TABLE {t} RENAME COLUMN data TO label",
        f"ALTER TABLE {t} DROP COLUMN cat",
        f"ALTER TABLE {t} ADD COLUMN cat string",
        f"ALTER TABLE {t} ALTER COLUMN id TYPE bigint",
        f"ALTER TABLE {t} ALTER COLUMN f TYPE double",
        f"ALTER TABLE {t} ALTER COLUMN d TYPE decimal(18,2)",
        f"INSERT INTO {t} VALUES (2, 'b', 2.0, 2.5, {ts}, 'y')",
        f"ALTER TABLE {t} DROP PARTITION FIELD days(ts)",
        f"ALTER TABLE {t} ADD PARTITION FIELD months(ts)",
        f"ALTER TABLE {t} REPLACE PARTITION FIELD bucket(4, id) WITH bucket(8, id)",
        f"INSERT INTO {t} VALUES (3, 'c', 3.0, 3.5, {ts}, 'z')",
        f"ALTER TABLE {t} ADD PARTITION FIELD days(ts)",
        f"ALTER TABLE {t} DROP PARTITION FIELD months(ts)",
        f"ALTER TABLE {t} ADD PARTITION FIELD truncate(2, label) AS lab",
        f"ALTER TABLE {t} DROP PARTITION FIELD lab",
        f"ALTER TABLE {t} ADD PARTITION FIELD truncate(2, label) AS lab2",
        f"INSERT INTO {t} VALUES (4, 'd', 4.0, 4.5, {ts}, 'w')",
    ]:
        s.sql(q)

    t = f"{c}.db.v1_upgraded"
    for q in [
        f"CREATE TABLE {t} (id bigint, data string, ts timestamp) USING iceberg PARTITIONED BY (days(ts), data) "
        "TBLPROPERTIES ('format-version'='1')",
        f"INSERT INTO {t} VALUES (1, 'a', {ts})",
        f"ALTER TABLE {t} DROP PARTITION FIELD days(ts)",
        f"ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)",
        f"INSERT INTO {t} VALUES (2, 'b', {ts})",
        f"ALTER TABLE {t} ADD PARTITION FIELD days(ts)",
        f"INSERT INTO {t} VALUES (3, 'c', {ts})",
        f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='2')",
        f"ALTER TABLE {t} DROP PARTITION FIELD bucket(4, id)",
        f"ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)",
        f"INSERT INTO {t} VALUES (4, 'd', {ts})",
    ]:
        s.sql(q)

    t = f"{c}.db.v1_replaced"
    for q in [
        f"CREATE TABLE {t} (id bigint, data string, ts timestamp) USING iceberg PARTITIONED BY (days(ts)) "
        "TBLPROPERTIES ('format-version'='1')",
        f"INSERT INTO {t} VALUES (1, 'a', {ts})",
        f"CREATE OR REPLACE TABLE {t} (id bigint, data string, ts timestamp) USING iceberg PARTITIONED BY (data) "
        "TBLPROPERTIES ('format-version'='1')",
        f"INSERT INTO {t} VALUES (2, 'b', {ts})",
        f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version'='2')",
        f"ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)",
        f"INSERT INTO {t} VALUES (3, 'c', {ts})",
    ]:
        s.sql(q)

    t = f"{c}.db.v2_replaced"
    for q in [
        f"CREATE TABLE {t} (id bigint, data string, n int) USING iceberg PARTITIONED BY (bucket(4, id)) "
        "TBLPROPERTIES ('format-version'='2')",
        f"INSERT INTO {t} VALUES (1, 'a', 1)",
        f"CREATE OR REPLACE TABLE {t} (id int, data int, extra string) USING iceberg PARTITIONED BY (data) "
        "TBLPROPERTIES ('format-version'='2')",
        f"INSERT INTO {t} VALUES (1, 2, 'x')",
        f"CREATE OR REPLACE TABLE {t} USING iceberg PARTITIONED BY (bucket(4, id)) TBLPROPERTIES "
        f"('format-version'='2') AS SELECT CAST(id AS bigint) id, 'q' AS data FROM {t}",
    ]:
        s.sql(q)
    return {name: str(latest_metadata(str(wh / "db" / name)))
            for name in ("evolved", "v1_upgraded", "v1_replaced", "v2_replaced")}


def _doc(md: str) -> dict[str, Any]:
    return json.loads(Path(md).read_text(encoding="utf-8"))


def _evolution(md: str) -> list[str]:
    return [str(f) for f in check_table(md).findings if f.rule.startswith("evolution.")]


@pytest.mark.parametrize("name", ["evolved", "v1_upgraded", "v1_replaced"])
def test_java_evolution_is_clean(java_tables: dict[str, str], name: str) -> None:
    md = java_tables[name]
    assert len(_doc(md)["partition-specs"]) >= 3  # the history is there to judge
    assert _evolution(md) == []
    assert [str(f) for f in check_table(md).findings if f.severity == "error"] == []


def test_java_history_has_what_the_rules_judge(java_tables: dict[str, str]) -> None:
    """Iceberg Java's ids, as the spec has them: a column added again under its name gets a new
    id; a partition field added again under its name takes its old id, under another name a new
    one; v1 replaces a dropped partition field by void in place."""
    evolved = _doc(java_tables["evolved"])
    assert [[f["id"] for f in s["fields"] if f["name"] == "cat"] for s in evolved["schemas"]][-1] == [7]
    fields = [(f["field-id"], f["transform"], f["name"]) for s in evolved["partition-specs"] for f in s["fields"]]
    assert fields.count((1000, "day", "ts_day")) >= 2
    assert {fid for fid, tr, _ in fields if tr == "truncate[2]"} == {1004, 1005}
    v1 = [[f["transform"] for f in s["fields"]] for s in _doc(java_tables["v1_upgraded"])["partition-specs"]]
    assert v1[1][0] == "void"


def test_java_v1_specs_are_clean_without_the_earlier_metadata(java_tables: dict[str, str], tmp_path: Path) -> None:
    """The v1 specs of the upgraded table hold an equivalent field under a new id (days(ts)
    re-added at the end while v1); with the metadata-log gone, their positional ids tell."""
    doc = _doc(java_tables["v1_upgraded"])
    doc["metadata-log"] = []
    md = Path(java_tables["v1_upgraded"]).with_name("v99.metadata.json")
    md.write_text(json.dumps(doc), encoding="utf-8")
    try:
        assert _evolution(str(md)) == []
    finally:
        md.unlink()


def test_java_replace_table_is_no_evolution(java_tables: dict[str, str]) -> None:
    md = java_tables["v2_replaced"]
    types = [[f["type"] for f in s["fields"] if f["id"] == 2] for s in _doc(md)["schemas"]]
    assert types == [["string"], ["int"], ["string"]]  # one id, three types: REPLACE TABLE keeps it by name
    assert _evolution(md) == []


@pytest.mark.parametrize("rule", ["evolution.field-id-reused", "evolution.type-change",
                                  "evolution.partition-field-id-reused", "evolution.partition-field-id-not-reused",
                                  "evolution.partition-equivalent-spec"])
def test_history_damage_is_reported_on_a_java_table(java_tables: dict[str, str], tmp_path: Path, rule: str) -> None:
    assert_damage_reported(java_tables["evolved"], tmp_path / "damaged", rule)
