"""Rendering checker results: findings grouped by cause, as text and JSON.

A condition that holds for many files is one group: its rule, severity, level, the spec
sentence, a count and a few examples (file, location, message). A root violation carries its
consequences as counts: when a table has a finding of a root rule, findings of the rules that
follow from it (:data:`CONSEQUENCES`) are folded into the root's group instead of being listed
one by one. A finding that the table's format version is not known (:data:`ROOTS_OF_ALL`) is
the root of every other finding of its table. Roots come first. Each group says what to do
(:data:`WHAT_TO_DO`, per rule family).
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

#: rules whose finding means the table's format version is not known: the checker judged the
#: rest of the table under an assumed version (v1), so every other finding follows from it
ROOTS_OF_ALL = ("metadata.format-version",)

#: what to do about a finding, per rule family (the rule id's first part); a writer's bug is
#: fixed in the writer, the table itself by rewriting what is wrong with a conforming writer
WHAT_TO_DO: dict[str, str] = {
    "metadata": "fix the writer of the table metadata file, then commit new metadata written by a conforming "
                "writer (a metadata-only rewrite); readers may refuse or misread the table until then",
    "snapshot": "fix the writer that committed the snapshot; the snapshot's summary or manifest list must be "
                "rewritten (a new snapshot by a conforming writer, e.g. rewrite_manifests)",
    "manifests": "fix the writer of the manifest; rewrite the table's manifests with a conforming writer "
                 "(e.g. rewrite_manifests) so readers plan from correct entries",
    "files": "restore the missing or wrong file, or correct what the metadata records about it; a file "
             "outside the table is read only with --allow-root DIR",
    "avro": "fix the writer of the Avro file (manifest or manifest list); rewrite the file with a conforming "
            "writer; an unreadable file must be restored from a copy",
    "data": "fix the writer of the data file or of its manifest entry; rewrite the affected data files "
            "(e.g. rewrite_data_files) so the file and its metadata agree",
    "parquet": "fix the Parquet writer (field ids, types, annotations); rewrite the affected files with a "
               "conforming writer, or add schema.name-mapping.default for files without field ids",
    "orc": "fix the ORC writer (field ids, attributes, types); rewrite the affected files with a conforming writer",
    "arrow": "fix the Arrow schema the writer produced (field ids, type mapping)",
    "deletes": "fix the writer of the delete file; rewrite it (e.g. rewrite_position_delete_files) or "
               "compact the data it applies to",
    "dv": "fix the writer of the deletion vector; rewrite the Puffin file and the manifest entries that point into it",
    "puffin": "fix the Puffin writer; rewrite the file (statistics can be recomputed, deletion vectors rewritten)",
    "schema": "fix the schema the writer committed; evolve the schema to a valid one in a new metadata file",
    "types": "fix the type in the schema the writer committed; evolve it to a valid type in a new metadata file",
    "partition": "fix the partition spec the writer committed; add a valid spec (partition evolution) and "
                 "rewrite data under it",
    "transforms": "fix the transform in the partition spec or sort order; evolve to a valid one",
    "evolution": "fix the schema or spec change the writer made; revert it in a new metadata file",
    "binary": "fix the writer's single-value serialization (bounds, partition values); rewrite the manifests",
    "values": "fix the writer's JSON single-value form (defaults, bounds in JSON)",
    "expressions": "fix the expression the client sent; bind it against the table's schema first",
    "scan": "fix the reader's scan planning or projection",
    "commit": "fix the committer: retry against the table's new state and validate the conflict",
    "checker": "a part of the table was not checked: read the message, give --allow-root or the missing "
               "access, and run the check again",
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
                "quote": rule.quote if rule else None, "what_to_do": what_to_do(self.rule),
                "examples": [f.to_json() for f in self.findings[:EXAMPLES]],
                "consequences": dict(self.consequences)}


#: rules whose "what to do" is not their family's
WHAT_TO_DO_RULE: dict[str, str] = {
    "files.table-moved": "give --relocate OLD=NEW (the location the metadata records = where the table is now) to "
                         "check the table's own files",
    "files.table-copied": "give --relocate OLD=NEW (the location the metadata records = where the copy is) to check "
                          "the copy's own files rather than the original's",
    "snapshot.replace-changes-rows": "fix the writer of the rewrite (compaction) that committed the snapshot; the "
                                     "table's rows changed: read its parent snapshot (time travel) and restore the "
                                     "rows from it with a conforming writer",
}


def what_to_do(rule: str) -> str:
    """The short "what to do" line of a rule (its own, else its family's)."""
    return WHAT_TO_DO_RULE.get(rule) or WHAT_TO_DO.get(rule.split(".", 1)[0],
                                                       "fix the writer that produced this; see the rule's spec sentence")


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
    root_of_all = next((groups[(r, "error")] for r in ROOTS_OF_ALL if (r, "error") in groups), None)
    for (rule, sev), g in list(groups.items()):
        if root_of_all is not None:
            if g is not root_of_all:
                root_of_all.consequences[rule] = root_of_all.consequences.get(rule, 0) + g.count
                del groups[(rule, sev)]
            continue
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
    # roots first: within a severity, a group with consequences before the others
    return sorted(groups.values(), key=lambda g: (SEVERITIES.index(g.severity), not g.consequences, -g.count, g.rule))


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
            rules = ", ".join(sorted({f.rule for f in r.not_read}))
            lines.append(f"  verdict: INCOMPLETE: {len(r.not_read)} part(s) of the table were not read "
                         f"({rules} below); what was read is reported")
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
            if g.consequences:
                lines.append(f"      {sum(g.consequences.values())} consequence(s) follow from this and are not listed:")
            for rule_id, n in sorted(g.consequences.items()):
                lines.append(f"      consequence: {n} [{rule_id}] finding(s)")
            lines.append(f"      what to do: {what_to_do(g.rule)}")
    if not results:
        lines.append("no tables found")
    return "\n".join(lines)
