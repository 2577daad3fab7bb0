"""Generate ``statements/index.json`` from the pinned texts of the specifications.

Usage (from a checkout; the texts are arguments, never stored in the repository)::

    python -m iceberg_conformance.statements.generate SPEC_MD PUFFIN_MD \\
        [--revision SHA] [--parquet LOGICALTYPES] [--arrow SCHEMA_FBS] [--out PATH] [--dry-run]
    python -m iceberg_conformance.statements.generate --relink   # refresh checked_by only

After either, reasons that ``links.json`` keeps for statements now checked are dropped, and the
unchecked MUST statements that still need a reason are listed.

``SPEC_MD`` and ``PUFFIN_MD`` are apache/iceberg ``format/spec.md`` and ``format/puffin-spec.md``
at one commit (``--revision``; default: a ``REVISION`` file beside ``SPEC_MD``, else the
SHA-256 of the text). ``--parquet`` and ``--arrow`` are Parquet ``LogicalTypes.md`` and Arrow
``Schema.fbs`` (as Markdown/FlatBuffers text, or as the web captures in ``shared/seeds``);
without them the statements of those documents are kept from the existing index.

What is a statement:

* every sentence (paragraph, list item, table cell) with a normative keyword (:data:`KEYWORD`),
  unless ``curation.json`` lists it under ``not_normative`` with a reason; a list item whose
  lead-in sentence has the keyword ("The blob's ``properties`` must:") counts too;
* every sentence ``curation.json`` lists under ``declarative`` (a rule stated without a
  keyword, e.g. "The value of ``first_row_id`` for delete files is always ``null``.");
* every row of a definition table (:data:`ROW_TABLES`: the writer requirements, the
  serialization, hashing and type-mapping tables), quoted whole;
* every requirement cell of a field table (a column per format version, or Puffin's
  ``Required``): ``_required_`` is REQUIRED, ``_optional_`` MAY, a blank cell SHOULD NOT
  ("The field should be omitted"); the quote is the whole row.

The level is the keyword's (MUST NOT before MUST, SHOULD NOT before SHOULD; ``required`` is
REQUIRED, ``recommended`` SHOULD, ``may``/``optional``/``allowed`` MAY); a sentence without a
keyword is ``implied`` MUST. ``curation.json`` overrides the level and gives the short hint of
an id, keyed by a fingerprint of the quote (:func:`fingerprint`), so it holds no spec text.

A statement's id is ``<document>.<section slug>.<hint>`` (:func:`section_slug`,
:func:`auto_hint`): derived from the text, never from a counter, so it survives unrelated
edits. A sentence that changes slightly keeps its id (the nearest quote of the old index in the
same section, similarity >= 0.8). Against the existing index the script prints the ids added,
removed and changed.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field as dc_field
from pathlib import Path
from typing import Any, Iterable, Iterator

from iceberg_conformance.statements import MUST_LEVELS, plain
from iceberg_conformance.statements.trace import attach, checked

HERE = Path(__file__).resolve().parent
INDEX = HERE / "index.json"
CURATION = HERE / "curation.json"

KEYWORD = re.compile(
    r"\b(must|shall|should|may|required|requires|require|recommended|not allowed|are allowed|is allowed|"
    r"cannot|can't|never|optional|mandatory|not supported|reserved)\b", re.I)

#: documents: name -> title of the document (the top heading, dropped from section paths)
DOCUMENTS = {
    "table": "apache/iceberg format/spec.md",
    "puffin": "apache/iceberg format/puffin-spec.md",
    "parquet": "apache/parquet-format LogicalTypes.md",
    "arrow": "apache/arrow format/Schema.fbs",
}

#: definition tables whose every row is a statement: (document, section ends with, first header
#: cell, the cells that name a row). Rows are quoted whole.
ROW_TABLES: list[tuple[str, str, str, tuple[int, ...]]] = [
    ("table", "Writer requirements", "Requirement", (0,)),
    ("table", "Writer requirements", "v1", (0, 1)),
    ("table", "Primitive Types", "Added by version", (1,)),
    ("table", "Schema Evolution", "Primitive type", (0,)),
    ("table", "Schema Evolution", "Current type", (0, 1)),
    ("table", "Reserved Field IDs", "Field id, name", (0,)),
    ("table", "Partition Transforms", "Transform name", (0,)),
    ("table", "Truncate Transform Details", "**Type**", (0,)),
    ("table", "Position Delete Files", "Field id, name", (0,)),
    ("table", "Appendix A: Format-specific Requirements > Avro", "Type", (0,)),
    ("table", "Appendix A: Format-specific Requirements > Avro", "ID", (0,)),
    ("table", "Appendix A: Format-specific Requirements > Parquet", "Type", (0,)),
    ("table", "Appendix A: Format-specific Requirements > ORC", "Type", (0,)),
    ("table", "Appendix A: Format-specific Requirements > ORC", "Iceberg writer", (0,)),
    ("table", "Appendix B: 32-bit Hash Requirements", "Primitive type", (0,)),
    ("table", "Appendix C: JSON serialization > Schemas", "Type", (0,)),
    ("table", "Appendix C: JSON serialization > Partition Specs", "Field", (0,)),
    ("table", "Appendix C: JSON serialization > Partition Specs", "Transform or Field", (0,)),
    ("table", "Appendix C: JSON serialization > Sort Orders", "Field", (0,)),
    ("table", "Appendix C: JSON serialization > Table Metadata and Snapshots", "Metadata field", (0,)),
    ("table", "Appendix C: JSON serialization > Name Mapping Serialization", "Field mapping field", (0,)),
    ("table", "Binary single-value serialization", "Type", (0,)),
    ("table", "Bound serialization", "Type", (0,)),
    ("table", "JSON single-value serialization", "Type", (0,)),
    ("puffin", "Compression codecs", "Codec name", (0,)),
]

#: sections of Parquet LogicalTypes.md the kit's Parquet mapping relies on (reference/parquet.py)
PARQUET_SECTIONS = ("Metadata", "Compatibility", "String Types > STRING", "String Types > UUID",
                    "Numeric Types > Signed Integers", "Numeric Types > DECIMAL", "Temporal Types > DATE",
                    "Temporal Types > TIME", "Temporal Types > TIMESTAMP", "Nested Types", "UNKNOWN (always null)")
#: declarations of Arrow Schema.fbs the kit's Arrow mapping relies on (reference/arrow.py)
ARROW_SECTIONS = ("Null", "Struct_", "List", "LargeList", "Map", "Int", "FloatingPoint", "Utf8", "Binary",
                  "LargeUtf8", "LargeBinary", "FixedSizeBinary", "Bool", "Decimal", "DateUnit", "Date", "Time",
                  "Timestamp", "Field")

PROTECT = [("e.g.", "e\u2024g\u2024"), ("i.e.", "i\u2024e\u2024"), ("vs.", "vs\u2024"), ("etc.)", "etc\u2024)")]
STOP = {"a", "an", "the", "of", "to", "is", "are", "be", "in", "for", "and", "or", "that", "this", "it", "its",
        "with", "as", "by", "on", "at", "from", "when", "if", "which", "must", "should", "may", "shall", "will",
        "can", "so", "than", "these", "those", "there", "their", "has", "have", "been", "also", "any", "all",
        "each", "every", "only", "into", "such", "then", "used", "using", "use"}


# --- text helpers ---------------------------------------------------------------------------------

def collapse(text: str) -> str:
    """White space collapsed (quotes are verbatim up to white space)."""
    return " ".join(text.split())


def fingerprint(doc: str, quote: str, extra: str = "") -> str:
    """The curation key of a statement: 12 hex digits of SHA-1 over the document, the plain
    text of the quote and, for requirement cells, their level and versions."""
    return hashlib.sha1(f"{doc}\0{plain(quote)}\0{extra}".encode("utf-8")).hexdigest()[:12]


def slug(text: str, words: int = 6, drop: Iterable[str] = ()) -> str:
    dropped = set(drop)
    parts = [w for w in re.findall(r"[a-z0-9]+", plain(text).replace("_", "-").replace("'", ""))
             if w not in dropped]
    return "-".join(parts[:words])


def split_sentences(text: str) -> list[str]:
    t = text
    for a, b in PROTECT:
        t = t.replace(a, b)
    out = []
    for p in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9`*_(\[~\"])", t):
        for a, b in PROTECT:
            p = p.replace(b, a)
        p = p.strip()
        if p:
            out.append(p)
    return out


def keyword_level(text: str) -> str | None:
    """The normative level a sentence's keywords give, strongest first; None without one."""
    t = plain(text)
    if re.search(r"\b(must not|shall not|must never|cannot|can't|is not allowed|are not allowed|not allowed|"
                 r"may not|never|not supported)\b", t):
        return "MUST NOT"
    if re.search(r"\b(must|shall|mandatory)\b", t):
        return "MUST"
    if re.search(r"\b(required|requires|require)\b", t):
        return "REQUIRED"
    if re.search(r"\b(should not)\b", t):
        return "SHOULD NOT"
    if re.search(r"\b(should|recommended)\b", t):
        return "SHOULD"
    if re.search(r"\b(may|optional|is allowed|are allowed|reserved)\b", t):
        return "MAY"
    return None


def section_slug(section: str) -> str:
    """``Manifests > Manifest Entry Fields > Data File Fields`` -> ``manifests.data-file-fields``:
    the first heading and, below it, the last one without the words of the first."""
    heads = [h for h in section.split(" > ") if h]
    while len(heads) > 1 and heads[0] in ("Specification", "Overview", "Format specification"):
        heads = heads[1:]
    if not heads:
        return "document"

    def one(h: str, drop: Iterable[str] = ()) -> str:
        m = re.match(r"Appendix ([A-Z])\b", h)
        if m:
            return f"appendix-{m.group(1).lower()}"
        return slug(h, 5, set(drop) | {"and", "the", "of", "for", "a"})

    first = one(heads[0])
    if len(heads) == 1:
        return first
    last = one(heads[-1], first.split("-")) or one(heads[-1])
    return f"{first}.{last}"


def auto_hint(quote: str) -> str:
    """A short hint from the words of a sentence (stop words dropped)."""
    words = [w for w in re.findall(r"[a-z0-9]+", plain(quote).replace("_", "-")) if w not in STOP]
    return "-".join(words[:6]) or "statement"


# --- parsing Markdown into blocks --------------------------------------------------------------------

@dataclass
class Block:
    kind: str                        # para, item, table, tab
    heading: str
    lines: list[tuple[int, str]]
    indent: int = -1
    tab: str | None = None


def _strip_capture(lines: list[str]) -> list[tuple[int, str]]:
    """A GitHub web capture of a Markdown file: drop the page chrome and the column of line
    numbers, start at the file's first line (its licence comment or first heading)."""
    numbered = [(i, l) for i, l in enumerate(lines, 1)]
    start = 0
    for k, (_, l) in enumerate(numbered):
        if l.strip().startswith("<!--") or l.startswith("# "):
            start = k
            break
    return [(i, l) for i, l in numbered[start:] if not re.fullmatch(r"\s*\d+\s*", l)]


def markdown_blocks(text: str, title_levels: int = 1, captured: bool = False) -> list[Block]:
    raw = text.split("\n")
    lines = _strip_capture(raw) if captured else list(enumerate(raw, 1))
    stack: list[tuple[int, str]] = []
    blocks: list[Block] = []
    cur: Block | None = None
    in_code = in_comment = in_html = False
    tab: str | None = None
    tab_indent = 0

    def flush() -> None:
        nonlocal cur
        if cur is not None and cur.lines:
            blocks.append(cur)
        cur = None

    def heading() -> str:
        return " > ".join(t for lvl, t in stack if lvl > title_levels)

    for k, (i, line) in enumerate(lines):
        s = line.strip()
        if s.startswith("<!--"):
            in_comment = True
        if in_comment:
            if "-->" in s:
                in_comment = False
            continue
        if s.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if s.startswith("<table"):
            flush()
            in_html = True
        if in_html:
            if s.startswith("</table"):
                in_html = False
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        nxt = lines[k + 1][1].strip() if k + 1 < len(lines) else ""
        setext = captured and s and not s.startswith(("|", "*", "-")) and re.fullmatch(r"={3,}|-{3,}", nxt)
        if m or setext:
            flush()
            tab = None
            lvl = len(m.group(1)) if m else (1 if nxt.startswith("=") else 2)
            title = (m.group(2) if m else s).strip()
            while stack and stack[-1][0] >= lvl:
                stack.pop()
            stack.append((lvl, title))
            continue
        if captured and re.fullmatch(r"={3,}|-{3,}", s):
            continue
        if not s:
            flush()
            continue
        if s.startswith("=== "):
            flush()
            tab = s[4:].strip().strip('"')
            tab_indent = 4
            continue
        if tab is not None and not line.startswith(" " * tab_indent):
            tab = None
        if s.startswith("|"):
            if cur is None or cur.kind != "table":
                flush()
                cur = Block("table", heading(), [], tab=tab)
            cur.lines.append((i, s))
            continue
        if cur is not None and cur.kind == "table":
            flush()
        if captured and re.fullmatch(r"[*_][^*_]+[*_]:?", s):  # *Compatibility* on its own line
            flush()
            blocks.append(Block("para", heading(), [(i, s)]))
            continue
        body = line[tab_indent:] if tab is not None else line
        lm = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", body)
        if lm:
            flush()
            cur = Block("item", heading(), [(i, lm.group(3).strip())], indent=len(lm.group(1)), tab=tab)
            continue
        if cur is not None and cur.kind in ("para", "item"):
            cur.lines.append((i, s))
            continue
        flush()
        cur = Block("para", heading(), [(i, s)], tab=tab)
    flush()
    return blocks


def split_row(row: str) -> list[str]:
    body = row.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def is_separator(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) or c == "" for c in cells) and any("-" in c for c in cells)


# --- candidate statements --------------------------------------------------------------------------

@dataclass
class Candidate:
    doc: str
    section: str
    kind: str
    quote: str
    line: int
    row_key: str | None = None
    lead_in: str | None = None
    level: str | None = None          # for requirement cells and row tables
    versions: list[int] | None = None
    field: str | None = None
    tab: str | None = None
    keyword: bool = True
    subject: str | None = None        # what the table describes (from the sentence before it)
    extra: dict[str, Any] = dc_field(default_factory=dict)

    @property
    def fp(self) -> str:
        tail = f"{self.level}:{''.join(map(str, self.versions or []))}" if self.kind == "requirement-cell" else ""
        return fingerprint(self.doc, self.quote, tail)


VERSION_COLUMNS = {"v1": [1], "v2": [2], "v3": [3], "v4": [4], "v2 and v3": [2, 3]}
NAME_COLUMNS = ("field id, name", "key", "field", "field name", "name", "metadata field")


def _requirement(cell: str) -> str:
    c = cell.strip().strip("_").strip().lower()
    return {"required": "REQUIRED", "optional": "MAY", "yes": "REQUIRED", "no": "MAY", "": "SHOULD NOT"}.get(c, "")


def _field_name(cell: str) -> str:
    c = cell.replace("~~", "").replace("**", "").replace("`", "").strip()
    m = re.match(r"^(\d+)\s+(.+)$", c)
    return m.group(2).strip() if m else c


def _row_table(doc: str, heading: str, first: str) -> tuple[int, ...] | None:
    """The key cells of a definition table, None for another table."""
    for d, sec, head, key in ROW_TABLES:
        if d == doc and heading.endswith(sec) and first == head:
            return key
    return None


def _without_code(text: str) -> str:
    return re.sub(r"`[^`]*`", "", text)


def table_subject(intro: str | None) -> str | None:
    """What a table describes, from the sentence that introduces it: its first code span
    (``The `geo_lower` struct is defined as:``), else its first words."""
    if not intro:
        return None
    m = re.search(r"`([^`]+)`", intro)
    return m.group(1) if m else slug(intro, 2, STOP)


def table_candidates(doc: str, b: Block, intro: str | None = None) -> Iterator[Candidate]:
    header = split_row(b.lines[0][1])
    hl = [h.replace("**", "").strip().lower() for h in header]
    rows = [(ln, row) for ln, row in b.lines[1:] if not is_separator(split_row(row))]
    version_cols = [(k, VERSION_COLUMNS[h]) for k, h in enumerate(hl) if h in VERSION_COLUMNS]
    required_col = next((k for k, h in enumerate(hl) if h in ("required", "requirement")), None)
    name_col = next((k for k, h in enumerate(hl) if h in NAME_COLUMNS), None)
    key_cells = _row_table(doc, b.heading, header[0].strip())
    if key_cells is not None:
        for ln, row in rows:
            cells = split_row(row) + [""] * len(header)
            key = " / ".join(cells[k] or "(blank)" for k in key_cells)
            rest = _without_code(" ".join(c for k, c in enumerate(cells) if k not in key_cells))
            level = keyword_level(rest)
            yield Candidate(doc, b.heading, "table-row", collapse(row), ln, row_key=key, level=level or "MUST",
                            keyword=level is not None, tab=b.tab)
        return
    field_table = name_col is not None and (version_cols or required_col is not None)
    if field_table:
        for ln, row in rows:
            cells = split_row(row) + [""] * len(hl)
            name = _field_name(cells[name_col])  # type: ignore[index]
            groups: dict[str, list[int]] = {}
            if version_cols:
                shown: dict[int, str] = {}
                for k, vs in version_cols:
                    for v in vs:
                        shown[v] = _requirement(cells[k])
                # a version not shown keeps the most recent requirement shown (Writer requirements)
                if shown and max(shown) < 3 and min(shown) < 4:
                    for v in range(max(shown) + 1, 4):
                        shown[v] = shown[max(shown)]
                for v in sorted(shown):
                    if shown[v]:
                        groups.setdefault(shown[v], []).append(v)
            elif required_col is not None:
                lv = _requirement(cells[required_col])
                if lv:
                    groups[lv] = [] if doc == "puffin" else [4]
            for lv, vs in groups.items():
                yield Candidate(doc, b.heading, "requirement-cell", collapse(row), ln, row_key=name, level=lv,
                                versions=vs, field=name, tab=b.tab, subject=table_subject(intro))
    # keyword sentences in cells (descriptions of field tables, other tables)
    for ln, row in rows:
        cells = split_row(row)
        key = _field_name(cells[name_col]) if name_col is not None and name_col < len(cells) else cells[0]
        for k, c in enumerate(cells):
            if k < len(hl) and (hl[k] in VERSION_COLUMNS or hl[k] in ("required", "requirement")):
                continue
            kind = "field-table-cell" if field_table else "table-cell"
            sentences = split_sentences(c)
            for sent in sentences:
                yield Candidate(doc, b.heading, kind, sent, ln, row_key=key, tab=b.tab, keyword=bool(KEYWORD.search(sent)))
            if len(sentences) > 1:  # a whole cell is a statement only when curation.json says so
                yield Candidate(doc, b.heading, kind, collapse(c), ln, row_key=key, tab=b.tab, keyword=False,
                                extra={"whole": True})


def prose_candidates(doc: str, blocks: list[Block]) -> Iterator[Candidate]:
    lead: list[tuple[int, str, bool]] = []
    intro: str | None = None
    for b in blocks:
        if b.kind == "table":
            yield from table_candidates(doc, b, intro)
            intro = None
            continue
        text = " ".join(t for _, t in b.lines)
        intro = split_sentences(text)[-1] if text.rstrip().endswith(":") and b.kind == "para" else None
        if b.kind == "para":
            lead = []
        else:
            while lead and lead[-1][0] >= b.indent:
                lead.pop()
        lead_in, lead_kw = (lead[-1][1], lead[-1][2]) if lead and b.kind == "item" else (None, False)
        sentences = split_sentences(text)
        for s in sentences:
            kw = bool(KEYWORD.search(s))
            c = Candidate(doc, b.heading, "list-item" if b.kind == "item" else "sentence", s, b.lines[0][0],
                          lead_in=lead_in if b.kind == "item" else None, tab=b.tab, keyword=kw or lead_kw)
            if not kw and lead_kw:
                c.extra["keyword_from_lead_in"] = True
            yield c
        if len(sentences) > 1:  # a whole paragraph or item is a statement only when curation.json says so
            yield Candidate(doc, b.heading, "list-item" if b.kind == "item" else "sentence", collapse(text),
                            b.lines[0][0], tab=b.tab, keyword=False, extra={"whole": True})
        if text.rstrip().endswith(":") and sentences:
            lead.append((b.indent, sentences[-1], bool(KEYWORD.search(text)) or lead_kw))


def arrow_candidates(text: str) -> Iterator[Candidate]:
    """Doc comments (``///``) of the declarations in :data:`ARROW_SECTIONS`, by declaration and
    field (``Timestamp > timezone``); inline ``//`` comments after a field count too."""
    comment: list[tuple[int, str]] = []
    current: str | None = None
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s.startswith("///"):
            comment.append((i, s[3:].strip()))
            continue
        m = re.match(r"^(table|struct|enum|union)\s+(\w+)", s)
        fm = re.match(r"^(\w+)\s*:\s*[^;]+;\s*(//\s*(.*))?$", s)
        if m:
            current = m.group(2)
            section = current
        elif fm and current is not None:
            section = f"{current} > {fm.group(1)}"
            if fm.group(3):
                comment.append((i, fm.group(3).strip()))
        else:
            if s.startswith("}"):
                current = None
            if not s.startswith("//"):
                comment = []
            continue
        if comment and section.split(" > ")[0] in ARROW_SECTIONS:
            kept, fenced = [], False
            texts = [t for _, t in comment]
            for k, t in enumerate(texts):
                after = texts[k + 1] if k + 1 < len(texts) else ""
                if t.startswith("```"):
                    fenced = not fenced
                elif fenced or re.fullmatch(r"-{3,}", t):
                    continue
                elif re.fullmatch(r"-{3,}", after) or after.startswith("```"):
                    continue  # a heading (underlined) or the caption of a code block
                else:
                    kept.append(t)
            body = " ".join(kept)
            for sent in split_sentences(body):
                yield Candidate("arrow", section, "sentence", sent, comment[0][0], keyword=bool(KEYWORD.search(sent)))
        comment = []


# --- statements ----------------------------------------------------------------------------------

def _keep_parquet(section: str) -> bool:
    return any(section == p or section.startswith(p + " >") or section.endswith(" > " + p) or
               (" > " + p + " > ") in section for p in PARQUET_SECTIONS)


def candidates(docs: dict[str, tuple[str, bool]]) -> list[Candidate]:
    out: list[Candidate] = []
    for doc, (text, captured) in docs.items():
        if doc == "arrow":
            out.extend(arrow_candidates(text))
            continue
        blocks = markdown_blocks(text, title_levels=1, captured=captured)
        found = list(prose_candidates(doc, blocks))
        if doc == "parquet":
            found = [c for c in found if _keep_parquet(c.section)]
        out.extend(found)
    return out


def build(docs: dict[str, tuple[str, bool]], curation: dict[str, Any], old: dict[str, Any] | None) -> list[dict[str, Any]]:
    hints: dict[str, dict[str, Any]] = curation.get("statements", {})
    not_normative: dict[str, str] = curation.get("not_normative", {})
    declarative: dict[str, dict[str, Any]] = curation.get("declarative", {})
    statements: list[dict[str, Any]] = []
    seen_v4: set[tuple[str, str]] = set()
    for c in candidates(docs):
        fp = c.fp
        if c.kind in ("table-row", "requirement-cell"):
            pass
        elif fp in declarative:
            pass
        elif c.extra.get("whole") and fp not in hints:
            continue
        elif not c.keyword or fp in not_normative:
            continue
        # a description repeated in the v4 tab of a field table is one statement
        if c.kind == "field-table-cell":
            key = (c.section, plain(c.quote))
            if key in seen_v4:
                continue
            seen_v4.add(key)
        cur = hints.get(fp) or declarative.get(fp) or {}
        implied = fp in declarative or (c.kind == "table-row" and not c.keyword)
        level = cur.get("level") or c.level or keyword_level(c.quote) or \
            (keyword_level(c.lead_in or "") if c.lead_in else None) or "MUST"
        if c.kind == "requirement-cell":
            vs = "".join(map(str, c.versions or []))
            word = {"REQUIRED": "required", "MAY": "optional", "SHOULD NOT": "omitted"}[c.level or "MAY"]
            hint = cur.get("hint") or f"{slug(c.field or '', 4)}-{word}" + (f"-v{vs}" if vs else "")
        elif c.kind == "table-row":
            hint = cur.get("hint") or slug(c.row_key or "", 5) or auto_hint(c.quote)
        else:
            hint = cur.get("hint") or auto_hint(c.quote)
        st: dict[str, Any] = {
            "id": hint,
            "document": c.doc,
            "section": c.section,
            "level": level,
            "quote": collapse(c.quote),
            "kind": "declarative" if fp in declarative else c.kind,
            "line": c.line,
        }
        if implied:
            st["implied"] = True
        if c.versions is not None and c.kind == "requirement-cell":
            st["versions"] = c.versions
        elif cur.get("versions"):
            st["versions"] = cur["versions"]
        if cur.get("applies_to"):
            st["applies_to"] = cur["applies_to"]
        for k in ("row_key", "lead_in", "field", "tab"):
            v = getattr(c, k)
            if v:
                st[k] = collapse(v)
        if c.kind == "requirement-cell" and c.subject:
            st["table"] = c.subject
        if cur.get("note"):
            st["note"] = cur["note"]
        st["fingerprint"] = fp
        statements.append(st)
    slugs = _section_slugs(statements)
    for st in statements:
        st["id"] = f"{st['document']}.{slugs[(st['document'], st['section'])]}.{st['id']}"
    _unique_ids(statements)
    if old:
        _keep_old_ids(statements, old)
    return statements


def _unique_ids(statements: list[dict[str, Any]]) -> None:
    """Make ids unique. Statements sharing an id are told apart by the table they are in, else
    by their row key, else by 6 hex digits of their quote; the same sentence repeated in one
    section keeps its id the first time and gets ``-2``, ``-3`` after."""
    by: dict[str, list[dict[str, Any]]] = {}
    for s in statements:
        by.setdefault(s["id"], []).append(s)
    for sid, group in by.items():
        if len(group) < 2 or len({plain(s["quote"]) for s in group}) == 1:
            continue
        head, _, hint = sid.rpartition(".")
        for s in group:
            if len({g.get("table") for g in group}) == len(group):
                s["id"] = f"{head}.{slug(s['table'], 3)}-{hint}"
            elif s.get("row_key") and len({g.get("row_key") for g in group}) == len(group):
                s["id"] = f"{sid}-{slug(s['row_key'], 4)}"
            else:
                s["id"] = f"{sid}-{hashlib.sha1(plain(s['quote']).encode()).hexdigest()[:6]}"
    seen: dict[str, int] = {}
    for s in statements:
        n = seen[s["id"]] = seen.get(s["id"], 0) + 1
        if n > 1:
            s["id"] = f"{s['id']}-{n}"


def _section_slugs(statements: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """The slug of each (document, section); two sections with one slug (``Lists > Backward-
    compatibility rules`` and ``Maps > Backward-compatibility rules``) keep their middle headings."""
    sections = {(s["document"], s["section"]) for s in statements}
    out = {k: section_slug(k[1]) for k in sections}
    clash: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for k, v in out.items():
        clash.setdefault((k[0], v), []).append(k)
    for group in clash.values():
        if len(group) > 1:
            for k in group:
                heads = [h for h in k[1].split(" > ") if h not in ("Specification", "Overview", "Format specification")]
                out[k] = ".".join([section_slug(heads[0])] + [slug(h, 4) for h in heads[1:]])
    return out


def _keep_old_ids(statements: list[dict[str, Any]], old: dict[str, Any]) -> None:
    """A statement whose id is new keeps the id of the old statement it replaces: same
    document and section, an id no longer produced, quote similarity >= 0.8."""
    new_ids = {s["id"] for s in statements}
    gone = [o for o in old.get("statements", []) if o["id"] not in new_ids]
    for s in statements:
        if s["id"] in {o["id"] for o in old.get("statements", [])}:
            continue
        best, score = None, 0.8
        for o in gone:
            if o["document"] != s["document"] or o["section"] != s["section"] or o["kind"] != s["kind"]:
                continue
            r = difflib.SequenceMatcher(None, plain(o["quote"]), plain(s["quote"])).ratio()
            if r >= score:
                best, score = o, r
        if best is not None:
            s["id"] = best["id"]
            gone.remove(best)


def diff(old: dict[str, Any] | None, statements: list[dict[str, Any]], docs: Iterable[str]) -> dict[str, list[str]]:
    """Ids added, removed and changed (quote or level) against the old index, for the
    documents regenerated."""
    regenerated = set(docs)
    before = {s["id"]: s for s in (old or {}).get("statements", []) if s["document"] in regenerated}
    after = {s["id"]: s for s in statements if s["document"] in regenerated}
    return {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(i for i in set(after) & set(before)
                          if (before[i]["quote"], before[i]["level"]) != (after[i]["quote"], after[i]["level"])),
    }


LINKS = HERE / "links.json"


def tidy_reasons(statements: list[dict[str, Any]], write: bool = True) -> None:
    """Drop the reasons ``links.json`` keeps for statements that are checked now, and print the
    unchecked MUST-level statements that have no reason yet (a person writes those)."""
    links = json.loads(LINKS.read_text(encoding="utf-8"))
    reasons: dict[str, Any] = links.get("unchecked", {})
    by_id = {s["id"]: s for s in statements}
    stale = sorted(i for i in reasons if i not in by_id or checked(by_id[i]))
    missing = sorted(s["id"] for s in statements if s["level"] in MUST_LEVELS and not checked(s) and s["id"] not in reasons)
    for i in stale:
        del reasons[i]
    if stale:
        print(f"reasons dropped from links.json (checked now, or gone): {len(stale)}")
        for i in stale:
            print(f"  {i}")
        if write:
            LINKS.write_text(json.dumps(links, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if missing:
        print(f"unchecked MUST statements without a reason in links.json unchecked: {len(missing)}")
        for i in missing:
            print(f"  {i}")


def revision_of(path: Path, given: str | None) -> str:
    if given:
        return given
    rev = path.with_name("REVISION")
    if rev.exists():
        return rev.read_text(encoding="utf-8").strip()
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m iceberg_conformance.statements.generate",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", help="apache/iceberg format/spec.md")
    ap.add_argument("puffin", nargs="?", help="apache/iceberg format/puffin-spec.md")
    ap.add_argument("--revision", help="the apache/iceberg commit of both files (default: REVISION beside SPEC)")
    ap.add_argument("--parquet", help="Parquet LogicalTypes.md (Markdown or its web capture)")
    ap.add_argument("--parquet-revision", help="revision label of LogicalTypes.md (default: its SHA-256)")
    ap.add_argument("--arrow", help="Arrow Schema.fbs (FlatBuffers text or its web capture)")
    ap.add_argument("--arrow-revision", help="revision label of Schema.fbs (default: its SHA-256)")
    ap.add_argument("--out", default=str(INDEX), help="where to write the index (default: statements/index.json)")
    ap.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    ap.add_argument("--relink", action="store_true", help="only recompute checked_by of the existing index")
    args = ap.parse_args(argv)


    out = Path(args.out)
    old = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    if args.relink:
        if old is None:
            ap.error(f"{out} does not exist")
        attach(old["statements"])
        out.write_text(json.dumps(old, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"relinked {len(old['statements'])} statements in {out}")
        tidy_reasons(old["statements"], write=out == INDEX)
        return 0
    if not (args.spec and args.puffin):
        ap.error("give SPEC_MD and PUFFIN_MD (or --relink)")
    curation = json.loads(CURATION.read_text(encoding="utf-8"))
    texts: dict[str, tuple[str, bool]] = {}
    documents: dict[str, dict[str, str]] = dict((old or {}).get("documents", {}))
    spec, puffin = Path(args.spec), Path(args.puffin)
    rev = revision_of(spec, args.revision)
    for name, path in (("table", spec), ("puffin", puffin)):
        texts[name] = (path.read_text(encoding="utf-8"), False)
        documents[name] = {"source": DOCUMENTS[name], "revision": rev}
    for name, given, label in (("parquet", args.parquet, args.parquet_revision), ("arrow", args.arrow, args.arrow_revision)):
        if given:
            p = Path(given)
            text = p.read_text(encoding="utf-8")
            captured = not text.lstrip().startswith(("<!--", "#", "//"))
            texts[name] = (text, captured)
            documents[name] = {"source": DOCUMENTS[name] + (f" (web capture {p.name})" if captured else ""),
                               "revision": label or "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()}
    statements = build(texts, curation, old)
    kept = [s for s in (old or {}).get("statements", []) if s["document"] not in texts]
    statements = [s for s in statements] + kept
    order = {d: k for k, d in enumerate(DOCUMENTS)}
    statements.sort(key=lambda s: (order[s["document"]], s["line"]))
    attach(statements)
    changes = diff(old, statements, texts)
    for what, ids in changes.items():
        print(f"{what}: {len(ids)}")
        for i in ids[:200]:
            print(f"  {i}")
    doc = {
        "about": "Every normative statement of the specifications the kit checks, with the rules, vector case "
                 "files and damage cases that check it. Generated by python -m iceberg_conformance.statements."
                 "generate from the pinned texts; do not edit by hand (curation.json and links.json are the "
                 "hand-kept inputs).",
        "documents": {k: documents[k] for k in DOCUMENTS if k in documents},
        "statements": statements,
    }
    if args.dry_run:
        print(f"(dry run) {len(statements)} statements")
        return 0
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(statements)} statements")
    tidy_reasons(statements, write=out == INDEX)
    return 0


if __name__ == "__main__":
    sys.exit(main())
