"""The mutation self-test: a pristine copy and one copy per damage case, and the checker run on
each (``OUT/damage.json`` lists the copies; recall per area).

``OUT/pristine/`` is the same rewrite with no damage: the control. The checker must report no
error on it, which proves the rewriting itself keeps a table valid.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from dataclasses import dataclass, field
from typing import Any, Callable

from iceberg_conformance.checker.check import check_table
from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.damage.registry import DAMAGES
from iceberg_conformance.checker.find import find_tables
from iceberg_conformance.checker.report import group


AREAS = ("metadata", "manifest-list", "manifest", "data-file", "delete-file", "puffin")


@dataclass
class Copy:
    """One written copy: which rule it breaks, where, and its metadata file."""

    case: str
    rule: str
    area: str
    description: str
    where: str
    metadata: str
    also: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "rule": self.rule, "area": self.area, "description": self.description,
                "where": self.where, "metadata": self.metadata, "also": self.also}


def write_damaged(table: str, out: str, *, rules: list[str] | None = None, seed: int = 0,
                  progress: Callable[[str], None] | None = None) -> tuple[str, list[Copy], list[str]]:
    """Write ``out/pristine`` and one copy per applicable damage case under ``out``; return
    (pristine metadata file, copies, rules with no victim in this table)."""
    found = find_tables(table)
    if len(found) != 1:
        raise ValueError(f"{table}: expected one table, found {len(found)}")
    source = found[0]
    os.makedirs(out, exist_ok=True)
    pristine_dir = os.path.join(out, "pristine")
    shutil.rmtree(pristine_dir, ignore_errors=True)
    control = Overlay(source)
    for p in control.manifest_paths():  # rewrite every manifest and list: the machinery is tested too
        control.touch_manifest(p)
    pristine = control.write(pristine_dir)
    copies: list[Copy] = []
    skipped: list[str] = []
    for d in DAMAGES:
        if rules and d.rule not in rules and d.name not in rules:
            continue
        o = Overlay(source)
        o.keep_counts = d.rule == "manifests.list-counts"
        if d.rule == "files.manifest-length":
            o.keep_length = set(o.manifest_paths())
        where = d.apply(o, random.Random(f"{seed}:{d.name}"))
        if where is None:
            skipped.append(d.name)
            continue
        case = d.name.replace(".", "_")
        target = os.path.join(out, case)
        shutil.rmtree(target, ignore_errors=True)
        md = o.write(target)
        copies.append(Copy(case, d.rule, d.area, d.description, where, md, list(d.also)))
        if progress is not None:
            progress(f"{d.name}: {where}")
    with open(os.path.join(out, "damage.json"), "w", encoding="utf-8") as f:
        json.dump({"table": source, "seed": seed, "pristine": pristine,
                   "copies": [c.to_json() for c in copies], "no_victim": skipped}, f, indent=2)
    return pristine, copies, skipped


@dataclass
class Verdict:
    copy: Copy
    reported: bool
    error_rules: list[str]
    extra_errors: list[str]


def self_test(out: str, copies: list[Copy], pristine: str) -> tuple[list[str], list[Verdict]]:
    """Run the checker on the pristine copy (its error rules are returned) and on every copy."""
    def error_rules(metadata: str) -> tuple[list[str], set[str]]:
        findings = check_table(metadata).findings
        # consequences are folded into their root, as the report shows them
        return sorted({g.rule for g in group(findings) if g.severity == "error"}), {f.rule for f in findings}

    control = error_rules(pristine)[0]
    verdicts = []
    for c in copies:
        errors, any_severity = error_rules(c.metadata)
        reported = c.rule in any_severity
        extra = [r for r in errors if r != c.rule and r not in c.also]
        verdicts.append(Verdict(c, reported, errors, extra))
    return control, verdicts


def recall_by_area(verdicts: list[Verdict]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for v in verdicts:
        hit, total = out.get(v.copy.area, (0, 0))
        out[v.copy.area] = (hit + v.reported, total + 1)
    return out


def render(control: list[str], verdicts: list[Verdict], skipped: list[str]) -> str:
    lines = [f"pristine copy: {'no error' if not control else 'ERRORS ' + ', '.join(control)}"]
    for v in verdicts:
        mark = "caught" if v.reported else "MISSED"
        extra = f"; also reported {', '.join(v.extra_errors)}" if v.extra_errors else ""
        lines.append(f"  {mark:<7} {v.copy.rule:<40} {v.copy.where}{extra}")
    lines.append("recall by area:")
    for area, (hit, total) in sorted(recall_by_area(verdicts).items(), key=lambda kv: AREAS.index(kv[0])):
        lines.append(f"  {area:<14} {hit}/{total} ({100 * hit / total:.0f} %)")
    hit = sum(v.reported for v in verdicts)
    lines.append(f"  {'all':<14} {hit}/{len(verdicts)} ({100 * hit / max(1, len(verdicts)):.0f} %)")
    if skipped:
        lines.append(f"no victim in this table for: {', '.join(skipped)}")
    return "\n".join(lines)
