"""The reports people open: ``matrix.html`` colours a cell by its share of passes, links every
cell that is not all passes to its cases with the failure text, says what run it reports
(versions, date, commit, platform, Python), starts with a picture, is one file whose links work
wherever the folder is copied, scrolls its table rather than the page; engines nobody asked
about that ran nothing are one line, not rows; JUnit class names start at the package."""

from __future__ import annotations

import json
import re
from pathlib import Path

from iceberg_conformance.suites.harness.outcomes import OUTCOMES
from iceberg_conformance.suites.harness.plugin import junit_without_install_path
from iceberg_conformance.suites.harness.report import anchor, pass_colour, write_report

ROOT = Path(__file__).resolve().parent.parent


def counts(**given: int) -> dict[str, int]:
    out = dict.fromkeys(OUTCOMES, 0)
    out.update({k.replace("_", "-"): v for k, v in given.items()})
    return out


ROWS = [
    {"target": "mine", "area": "hash", **counts(PASS=4, FAIL=2)},
    {"target": "mine", "area": "transforms", **counts(PASS=1499, KNOWN_FAILURE=70)},
    {"target": "mine", "area": "value-json", **counts(PASS=10)},
    {"target": "chdb", "area": "consumer-matrix", **counts(SKIP=952)},
    {"target": "(kit)", "area": "kit", **counts(PASS=3, ERROR=1)},
]
CASES = {("mine", "hash"): [
    {"outcome": "FAIL", "test": "suites/test_hash.py::test_hash[mine-int 34]", "text": "expected 2017239379, got -1"},
    {"outcome": "FAIL", "test": "suites/test_hash.py::test_hash[mine-long 34]", "text": "expected 2017239379, got <&>"}],
    ("mine", "transforms"): [{"outcome": "KNOWN-FAILURE", "test": "t::x", "text": "known failure of mine: bucket"}]}


def hue(colour: str) -> int:
    found = re.fullmatch(r"hsl\((\d+), .*\)", colour)
    assert found, colour
    return int(found.group(1))


def test_colour_is_the_share_of_passes() -> None:
    """4 of 6 and 1499 of 1569 are not the same colour; none passing is red (hue 0), all green (120)."""
    assert hue(pass_colour(counts(PASS=4, FAIL=2))) == 80
    assert hue(pass_colour(counts(PASS=1499, KNOWN_FAILURE=70))) == 115
    assert hue(pass_colour(counts(FAIL=3))) == 0 and hue(pass_colour(counts(PASS=3))) == 120
    assert not pass_colour(counts(UNSUPPORTED=3)).startswith("hsl")  # nothing judged: no share


def test_html_report(tmp_path: Path) -> None:
    write_report(tmp_path, {"mine": "1.2.3"}, ROWS, 1, {"mine": {"transform": 561}}, CASES)
    page = (tmp_path / "matrix.html").read_text()
    # every cell with something else than passes links to an anchor that lists its cases
    for target, area in (("mine", "hash"), ("mine", "transforms"), ("(kit)", "kit")):
        assert f'href="#{anchor(target, area)}"' in page and f'id="{anchor(target, area)}"' in page
    assert f'href="#{anchor("mine", "value-json")}"' not in page  # all passed: nothing to list
    hash_cases = page.split(f'id="{anchor("mine", "hash")}"', 1)[1].split("</section>", 1)[0]
    assert "test_hash[mine-int 34]" in hash_cases and "expected 2017239379, got -1" in hash_cases
    assert "got &lt;&amp;&gt;" in hash_cases  # failure text is escaped
    # run metadata
    for label in ("kit", "vectors", "targets", "date", "platform", "python"):
        assert f"<dt>{label}</dt>" in page, label
    assert "mine 1.2.3" in page
    if (ROOT / ".git").exists():
        assert re.search(r"<dt>commit</dt><dd>[0-9a-f]{40}</dd>", page)
    # a picture at the top: an inline SVG before the matrix
    assert page.index("<svg") < page.index('id="matrix"')
    # one file: no stylesheet, script or image loaded from elsewhere; links relative to the folder
    assert not re.search(r'<(link|script|img)\b', page)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and all(h.startswith("#") or re.fullmatch(r"[\w.-]+", h) for h in hrefs), hrefs
    assert all((tmp_path / h).exists() for h in hrefs if not h.startswith("#"))
    # the table scrolls inside its box, the page does not grow past the window
    assert '<div class="scroll" id="matrix"><table>' in page and ".scroll{overflow-x:auto" in page
    assert not re.search(r"width:\s*\d{4,}px", page)
    # an engine nobody asked about that only skipped is one line, not a row; the JSON keeps it
    assert "<th>chdb" not in page and "not asked for, all 952 tests skipped (not shown): chdb" in page
    data = json.loads((tmp_path / "matrix.json").read_text())
    assert any(r["target"] == "chdb" for r in data["rows"]) and data["totals"]["SKIP"] == 952
    assert data["not_declared"] == {"mine": {"transform": 561}}
    assert {"kit", "vectors", "targets", "date", "platform", "python"} <= set(data["run"])
    md = (tmp_path / "matrix.md").read_text()
    assert "| chdb |" not in md and "mine: 561 tests not generated" in md


def test_junit_class_names_start_at_the_package(tmp_path: Path) -> None:
    xml = tmp_path / "junit.xml"
    xml.write_text('<testsuites><testsuite><testcase classname="....venv.lib.python3.11.site-packages.'
                   'iceberg_conformance.suites.test_hash" name="test_hash[reference-x]"/>'
                   '<testcase classname="suites.test_hash" name="y"/></testsuite></testsuites>')
    junit_without_install_path(xml)
    text = xml.read_text()
    assert 'classname="iceberg_conformance.suites.test_hash"' in text and 'classname="suites.test_hash"' in text
    assert "site-packages" not in text and "venv" not in text
