"""Appendix A: Format-specific Requirements / Avro — Iceberg types as Avro schemas.

Spec section: "Appendix A: Format-specific Requirements / Avro" (Data Type Mappings, Field
IDs). What this module does:

* ``to_avro(type)`` maps an Iceberg type to an Avro schema: optional fields, list elements and
  map values are unions with ``null`` (default ``null``), except ``unknown``, which is Avro
  ``null`` itself; struct fields carry ``field-id``,
  arrays ``element-id``; maps with string keys are Avro maps with ``key-id``/``value-id``, other
  maps are arrays of two-field ``key``/``value`` records with ``logicalType: map``; decimals are
  ``fixed`` of ``minBytesRequired(P)`` bytes; ``uuid`` is ``fixed[16]`` with ``logicalType
  uuid``; timestamps carry ``adjust-to-utc``.
* ``from_avro(schema)`` maps an Avro schema back, and reports what Appendix A forbids (a
  missing field id, a union other than ``[null, T]``) as a ``SpecViolation``.
* ``write_container`` writes an Avro object container file byte-for-byte deterministically
  (fixed key order and sync marker), encoding records with fastavro.
* ``decode_value`` / ``encode_value`` move values between the reference's physical Python form
  (see ``reference.values``) and the Avro encoding (unscaled two's complement bytes for
  decimals, 16 bytes for UUIDs, ...).

Record names are not fixed by Appendix A; this module names a nested struct ``r<field id>`` and
a map entry record ``k<key id>_v<value id>`` (the names Iceberg's Java writer uses and the
Appendix A example shows), so files it writes resolve against readers that match by name.
"""

from __future__ import annotations

import copy
import io
import json
import uuid
import zlib
from array import array
from collections import OrderedDict
from decimal import Context, Decimal
from functools import lru_cache, singledispatch
from typing import Any, BinaryIO, Callable, Iterable, Iterator, TypeVar

import fastavro

from .hashing import scaled, unscaled
from .errors import SpecViolation
from .findings import Finding
from .safeio import open_regular
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    GeographyType, GeometryType, IcebergType, IntegerType, ListType, LongType, MapType,
    NestedField, StringType, StructType, TimestampNanoType, TimestampType, TimestamptzNanoType,
    TimestamptzType, TimeType, UnknownType, UUIDType, VariantType,
)

CLAUSE = "Appendix A: Format-specific Requirements / Avro"
CLAUSE_IDS = "Appendix A: Format-specific Requirements / Avro / Field IDs"

AvroSchema = Any  # a parsed Avro schema: str, list (union) or dict


def min_bytes_required(precision: int) -> int:
    """The fewest bytes whose two's complement holds every unscaled value of ``precision`` digits."""
    n = 1
    while 2 ** (8 * n - 1) - 1 < 10**precision - 1:
        n += 1
    return n


class _Namer:
    """Tracks named Avro types so a second use of a name refers to the first definition."""

    def __init__(self) -> None:
        self.defined: dict[str, AvroSchema] = {}

    def named(self, schema: dict[str, Any]) -> AvroSchema:
        name = schema["name"]
        if name in self.defined:
            if self.defined[name] != schema:
                raise SpecViolation("avro.name-clash", f"two different Avro types named {name!r}",
                                    clause=CLAUSE)
            return name
        self.defined[name] = schema
        return schema


def to_avro(t: IcebergType, *, name: str = "r0", namer: _Namer | None = None) -> AvroSchema:
    """The Avro schema of Iceberg type ``t`` (a struct becomes a record named ``name``)."""
    return _to_avro(t, name, namer or _Namer())


def _optional(schema: AvroSchema, required: bool) -> AvroSchema:
    # unknown is Avro null, already nullable: ["null", "null"] is no valid Avro union
    return schema if required or schema == "null" else ["null", schema]


def struct_fields_to_avro(fields: Iterable[NestedField], namer: _Namer) -> list[dict[str, Any]]:
    out = []
    for f in fields:
        field_schema: dict[str, Any] = {
            "name": f.name,
            "type": _optional(_to_avro(f.field_type, f"r{f.field_id}", namer), f.required),
        }
        if f.doc is not None:
            field_schema["doc"] = f.doc
        if not f.required:
            field_schema["default"] = None
        field_schema["field-id"] = f.field_id
        out.append(field_schema)
    return out


def _to_avro(t: IcebergType, name: str, namer: _Namer) -> AvroSchema:
    if isinstance(t, StructType):
        return namer.named({"type": "record", "name": name, "fields": struct_fields_to_avro(t.fields, namer)})
    if isinstance(t, ListType):
        items = _optional(_to_avro(t.element_type, f"r{t.element_id}", namer), t.element_required)
        return {"type": "array", "items": items, "element-id": t.element_id}
    if isinstance(t, MapType):
        value = _optional(_to_avro(t.value_type, f"r{t.value_id}", namer), t.value_required)
        if isinstance(t.key_type, StringType):
            return {"type": "map", "values": value, "key-id": t.key_id, "value-id": t.value_id}
        record = namer.named({
            "type": "record", "name": f"k{t.key_id}_v{t.value_id}",
            "fields": [
                {"name": "key", "type": _to_avro(t.key_type, f"r{t.key_id}", namer), "field-id": t.key_id},
                {"name": "value", "type": value, "field-id": t.value_id},
            ],
        })
        return {"type": "array", "items": record, "logicalType": "map"}
    return _primitive(t, namer)


def _primitive(t: IcebergType, namer: _Namer) -> AvroSchema:
    simple: dict[type, AvroSchema] = {
        BooleanType: "boolean", IntegerType: "int", LongType: "long", FloatType: "float",
        DoubleType: "double", StringType: "string", BinaryType: "bytes", UnknownType: "null",
        GeometryType: "bytes", GeographyType: "bytes",
        DateType: {"type": "int", "logicalType": "date"},
        TimeType: {"type": "long", "logicalType": "time-micros"},
        TimestampType: {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False},
        TimestamptzType: {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True},
        TimestampNanoType: {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": False},
        TimestamptzNanoType: {"type": "long", "logicalType": "timestamp-nanos", "adjust-to-utc": True},
    }
    if type(t) in simple:
        return copy.deepcopy(simple[type(t)])
    if isinstance(t, DecimalType):
        return namer.named({"type": "fixed", "name": f"decimal_{t.precision}_{t.scale}",
                            "size": min_bytes_required(t.precision), "logicalType": "decimal",
                            "precision": t.precision, "scale": t.scale})
    if isinstance(t, UUIDType):
        return namer.named({"type": "fixed", "name": "uuid_fixed", "size": 16, "logicalType": "uuid"})
    if isinstance(t, FixedType):
        return namer.named({"type": "fixed", "name": f"fixed_{t.length}", "size": t.length})
    if isinstance(t, VariantType):
        return namer.named({"type": "record", "name": "variant", "fields": [
            {"name": "metadata", "type": "bytes"}, {"name": "value", "type": "bytes"}]})
    raise SpecViolation("avro.unmapped-type", f"{t}: no Avro mapping", clause=CLAUSE)


# --- Avro schema -> Iceberg type ------------------------------------------------------------

def _strip_null(schema: AvroSchema, where: str) -> tuple[AvroSchema, bool]:
    """(branch, required) of a schema that may be a ``[null, T]`` union."""
    if isinstance(schema, list):
        others = [s for s in schema if s != "null"]
        if len(schema) != 2 or len(others) != 1:
            raise SpecViolation("avro.union", f"{where}: union {json.dumps(schema)} is not [null, T], "
                                "the only union Iceberg allows", clause=CLAUSE)
        return others[0], False
    return schema, schema != "null"  # an unknown (Avro null) field is optional


def _field_id(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, str) and value.lstrip("-").isdigit() and len(value) <= 20:
        value = int(value)  # some writers store ids as strings; the spec says JSON integers
    if not isinstance(value, int) or isinstance(value, bool):
        raise SpecViolation("avro.field-id-missing", f"{where}: no {key} (Iceberg ids must be stored "
                            "in the Avro schema)", clause=CLAUSE_IDS)
    return value


def from_avro(schema: AvroSchema, *, where: str = "", named: dict[str, AvroSchema] | None = None) -> IcebergType:
    """The Iceberg type of an Avro schema (a record becomes a struct). ``where`` locates errors;
    a schema of the wrong JSON shape is ``avro.unreadable`` at the deepest field path reached."""
    try:
        return _from_avro(schema, where, {} if named is None else named)
    except SpecViolation as e:
        if e.where:
            raise
        raise SpecViolation(e.rule, e.detail, clause=e.clause, where=where or "avro.schema") from None
    except RecursionError:
        raise SpecViolation("avro.unreadable", f"{where}: Avro schema nested too deeply", clause=CLAUSE,
                            where=where or "avro.schema") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise SpecViolation("avro.unreadable", f"{where}: malformed Avro schema ({_shape_error(e)})",
                            clause=CLAUSE, where=where or "avro.schema") from None


def _shape_error(e: Exception) -> str:
    if isinstance(e, KeyError):
        return f"no key {e.args[0]!r}" if e.args else "a key is missing"
    return f"{type(e).__name__}: {str(e)[:200]}"


def _from_avro(schema: AvroSchema, where: str, named: dict[str, AvroSchema]) -> IcebergType:
    if isinstance(schema, str) and schema in named:
        schema = named[schema]
    if isinstance(schema, list):
        raise SpecViolation("avro.union", f"{where}: a union is only allowed as [null, T] for an optional "
                            "field, list element or map value", clause=CLAUSE)
    if isinstance(schema, str):
        schema = {"type": schema}
    if isinstance(schema.get("type"), (dict, list)):
        return from_avro(schema["type"], where=where, named=named)
    kind = schema.get("type")
    logical = schema.get("logicalType")
    if "name" in schema and kind in ("record", "fixed", "enum"):
        named.setdefault(schema["name"], schema)
    if kind == "record":
        if schema.get("name") == "variant" or (
                [f.get("name") for f in schema.get("fields", [])] == ["metadata", "value"]
                and not any("field-id" in f for f in schema.get("fields", []))):
            return VariantType()
        fields = []
        for f in schema.get("fields", []):
            fwhere = f"{where}.{f.get('name')}"
            fid = _field_id(f, "field-id", fwhere)
            branch, required = _strip_null(f["type"], fwhere)
            fields.append(NestedField(fid, f["name"], from_avro(branch, where=fwhere, named=named), required,
                                      f.get("doc")))
        return StructType(tuple(fields))
    if kind == "array":
        items = schema["items"]
        if logical == "map":
            rec = named.get(items, items) if isinstance(items, str) else items
            if not isinstance(rec, dict) or rec.get("type") != "record" or len(rec.get("fields", [])) != 2:
                raise SpecViolation("avro.map-array", f"{where}: a map array must hold 2-field records",
                                    clause=CLAUSE)
            named.setdefault(rec["name"], rec)
            k, v = rec["fields"]
            kid = _field_id(k, "field-id", f"{where}.key")
            vid = _field_id(v, "field-id", f"{where}.value")
            kb, kreq = _strip_null(k["type"], f"{where}.key")
            if not kreq:
                raise SpecViolation("avro.map-array", f"{where}: map key must not be nullable", clause=CLAUSE)
            vb, vreq = _strip_null(v["type"], f"{where}.value")
            return MapType(kid, from_avro(kb, where=f"{where}.key", named=named), vid,
                           from_avro(vb, where=f"{where}.value", named=named), vreq)
        eid = _field_id(schema, "element-id", where)
        eb, ereq = _strip_null(items, f"{where}.element")
        return ListType(eid, from_avro(eb, where=f"{where}.element", named=named), ereq)
    if kind == "map":
        kid = _field_id(schema, "key-id", where)
        vid = _field_id(schema, "value-id", where)
        vb, vreq = _strip_null(schema["values"], f"{where}.value")
        return MapType(kid, StringType(), vid, from_avro(vb, where=f"{where}.value", named=named), vreq)
    if kind == "fixed":
        if logical == "decimal":
            return _decimal(schema, where)
        if logical == "uuid":
            return UUIDType()
        return FixedType(int(schema["size"]))
    if kind == "bytes":
        if logical == "decimal":
            return _decimal(schema, where)
        return BinaryType()
    utc = schema.get("adjust-to-utc", False) in (True, "true")
    by_logical: dict[tuple[Any, Any], IcebergType] = {
        ("int", "date"): DateType(), ("long", "time-micros"): TimeType(),
        ("long", "timestamp-micros"): TimestamptzType() if utc else TimestampType(),
        ("long", "timestamp-nanos"): TimestamptzNanoType() if utc else TimestampNanoType(),
        ("string", "uuid"): UUIDType(),
    }
    if (kind, logical) in by_logical:
        return by_logical[(kind, logical)]
    plain: dict[Any, IcebergType] = {
        "boolean": BooleanType(), "int": IntegerType(), "long": LongType(), "float": FloatType(),
        "double": DoubleType(), "string": StringType(), "null": UnknownType(),
    }
    if kind in plain:
        return plain[kind]
    raise SpecViolation("avro.unmapped-type", f"{where}: Avro type {json.dumps(schema)} has no Iceberg type",
                        clause=CLAUSE)


def _decimal(schema: dict[str, Any], where: str) -> IcebergType:
    p, sc = schema.get("precision"), schema.get("scale", 0)
    if (not isinstance(p, int) or isinstance(p, bool) or not 1 <= p <= 38 or not isinstance(sc, int)
            or isinstance(sc, bool) or not 0 <= sc <= p):
        raise SpecViolation("avro.unmapped-type", f"{where}: decimal with precision {json.dumps(p)[:40]} and "
                            f"scale {json.dumps(sc)[:40]} has no Iceberg type (decimal(P,S) needs an integer "
                            "precision 1..38 and 0 <= S <= P)", clause=CLAUSE, where=where or "avro.schema")
    return DecimalType(p, sc)


def strip_logical_types(schema: AvroSchema, drop: tuple[str, ...] = ("logicalType",)) -> AvroSchema:
    """A copy of ``schema`` without ``logicalType`` annotations, so fastavro returns raw
    ints and bytes (the Iceberg physical encoding) instead of converting them (``drop``: the
    attributes left out)."""
    if isinstance(schema, list):
        return [strip_logical_types(s, drop) for s in schema]
    if isinstance(schema, dict):
        out = {k: strip_logical_types(v, drop) for k, v in schema.items() if k not in drop}
        if out.get("type") == "array" and isinstance(out.get("items"), (dict, list, str)):
            out["items"] = strip_logical_types(schema["items"], drop)
        return out
    return schema


def inline_named_types(schema: AvroSchema) -> AvroSchema:
    """A copy of ``schema`` in which each use of a named ``fixed`` or ``enum`` type after its
    definition (a reference by name, as Iceberg Java writes a partition struct holding two
    fields of one decimal type: the second names ``decimal_9_2``) is a definition of its own
    under a new name. The binary encoding does not depend on names, so the values read the same;
    a reader that does not resolve references (Polars) can then decode it."""
    defined: dict[str, dict[str, Any]] = {}
    copies = [0]

    def walk(x: AvroSchema) -> AvroSchema:
        if isinstance(x, list):
            return [walk(s) for s in x]
        if isinstance(x, str):
            named = defined.get(x) or defined.get(x.rsplit(".", 1)[-1])
            if named is None:
                return x
            copies[0] += 1
            return dict(named, name=f"{named['name']}_{copies[0]}")
        if isinstance(x, dict):
            out = {k: walk(v) if k in ("type", "items", "values") else v for k, v in x.items()}
            if isinstance(x.get("fields"), list):
                out["fields"] = [dict(f, type=walk(f["type"])) if isinstance(f, dict) and "type" in f else f
                                 for f in x["fields"]]
            if out.get("type") in ("fixed", "enum") and isinstance(out.get("name"), str):
                full = f"{out['namespace']}.{out['name']}" if isinstance(out.get("namespace"), str) else out["name"]
                defined.setdefault(full, out)
                defined.setdefault(out["name"], out)
            return out
        return x

    return walk(schema)


# --- values ---------------------------------------------------------------------------------

@singledispatch
def decode_value(t: IcebergType, raw: Any) -> Any:
    """The reference's physical value (see ``reference.values``) of a raw Avro-decoded value."""
    return raw


@decode_value.register
def _(t: DecimalType, raw: Any) -> Any:
    return scaled(int.from_bytes(raw, "big", signed=True), t.scale)


@decode_value.register
def _(t: UUIDType, raw: Any) -> Any:
    return uuid.UUID(bytes=bytes(raw)) if isinstance(raw, (bytes, bytearray)) else uuid.UUID(str(raw))


@singledispatch
def encode_value(t: IcebergType, value: Any) -> Any:
    """The raw Avro value (for a schema without logical types) of a physical value."""
    return value


@encode_value.register
def _(t: DecimalType, value: Any) -> Any:
    unscaled_value = unscaled(Decimal(value).quantize(scaled(1, t.scale), context=Context(prec=80)))
    return unscaled_value.to_bytes(min_bytes_required(t.precision), "big", signed=True)


@encode_value.register
def _(t: UUIDType, value: Any) -> Any:
    return value.bytes if isinstance(value, uuid.UUID) else uuid.UUID(str(value)).bytes


# --- object container files -------------------------------------------------------------------

MAGIC = b"Obj\x01"
DEFAULT_SYNC = bytes(range(16))


def _zigzag(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = z & 0x7F
        z >>= 7
        if z:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _avro_bytes(b: bytes) -> bytes:
    return _zigzag(len(b)) + b


def _header_bytes(meta: dict[str, bytes]) -> bytes:
    """The header of an object container file up to its sync marker: magic and ``meta``."""
    out = bytearray(MAGIC) + _zigzag(len(meta))
    for k, v in meta.items():
        out += _avro_bytes(k.encode()) + _avro_bytes(v)
    return bytes(out + _zigzag(0))


def write_container(
    out: BinaryIO,
    schema: AvroSchema,
    records: Iterable[dict[str, Any]],
    metadata: dict[str, str],
    *,
    codec: str = "null",
    sync: bytes = DEFAULT_SYNC,
    block_bytes: int | None = None,
) -> None:
    """Write an Avro object container file: header (``avro.schema``, ``avro.codec``, then
    ``metadata`` in the given order), the records in one data block (or, with ``block_bytes``,
    a new block whenever the encoded records reach that many bytes, as Avro's Java writer does
    with its sync interval), fixed ``sync`` marker. Records hold raw values for ``schema``
    without logical types (see :func:`encode_value`). Same input, same bytes."""
    if len(sync) != 16:
        raise ValueError("an Avro sync marker is 16 bytes")
    if codec not in ("null", "deflate"):
        raise ValueError(f"codec {codec!r}: only null and deflate are written")
    parsed = fastavro.parse_schema(strip_logical_types(schema), _write_hint=False)
    header = {"avro.schema": json.dumps(schema, separators=(",", ":")), "avro.codec": codec, **metadata}
    out.write(_header_bytes({k: v.encode() for k, v in header.items()}))
    out.write(sync)

    def flush(body: io.BytesIO, count: int) -> None:
        data = body.getvalue()
        if codec == "deflate":
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            data = c.compress(data) + c.flush()
        out.write(_zigzag(count))
        out.write(_zigzag(len(data)))
        out.write(data)
        out.write(sync)
    body = io.BytesIO()
    count = 0
    for r in records:
        fastavro.schemaless_writer(body, parsed, r)
        count += 1
        if block_bytes is not None and body.tell() >= block_bytes:
            flush(body, count)
            body, count = io.BytesIO(), 0
    if count:
        flush(body, count)


MAX_FILE_BYTES = 1 << 30
"""The largest fixed size an Avro schema may declare."""


def _read_long(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise SpecViolation("avro.unreadable", f"truncated or malformed varint at byte {pos}", clause=CLAUSE,
                                where=f"byte {pos}")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return (result >> 1) ^ -(result & 1), pos


def _read_header(data: bytes) -> tuple[dict[str, bytes], int]:
    """(header metadata, offset of the sync marker) of an Avro object container file."""
    if data[:4] != MAGIC:
        raise SpecViolation("avro.unreadable", "not an Avro object container file (no Obj\\x01 magic)",
                            clause=CLAUSE, where="byte 0")
    pos = 4
    meta: dict[str, bytes] = {}
    while True:
        count, pos = _read_long(data, pos)
        if count == 0:
            break
        if count < 0:
            count = -count
            _, pos = _read_long(data, pos)
        for _ in range(count):
            klen, pos = _read_long(data, pos)
            if klen < 0 or pos + klen > len(data):
                raise SpecViolation("avro.unreadable", f"header key overruns the file at byte {pos}", clause=CLAUSE,
                                    where=f"header, byte {pos}")
            key = data[pos:pos + klen].decode("utf-8", "replace")
            pos += klen
            vlen, pos = _read_long(data, pos)
            if vlen < 0 or pos + vlen > len(data):
                raise SpecViolation("avro.unreadable", f"header value {key!r} overruns the file at byte {pos}",
                                    clause=CLAUSE, where=f"header {key}, byte {pos}")
            meta[key] = data[pos:pos + vlen]
            pos += vlen
    if "avro.schema" not in meta:
        raise SpecViolation("avro.unreadable", "the Avro header has no avro.schema", clause=CLAUSE,
                            where=f"header, bytes 4..{pos}")
    return meta, pos


def _header_json(header: dict[str, bytes], key: str) -> Any:
    try:
        return json.loads(header[key].decode("utf-8"))
    except RecursionError:
        raise SpecViolation("avro.unreadable", f"header {key} is JSON nested too deeply", clause=CLAUSE,
                            where=f"header {key}") from None
    except ValueError as e:  # UnicodeDecodeError, JSONDecodeError, the int-digits limit
        raise SpecViolation("avro.unreadable", f"header {key} is not JSON: {str(e)[:200]}", clause=CLAUSE,
                            where=f"header {key}") from None


def _check_writer_schema(schema: Any, where: str = "avro.schema", depth: int = 0) -> None:
    """The shape fastavro needs before it is handed ``schema`` (it raises arbitrary exceptions
    on the wrong JSON shapes): names strings, record ``fields`` lists of objects with a name and
    a type, no two fields of a record of one name, array ``items``, map ``values``, fixed
    ``size``, enum ``symbols``."""
    # A logical type is not checked here: Avro readers ignore an invalid one (a decimal without
    # precision reads as its bytes); from_avro refuses it where an Iceberg type is wanted.
    def bad(msg: str) -> SpecViolation:
        return SpecViolation("avro.unreadable", f"{where}: {msg}", clause=CLAUSE, where=where)
    if depth > 200:
        raise bad("Avro schema nested too deeply")
    if isinstance(schema, str):
        return
    if isinstance(schema, list):
        for i, branch in enumerate(schema):
            _check_writer_schema(branch, f"{where}[{i}]", depth + 1)
        return
    if not isinstance(schema, dict):
        raise bad(f"a schema is a string, an object or a union array, not {json.dumps(schema)[:80]}")
    kind = schema.get("type")
    if isinstance(kind, (dict, list)):
        _check_writer_schema(kind, where, depth + 1)
        return
    if not isinstance(kind, str):
        raise bad(f"type is {json.dumps(kind)[:80]}, not a string")
    if kind in ("record", "error", "enum", "fixed") and not isinstance(schema.get("name"), str):
        raise bad(f"a {kind} needs a string name")
    if kind in ("record", "error"):
        fields = schema.get("fields")
        if not isinstance(fields, list):
            raise bad(f"record fields is {json.dumps(fields)[:80]}, not a list")
        names: set[str] = set()
        for i, f in enumerate(fields):
            fname = f.get("name") if isinstance(f, dict) else None
            if not isinstance(fname, str) or "type" not in f:
                raise bad(f"field {i} is not an object with a string name and a type")
            if fname in names:  # a reader could not tell which value is which field's
                raise bad(f"record {schema['name'][:80]!r} has two fields named {fname[:80]!r}")
            names.add(fname)
            _check_writer_schema(f["type"], f"{where}.{fname}", depth + 1)
    elif kind == "array":
        if "items" not in schema:
            raise bad("an array needs items")
        _check_writer_schema(schema["items"], f"{where}.element", depth + 1)
    elif kind == "map":
        if "values" not in schema:
            raise bad("a map needs values")
        _check_writer_schema(schema["values"], f"{where}.value", depth + 1)
    elif kind == "fixed":
        size = schema.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size < MAX_FILE_BYTES:
            raise bad(f"fixed size {json.dumps(size)[:80]} is not a non-negative integer")
    elif kind == "enum":
        symbols = schema.get("symbols")
        if not isinstance(symbols, list) or not all(isinstance(x, str) for x in symbols):
            raise bad("enum symbols must be a list of strings")


MAX_HEADER_BYTES = 64 << 20
"""The largest Avro header (magic, metadata map, sync marker) the reader takes."""
MAX_BLOCK_BYTES = 64 << 20
"""The largest data block the reader takes, stored or decompressed (a kit limit: Iceberg's writers
flush a block at about 64 KB of records, so this is a thousand times what a real file holds)."""
_CHUNK = 1 << 20
_T = TypeVar("_T")

#: what this module (and :mod:`reference.manifests`) keeps of a table's files by their text is
#: kept only for texts of at most this many bytes (a header may hold 64 MiB)
CACHED_TEXT_BYTES = 1 << 20


def cached(fn: Callable[..., _T], *texts: bytes | str) -> Callable[..., _T]:
    """``fn`` (an ``lru_cache``'d function) when ``texts`` are small enough to keep, else the
    function it wraps, which keeps nothing."""
    if sum(len(t) for t in texts) <= CACHED_TEXT_BYTES:
        return fn
    return fn.__wrapped__  # type: ignore[attr-defined, no-any-return]


def _bounded_decompress(codec: bytes, data: bytes, where: str) -> bytes:
    """One data block decompressed, never to more than :data:`MAX_BLOCK_BYTES` (a block that
    would is refused mid-way, so a decompression bomb costs at most that much memory)."""
    cap = MAX_BLOCK_BYTES

    def over() -> SpecViolation:
        return SpecViolation("avro.size-limit", f"a {codec.decode()} block decompresses to more than "
                             f"{cap} bytes; refused", clause=CLAUSE, where=where)
    try:
        if codec == b"deflate":
            d = zlib.decompressobj(-15)
            out = d.decompress(data, cap + 1)
            if len(out) > cap:
                raise over()
            if not d.eof:
                raise SpecViolation("avro.unreadable", "deflate block is truncated", clause=CLAUSE, where=where)
            return out
        if codec == b"zstandard":
            import zstandard
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as r:
                out = r.read(cap + 1)
            if len(out) > cap:
                raise over()
            return out
        if codec in (b"bzip2", b"xz"):
            import bz2
            import lzma
            dec: Any = bz2.BZ2Decompressor() if codec == b"bzip2" else lzma.LZMADecompressor()
            out = dec.decompress(data, cap + 1)
            if len(out) > cap:
                raise over()
            if not dec.eof:
                raise SpecViolation("avro.unreadable", f"{codec.decode()} block is truncated", clause=CLAUSE,
                                    where=where)
            return bytes(out)
        if codec == b"lz4":  # fastavro's lz4 codec: an LZ4 block with a 4-byte little-endian size
            import lz4.block
            if len(data) < 4 or int.from_bytes(data[:4], "little") > cap:
                raise over() if len(data) >= 4 else SpecViolation(
                    "avro.unreadable", "lz4 block is truncated", clause=CLAUSE, where=where)
            return bytes(lz4.block.decompress(data))
        if codec == b"snappy":  # Avro's snappy block: raw snappy, then a CRC32 of the result
            try:
                import cramjam
            except ImportError:
                raise SpecViolation("avro.unreadable", "snappy blocks need the cramjam package, which is "
                                    "not installed", clause=CLAUSE, where=where) from None
            size, shift, i = 0, 0, 0
            while i < min(len(data), 5):
                size |= (data[i] & 0x7F) << shift
                shift += 7
                i += 1
                if not data[i - 1] & 0x80:
                    break
            if size > cap:
                raise over()
            out = bytes(cramjam.snappy.decompress_raw(data[:-4]))
            if zlib.crc32(out) != int.from_bytes(data[-4:], "big"):
                raise SpecViolation("avro.unreadable", "snappy block CRC32 does not match", clause=CLAUSE,
                                    where=where)
            return out
    except SpecViolation:
        raise
    except Exception as e:  # noqa: BLE001 - a codec library's error on corrupt input
        raise SpecViolation("avro.unreadable", f"{codec.decode()} block does not decompress: "
                            f"{type(e).__name__}: {str(e)[:200]}", clause=CLAUSE, where=where) from None
    return data  # null


class _Blocks:
    """The data blocks of an open container, read one at a time from the file: each block's
    declared sizes are checked against the file and :data:`MAX_BLOCK_BYTES` before it is read,
    its sync marker against the header's, and it is decompressed with a cap. ``offsets[i]`` is
    the byte offset of block ``i`` in the file."""

    def __init__(self, f: BinaryIO, size: int, body_at: int, sync: bytes, codec: bytes) -> None:
        self.f, self.size, self.pos, self.sync, self.codec = f, size, body_at, sync, codec
        self.offsets: list[int] = []
        #: the records the blocks read so far declare
        self.records = 0
        self._buf, self._buf_at = b"", body_at

    def _take(self, n: int) -> bytes:
        """The next ``n`` bytes of the file (fewer at its end)."""
        while len(self._buf) < n:
            more = self.f.read(max(_CHUNK, n - len(self._buf)))
            if not more:
                break
            self._buf += more
        out, self._buf = self._buf[:n], self._buf[n:]
        self.pos += len(out)
        return out

    def _long(self, what: str, block: int) -> int:
        shift = result = 0
        while True:
            b = self._take(1)
            if not b or shift > 63:
                raise SpecViolation("avro.unreadable", f"block {block}: {what} is a truncated or malformed "
                                    f"varint at byte {self.pos}", clause=CLAUSE,
                                    where=f"block {block} (near byte {self.pos})")
            result |= (b[0] & 0x7F) << shift
            shift += 7
            if not b[0] & 0x80:
                return (result >> 1) ^ -(result & 1)

    def bodies(self) -> Iterator[tuple[int, bytes]]:
        """(declared record count, decompressed data) of each block, checked as described above."""
        n = 0
        while True:
            at = self.pos
            if not self._buf and not (more := self.f.read(_CHUNK)):
                return
            if not self._buf:
                self._buf = more
            where = f"block {n} (near byte {at})"
            count = self._long("the record count", n)
            length = self._long("the byte length", n)
            if count < 0 or length < 0:
                raise SpecViolation("avro.unreadable", f"block {n}: negative record count or length "
                                    f"({count}, {length})", clause=CLAUSE, where=where)
            if length > self.size - self.pos:
                raise SpecViolation("avro.unreadable", f"block {n} declares {length} bytes but the file has "
                                    f"{self.size - self.pos} left", clause=CLAUSE, where=where)
            if length > MAX_BLOCK_BYTES:
                raise SpecViolation("avro.size-limit", f"block {n} is {length} bytes, over the reader's limit "
                                    f"of {MAX_BLOCK_BYTES}", clause=CLAUSE, where=where)
            data = self._take(length)
            if self._take(16) != self.sync:
                raise SpecViolation("avro.unreadable", f"block {n}: the sync marker after it differs from the "
                                    "header's", clause=CLAUSE, where=f"block {n} (near byte {self.pos})")
            body = _bounded_decompress(self.codec, data, where)
            self.offsets.append(at)
            self.records += count
            yield count, body
            n += 1

    def __iter__(self) -> Iterator[bytes]:
        for count, body in self.bodies():
            yield _zigzag(count) + _zigzag(len(body)) + body + self.sync


def with_header(data: bytes, replace: dict[str, bytes]) -> bytes:
    """The object container file ``data`` with the header metadata values of ``replace`` (e.g.
    another ``avro.schema``); the sync marker and the data blocks are kept byte for byte."""
    meta, body_at = _read_header(data)
    return _header_bytes({**meta, **replace}) + data[body_at:]


def _read_header_of(f: BinaryIO, size: int) -> tuple[dict[str, bytes], int]:
    """The header of an open container: read a little first, more only if the header needs it."""
    data = f.read(min(size, _CHUNK))
    try:
        return _read_header(data)
    except SpecViolation:
        if len(data) >= size:
            raise
    data += f.read(min(size, MAX_HEADER_BYTES) - len(data))
    if len(data) >= MAX_HEADER_BYTES and size > MAX_HEADER_BYTES:
        try:
            return _read_header(data)
        except SpecViolation:
            raise SpecViolation("avro.size-limit", f"the Avro header is larger than the reader's limit of "
                                f"{MAX_HEADER_BYTES} bytes", clause=CLAUSE, where="header") from None
    return _read_header(data)


def read_container(path: str) -> tuple[AvroSchema, dict[str, str], list[dict[str, Any]]]:
    """(writer schema, header metadata without ``avro.*`` keys, raw records) of an Avro file."""
    writer_schema, meta, records = iter_container(path)
    return writer_schema, meta, list(records)


def read_container_text(path: str) -> tuple[bytes, AvroSchema, dict[str, str], list[dict[str, Any]]]:
    """:func:`read_container`, with the text of the writer schema as the header holds it first."""
    text, writer_schema, meta, records = iter_container_text(path)
    return text, writer_schema, meta, list(records)


def iter_container(path: str) -> tuple[AvroSchema, dict[str, str], Iterable[dict[str, Any]]]:
    """(writer schema, header metadata without ``avro.*`` keys, raw records as they are read) of
    an Avro file; the file stays open until the records are exhausted.

    Records are decoded without logical-type conversion. Raises ``SpecViolation``
    (``avro.unreadable``) for a file that is not an Avro object container, located: the byte
    offset in the header, ``header avro.schema`` and the field path for a schema of the wrong
    shape, the block number, its byte offset and the record for a body that does not decode.
    The file is streamed a block at a time: its memory is bounded by the largest block
    (:data:`MAX_BLOCK_BYTES`, ``avro.size-limit``), never by the file's size."""
    return iter_container_text(path)[1:]


def iter_container_text(path: str) -> tuple[bytes, AvroSchema, dict[str, str], Iterable[dict[str, Any]]]:
    """:func:`iter_container`, with the text of the writer schema as the header holds it first
    (equal texts are equal schemas: a key for what is made of a schema)."""
    f, writer_schema, meta, _head, blocks, (text, rebuilt) = _open_rebuilt(path)
    try:
        parsed = _fastavro_schema(rebuilt)
    except BaseException:
        f.close()
        raise
    return text, writer_schema, meta, _records(f, parsed, blocks)


def container_bytes(path: str, limit: int) -> tuple[AvroSchema, dict[str, str], bytes, int] | None:
    """(writer schema, header metadata without ``avro.*`` keys, the whole container rebuilt as
    :func:`iter_container` streams it: codec null, logical types removed from the schema, blocks
    decompressed and checked, the number of records its blocks declare) for a reader that decodes
    a container at once, such as a columnar one; field defaults are left out of the schema too (a
    reader of the writer's schema never uses them, and Polars rejects some), and named fixed and
    enum types are defined at each use (:func:`inline_named_types`: Polars does not resolve a
    reference by name). ``None`` when the rebuilt file would exceed ``limit`` bytes (read it as a stream
    instead). Raises ``SpecViolation`` as :func:`iter_container` does for the header and blocks."""
    f, writer_schema, meta, head, blocks, _ = _open_rebuilt(path, ("logicalType", "default"), inline=True)
    with f:
        parts, size = [], 0
        for part in _chain(head, blocks):
            size += len(part)
            if size > limit:
                return None
            parts.append(part)
    return writer_schema, meta, b"".join(parts), blocks.records


class SharedBlocks:
    """Files of records decoded before, kept (the ``keep`` most recent) so that a file whose
    records end with the bytes of one of them decodes only the records before that tail: a
    table's manifest lists each repeat the records of the list before them. A file's blocks are
    read as one run of records (a writer cuts its blocks by size, so the blocks of two lists
    repeating each other need not line up) when every block ends where a record does, as a
    writer writes them. Records decoded from equal bytes with the same writer schema are equal;
    here they are the same objects."""

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        #: (schema text, byte length, record count) -> (the records' bytes, the records, how far
        #: from the end of those bytes each record ends: the same for the records of a tail in
        #: every file ending with it)
        self._tails: OrderedDict[tuple[bytes, int, int], tuple[bytes, list[Any], array[int]]] = OrderedDict()
        #: of the file decoded last that ended with a kept one: (that one's records, the number of
        #: records in front of them); None when the file decoded last ended with none
        self.last_tail: tuple[list[Any], int] | None = None
        #: what a reader made of the records of a kept file (by the id of its records list, the
        #: list kept too), so that a later file ending with it reuses it (see :meth:`derived`)
        self._derived: OrderedDict[int, tuple[list[Any], Any]] = OrderedDict()

    def derived(self, records: list[Any]) -> Any:
        """What :meth:`derive` stored for the records list ``records`` (None: nothing)."""
        got = self._derived.get(id(records))
        return got[1] if got is not None and got[0] is records else None

    def derive(self, records: list[Any], value: Any) -> None:
        """Store ``value`` as what the records list ``records`` (a file's, as :meth:`decode`
        returned it) was made into; the ``keep`` most recent are kept."""
        self._derived[id(records)] = (records, value)
        self._derived.move_to_end(id(records))
        if len(self._derived) > self.keep:
            self._derived.popitem(last=False)

    def decode(self, text: bytes, parts: list[tuple[int, bytes]]) -> tuple[list[Any], bool]:
        """The records of a file's blocks ``parts`` ((declared record count, decompressed data)
        of each, for the rebuilt writer schema ``text``), and whether they ended with the
        records of a file kept here (then only the records before that tail were decoded).
        Otherwise each block is decoded by itself, as a block reader does. Raises what fastavro
        raises for records that do not decode (read the file with :func:`iter_container` to be
        told where)."""
        schema = _fastavro_schema(text)
        count = sum(c for c, _ in parts)
        body = parts[0][1] if len(parts) == 1 else b"".join(b for _, b in parts)
        size = len(body)
        for key, (t_body, t_records, t_back) in reversed(self._tails.items()):
            t_text, t_size, t_count = key
            if t_text != text or t_size > size or t_count > count or not body.endswith(t_body):
                continue
            got = _front_records(parts, schema, size - t_size, count - t_count)
            if got is None:
                continue  # the records in front do not end where the tail begins
            out, ends = got
            back = array("q", [size - e for e in ends])
            back.extend(t_back)  # the tail's records end as far from the end as they did
            if not _blocks_end_with_records(parts, back):
                continue  # this file's blocks are not one run of these records
            self._tails.move_to_end(key)
            out.extend(t_records)
            self._keep(text, count, body, out, back)
            self.last_tail = (t_records, count - t_count)
            return out, True
        self.last_tail = None
        out, ends, whole = [], [], True
        at = 0
        for i, (c, b) in enumerate(parts):
            stream = io.BytesIO(b)
            for _ in range(c):
                out.append(fastavro.schemaless_reader(stream, schema, None))
                ends.append(at + stream.tell())
            whole = whole and (stream.tell() == len(b) or i == len(parts) - 1)
            at += len(b)
        if whole and out:  # every block but the last ends where its records do: one run of records
            self._keep(text, count, body, out, array("q", [size - e for e in ends]))
        return out, False

    def _keep(self, text: bytes, count: int, body: bytes, records: list[Any], back: array[int]) -> None:
        self._tails[(text, len(body), count)] = (body, records, back)
        if len(self._tails) > self.keep:
            self._tails.popitem(last=False)


def _front_records(parts: list[tuple[int, bytes]], schema: Any, front: int, wanted: int
                   ) -> tuple[list[Any], list[int]] | None:
    """The ``wanted`` records in the first ``front`` bytes of the blocks ``parts`` and where each
    ends, each block decoded by itself from its start as a block reader decodes it (never across
    its end); None unless they end exactly at ``front`` and every block wholly in front holds
    exactly its declared records."""
    out: list[Any] = []
    ends: list[int] = []
    at = 0
    for c, b in parts:
        if at >= front:
            break
        limit = min(len(b), front - at)
        stream = io.BytesIO(b)
        k = 0
        while k < c and stream.tell() < limit:
            out.append(fastavro.schemaless_reader(stream, schema, None))
            ends.append(at + stream.tell())
            k += 1
        if stream.tell() != limit or (limit == len(b) and k != c):
            return None
        at += len(b)
    return (out, ends) if len(out) == wanted else None


def _blocks_end_with_records(parts: list[tuple[int, bytes]], back: array[int]) -> bool:
    """Whether each block of ``parts`` but the last ends where its last record does, the records
    ending ``back`` bytes before the end of the blocks' data (so decoding the blocks one by one
    gives the same records)."""
    size = sum(len(b) for _, b in parts)
    at = seen = 0
    for c, b in parts[:-1]:
        at, seen = at + len(b), seen + c
        if (size - back[seen - 1] if seen else 0) != at:
            return False
    return True


def read_container_shared(path: str, shared: SharedBlocks
                          ) -> tuple[AvroSchema, dict[str, str], list[Any], bool, bytes]:
    """:func:`read_container` with the records decoded through ``shared`` (see
    :class:`SharedBlocks`), whether they ended with those of a file read before, and the text of
    the writer schema as the header holds it. Raises ``SpecViolation`` for the header and the
    blocks as :func:`iter_container` does, and ValueError (or fastavro's errors) for records
    that do not decode: the caller then reads the file with :func:`read_container`, which says
    where."""
    shared.last_tail = None
    f, writer_schema, meta, head, blocks, (own, text) = _open_rebuilt(path)
    with f:
        parts: list[tuple[int, bytes]] = []
        held = 0
        bodies = blocks.bodies()
        for part in bodies:
            parts.append(part)
            held += len(part[1])
            if held > MAX_BLOCK_BYTES:
                break
        else:
            # the records list as kept (the caller does not change it)
            records, tail = shared.decode(text, parts)
            return writer_schema, meta, records, tail, own
        # more than a block's limit in all: each block decoded by itself as it is read, nothing
        # kept (so the memory stays that of a block or two, as a block reader's)
        schema = _fastavro_schema(text)
        records = []
        while parts:
            c, b = parts.pop(0)
            records += _block_records(schema, c, b)
        for c, b in bodies:
            records += _block_records(schema, c, b)
    return writer_schema, meta, records, False, own


def _block_records(schema: Any, count: int, body: bytes) -> list[Any]:
    stream = io.BytesIO(body)
    return [fastavro.schemaless_reader(stream, schema, None) for _ in range(count)]


def _rebuilt_schema(text: bytes | None, drop: tuple[str, ...], inline: bool) -> tuple[AvroSchema, bytes]:
    """(the writer schema of header value ``text``, checked; the schema a rebuilt header carries:
    without the attributes in ``drop``, with ``inline`` named types defined at each use). The
    files of one table share a few schemas: each is checked and rebuilt once
    (:func:`_rebuilt_schema_of`), and the writer schema is parsed again for every caller."""
    if text is None:
        _header_json({}, "avro.schema")  # raises KeyError as before: reported by the caller
    assert text is not None
    rebuilt = cached(_rebuilt_schema_of, text)(text, drop, inline)
    return json.loads(text.decode("utf-8")), rebuilt


@lru_cache(maxsize=32)
def _rebuilt_schema_of(text: bytes, drop: tuple[str, ...], inline: bool) -> bytes:
    writer_schema = _header_json({"avro.schema": text}, "avro.schema")
    _check_writer_schema(writer_schema)
    try:
        stripped = strip_logical_types(writer_schema, drop)
        return json.dumps(inline_named_types(stripped) if inline else stripped).encode()
    except (RecursionError, ValueError):
        raise SpecViolation("avro.unreadable", "avro.schema nested too deeply", clause=CLAUSE,
                            where="header avro.schema") from None


def _open_rebuilt(path: str, drop: tuple[str, ...] = ("logicalType",), inline: bool = False
                  ) -> tuple[BinaryIO, AvroSchema, dict[str, str], bytes, _Blocks, tuple[bytes, bytes]]:
    """The open file, its writer schema and metadata, the rebuilt header (its schema without the
    attributes in ``drop``; with ``inline``, named types defined at each use), its blocks, and
    the texts of the writer schema and of the rebuilt one."""
    try:
        f = open_regular(path)
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise SpecViolation("avro.unreadable", f"{path!r}: {getattr(e, 'strerror', None) or e}", clause=CLAUSE,
                            where="byte 0") from None
    try:
        size = f.seek(0, io.SEEK_END)
        f.seek(0)
        header, body_at = _read_header_of(f, size)
        writer_schema, rebuilt_schema = _rebuilt_schema(header.get("avro.schema"), drop, inline)
        codec = header.get("avro.codec", b"null")
        if codec not in (b"null", b"deflate", b"snappy", b"zstandard", b"bzip2", b"xz", b"lz4"):
            raise SpecViolation("avro.unreadable", f"unknown codec {codec[:40]!r}", clause=CLAUSE,
                                where="header avro.codec")
        meta = {}
        for k, v in header.items():
            try:  # Avro's metadata values are bytes; fastavro reads them as UTF-8 text
                text_value = v.decode("utf-8")
            except UnicodeDecodeError as e:
                raise SpecViolation("avro.unreadable", f"header metadata {k!r} is not UTF-8 text: {e}",
                                    clause=CLAUSE, where=f"header {k}") from None
            if not k.startswith("avro."):
                meta[k] = text_value
        # fastavro reads a rebuilt stream: the header with logical types removed from the schema (so
        # values come back in their physical encoding: days, micros, unscaled bytes) and codec null,
        # then the blocks as this module decompressed them.
        texts = (header["avro.schema"], rebuilt_schema)
        head = io.BytesIO()
        items = tuple(header.items())
        head.write(cached(_rebuilt_header, rebuilt_schema, *(v for _, v in items))(items, rebuilt_schema))
        f.seek(body_at)
        sync = f.read(16)
        if len(sync) != 16:
            raise SpecViolation("avro.unreadable", "the file ends inside the header's sync marker", clause=CLAUSE,
                                where=f"byte {body_at}")
        head.write(sync)
        blocks = _Blocks(f, size, body_at + 16, sync, codec)
    except BaseException:
        f.close()
        raise
    return f, writer_schema, meta, head.getvalue(), blocks, texts


@lru_cache(maxsize=32)
def _rebuilt_header(header: tuple[tuple[str, bytes], ...], schema: bytes) -> bytes:
    """The header bytes fastavro reads: ``header`` with the rebuilt ``schema`` and codec null (a
    table's files repeat a few headers: each is encoded once)."""
    rebuilt = dict(header)
    rebuilt["avro.schema"] = schema
    rebuilt["avro.codec"] = b"null"
    return _header_bytes(rebuilt)


def _chain(head: bytes, blocks: _Blocks) -> Iterable[bytes]:
    yield head
    yield from blocks


def _fastavro_schema(text: bytes) -> Any:
    """fastavro's parsed form of a rebuilt writer schema (:func:`_parsed_text`, once per text)."""
    try:
        return cached(_parsed_text, text)(text)
    except Exception as e:  # noqa: BLE001 - fastavro's schema parser raises anything
        raise SpecViolation("avro.unreadable", f"avro.schema does not parse: {type(e).__name__}: "
                            f"{str(e)[:200]}", clause=CLAUSE, where="header avro.schema") from None


@lru_cache(maxsize=32)
def _parsed_text(text: bytes) -> Any:
    return fastavro.parse_schema(json.loads(text))  # marked parsed: the reader takes it as it is


def _records(f: BinaryIO, parsed: Any, blocks: _Blocks) -> Iterable[dict[str, Any]]:
    block_no, in_block = 0, 0
    with f:
        try:
            for count, body in blocks.bodies():
                stream = io.BytesIO(body)
                for in_block in range(count):  # the record being decoded, should it fail
                    r = fastavro.schemaless_reader(stream, parsed, None)
                    if isinstance(r, dict):
                        yield r
                block_no, in_block = block_no + 1, 0
        except SpecViolation:
            raise
        except Exception as e:  # noqa: BLE001 - any decoding failure is reported as a violation
            at = blocks.offsets[block_no] if block_no < len(blocks.offsets) else blocks.pos
            raise SpecViolation("avro.unreadable", f"data block {block_no} does not decode: {type(e).__name__}: "
                                f"{str(e)[:200]}", clause=CLAUSE,
                                where=f"block {block_no} (near byte {at}), record {in_block}") from None


# --- Avro data files against the table's schemas --------------------------------------------

CLAUSE_MAPPING = "Appendix A: Format-specific Requirements / Avro / Data Type Mappings"
CLAUSE_DECIMAL = CLAUSE_MAPPING + " (decimal(P,S): stored as fixed using the minimum number of bytes)"
CLAUSE_MAP_KEYS = CLAUSE_MAPPING + " (maps with non-string keys use the array representation)"


def _shape(schema: AvroSchema) -> dict[str, Any]:
    """The attributes of a primitive Avro schema that Appendix A's mapping names."""
    s = {"type": schema} if isinstance(schema, str) else schema
    utc = s.get("adjust-to-utc")
    return {"type": s.get("type"), "logicalType": s.get("logicalType"), "size": s.get("size"),
            "precision": s.get("precision"), "scale": s.get("scale", 0) if s.get("logicalType") == "decimal" else None,
            "adjust-to-utc": utc in (True, "true") if utc is not None else None}


def _show(schema: AvroSchema) -> str:
    s = {"type": schema} if isinstance(schema, str) else schema
    keep = ("type", "logicalType", "size", "precision", "scale", "adjust-to-utc")
    return json.dumps({k: s[k] for k in keep if k in s} if isinstance(s, dict) else s)


def primitive_problem(t: IcebergType, schema: AvroSchema) -> tuple[str, str] | None:
    """(rule, why) when the primitive Avro schema ``schema`` is not Appendix A's Avro type of
    Iceberg type ``t`` (:func:`to_avro`), else None. A timestamp without ``adjust-to-utc`` is
    not adjusted to UTC (the attribute's absence reads as ``false``)."""
    want, got = _shape(_primitive(t, _Namer())), _shape(schema)
    if want["adjust-to-utc"] is False and got["adjust-to-utc"] is None:
        got["adjust-to-utc"] = False
    if want == got:
        return None
    expected = _show(_primitive(t, _Namer()))
    if isinstance(t, DecimalType) and (got["type"], got["logicalType"], got["precision"], got["scale"]) == \
            ("fixed", "decimal", t.precision, t.scale) and isinstance(got["size"], int):
        if got["size"] >= min_bytes_required(t.precision):
            return ("avro.decimal-fixed-size", f"{t}: fixed of {got['size']} bytes; decimal({t.precision},{t.scale}) "
                    f"is stored in the minimum number of bytes for its precision, {min_bytes_required(t.precision)}")
    return ("avro.type-mapping", f"{t}: expected {expected}, found {_show(schema)}")


def check_data_schema(schema: AvroSchema, fields: dict[int, list[tuple[str, IcebergType, bool]]], *,
                      file: str = "", name_mapping: bool = False) -> list[Finding]:
    """Findings for the writer schema of an Avro data or delete file against the table's
    fields by id (``fields``: :func:`reference.parquet.index_fields`): the ids Appendix A puts in
    the schema (``field-id`` of record fields and of the key and value of a map array,
    ``element-id``, ``key-id``, ``value-id``), unions only as ``[null, T]``, map arrays of
    2-field records with a non-null key, maps with non-string keys as arrays, and each
    primitive's Avro type and logical type per the mapping table. A column whose id had several
    types (promotion) may carry any of them. An optional table column may be written as a
    non-union (the writer knew it held no null); a required one as a union (its nulls are
    checked against the data). Without ids a reader needs the table's name mapping, so a
    missing id is information then."""
    out: list[Finding] = []
    named: dict[str, AvroSchema] = {}

    def add(rule: str, msg: str, clause: str, where: str) -> None:
        out.append(Finding(rule, msg, clause, file, where))

    def resolve(s: AvroSchema) -> AvroSchema:
        if isinstance(s, str) and s in named:
            return named[s]
        if isinstance(s, dict):
            if isinstance(s.get("type"), (dict, list)) and len(s) == 1:
                return resolve(s["type"])
            if isinstance(s.get("name"), str) and s.get("type") in ("record", "fixed", "enum"):
                named.setdefault(s["name"], s)
        return s

    def with_id(holder: dict[str, Any], key: str, s: AvroSchema, here: str) -> None:
        raw = holder.get(key)
        if isinstance(raw, str) and raw.lstrip("-").isdigit() and len(raw) <= 20:
            raw = int(raw)
        if not isinstance(raw, int) or isinstance(raw, bool):
            add("avro.field-id-missing-mapped" if name_mapping else "avro.field-id-missing",
                f"{here!r} has no {key}", CLAUSE_IDS, here)
            return
        if isinstance(s, list):
            others = [b for b in s if b != "null"]
            if len(s) != 2 or len(others) != 1:
                add("avro.union", f"{here!r}: union {json.dumps(s)[:200]} is not [null, T], the only union "
                    "Iceberg allows", CLAUSE_MAPPING, here)
                return
            s = others[0]
        known = fields.get(raw)
        if known is None:
            return  # an id no schema of the table has: never read (reported nowhere, as for Parquet)
        best: list[tuple[str, str, str, str]] | None = None
        for _name, t, _req in known:
            problems = match(t, resolve(s), here)
            if not problems:
                return
            best = best or problems
        for rule, msg, clause, where in best or []:
            add(rule, msg, clause, where)

    def match(t: IcebergType, s: AvroSchema, here: str) -> list[tuple[str, str, str, str]]:
        """Problems of ``s`` as the Avro schema of ``t`` (children are checked by ``with_id``
        once ``s`` has the shape of ``t``)."""
        kind = s.get("type") if isinstance(s, dict) else s
        logical = s.get("logicalType") if isinstance(s, dict) else None
        if isinstance(t, StructType):
            if kind != "record" or not isinstance(s, dict):
                return [("avro.type-mapping", f"{t}: expected a record, found {_show(s)}", CLAUSE_MAPPING, here)]
            for f in s.get("fields") or []:
                if isinstance(f, dict):
                    with_id(f, "field-id", f.get("type"), f"{here}.{f.get('name')}")
            return []
        if isinstance(t, ListType):
            if kind != "array" or logical == "map" or not isinstance(s, dict):
                return [("avro.type-mapping", f"{t}: expected an array, found {_show(s)}", CLAUSE_MAPPING, here)]
            with_id(s, "element-id", s.get("items"), f"{here}.element")
            return []
        if isinstance(t, MapType):
            if kind == "map" and isinstance(s, dict):
                if not isinstance(t.key_type, StringType):
                    return [("avro.map-non-string-key", f"{t}: an Avro map (string keys) holds keys of type "
                             f"{t.key_type}; maps with non-string keys are arrays of key/value records with "
                             "logicalType map", CLAUSE_MAP_KEYS, here)]
                with_id(s, "key-id", "string", f"{here}.key")
                with_id(s, "value-id", s.get("values"), f"{here}.value")
                return []
            if kind == "array" and isinstance(s, dict) and logical == "map":
                rec = resolve(s.get("items"))
                kv = rec.get("fields") if isinstance(rec, dict) and rec.get("type") == "record" else None
                if not isinstance(kv, list) or len(kv) != 2 or not all(isinstance(f, dict) for f in kv):
                    return [("avro.map-array", f"{here!r}: a map array holds 2-field key/value records",
                             CLAUSE_MAPPING, here)]
                if isinstance(kv[0].get("type"), list) and "null" in kv[0]["type"]:
                    return [("avro.map-array", f"{here!r}: the key of a map array is not nullable",
                             CLAUSE_MAPPING, here)]
                with_id(kv[0], "field-id", kv[0].get("type"), f"{here}.key")
                with_id(kv[1], "field-id", kv[1].get("type"), f"{here}.value")
                return []
            return [("avro.type-mapping", f"{t}: expected a map or an array with logicalType map, found "
                     f"{_show(s)}", CLAUSE_MAPPING, here)]
        if isinstance(t, VariantType):
            names = [f.get("name") for f in s.get("fields") or [] if isinstance(f, dict)] \
                if kind == "record" and isinstance(s, dict) else []
            if names != ["metadata", "value"]:
                return [("avro.type-mapping", f"{t}: expected a record with metadata and value fields, found "
                         f"{_show(s)}", CLAUSE_MAPPING, here)]
            return []
        if isinstance(t, UnknownType):
            return [] if kind == "null" else [("avro.type-mapping", f"{t}: expected null (or no column), found "
                                                f"{_show(s)}", CLAUSE_MAPPING, here)]
        got = primitive_problem(t, s)
        if got is None:
            return []
        clause = CLAUSE_DECIMAL if got[0] == "avro.decimal-fixed-size" else CLAUSE_MAPPING
        return [(got[0], got[1], clause, here)]

    root = resolve(schema)
    if not isinstance(root, dict) or root.get("type") != "record":
        add("avro.type-mapping", f"the file's schema is {_show(root)[:200]}, not a record", CLAUSE_MAPPING,
            "avro.schema")
        return out
    for f in root.get("fields") or []:
        if isinstance(f, dict):
            with_id(f, "field-id", f.get("type"), str(f.get("name")))
    return out
