"""The report pages at 1400 px: each page the kit writes (matrix.html of ``iceberg-conformance run``,
coverage.html beside it, the consumer matrix, the writer matrix) is rendered by headless Chromium in
a window 1400 px wide, and the page must not scroll sideways: a wide table scrolls inside its own
box, a long word or test id wraps. The pages are built as large as the kit makes them (every
golden table, engine, writer, op-log and spec section), with long unbroken texts in the failures.

Chromium comes from the system (``apt-get install chromium``; .ci/run installs it). Without it the
tests skip, saying so, except in CI (``CI=true``), where a missing browser fails them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

from iceberg_conformance.statements import coverage
from iceberg_conformance.suites.engines.registry import ENGINES
from iceberg_conformance.suites.golden import registry as golden
from iceberg_conformance.suites.harness import consumer_matrix
from iceberg_conformance.suites.harness.outcomes import OUTCOMES
from iceberg_conformance.suites.harness.report import write_report
from iceberg_conformance.suites.writers import report as writers_report
from iceberg_conformance.suites.writers.registry import WRITERS

WIDTH = 1400
BROWSERS = ("chromium", "chromium-browser", "google-chrome")

# appended to a copy of the page: after layout, what sticks out of the viewport's width and is not
# inside a box that scrolls or clips it sideways, written into the DOM that --dump-dom prints
PROBE = """<script>(function () {
  var root = document.documentElement, width = root.clientWidth, out = [];
  function boxed(e) {
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  }
  var all = document.body.getElementsByTagName('*');
  for (var i = 0; i < all.length && out.length < 10; i++) {
    var r = all[i].getBoundingClientRect();
    if (r.right > width + 0.5 && !boxed(all[i]))
      out.push(all[i].tagName.toLowerCase() + (all[i].id ? '#' + all[i].id : '') +
               (all[i].className ? '.' + all[i].className : '') + ' ends at ' + Math.round(r.right) + ' px: ' +
               (all[i].textContent || '').slice(0, 80));
  }
  var pre = document.createElement('pre');
  pre.id = 'layout-probe';
  pre.textContent = JSON.stringify({scrollWidth: root.scrollWidth, clientWidth: width,
                                    innerWidth: window.innerWidth, beyond: out});
  document.body.appendChild(pre);
})();</script>"""


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    reason = f"no headless browser ({', '.join(BROWSERS)} on PATH): apt-get install -y chromium"
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(f"CI: {reason}")
    pytest.skip(reason)


def layout(page: Path, tmp_path: Path) -> dict[str, Any]:
    """scrollWidth and clientWidth of the page at WIDTH px, and the elements that stick out."""
    probed = tmp_path / f"probed-{page.name}"
    probed.write_text(page.read_text(encoding="utf-8") + PROBE, encoding="utf-8")
    run = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          f"--window-size={WIDTH},900", f"--user-data-dir={tmp_path / 'profile'}",
                          "--dump-dom", probed.as_uri()], capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="layout-probe">(.*?)</pre>', run.stdout, re.S)
    assert found, f"{page.name}: the browser printed no measurement (exit {run.returncode}): {run.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                      .replace("&amp;", "&"))


# a failure text as the kit prints them: test ids, paths and rows without a space for a long way
LONG = ("suites/test_matrix.py::test_consumer_filters_golden_table[spark_v2_merge_on_read_position_deletes-"
        "ts_between_2024_01_01T00:00:00.000000+00:00_and_2024_12_31T23:59:59.999999+00:00-datafusion]")
ROW = json.dumps({"id": 123456789, "name": "n" * 120, "ts": "2024-01-01T00:00:00.000000+00:00"}, separators=(",", ":"))


def matrix_page(out: Path) -> Path:
    """matrix.html of a run of every built-in target over every area, every cell with failures."""
    areas = ("hash", "transforms", "binary", "value-json", "schema-json", "partition-spec-json", "metadata",
             "manifest-read", "manifest-write", "avro-schema", "puffin-read", "puffin-write", "expressions",
             "projection", "residual", "metrics", "manifest-pruning", "delete-planning", "commit-retry", "evolution",
             "scan", "table-check", "consumer-matrix", "writer-matrix")
    targets = {"reference": "0.1.0", "pyiceberg": "0.12.0", "pyiceberg-core": "0.11.0", "java": "1.10.2",
               "harness:node /a/long/path/to/my-harness-with-a-long-name.mjs --flag=value": "?"}
    rows, cases = [], {}
    for n, t in enumerate(targets):
        for a in areas:
            c = dict.fromkeys(OUTCOMES, 0)
            c.update({"PASS": 1200 + n, "FAIL": n, "KNOWN-FAILURE": 3, "UNSUPPORTED": 17, "ADVISORY": 1})
            rows.append({"target": t, "area": a, **c})
            cases[(t, a)] = [{"outcome": "FAIL", "test": LONG, "text": f"expected {ROW}\nactual   {ROW[::-1]}"}]
    write_report(out, targets, rows, 1, {t: {"bound": 19, "evolution": 59} for t in targets}, cases)
    return out / "matrix.html"


def coverage_page(out: Path) -> Path:
    page = out / "coverage.html"
    page.write_text(coverage.render_html(coverage.collect()), encoding="utf-8")
    return page


def consumers_page(out: Path) -> Path:
    """The consumer matrix of every golden table and engine, each status present, with filter tests."""
    statuses = [consumer_matrix.PASS, consumer_matrix.FAIL, consumer_matrix.KNOWN, consumer_matrix.UNSUPPORTED]
    records: list[dict[str, Any]] = []
    for i, table in enumerate(sorted(golden.REGISTRY)):
        for j, consumer in enumerate(ENGINES):
            status = statuses[(i + j) % len(statuses)]
            base = {"table": table, "consumer": consumer, "producer": golden.REGISTRY[table].producer,
                    "status": status, "message": LONG, "lines": [f"snapshot 'append {i}':", f"  - missing:  {ROW}"],
                    "digest": "ab" * 8, "capabilities": [],
                    "known": {"kind": "bug", "reason": LONG, "upstream": "https://example.org/" + "x" * 90}
                    if status == consumer_matrix.KNOWN else None}
            records.append({**base, "test": "table"})
            records.append({**base, "test": "filter", "filter": f"filter_{i % 7}_" + "y" * 40,
                            "cases": {"judged": 12, "wrong": 1 if status != consumer_matrix.PASS else 0}})
    consumers = {name: {"title": e.title, "time_travel": e.time_travel} for name, e in ENGINES.items()}
    doc = consumer_matrix.build(records, consumer_matrix.capabilities(), consumers,
                                [{"consumer": "gone", "reason": LONG, "error": ROW}])
    page = out / "matrix-consumers.html"
    page.write_text(consumer_matrix.render_html(doc), encoding="utf-8")
    return page


def writers_page(out: Path) -> Path:
    """The writer matrix of every writer and op-log, with long messages."""
    m = writers_report.build({})
    for n, row in enumerate(m["writers"]):
        for k, cell in enumerate(row["cells"].values()):
            cell["status"] = ("PASS", "FAIL", "KNOWN-FAILURE", "UNSUPPORTED")[(n + k) % 4]
            cell["message"] = LONG
    assert len(m["writers"]) == len(WRITERS)
    page = out / "matrix-writers.html"
    page.write_text(writers_report.page(m), encoding="utf-8")
    return page


PAGES: dict[str, Callable[[Path], Path]] = {
    "matrix.html": matrix_page, "coverage.html": coverage_page,
    "matrix-consumers.html": consumers_page, "matrix-writers.html": writers_page,
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_report_page_does_not_scroll_sideways_at_1400px(name: str, tmp_path: Path) -> None:
    browser()
    (tmp_path / "report").mkdir()
    page = PAGES[name](tmp_path / "report")
    m = layout(page, tmp_path)
    assert m["innerWidth"] == WIDTH, m
    assert m["scrollWidth"] <= m["clientWidth"], (
        f"{name} is {m['scrollWidth']} px wide in a {m['clientWidth']} px viewport; sticking out:\n"
        + "\n".join(m["beyond"]))


def test_the_probe_sees_a_page_that_scrolls_sideways(tmp_path: Path) -> None:
    """The measurement itself: a table wider than the window, outside any scrolling box, is seen."""
    browser()
    page = tmp_path / "wide.html"
    page.write_text("<!doctype html><body><table><tr>" + "<td>cell_without_spaces_0123456789</td>" * 80
                    + "</tr></table>", encoding="utf-8")
    m = layout(page, tmp_path)
    assert m["scrollWidth"] > m["clientWidth"] and any(b.startswith("table") for b in m["beyond"]), m
    boxed = tmp_path / "boxed.html"
    boxed.write_text(page.read_text().replace("<table>", "<div style='overflow-x:auto'><table>"), encoding="utf-8")
    assert layout(boxed, tmp_path)["scrollWidth"] <= WIDTH
