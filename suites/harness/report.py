"""The target x area matrix as a report: ``matrix.json``, ``matrix.md`` and ``matrix.html``.

Rows are (implementation, area) with a count per outcome (:data:`~.outcomes.OUTCOMES`), as the
plugin counted them from the reports pytest gave it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.harness.outcomes import ADVISORY, OUTCOMES
from iceberg_conformance.vectors.cases import vectors_version


def write_report(out: Path, targets: dict[str, str], rows: list[dict[str, Any]]) -> Path:
    """Write matrix.json, matrix.md and matrix.html into ``out`` (``targets``: name -> version);
    return the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    version = vectors_version()
    (out / "matrix.json").write_text(json.dumps({"vectors_version": version, "targets": targets, "rows": rows},
                                                indent=2) + "\n")
    md = [f"vector set {version}", "",
          "| target | area | " + " | ".join(OUTCOMES) + " |", "|---|---|" + "---:|" * len(OUTCOMES)]
    md += [f"| {r['target']} | {r['area']} | " + " | ".join(str(r[o]) for o in OUTCOMES) + " |" for r in rows]
    (out / "matrix.md").write_text("\n".join(md) + "\n")
    areas = sorted({r["area"] for r in rows})
    by = {(r["target"], r["area"]): r for r in rows}

    def cell(counts: dict[str, int] | None, tag: str = "td") -> str:
        if counts is None:
            return f'<{tag} class="none">&ndash;</{tag}>'
        judged = counts["PASS"] + counts["FAIL"] + counts["KNOWN-FAILURE"]
        cls = ("fail" if counts["FAIL"] else "known" if counts["KNOWN-FAILURE"]
               else "advisory" if counts[ADVISORY] else "pass" if counts["PASS"] else "unsup")
        detail = [f"{counts[o]} {label}" for o, label in (
            ("FAIL", "unexpected failures"), ("KNOWN-FAILURE", "known failures"),
            ("UNSUPPORTED", "unsupported"), ("SKIP", "skipped")) if counts[o]]
        main = f"<b>{counts['PASS']}</b> of {judged} conform" if judged else "not judged"
        advice = (f'<br><small class="adv">{counts[ADVISORY]} advisory (should not met)</small>'
                  if counts[ADVISORY] else "")
        return (f'<{tag} class="{cls}">{main}'
                + (f'<br><small>{html.escape(", ".join(detail))}</small>' if detail else "")
                + advice + f"</{tag}>")

    def total(t: str) -> dict[str, int]:
        return {o: sum(r[o] for r in rows if r["target"] == t) for o in OUTCOMES}

    head = "".join(f"<th>{html.escape(a)}</th>" for a in areas) + "<th>all areas</th>"
    body = "".join(
        f"<tr><th>{html.escape(t)}<br><small>{html.escape(v)}</small></th>"
        + "".join(cell(by.get((t, a))) for a in areas) + cell(total(t), "th") + "</tr>"
        for t, v in targets.items())
    page = f"""<!doctype html><meta charset="utf-8"><title>iceberg-conformance: target x area</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.45em .7em;text-align:center;vertical-align:middle}}
.pass{{background:#d9f2d9}}.known{{background:#fbe9c6}}.fail{{background:#f4c7c7}}
.advisory{{background:#dcebf7}}.adv{{color:#1d5a8c}}
.unsup{{background:#eee;color:#777}}.none{{color:#aaa}}small{{color:#555}}
.legend span{{display:inline-block;padding:.15em .6em;margin-right:.6em;border:1px solid #ccc}}</style>
<h1>iceberg-conformance: target &times; area</h1>
<p>Vector set {html.escape(version)}.</p>
<p>Each cell: how many of the judged tests the target conforms to. Judged = passed + unexpected
failures + known failures (a known failure is a recorded non-conformance of a MUST-level case,
with its reason, link and the spec sentence it breaks, beside the adapter). UNSUPPORTED
capabilities are not judged. ADVISORY counts, shown apart, are SHOULD-level cases the target
does not meet (e.g. a reader that accepts input breaking a rule for writers): not failures,
not judged.</p>
<p class="legend"><span class="pass">all judged conform</span><span class="advisory">all judged conform,
advisories</span><span class="known">known failures</span>
<span class="fail">unexpected failures</span><span class="unsup">nothing judged</span></p>
<table><tr><th>target</th>{head}</tr>{body}</table>"""
    (out / "matrix.html").write_text(page)
    return out / "matrix.html"
