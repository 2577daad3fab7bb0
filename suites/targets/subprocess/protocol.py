"""The harness protocol's operations: one request per method of the Protocols in ``suites/api.py``.

:data:`OPERATIONS` is the one table the rest follows: the target that speaks the protocol
(``suites/targets/subprocess``), the Python harness (``harnesses/python``), ``harness-check`` and the JSON Schema
``harnesses/protocol.schema.json`` (generated from this table by :func:`schema`; a test keeps the
file and the table equal). ``docs/harness-protocol.md`` describes the same in words.

Argument and result *kinds*: ``json`` any JSON value in the vectors' own form; ``type`` an
Iceberg type (string or JSON object); ``hex`` bytes as lower-case hex; ``int64`` a 64-bit
integer as a decimal string, or null; ``int``, ``bool``, ``string``, ``path`` (a file path),
``object``, ``strings`` (a list of strings), ``rows`` (a list of objects), ``null``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from iceberg_conformance.suites import api

PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class Operation:
    op: str
    capability: str
    #: (argument name in the request, kind)
    args: tuple[tuple[str, str], ...]
    result: str
    #: an operation a harness may answer ``unsupported`` although it declares the capability
    optional: bool = False

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a for a, _ in self.args)


def _op(op: str, cap: str, args: str, result: str, optional: bool = False) -> Operation:
    pairs = tuple(tuple(a.split(":")) for a in args.split()) if args else ()
    return Operation(op, cap, pairs, result, optional)  # type: ignore[arg-type]


OPERATIONS: dict[str, Operation] = {o.op: o for o in (
    _op("hash", api.HASH, "type:type value:json", "int-or-null"),
    _op("transform", api.TRANSFORM, "transform:string type:type value:json", "json"),
    _op("result_type", api.TRANSFORM, "transform:string type:type", "type"),
    _op("to_bytes", api.BINARY, "type:type value:json", "hex"),
    _op("from_bytes", api.BINARY, "type:type data:hex", "json"),
    _op("value_json_roundtrip", api.VALUE_JSON, "type:type value:json", "json"),
    _op("bound_to_bytes", api.BOUND, "type:type value:json", "hex"),
    _op("bound_from_bytes", api.BOUND, "type:type data:hex", "json"),
    _op("type_json_roundtrip", api.SCHEMA_JSON, "type:type", "type"),
    _op("schema_json_roundtrip", api.SCHEMA_JSON, "schema:object format_version:int", "object"),
    _op("partition_spec_json_roundtrip", api.PARTITION_SPEC_JSON,
        "spec:object schema:object format_version:int", "object"),
    _op("read_table_metadata", api.METADATA, "path:path", "object"),
    _op("read_table_metadata_as", api.METADATA, "path:path format_version:int", "object", optional=True),
    _op("read_manifest_list", api.MANIFEST_READ, "path:path format_version:int", "objects"),
    _op("read_manifest", api.MANIFEST_READ, "path:path format_version:int", "objects"),
    _op("read_manifest_inherited", api.MANIFEST_READ,
        "path:path format_version:int manifest_list_entry:object", "objects"),
    _op("write_manifest", api.MANIFEST_WRITE, "path:path manifest:json", "null"),
    _op("write_manifest_list", api.MANIFEST_WRITE, "path:path manifest_list:json", "null"),
    _op("read_puffin", api.PUFFIN_READ, "path:path", "object"),
    _op("write_puffin", api.PUFFIN_WRITE, "path:path content:json", "null"),
    _op("scan", api.TABLE_SCAN, "metadata_path:path snapshot_id:int64 row_filter:json", "objects"),
    _op("check_schema_evolution", api.EVOLUTION,
        "old:object new:object format_version:int partition_specs:objects-or-null", "null"),
    _op("check_partition_evolution", api.EVOLUTION,
        "old:object new:object schema:object format_version:int", "null"),
    _op("check_manifest", api.MANIFEST_CHECK,
        "path:path format_version:int manifest_list_entry:json", "json"),
    _op("commit_retry", api.COMMIT_RETRY, "case:json", "json"),
    _op("expression_roundtrip", api.EXPRESSIONS, "expr:json", "json"),
    _op("expression_bind", api.EXPRESSIONS, "schema:object expr:json case_sensitive:bool", "json"),
    _op("expression_evaluate", api.EXPRESSIONS,
        "schema:object expr:json row:object case_sensitive:bool", "bool"),
    _op("projection_accepts", api.PROJECTION,
        "schema:object spec:object expr:json mode:mode partition:object", "bool"),
    _op("metrics_evaluate", api.METRICS, "schema:object file:object expr:json mode:mode", "bool"),
    _op("manifest_might_match", api.MANIFEST_PRUNING,
        "schema:object spec:object partitions:json expr:json", "bool"),
    _op("applicable_deletes", api.DELETE_PLANNING,
        "schema:object specs:json data_file:object delete_files:objects", "strings"),
    _op("residual", api.RESIDUAL,
        "schema:object spec:object expr:json partition:object case_sensitive:bool", "json"),
    _op("avro_schema", api.AVRO_SCHEMA, "schema:object", "object"),
    _op("plan_files", api.SCAN_PLAN, "metadata_path:path snapshot_id:int64 row_filter:json", "tasks"),
)}

#: the request fields every request has besides its arguments
RESERVED = ("op", "id")

_HEX = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
KINDS: dict[str, dict[str, Any]] = {
    "json": {},
    "type": {"type": ["string", "object"]},
    "hex": _HEX,
    "int64": {"type": ["string", "null"], "pattern": "^-?[0-9]{1,19}$"},
    "int": {"type": "integer"},
    "int-or-null": {"type": ["integer", "null"]},
    "bool": {"type": "boolean"},
    "string": {"type": "string"},
    "path": {"type": "string", "minLength": 1},
    "mode": {"enum": ["inclusive", "strict"]},
    "object": {"type": "object"},
    "objects": {"type": "array", "items": {"type": "object"}},
    "objects-or-null": {"type": ["array", "null"], "items": {"type": "object"}},
    "strings": {"type": "array", "items": {"type": "string"}},
    "tasks": {"type": "array", "items": {
        "type": "object", "required": ["data_file", "delete_files"],
        "properties": {"data_file": {"type": "string"},
                       "delete_files": {"type": "array", "items": {"type": "string"}}}}},
    "null": {"type": "null"},
}

_ID = {"type": "integer", "minimum": 0}


def schema() -> dict[str, Any]:
    """The JSON Schema of every message (``$defs``: one request and one result per operation)."""
    defs: dict[str, Any] = {
        "id": _ID,
        "start": {
            "description": "The first request: the kit's protocol version.",
            "type": "object", "additionalProperties": False, "required": ["op", "id", "protocol"],
            "properties": {"op": {"const": "start"}, "id": _ID, "protocol": {"type": "integer"}}},
        "start-reply": {
            "description": "The harness's reply to start: who it is and what it implements.",
            "type": "object", "additionalProperties": False,
            "required": ["id", "protocol", "implementation", "language", "version", "capabilities"],
            "properties": {
                "id": _ID, "protocol": {"const": PROTOCOL_VERSION},
                "implementation": {"type": "string", "minLength": 1},
                "language": {"type": "string", "minLength": 1},
                "version": {"type": "string", "minLength": 1},
                "capabilities": {"type": "array", "uniqueItems": True,
                                 "items": {"enum": list(api.ALL_CAPABILITIES)}},
                "reports_rules": {"type": "boolean"},
                "metadata_write_versions": {"type": "array", "items": {"enum": [1, 2, 3]}},
            }},
        "stop": {
            "description": "The last request; the harness exits (no reply).",
            "type": "object", "additionalProperties": False, "required": ["op", "id"],
            "properties": {"op": {"const": "stop"}, "id": _ID}},
        "refused": {
            "description": "The implementation refused the input (a rejection); rule: the kit's "
                           "rule id where the harness knows it.",
            "type": "object", "additionalProperties": False, "required": ["id", "refused"],
            "properties": {"id": _ID, "refused": {"type": "string"}, "rule": {"type": "string"}}},
        "error": {
            "description": "The implementation failed on this input (it crashed: neither a result "
                           "nor a refusal); the case fails, the harness keeps serving.",
            "type": "object", "additionalProperties": False, "required": ["id", "error"],
            "properties": {"id": _ID, "error": {"type": "string"}}},
        "unsupported": {
            "description": "The implementation cannot handle this input (or operation).",
            "type": "object", "additionalProperties": False, "required": ["id", "unsupported"],
            "properties": {"id": _ID, "unsupported": {"type": "string"}}},
    }
    for o in OPERATIONS.values():
        defs[f"request-{o.op}"] = {
            "description": f"capability {o.capability}" + (" (optional operation)" if o.optional else ""),
            "type": "object", "additionalProperties": False,
            "required": ["op", "id", *o.params],
            "properties": {"op": {"const": o.op}, "id": _ID, **{a: KINDS[k] for a, k in o.args}}}
        defs[f"result-{o.op}"] = {
            "type": "object", "additionalProperties": False, "required": ["id", "result"],
            "properties": {"id": _ID, "result": KINDS[o.result]}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/iceberg-conformance/harness-protocol/v1",
        "title": f"iceberg-conformance harness protocol, version {PROTOCOL_VERSION}",
        "description": "One JSON object per line. A request is one of $defs/start, $defs/stop, "
                       "$defs/request-<op>; the reply to request-<op> is $defs/result-<op>, "
                       "$defs/refused, $defs/unsupported or $defs/error; the reply to start is "
                       "$defs/start-reply. See docs/harness-protocol.md.",
        "oneOf": [{"$ref": "#/$defs/start"}, {"$ref": "#/$defs/stop"},
                  *({"$ref": f"#/$defs/request-{o}"} for o in OPERATIONS)],
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=1) + "\n"
