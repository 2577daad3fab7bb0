"""Field coverage (issue 9): for every field of the spec's tables, the checker rules that check it,
or why none does.

The data is ``checker/field-coverage.json``: one object per row of the spec's field tables
(manifest key-value metadata, ``manifest_entry``, ``data_file``, ``manifest_file``,
``field_summary``, snapshot, snapshot reference, table metadata, table and partition statistics,
the partition statistics file schema, Puffin ``FileMetadata`` and ``BlobMetadata``) plus the parts
of a ``deletion-vector-v1`` blob, which the Puffin spec describes in prose rather than a table.
Each object has ``table``, ``field`` (``"<id> <name>"``, or the name where the spec gives no
id), ``versions`` (the spec's requirement per format version), ``rules`` (ids of the rules whose
code compares this field) and ``why_none``, read as:

* **covered**: ``rules`` is not empty and ``why_none`` is null;
* **partly**: ``rules`` compare the field's value and ``why_none`` starts with ``not yet:``,
  naming the part no rule compares yet (counted as covered in the totals);
* **not yet**: ``why_none`` starts with ``not yet:`` and says what a rule would compare on a
  table on disk, and no rule checks more than presence and type (:data:`PRESENCE_RULES`);
* **uncheckable**: no rule, and ``why_none`` says why no rule can check the field on a table on
  disk (e.g. opaque encryption key metadata).

:func:`main` renders the JSON to ``docs/field-coverage.md``::

    python -m iceberg_conformance.checker.field_coverage [--out PATH] [--check]

:func:`check` returns the problems a self-test refuses: a malformed row, a (table, field) listed
twice, a rule id that is not in the rule catalogue (``reference/rules.json``; while the catalogue
is absent, a rule id must at least be written in the checker's or the reference's source), and,
when the spec walk's ``fields.json`` can be found (:func:`spec_fields_path`), a field of the
covered tables that is missing, extra, or given with other versions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from iceberg_conformance.reference.rules import catalogue

HERE = Path(__file__).resolve().parent
DATA = HERE / "field-coverage.json"
DOC = HERE.parent / "docs" / "field-coverage.md"

#: A copy of the spec walk's ``fields.json`` (rows of the spec's field tables).
FIELDS_ENV = "ICEBERG_CONFORMANCE_SPEC_FIELDS"
#: A copy of ``format/spec.md`` (see ``tests/spec_text.py``); ``fields.json`` is looked for beside it.
SPEC_ENV = "ICEBERG_CONFORMANCE_SPEC"
#: Tables of the coverage that are not field tables of the spec (so not in ``fields.json``).
EXTRA_TABLES = frozenset({"deletion_vector_blob"})
NOT_YET = "not yet:"
#: Rules that check only that a field is present with its Avro/JSON type: a field they alone
#: check is "not yet" covered when its ``why_none`` names a comparison still to write.
PRESENCE_RULES = frozenset({"manifests.field-missing", "metadata.shape", "puffin.footer-json"})
STATUSES = ("covered", "partly", "not yet", "uncheckable")
SPEC_URL = "https://github.com/apache/iceberg/blob/{rev}/format/{file}#L{line}"

JSON = Any


def load(path: Path = DATA) -> dict[str, JSON]:
    """The coverage document."""
    doc: dict[str, JSON] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def status(row: dict[str, JSON]) -> str:
    """``covered``, ``partly``, ``not yet`` or ``uncheckable`` (see the module docstring)."""
    why = row.get("why_none")
    not_yet = isinstance(why, str) and why.startswith(NOT_YET)
    rules = set(row.get("rules") or ())
    if not rules:
        return "not yet" if not_yet else "uncheckable"
    if not_yet:
        return "not yet" if rules <= PRESENCE_RULES else "partly"
    return "covered"


def field_name(spec_row: dict[str, JSON]) -> str:
    """How a ``fields.json`` row is named in the coverage: ``"<id> <name>"`` or the name."""
    fid = spec_row.get("field_id")
    return f"{fid} {spec_row['name']}" if fid is not None else str(spec_row["name"])


def versions_of(spec_row: dict[str, JSON]) -> str:
    """The requirement cells of a ``fields.json`` row as one string ("v1 required, v2 -, ...")."""
    puffin = spec_row.get("puffin_required")
    if puffin is not None:
        return "Puffin: " + ("required" if puffin == "yes" else "optional")
    parts = [f"{v} {spec_row[v]}" for v in ("v1", "v2", "v3", "v4") if spec_row.get(v) is not None]
    if "v4" not in spec_row and parts and all(spec_row.get(v) == "-" for v in ("v1", "v2", "v3")):
        parts.append("v4 (under development)")
    return ", ".join(parts)


@dataclass(frozen=True)
class Totals:
    fields: int
    covered: int  # including partly
    partly: int
    not_yet: int
    uncheckable: int

    def line(self) -> str:
        partly = f" ({self.partly} of them partly)" if self.partly else ""
        return (f"{self.fields} fields, {self.covered} covered{partly}, {self.not_yet} not yet, "
                f"{self.uncheckable} uncheckable")


def totals(rows: Sequence[dict[str, JSON]]) -> Totals:
    n = Counter(status(r) for r in rows)
    return Totals(len(rows), n["covered"] + n["partly"], n["partly"], n["not yet"], n["uncheckable"])


def per_table(doc: dict[str, JSON]) -> dict[str, list[dict[str, JSON]]]:
    """Rows by table, in the document's table order."""
    out: dict[str, list[dict[str, JSON]]] = {t["table"]: [] for t in doc["tables"]}
    for row in doc["fields"]:
        out.setdefault(row["table"], []).append(row)
    return out


# --- rendering ------------------------------------------------------------------------------

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _source_link(source: str | None, rev: str) -> str:
    if not source or ":" not in source:
        return ""
    file, line = source.rsplit(":", 1)
    if not line.isdigit():
        return _cell(source)
    return f"[{_cell(source)}]({SPEC_URL.format(rev=rev, file=file, line=line)})"


def render(doc: dict[str, JSON]) -> str:
    """The Markdown page of the coverage document."""
    rev = str(doc.get("spec_revision", ""))
    tables = per_table(doc)
    titles = {t["table"]: t["title"] for t in doc["tables"]}
    lines = [
        "# Field coverage: which checker rule checks each field of the spec's tables",
        "",
        "<!-- Generated from checker/field-coverage.json by "
        "`python -m iceberg_conformance.checker.field_coverage`; edit the JSON, not this page. -->",
        "",
        f"Every row of the spec's field tables (spec revision `{rev}`) with the rules of the table "
        "checker whose code compares that field, or why no rule does (issue 9). A field is",
        "",
        "* **covered** when the listed rules check it;",
        "* **partly** covered when rules compare part of it and *why none* (\"not yet: ...\") names "
        "what no rule compares yet; partly covered fields count as covered in the totals;",
        "* **not yet** covered when *why none* says what a rule would compare on a table on disk "
        "and no rule checks more than the field's presence and type;",
        "* **uncheckable** when *why none* says why no rule can check it on a table on disk.",
        "",
        "Rule ids are those of the rule catalogue (`iceberg-conformance rules`). The presence and "
        "type rules `manifests.field-missing` (required Avro fields), `metadata.shape` (the "
        "metadata JSON Schema: required keys, JSON types, enums) and `puffin.footer-json` are "
        "listed where they check a field, but alone they do not make a field covered when a "
        "comparison of its value is still to be written.",
        "",
        "## Summary",
        "",
        "| table | fields | covered | of which partly | not yet | uncheckable |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for table, rows in tables.items():
        t = totals(rows)
        lines.append(f"| [{_cell(titles.get(table, table))}](#{table.replace('_', '-')}) | {t.fields} | "
                     f"{t.covered} | {t.partly} | {t.not_yet} | {t.uncheckable} |")
    t = totals(doc["fields"])
    lines.append(f"| **all** | **{t.fields}** | **{t.covered}** | **{t.partly}** | **{t.not_yet}** | "
                 f"**{t.uncheckable}** |")
    notes = {t["table"]: t["note"] for t in doc["tables"] if t.get("note")}
    for table, rows in tables.items():
        lines += ["", f"<a id=\"{table.replace('_', '-')}\"></a>",
                  f"## {_cell(titles.get(table, table))} (`{table}`)", ""]
        if table in notes:
            lines += [notes[table], ""]
        lines += [totals(rows).line() + ".", "",
                  "| field | versions | spec | status | rules | why none |",
                  "|---|---|---|---|---|---|"]
        for row in rows:
            rules = ", ".join(f"`{r}`" for r in row["rules"])
            why = row.get("why_none") or ""
            lines.append(f"| `{_cell(row['field'])}` | {_cell(row['versions'])} | "
                         f"{_source_link(row.get('source'), rev)} | {status(row)} | {rules} | {_cell(why)} |")
    return "\n".join(lines) + "\n"


# --- checking -------------------------------------------------------------------------------

def spec_fields_path() -> Path | None:
    """The spec walk's ``fields.json``: ``$ICEBERG_CONFORMANCE_SPEC_FIELDS``, else ``fields.json``
    beside ``$ICEBERG_CONFORMANCE_SPEC``; ``None`` when neither exists."""
    explicit = os.environ.get(FIELDS_ENV)
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    spec = os.environ.get(SPEC_ENV)
    if spec:
        beside = Path(spec).with_name("fields.json")
        if beside.is_file():
            return beside
    return None


_RULE_LITERAL = re.compile(r'"([a-z][a-z0-9_]*\.[a-z0-9][a-z0-9.-]*)"')


def _source_rule_literals() -> set[str]:
    """Dotted string literals written in the reference's and the checker's source."""
    out: set[str] = set()
    for folder in (HERE.parent / "reference", HERE):
        for path in sorted(folder.rglob("*.py")):
            if path.resolve() == Path(__file__).resolve():
                continue
            out.update(_RULE_LITERAL.findall(path.read_text(encoding="utf-8")))
    return out


def catalogued_rules() -> set[str] | None:
    """Ids of the rule catalogue; ``None`` while ``reference/rules.json`` is absent (empty)."""
    ids = set(catalogue())
    return ids or None


def check(doc: dict[str, JSON] | None = None, fields_path: Path | None = None) -> list[str]:
    """Problems of the coverage document (empty when it is sound); see the module docstring.
    ``fields_path`` defaults to :func:`spec_fields_path` (that comparison is skipped without it)."""
    doc = load() if doc is None else doc
    problems: list[str] = []
    listed_tables = [t.get("table") for t in doc.get("tables", [])]
    for table, n in Counter(listed_tables).items():
        if n > 1:
            problems.append(f"table {table!r} is listed {n} times in 'tables'")
    seen: Counter[tuple[str, str]] = Counter()
    used_rules: dict[str, str] = {}
    for i, row in enumerate(doc.get("fields", [])):
        where = f"fields[{i}] ({row.get('table')}: {row.get('field')})"
        missing = [k for k in ("table", "field", "versions", "rules", "why_none") if k not in row]
        if missing:
            problems.append(f"{where}: missing keys {missing}")
            continue
        if row["table"] not in listed_tables:
            problems.append(f"{where}: table is not listed in 'tables'")
        rules, why = row["rules"], row["why_none"]
        if not isinstance(rules, list) or not all(isinstance(r, str) and r for r in rules):
            problems.append(f"{where}: rules must be a list of rule ids")
            rules = []
        if len(set(rules)) != len(rules):
            problems.append(f"{where}: a rule is listed twice")
        if why is not None and (not isinstance(why, str) or not why.strip()):
            problems.append(f"{where}: why_none must be null or a sentence")
        if not rules and why is None:
            problems.append(f"{where}: no rule and no why_none")
        seen[(row["table"], row["field"])] += 1
        for r in rules:
            used_rules.setdefault(r, where)
    for (table, field), n in seen.items():
        if n > 1:
            problems.append(f"{table}: field {field!r} is listed {n} times")
    for table in listed_tables:
        if not any(t == table for t, _ in seen):
            problems.append(f"table {table!r} has no fields")
    try:
        known = catalogued_rules()
    except (OSError, ValueError, KeyError) as e:
        problems.append(f"the rule catalogue does not load: {e}")
        known = None
    if known is not None:
        problems += [f"{where}: rule {r} is not in the rule catalogue" for r, where in used_rules.items()
                     if r not in known]
    else:  # no catalogue yet: the id must at least be one the code reports
        written = _source_rule_literals()
        problems += [f"{where}: rule {r} is written nowhere in reference/ or checker/"
                     for r, where in used_rules.items() if r not in written]
    path = fields_path if fields_path is not None else spec_fields_path()
    if path is not None:
        problems += _check_against_spec_fields(doc, json.loads(path.read_text(encoding="utf-8")))
    return problems


def _check_against_spec_fields(doc: dict[str, JSON], spec_rows: list[dict[str, JSON]]) -> list[str]:
    problems: list[str] = []
    tables = [t["table"] for t in doc["tables"] if t["table"] not in EXTRA_TABLES]
    spec_tables = {r["table"] for r in spec_rows}
    for table in tables:
        if table not in spec_tables:
            problems.append(f"table {table!r} is not a table of fields.json")
            continue
        want = {field_name(r): versions_of(r) for r in spec_rows if r["table"] == table}
        have = {r["field"]: r["versions"] for r in doc["fields"] if r["table"] == table}
        problems += [f"{table}: field {f!r} of the spec is missing" for f in want if f not in have]
        problems += [f"{table}: field {f!r} is not a field of the spec's table" for f in have if f not in want]
        problems += [f"{table}: field {f!r} has versions {have[f]!r}, the spec says {v!r}"
                     for f, v in want.items() if f in have and have[f] != v]
    return problems


# --- command line ---------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m iceberg_conformance.checker.field_coverage",
                                     description="Render checker/field-coverage.json to Markdown.")
    parser.add_argument("--out", type=Path, default=DOC, help=f"Markdown file to write (default: {DOC})")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the JSON has problems or --out is not up to date")
    args = parser.parse_args(argv)
    doc = load()
    text = render(doc)
    if args.check:
        problems = check(doc)
        if not args.out.is_file() or args.out.read_text(encoding="utf-8") != text:
            problems.append(f"{args.out} is not up to date with {DATA.name}")
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    for table, rows in per_table(doc).items():
        print(f"{table}: {totals(rows).line()}")
    print(f"all: {totals(doc['fields']).line()}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
