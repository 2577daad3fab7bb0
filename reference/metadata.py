"""Table metadata JSON: reading and validating (spec: Table Metadata, Table Metadata Fields,
Snapshots, Snapshot References, Table Statistics, Partition Statistics, Encryption Keys,
Row Lineage; Appendix C "Table Metadata and Snapshots"; Appendix E; Appendix F).

Two steps, each reporting :class:`~reference.findings.Finding` values instead of raising:

* :func:`load_metadata` reads a file (plain JSON, or GZIP by magic bytes, e.g.
  ``*.gz.metadata.json`` / ``*.metadata.json.gz``) within fixed limits, so bad input costs
  bounded time and memory: at most :data:`MAX_METADATA_BYTES` bytes (compressed and
  decompressed), JSON nesting at most :data:`MAX_DEPTH` deep, strings at most
  :data:`MAX_STRING_CHARS` characters, integers inside the 64-bit ``long`` range and no
  non-finite numbers.
* :func:`validate_metadata` checks the JSON shape against the per-version JSON Schema in
  ``reference/metadata_schemas/`` (``metadata-v1.schema.json`` ...), then the cross-field
  rules a schema cannot express. Every rule of this module is listed in :data:`RULES` (id,
  spec clause, summary); the rules of each schema and of binding a partition spec to the
  current schema are those of :mod:`reference.schema` (``schema.*``, ``types.*``) and
  :mod:`reference.partitioning` (``partition.*``, ``transforms.*``), reported with their own
  ids. Findings carry the rule id, the clause and a JSON-pointer location.

Helpers used by table checks: :func:`snapshots_by_id`, :func:`schema_by_id`,
:func:`current_schema`, :func:`spec_by_id`, :func:`current_spec`, :func:`sort_order_by_id`,
:func:`current_snapshot_id`, :func:`current_snapshot`, :func:`format_version`,
:func:`schema_fields`.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import re
import uuid as uuidlib
import zlib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import jsonschema

from . import partitioning
from . import schema as schema_rules
from .errors import SpecViolation
from .safeio import open_regular
from .findings import Finding, Severity
from .types import (
    IcebergType, PrimitiveType, StructType, parse_type,
)

JSON = Any

#: Largest metadata file read, compressed or decompressed (64 MiB). Real metadata files are
#: kilobytes to a few megabytes; this bounds memory on hostile input.
MAX_METADATA_BYTES = 64 * 1024 * 1024
#: Deepest JSON nesting accepted. A schema nests about three JSON levels per nested type.
MAX_DEPTH = 256
#: Longest JSON string accepted (1 MiB characters): longer paths, names or property values
#: are not plausible metadata and are refused before they are used.
MAX_STRING_CHARS = 1024 * 1024
#: Longest integer literal parsed (digits); longer ones cannot be a ``long``.
_MAX_INT_DIGITS = 20

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
SUPPORTED_VERSIONS = (1, 2, 3)
#: Clock skew the log-ordering rules tolerate (the Java implementation tolerates one minute).
LOG_SKEW_MS = 60_000
#: Names of GZIP-compressed metadata files readers recognize (Appendix F: Naming for GZIP
#: compressed Metadata JSON files)
GZIP_SUFFIXES = (".gz.metadata.json", ".metadata.json.gz")

_SPEC = "https://iceberg.apache.org/spec/"


@dataclass(frozen=True)
class Rule:
    """A rule of table metadata: stable ``id``, the spec ``clause`` it comes from, a summary."""

    id: str
    clause: str
    summary: str
    severity: Severity = "error"


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.id: r for r in rules}


RULES: dict[str, Rule] = _rules(
    # --- reading the file
    Rule("metadata.file-unreadable", "Table Metadata", "the file cannot be opened or read"),
    Rule("files.not-regular", "Table Metadata (kit limit)",
         "the path names a FIFO, device, socket or directory, which is not read"),
    Rule("metadata.file-too-large", "Table Metadata (kit limit)",
         f"the file (or its decompressed content) is larger than {MAX_METADATA_BYTES} bytes"),
    Rule("metadata.gzip", "Appendix C: Table Metadata and Snapshots",
         "GZIP-compressed metadata (RFC 1952) that does not decompress"),
    Rule("metadata.gzip-suffix", "Appendix F: Naming for GZIP compressed Metadata JSON files",
         "GZIP-compressed metadata named other than *.gz.metadata.json (or *.metadata.json.gz)", "info"),
    Rule("metadata.encoding", "Appendix C: JSON serialization (RFC 8259: JSON text is UTF-8)",
         "the file is not valid UTF-8"),
    Rule("metadata.json-syntax", "Appendix C: Table Metadata and Snapshots",
         "the file is not one JSON value (truncated, trailing data, NaN/Infinity literals)"),
    Rule("metadata.json-too-deep", "Table Metadata (kit limit)",
         f"JSON nested deeper than {MAX_DEPTH} levels"),
    Rule("metadata.string-too-long", "Table Metadata (kit limit)",
         f"a JSON string longer than {MAX_STRING_CHARS} characters"),
    Rule("metadata.number-range", "Appendix C: JSON int / JSON long",
         "a number outside the 64-bit long range, or not finite"),
    Rule("metadata.json-duplicate-key", "Appendix C (RFC 8259: names within an object should be unique)",
         "an object names the same key twice; readers disagree on which value wins", "warning"),
    # --- shape
    Rule("metadata.format-version", "Table Metadata Fields: format-version",
         "format-version is an integer 1..3; implementations must throw for a higher version"),
    Rule("metadata.shape", "Table Metadata Fields; Appendix C: Table Metadata and Snapshots",
         "the JSON shape of the format version: required fields, JSON types, enums"),
    Rule("metadata.table-uuid", "Table Metadata Fields: table-uuid", "table-uuid is a UUID string"),
    # --- schemas
    Rule("metadata.schema-ids-unique", "Table Metadata Fields: schemas", "schema-id is unique in schemas"),
    Rule("metadata.current-schema-exists", "Table Metadata Fields: current-schema-id",
         "current-schema-id names a schema in schemas"),
    Rule("metadata.last-column-id", "Table Metadata Fields: last-column-id",
         "last-column-id is at least every field id in every schema"),
    Rule("metadata.type-version", "Appendix E: Version 3 (Partition Field and Sort Field JSON)",
         "source-ids (multi-argument transforms, added in v3) in a v1/v2 partition or sort field"),
    Rule("metadata.v1-schema-consistent", "Table Metadata Fields (v1): schema (deprecated)",
         "v1: the deprecated schema equals the current schema of schemas/current-schema-id"),
    # --- partition specs
    Rule("metadata.spec-ids-unique", "Table Metadata Fields: partition-specs", "spec-id is unique"),
    Rule("metadata.default-spec-exists", "Table Metadata Fields: default-spec-id",
         "default-spec-id names a spec in partition-specs"),
    Rule("metadata.last-partition-id", "Table Metadata Fields: last-partition-id",
         "last-partition-id is at least every partition field id of every spec"),
    Rule("metadata.partition-source-history", "Partitioning: source columns",
         "the source of a void field or of a non-default spec is not in the current schema", "warning"),
    Rule("metadata.unknown-transform", "Appendix C: Partition Specs (v3 readers ignore unknown transforms)",
         "a transform this reader does not know", "warning"),
    Rule("metadata.v1-partition-spec-consistent", "Table Metadata Fields (v1): partition-spec (deprecated)",
         "v1: the deprecated partition-spec equals the fields of the default spec"),
    # --- sort orders
    Rule("metadata.sort-order-ids-unique", "Table Metadata Fields: sort-orders", "order-id is unique"),
    Rule("metadata.default-sort-order-exists", "Table Metadata Fields: default-sort-order-id",
         "default-sort-order-id names an order in sort-orders"),
    Rule("metadata.unsorted-order", "Sorting: order id 0 is reserved for the unsorted order",
         "sort order 0 has no fields"),
    Rule("metadata.sort-source", "Sorting: sort fields",
         "a sort field of the default order names a primitive column of the current schema"),
    # --- snapshots
    Rule("metadata.snapshot-ids-unique", "Snapshots: snapshot-id is a unique long ID",
         "snapshot-id is unique in snapshots"),
    Rule("metadata.current-snapshot-exists", "Table Metadata Fields: current-snapshot-id",
         "current-snapshot-id (unless null or -1) names a snapshot in snapshots"),
    Rule("metadata.current-snapshot-minus-one", "Appendix F: Assignment of Snapshot IDs and current-snapshot-id",
         "v3 metadata writes null, not -1, for no current snapshot (-1 is read as null)", "warning"),
    Rule("metadata.snapshot-parent", "Snapshots: parent-snapshot-id",
         "a snapshot is not its own parent (a missing parent is normal after expiration)"),
    Rule("metadata.snapshot-parent-minus-one", "Snapshots: parent-snapshot-id is omitted for a snapshot with no parent",
         "parent-snapshot-id -1, which no snapshot has, instead of omitting the field"),
    Rule("metadata.snapshot-manifests", "Snapshots (v1): manifests must be omitted if manifest-list is present",
         "a v1 snapshot has manifests or manifest-list, not both"),
    Rule("metadata.snapshot-operation", "Snapshots: summary operation",
         "summary operation is append, replace, overwrite or delete"),
    Rule("metadata.snapshot-schema", "Snapshots: schema-id",
         "a snapshot's schema-id names a schema in schemas", "warning"),
    Rule("metadata.sequence-number", "Table Metadata Fields: last-sequence-number; Snapshots: sequence-number",
         "v2+: every snapshot sequence number is at most last-sequence-number and above its parent's"),
    Rule("metadata.snapshot-log-order", "Table Metadata Fields: snapshot-log",
         "snapshot-log entries are in timestamp order and not after last-updated-ms"),
    Rule("metadata.snapshot-log-snapshot", "Table Metadata Fields: snapshot-log (prune entries after expiring snapshots)",
         "the latest snapshot-log entry names a snapshot in snapshots"),
    Rule("metadata.snapshot-log-unpruned", "Table Metadata Fields: snapshot-log (prune entries after expiring snapshots)",
         "an older snapshot-log entry names an expired snapshot", "warning"),
    Rule("metadata.manifest-list-shared", "Terms: Manifest list -- one per snapshot",
         "no two snapshots name the same manifest-list file"),
    Rule("metadata.metadata-log-order", "Table Metadata Fields: metadata-log",
         "metadata-log entries are in timestamp order and not after last-updated-ms"),
    Rule("metadata.metadata-log-self", "Table Metadata Fields: metadata-log (the previous metadata files)",
         "metadata-log names the metadata file itself", "warning"),
    # --- refs
    Rule("metadata.ref-snapshot", "Snapshot References: snapshot-id",
         "every ref names a snapshot in snapshots"),
    Rule("metadata.main-branch", "Table Metadata Fields: current-snapshot-id must be the same as the main branch",
         "refs main is a branch whose snapshot-id equals current-snapshot-id"),
    Rule("metadata.ref-retention", "Snapshot References: retention fields",
         "min-snapshots-to-keep / max-snapshot-age-ms only on branches, positive; max-ref-age-ms positive"),
    # --- statistics
    Rule("metadata.statistics-snapshot", "Table Statistics: snapshot-id",
         "a statistics file names a snapshot in snapshots"),
    Rule("metadata.partition-statistics-snapshot", "Partition Statistics: snapshot-id",
         "a partition statistics file names a snapshot in snapshots, at most one file per snapshot"),
    # --- v3 row lineage and encryption
    Rule("metadata.row-lineage", "Snapshots (v3): first-row-id, added-rows; Snapshot Row IDs",
         "v3: first-row-id and added-rows appear together; row-id ranges of snapshots do not overlap"),
    Rule("metadata.next-row-id", "Table Metadata Fields (v3): next-row-id",
         "v3: next-row-id is at least first-row-id + added-rows of every snapshot"),
    Rule("metadata.relative-path", "Paths in Metadata: prior to v4, all path fields contain fully-qualified paths",
         "location, manifest-list, statistics-path and metadata-file are absolute paths or URIs"),
    Rule("metadata.name-mapping", "Column Projection: Name Mapping; Appendix C: Name Mapping Serialization",
         "schema.name-mapping.default is a JSON list of field mappings, each with a names list of strings, "
         "an optional int field-id and optional nested fields"),
    Rule("metadata.crs", "Primitive Types: CRS",
         "a geometry/geography CRS is no inlined PROJJSON, and projjson:<name> names a table property"),
    Rule("metadata.encryption-keys", "Encryption Keys; Snapshots (v3): key-id",
         "v3: key-ids are unique and a snapshot key-id names a key in encryption-keys"),
)


class _Collector:
    def __init__(self, file: str) -> None:
        self.file = file
        self.findings: list[Finding] = []

    def add(self, rule: str, message: str, location: str = "", severity: Severity | None = None) -> None:
        r = RULES[rule]
        self.findings.append(Finding(rule, message, r.clause, self.file, location,
                                     severity or r.severity))


# --------------------------------------------------------------------------------------
# Reading


class _JsonLimit(Exception):
    def __init__(self, rule: str, message: str, literal: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        self.literal = literal


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise _JsonLimit("metadata.number-range",
                         f"integer literal of {len(text)} characters is outside the long range", text)
    return int(text)


def _parse_constant(text: str) -> float:
    raise _JsonLimit("metadata.json-syntax", f"{text} is not a JSON value", text)


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _literal_at(text: str, literal: str) -> str:
    """Where ``literal`` (a number or constant the parser refused) first stands outside a string."""
    i = text.find(literal)
    while i > 0 and (text[i - 1].isdigit() or text[i - 1] in "-.\"" or text.count('"', 0, i) % 2):
        i = text.find(literal, i + 1)
    return _line_col(text, max(i, 0))


def _too_deep_at(text: str) -> str:
    """Where nesting first passes ``MAX_DEPTH`` (brackets outside strings)."""
    depth, in_string, escaped = 0, False, False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_col(text, i)
        elif c in "]}":
            depth -= 1
    return "line 1 column 1"


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dups = sorted({k for k, _ in pairs if k in seen or seen.add(k)})  # type: ignore[func-returns-value]
        out["\x00duplicate-keys"] = dups
    return out


def _scan(doc: JSON, col: _Collector) -> None:
    """Check limits over the parsed value without recursion: depth, strings, numbers, dups."""
    stack: list[tuple[JSON, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            col.add("metadata.json-too-deep", f"JSON nested deeper than {MAX_DEPTH} levels", where or "/")
            return
        if isinstance(value, dict):
            dups = value.pop("\x00duplicate-keys", None)
            if dups:
                col.add("metadata.json-duplicate-key", f"keys given twice: {', '.join(map(repr, dups))}",
                        where or "/")
            for k, v in value.items():
                if len(k) > MAX_STRING_CHARS:
                    col.add("metadata.string-too-long", f"an object key of {len(k)} characters", where or "/")
                    continue
                stack.append((v, f"{where}/{_escape(k)}", depth + 1))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((v, f"{where}/{i}", depth + 1))
        elif isinstance(value, str):
            if len(value) > MAX_STRING_CHARS:
                col.add("metadata.string-too-long",
                        f"a string of {len(value)} characters (limit {MAX_STRING_CHARS})", where or "/")
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int):
            if not LONG_MIN <= value <= LONG_MAX:
                col.add("metadata.number-range", f"{_short(value)} is outside the 64-bit long range",
                        where or "/")
        elif isinstance(value, float) and not math.isfinite(value):
            col.add("metadata.number-range", "a number too large for a double (not finite)", where or "/")


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def fully_qualified(path: str) -> bool:
    """A URI with a scheme (``s3://``, ``file:/``), or an absolute local path. A ``file:`` URI must
    name an absolute path: ``file:data/x`` does not, nor do ``file://./data/x`` and
    ``file://../data/x`` (the authority ``.`` or ``..`` is no host: a path relative to the working
    directory written as a URI, as PyIceberg records every path of a table whose warehouse is given
    as ``file://./wh``)."""
    m = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", path)
    if m is None:
        return path.startswith("/") or path.startswith("\\")
    if m.group(1).lower() != "file":
        return True
    rest = path[m.end():]
    if rest.startswith("//"):
        return rest[2:].split("/", 1)[0] not in (".", "..")
    return rest.startswith("/")


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"


def _read_bounded(path: Path, col: _Collector) -> bytes | None:
    try:
        size = path.stat().st_size
        if size > MAX_METADATA_BYTES:
            col.add("metadata.file-too-large", f"the file has {size} bytes (limit {MAX_METADATA_BYTES})",
                    f"byte {MAX_METADATA_BYTES}")
            return None
        with open_regular(path) as f:
            # as much as the file had (a buffer of the limit's size would be allocated for each
            # file read), and what it grew by since, up to the limit
            data = f.read(size + 1)
            if len(data) > size:
                data += f.read(MAX_METADATA_BYTES + 1 - len(data))
    except SpecViolation as e:
        col.add("files.not-regular", e.detail, "(the file itself)")
        return None
    except OSError as e:
        col.add("metadata.file-unreadable", f"cannot read the file: {e.strerror or e}", "byte 0")
        return None
    if len(data) > MAX_METADATA_BYTES:
        col.add("metadata.file-too-large", f"the file has more than {MAX_METADATA_BYTES} bytes",
                f"byte {MAX_METADATA_BYTES}")
        return None
    if data[:2] == b"\x1f\x8b" or path.name.endswith(GZIP_SUFFIXES):
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as g:
                data = g.read(MAX_METADATA_BYTES + 1)
        except (OSError, EOFError, zlib.error) as e:
            col.add("metadata.gzip", f"the GZIP content does not decompress: {e}", "GZIP stream, byte 0")
            return None
        if not path.name.endswith(GZIP_SUFFIXES):
            col.add("metadata.gzip-suffix", f"GZIP-compressed metadata named {path.name!r}: readers find and "
                    f"decompress it by the suffix {GZIP_SUFFIXES[0]} (Iceberg Java also {GZIP_SUFFIXES[1]})",
                    "(the file name)")
        if len(data) > MAX_METADATA_BYTES:
            col.add("metadata.file-too-large", f"decompressed content exceeds {MAX_METADATA_BYTES} bytes",
                    f"decompressed byte {MAX_METADATA_BYTES}")
            return None
    return data


def read_metadata_bytes(path: str | Path) -> tuple[bytes | None, list[Finding]]:
    """The bytes of a metadata file as the kit reads them (a regular file, GZIP decompressed,
    within :data:`MAX_METADATA_BYTES`), or None and the findings that say why not."""
    col = _Collector(str(path))
    return _read_bounded(Path(path), col), col.findings


def parse_metadata_bytes(data: bytes, file: str = "") -> tuple[JSON | None, list[Finding]]:
    """Decode and parse metadata JSON bytes (already decompressed) within the kit's limits."""
    col = _Collector(file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        col.add("metadata.encoding", f"byte {e.start} (0x{data[e.start]:02x}) is not valid UTF-8",
                f"byte {e.start}")
        return None, col.findings
    doc = _parse_plain(text)
    if doc is not _UNSURE:
        return doc, col.findings
    try:
        doc = json.loads(text, parse_int=_parse_int, parse_constant=_parse_constant,
                         object_pairs_hook=_pairs)
    except _JsonLimit as e:
        col.add(e.rule, str(e), _literal_at(text, e.literal))
        return None, col.findings
    except json.JSONDecodeError as e:
        col.add("metadata.json-syntax", f"not JSON: {e.msg}", f"line {e.lineno} column {e.colno}")
        return None, col.findings
    except RecursionError:
        col.add("metadata.json-too-deep", "JSON nested too deeply to parse", _too_deep_at(text))
        return None, col.findings
    except ValueError as e:  # e.g. Python's integer string conversion limit
        col.add("metadata.number-range", f"a number cannot be read: {e}", "/")
        return None, col.findings
    _scan(doc, col)
    if any(f.severity == "error" for f in col.findings):
        return None, col.findings
    return doc, col.findings


#: :func:`_parse_plain` could not tell that a text is within every limit
_UNSURE: Any = object()


def _parse_plain(text: str) -> Any:
    """The JSON value of ``text`` when it parses and is within every limit :func:`_scan` checks
    (no duplicate key, no value nested deeper than :data:`MAX_DEPTH`, no string or key longer than
    :data:`MAX_STRING_CHARS`, every integer within the long range, every number finite), else
    :data:`_UNSURE`: then the text is parsed again with every limit located. One parse by the C
    parser with a duplicate-key check, and one walk over the values (strings measured only in a
    text long enough to hold a long one); the common case, a valid metadata file, costs no more."""
    pairs = _DuplicateWatch()
    try:
        doc = json.loads(text, parse_constant=_parse_constant, object_pairs_hook=pairs)
    except (_JsonLimit, ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return _UNSURE
    if pairs.seen or not _within_limits([doc], -1, len(text) > MAX_STRING_CHARS):
        return _UNSURE
    return doc


class _DuplicateWatch:
    """An ``object_pairs_hook`` that makes the object and notes (``seen``) a key given twice."""

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, p: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(p)
        if len(out) != len(p):
            self.seen = True
        return out


def _within_limits(values: list[Any], depth: int, strings: bool) -> bool:
    """Whether ``values``, the children of a container standing at ``depth`` (the document's own
    children: ``depth`` 0), keep every limit of :func:`_parse_plain` but duplicate keys (strings
    measured only when ``strings``)."""
    stack: list[tuple[Any, int]] = [(values, depth)]
    pop, push = stack.pop, stack.append
    while stack:
        value, depth = pop()
        if type(value) is dict:
            if strings and any(len(k) > MAX_STRING_CHARS for k in value):
                return False
            value = value.values()
        for child in value:
            if depth >= MAX_DEPTH:  # the child stands deeper than the limit
                return False
            t = type(child)
            if t is dict or t is list:
                push((child, depth + 1))
            elif t is int:
                if not LONG_MIN <= child <= LONG_MAX:
                    return False
            elif t is float:
                if not math.isfinite(child):
                    return False
            elif t is str and strings and len(child) > MAX_STRING_CHARS:
                return False
    return True


def load_metadata(path: str | Path) -> tuple[JSON | None, list[Finding]]:
    """Read a metadata file (plain or GZIP) into its JSON value, or ``None`` and findings.

    Never raises for bad input: every problem is a finding. Time and memory are bounded by
    :data:`MAX_METADATA_BYTES`; see the module docstring for the other limits.
    """
    p = Path(path)
    col = _Collector(str(path))
    data = _read_bounded(p, col)
    if data is None:
        return None, col.findings
    doc, findings = parse_metadata_bytes(data, str(path))
    return doc, col.findings + findings


#: the arrays of a metadata file read before (top-level key -> the array's text, its values),
#: whose values the next file's arrays that begin with them share
SharedArrays = dict[str, tuple[str, list[Any]]]

_WS = re.compile(r"[ \t\n\r]*")


def load_metadata_after(path: str | Path, shared: SharedArrays) -> JSON | None:
    """:func:`load_metadata`'s value of ``path``, reading again only what is new since the file read before it: a top-level array that begins
    with the elements of that file's array of the same key (``shared``: a table's next metadata
    file appends to ``snapshots`` and ``snapshot-log``) parses only the elements after them and
    shares the others' values, which kept every limit then. ``shared`` is updated to this
    file's arrays. A text the quick reading cannot follow is loaded whole."""
    col = _Collector(str(path))
    data = _read_bounded(Path(path), col)
    text = None
    if data is not None and not col.findings:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    doc = _UNSURE if text is None else _parse_sharing(text, shared)
    if doc is _UNSURE:
        shared.clear()
        doc, _ = load_metadata(path)
    return doc


def _parse_sharing(text: str, shared: SharedArrays) -> Any:
    """:func:`_parse_plain` of the text of a JSON object, top-level arrays sharing with
    ``shared`` (see :func:`load_metadata_after`); :data:`_UNSURE` when it cannot tell."""
    pairs = _DuplicateWatch()
    decoder = json.JSONDecoder(parse_constant=_parse_constant, object_pairs_hook=pairs)
    scan: Callable[[str, int], tuple[Any, int]] = decoder.scan_once  # type: ignore[attr-defined]
    strings = len(text) > MAX_STRING_CHARS

    def ws(at: int) -> int:  # the position after the whitespace at ``at``
        m = _WS.match(text, at)
        return m.end() if m is not None else at
    doc: dict[str, Any] = {}
    arrays: SharedArrays = {}
    try:
        i = ws(0)
        if text[i:i + 1] != "{":
            return _UNSURE
        i = ws(i + 1)
        if text[i:i + 1] == "}":
            i += 1
        while text[i:i + 1] == '"':
            key, i = scan(text, i)
            i = ws(i)
            if key in doc or text[i:i + 1] != ":" or (strings and len(key) > MAX_STRING_CHARS):
                return _UNSURE
            start = ws(i + 1)
            before = shared.get(key)
            head = before[0][:-1] if before is not None and len(before[0]) > 2 else None
            if head is not None and text.startswith(head, start) and \
                    text[(k := ws(start + len(head))):k + 1] == ",":
                tail, n = scan("[" + text[k + 1:], 0)  # the elements after the shared ones
                if not tail or pairs.seen or not _within_limits(tail, 1, strings):
                    return _UNSURE
                value: Any = before[1] + tail  # type: ignore[index]
                i = k + n
            else:
                value, i = scan(text, start)
                if pairs.seen or not _within_limits([value], 0, strings):
                    return _UNSURE
            doc[key] = value
            if type(value) is list:
                arrays[key] = (text[start:i], value)
            i = ws(i)
            if text[i:i + 1] == ",":
                i = ws(i + 1)
                if text[i:i + 1] != '"':
                    return _UNSURE
            elif text[i:i + 1] == "}":
                i += 1
                break
            else:
                return _UNSURE
        else:
            if not doc and text[i - 1:i] == "}":
                pass
            else:
                return _UNSURE
    except (_JsonLimit, ValueError, RecursionError, StopIteration):
        return _UNSURE
    if ws(i) != len(text):
        return _UNSURE
    shared.clear()
    shared.update(arrays)
    return doc


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The JSON object of a metadata file (plain or GZIP) that is expected to be readable;
    :class:`SpecViolation` naming the first finding when it is not."""
    doc, findings = load_metadata(path)
    if not isinstance(doc, dict):
        first = findings[0] if findings else None
        raise SpecViolation(first.rule if first else "metadata.shape",
                            f"{path}: {first.message if first else 'not a JSON object'}")
    return doc


# --------------------------------------------------------------------------------------
# Accessors (on a doc whose shape is valid)


def format_version(doc: JSON) -> int:
    v = doc.get("format-version") if isinstance(doc, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def read_for_version(doc: JSON, version: int) -> JSON:
    """``doc`` as a reader of format ``version`` holds it (Appendix E, "Reading v1 metadata for
    v2"): a v1 document read for v2 or later has ``last-sequence-number`` 0 and every snapshot
    ``sequence-number`` 0 where the file has none. Everything else is kept as written; a
    document of ``version`` or later is returned unchanged."""
    if not isinstance(doc, dict) or format_version(doc) != 1 or version < 2:
        return doc
    out = dict(doc)
    out["format-version"] = version
    out.setdefault("last-sequence-number", 0)
    if isinstance(doc.get("snapshots"), list):
        out["snapshots"] = [dict(s, **{"sequence-number": s.get("sequence-number", 0)}) if isinstance(s, dict) else s
                            for s in doc["snapshots"]]
    return out


def _is_id(v: Any) -> bool:
    """An id of the shape the spec gives (a JSON integer); the metadata checks report others."""
    return isinstance(v, int) and not isinstance(v, bool)


def schema_by_id(doc: JSON) -> dict[int, JSON]:
    """Schemas by schema-id; a v1 file with only ``schema`` yields it under its id (or 0)."""
    schemas = doc.get("schemas")
    if isinstance(schemas, list):
        return {s.get("schema-id", 0): s for s in schemas if isinstance(s, dict) and _is_id(s.get("schema-id", 0))}
    legacy = doc.get("schema")
    if isinstance(legacy, dict) and _is_id(legacy.get("schema-id", 0)):
        return {legacy.get("schema-id", 0): legacy}
    return {}


def current_schema(doc: JSON) -> JSON | None:
    """The current schema JSON: ``schemas[current-schema-id]``, else v1 ``schema``."""
    if isinstance(doc.get("schemas"), list) and "current-schema-id" in doc:
        sid = doc["current-schema-id"]
        return schema_by_id(doc).get(sid) if _is_id(sid) else None
    legacy = doc.get("schema")
    return legacy if isinstance(legacy, dict) else None


def spec_by_id(doc: JSON) -> dict[int, JSON]:
    """Partition specs by spec-id; a v1 file with only ``partition-spec`` yields spec 0."""
    specs = doc.get("partition-specs")
    if isinstance(specs, list):
        return {int(s["spec-id"]): s for s in specs if isinstance(s, dict) and isinstance(s.get("spec-id"), int)}
    legacy = doc.get("partition-spec")
    if isinstance(legacy, list):
        return {0: {"spec-id": 0, "fields": legacy}}
    return {}


def current_spec(doc: JSON) -> JSON | None:
    specs = spec_by_id(doc)
    if "default-spec-id" in doc:
        sid = doc["default-spec-id"]
        return specs.get(sid) if _is_id(sid) else None
    return specs.get(0)


def sort_order_by_id(doc: JSON) -> dict[int, JSON]:
    orders = doc.get("sort-orders")
    if not isinstance(orders, list):
        return {}
    return {int(o["order-id"]): o for o in orders if isinstance(o, dict) and isinstance(o.get("order-id"), int)}


def snapshots_by_id(doc: JSON) -> dict[int, JSON]:
    snaps = doc.get("snapshots")
    if not isinstance(snaps, list):
        return {}
    return {int(s["snapshot-id"]): s for s in snaps if isinstance(s, dict) and isinstance(s.get("snapshot-id"), int)}


def current_snapshot_id(doc: JSON) -> int | None:
    """current-snapshot-id with ``-1`` and absence read as ``None`` (Appendix F)."""
    sid = doc.get("current-snapshot-id")
    return None if sid is None or sid == -1 or not _is_id(sid) else int(sid)


def current_snapshot(doc: JSON) -> JSON | None:
    sid = current_snapshot_id(doc)
    return None if sid is None else snapshots_by_id(doc).get(sid)


def parse_schema(schema_json: JSON) -> IcebergType:
    """Parse one schema object (``{"type": "struct", "fields": [...]}``); SpecViolation if bad."""
    return parse_type({"type": "struct", "fields": schema_json.get("fields")})


# --------------------------------------------------------------------------------------
# Validation


@lru_cache(maxsize=None)
def metadata_json_schema(version: int) -> dict[str, Any]:
    """The JSON Schema of the shape of format ``version`` (package data)."""
    text = resources.files(__package__).joinpath("metadata_schemas").joinpath(
        f"metadata-v{version}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=None)
def _validator(version: int) -> Any:
    return jsonschema.Draft202012Validator(metadata_json_schema(version))


def _pointer(parts: Any) -> str:
    return "/" + "/".join(_escape(str(p)) for p in parts) if parts else "/"


_KNOWN_TRANSFORMS = {"identity", "year", "month", "day", "hour", "void"}
#: binding problems of a partition spec that do not depend on which schema it was written for
_SCHEMA_FREE_PARTITION_RULES = {"partition.duplicate-field-id", "partition.duplicate-name",
                                "partition.empty-name", "partition.transform-arity"}
_OPERATIONS = {"append", "replace", "overwrite", "delete"}


def _known_transform(t: str) -> bool:
    if t in _KNOWN_TRANSFORMS:
        return True
    for prefix in ("bucket[", "truncate["):
        if t.startswith(prefix) and t.endswith("]") and t[len(prefix):-1].isdigit():
            return int(t[len(prefix):-1]) > 0
    return False


def validate_metadata(doc: JSON, file: str = "") -> list[Finding]:
    """All findings about a parsed metadata document: shape first, then cross-field rules.

    Cross-field rules run only when the shape is valid (they rely on it).
    """
    col = _Collector(file)
    if not isinstance(doc, dict):
        col.add("metadata.shape", f"table metadata is a JSON object, got {type(doc).__name__}", "/")
        return col.findings
    v = doc.get("format-version")
    if isinstance(v, bool) or not isinstance(v, int):
        col.add("metadata.format-version", f"format-version must be an integer 1..3, got {v!r}",
                "/format-version")
        return col.findings
    if v not in SUPPORTED_VERSIONS:
        col.add("metadata.format-version",
                f"format-version {v} is not supported (this reader supports 1..3)", "/format-version")
        return col.findings
    errors = [] if _valid_by_shape(v, doc) else \
        sorted(_validator(v).iter_errors(doc), key=lambda e: (list(e.absolute_path), e.message))
    errors = [e for e in errors if not _pre_upgrade_snapshot(doc, e)]
    for e in errors[:20]:
        col.add("metadata.shape", f"v{v}: {e.message}"[:300], _pointer(e.absolute_path))
    if errors:
        return col.findings
    _Semantics(doc, v, col).run()
    return col.findings


#: the arrays of a metadata document that grow with its commits, whose items' verdict under the
#: JSON Schemas depends only on their :func:`_shape` (tests/test_metadata_fast.py holds the
#: schemas to the keywords :func:`_shape` covers)
SHAPED_ARRAYS = ("snapshots", "snapshot-log", "metadata-log")


def _valid_by_shape(version: int, doc: dict[str, Any]) -> bool:
    """Whether ``doc`` is valid against the JSON Schema of ``version``, told with one item per
    :func:`_shape` in place of all the items of its long :data:`SHAPED_ARRAYS`: the schemas'
    keywords for those items (type, required, properties, additionalProperties, items, and
    minimum/maximum at 0 and the int and long bounds) give the same verdict on two values of the
    same shape. False when that cannot tell (an error, or no long array): then validate the
    whole document."""
    fewer: dict[str, Any] = {}
    try:
        for key in SHAPED_ARRAYS:
            items = doc.get(key)
            if isinstance(items, list) and len(items) >= 16:
                firsts: dict[Any, Any] = {}
                for item in items:
                    firsts.setdefault(_shape(item), item)
                fewer[key] = list(firsts.values())
    except RecursionError:
        return False
    if not fewer:
        return False
    return next(iter(_validator(version).iter_errors(dict(doc, **fewer))), None) is None


#: the integer bounds the metadata JSON Schemas compare with (minimum and maximum)
_BOUNDS = (-(2**63), -(2**31), 0, 2**31 - 1, 2**63 - 1)


def _shape(value: Any) -> Any:
    """What a JSON Schema of the metadata tells of ``value``: its JSON type, object keys, array
    length, an integer's place among :data:`_BOUNDS`, a float itself (an integral float is a
    JSON Schema integer)."""
    t = type(value)
    if t is dict:
        return ("d", tuple(sorted((k, _shape(x)) for k, x in value.items())))
    if t is list:
        return ("l", tuple(_shape(x) for x in value))
    if t is int:
        return ("i", tuple(value < b for b in _BOUNDS), tuple(value > b for b in _BOUNDS))
    if t is float:
        return ("f", value)
    return (t.__name__,)


def _pre_upgrade_snapshot(doc: dict[str, Any], error: Any) -> bool:
    """Whether ``error`` is only a snapshot without ``sequence-number`` written before the table
    was upgraded from v1. Appendix E: reading v1 metadata for v2, "Snapshot field
    `sequence-number` must default to 0"; writers (Iceberg Java) keep such snapshots without the
    field after an upgrade. Accepted for a snapshot older than every snapshot that has one."""
    path = list(error.absolute_path)
    if error.validator != "required" or "'sequence-number'" not in error.message or len(path) != 2 \
            or path[0] != "snapshots":
        return False
    snaps = [s for s in doc.get("snapshots") or [] if isinstance(s, dict)]
    snap = snaps[path[1]] if isinstance(path[1], int) and path[1] < len(snaps) else None
    if snap is None or not isinstance(snap.get("timestamp-ms"), int):
        return False
    numbered = [s.get("timestamp-ms") for s in snaps if "sequence-number" in s]
    return bool(numbered) and all(isinstance(t, int) and snap["timestamp-ms"] < t for t in numbered)


class _Semantics:
    def __init__(self, doc: dict[str, Any], version: int, col: _Collector) -> None:
        self.doc = doc
        self.v = version
        self.col = col
        self.add = col.add
        self.schemas: dict[int, IcebergType] = {}
        self.schema_objects: dict[int, schema_rules.Schema] = {}
        self.schema_ids: set[int] = set()
        self.snaps: dict[int, dict[str, Any]] = {}

    def run(self) -> None:
        self.table_uuid()
        self.check_schemas()
        self.check_specs()
        self.check_sort_orders()
        self.check_snapshots()
        self.check_logs()
        self.check_refs()
        self.check_statistics()
        self.check_name_mapping()
        self.check_crs()
        self.check_paths()
        if self.v >= 3:
            self.check_row_lineage()
            self.check_encryption()

    # -- top level
    def table_uuid(self) -> None:
        u = self.doc.get("table-uuid")
        if u is None:
            return
        try:
            uuidlib.UUID(u)
            ok = len(u) == 36 and u.count("-") == 4
        except ValueError:
            ok = False
        if not ok:
            self.add("metadata.table-uuid", f"{_short(u)!r} is not a UUID", "/table-uuid")

    # -- schemas
    def _schema_entries(self) -> list[tuple[str, dict[str, Any]]]:
        d = self.doc
        if "schemas" in d:
            return [(f"/schemas/{i}", s) for i, s in enumerate(d["schemas"])]
        return [("/schema", d["schema"])]

    def check_schemas(self) -> None:
        """schema-id uniqueness, current schema, last-column-id, v1 ``schema``; each schema's own
        rules come from :func:`reference.schema.schema_problems` (their ids: ``schema.*``)."""
        d = self.doc
        seen: dict[int, str] = {}
        for where, s in self._schema_entries():
            sid = s.get("schema-id", 0)
            if sid in seen:
                self.add("metadata.schema-ids-unique", f"schema-id {sid} also at {seen[sid]}", f"{where}/schema-id")
                continue
            seen[sid] = where
            parsed = self._parse_schema(s, sid, where)
            if parsed is None:
                continue
            self.schemas[sid] = parsed.struct
            self.schema_objects[sid] = parsed
            for problem in schema_rules.schema_problems(parsed, self.v):
                self.violation(problem, f"schema {sid}", where)
            top = max((fid for fid, _ in schema_rules.walk(parsed)), default=None)
            if top is not None and top > d["last-column-id"]:
                self.add("metadata.last-column-id",
                         f"last-column-id {d['last-column-id']} is below field id {top} of schema {sid}",
                         "/last-column-id")
        self.schema_ids = set(seen)
        if "schemas" in d and "current-schema-id" in d and d["current-schema-id"] not in seen:
            self.add("metadata.current-schema-exists",
                     f"current-schema-id {d['current-schema-id']} is not among schema ids {sorted(seen)}",
                     "/current-schema-id")
        if self.v == 1 and "schemas" in d and "schema" in d:
            cur = self.schemas.get(d.get("current-schema-id", -1))
            legacy = self._parse_schema(d["schema"], d["schema"].get("schema-id", 0), "/schema")
            if cur is not None and legacy is not None and legacy.struct != cur:
                self.add("metadata.v1-schema-consistent",
                         f"the deprecated schema differs from current schema {d.get('current-schema-id')}",
                         "/schema")

    def _parse_schema(self, s: dict[str, Any], sid: int, where: str) -> schema_rules.Schema | None:
        try:
            return schema_rules.parse_schema(s, path=where)
        except SpecViolation as e:
            self.violation(e, f"schema {sid}", "" if e.where.startswith("/") else where)
        except RecursionError:
            self.add("metadata.json-too-deep", f"schema {sid}: nested too deeply to read", where)
        return None

    def violation(self, e: SpecViolation, what: str, where: str) -> None:
        """A rule of another module (``schema.*``, ``partition.*``, ``types.*``) as a finding."""
        loc = f"{where}{e.where}" if e.where.startswith("/") or not e.where else where
        self.col.findings.append(Finding(e.rule, f"{what}: {e.detail}", e.clause, self.col.file, loc))

    # -- partition specs
    def _find_field(self, fid: int, schema: IcebergType | None) -> schema_rules.IndexedField | None:
        if not isinstance(schema, StructType):
            return None
        return next((f for i, f in schema_rules.walk(schema) if i == fid), None)

    def _current_schema_object(self) -> schema_rules.Schema | None:
        d = self.doc
        if "schemas" in d and "current-schema-id" in d:
            return self.schema_objects.get(d["current-schema-id"])
        if "schema" in d:
            return self.schema_objects.get(d["schema"].get("schema-id", 0))
        return None

    def check_specs(self) -> None:
        """spec ids, default spec, last-partition-id, v1 ``partition-spec``; binding a spec to the
        current schema is :func:`reference.partitioning.bind_problems` (ids ``partition.*``).

        The default spec is bound strictly. Other specs were written against older schemas:
        their fields may name since-dropped columns (reported as a warning), and so may
        ``void`` fields of the default spec (v1 replaces removed partition fields by ``void``).
        """
        d = self.doc
        cur = self._current_schema_object()
        entries: list[tuple[str, dict[str, Any]]]
        if "partition-specs" in d:
            entries = [(f"/partition-specs/{i}", s) for i, s in enumerate(d["partition-specs"])]
        else:
            entries = [("/partition-spec", {"spec-id": 0, "fields": d["partition-spec"]})]
        default_id = d.get("default-spec-id", 0)
        seen: set[int] = set()
        max_pid = None
        for where, spec_json in entries:
            spec_id = spec_json["spec-id"]
            if spec_id in seen:
                self.add("metadata.spec-ids-unique", f"spec-id {spec_id} is given twice", f"{where}/spec-id")
                continue
            seen.add(spec_id)
            fields_where = f"{where}/fields" if "partition-specs" in d else where
            for j, pf in enumerate(spec_json["fields"]):
                loc = f"{fields_where}/{j}"
                if "field-id" in pf:
                    max_pid = pf["field-id"] if max_pid is None else max(max_pid, pf["field-id"])
                if "source-ids" in pf and self.v < 3:
                    self.add("metadata.type-version", "source-ids (multi-argument transforms) is v3", loc)
                if not _known_transform(pf["transform"]):
                    self.add("metadata.unknown-transform",
                             f"spec {spec_id}: transform {pf['transform']!r} is unknown; the field is ignored", loc)
            try:
                spec = partitioning.parse_partition_spec(
                    {"spec-id": spec_id, "fields": spec_json["fields"]}, self.v, path=where)
            except SpecViolation as e:
                self.violation(e, f"spec {spec_id}", "")
                continue
            if cur is None:
                continue  # no current schema to bind to: reported by its own rule
            is_default = spec_id == default_id
            for problem in partitioning.bind_problems(spec, cur):
                pf_index, pf_obj = self._problem_field(spec, problem)
                loc = f"{fields_where}/{pf_index}" if pf_index is not None else fields_where
                dropped_source = problem.rule == "partition.source-missing"
                if dropped_source and (not is_default or (pf_obj is not None and str(pf_obj.transform) == "void")):
                    self.add("metadata.partition-source-history",
                             f"spec {spec_id}: {problem.detail} (written against an older schema)", loc)
                elif is_default or problem.rule in _SCHEMA_FREE_PARTITION_RULES:
                    self.violation(problem, f"spec {spec_id}", loc)
                # other rules of older specs depend on the schema they were written for
        if "partition-specs" in d and default_id not in seen:
            self.add("metadata.default-spec-exists",
                     f"default-spec-id {default_id} is not among spec ids {sorted(seen)}", "/default-spec-id")
        if "last-partition-id" in d and max_pid is not None and max_pid > d["last-partition-id"]:
            self.add("metadata.last-partition-id",
                     f"last-partition-id {d['last-partition-id']} is below partition field id {max_pid}",
                     "/last-partition-id")
        if self.v == 1 and "partition-specs" in d and "partition-spec" in d:
            default = next((s for s in d["partition-specs"] if s["spec-id"] == default_id), None)
            if default is not None and not _same_partition_fields(d["partition-spec"], default["fields"]):
                self.add("metadata.v1-partition-spec-consistent",
                         f"the deprecated partition-spec differs from the fields of default spec {default_id}",
                         "/partition-spec")

    @staticmethod
    def _problem_field(spec: partitioning.PartitionSpec, e: SpecViolation
                       ) -> tuple[int | None, partitioning.PartitionField | None]:
        """The partition field a binding problem is about (its message names it)."""
        for i, pf in enumerate(spec.fields):
            if e.detail.startswith(f"partition field {pf.name!r}"):
                return i, pf
        return None, None

    # -- sort orders
    def check_sort_orders(self) -> None:
        d = self.doc
        if "sort-orders" not in d:
            return
        cur_schema = self.schemas.get(d.get("current-schema-id", -1))
        seen: set[int] = set()
        default_id = d.get("default-sort-order-id")
        for i, order in enumerate(d["sort-orders"]):
            oid = order["order-id"]
            where = f"/sort-orders/{i}"
            if oid in seen:
                self.add("metadata.sort-order-ids-unique", f"order-id {oid} is given twice", f"{where}/order-id")
                continue
            seen.add(oid)
            if oid == 0 and order["fields"]:
                self.add("metadata.unsorted-order", "sort order 0 is reserved for the unsorted order but has fields",
                         f"{where}/fields")
            for j, sf in enumerate(order["fields"]):
                if "source-ids" in sf and self.v < 3:
                    self.add("metadata.type-version", "source-ids (multi-argument transforms) is v3",
                             f"{where}/fields/{j}")
                if oid != default_id or cur_schema is None:
                    continue
                for src in sf["source-ids"] if "source-ids" in sf else [sf["source-id"]]:
                    f = self._find_field(src, cur_schema)
                    if f is None or not isinstance(f.field_type, PrimitiveType):
                        what = "is not in the current schema" if f is None else f"is {f.field_type}, not primitive"
                        self.add("metadata.sort-source", f"sort order {oid}: source column {src} {what}",
                                 f"{where}/fields/{j}")
        if default_id is not None and default_id not in seen:
            self.add("metadata.default-sort-order-exists",
                     f"default-sort-order-id {default_id} is not among order ids {sorted(seen)}",
                     "/default-sort-order-id")

    # -- snapshots
    def check_snapshots(self) -> None:
        d = self.doc
        snaps = d.get("snapshots") or []
        for i, s in enumerate(snaps):
            sid = s["snapshot-id"]
            if sid in self.snaps:
                self.add("metadata.snapshot-ids-unique", f"snapshot-id {sid} is given twice",
                         f"/snapshots/{i}/snapshot-id")
                continue
            self.snaps[sid] = s
        cur = d.get("current-snapshot-id")
        if cur is not None and cur != -1 and cur not in self.snaps:
            self.add("metadata.current-snapshot-exists", f"current-snapshot-id {cur} is not a snapshot",
                     "/current-snapshot-id")
        if cur == -1 and self.v >= 3:
            self.add("metadata.current-snapshot-minus-one", "current-snapshot-id -1 (read as null)",
                     "/current-snapshot-id")
        last_seq = d.get("last-sequence-number")
        lists: dict[str, int] = {}
        for i, s in enumerate(snaps):
            where = f"/snapshots/{i}"
            sid = s["snapshot-id"]
            ml = s.get("manifest-list")
            if isinstance(ml, str) and ml in lists and lists[ml] != sid:
                self.add("metadata.manifest-list-shared", f"snapshot {sid} names the manifest list of snapshot "
                         f"{lists[ml]} ({_short(ml)}); a manifest list belongs to one snapshot",
                         f"{where}/manifest-list")
            elif isinstance(ml, str):
                lists[ml] = sid
            parent_id = s.get("parent-snapshot-id")
            if parent_id == sid:
                self.add("metadata.snapshot-parent", f"snapshot {sid} is its own parent",
                         f"{where}/parent-snapshot-id")
            elif parent_id == -1 and -1 not in self.snaps:
                self.add("metadata.snapshot-parent-minus-one", f"snapshot {sid} has parent-snapshot-id -1, which "
                         "names no snapshot; a snapshot with no parent omits the field", f"{where}/parent-snapshot-id")
            if self.v == 1 and "manifests" in s and "manifest-list" in s:
                self.add("metadata.snapshot-manifests",
                         f"snapshot {sid} has both manifests and manifest-list", f"{where}/manifests")
            summary = s.get("summary")
            if summary is not None and summary["operation"] not in _OPERATIONS:
                self.add("metadata.snapshot-operation",
                         f"snapshot {sid}: operation {_short(summary['operation'])!r} is not one of "
                         + ", ".join(sorted(_OPERATIONS)), f"{where}/summary/operation")
            if "schema-id" in s and self.schema_ids and s["schema-id"] not in self.schema_ids:
                self.add("metadata.snapshot-schema",
                         f"snapshot {sid}: schema-id {s['schema-id']} is not in schemas", f"{where}/schema-id")
            if self.v >= 2 and "sequence-number" in s:  # absent: kept from v1, reads as 0 (Appendix E)
                seq = s["sequence-number"]
                if seq > last_seq:
                    self.add("metadata.sequence-number",
                             f"snapshot {sid}: sequence-number {seq} is above last-sequence-number {last_seq}",
                             f"{where}/sequence-number")
                parent = self.snaps.get(parent_id) if parent_id is not None and parent_id != sid else None
                if parent is not None and seq <= parent.get("sequence-number", 0):
                    self.add("metadata.sequence-number",
                             f"snapshot {sid}: sequence-number {seq} is not above its parent's "
                             f"({parent.get('sequence-number', 0)})", f"{where}/sequence-number")

    def check_logs(self) -> None:
        d = self.doc
        updated = d["last-updated-ms"]
        for key, rule in (("snapshot-log", "metadata.snapshot-log-order"),
                          ("metadata-log", "metadata.metadata-log-order")):
            log = d.get(key) or []
            prev = None
            for i, e in enumerate(log):
                ts = e["timestamp-ms"]
                if prev is not None and ts < prev - LOG_SKEW_MS:
                    self.add(rule, f"{key} entry {i} at {ts} is before entry {i - 1} at {prev}",
                             f"/{key}/{i}/timestamp-ms")
                prev = ts
            if prev is not None and prev > updated + LOG_SKEW_MS:
                self.add(rule, f"the last {key} entry at {prev} is after last-updated-ms {updated}",
                         f"/{key}/{len(log) - 1}/timestamp-ms")
        me = _local(self.col.file)
        for i, e in enumerate(d.get("metadata-log") or []):
            if me is not None and _local(e["metadata-file"]) == me:
                self.add("metadata.metadata-log-self", f"metadata-log entry {i} names this metadata file; the log "
                         "lists the previous metadata files", f"/metadata-log/{i}/metadata-file")
        log = d.get("snapshot-log") or []
        for i, e in enumerate(log):
            if e["snapshot-id"] in self.snaps:
                continue
            if i == len(log) - 1:
                self.add("metadata.snapshot-log-snapshot",
                         f"the latest snapshot-log entry names snapshot {e['snapshot-id']}, which is not in snapshots",
                         f"/snapshot-log/{i}/snapshot-id")
            else:
                self.add("metadata.snapshot-log-unpruned",
                         f"snapshot-log entry {i} names expired snapshot {e['snapshot-id']}",
                         f"/snapshot-log/{i}/snapshot-id")

    # -- refs
    def check_refs(self) -> None:
        d = self.doc
        refs = d.get("refs")
        if refs is None:
            return
        for name, ref in refs.items():
            where = f"/refs/{_escape(name)}"
            if ref["snapshot-id"] not in self.snaps:
                self.add("metadata.ref-snapshot", f"ref {name!r} names snapshot {ref['snapshot-id']}, "
                         "which is not in snapshots", f"{where}/snapshot-id")
            for key in ("min-snapshots-to-keep", "max-snapshot-age-ms"):
                if key in ref and ref["type"] == "tag":
                    self.add("metadata.ref-retention", f"tag {name!r} has {key}, which is for branches only",
                             f"{where}/{key}")
            for key in ("min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"):
                if key in ref and ref[key] <= 0:
                    self.add("metadata.ref-retention", f"ref {name!r}: {key} {ref[key]} is not positive",
                             f"{where}/{key}")
        main = refs.get("main")
        if main is not None:
            cur = current_snapshot_id(d)
            if main["type"] != "branch":
                self.add("metadata.main-branch", "ref 'main' is a tag; main is the table's branch", "/refs/main/type")
            elif main["snapshot-id"] != cur:
                self.add("metadata.main-branch",
                         f"main branch is at snapshot {main['snapshot-id']} but current-snapshot-id is {cur}",
                         "/refs/main/snapshot-id")

    # -- statistics
    def check_statistics(self) -> None:
        d = self.doc
        for i, st in enumerate(d.get("statistics") or []):
            if st["snapshot-id"] not in self.snaps:
                self.add("metadata.statistics-snapshot",
                         f"statistics file for snapshot {st['snapshot-id']}, which is not in snapshots",
                         f"/statistics/{i}/snapshot-id")
        seen: set[int] = set()
        for i, st in enumerate(d.get("partition-statistics") or []):
            sid = st["snapshot-id"]
            if sid not in self.snaps:
                self.add("metadata.partition-statistics-snapshot",
                         f"partition statistics file for snapshot {sid}, which is not in snapshots",
                         f"/partition-statistics/{i}/snapshot-id")
            elif sid in seen:
                self.add("metadata.partition-statistics-snapshot",
                         f"snapshot {sid} has more than one partition statistics file",
                         f"/partition-statistics/{i}/snapshot-id")
            seen.add(sid)

    # -- v3
    def check_row_lineage(self) -> None:
        d = self.doc
        next_row_id = d["next-row-id"]
        ranges: list[tuple[int, int, int, int]] = []
        snapshots: list[dict[str, Any]] = d.get("snapshots") or []
        for i, s in enumerate(snapshots):
            if self.snaps.get(s["snapshot-id"]) is not s:
                continue  # a duplicate id, reported by its own rule
            has_first, has_added = "first-row-id" in s, "added-rows" in s
            if has_first != has_added:
                self.add("metadata.row-lineage",
                         f"snapshot {s['snapshot-id']} has {'first-row-id' if has_first else 'added-rows'} "
                         f"without {'added-rows' if has_first else 'first-row-id'}", f"/snapshots/{i}")
                continue
            if not has_first:
                # a snapshot written before the table was upgraded to v3, unless one committed
                # before it (a lower sequence number) already has row lineage
                earlier = [o["snapshot-id"] for o in snapshots if "first-row-id" in o
                           and isinstance(o.get("sequence-number"), int) and isinstance(s.get("sequence-number"), int)
                           and o["sequence-number"] < s["sequence-number"]]
                if earlier:
                    self.add("metadata.row-lineage",
                             f"snapshot {s['snapshot-id']} has no first-row-id, but snapshot {earlier[0]} "
                             "committed before it has one: snapshots created after the upgrade to v3 set it",
                             f"/snapshots/{i}")
                continue
            end = s["first-row-id"] + s["added-rows"]
            if end > next_row_id:
                self.add("metadata.next-row-id",
                         f"next-row-id {next_row_id} is below first-row-id + added-rows = {end} "
                         f"of snapshot {s['snapshot-id']}", "/next-row-id")
            ranges.append((s.get("sequence-number", 0), s["first-row-id"], end, i))
        ranges.sort()
        for (_, _, end_a, _), (_, start_b, _, ib) in zip(ranges, ranges[1:]):
            if start_b < end_a:
                self.add("metadata.row-lineage",
                         f"first-row-id {start_b} is inside the row-id range of an earlier snapshot (ends at {end_a})",
                         f"/snapshots/{ib}/first-row-id")

    def check_paths(self) -> None:
        """Paths in Metadata: before v4 every path is fully qualified (a URI with a scheme, or an
        absolute path); a relative one is reported."""
        d = self.doc
        paths: list[tuple[str, Any]] = [("/location", d.get("location"))]
        for i, s in enumerate(d.get("snapshots") or []):
            paths.append((f"/snapshots/{i}/manifest-list", s.get("manifest-list")))
            paths += [(f"/snapshots/{i}/manifests/{j}", m) for j, m in enumerate(s.get("manifests") or [])]
        for key in ("statistics", "partition-statistics"):
            paths += [(f"/{key}/{i}/statistics-path", st.get("statistics-path")) for i, st in enumerate(d.get(key) or [])]
        paths += [(f"/metadata-log/{i}/metadata-file", e.get("metadata-file"))
                  for i, e in enumerate(d.get("metadata-log") or [])]
        for where, p in paths:
            if isinstance(p, str) and not fully_qualified(p):
                self.add("metadata.relative-path", f"{_short(p)!r} is a relative path; paths are fully qualified "
                         "before v4", where)

    def check_name_mapping(self) -> None:
        """``schema.name-mapping.default`` (Appendix C: Name Mapping Serialization)."""
        props = self.doc.get("properties")
        raw = props.get("schema.name-mapping.default") if isinstance(props, dict) else None
        if not isinstance(raw, str):
            return
        where = "/properties/schema.name-mapping.default"
        try:
            mapping = json.loads(raw)
        except ValueError as e:
            self.add("metadata.name-mapping", f"not JSON: {str(e)[:200]}", where)
            return
        problems: list[str] = []

        def walk(node: Any, path: str, depth: int) -> None:
            if not isinstance(node, list):
                problems.append(f"{path or 'the mapping'} is not a JSON list of field mappings")
                return
            if depth > 100:
                problems.append(f"{path}: nested deeper than 100 levels")
                return
            for i, m in enumerate(node):
                here = f"{path}[{i}]"
                if not isinstance(m, dict):
                    problems.append(f"{here} is not an object")
                    continue
                names = m.get("names")
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    problems.append(f"{here}: names is {'missing' if names is None else 'not a list of strings'}")
                fid = m.get("field-id")
                if "field-id" in m and fid is not None and (not isinstance(fid, int) or isinstance(fid, bool)):
                    problems.append(f"{here}: field-id {_short(fid)!r} is not an int")
                if m.get("fields") is not None:
                    walk(m["fields"], f"{here}.fields", depth + 1)

        walk(mapping, "", 0)
        for p in problems[:20]:
            self.add("metadata.name-mapping", p, where)

    def check_crs(self) -> None:
        """geometry/geography CRS parameters (Primitive Types: CRS)."""
        from .types import GeographyType, GeometryType

        props = self.doc.get("properties")
        props = props if isinstance(props, dict) else {}
        for sid, schema in sorted(self.schema_objects.items()):
            for fid, info in schema_rules.walk(schema):
                t = info.field_type
                if not isinstance(t, (GeometryType, GeographyType)):
                    continue
                crs = t.crs.strip()
                if crs.startswith("{"):
                    self.add("metadata.crs", f"schema {sid} field {fid}: the CRS is inlined PROJJSON; store it in a "
                             "table property and name it as projjson:<property-name>", f"schema {sid}")
                elif crs.startswith("projjson:") and crs[len("projjson:"):] not in props:
                    self.add("metadata.crs", f"schema {sid} field {fid}: CRS {_short(crs)!r} names no table property",
                             f"schema {sid}")

    def check_encryption(self) -> None:
        d = self.doc
        keys: set[str] = set()
        for i, k in enumerate(d.get("encryption-keys") or []):
            if k["key-id"] in keys:
                self.add("metadata.encryption-keys", f"key-id {k['key-id']!r} is given twice",
                         f"/encryption-keys/{i}/key-id")
            keys.add(k["key-id"])
        for i, s in enumerate(d.get("snapshots") or []):
            if "key-id" in s and s["key-id"] not in keys:
                self.add("metadata.encryption-keys",
                         f"snapshot {s['snapshot-id']}: key-id {s['key-id']!r} is not in encryption-keys",
                         f"/snapshots/{i}/key-id")


def _local(path: str) -> str | None:
    """The resolved local path a metadata file location names (scheme-less absolute,
    ``file:/`` or ``file:///``), or None."""
    if path.startswith("file://"):
        path = path[len("file://"):]
    elif path.startswith("file:"):
        path = path[len("file:"):]
    return os.path.realpath(path) if path.startswith("/") else None


def _same_partition_fields(legacy: list[dict[str, Any]], fields: list[dict[str, Any]]) -> bool:
    if len(legacy) != len(fields):
        return False
    for a, b in zip(legacy, fields):
        for key in ("source-id", "transform", "name"):
            if a.get(key) != b.get(key):
                return False
        if "field-id" in a and "field-id" in b and a["field-id"] != b["field-id"]:
            return False
    return True


def check_metadata_file(path: str | Path) -> tuple[JSON | None, list[Finding]]:
    """:func:`load_metadata` then :func:`validate_metadata`: the document and every finding."""
    doc, findings = load_metadata(path)
    if doc is None:
        return None, findings
    return doc, findings + validate_metadata(doc, str(path))


def errors(findings: list[Finding]) -> list[Finding]:
    """The findings of severity ``error``."""
    return [f for f in findings if f.severity == "error"]


def rules_table() -> str:
    """The rule list as a Markdown table (for the docs)."""
    lines = ["| rule | severity | spec | summary |", "|---|---|---|---|"]
    lines += [f"| `{r.id}` | {r.severity} | {r.clause} | {r.summary} |" for r in RULES.values()]
    return "\n".join(lines)


__all__ = [
    "MAX_DEPTH", "MAX_METADATA_BYTES", "MAX_STRING_CHARS", "RULES", "Rule",
    "check_metadata_file", "current_schema", "current_snapshot", "current_snapshot_id",
    "current_spec", "errors", "format_version", "load_metadata", "metadata_json_schema",
    "parse_metadata_bytes", "parse_schema", "read_metadata", "rules_table", "schema_by_id",
    "snapshots_by_id", "sort_order_by_id", "spec_by_id", "validate_metadata",
]
