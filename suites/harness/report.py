"""The target x area matrix as a report: ``matrix.json``, ``matrix.md`` and ``matrix.html``.

Rows are (implementation, area) with a count per outcome (:data:`~.outcomes.OUTCOMES`), as the
plugin counted them from the reports pytest gave it; the kit's own tests and the modules that
could not be collected are the row :data:`KIT`. Every file says the run's overall status and
the exit code it implies (pytest's): a run with a FAIL or an ERROR is never reported green.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.harness.outcomes import ADVISORY, ERROR, FAIL, OUTCOMES
from iceberg_conformance.vectors.cases import vectors_version

#: the row of the tests that judge no implementation (the kit's own) and of collection reports
KIT = "(kit)"
#: the overall status of a run for each of pytest's exit codes (``pytest.ExitCode``)
STATUS = {0: "passed", 1: "failed", 2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests ran"}


def overall(rows: list[dict[str, Any]], exitstatus: int) -> tuple[str, int, dict[str, int]]:
    """The run's status, the exit code it implies and the total per outcome: pytest's exit
    status, except that a FAIL or an ERROR in the rows never leaves it at 0."""
    totals = {o: sum(r[o] for r in rows) for o in OUTCOMES}
    code = 1 if exitstatus == 0 and (totals[FAIL] or totals[ERROR]) else exitstatus
    return STATUS.get(code, f"exit code {code}"), code, totals


def _rows_of(targets: dict[str, str], rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The HTML rows, (name, version): the targets, then every other implementation a test
    judged (a reader, a planner, a consumer) and the kit's own row."""
    others = sorted({r["target"] for r in rows} - set(targets) - {KIT})
    return list(targets.items()) + [(t, "") for t in others] + ([(KIT, "")] if any(r["target"] == KIT for r in rows) else [])


def write_report(out: Path, targets: dict[str, str], rows: list[dict[str, Any]], exitstatus: int) -> Path:
    """Write matrix.json, matrix.md and matrix.html into ``out`` (``targets``: name -> version;
    ``exitstatus``: pytest's); return the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    version = vectors_version()
    status, code, totals = overall(rows, exitstatus)
    (out / "matrix.json").write_text(json.dumps({"status": status, "exit_code": code, "totals": totals,
                                                 "vectors_version": version, "targets": targets, "rows": rows},
                                                indent=2) + "\n")
    summary = f"status: {status} (exit code {code}): " + ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o])
    md = [f"**{summary}**", "", f"vector set {version}", "",
          "| target | area | " + " | ".join(OUTCOMES) + " |", "|---|---|" + "---:|" * len(OUTCOMES)]
    md += [f"| {r['target']} | {r['area']} | " + " | ".join(str(r[o]) for o in OUTCOMES) + " |" for r in rows]
    (out / "matrix.md").write_text("\n".join(md) + "\n")
    areas = sorted({r["area"] for r in rows})
    by = {(r["target"], r["area"]): r for r in rows}

    def cell(counts: dict[str, int] | None, tag: str = "td") -> str:
        if counts is None:
            return f'<{tag} class="none">&ndash;</{tag}>'
        judged = counts["PASS"] + counts["FAIL"] + counts[ERROR] + counts["KNOWN-FAILURE"]
        cls = ("fail" if counts["FAIL"] or counts[ERROR] else "known" if counts["KNOWN-FAILURE"]
               else "advisory" if counts[ADVISORY] else "pass" if counts["PASS"] else "unsup")
        detail = [f"{counts[o]} {label}" for o, label in (
            ("FAIL", "unexpected failures"), (ERROR, "errors"), ("KNOWN-FAILURE", "known failures"),
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
        for t, v in _rows_of(targets, rows))
    page = f"""<!doctype html><meta charset="utf-8"><title>iceberg-conformance: target x area</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.45em .7em;text-align:center;vertical-align:middle}}
.pass{{background:#d9f2d9}}.known{{background:#fbe9c6}}.fail{{background:#f4c7c7}}
.advisory{{background:#dcebf7}}.adv{{color:#1d5a8c}}
.unsup{{background:#eee;color:#777}}.none{{color:#aaa}}small{{color:#555}}
.legend span{{display:inline-block;padding:.15em .6em;margin-right:.6em;border:1px solid #ccc}}</style>
<h1>iceberg-conformance: target &times; area</h1>
<p class="{'pass' if code == 0 else 'fail'}"><b>{html.escape(summary)}</b></p>
<p>Vector set {html.escape(version)}.</p>
<p>Each cell: how many of the judged tests the target conforms to. Judged = passed + unexpected
failures + errors (a fixture or a module that failed) + known failures (a known failure is a
recorded non-conformance of a MUST-level case, with its reason, link and the spec sentence it
breaks, beside the adapter). UNSUPPORTED
capabilities are not judged. ADVISORY counts, shown apart, are SHOULD-level cases the target
does not meet (e.g. a reader that accepts input breaking a rule for writers): not failures,
not judged.</p>
<p class="legend"><span class="pass">all judged conform</span><span class="advisory">all judged conform,
advisories</span><span class="known">known failures</span>
<span class="fail">unexpected failures or errors</span><span class="unsup">nothing judged</span></p>
<table><tr><th>target</th>{head}</tr>{body}</table>"""
    (out / "matrix.html").write_text(page)
    return out / "matrix.html"
