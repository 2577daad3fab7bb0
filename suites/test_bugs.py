"""Bugs that shipped (``bugs/corpus``): every reproduction the corpus names is shown to catch its bug.

* a writer bug's damage case is written into a valid table (the reference writer's v1, v2 with
  position deletes, v3 with a deletion vector, v3 with a variant column, PyIceberg's partitioned
  v2 table; in the Spark lane also the golden tables) and the checker must report the record's
  rule. A case whose bug needs a feature only the golden tables have is skipped, with the
  reason, when they are not given;
* a value bug's vector cases exist (the vector suites hold every target, the reference included,
  to them);
* a reader bug's trap (``<golden table> > <filter id> > <engine>``, a projection id of
  ``suites/golden/projections.json`` in place of the filter id) is listed by a known failure of
  its engine (the consumer matrix and the scan suites then fail when the engine stops failing
  so); for an implementation the kit does not run, its golden table and filter exist.

The corpus itself is checked too: its format, unique ids, statement ids of the index, rules of
the catalogue. With ``--conformance-report DIR`` the recall per artifact is written to
``DIR/bugs-recall.md`` and ``.json``.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from iceberg_conformance import bugs
from iceberg_conformance.checker.damage import DAMAGES, self_test, write_damaged
from iceberg_conformance.cli import bug_reproductions
from iceberg_conformance.reference.rules import catalogue
from iceberg_conformance.reference.writer import write_table
from iceberg_conformance.statements import index
from iceberg_conformance.suites.golden import small_tables
from iceberg_conformance.suites.golden.registry import GOLDEN_ENV

pytestmark = pytest.mark.area("bugs")

#: at least this many bugs with upstream links, from at least this many implementations
MIN_BUGS, MIN_IMPLEMENTATIONS = 150, 12
#: golden tables a damage case may need when the reference writer's tables offer no victim
GOLDEN = ("v1_partitioned", "v2_merge_on_read", "v2_statistics", "v2_transforms_bucket_truncate", "v3_primitives",
          "v3_deletion_vectors", "v2_avro_data", "v2_orc_data", "ref_v2_equality_deletes", "ref_v3_row_lineage",
          "pyiceberg_v2_partitioned",
          # manifests a v2 commit rewrote holding v1 files (data sequence number 0); partition values
          # longer than 16 bytes; timestamp_ns columns
          "v1_upgraded_to_v3", "v2_long_string_prefixes", "ref_v3_timestamp_ns")

RECORDS = bugs.records()
DAMAGE_CASES = {d.name: d for d in DAMAGES}
_RESULTS: dict[str, dict[str, Any]] = {}


def _ids(how: str) -> list[Any]:
    return [pytest.param(r, id=r["id"]) for r in RECORDS
            if r["verdict"] == "bug" and r["reproduce"]["how"] == how and r["reproduce"]["case"]]


def test_corpus_files_have_the_record_format() -> None:
    validator = jsonschema.Draft202012Validator(bugs.record_schema())
    for name, doc in bugs.documents():
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
        assert not errors, f"bugs/corpus/{name}: " + "; ".join(errors[:5])
        assert name == f"{doc['implementation']}.json" and all(
            r["implementation"] == doc["implementation"] for r in doc["bugs"]), name


def test_records_name_real_statements_and_rules() -> None:
    ids = Counter(r["id"] for r in RECORDS)
    assert not [i for i, n in ids.items() if n > 1], "ids repeat"
    statements = {s["id"]: s for s in index()["statements"]}
    rules = catalogue()
    for r in RECORDS:
        if r["statement"] is not None:
            assert r["statement"] in statements, f"{r['id']}: no statement {r['statement']}"
            assert r["spec"]["quote"] == statements[r["statement"]]["quote"], f"{r['id']}: quote is not the statement's"
        rule = r["reproduce"]["rule"]
        if rule is not None and r["reproduce"]["case"]:
            assert rule in rules, f"{r['id']}: the reproduction's rule {rule} is not in reference/rules.json"
        if r["upstream"] == "linked":
            assert r["links"], f"{r['id']}: linked without a link"
        else:
            assert r.get("found_by") == "iceberg-conformance" and not r["links"], r["id"]


def test_corpus_holds_the_bugs_that_shipped() -> None:
    linked = [r for r in RECORDS if r["verdict"] == "bug" and r["upstream"] == "linked"]
    implementations = {r["implementation"] for r in linked}
    assert len(linked) >= MIN_BUGS and len(implementations) >= MIN_IMPLEMENTATIONS, (len(linked), implementations)


@pytest.fixture(scope="session")
def written_tables(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The tables written here (read only by the tests): the reference writer's v1, v2 with
    position deletes, v3 with a deletion vector, v3 with a shredded variant column and its bounds,
    and PyIceberg's partitioned v2 table (day,
    bucket and truncate partitions, a delete) where PyIceberg is installed."""
    tmp = tmp_path_factory.mktemp("bug-victims")
    out = [write_table(str(tmp / "ref-v1"), 1)]
    out.append(small_tables.add_position_deletes(write_table(str(tmp / "ref-v2"), 2), [0]))
    out.append(small_tables.add_deletion_vector(write_table(str(tmp / "ref-v3"), 3), [0]))
    (tmp / "ref-variant").mkdir()
    out.append(small_tables.write_variant_table(tmp / "ref-variant"))
    if importlib.util.find_spec("pyiceberg") is not None and importlib.util.find_spec("sqlalchemy") is not None:
        (tmp / "pyiceberg").mkdir()
        out.append(small_tables.write_pyiceberg_table(tmp / "pyiceberg"))
    return out


def _golden_tables() -> list[str]:
    given = os.environ.get(GOLDEN_ENV)
    if not given:
        return []
    return [str(p) for name in GOLDEN if (p := Path(given) / "warehouse" / "db" / name).is_dir()]


@pytest.mark.parametrize("record", _ids("damage"))
def test_writer_bug_is_reported(record: dict[str, Any], tmp_path: Path, written_tables: list[str],
                                request: pytest.FixtureRequest) -> None:
    rep = record["reproduce"]
    cases = [c.strip() for c in rep["case"].split(";") if c.strip()]
    unknown = [c for c in cases if c not in DAMAGE_CASES]
    assert not unknown, f"{record['id']}: no damage case {unknown} (checker/damage)"
    golden = _golden_tables()
    shown = []
    for i, table in enumerate(written_tables + golden):
        out = tmp_path / f"damaged-{i}"
        pristine, copies, _skipped = write_damaged(table, str(out), rules=cases)
        if not copies:
            continue
        _control, verdicts = self_test(str(out), copies, pristine)
        for v in verdicts:
            shown.append(v)
            assert v.reported, (f"{record['id']} ({record['links'][0] if record['links'] else 'no upstream'}): "
                                f"damage case {v.copy.case} ({v.copy.where}) is not reported by "
                                f"{v.copy.rule}; the checker reported {v.error_rules or 'no error'}")
            assert rep["rule"] in (None, v.copy.rule), (record["id"], v.copy.rule)
        break
    if not shown and not golden:
        # the bug needs a feature (a binary partition, a partition statistics file, a table
        # upgraded from v1 ...) that only the golden tables of the Spark lane have
        pytest.skip(f"{record['id']}: no table written here offers the damage case {cases} a victim; the golden "
                    f"tables do (${GOLDEN_ENV} is not set)")
    _RESULTS[record["id"]] = {"kind": record["kind"], "artifact": record["artifact"], "caught": bool(shown)}
    _write_recall(request)
    assert shown, f"{record['id']}: no table here offers the damage case {cases} a victim"


@pytest.mark.parametrize("record", _ids("vector") + _ids("trap") + _ids("oplog"))
def test_value_and_reader_bug_reproduction_exists(record: dict[str, Any], request: pytest.FixtureRequest) -> None:
    """A value bug's vector cases exist; a reader bug's case is listed by a known failure of its
    engine (the matrix, the scan suite or the golden-table readers fail when the engine stops
    failing so), or, for an implementation the kit does not run, its golden table and filter exist;
    a trap the pinned engine fails earlier is listed by a known failure that is an error or a
    refusal, not wrong rows."""
    got = _reproductions()[record["id"]]
    assert got.reproduced or got.status in bugs.TRAP_ONLY + ("out of reach",), f"{record['id']}: {got.why}"
    _RESULTS[record["id"]] = {"kind": record["kind"], "artifact": record["artifact"], "caught": got.reproduced}
    _write_recall(request)


def test_out_of_reach_records_give_evidence_and_are_never_caught() -> None:
    """A record the kit cannot reproduce because it cannot run the implementation says why
    (``reproduce.out_of_reach``); it is counted apart, never as caught, and an op-log it names for
    the same class of bug on the writers the kit runs exists."""
    out = [r for r in RECORDS if r["verdict"] == "bug" and r["reproduce"].get("out_of_reach")]
    assert out
    for r in out:
        got = _reproductions()[r["id"]]
        assert got.status == "out of reach" and not got.reproduced, f"{r['id']}: {got.status} {got.why}"
        assert r["implementation"] not in bugs.WRITERS_OF and r["implementation"] not in bugs.ENGINES_OF, r["id"]


@lru_cache(maxsize=1)
def _reproductions() -> dict[str, bugs.Reproduction]:
    return {r["id"]: rep for r, rep in bug_reproductions()}


def _write_recall(request: pytest.FixtureRequest) -> None:
    report = request.config.getoption("conformance_report", default=None)
    if not report:
        return
    out = Path(report)
    out.mkdir(parents=True, exist_ok=True)
    real = [r for r in RECORDS if r["verdict"] == "bug"]
    lines = ["# Bugs that shipped: what the kit reproduces and catches", "",
             "| artifact | bugs | reproduced and caught |", "|---|---:|---:|"]
    by: dict[str, list[int]] = {}
    for r in real:
        got = by.setdefault(r["artifact"], [0, 0])
        got[0] += 1
        got[1] += bool(_RESULTS.get(r["id"], {}).get("caught"))
    for artifact, (n, hit) in sorted(by.items()):
        lines.append(f"| {artifact} | {n} | {hit} |")
    total = sum(v[0] for v in by.values()), sum(v[1] for v in by.values())
    lines.append(f"| **all** | {total[0]} | {total[1]} ({100 * total[1] // max(1, total[0])} %) |")
    (out / "bugs-recall.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "bugs-recall.json").write_text(json.dumps({"results": _RESULTS, "by_artifact": by}, indent=1),
                                          encoding="utf-8")
