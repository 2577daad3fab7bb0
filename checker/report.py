"""Rendering checker results: human text grouped by file, and JSON."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from iceberg_conformance.reference.findings import Finding

from iceberg_conformance.checker.table import TableResult


def counts(findings: list[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out


def to_json(results: list[TableResult]) -> dict[str, Any]:
    tables = []
    for r in results:
        tables.append({"table": r.table, "units": r.units, "seconds": round(r.seconds, 3),
                       "counts": counts(r.findings), "findings": [f.to_json() for f in r.findings]})
    total = counts([f for r in results for f in r.findings])
    return {"tables": tables, "counts": total}


def render_text(results: list[TableResult]) -> str:
    lines: list[str] = []
    for r in results:
        c = counts(r.findings)
        lines.append(f"table {r.table}: {c['error']} error(s), {c['warning']} warning(s) "
                     f"[{r.units} units, {r.seconds:.2f}s]")
        by_file: dict[str, list[Finding]] = defaultdict(list)
        for f in r.findings:
            by_file[f.file or r.table].append(f)
        for file in sorted(by_file):
            fs = by_file[file]
            fc = counts(fs)
            lines.append(f"  {file} ({fc['error']} error(s), {fc['warning']} warning(s))")
            for f in sorted(fs, key=lambda f: (f.severity != "error", f.location, f.rule)):
                loc = f" at {f.location}" if f.location else ""
                lines.append(f"    {f.severity}: [{f.rule}]{loc}: {f.message} (spec: {f.clause})")
    if not results:
        lines.append("no tables found")
    return "\n".join(lines)
