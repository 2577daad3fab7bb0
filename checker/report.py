"""Rendering checker results: findings grouped by cause, as text and JSON.

A condition that holds for many files is one group: its rule, severity, level, the spec
sentence, a count and a few examples (file, location, message). A root violation carries its
consequences as counts: when a table has a finding of a root rule, findings of the rules that
follow from it (:data:`CONSEQUENCES`) are folded into the root's group instead of being listed
one by one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from iceberg_conformance.checker.check import TableResult
from iceberg_conformance.reference.findings import Finding
from iceberg_conformance.reference.rules import catalogue

#: consequence rule -> the root rules it follows from (prefixes end in ".")
CONSEQUENCES: dict[str, tuple[str, ...]] = {
    # a bound that does not decode is reported by the manifest check; the data-file check, which
    # cannot compare it with the data, says the same again
    "data.bound-undecodable": ("manifests.bound-decode",),
    # a data_file field without a field id is then also "missing"
    "manifests.field-missing": ("manifests.field-id-missing",),
    # columns of a schema that does not parse are unknown to every data file
    "parquet.field-id-unknown": ("types.", "schema.", "metadata.shape", "metadata.type-version"),
    # a wrong or missing sequence number where it is recorded makes the file's resolved
    # sequence numbers differ between the entries that list it
    "manifests.sequence-number-changed": ("manifests.sequence-number-explicit", "manifests.status",
                                          "snapshot.manifest-sequence-number", "manifests.entry-sequence-number",
                                          "manifests.entry-file-sequence-number"),
    # an entry whose status is not 0, 1 or 2 is not live: deletes that refer to it dangle
    "dv.target-not-live": ("manifests.status",),
    "deletes.target-not-live": ("manifests.status",),
    # an unreadable manifest or list: what it would have listed is not there to check
    "files.manifest-missing": ("files.manifest-list-missing",),
}

EXAMPLES = 5
SEVERITIES = ("error", "warning", "info")


@dataclass
class Group:
    """Findings of one rule and severity in one table."""

    rule: str
    severity: str
    clause: str
    findings: list[Finding] = field(default_factory=list)
    consequences: dict[str, int] = field(default_factory=dict)
    #: findings of this group counted but not listed (see ``checker.check.KEEP``)
    omitted: int = 0

    @property
    def count(self) -> int:
        return len(self.findings) + self.omitted

    def to_json(self) -> dict[str, Any]:
        rule = catalogue().get(self.rule)
        return {"rule": self.rule, "severity": self.severity, "count": self.count,
                "level": rule.level if rule else None, "section": rule.section if rule else self.clause,
                "quote": rule.quote if rule else None,
                "examples": [f.to_json() for f in self.findings[:EXAMPLES]],
                "consequences": dict(self.consequences)}


def _is_root(rule: str, roots: tuple[str, ...]) -> bool:
    return any(rule.startswith(r) if r.endswith(".") else rule == r for r in roots)


def group(findings: list[Finding], omitted: dict[tuple[str, str], int] | None = None) -> list[Group]:
    """Findings grouped by (rule, severity), consequences folded into their roots; errors first,
    then by count. ``omitted``: findings counted beyond those listed, per (rule, severity)."""
    groups: dict[tuple[str, str], Group] = {}
    for f in findings:
        g = groups.setdefault((f.rule, f.severity), Group(f.rule, f.severity, f.clause))
        g.findings.append(f)
    for (rule, sev), n in (omitted or {}).items():
        if (rule, sev) in groups:
            groups[(rule, sev)].omitted += n
    present = {rule for rule, _sev in groups}
    for (rule, sev), g in list(groups.items()):
        roots = CONSEQUENCES.get(rule)
        if not roots:
            continue
        root = next((r for r in sorted(present) if r != rule and _is_root(r, roots)), None)
        if root is None:
            continue
        target = next((x for (r, _s), x in groups.items() if r == root), None)
        if target is None:  # the root was itself folded into another: keep this group listed
            continue
        target.consequences[rule] = target.consequences.get(rule, 0) + g.count
        del groups[(rule, sev)]
    return sorted(groups.values(), key=lambda g: (SEVERITIES.index(g.severity), -g.count, g.rule))


def counts(findings: list[Finding], omitted: dict[tuple[str, str], int] | None = None) -> dict[str, int]:
    out = {s: 0 for s in SEVERITIES}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    for (_rule, sev), n in (omitted or {}).items():
        out[sev] = out.get(sev, 0) + n
    return out


def to_json(results: list[TableResult]) -> dict[str, Any]:
    """Every table's counts, groups and findings; ``omitted`` counts, per rule, the findings
    beyond those listed (``checker.check.KEEP`` of a rule and severity)."""
    tables = []
    total = {s: 0 for s in SEVERITIES}
    for r in results:
        c = counts(r.findings, r.omitted)
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
        tables.append({"table": r.table, "chosen": r.chosen, "units": r.units, "seconds": round(r.seconds, 3),
                       "verdict": r.verdict(), "not_read": len(r.not_read),
                       "counts": c, "groups": [g.to_json() for g in group(r.findings, r.omitted)],
                       "findings": [f.to_json() for f in r.findings],
                       "omitted": {f"{rule} ({sev})": n for (rule, sev), n in sorted(r.omitted.items())}})
    verdicts = [r.verdict() for r in results]
    overall = next((v for v in ("findings", "incomplete") if v in verdicts), "clean")
    return {"verdict": overall, "tables": tables, "counts": total}


def _where(f: Finding) -> str:
    return f.file + (f" at {f.location}" if f.location else "")


def render_text(results: list[TableResult]) -> str:
    lines: list[str] = []
    for r in results:
        c = counts(r.findings, r.omitted)
        lines.append(f"table {r.table}: {c['error']} error(s), {c['warning']} warning(s), {c['info']} info "
                     f"[{r.units} units, {r.seconds:.2f}s]")
        if r.chosen:
            lines.append(f"  metadata file checked: {r.chosen}")
        if r.incomplete:
            lines.append(f"  verdict: INCOMPLETE: {len(r.not_read)} part(s) of the table were not read "
                         "(files.outside-table, checker.not-checked below); what was read is reported")
        for g in group(r.findings, r.omitted):
            rule = catalogue().get(g.rule)
            level = f"{rule.level}, " if rule else ""
            section = rule.section if rule and rule.section else g.clause
            times = f" x{g.count}" if g.count > 1 else ""
            lines.append(f"  {g.severity}: [{g.rule}]{times} ({level}spec: {section})")
            if rule and rule.quote:
                lines.append(f"      > {rule.quote}")
            for f in g.findings[:EXAMPLES]:
                lines.append(f"      {_where(f)}: {f.message}")
            if g.count > EXAMPLES:
                lines.append(f"      ... and {g.count - EXAMPLES} more like these")
            for rule_id, n in sorted(g.consequences.items()):
                lines.append(f"      consequence: {n} [{rule_id}] finding(s) follow from this and are not listed")
    if not results:
        lines.append("no tables found")
    return "\n".join(lines)
