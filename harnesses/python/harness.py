"""The Python harness: an adapter of ``suites/api.py`` (the reference unless another is named)
behind the harness protocol (``docs/harness-protocol.md``).

    python -m iceberg_conformance.harnesses.python.harness [TARGET]

Reads one request per line on stdin, writes one reply per line on stdout, nothing else goes to
stdout. ``TARGET`` is a target name or ``module:attr`` as ``--target`` takes it (default
``reference``). The protocol's conformance test: the suites give the same outcome through this
harness (``--target harness-python``) as with the adapter in-process (``--target reference``).
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

from iceberg_conformance.suites.api import CAPABILITY_PROTOCOLS, Rejected, Unsupported
from iceberg_conformance.suites.targets import load_target
from iceberg_conformance.suites.targets.subprocess.protocol import OPERATIONS, PROTOCOL_VERSION

LANGUAGE = "python"


def _arg(kind: str, value: Any) -> Any:
    if kind == "hex":
        return bytes.fromhex(value)
    if kind == "int64":
        return None if value is None else int(value)
    return value


def _result(kind: str, value: Any) -> Any:
    return value.hex() if kind == "hex" else value


def answer(target: Any, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to one operation request."""
    rid = request.get("id")
    op = OPERATIONS.get(request.get("op", ""))
    if op is None:
        return {"id": rid, "unsupported": f"unknown operation {request.get('op')!r}"}
    if op.capability not in target.capabilities:
        return {"id": rid, "unsupported": f"{target.name} does not declare {op.capability!r}"}
    method = getattr(target, op.op, None)
    if method is None:
        return {"id": rid, "unsupported": f"{target.name} has no {op.op}"}
    try:
        value = method(*(_arg(kind, request[name]) for name, kind in op.args))
    except Rejected as e:
        reply: dict[str, Any] = {"id": rid, "refused": str(e) or type(e).__name__}
        if e.rule is not None:
            reply["rule"] = e.rule
        return reply
    except Unsupported as e:
        return {"id": rid, "unsupported": str(e) or "this input"}
    except Exception as e:  # noqa: BLE001 - a crash of the implementation, reported as one
        trace = "".join(traceback.format_exception(e, limit=-3)).strip()
        return {"id": rid, "error": f"{type(e).__name__}: {e}\n{trace}"}
    return {"id": rid, "result": _result(op.result, value)}


def hello(target: Any, rid: Any) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "id": rid, "protocol": PROTOCOL_VERSION, "implementation": target.name, "language": LANGUAGE,
        "version": target.version, "capabilities": sorted(c for c in target.capabilities if c in CAPABILITY_PROTOCOLS),
        "reports_rules": bool(getattr(target, "reports_rules", False)),
    }
    versions = getattr(target, "metadata_write_versions", None)
    if versions is not None:
        reply["metadata_write_versions"] = sorted(versions)
    return reply


def serve(target: Any, stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    for line in stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "stop":
            return
        reply = hello(target, request.get("id")) if request.get("op") == "start" else answer(target, request)
        try:
            text = json.dumps(reply, allow_nan=False)
        except (TypeError, ValueError) as e:
            text = json.dumps({"id": request.get("id"), "error": f"the result is not JSON: {e}"})
        stdout.write(text + "\n")
        stdout.flush()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    serve(load_target(args[0] if args else "reference"))


if __name__ == "__main__":
    main()
