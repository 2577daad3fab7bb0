"""The statement index (statements/index.json), its links, the generator and the coverage report."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from iceberg_conformance.statements import LEVELS, MUST_LEVELS, REASONS, curation, index, links, plain
from iceberg_conformance.statements import generate as gen
from iceberg_conformance.statements import trace

from .spec_text import SPEC_ENV

ID = re.compile(r"^(table|puffin|parquet|arrow)\.[a-z0-9][a-z0-9._-]*$")
KINDS = {"sentence", "list-item", "table-cell", "field-table-cell", "table-row", "requirement-cell", "declarative"}


def statements() -> list[dict]:
    return [dict(s) for s in index()["statements"]]


def test_index_parses_and_ids_are_unique() -> None:
    idx = index()
    assert set(idx["documents"]) >= {"table", "puffin", "parquet", "arrow"}
    for name, doc in idx["documents"].items():
        assert doc["source"] and doc["revision"], name
    ids = [s["id"] for s in idx["statements"]]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"ids used twice: {dupes[:10]}"
    for s in idx["statements"]:
        assert ID.match(s["id"]), s["id"]
        assert s["id"].startswith(s["document"] + "."), s["id"]
        assert s["document"] in idx["documents"], s["id"]
        assert s["level"] in LEVELS, (s["id"], s["level"])
        assert s["kind"] in KINDS, (s["id"], s["kind"])
        assert s["quote"].strip() and s["section"], s["id"]
        assert set(s["checked_by"]) == {"rules", "vectors", "damage", "tables"}, s["id"]


def test_index_covers_every_level_and_document() -> None:
    seen = {(s["document"], s["level"]) for s in index()["statements"]}
    for lv in ("MUST", "MUST NOT", "REQUIRED", "SHOULD", "SHOULD NOT", "MAY"):
        assert ("table", lv) in seen, lv
    assert {d for d, _ in seen} == {"table", "puffin", "parquet", "arrow"}
    kinds = {s["kind"] for s in index()["statements"]}
    assert {"requirement-cell", "table-row", "declarative"} <= kinds


def test_links_name_only_what_exists() -> None:
    found = trace.problems(statements(), links())
    assert not found, "\n".join(found[:30])


def test_a_link_to_an_unknown_id_is_refused() -> None:
    bad = {"links": {"table.no-such-section.no-such-statement": {"rules": ["no.such-rule"], "why": "x"}},
           "unchecked": {"table.nowhere.nothing": {"reason": "later", "why": ""}}}
    found = "\n".join(trace.problems(statements(), bad))
    assert "no statement 'table.no-such-section.no-such-statement'" in found
    assert "no rule 'no.such-rule'" in found
    assert "no statement 'table.nowhere.nothing'" in found


def test_a_link_to_an_unknown_golden_table_is_refused() -> None:
    sid = statements()[0]["id"]
    bad = {"links": {sid: {"tables": ["no_such_table"], "why": "x"}}}
    found = "\n".join(trace.problems(statements(), bad))
    assert "no golden table 'no_such_table'" in found
    ok = {"links": {sid: {"tables": ["ref_v2_equality_deletes"], "why": "x"}}}
    assert not [p for p in trace.problems(statements(), ok) if "golden table" in p]


def test_every_unchecked_statement_has_a_known_reason() -> None:
    reasons = links()["unchecked"]
    for s in statements():
        if not trace.checked(s):
            assert s["id"] in reasons, f"{s['id']} ({s['level']}) is unchecked and has no reason in links.json"
            assert reasons[s["id"]]["reason"] in REASONS
            assert reasons[s["id"]]["why"], s["id"]


def test_checked_by_is_up_to_date() -> None:
    """index.json's checked_by is what the kit links now (else: python -m
    iceberg_conformance.statements.generate --relink)."""
    sts = statements()
    live = trace.compute(sts, links())
    stale = [s["id"] for s in sts if s["checked_by"] != live[s["id"]]]
    assert not stale, f"{len(stale)} stale checked_by, e.g. {stale[:5]}: run python -m iceberg_conformance.statements.generate --relink"


def test_quote_links_do_not_fan_out() -> None:
    """A rule quote links few statements: a quote too general to say which links none."""
    sts = statements()
    for s in sts:
        s["_plain"] = plain(s["quote"])
    for rid, r in trace.rules().items():
        if r.get("quote"):
            assert len(trace.match(r["quote"], sts, r.get("section") or "")) <= trace.MAX_FANOUT, rid


def test_curation_is_well_formed() -> None:
    cur = curation()
    for part in ("statements", "declarative"):
        for fp, e in cur[part].items():
            assert re.fullmatch(r"[0-9a-f]{12}", fp), fp
            assert e.get("level") in LEVELS, (part, fp)
            if "hint" in e:
                assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", e["hint"]), e["hint"]
    for fp, why in cur["not_normative"].items():
        assert re.fullmatch(r"[0-9a-f]{12}", fp) and why, fp


# --- the generator -------------------------------------------------------------------------------

SPEC = """# Iceberg Table Spec

## Specification

### Manifests

A manifest must be an Avro file. Readers should ignore unknown fields.

| v1         | v2         | Field         | Description |
| ---------- | ---------- | ------------- | ----------- |
| _required_ | _required_ | **`status`**  | The entry status. |
|            | _optional_ | **`seq`**     | A number that may be null. |

* Writers must not reuse ids.
"""
PUFFIN = """# Puffin file format

## Format specification

Files must start with magic.
"""


def build(spec: str, old: dict | None = None) -> list[dict]:
    docs = {"table": (spec, False), "puffin": (PUFFIN, False)}
    return gen.build(docs, {"statements": {}, "declarative": {}, "not_normative": {}}, old)


def test_generator_finds_keyword_sentences_and_requirement_cells() -> None:
    got = {s["id"]: s for s in build(SPEC)}
    levels = {s["quote"][:30]: s["level"] for s in got.values()}
    assert levels["A manifest must be an Avro fil"] == "MUST"
    assert levels["Readers should ignore unknown "] == "SHOULD"
    assert levels["Writers must not reuse ids."] == "MUST NOT"
    assert levels["A number that may be null."] == "MAY"
    cells = sorted((s["field"], s["level"], tuple(s["versions"])) for s in got.values() if s["kind"] == "requirement-cell")
    # v3 keeps v2's requirement when the table shows only v1 and v2
    assert cells == [("seq", "MAY", (2, 3)), ("seq", "SHOULD NOT", (1,)), ("status", "REQUIRED", (1, 2, 3))]
    assert "table.manifests.manifest-avro-file" in got
    assert "puffin.format-specification.files-start-magic" in got


def test_ids_survive_a_reworded_sentence_and_diff_reports_it() -> None:
    first = build(SPEC)
    old = {"statements": first}
    reworded = SPEC.replace("A manifest must be an Avro file.", "A manifest file must be an Avro file.") \
                   .replace("* Writers must not reuse ids.\n", "")
    second = build(reworded, old)
    changes = gen.diff(old, second, ["table", "puffin"])
    assert changes["changed"] == ["table.manifests.manifest-avro-file"]
    assert changes["removed"] == ["table.manifests.writers-not-reuse-ids"]
    assert changes["added"] == []


def test_section_slugs() -> None:
    assert gen.section_slug("Specification > Manifests > Manifest Entry Fields > Data File Fields") == "manifests.data-file-fields"
    assert gen.section_slug("Appendix D: Single-value serialization > Binary single-value serialization") == \
        "appendix-d.binary-single-value-serialization"
    assert gen.section_slug("Specification > Table Metadata > Table Metadata Fields") == "table-metadata.fields"


@pytest.mark.skipif(not os.environ.get(SPEC_ENV), reason=f"set {SPEC_ENV} to apache/iceberg format/spec.md (puffin-spec.md beside it)")
def test_index_is_what_the_pinned_text_gives() -> None:
    """Regenerated from the pinned spec text, the index has the same statements, and every
    quote is verbatim (up to white space)."""
    spec = Path(os.environ[SPEC_ENV])
    puffin = spec.with_name("puffin-spec.md")
    texts = {"table": (spec.read_text(encoding="utf-8"), False), "puffin": (puffin.read_text(encoding="utf-8"), False)}
    old = {"statements": [s for s in index()["statements"] if s["document"] in texts]}
    new = gen.build(texts, json.loads(gen.CURATION.read_text(encoding="utf-8")), old)
    changes = gen.diff(old, new, texts)
    if gen.revision_of(spec, None) == index()["documents"]["table"]["revision"]:
        assert changes == {"added": [], "removed": [], "changed": []}, changes
    flat = {d: gen.collapse(t.replace("\n    ", "\n")) for d, (t, _) in texts.items()}
    for s in old["statements"]:
        assert gen.collapse(s["quote"]) in flat[s["document"]], s["id"]


def _seed(prefix: str) -> Path | None:
    root = Path(os.environ.get("ICEBERG_CONFORMANCE_SEEDS") or Path(__file__).resolve().parents[2] / "shared" / "seeds")
    found = sorted(root.glob(f"{prefix}_*.txt")) if root.is_dir() else []
    return found[0] if found else None


@pytest.mark.parametrize("document,prefix", [("parquet", "002"), ("arrow", "003")])
def test_parquet_and_arrow_quotes_are_verbatim(document: str, prefix: str) -> None:
    """Quotes of LogicalTypes.md and Schema.fbs are in the pinned capture (up to white space
    and comment marks); the capture's SHA-256 is the pinned revision."""
    import hashlib

    seed = _seed(prefix)
    if seed is None:
        pytest.skip("the pinned captures (shared/seeds or $ICEBERG_CONFORMANCE_SEEDS) are not here")
    assert index()["documents"][document]["revision"] == "sha256:" + hashlib.sha256(seed.read_bytes()).hexdigest()
    lines = [re.sub(r"^\s*///?\s?", "", line) for line in seed.read_text(encoding="utf-8").split("\n")
             if not re.fullmatch(r"\s*\d+\s*", line)]
    text = gen.collapse(" ".join(lines))
    for s in index()["statements"]:
        if s["document"] == document:
            assert gen.collapse(s["quote"]) in text, s["id"]


# --- the coverage report -----------------------------------------------------------------------------

def test_coverage_report(capsys: pytest.CaptureFixture[str]) -> None:
    from iceberg_conformance.cli import main

    assert main(["coverage", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    must = rep["must"]
    assert must["all"] == sum(1 for s in index()["statements"] if s["level"] in MUST_LEVELS)
    assert len(rep["unchecked_must"]) == must["all"] - must["checked"]
    assert all(r["reason"] in REASONS for r in rep["unchecked_must"])
    assert sum(a["statements"] for a in rep["areas"].values()) == len(index()["statements"])
    assert main(["coverage", "--readme"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| Section |") and "**All**" in table


def test_readme_table_is_generated() -> None:
    """If the README carries the "What is covered" table, it is the generated one."""
    from iceberg_conformance.statements.coverage import collect, render_readme

    readme = Path(__file__).resolve().parents[1] / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if "What is covered" not in text or "| Section | Statements |" not in text:
        pytest.skip("README.md has no generated 'What is covered' table yet")
    table = render_readme(collect()).split("\n\n")[0]
    assert table in text, "README's 'What is covered' table is stale: iceberg-conformance coverage --readme"


def test_cli_coverage() -> None:
    from iceberg_conformance.cli import main

    assert main(["coverage"]) == 0


def test_readme_bug_table_is_generated() -> None:
    """The README's table of bugs that shipped is the one ``iceberg-conformance bugs --readme`` writes."""
    from iceberg_conformance import bugs
    from iceberg_conformance.cli import bug_reproductions

    readme = Path(__file__).resolve().parents[1] / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if "### Bugs that shipped" not in text:
        pytest.skip("README.md has no table of bugs that shipped yet")
    assert bugs.readme_table(bug_reproductions()) in text, \
        "README's table of bugs that shipped is stale: iceberg-conformance bugs --readme"
