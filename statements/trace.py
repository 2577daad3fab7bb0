"""Links between statements and what checks them: checker rules, vector case files, damage cases.

A statement is *checked* when at least one of these exercises it:

* a **checker rule** (``reference/rules.json``) whose ``quote`` is the statement's sentence or
  part of it, or contains it (compared as plain text: :func:`statements.plain`); a quote that
  matches several statements links only those in the rule's own section, and a quote that
  still matches more than :data:`MAX_FANOUT` links none (it is too general to say which);
* for a requirement cell of a field table (``_required_``), the rule that reports the field
  missing at those format versions, found from the kit's own tables: the JSON Schemas of
  table metadata (``metadata.shape``), the manifest and manifest-list field tables
  (``manifests.field-missing``), the manifest header keys (``manifests.header-missing``), the
  Puffin footer (``puffin.footer-json``): see :func:`presence_rule`;
* a **vector case file** (``vectors/``) whose ``spec`` quotes (file or test level, ``source``
  ``current``) match the statement the same way;
* a **damage case** (``checker/damage.py``): the case breaking a rule linked to the statement;
* an explicit link in ``links.json`` (``links``: statement id -> rules, vectors, why), for a
  check whose quote is another sentence than the one it enforces;
* a **golden table** (``links.json`` ``tables``: names registered in
  :mod:`iceberg_conformance.suites.golden.registry`) whose expected rows per snapshot follow from a
  reader rule (which deletes apply, how missing columns and inherited values are read): every
  reader the kit tests (the reference scan, PyIceberg, DuckDB, Iceberg Java) is compared with
  those rows, so a reader breaking the rule fails there.

Requirement cells are not matched by quote: their quote is the whole row, and a rule quoting
the row's description checks the description, not that the field is present.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

from iceberg_conformance.checker.damage import DAMAGES
from iceberg_conformance.reference import manifests as m
from iceberg_conformance.statements import MUST_LEVELS, plain, REASONS
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.vectors.cases import case_files, load_file, vectors_root

#: a quote matching more statements than this (after the section filter) links none
MAX_FANOUT = 3
#: the shortest contained text that counts as a match (shorter ones only when equal)
MIN_MATCH = 20
#: rule levels that are the kit's own limits, not spec statements
KIT_LEVELS = ("KIT", "KIT-LIMIT")


def _segments(section: str) -> list[str]:
    return [s.strip().lower() for s in re.split(r" > | / |: ", re.sub(r"\([^)]*\)", "", section)) if s.strip()]


def _same_section(hint: str, section: str) -> bool:
    """Does a rule's or vector's section name the statement's section (its last heading)?"""
    segs = _segments(hint)
    return bool(segs) and segs[-1] in section.lower()


def match(quote: str, statements: list[dict[str, Any]], section: str = "") -> list[str]:
    """Ids of the statements ``quote`` quotes (or is quoted by)."""
    q = plain(quote)
    if not q:
        return []
    found = []
    for s in statements:
        if s["kind"] == "requirement-cell":
            continue
        p = s["_plain"]
        if q == p or (len(q) >= MIN_MATCH and q in p) or (len(p) >= MIN_MATCH and p in q):
            found.append(s)
    if len(found) > 1 and section:
        narrowed = [s for s in found if _same_section(section, s["section"])]
        found = narrowed or found
    if len(found) > MAX_FANOUT:
        return []
    return [s["id"] for s in found]


# --- the kit's data --------------------------------------------------------------------------------

def rules() -> dict[str, dict[str, Any]]:
    text = resources.files("iceberg_conformance.reference").joinpath("rules.json").read_text(encoding="utf-8")
    return {r["id"]: r for r in json.loads(text)["rules"]}


def vector_quotes() -> dict[str, list[tuple[str, str]]]:
    """Vector case file (path under vectors/) -> its (section, quote) pairs from the current spec."""
    root = vectors_root()
    out: dict[str, list[tuple[str, str]]] = {}
    for path in case_files(root):
        doc = json.loads(path.read_text(encoding="utf-8"))
        specs = list(doc.get("spec", []))
        for t in doc.get("tests", []):
            specs.extend(t.get("spec", []) or [])
        pairs = [(s.get("section", ""), s["quote"]) for s in specs
                 if s.get("quote") and s.get("source", "current") == "current"]
        out[path.relative_to(root).as_posix()] = pairs
    return out


def golden_tables() -> set[str]:
    """Names of the golden tables (``suites/spark``: Spark's and the other producers')."""
    return set(golden.REGISTRY)


def damage_cases() -> dict[str, str]:
    """Damage case name (as ``iceberg-conformance damage`` writes it) -> the rule it breaks."""
    return {d.rule.replace(".", "_"): d.rule for d in DAMAGES}


@lru_cache(maxsize=1)
def _metadata_schemas() -> dict[int, dict[str, Any]]:
    base = resources.files("iceberg_conformance.reference").joinpath("metadata_schemas")
    return {v: json.loads(base.joinpath(f"metadata-v{v}.schema.json").read_text(encoding="utf-8")) for v in (1, 2, 3)}


#: field tables of table metadata JSON: section (ends with) -> JSON Schema definition ("" = top level)
_JSON_TABLES = {
    "Table Metadata Fields": "",
    "Specification > Snapshots": "snapshot",
    "Snapshot References": "ref",
    "Partition Statistics": "partition-statistics-file",
    "Encryption Keys": "encryption-key",
    "Appendix C: JSON serialization > Schemas": "schema",
    "Appendix C: JSON serialization > Partition Specs": "partition-field",
    "Appendix C: JSON serialization > Sort Orders": "sort-field",
}


def _json_required(definition: str, version: int) -> set[str]:
    schema = _metadata_schemas()[version]
    node = schema if not definition else schema.get("$defs", {}).get(definition, {})
    return set(node.get("required", []))


def _field_id(row: str) -> int | None:
    m = re.search(r"\*\*`?(\d+)\s", row)
    return int(m.group(1)) if m else None


def presence_rule(st: dict[str, Any]) -> str | None:
    """The rule that reports a required field missing at every version of a requirement
    cell, or None when the kit does not check that field's presence (at one of them); for a
    blank cell, the rule that reports the field written (:func:`omission_rule`)."""
    if st.get("kind") != "requirement-cell" or st["document"] not in ("table", "puffin"):
        return None
    if st.get("level") == "SHOULD NOT":
        return omission_rule(st)
    if st.get("level") != "REQUIRED":
        return None
    versions = [v for v in st.get("versions") or [] if v in (1, 2, 3)]
    section, name = st["section"], st.get("field") or ""
    if st["document"] == "puffin":
        return "puffin.footer-json" if section.endswith(("FileMetadata", "BlobMetadata")) else None
    if not versions or versions != st.get("versions"):
        return None  # a v4 cell: the kit checks v1-v3 tables

    fid = _field_id(st["quote"])
    if section.endswith(("Manifest Entry Fields", "Data File Fields", "Manifest Lists")) and fid is not None:
        if fid in (2, 102):
            return "manifests.field-missing"  # refused when the schema is read
        if fid == 509 and section.endswith("Manifest Lists"):
            return "manifests.field-missing"  # field_summary.contains_null, checked when the list is read
        entry_rows = [(0, "status", None, True, 1, 3), (1, "snapshot_id", None, True, 1, 1)]
        rows = {r[0]: r for r in (entry_rows + list(m._DATA_FILE) + list(m._MANIFEST_FILE))}
        row = rows.get(fid)
        if row is None or not row[3]:
            return None
        if not all(row[4] <= v <= row[5] for v in versions):
            return None
        if section.endswith("Manifest Lists") and 1 in versions and fid in m._V1_OPTIONAL_COUNTS:
            return None
        return "manifests.field-missing"
    if section.endswith("Specification > Manifests") and name in ("schema", "schema-id", "partition-spec",
                                                                  "partition-spec-id", "format-version", "content"):
        if all(name in m.required_header_keys(v) for v in versions):
            return "manifests.header-schema-id" if name == "schema-id" else "manifests.header-missing"
        return None
    if section.endswith("Table Statistics"):
        definition = "blob-metadata" if (st.get("table") or "").lower().startswith("blob") else "statistics-file"
    else:
        definition = next((d for sec, d in _JSON_TABLES.items() if section.endswith(sec)), None)  # type: ignore[assignment]
        if definition is None:
            return None
    if all(name in _json_required(definition, v) for v in versions):
        return "metadata.shape"
    return None


#: Appendix C tables of JSON representations -> JSON Schema definitions that type their fields
_JSON_ROWS = {
    "Table Metadata and Snapshots": "",
    "Sort Orders": "sort-order",
    "Partition Specs": "partition-spec",
}


def json_shape_rule(st: dict[str, Any]) -> str | None:
    """``metadata.shape`` for a row of an Appendix C table whose field the kit's JSON Schemas
    type at every version (the shape check refuses a value of another JSON type)."""
    if st.get("kind") != "table-row" or not st["section"].startswith("Appendix C"):
        return None
    definition = next((d for sec, d in _JSON_ROWS.items() if st["section"].endswith(sec)), None)
    if definition is None:
        return None
    name = plain(st.get("row_key") or "")
    for v in (1, 2, 3):
        schema = _metadata_schemas()[v]
        node = schema if not definition else schema.get("$defs", {}).get(definition, {})
        props = dict(node.get("properties", {}))
        if definition == "sort-order":
            props.update(schema.get("$defs", {}).get("sort-field", {}).get("properties", {}))
        if name in props and props[name] not in (True, {}):
            return "metadata.shape"
    return None


# --- vector tests by the table row they compute ---------------------------------------------------

#: operations whose every test computes one row of a definition table, picked by the input type
#: (or transform): operation -> section of that table (its end)
OPERATION_TABLES = {
    "hash": "Appendix B: 32-bit Hash Requirements",
    "binary": "Binary single-value serialization",
    "value-json": "JSON single-value serialization",
    "type-json": "Appendix C: JSON serialization > Schemas",
}


def _base(type_: Any) -> str:
    """``decimal(9, 2)`` -> ``decimal``, ``fixed[4]`` -> ``fixed``; a nested type -> its kind."""
    if isinstance(type_, dict):
        return str(type_.get("type", ""))
    m = re.match(r"[a-z_0-9]+", str(type_).strip().lower())
    return m.group(0) if m else ""


def _row_base(st: dict[str, Any]) -> str:
    """The type (or transform) a definition-table row is about."""
    if st["section"].endswith("Appendix C: JSON serialization > Schemas"):
        m = re.search(r'"type": "([a-z]+)"', st["quote"]) or re.search(r'JSON string: "([a-z_]+)', st["quote"])
        return m.group(1) if m else ""
    return _base(plain(st.get("row_key") or "").replace("*", ""))


def _types_in(schema: Any, out: set[str]) -> set[str]:
    if isinstance(schema, dict):
        if schema.get("type") in ("struct", "list", "map"):
            out.add(str(schema["type"]))
        for f in schema.get("fields") or []:
            _types_in(f.get("type"), out)
        for k in ("element", "key", "value"):
            if k in schema:
                _types_in(schema[k], out)
    elif isinstance(schema, str):
        out.add(_base(schema))
    return out


def vector_rows(statements: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Statement id -> vector case files with a test computing that definition-table row: a
    hash, binary or JSON single value, or type string of the row's type; a transform of the
    row's transform (and truncate of the row's type); a bound read back by its length (the
    promoted-bounds table); the type strings and transforms a schema or partition spec JSON case
    serializes."""
    rows: dict[str, dict[str, str]] = {}
    for st in statements:
        if st["kind"] == "table-row":
            rows.setdefault(st["section"], {})[_row_base(st)] = st["id"]
            if st["section"].endswith("Schema Evolution") and " / " in (st.get("row_key") or ""):
                t, n = (plain(x) for x in st["row_key"].split(" / ", 1))
                rows[st["section"]][f"{_base(t)}/{n.split()[0]}"] = st["id"]

    def table(end: str) -> dict[str, str]:
        return next((v for k, v in rows.items() if k.endswith(end)), {})

    out: dict[str, set[str]] = {}

    def add(sid: str | None, file: str) -> None:
        if sid:
            out.setdefault(sid, set()).add(file)

    root = vectors_root()
    transforms, truncate = table("Partition Transforms"), table("Truncate Transform Details")
    json_types, json_transforms = table("Appendix C: JSON serialization > Schemas"), table("Appendix C: JSON serialization > Partition Specs")
    promoted = table("Schemas and Data Types > Schema Evolution")
    for path in case_files(root):
        file = path.relative_to(root).as_posix()
        for case in load_file(path):
            inp = case.input if isinstance(case.input, dict) else {}
            if case.operation in OPERATION_TABLES:
                add(table(OPERATION_TABLES[case.operation]).get(_base(inp.get("type"))), file)
            if case.operation == "binary" and "bytes" in inp and case.error is None:
                # a bound read by its length: 4-byte long = int, 8-byte long = long, ...
                add(promoted.get(f"{_base(inp.get('type'))}/{len(str(inp['bytes'])) // 2}"), file)
            if case.operation in ("transform", "transform-result-type") and "transform" in inp:
                name = _base(inp["transform"])
                add(transforms.get(name), file)
                if name == "truncate":
                    add(truncate.get(_base(inp.get("type"))), file)
            if case.operation == "schema-json" and isinstance(inp.get("schema"), dict):
                for t in _types_in(inp["schema"], set()):
                    add(json_types.get(t), file)
            if case.operation == "partition-spec-json" and isinstance(inp.get("spec"), dict):
                for f in inp["spec"].get("fields") or []:
                    add(json_transforms.get(_base(f.get("transform"))), file)
    return out


def omission_rule(st: dict[str, Any]) -> str | None:
    """The rule that reports a field written at a version whose cell is blank ("The field
    should be omitted"), or None: deprecated data_file fields (``manifests.deprecated-field``)
    and ``source-ids`` of v1/v2 partition and sort fields (``metadata.type-version``)."""
    versions = st.get("versions") or []
    fid = _field_id(st["quote"])
    if st["section"].endswith("Data File Fields") and fid in m.DEPRECATED and versions and all(v >= 2 for v in versions):
        return "manifests.deprecated-field"
    if st["section"].endswith(("Partition Specs", "Sort Orders")) and st.get("field") == "source-ids" and versions == [1, 2]:
        return "metadata.type-version"
    return None


# --- attaching --------------------------------------------------------------------------------------

def links_file() -> dict[str, Any]:
    try:
        text = resources.files("iceberg_conformance.statements").joinpath("links.json").read_text(encoding="utf-8")
    except OSError:
        return {}
    doc: dict[str, Any] = json.loads(text)
    return doc


def compute(statements: list[dict[str, Any]], links: dict[str, Any] | None = None) -> dict[str, dict[str, list[str]]]:
    """Statement id -> {"rules", "vectors", "damage", "tables"}: everything that checks it."""
    links = links_file() if links is None else links
    for s in statements:
        s["_plain"] = plain(s["quote"])
    out: dict[str, dict[str, set[str]]] = {s["id"]: {"rules": set(), "vectors": set(), "damage": set(), "tables": set()}
                                           for s in statements}
    try:
        for rid, r in rules().items():
            if r.get("level") in KIT_LEVELS or not r.get("quote"):
                continue
            for sid in match(r["quote"], statements, r.get("section") or ""):
                out[sid]["rules"].add(rid)
        for s in statements:
            for rule in (presence_rule(s), json_shape_rule(s)):
                if rule:
                    out[s["id"]]["rules"].add(rule)
        for sid, files in vector_rows(statements).items():
            out[sid]["vectors"].update(files)
        for file, pairs in vector_quotes().items():
            for section, quote in pairs:
                for sid in match(quote, statements, section):
                    out[sid]["vectors"].add(file)
        for sid, extra in (links.get("links") or {}).items():
            if sid in out:
                out[sid]["rules"].update(extra.get("rules", []))
                out[sid]["vectors"].update(extra.get("vectors", []))
                out[sid]["tables"].update(extra.get("tables", []))
        damages = damage_cases()
        for sid, got in out.items():
            got["damage"].update(case for case, rule in damages.items() if rule in got["rules"])
    finally:
        for s in statements:
            s.pop("_plain", None)
    return {sid: {k: sorted(v) for k, v in got.items()} for sid, got in out.items()}


def attach(statements: list[dict[str, Any]]) -> None:
    """Set ``checked_by`` of every statement (in place)."""
    found = compute(statements)
    for s in statements:
        s["checked_by"] = found[s["id"]]


def checked(st: dict[str, Any]) -> bool:
    by = st.get("checked_by") or {}
    return any(by.get(k) for k in ("rules", "vectors", "damage", "tables"))


def all_ids(statements: Iterable[dict[str, Any]]) -> set[str]:
    return {s["id"] for s in statements}


def problems(statements: list[dict[str, Any]], links: dict[str, Any]) -> list[str]:
    """What is wrong with the links: an id, rule, vector file, golden table or damage case that
    does not exist, a reason that is not one of :data:`REASONS`, a reason kept for a statement that is
    checked (stale), an unchecked MUST-level statement without a reason."""
    ids = all_ids(statements)
    known_rules = set(rules())
    root = vectors_root()
    known_vectors = {p.relative_to(root).as_posix() for p in case_files(root)}
    known_damage = set(damage_cases())
    known_tables = golden_tables()
    out: list[str] = []
    for sid, extra in (links.get("links") or {}).items():
        if sid not in ids:
            out.append(f"links.json links: no statement {sid!r}")
        out += [f"links.json links[{sid}]: no rule {r!r}" for r in extra.get("rules", []) if r not in known_rules]
        out += [f"links.json links[{sid}]: no vector file {v!r}" for v in extra.get("vectors", []) if v not in known_vectors]
        out += [f"links.json links[{sid}]: no golden table {t!r}" for t in extra.get("tables", []) if t not in known_tables]
        if not extra.get("why"):
            out.append(f"links.json links[{sid}]: no 'why'")
    found = compute(statements, links)
    for sid, r in (links.get("unchecked") or {}).items():
        if sid not in ids:
            out.append(f"links.json unchecked: no statement {sid!r}")
            continue
        if r.get("reason") not in REASONS:
            out.append(f"links.json unchecked[{sid}]: reason {r.get('reason')!r} is not one of {', '.join(REASONS)}")
        if any(found[sid].values()):
            out.append(f"links.json unchecked[{sid}]: the statement is checked now ({found[sid]}); drop the reason")
    reasons = links.get("unchecked") or {}
    for s in statements:
        if s["level"] in MUST_LEVELS and not any(found[s["id"]].values()) and s["id"] not in reasons:
            out.append(f"{s['id']}: an unchecked {s['level']} statement without a reason in links.json unchecked")
        by = s.get("checked_by") or {}
        out += [f"{s['id']}: checked_by names no rule {r!r}" for r in by.get("rules", []) if r not in known_rules]
        out += [f"{s['id']}: checked_by names no vector file {v!r}" for v in by.get("vectors", []) if v not in known_vectors]
        out += [f"{s['id']}: checked_by names no damage case {d!r}" for d in by.get("damage", []) if d not in known_damage]
        out += [f"{s['id']}: checked_by names no golden table {t!r}" for t in by.get("tables", []) if t not in known_tables]
    return out
