"""How much of the specifications the kit checks: ``iceberg-conformance coverage``.

Reads the statement index (:mod:`iceberg_conformance.statements`: every normative statement of
the table spec, the Puffin spec and the parts of Parquet ``LogicalTypes.md`` and Arrow
``Schema.fbs`` the kit relies on), links each statement to the checker rules, vector case files,
damage cases and golden tables that exercise it (:mod:`iceberg_conformance.statements.trace`, computed from
the kit as installed), and reports per section: statements, checked, and unchecked with the
reason kept in ``statements/links.json`` (``untestable``, ``out-of-scope``, ``not-yet``).

MUST coverage is checked MUST-level statements (MUST, MUST NOT, REQUIRED, SHALL) over all of
them; the figure over the testable ones (all minus ``untestable`` and ``out-of-scope``) is shown
beside it. SHOULD coverage likewise (SHOULD, SHOULD NOT). MAY statements are counted, not rated.

``iceberg-conformance coverage --readme`` prints the README's "What is
covered" table from the same data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from iceberg_conformance.statements import index, links, MUST_LEVELS, REASONS, SHOULD_LEVELS
from iceberg_conformance.statements.trace import compute

#: a section's display name: the heading under the document's generic roots
GENERIC = ("Specification", "Overview", "Format specification")
DOC_NAMES = {"table": "Table spec", "puffin": "Puffin spec", "parquet": "Parquet LogicalTypes.md",
             "arrow": "Arrow Schema.fbs"}


def area(st: dict[str, Any]) -> str:
    """``Table spec: Manifests`` for ``Specification > Manifests > Data File Fields``."""
    heads = [h for h in st["section"].split(" > ") if h]
    while len(heads) > 1 and heads[0] in GENERIC:
        heads = heads[1:]
    top = heads[0] if heads else "(document)"
    if top.startswith("Appendix") and ":" in top:
        top = top.split(":", 1)[0] + ":" + top.split(":", 1)[1]
    return f"{DOC_NAMES.get(st['document'], st['document'])}: {top}"


def readme_area(st: dict[str, Any]) -> str:
    """The README's coarser grouping: one row per document but the table spec, whose overview
    sections share one row."""
    if st["document"] != "table":
        return DOC_NAMES.get(st["document"], st["document"])
    heads = [h for h in st["section"].split(" > ") if h]
    if not heads or heads[0] in ("Overview", "Goals", "Format Versioning") or heads[:2] == ["Specification", "Terms"]:
        return "Table spec: overview, terms, versioning"
    return area(st)


@dataclass
class Tally:
    statements: int = 0
    checked: int = 0
    unchecked: dict[str, int] = field(default_factory=lambda: {r: 0 for r in REASONS + ("unreasoned",)})
    must: int = 0
    must_checked: int = 0
    must_excluded: int = 0          # untestable or out-of-scope
    should: int = 0
    should_checked: int = 0
    should_excluded: int = 0

    def add(self, st: dict[str, Any]) -> None:
        self.statements += 1
        ok = bool(st["_checked"])
        reason = st.get("_reason")
        if ok:
            self.checked += 1
        else:
            self.unchecked[reason or "unreasoned"] += 1
        excluded = not ok and reason in ("untestable", "out-of-scope")
        if st["level"] in MUST_LEVELS:
            self.must += 1
            self.must_checked += ok
            self.must_excluded += excluded
        elif st["level"] in SHOULD_LEVELS:
            self.should += 1
            self.should_checked += ok
            self.should_excluded += excluded

    def to_json(self) -> dict[str, Any]:
        return {"statements": self.statements, "checked": self.checked, "unchecked": dict(self.unchecked),
                "must": {"all": self.must, "checked": self.must_checked, "untestable_or_out_of_scope": self.must_excluded},
                "should": {"all": self.should, "checked": self.should_checked,
                           "untestable_or_out_of_scope": self.should_excluded}}


def pct(n: int, d: int) -> float:
    return round(100.0 * n / d, 1) if d else 100.0


def collect() -> dict[str, Any]:
    """The coverage report as data (what ``--json`` prints)."""
    idx = index()
    statements = [dict(s) for s in idx["statements"]]
    found = compute(statements, links())
    reasons = links().get("unchecked", {})
    levels: dict[str, dict[str, int]] = {}
    total = Tally()
    by_area: dict[str, Tally] = {}
    by_section: dict[str, Tally] = {}
    by_readme: dict[str, Tally] = {}
    unchecked_must = []
    for s in statements:
        s["checked_by"] = found[s["id"]]
        s["_checked"] = any(found[s["id"]].values())
        s["_reason"] = (reasons.get(s["id"]) or {}).get("reason")
        total.add(s)
        by_area.setdefault(area(s), Tally()).add(s)
        by_readme.setdefault(readme_area(s), Tally()).add(s)
        by_section.setdefault(f"{s['document']}: {s['section']}", Tally()).add(s)
        lv = levels.setdefault(s["level"], {"all": 0, "checked": 0})
        lv["all"] += 1
        lv["checked"] += s["_checked"]
        if s["level"] in MUST_LEVELS and not s["_checked"]:
            r = reasons.get(s["id"]) or {}
            unchecked_must.append({"id": s["id"], "level": s["level"], "section": s["section"], "quote": s["quote"],
                                   "reason": r.get("reason", "unreasoned"), "why": r.get("why", "")})
    return {
        "documents": idx["documents"],
        "levels": levels,
        "must": {"all": total.must, "checked": total.must_checked, "coverage_percent": pct(total.must_checked, total.must),
                 "untestable_or_out_of_scope": total.must_excluded,
                 "coverage_of_testable_percent": pct(total.must_checked, total.must - total.must_excluded)},
        "should": {"all": total.should, "checked": total.should_checked,
                   "coverage_percent": pct(total.should_checked, total.should),
                   "untestable_or_out_of_scope": total.should_excluded,
                   "coverage_of_testable_percent": pct(total.should_checked, total.should - total.should_excluded)},
        "total": total.to_json(),
        "areas": {k: v.to_json() for k, v in by_area.items()},
        "readme_areas": {k: v.to_json() for k, v in by_readme.items()},
        "sections": {k: v.to_json() for k, v in by_section.items()},
        "unchecked_must": unchecked_must,
    }


def render_text(rep: dict[str, Any], show: int | None = None) -> str:
    out = ["Statements of " + "; ".join(f"{DOC_NAMES[k]} ({v['revision'][:12]})" for k, v in rep["documents"].items()), ""]
    head = f"{'section':<58} {'stmts':>5} {'checked':>7} {'untestable':>10} {'out-of-scope':>12} {'not-yet':>7}  {'MUST':>9}"
    out += [head, "-" * len(head)]
    for name, t in rep["areas"].items():
        u = t["unchecked"]
        must = f"{t['must']['checked']}/{t['must']['all']}" if t["must"]["all"] else "-"
        out.append(f"{name[:58]:<58} {t['statements']:>5} {t['checked']:>7} {u['untestable']:>10} {u['out-of-scope']:>12} "
                   f"{u['not-yet'] + u['unreasoned']:>7}  {must:>9}")
    t = rep["total"]
    u = t["unchecked"]
    out += ["-" * len(head), f"{'all':<58} {t['statements']:>5} {t['checked']:>7} {u['untestable']:>10} "
            f"{u['out-of-scope']:>12} {u['not-yet'] + u['unreasoned']:>7}  {t['must']['checked']}/{t['must']['all']}", ""]
    out.append("by level: " + ", ".join(f"{lv} {v['checked']}/{v['all']}" for lv, v in sorted(rep["levels"].items())))
    for name in ("must", "should"):
        c = rep[name]
        out.append(f"{name.upper()} coverage: {c['checked']}/{c['all']} = {c['coverage_percent']}% of all {name.upper()} "
                   f"statements ({c['coverage_of_testable_percent']}% of the {c['all'] - c['untestable_or_out_of_scope']} "
                   f"not untestable or out of scope)")
    rows = rep["unchecked_must"]
    out += ["", f"unchecked MUST statements ({len(rows)}):"]
    for r in rows[: show if show is not None else len(rows)]:
        out.append(f"  {r['id']}  [{r['level']}; {r['reason']}]")
        out.append(f"      {r['quote'][:160]}")
        if r["why"]:
            out.append(f"      why: {r['why'][:160]}")
    if show is not None and len(rows) > show:
        out.append(f"  ... {len(rows) - show} more (--all or --json)")
    unreasoned = rep["total"]["unchecked"]["unreasoned"]
    if unreasoned:
        out.append(f"\n{unreasoned} unchecked statement(s) have no reason in statements/links.json")
    return "\n".join(out)


def render_html(rep: dict[str, Any]) -> str:
    """The coverage page of a report folder (``coverage.html`` beside ``matrix.html``): one
    self-contained page, the sections' figures and the unchecked MUST statements with why."""
    import html
    e = html.escape

    def bar(n: int, d: int) -> str:
        if not d:   # a section without MUST statements: nothing to fill (as in the Markdown: "–")
            return ""
        return (f'<svg width="120" height="10" role="img" aria-label="{pct(n, d)}%"><rect width="120" height="10" '
                f'fill="#eee"/><rect width="{120 * n / d:.1f}" height="10" fill="#3a9d3a"/></svg>')

    def must(t: dict[str, Any]) -> str:
        return f"{t['must']['checked']}/{t['must']['all']}" if t["must"]["all"] else "–"
    rows = "".join(
        f"<tr><td>{e(name)}</td><td>{t['statements']}</td><td>{t['checked']}</td>"
        f"<td>{must(t)}</td><td>{bar(t['must']['checked'], t['must']['all'])}</td></tr>"
        for name, t in rep["areas"].items())
    unchecked = "".join(
        f"<li><b>{e(r['id'])}</b> [{e(r['level'])}; {e(r['reason'])}] {e(r['quote'])}"
        + (f"<br><small>why: {e(r['why'])}</small>" if r["why"] else "") + "</li>" for r in rep["unchecked_must"])
    figures = "".join(
        f"<p><b>{name.upper()} coverage: {rep[name]['checked']}/{rep[name]['all']} = {rep[name]['coverage_percent']}%</b> "
        f"({rep[name]['coverage_of_testable_percent']}% of those not untestable or out of scope)</p>"
        for name in ("must", "should"))
    docs = "; ".join(f"{DOC_NAMES[k]} ({v['revision'][:12]})" for k, v in rep["documents"].items())
    return f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>iceberg-conformance: spec coverage</title>
<style>body{{font:14px system-ui,sans-serif;margin:1.5em;color:#222}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .5em}}td:nth-child(n+2){{text-align:right}}li{{margin:.3em 0}}</style>
<h1>Spec coverage</h1><p>Statements of {e(docs)}: which the kit checks (checker rules, vectors, damage
cases, golden tables). <a href="matrix.html">back to the matrix</a></p>{figures}
<table><tr><th>section</th><th>statements</th><th>checked</th><th>MUST checked</th><th></th></tr>{rows}</table>
<h2>Unchecked MUST statements ({len(rep["unchecked_must"])})</h2><ul>{unchecked}</ul></html>
"""


def render_readme(rep: dict[str, Any]) -> str:
    """The README's "What is covered" table (Markdown)."""
    lines = ["| Section | Statements | MUST checked | SHOULD checked | Unchecked: untestable / out of scope / not yet |",
             "|---|---:|---:|---:|---|"]
    for name, t in rep["readme_areas"].items():
        u = t["unchecked"]
        must = f"{t['must']['checked']} / {t['must']['all']}" if t["must"]["all"] else "–"
        should = f"{t['should']['checked']} / {t['should']['all']}" if t["should"]["all"] else "–"
        lines.append(f"| {name} | {t['statements']} | {must} | {should} | {u['untestable']} / {u['out-of-scope']} / "
                     f"{u['not-yet'] + u['unreasoned']} |")
    m, s = rep["must"], rep["should"]
    t = rep["total"]
    lines.append(f"| **All** | **{t['statements']}** | **{m['checked']} / {m['all']} ({m['coverage_percent']} %)** | "
                 f"**{s['checked']} / {s['all']} ({s['coverage_percent']} %)** | {t['unchecked']['untestable']} / "
                 f"{t['unchecked']['out-of-scope']} / {t['unchecked']['not-yet'] + t['unchecked']['unreasoned']} |")
    lines += ["", f"MUST coverage {m['coverage_percent']} % of all MUST statements ({m['coverage_of_testable_percent']} % of "
              f"those not untestable or out of scope); generated by `iceberg-conformance coverage --readme`."]
    return "\n".join(lines)
