"""The target x area matrix as a report: ``matrix.json``, ``matrix.md`` and ``matrix.html``.

Rows are (implementation, area) with a count per outcome (:data:`~.outcomes.OUTCOMES`), as the
plugin counted them from the reports pytest gave it; the kit's own tests and the modules that
could not be collected are the row :data:`KIT`. Every file says the run's overall status and
the exit code it implies (pytest's): a run with a FAIL or an ERROR is never reported green.

``matrix.html`` is one self-contained page (no file beside it is needed to read it; links are
anchors inside it, or relative to its folder, so the folder can be copied anywhere): the run's
metadata (kit, vector and target versions, date, commit of a git checkout, platform, Python), a
bar chart of the outcomes per implementation, the matrix coloured by the share of passes among
the judged tests, and, for each cell with anything but passes, an anchor listing its cases with
the failure text (skips grouped by reason). Implementations the run was not asked about whose
tests were all skipped (engines of the consumer matrix that are not installed, ...) are one
line under the matrix, not rows of SKIP; ``matrix.json`` keeps every row.
"""

from __future__ import annotations

import datetime
import html
import json
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

from iceberg_conformance.suites.harness.outcomes import ADVISORY, ERROR, FAIL, KNOWN, OUTCOMES, PASS, SKIP, UNSUPPORTED
from iceberg_conformance.vectors.cases import vectors_version

#: the row of the tests that judge no implementation (the kit's own) and of collection reports
KIT = "(kit)"
#: the overall status of a run for each of pytest's exit codes (``pytest.ExitCode``)
STATUS = {0: "passed", 1: "failed", 2: "interrupted", 3: "internal error", 4: "usage error", 5: "no tests ran"}
#: the kit's source folder (a git checkout's top, when the kit runs from one)
SOURCE = Path(__file__).resolve().parent.parent.parent
#: outcome -> colour of its bar in the chart
BAR_COLOURS = {PASS: "#3a9d3a", FAIL: "#d03b3b", ERROR: "#8b1a1a", KNOWN: "#e0a030", ADVISORY: "#4a8fd0",
               UNSUPPORTED: "#a0a0a0", SKIP: "#d0d0d0"}
#: outcomes whose cases are listed one by one with their text (the others grouped by reason)
LISTED = (FAIL, ERROR, KNOWN, ADVISORY)
#: at most this many characters of one case's failure text are kept
TEXT_LIMIT = 3000


def overall(rows: list[dict[str, Any]], exitstatus: int) -> tuple[str, int, dict[str, int]]:
    """The run's status, the exit code it implies and the total per outcome: pytest's exit
    status, except that a FAIL or an ERROR in the rows never leaves it at 0."""
    totals = {o: sum(r[o] for r in rows) for o in OUTCOMES}
    code = 1 if exitstatus == 0 and (totals[FAIL] or totals[ERROR]) else exitstatus
    return STATUS.get(code, f"exit code {code}"), code, totals


def shown_rows(rows: list[dict[str, Any]], targets: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows to show, and the rows of implementations the run was not asked about (neither a
    target nor the kit) whose tests were all skipped: those are summed up in one line."""
    def idle(r: dict[str, Any]) -> bool:
        return r["target"] not in targets and r["target"] != KIT and all(r[o] == 0 for o in OUTCOMES if o != SKIP)
    idle_names = {r["target"] for r in rows if idle(r)} - {r["target"] for r in rows if not idle(r)}
    return ([r for r in rows if r["target"] not in idle_names], [r for r in rows if r["target"] in idle_names])


def not_shown(idle: list[dict[str, Any]], undeclared: dict[str, dict[str, int]]) -> list[str]:
    """Lines saying what the matrix does not show: implementations not asked about that ran
    nothing, and the tests not generated for capabilities a target does not declare."""
    lines = []
    if idle:
        names = sorted({r["target"] for r in idle})
        lines.append(f"not asked for, all {sum(r[SKIP] for r in idle)} tests skipped (not shown): " + ", ".join(names))
    for target, caps in undeclared.items():
        lines.append(f"{target}: {sum(caps.values())} tests not generated for capabilities it does not declare: "
                     + ", ".join(f"{c} ({n})" for c, n in caps.items()))
    return lines


def run_metadata(targets: dict[str, str]) -> dict[str, str]:
    """What a report must say about the run it reports: versions, date, commit, platform."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        kit = version("iceberg-conformance")
    except PackageNotFoundError:
        kit = "source"
    meta = {"kit": kit, "vectors": vectors_version(),
            "targets": ", ".join(f"{n} {v}" for n, v in targets.items()),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "platform": platform.platform(), "python": platform.python_version()}
    if (SOURCE / ".git").exists():
        try:
            commit = subprocess.run(["git", "-C", str(SOURCE), "rev-parse", "HEAD"], capture_output=True,
                                    text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit = ""
        if commit:
            meta["commit"] = commit
    return meta


def anchor(target: str, area: str) -> str:
    """The HTML id of a cell's case list (letters, digits and dashes only)."""
    return "cases-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{target}--{area}").strip("-")


def pass_colour(counts: dict[str, int]) -> str:
    """A cell's background: its share of passes among the judged tests on a red (none) to green
    (all) scale; grey when nothing was judged."""
    judged = counts[PASS] + counts[FAIL] + counts[ERROR] + counts[KNOWN]
    if not judged:
        return "#eeeeee"
    return f"hsl({round(120 * counts[PASS] / judged)}, 65%, 82%)"


def bar_chart(totals: list[tuple[str, dict[str, int]]]) -> str:
    """An inline SVG: one bar per implementation, its outcomes side by side in proportion."""
    width, label, bar, gap = 900, 170, 18, 6
    height = (bar + gap) * len(totals) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="outcomes per implementation" '
             f'viewBox="0 0 {width} {height}" style="max-width:100%;height:auto">']
    for i, (name, counts) in enumerate(totals):
        y = i * (bar + gap)
        n = sum(counts.values()) or 1
        x = float(label)
        parts.append(f'<text x="{label - 6}" y="{y + bar - 4}" text-anchor="end" font-size="12">{html.escape(name)}</text>')
        for o in OUTCOMES:
            if counts[o]:
                w = (width - label - 10) * counts[o] / n
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}" fill="{BAR_COLOURS[o]}">'
                             f"<title>{html.escape(name)}: {counts[o]} {o}</title></rect>")
                x += w
    y = len(totals) * (bar + gap) + 14
    x = float(label)
    for o in OUTCOMES:
        parts.append(f'<rect x="{x}" y="{y - 10}" width="10" height="10" fill="{BAR_COLOURS[o]}"/>'
                     f'<text x="{x + 14}" y="{y}" font-size="11">{o}</text>')
        x += 14 + 8 * len(o) + 16
    return "".join(parts) + "</svg>"


def _case_list(target: str, area: str, cases: list[dict[str, str]]) -> str:
    listed = [c for c in cases if c["outcome"] in LISTED]
    grouped: dict[tuple[str, str], int] = {}
    for c in cases:
        if c["outcome"] not in LISTED:
            grouped[(c["outcome"], c["text"])] = grouped.get((c["outcome"], c["text"]), 0) + 1
    items = [f'<details><summary><span class="o-{html.escape(c["outcome"])}">{html.escape(c["outcome"])}</span> '
             f'{html.escape(c["test"])}</summary><pre>{html.escape(c["text"])}</pre></details>' for c in listed]
    items += [f"<p>{n} {html.escape(o)}: {html.escape(text)}</p>" for (o, text), n in sorted(grouped.items())]
    return (f'<section id="{anchor(target, area)}"><h3>{html.escape(target)} &middot; {html.escape(area)}</h3>'
            + "".join(items) + '<p><a href="#matrix">back to the matrix</a></p></section>')


def write_report(out: Path, targets: dict[str, str], rows: list[dict[str, Any]], exitstatus: int,
                 undeclared: dict[str, dict[str, int]] | None = None,
                 cases: dict[tuple[str, str], list[dict[str, str]]] | None = None) -> Path:
    """Write matrix.json, matrix.md and matrix.html into ``out`` (``targets``: name -> version;
    ``exitstatus``: pytest's; ``undeclared``: target -> capability -> tests not generated;
    ``cases``: (implementation, area) -> its cases that did not pass, each ``outcome``, ``test``
    and ``text``); return the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    undeclared = undeclared or {}
    cases = cases or {}
    meta = run_metadata(targets)
    status, code, totals = overall(rows, exitstatus)
    shown, idle = shown_rows(rows, list(targets))
    notes = not_shown(idle, undeclared)
    (out / "matrix.json").write_text(json.dumps({"status": status, "exit_code": code, "totals": totals,
                                                 "vectors_version": meta["vectors"], "run": meta, "targets": targets,
                                                 "not_declared": undeclared, "rows": rows}, indent=2) + "\n")
    summary = f"status: {status} (exit code {code}): " + ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o])
    md = [f"**{summary}**", "", "; ".join(f"{k} {v}" for k, v in meta.items()), "",
          "| target | area | " + " | ".join(OUTCOMES) + " |", "|---|---|" + "---:|" * len(OUTCOMES)]
    md += [f"| {r['target']} | {r['area']} | " + " | ".join(str(r[o]) for o in OUTCOMES) + " |" for r in shown]
    md += [""] + notes if notes else []
    (out / "matrix.md").write_text("\n".join(md) + "\n")
    areas = sorted({r["area"] for r in shown})
    by = {(r["target"], r["area"]): r for r in shown}
    listed: list[str] = []

    def cell(t: str, a: str | None, counts: dict[str, int] | None, tag: str = "td") -> str:
        if counts is None:
            return f'<{tag} class="none">&ndash;</{tag}>'
        judged = counts[PASS] + counts[FAIL] + counts[ERROR] + counts[KNOWN]
        detail = [f"{counts[o]} {label}" for o, label in (
            (FAIL, "unexpected failures"), (ERROR, "errors"), (KNOWN, "known failures"),
            (UNSUPPORTED, "unsupported"), (SKIP, "skipped")) if counts[o]]
        main = f"<b>{counts[PASS]}</b> of {judged} conform" if judged else "not judged"
        advice = (f'<br><small class="adv">{counts[ADVISORY]} advisory (should not met)</small>'
                  if counts[ADVISORY] else "")
        text = main + (f'<br><small>{html.escape(", ".join(detail))}</small>' if detail else "") + advice
        if a is not None and any(counts[o] for o in OUTCOMES if o != PASS):
            listed.append(_case_list(t, a, cases.get((t, a), [])))
            text = f'<a href="#{anchor(t, a)}">{text}</a>'
        return f'<{tag} style="background:{pass_colour(counts)}">{text}</{tag}>'

    def total(t: str) -> dict[str, int]:
        return {o: sum(r[o] for r in shown if r["target"] == t) for o in OUTCOMES}

    names = list(targets) + sorted({r["target"] for r in shown} - set(targets) - {KIT}) + (
        [KIT] if any(r["target"] == KIT for r in shown) else [])
    names = [n for n in names if any(r["target"] == n for r in shown)]
    head = "".join(f"<th>{html.escape(a)}</th>" for a in areas) + "<th>all areas</th>"
    body = "".join(
        f"<tr><th>{html.escape(t)}<br><small>{html.escape(targets.get(t, ''))}</small></th>"
        + "".join(cell(t, a, by.get((t, a))) for a in areas) + cell(t, None, total(t), "th") + "</tr>"
        for t in names)
    info = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in meta.items())
    beside = [f'<a href="{f}">{f}</a>' for f in ("coverage.html", "junit.xml", "matrix.json", "matrix.md")
              if f in ("matrix.json", "matrix.md") or (out / f).exists()]
    page = f"""<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>iceberg-conformance: target x area</title>
<style>*{{box-sizing:border-box}}body{{font:14px system-ui,sans-serif;margin:1.5em;color:#222;max-width:100%}}
.scroll{{overflow-x:auto;max-width:100%}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.35em .5em;text-align:center;vertical-align:middle;font-size:13px}}
td a,th a{{color:inherit;text-decoration:none;display:block}}td a:hover,th a:hover{{text-decoration:underline}}
.none{{color:#aaa}}small{{color:#444}}.adv{{color:#1d5a8c}}.pass{{background:#d9f2d9}}.fail{{background:#f4c7c7}}
dl{{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em}}dt{{font-weight:bold}}dd{{margin:0;overflow-wrap:anywhere}}
pre{{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.5em;max-height:30em;overflow-y:auto}}
section{{margin-top:1.5em}}summary{{cursor:pointer;overflow-wrap:anywhere}}
.o-FAIL,.o-ERROR{{color:#a00;font-weight:bold}}.o-KNOWN-FAILURE{{color:#a60}}.o-ADVISORY{{color:#1d5a8c}}</style>
<h1>iceberg-conformance: target &times; area</h1>
<p class="{'pass' if code == 0 else 'fail'}"><b>{html.escape(summary)}</b></p>
{bar_chart([(t, total(t)) for t in names])}
<dl>{info}</dl>
<p>{" &middot; ".join(beside)}</p>
<p>Each cell: how many of the judged tests the implementation conforms to, coloured by that share
(red: none, green: all; grey: nothing judged). Judged = passed + unexpected failures + errors (a
fixture or a module that failed) + known failures (a recorded non-conformance of a MUST-level case,
with its reason and link, beside the adapter). UNSUPPORTED capabilities are not judged. ADVISORY
counts, shown apart, are SHOULD-level cases not met: not failures, not judged. A cell with anything
but passes links to its cases.</p>
<div class="scroll" id="matrix"><table><tr><th>target</th>{head}</tr>{body}</table></div>
{"".join(f"<p>{html.escape(n)}</p>" for n in notes)}
<h2>Cases that did not pass</h2>
{"".join(listed) or "<p>none</p>"}
</html>
"""
    (out / "matrix.html").write_text(page)
    return out / "matrix.html"
