"""``iceberg-conformance harness-check COMMAND``: speak the protocol to a harness and say, in
plain words, what it does wrong, before any vector runs.

It starts the harness, checks its ``start`` reply, sends each operation of every capability it
declares one well-formed request (a small input from a table the reference writer makes and
from the vectors), checks every reply against the protocol's schema and its id, and finally
sends ``stop`` and checks that the harness exits. Only the form is judged here: whether an
answer is right is what the suites judge. A crash, a hang (per-request timeout) or a malformed
reply is a problem; the harness is started again for the next probe.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from iceberg_conformance.suites.api import Rejected, Unsupported
from iceberg_conformance.suites.targets.subprocess import HarnessError, HarnessTarget, ImplementationError
from iceberg_conformance.suites.targets.subprocess.protocol import OPERATIONS

_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "data", "required": False, "type": "string"}]}
_SPEC = {"spec-id": 0, "fields": [{"source-id": 1, "field-id": 1000, "name": "id_bucket", "transform": "bucket[4]"}]}
_EXPR = {"type": "eq", "term": "id", "value": 1}


@dataclass
class Report:
    command: str
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def ok(self, text: str) -> None:
        self.lines.append(f"ok       {text}")

    def problem(self, text: str) -> None:
        self.problems.append(text)
        self.lines.append(f"PROBLEM  {text}")

    def text(self) -> str:
        verdict = (f"{len(self.problems)} problem(s): the harness does not speak the protocol yet"
                   if self.problems else "no problem found: the harness speaks the protocol")
        return "\n".join([f"harness-check {self.command}", *self.lines, verdict])


def _inputs(tmp: Path) -> dict[str, tuple[Any, ...]]:
    """One well-formed argument tuple (the Python method's) per operation."""
    from iceberg_conformance.reference.writer import write_table
    from iceberg_conformance.suites.targets.reference import ReferenceTarget
    from iceberg_conformance.vectors.cases import vectors_root

    metadata = write_table(str(tmp / "table"), 2)
    ref = ReferenceTarget()
    doc = ref.read_table_metadata(metadata)
    current = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    manifest_list = current["manifest-list"]
    entry = ref.read_manifest_list(manifest_list, 2)[0]
    manifest = entry["manifest_path"]
    root = vectors_root()
    puffin = str(root / "puffin" / "files" / "dv-small.puffin")

    def sidecar(name: str) -> Any:
        return json.loads((root / "manifests" / "files" / name).read_text(encoding="utf-8"))

    retry = json.loads((root / "commit" / "retry.json").read_text(encoding="utf-8"))["tests"][0]["input"]
    data_file = {"file_path": "s3://b/d.parquet", "content": 0, "data_sequence_number": 1, "spec_id": 0,
                 "partition": {}}
    delete_file = {**data_file, "file_path": "s3://b/del.parquet", "content": 1, "file_format": "parquet"}
    unpartitioned = {"spec-id": 0, "fields": []}
    return {
        "hash": ("int", 34),
        "transform": ("bucket[16]", "int", 34),
        "result_type": ("day", "date"),
        "to_bytes": ("long", 1),
        "from_bytes": ("int", bytes.fromhex("01000000")),
        "value_json_roundtrip": ("date", "2017-11-16"),
        "bound_to_bytes": ("string", "iceberg"),
        "bound_from_bytes": ("string", b"iceberg"),
        "type_json_roundtrip": ("decimal(9, 2)",),
        "schema_json_roundtrip": (_SCHEMA, 2),
        "partition_spec_json_roundtrip": (_SPEC, _SCHEMA, 2),
        "read_table_metadata": (metadata,),
        "read_table_metadata_as": (metadata, 2),
        "read_manifest_list": (manifest_list, 2),
        "read_manifest": (manifest, 2),
        "read_manifest_inherited": (manifest, 2, entry),
        "write_manifest": (str(tmp / "out-manifest.avro"), sidecar("v2-data.sidecar.json")),
        "write_manifest_list": (str(tmp / "out-list.avro"), sidecar("v2-list.sidecar.json")),
        "read_puffin": (puffin,),
        "write_puffin": (str(tmp / "out.puffin"), {"blobs": [], "properties": {}}),
        "scan": (metadata, None, True),
        "check_schema_evolution": (_SCHEMA, _SCHEMA, 2, None),
        "check_partition_evolution": (unpartitioned, {**_SPEC, "spec-id": 1}, _SCHEMA, 2),
        "check_manifest": (manifest, 2, entry),
        "commit_retry": (retry,),
        "expression_roundtrip": (_EXPR,),
        "expression_bind": (_SCHEMA, _EXPR, True),
        "expression_evaluate": (_SCHEMA, _EXPR, {"1": 1, "2": "a"}, True),
        "projection_accepts": (_SCHEMA, _SPEC, _EXPR, "inclusive", {"1000": 1}),
        "metrics_evaluate": (_SCHEMA, {"record_count": 1}, _EXPR, "inclusive"),
        "manifest_might_match": (_SCHEMA, _SPEC, [{"contains_null": False}], _EXPR),
        "applicable_deletes": (_SCHEMA, [unpartitioned], data_file, [delete_file]),
        "residual": (_SCHEMA, _SPEC, _EXPR, {"1000": 1}, True),
        "avro_schema": (_SCHEMA,),
        "plan_files": (metadata, None, True),
    }


def _probe(report: Report, target: HarnessTarget, op: str, args: tuple[Any, ...]) -> None:
    try:
        target.call(op, *args)
    except HarnessError as e:
        report.problem(f"{op}: {e}")
    except Rejected as e:
        report.ok(f"{op}: well-formed refusal ({str(e)[:80]})")
    except Unsupported as e:
        report.ok(f"{op}: well-formed unsupported ({str(e)[:80]})")
    except ImplementationError as e:
        report.ok(f"{op}: well-formed error reply ({(str(e).splitlines() or [''])[0][:80]})")
    else:
        report.ok(f"{op}: well-formed result")


def check(command: str | list[str], timeout: float = 10.0,
          say: Callable[[str], None] | None = None) -> Report:
    """Speak the protocol to ``command``; the report of what is malformed."""
    shown = command if isinstance(command, str) else subprocess.list2cmdline(command)
    report = Report(shown)
    try:
        target = HarnessTarget(command, timeout=timeout)
    except HarnessError as e:
        report.problem(f"start: {e}")
        return report
    report.ok(f"start: {target.version}, capabilities: "
              + (", ".join(sorted(target.capabilities)) or "none"))
    if not target.capabilities:
        report.problem("start: the harness declares no capability, so no case can judge it")
    with tempfile.TemporaryDirectory(prefix="harness-check-") as tmp:
        inputs = _inputs(Path(tmp))
        for op in OPERATIONS.values():
            if op.capability in target.capabilities:
                _probe(report, target, op.op, inputs[op.op])
                if say is not None:
                    say(report.lines[-1])
        _stop(report, target)
    return report


def _stop(report: Report, target: HarnessTarget) -> None:
    proc = target._proc
    target.close()
    if proc is None:
        return
    if proc.returncode is not None and proc.returncode < 0:
        report.problem("stop: the harness did not exit within 5 s of stop; it was killed")
    else:
        report.ok(f"stop: the harness exited (exit code {proc.returncode})")


