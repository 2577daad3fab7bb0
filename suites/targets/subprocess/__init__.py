"""The ``harness:COMMAND`` target: an implementation in any language behind the harness protocol.

The target starts ``COMMAND`` (split like a shell would, no shell involved) once, speaks
newline-delimited JSON with it over its standard input and output (``docs/harness-protocol.md``;
the operations are :data:`.protocol.OPERATIONS`) and exposes what the harness declared in its
``start`` reply as an ordinary adapter of ``suites/api.py``, so the suites run unchanged.

Every reply is validated against ``harnesses/protocol.schema.json``. What the harness does wrong
is the harness's failure, named as such, in the case that met it: a reply that is not JSON, that
answers another request or breaks the schema raises :class:`MalformedReply` ("the harness replied
malformed: ..."); a harness that exits raises :class:`HarnessCrashed`; one that does not answer
within the per-request timeout (``timeout``, default 60 s, ``$ICEBERG_CONFORMANCE_HARNESS_TIMEOUT``)
is killed and raises :class:`HarnessTimeout`. After any of these the process is started again
(with a new ``start``) for the next request.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shlex
import subprocess
import tempfile
import threading
from functools import cache
from importlib import resources
from typing import IO, Any

from iceberg_conformance.suites.api import JSON, Rejected, Unsupported
from iceberg_conformance.suites.targets.subprocess.protocol import OPERATIONS, PROTOCOL_VERSION

TIMEOUT_ENV = "ICEBERG_CONFORMANCE_HARNESS_TIMEOUT"
DEFAULT_TIMEOUT = 60.0
#: how long ``start`` may take (a JVM, a compilation at first use)
START_TIMEOUT = 180.0


class HarnessError(Exception):
    """The harness, not the implementation's answer, failed this request."""


class MalformedReply(HarnessError):
    def __init__(self, detail: str) -> None:
        super().__init__(f"the harness replied malformed: {detail}")


class HarnessCrashed(HarnessError):
    pass


class HarnessTimeout(HarnessError):
    pass


class HarnessUnavailable(Exception):
    """What a built-in harness needs (a JDK, node, a library) is not installed; the message says what."""


class ImplementationError(Exception):
    """The harness says the implementation failed on the input (an ``error`` reply): a crash."""


@cache
def protocol_schema() -> dict[str, Any]:
    """``harnesses/protocol.schema.json``, as installed with the kit."""
    text = resources.files("iceberg_conformance.harnesses").joinpath("protocol.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(definition: str) -> Any:
    from jsonschema import Draft202012Validator
    defs = protocol_schema()["$defs"]
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": defs})


def schema_problem(message: Any, definition: str) -> str | None:
    """What is wrong with ``message`` against ``$defs/<definition>`` in plain words, or None."""
    errors = sorted(_validator(definition).iter_errors(message), key=lambda e: list(e.path))
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(p) for p in e.path)
    return f"{e.message}" + (f" (at {where})" if where else "")


def reply_problem(op: str, reply: Any, request_id: int) -> str | None:
    """Why ``reply`` is not a well-formed answer to request ``request_id`` of operation ``op``."""
    if not isinstance(reply, dict):
        return f"the reply is {type(reply).__name__}, not a JSON object"
    if reply.get("id") != request_id:
        return f"the reply's id is {reply.get('id')!r}, but it answers request {request_id}"
    if op == "start":
        return schema_problem(reply, "start-reply")
    for key, definition in (("refused", "refused"), ("unsupported", "unsupported"), ("error", "error"),
                            ("result", f"result-{op}")):
        if key in reply:
            return schema_problem(reply, definition)
    return "the reply has none of result, refused, unsupported, error"


def _encode(kind: str, value: Any) -> Any:
    if kind == "hex":
        return bytes(value).hex()
    if kind == "int64":
        return None if value is None else str(value)
    return value


def _decode(kind: str, value: Any) -> Any:
    return bytes.fromhex(value) if kind == "hex" else value


class HarnessTarget:
    """A harness subprocess as a target; ``name`` defaults to ``harness:<implementation>``."""

    def __init__(self, command: str | list[str], *, name: str | None = None,
                 timeout: float | None = None, known_failures_file: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.timeout = timeout if timeout is not None else float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
        self.env = env
        if known_failures_file is not None:
            self.known_failures_file = known_failures_file
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: IO[str] | None = None
        self._next_id = 0
        self._lock = threading.Lock()
        try:
            hello = self._start()
        except HarnessError:
            self.close()
            raise
        self.implementation: str = hello["implementation"]
        self.language: str = hello["language"]
        self.name = name or f"harness:{self.implementation}"
        self.capabilities = frozenset(hello["capabilities"])
        self.reports_rules = bool(hello.get("reports_rules", False))
        self._version = f"{hello['implementation']} {hello['version']} ({self.language} harness)"
        if "metadata_write_versions" in hello:
            self.metadata_write_versions = frozenset(hello["metadata_write_versions"])
        atexit.register(self.close)

    @property
    def version(self) -> str:
        return self._version

    # --- the process ------------------------------------------------------------------------

    def _start(self) -> dict[str, Any]:
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        try:
            self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                text=True, encoding="utf-8", bufsize=1, env=None if self.env is None else {**os.environ, **self.env})
        except OSError as e:
            raise HarnessCrashed(f"the harness {shlex.join(self.command)} cannot be started: {e}") from None
        lines: queue.Queue[str | None] = queue.Queue()
        self._lines = lines
        threading.Thread(target=self._read, args=(self._proc.stdout, lines), daemon=True).start()
        reply = self._exchange({"op": "start", "protocol": PROTOCOL_VERSION}, "start", START_TIMEOUT)
        if reply.get("protocol") != PROTOCOL_VERSION:  # pragma: no cover - the schema checks it
            raise MalformedReply(f"protocol {reply.get('protocol')!r}, the kit speaks {PROTOCOL_VERSION}")
        return reply

    @staticmethod
    def _read(stream: IO[str] | None, lines: queue.Queue[str | None]) -> None:
        """The harness's stdout, line by line, until it ends (then None); this thread closes it."""
        assert stream is not None
        try:
            with stream:
                for line in stream:
                    lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(None)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        text = self._stderr.read()[-2000:].strip()
        return f"; its stderr ends with:\n{text}" if text else ""

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass

    def close(self) -> None:
        """Send ``stop`` and let the harness exit (killed after a few seconds)."""
        proc = self._proc
        if proc is not None:
            try:
                if proc.poll() is None and proc.stdin is not None:
                    proc.stdin.write(json.dumps({"op": "stop", "id": self._next_id + 1}) + "\n")
                    proc.stdin.close()
                    proc.wait(5)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
            self._kill()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _exchange(self, request: dict[str, Any], op: str, timeout: float) -> dict[str, Any]:
        """Send one request, return its validated reply; any harness failure kills the process."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        self._next_id += 1
        request = {"op": request["op"], "id": self._next_id, **{k: v for k, v in request.items() if k != "op"}}
        try:
            proc.stdin.write(json.dumps(request, allow_nan=False) + "\n")
            proc.stdin.flush()
        except OSError:
            pass  # it exited: the read below says so with its exit code
        # a harness that fails its start is not started again: the run stops and says so
        again = "" if op == "start" else "; it is started again for the next request"
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self._kill()
            raise HarnessTimeout(f"the harness did not answer {op!r} within {timeout:g} s; it was killed"
                                 f"{again}{self._stderr_tail()}") from None
        if line is None:
            code = proc.wait()
            self._kill()
            raise HarnessCrashed(f"the harness exited (exit code {code}) instead of answering {op!r}"
                                 f"{again}{self._stderr_tail()}")
        try:
            reply = json.loads(line)
        except ValueError as e:
            self._kill()
            raise MalformedReply(f"not JSON ({e}): {line[:300]!r}") from None
        problem = reply_problem(op, reply, self._next_id)
        if problem is not None:
            self._kill()
            raise MalformedReply(f"{problem}; the reply to {op!r} was {line.strip()[:300]}")
        result: dict[str, Any] = reply
        return result

    def call(self, op: str, *args: Any) -> Any:
        """Run operation ``op`` with positional ``args`` (the Python method's); its decoded result."""
        spec = OPERATIONS[op]
        request: dict[str, Any] = {"op": op}
        for (arg, kind), value in zip(spec.args, args, strict=True):
            request[arg] = _encode(kind, value)
        with self._lock:
            if self._proc is None:
                self._start()
            reply = self._exchange(request, op, self.timeout)
        if "refused" in reply:
            raise Rejected(reply["refused"], rule=reply.get("rule"))
        if "unsupported" in reply:
            raise Unsupported(reply["unsupported"])
        if "error" in reply:
            raise ImplementationError(reply["error"])
        return _decode(spec.result, reply["result"])

    # --- the operations (suites/api.py), each one request -------------------------------------

    def hash(self, type_: JSON, value: JSON) -> int | None:
        return self.call("hash", type_, value)  # type: ignore[no-any-return]

    def transform(self, transform: str, type_: JSON, value: JSON) -> JSON:
        return self.call("transform", transform, type_, value)

    def result_type(self, transform: str, type_: JSON) -> JSON:
        return self.call("result_type", transform, type_)

    def to_bytes(self, type_: JSON, value: JSON) -> bytes:
        return self.call("to_bytes", type_, value)  # type: ignore[no-any-return]

    def from_bytes(self, type_: JSON, data: bytes) -> JSON:
        return self.call("from_bytes", type_, data)

    def value_json_roundtrip(self, type_: JSON, value: JSON) -> JSON:
        return self.call("value_json_roundtrip", type_, value)

    def bound_to_bytes(self, type_: JSON, value: JSON) -> bytes:
        return self.call("bound_to_bytes", type_, value)  # type: ignore[no-any-return]

    def bound_from_bytes(self, type_: JSON, data: bytes) -> JSON:
        return self.call("bound_from_bytes", type_, data)

    def type_json_roundtrip(self, type_: JSON) -> JSON:
        return self.call("type_json_roundtrip", type_)

    def schema_json_roundtrip(self, schema: JSON, format_version: int) -> JSON:
        return self.call("schema_json_roundtrip", schema, format_version)

    def partition_spec_json_roundtrip(self, spec: JSON, schema: JSON, format_version: int) -> JSON:
        return self.call("partition_spec_json_roundtrip", spec, schema, format_version)

    def read_table_metadata(self, path: str) -> JSON:
        return self.call("read_table_metadata", path)

    def read_table_metadata_as(self, path: str, format_version: int) -> JSON:
        return self.call("read_table_metadata_as", path, format_version)

    def read_manifest_list(self, path: str, format_version: int) -> list[JSON]:
        return self.call("read_manifest_list", path, format_version)  # type: ignore[no-any-return]

    def read_manifest(self, path: str, format_version: int) -> list[JSON]:
        return self.call("read_manifest", path, format_version)  # type: ignore[no-any-return]

    def read_manifest_inherited(self, path: str, format_version: int, manifest_list_entry: JSON) -> list[JSON]:
        return self.call("read_manifest_inherited", path, format_version, manifest_list_entry)  # type: ignore[no-any-return]

    def write_manifest(self, path: str, manifest: JSON) -> None:
        self.call("write_manifest", path, manifest)

    def write_manifest_list(self, path: str, manifest_list: JSON) -> None:
        self.call("write_manifest_list", path, manifest_list)

    def read_puffin(self, path: str) -> JSON:
        return self.call("read_puffin", path)

    def write_puffin(self, path: str, content: JSON) -> None:
        self.call("write_puffin", path, content)

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: JSON = True) -> list[dict[str, JSON]]:
        return self.call("scan", metadata_path, snapshot_id, row_filter)  # type: ignore[no-any-return]

    def check_schema_evolution(self, old: JSON, new: JSON, format_version: int,
                               partition_specs: list[JSON] | None = None) -> None:
        self.call("check_schema_evolution", old, new, format_version, partition_specs)

    def check_partition_evolution(self, old: JSON, new: JSON, schema: JSON, format_version: int) -> None:
        self.call("check_partition_evolution", old, new, schema, format_version)

    def check_manifest(self, path: str, format_version: int, manifest_list_entry: JSON = None) -> JSON:
        return self.call("check_manifest", path, format_version, manifest_list_entry)

    def commit_retry(self, case: JSON) -> JSON:
        return self.call("commit_retry", case)

    def expression_roundtrip(self, expr: JSON) -> JSON:
        return self.call("expression_roundtrip", expr)

    def expression_bind(self, schema: JSON, expr: JSON, case_sensitive: bool) -> JSON:
        return self.call("expression_bind", schema, expr, case_sensitive)

    def expression_evaluate(self, schema: JSON, expr: JSON, row: JSON, case_sensitive: bool) -> bool:
        return self.call("expression_evaluate", schema, expr, row, case_sensitive)  # type: ignore[no-any-return]

    def projection_accepts(self, schema: JSON, spec: JSON, expr: JSON, mode: str, partition: JSON) -> bool:
        return self.call("projection_accepts", schema, spec, expr, mode, partition)  # type: ignore[no-any-return]

    def metrics_evaluate(self, schema: JSON, file: JSON, expr: JSON, mode: str) -> bool:
        return self.call("metrics_evaluate", schema, file, expr, mode)  # type: ignore[no-any-return]

    def manifest_might_match(self, schema: JSON, spec: JSON, partitions: JSON, expr: JSON) -> bool:
        return self.call("manifest_might_match", schema, spec, partitions, expr)  # type: ignore[no-any-return]

    def applicable_deletes(self, schema: JSON, specs: JSON, data_file: JSON, delete_files: JSON) -> list[str]:
        return self.call("applicable_deletes", schema, specs, data_file, delete_files)  # type: ignore[no-any-return]

    def residual(self, schema: JSON, spec: JSON, expr: JSON, partition: JSON, case_sensitive: bool) -> JSON:
        return self.call("residual", schema, spec, expr, partition, case_sensitive)

    def avro_schema(self, schema: JSON) -> JSON:
        return self.call("avro_schema", schema)

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: JSON = True) -> list[dict[str, JSON]]:
        return self.call("plan_files", metadata_path, snapshot_id, row_filter)  # type: ignore[no-any-return]
