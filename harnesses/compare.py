"""Compare two targets' outcomes per test, from the JUnit XML of one run with both targets.

    python -m iceberg_conformance.harnesses.compare JUNIT.xml TARGET_A TARGET_B [--where-both-run]

A test id names its target as the first part of its parameter id (``test_hash[reference-...]``);
the two targets' tests are matched by the id with the target name taken out, and their outcomes
(the ``outcome`` property the kit's plugin records: PASS, FAIL, UNSUPPORTED, KNOWN-FAILURE, ...)
compared. ``--where-both-run`` leaves out tests where either target is UNSUPPORTED, and tests only
one of them ran (a harness that declares fewer capabilities than the in-process target: the
tests of a capability a target does not declare are not generated for it). Exit status 1 when an outcome
differs or a test of one target has no counterpart, 2 when nothing was compared.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

UNSUPPORTED = "UNSUPPORTED"


def outcomes(junit: Path, target: str) -> dict[str, str]:
    """``{test id without the target: outcome}`` of ``target``'s tests in the JUnit file."""
    out: dict[str, str] = {}
    marker = f"[{target}-"
    for case in ET.parse(junit).iter("testcase"):
        name = case.get("name", "")
        if marker not in name and not name.endswith(f"[{target}]"):
            continue
        key = f"{case.get('classname')}::{name.replace(marker, '[').replace(f'[{target}]', '[]')}"
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        outcome = props.get("outcome")
        if outcome is None:
            outcome = "FAIL" if case.find("failure") is not None or case.find("error") is not None else (
                "SKIP" if case.find("skipped") is not None else "PASS")
        out[key] = outcome
    return out


def compare(junit: Path, a: str, b: str, where_both_run: bool = False) -> tuple[int, list[str], Counter[str]]:
    """(tests compared, differences in words, outcomes of the compared tests)."""
    left, right = outcomes(junit, a), outcomes(junit, b)
    problems, counts, compared = [], Counter[str](), 0
    for key in sorted(set(left) | set(right)):
        x, y = left.get(key), right.get(key)
        if x is None or y is None:
            if not where_both_run:
                problems.append(f"{key}: only {a if y is None else b} ran it")
            continue
        if where_both_run and UNSUPPORTED in (x, y):
            continue
        compared += 1
        counts[x] += 1
        if x != y:
            problems.append(f"{key}: {a} {x}, {b} {y}")
    return compared, problems, counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m iceberg_conformance.harnesses.compare", description=__doc__.split("\n")[0])
    p.add_argument("junit", type=Path)
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--where-both-run", action="store_true")
    args = p.parse_args(argv)
    compared, problems, counts = compare(args.junit, args.a, args.b, args.where_both_run)
    for line in problems:
        print(line)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{compared} tests compared ({shown}); {len(problems)} differ between {args.a} and {args.b}")
    if not compared:
        return 2
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
