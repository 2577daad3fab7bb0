"""Variant values: the binary encoding, shredded Parquet columns, and the bounds of variant columns.

Spec sections: Parquet's ``VariantEncoding.md`` (metadata v1: a header byte, a dictionary of
UTF-8 strings; a value: a ``value_metadata`` byte of ``basic_type`` and ``value_header``, then
the primitive, short string, object or array data), ``VariantShredding.md`` (a ``metadata``
and ``value`` binary, and ``typed_value`` for shredded values: a primitive column, a group of
object fields each a ``value``/``typed_value`` group, or a list of such elements), and in the
Iceberg spec "Bounds for Variant" and Appendix D "Bound serialization": "A serialized Variant
of encoded v1 metadata concatenated with an encoded variant object. Object keys are normalized
JSON paths to identify fields; values are lower or upper bound values."

A decoded value (:data:`Variant`) is a :class:`Primitive` (its physical type name and Python
value), a ``dict`` (an object) or a ``list`` (an array). Python values of primitives: ``None``
(null), ``bool``, ``int`` (int8..int64; days for date; microseconds or nanoseconds from the
epoch for timestamps; microseconds of the day for time), ``float`` (float, double),
``Decimal`` (decimal4/8/16), ``str``, ``bytes`` (binary), ``uuid.UUID``.

What the reference does where the text leaves room:

* the encoder writes metadata with sorted, unique keys (``sorted_strings`` 1) and the smallest
  offset, id and count widths; strings shorter than 64 bytes as short strings;
* the reader does not hold an object's field ids to the order of their names, nor a dictionary
  flagged ``sorted_strings`` to sorted order (the value is unambiguous without: field ids index the
  dictionary, no name is looked up in it; DuckDB 1.5.5 writes both unsorted); a name twice in one
  object is refused. A dictionary that breaks its ``sorted_strings`` bit and an object whose field
  ids are not in the order of their names are reported apart (:func:`sorted_strings_problem`;
  :func:`decode_value`'s ``misordered``, :func:`field_order_problem`), as readers that
  binary-search them miss fields;
* bounds (:func:`bounds_from_bytes`) must be an object whose values are primitives (not null);
  a key must be a normalized path (:func:`is_normalized_path`);
* values compare within an order class (:func:`order_key`): exact numerics, float and double
  by their numeric value; strings by their UTF-8 bytes; binary and uuid by unsigned bytes;
  timestamps with and without time zone apart, microseconds and nanoseconds on one scale.
  Values of different classes are not ordered (None).
"""

from __future__ import annotations

import datetime
import functools
import re
import struct
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Union

from .errors import SpecViolation
from .hashing import scaled, unscaled
from .metadata import MAX_DEPTH

CLAUSE_ENCODING = "Parquet VariantEncoding.md"
CLAUSE_SHREDDING = "Parquet VariantShredding.md"
CLAUSE_BOUNDS = "Appendix D: Single-value serialization / Bound serialization (variant)"

#: primitive type id -> physical type name ("Variant primitive types")
PRIMITIVE_TYPES: dict[int, str] = {
    0: "null", 1: "boolean", 2: "boolean", 3: "int8", 4: "int16", 5: "int32", 6: "int64", 7: "double",
    8: "decimal4", 9: "decimal8", 10: "decimal16", 11: "date", 12: "timestamp", 13: "timestamp_ntz",
    14: "float", 15: "binary", 16: "string", 17: "time", 18: "timestamp_nanos", 19: "timestamp_ntz_nanos",
    20: "uuid",
}
_FIXED: dict[str, tuple[int, str]] = {  # name -> (type id, struct format) of fixed-width primitives
    "int8": (3, "<b"), "int16": (4, "<h"), "int32": (5, "<i"), "int64": (6, "<q"), "double": (7, "<d"),
    "date": (11, "<i"), "timestamp": (12, "<q"), "timestamp_ntz": (13, "<q"), "float": (14, "<f"),
    "time": (17, "<q"), "timestamp_nanos": (18, "<q"), "timestamp_ntz_nanos": (19, "<q"),
}
_DECIMALS = {"decimal4": (8, 4), "decimal8": (9, 8), "decimal16": (10, 16)}


@dataclass(frozen=True)
class Primitive:
    """A primitive Variant value: its physical type name (:data:`PRIMITIVE_TYPES`) and value."""

    type: str
    value: Any


Variant = Union[Primitive, dict[str, "Variant"], list["Variant"]]
NULL = Primitive("null", None)


def _bad(message: str, clause: str = CLAUSE_ENCODING) -> SpecViolation:
    return SpecViolation("variant.encoding", message, clause=clause)


def _uint(data: bytes, pos: int, size: int, limit: int | None = None) -> int:
    """The unsigned little-endian ``size``-byte integer at ``pos``; it must end by ``limit``
    (default: the end of ``data``)."""
    end = len(data) if limit is None else limit
    if pos + size > end:
        raise _bad(f"needs {size} byte(s) at offset {pos}, the value has {end}")
    return int.from_bytes(data[pos:pos + size], "little")


def _width(n: int) -> int:
    """The fewest bytes (1..4) an unsigned ``n`` fits in."""
    return 1 if n < 1 << 8 else 2 if n < 1 << 16 else 3 if n < 1 << 24 else 4


# --- metadata ---------------------------------------------------------------------------------

def decode_metadata(data: bytes) -> tuple[list[str], int]:
    """The dictionary of an encoded metadata and the number of bytes the metadata takes."""
    if not data:
        raise _bad("the metadata is empty (it starts with a header byte)")
    header = data[0]
    if header & 0x0F != 1:
        raise _bad(f"metadata version is {header & 0x0F}, not 1")
    size = ((header >> 6) & 0x3) + 1
    count = _uint(data, 1, size)
    offsets = [_uint(data, 1 + size * (1 + i), size) for i in range(count + 1)]
    start = 1 + size * (count + 2)
    if offsets[0] != 0 or any(b < a for a, b in zip(offsets, offsets[1:])) or start + offsets[-1] > len(data):
        raise _bad(f"metadata offsets {offsets[:8]} do not delimit {count} strings in {len(data) - start} bytes")
    try:
        keys = [data[start + a:start + b].decode("utf-8") for a, b in zip(offsets, offsets[1:])]
    except UnicodeDecodeError as e:
        raise _bad(f"a metadata string is not UTF-8: {e}") from None
    return keys, start + offsets[-1]


CLAUSE_SORTED_STRINGS = ("Parquet VariantEncoding.md > Metadata encoding (\"If `sorted_strings` is set to 1, strings "
                         "in the dictionary must be unique and sorted in lexicographic order.\")")


def sorted_strings_problem(data: bytes) -> str | None:
    """Why the dictionary of metadata ``data`` breaks its ``sorted_strings`` bit, or None: with the
    bit set, its strings must be unique and in lexicographic order (taken as the order of their
    UTF-8 bytes, which is the order of their code points), so each is greater than the one before.
    None too when the bit is clear or the metadata does not decode (that is reported apart).
    Decoding never relies on the bit: object field ids index the dictionary directly."""
    if not data or not data[0] & 0x10:
        return None
    try:
        keys, _ = decode_metadata(data)
    except SpecViolation:
        return None
    raw = [k.encode("utf-8") for k in keys]
    for n in range(1, len(raw)):
        if raw[n] <= raw[n - 1]:
            what = "repeats" if raw[n] == raw[n - 1] else "sorts before"
            return (f"sorted_strings is set but dictionary string {n} {keys[n]!r} {what} string {n - 1} "
                    f"{keys[n - 1]!r} (dictionary {keys[:8]})")
    return None


def encode_metadata(keys: list[str], as_given: bool = False) -> bytes:
    """Metadata v1 holding ``keys`` sorted and unique (``sorted_strings`` set). ``as_given``: the
    keys in the order given, the bit set all the same (a damage case: DuckDB's writer before
    duckdb/duckdb#23591)."""
    raw = [k.encode("utf-8") for k in (keys if as_given else sorted(set(keys), key=lambda k: k.encode("utf-8")))]
    total = sum(len(b) for b in raw)
    size = _width(max(total, len(raw)))
    out = bytearray([1 | 1 << 4 | (size - 1) << 6])
    out += len(raw).to_bytes(size, "little")
    pos = 0
    for b in raw:
        out += pos.to_bytes(size, "little")
        pos += len(b)
    out += pos.to_bytes(size, "little")
    for b in raw:
        out += b
    return bytes(out)


# --- values -----------------------------------------------------------------------------------

def decode_value(keys: list[str], data: bytes, pos: int = 0, limit: int | None = None,
                 depth: int = 0, misordered: list[str] | None = None) -> tuple[Variant, int]:
    """The value encoded at ``data[pos:limit]`` (object keys from the metadata dictionary ``keys``)
    and the offset one past its last byte.

    The layout is held to what the encoding states, so that each byte is read once: an array's or
    object's ``field_offset`` values point into its own fields ("the i-th ``value`` starts" at the
    i-th offset; "The last entry is the offset that is one byte past the last field (i.e. the total
    size of all fields in bytes)", ``fields: <value>*``), so the values, taken in the order of their
    offsets, follow one another without gap or overlap and each ends where the next starts; an
    array's values are in its order, so its offsets increase. An object's values may be in any
    order ("the actual ``value`` entries do not need to be in any particular order"). Containers
    nest at most :data:`MAX_DEPTH` deep.

    The field ids of an object are not held to the order of their names here (the value is
    unambiguous without it); given ``misordered``, an empty list, the first object whose field ids
    break that order (:data:`CLAUSE_FIELD_ORDER`) puts why in it."""
    limit = len(data) if limit is None else limit
    if pos >= limit:
        raise _bad(f"no value at offset {pos}")
    head = data[pos]
    basic, vh = head & 0x3, head >> 2
    if basic == 1:  # short string
        end = pos + 1 + vh
        if end > limit:
            raise _bad(f"a short string of {vh} bytes at offset {pos} runs past the value")
        return Primitive("string", _utf8(data[pos + 1:end])), end
    if basic == 0:
        return _decode_primitive(vh, data, pos, limit)
    kind = "object" if basic == 2 else "array"
    if depth >= MAX_DEPTH:
        raise _bad(f"an {kind} at offset {pos} is nested deeper than {MAX_DEPTH} levels")
    large = (vh >> (4 if basic == 2 else 2)) & 1
    offset_size = (vh & 0x3) + 1
    count_size = 4 if large else 1
    count = _uint(data, pos + 1, count_size, limit)
    cur = pos + 1 + count_size
    id_size = ((vh >> 2) & 0x3) + 1 if basic == 2 else 0
    first = cur + id_size * count + offset_size * (count + 1)
    if first > limit:
        raise _bad(f"an {kind} at offset {pos} of {count} elements runs past the value")
    ids = [_uint(data, cur + id_size * i, id_size) for i in range(count)] if basic == 2 else []
    cur += id_size * count
    offsets = [_uint(data, cur + offset_size * i, offset_size) for i in range(count + 1)]
    end = first + offsets[-1]
    if end > limit:
        raise _bad(f"an {kind} at offset {pos} runs past the value")
    # the values in the order of their offsets, each with the offset where the next starts
    order = sorted(range(count), key=lambda i: offsets[i]) if basic == 2 else list(range(count))
    starts = [offsets[i] for i in order] + [offsets[-1]]
    if basic == 3 and any(b <= a for a, b in zip(offsets, offsets[1:])):
        raise _bad(f"the field_offset values of an array at offset {pos} do not increase: {offsets[:8]}")
    if starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])):
        raise _bad(f"the field_offset values of an {kind} at offset {pos} do not delimit {count} values "
                   f"in its {offsets[-1]} bytes of fields: {offsets[:8]}")
    for fid in ids:
        if fid >= len(keys):
            raise _bad(f"field id {fid} is not in the metadata dictionary of {len(keys)} strings")
    items: list[Variant] = [NULL] * count
    for n, i in enumerate(order):
        start, stop = first + starts[n], first + starts[n + 1]
        items[i], item_end = decode_value(keys, data, start, stop, depth + 1, misordered)
        if item_end != stop:
            raise _bad(f"value {i} of an {kind} at offset {pos} ends at byte {item_end}, "
                       f"its field_offset values give {stop}")
    if basic == 3:
        return items, end
    if misordered is not None and not misordered:
        misordered.extend(_field_order_problem(keys, ids, pos))
    obj: dict[str, Variant] = {}
    for fid, item in zip(ids, items):
        if keys[fid] in obj:
            raise _bad(f"field {keys[fid]!r} occurs twice in one object")
        obj[keys[fid]] = item
    return obj, end


CLAUSE_FIELD_ORDER = ("Parquet VariantEncoding.md > Object field ID order and uniqueness (\"For objects, field IDs "
                      "and offsets must be listed in the order of the corresponding field names, sorted "
                      "lexicographically (using unsigned byte ordering for UTF-8).\")")


def _field_order_problem(keys: list[str], ids: list[int], pos: int) -> list[str]:
    """Why the field ids of the object at offset ``pos`` are not in the order of the names they
    index (each name's UTF-8 bytes greater than the one before), or nothing. The order is of the
    names, not of the ids: over a dictionary that is not sorted, ids in increasing order can name
    fields out of order. A name twice is refused by :func:`decode_value` itself."""
    names = [keys[f].encode("utf-8") for f in ids]
    for n in range(1, len(names)):
        if names[n] < names[n - 1]:
            return [f"the object at offset {pos} lists field {keys[ids[n - 1]]!r} (id {ids[n - 1]}) before "
                    f"{keys[ids[n]]!r} (id {ids[n]}) (field ids {ids[:8]})"]
    return []


def field_order_problem(data: bytes) -> str | None:
    """Why an object in the serialized Variant ``data`` (metadata concatenated with a value, as a
    variant bound) lists its field ids out of the order of their names, or None (None too when
    ``data`` does not decode: that is reported apart)."""
    found: list[str] = []
    try:
        keys, used = decode_metadata(data)
        decode_value(keys, data, used, misordered=found)
    except SpecViolation:
        return None
    return found[0] if found else None


def _utf8(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _bad(f"a string is not UTF-8: {e}") from None


def _decode_primitive(type_id: int, data: bytes, pos: int, limit: int) -> tuple[Primitive, int]:
    name = PRIMITIVE_TYPES.get(type_id)
    body = pos + 1
    if name is None:
        raise _bad(f"primitive type id {type_id} is not one of Variant's")
    if name in ("null", "boolean"):
        return Primitive(name, None if name == "null" else type_id == 1), body
    if name in _FIXED:
        fmt = _FIXED[name][1]
        n = struct.calcsize(fmt)
        if body + n > limit:
            raise _bad(f"a {name} at offset {pos} needs {n} bytes")
        return Primitive(name, struct.unpack_from(fmt, data, body)[0]), body + n
    if name in _DECIMALS:
        n = _DECIMALS[name][1]
        if body + 1 + n > limit:
            raise _bad(f"a {name} at offset {pos} needs {1 + n} bytes")
        scale = data[body]
        if scale > 38:
            raise _bad(f"a {name} has scale {scale}, above 38")
        return Primitive(name, scaled(int.from_bytes(data[body + 1:body + 1 + n], "little", signed=True), scale)), \
            body + 1 + n
    if name == "uuid":
        if body + 16 > limit:
            raise _bad(f"a uuid at offset {pos} needs 16 bytes")
        return Primitive(name, uuid.UUID(bytes=data[body:body + 16])), body + 16
    length = _uint(data, body, 4, limit)  # binary, string
    end = body + 4 + length
    if end > limit:
        raise _bad(f"a {name} of {length} bytes at offset {pos} runs past the value")
    raw = data[body + 4:end]
    return Primitive(name, _utf8(raw) if name == "string" else bytes(raw)), end


def decode(metadata: bytes, value: bytes) -> Variant:
    """The value of an encoded metadata and value; every byte of ``value`` must belong to it."""
    keys, _ = decode_metadata(metadata)
    return _whole_value(keys, value)


def _whole_value(keys: list[str], value: bytes, misordered: list[str] | None = None) -> Variant:
    """The value encoded in ``value``, every byte of which must belong to it."""
    v, end = decode_value(keys, value, misordered=misordered)
    if end != len(value):
        raise _bad(f"the value ends at byte {end} of {len(value)}")
    return v


def encode_value(v: Variant, ids: dict[str, int], descending: bool = False) -> bytes:
    """The encoding of ``v`` with object keys looked up in ``ids`` (key -> dictionary index), each
    object's field ids in the order of their names. ``descending``: in the reverse order (a damage
    case: DuckDB 1.5.5 lists them in the order it meets the keys)."""
    if isinstance(v, Primitive):
        return _encode_primitive(v)
    if isinstance(v, list):
        parts = [encode_value(x, ids, descending) for x in v]
        return _container(3, None, parts)
    names = sorted(v, key=lambda k: k.encode("utf-8"), reverse=descending)
    return _container(2, [ids[k] for k in names], [encode_value(v[k], ids, descending) for k in names])


def _container(basic: int, field_ids: list[int] | None, parts: list[bytes]) -> bytes:
    offsets = [0]
    for p in parts:
        offsets.append(offsets[-1] + len(p))
    offset_size = _width(offsets[-1])
    large = len(parts) > 255
    out = bytearray()
    if field_ids is None:
        out.append(basic | ((int(large) << 2 | (offset_size - 1)) << 2))
    else:
        id_size = _width(max(field_ids, default=0))
        out.append(basic | ((int(large) << 4 | (id_size - 1) << 2 | (offset_size - 1)) << 2))
    out += len(parts).to_bytes(4 if large else 1, "little")
    if field_ids is not None:
        for f in field_ids:
            out += f.to_bytes(id_size, "little")
    for o in offsets:
        out += o.to_bytes(offset_size, "little")
    for p in parts:
        out += p
    return bytes(out)


def _encode_primitive(p: Primitive) -> bytes:
    if p.type == "null":
        return bytes([0])
    if p.type == "boolean":
        return bytes([(1 if p.value else 2) << 2])
    if p.type in _FIXED:
        type_id, fmt = _FIXED[p.type]
        return bytes([type_id << 2]) + struct.pack(fmt, p.value)
    if p.type in _DECIMALS:
        type_id, n = _DECIMALS[p.type]
        value = Decimal(p.value)
        exp = value.as_tuple().exponent
        assert isinstance(exp, int)
        body: int = unscaled(value) * 10 ** max(exp, 0)
        return bytes([type_id << 2, -exp if exp < 0 else 0]) + body.to_bytes(n, "little", signed=True)
    if p.type == "uuid":
        return bytes([20 << 2]) + bytes(p.value.bytes)
    raw = str(p.value).encode("utf-8") if p.type == "string" else bytes(p.value)
    if p.type == "string" and len(raw) < 64:
        return bytes([1 | len(raw) << 2]) + raw
    return bytes([(16 if p.type == "string" else 15) << 2]) + len(raw).to_bytes(4, "little") + raw


def _keys(v: Variant, out: set[str]) -> set[str]:
    if isinstance(v, dict):
        out.update(v)
        for x in v.values():
            _keys(x, out)
    elif isinstance(v, list):
        for x in v:
            _keys(x, out)
    return out


def encode(v: Variant) -> tuple[bytes, bytes]:
    """(metadata, value) of ``v``: a sorted dictionary of every object key of ``v``."""
    metadata = encode_metadata(sorted(_keys(v, set())))
    keys, _ = decode_metadata(metadata)
    return metadata, encode_value(v, {k: i for i, k in enumerate(keys)})


def from_python(x: Any) -> Variant:
    """A plain Python value as a Variant: None null, bool boolean, int the narrowest of int8..int64,
    float double, Decimal decimal4/8/16 by its digits, str string, bytes binary, date, UUID,
    dict object, list array; a :class:`Primitive` as it is."""
    if isinstance(x, Primitive):
        return x
    if x is None:
        return NULL
    if isinstance(x, bool):
        return Primitive("boolean", x)
    if isinstance(x, int):
        for name, bits in (("int8", 8), ("int16", 16), ("int32", 32), ("int64", 64)):
            if -(1 << (bits - 1)) <= x < 1 << (bits - 1):
                return Primitive(name, x)
        raise ValueError(f"{x} does not fit a Variant int64")
    if isinstance(x, float):
        return Primitive("double", x)
    if isinstance(x, Decimal):
        digits = len(x.as_tuple().digits)
        return Primitive("decimal4" if digits <= 9 else "decimal8" if digits <= 18 else "decimal16", x)
    if isinstance(x, str):
        return Primitive("string", x)
    if isinstance(x, (bytes, bytearray)):
        return Primitive("binary", bytes(x))
    if isinstance(x, datetime.date) and not isinstance(x, datetime.datetime):
        return Primitive("date", (x - datetime.date(1970, 1, 1)).days)
    if isinstance(x, uuid.UUID):
        return Primitive("uuid", x)
    if isinstance(x, dict):
        return {str(k): from_python(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [from_python(v) for v in x]
    raise ValueError(f"{type(x).__name__} has no Variant form here")


# --- normalized paths and the values at each path ---------------------------------------------

_ESCAPES = {"'": "\\'", "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def field_path(parent: str, name: str) -> str:
    """The normalized JSON path of field ``name`` of the object at ``parent``: ``$['a']['b']``
    (a quote and a backslash escaped, control characters as escapes)."""
    escaped = "".join(_ESCAPES.get(c, f"\\u{ord(c):04x}" if ord(c) < 0x20 else c) for c in name)
    return f"{parent}['{escaped}']"


_SEGMENT = r"\['(?:[^'\\\x00-\x1f]|\\['\\bfnrt]|\\u00[01][0-9a-f])*'\]"
_NORMALIZED = re.compile(rf"\$(?:{_SEGMENT})*\Z")


def is_normalized_path(path: str) -> bool:
    """Whether ``path`` is ``$`` followed by name segments ``['...']`` in the normalized form."""
    return _NORMALIZED.match(path) is not None


def values_by_path(v: Variant, path: str = "$", out: dict[str, list[Primitive]] | None = None,
                   objects: set[str] | None = None) -> dict[str, list[Primitive]]:
    """The primitive values of ``v`` by normalized path, nulls left out ("Bounds for a field must be
    accurate for all non-null values of the field"). An array's elements are values of the
    array's own path ("Bounds for values within arrays must be accurate for all values in the
    array"; ``$['addresses']['zip']`` is the zip of objects in an addresses array). The paths
    where an object is found are added to ``objects``."""
    out = {} if out is None else out
    if isinstance(v, Primitive):
        if v.type != "null":
            out.setdefault(path, []).append(v)
    elif isinstance(v, list):
        for x in v:
            values_by_path(x, path, out, objects)
    else:
        if objects is not None:
            objects.add(path)
        for k, x in v.items():
            values_by_path(x, field_path(path, k), out, objects)
    return out


# --- order --------------------------------------------------------------------------------------

_CLASS = {"int8": "numeric", "int16": "numeric", "int32": "numeric", "int64": "numeric", "decimal4": "numeric",
          "decimal8": "numeric", "decimal16": "numeric", "float": "numeric", "double": "numeric",
          "boolean": "boolean", "string": "string", "binary": "binary", "uuid": "uuid", "date": "date",
          "time": "time", "timestamp": "timestamptz", "timestamp_nanos": "timestamptz",
          "timestamp_ntz": "timestamp", "timestamp_ntz_nanos": "timestamp"}


def order_class(p: Primitive) -> str | None:
    """The class of values ``p`` is ordered with (None: null)."""
    return _CLASS.get(p.type)


def order_key(p: Primitive) -> Any:
    """The sort key of ``p`` within its :func:`order_class`: strings by UTF-8 bytes, binary and uuid
    by unsigned bytes, timestamps in nanoseconds, numbers by value (NaN: None, not ordered)."""
    if p.type == "string":
        return p.value.encode("utf-8")
    if p.type == "uuid":
        return p.value.bytes
    if p.type in ("timestamp", "timestamp_ntz"):
        return p.value * 1000
    if p.type in ("float", "double") and p.value != p.value:
        return None
    if p.type == "boolean":
        return int(p.value)
    return p.value


#: the least and greatest value of one order class: (order key, value) of each
Range = tuple[Any, Primitive, Any, Primitive]


@dataclass
class PathValues:
    """What the values of a variant column hold at each normalized path (:func:`values_by_path`;
    nulls left out): their Variant types, each order class's least and greatest value, and whether
    a value there is not ordered (NaN). One account for the writer's bounds
    (:func:`column_bounds`) and the checker's comparison of bounds with the data."""

    #: path -> the Variant types of the values there ("object" where an object is found)
    types: dict[str, set[str]] = field(default_factory=dict)
    #: path -> order class (:func:`order_class`) -> least and greatest value
    ranges: dict[str, dict[str, Range]] = field(default_factory=dict)
    #: paths where a value is not ordered (NaN)
    unordered: set[str] = field(default_factory=set)
    #: path -> the order classes of the values there (NaN's too, which have no range)
    classes: dict[str, set[str]] = field(default_factory=dict)

    def add(self, v: Variant) -> None:
        """Add the values of one row (not None)."""
        objects: set[str] = set()
        for path, values in values_by_path(v, "$", None, objects).items():
            types = self.types.setdefault(path, set())
            classes = self.classes.setdefault(path, set())
            by_class = self.ranges.setdefault(path, {})
            for p in values:
                types.add(p.type)
                cls, key = order_class(p), order_key(p)
                if cls is not None:
                    classes.add(cls)
                if cls is None or key is None:
                    self.unordered.add(path)
                    continue
                old = by_class.get(cls)
                if old is None:
                    by_class[cls] = (key, p, key, p)
                    continue
                lo_key, lo, hi_key, hi = old
                if key < lo_key:
                    lo_key, lo = key, p
                if key > hi_key:
                    hi_key, hi = key, p
                by_class[cls] = (lo_key, lo, hi_key, hi)
        for path in objects:
            self.types.setdefault(path, set()).add("object")

    def mixed(self, path: str, exact: bool = True) -> list[str]:
        """The Variant types at ``path`` when they are mixed, else []: "Bounds must not be written
        to describe values with mixed Variant types (other than null)." The spec does not say
        what one Variant type is, so there are two readings, and the kit holds each side to the
        one no reading faults. ``exact`` (the writer, :func:`column_bounds`): a physical type of
        VariantEncoding.md's table, so int8 and int16 are two and no bounds are written over
        them. Otherwise (the checker): an order class (:func:`order_class`: numbers, strings,
        ...), so only values that every reading calls mixed are reported, such as a number
        beside a string. JSON's numbers are encoded in the narrowest integer type, so 1 and 300
        at one path are int8 and int16, and a writer may bound them as numbers. An object is a
        type of its own in both readings."""
        types = self.types.get(path, set())
        if not exact:
            types = self.classes.get(path, set()) | (types & {"object"})
        return sorted(types) if len(types) > 1 else []


# --- bounds -------------------------------------------------------------------------------------

def bounds_to_bytes(bounds: dict[str, Primitive]) -> bytes:
    """Appendix D: metadata v1 of the paths concatenated with the object of path -> bound."""
    metadata, value = encode(dict(bounds))
    return metadata + value


def bounds_from_bytes(data: bytes) -> dict[str, Primitive]:
    """The bounds a serialized variant bound holds, by normalized path."""
    try:
        keys, used = decode_metadata(data)
        v, end = decode_value(keys, data, used)
    except SpecViolation as e:
        raise SpecViolation("manifests.bound-decode", f"not a serialized Variant bound: {e.detail}",
                            clause=CLAUSE_BOUNDS) from None
    if end != len(data):
        raise SpecViolation("manifests.bound-decode", f"the bound object ends at byte {end} of {len(data)}",
                            clause=CLAUSE_BOUNDS)
    if not isinstance(v, dict):
        raise SpecViolation("manifests.bound-decode", f"the bound is a Variant {type(v).__name__}, not an object",
                            clause=CLAUSE_BOUNDS)
    out: dict[str, Primitive] = {}
    for path, b in v.items():
        if not is_normalized_path(path):
            raise SpecViolation("manifests.bound-decode", f"key {path!r} is not a normalized JSON path",
                                clause=CLAUSE_BOUNDS)
        if not isinstance(b, Primitive) or b.type == "null":
            raise SpecViolation("manifests.bound-decode", f"the bound of {path} is not a primitive value",
                                clause=CLAUSE_BOUNDS)
        out[path] = b
    return out


def truncate_upper(p: Primitive, length: int) -> Primitive | None:
    """An upper bound of ``p`` at most ``length`` code points (string) or bytes (binary): ``p``
    itself when it is short enough, else its prefix with the last code point or byte incremented
    (carrying left past ones that cannot grow); None when no such bound exists."""
    if p.type == "binary":
        b = bytearray(p.value[:length])
        if len(p.value) <= length:
            return p
        while b and b[-1] == 0xFF:
            b.pop()
        if not b:
            return None
        b[-1] += 1
        return Primitive("binary", bytes(b))
    if p.type == "string":
        if len(p.value) <= length:
            return p
        cps = [ord(c) for c in p.value[:length]]
        while cps:
            nxt = cps[-1] + 1
            if 0xD800 <= nxt <= 0xDFFF:
                nxt = 0xE000
            if nxt <= 0x10FFFF:
                cps[-1] = nxt
                return Primitive("string", "".join(map(chr, cps)))
            cps.pop()
        return None
    return p


def truncate_lower(p: Primitive, length: int) -> Primitive:
    """A lower bound of ``p`` at most ``length`` code points or bytes: its prefix."""
    if p.type in ("binary", "string"):
        return Primitive(p.type, p.value[:length])
    return p


# --- shredded Parquet columns (as Arrow reads and writes them) ------------------------------------

#: Variant primitive type <-> the Arrow type (the name of its pyarrow factory) of a shredded
#: ``typed_value`` of that type, for the types whose Arrow type has no parameter (VariantShredding.md,
#: "Shredded Value Types"). The writer shreds the fields of these types (:func:`shred`); the reader
#: maps them back (:func:`_variant_type_of`, which also reads large strings and binary, dates,
#: decimals, timestamps, time and uuid).
_ARROW_OF = {"boolean": "bool_", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
             "double": "float64", "float": "float32", "string": "string", "binary": "binary"}


@functools.lru_cache(maxsize=1)
def _variant_of_arrow() -> dict[Any, str]:
    """:data:`_ARROW_OF` the other way: Arrow type -> Variant type."""
    import pyarrow as pa

    return {getattr(pa, factory)(): name for name, factory in _ARROW_OF.items()}


def _variant_type_of(t: Any) -> str:
    """The Variant type of the values of a shredded ``typed_value`` of Arrow type ``t``."""
    import pyarrow as pa

    name = _variant_of_arrow().get(t)
    if name is not None:
        return name
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return "string" if pa.types.is_large_string(t) else "binary"
    if pa.types.is_date32(t):
        return "date"
    if pa.types.is_decimal(t):
        return "decimal4" if t.precision <= 9 else "decimal8" if t.precision <= 18 else "decimal16"
    if pa.types.is_timestamp(t):
        nanos = "_nanos" if t.unit == "ns" else ""
        return ("timestamp" if t.tz else "timestamp_ntz") + nanos
    if pa.types.is_time64(t):
        return "time"
    if getattr(t, "extension_name", "") == "arrow.uuid" or pa.types.is_fixed_size_binary(t) and t.byte_width == 16:
        return "uuid"
    raise _bad(f"a shredded typed_value of Arrow type {t} has no Variant type", CLAUSE_SHREDDING)


def _plain_type(t: Any) -> Any:
    """``t`` with its temporal types as integers (their values as days, micros or nanos)."""
    import pyarrow as pa

    if pa.types.is_struct(t):
        return pa.struct([pa.field(t.field(i).name, _plain_type(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(pa.field(t.value_field.name, _plain_type(t.value_type)))
    if pa.types.is_date32(t):
        return pa.int32()
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return pa.int64()
    return t


def _primitive(t: Any, v: Any) -> Primitive:
    name = _variant_type_of(t)
    if name == "uuid" and not isinstance(v, uuid.UUID):
        if len(bytes(v)) != 16:
            raise _bad(f"a shredded uuid has {len(bytes(v))} bytes, not 16", CLAUSE_SHREDDING)
        v = uuid.UUID(bytes=bytes(v))
    return Primitive(name, v)


def _is_binary(t: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_binary(t) or pa.types.is_large_binary(t))


def _slot_type(t: Any, where: str) -> Any:
    """The ``typed_value`` type (None: not shredded) of a shredded field or array element of Arrow
    type ``t``, which must be a group of an optional binary ``value`` and an optional ``typed_value``
    (VariantShredding.md: "Each shredded field in the ``typed_value`` group is represented as a
    required group that contains optional ``value`` and ``typed_value`` fields"; so is each
    element of a shredded array)."""
    import pyarrow as pa

    if not pa.types.is_struct(t):
        raise _bad(f"{where} is of Arrow type {t}, not a group of value and typed_value", CLAUSE_SHREDDING)
    names = [t.field(i).name for i in range(t.num_fields)]
    if len(set(names)) != len(names):
        raise _bad(f"{where} has fields {names}, a name twice", CLAUSE_SHREDDING)
    if "value" in names and not _is_binary(t.field("value").type):
        raise _bad(f"the value of {where} is of Arrow type {t.field('value').type}, not binary", CLAUSE_SHREDDING)
    return t.field("typed_value").type if "typed_value" in names else None


def _merge(keys: list[str], value: bytes | None, typed: Any, typed_type: Any,
           misordered: list[str] | None = None) -> Variant | None:
    """The value of one shredded slot: ``typed`` when not null (a shredded object merged with the
    fields left in ``value``), else ``value``; None when both are null (a missing field).
    ``misordered``: as :func:`decode_value`'s, for every encoded value of the slot."""
    import pyarrow as pa

    if typed is not None and typed_type is not None:
        if pa.types.is_struct(typed_type):
            obj: dict[str, Variant] = {}
            for i in range(typed_type.num_fields):
                f = typed_type.field(i)
                sub_t = _slot_type(f.type, f"shredded field {f.name!r}")
                sub = typed.get(f.name) or {}
                got = _merge(keys, sub.get("value"), sub.get("typed_value"), sub_t, misordered)
                if got is not None:
                    obj[f.name] = got
            if value is not None:
                rest = _whole_value(keys, value, misordered)
                if not isinstance(rest, dict):
                    raise _bad("a shredded object's value is not an object", CLAUSE_SHREDDING)
                clash = set(rest) & set(obj)
                if clash:
                    raise _bad(f"field(s) {sorted(clash)} are both shredded and in value", CLAUSE_SHREDDING)
                obj.update(rest)
            return obj
        if pa.types.is_list(typed_type) or pa.types.is_large_list(typed_type):
            sub_t = _slot_type(typed_type.value_type, "the element of a shredded array")
            items: list[Variant | None] = []
            for e in typed:
                if e is None:
                    raise _bad("an element of a shredded array is null (elements are required)", CLAUSE_SHREDDING)
                items.append(_merge(keys, e.get("value"), e.get("typed_value"), sub_t, misordered))
            return [NULL if x is None else x for x in items]
        return _primitive(typed_type, typed)
    if value is not None:
        return _whole_value(keys, value, misordered)
    return None


def unshred(arr: Any, misordered: list[tuple[int, str]] | None = None) -> list[Variant | None]:
    """The values of an Arrow variant column (a struct of a binary ``metadata``, a binary ``value``
    and an optional shredded ``typed_value``); None for a null row. Raises :class:`SpecViolation`
    on a column of another shape or a value that does not decode. Given ``misordered``, each row
    holding an object whose field ids break the order of their names adds (row, why) to it."""
    import pyarrow as pa

    t = arr.type
    if not pa.types.is_struct(t):
        raise _bad(f"a variant column is of Arrow type {t}, not a group", CLAUSE_SHREDDING)
    names = [t.field(i).name for i in range(t.num_fields)]
    if "metadata" not in names or not _is_binary(t.field("metadata").type):
        raise _bad(f"a variant column has no binary metadata (its fields: {t})", CLAUSE_SHREDDING)
    if "value" in names and not _is_binary(t.field("value").type):
        raise _bad(f"the value of a variant column is of Arrow type {t.field('value').type}, not binary",
                   CLAUSE_SHREDDING)
    cols = dict(zip(names, arr.flatten()))
    n = len(arr)
    metas = cols["metadata"].to_pylist()
    values = cols["value"].to_pylist() if "value" in cols else [None] * n
    typed_t = t.field("typed_value").type if "typed_value" in cols else None
    try:
        typed = cols["typed_value"].cast(_plain_type(typed_t)).to_pylist() if typed_t is not None else [None] * n
    except (pa.ArrowException, ValueError, TypeError) as e:
        raise _bad(f"the typed_value of a variant column (Arrow type {typed_t}) does not read: {e}",
                   CLAUSE_SHREDDING) from None
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * n
    out: list[Variant | None] = []
    for n, (ok, meta, value, tv) in enumerate(zip(valid, metas, values, typed)):
        if not ok or meta is None:
            out.append(None)
            continue
        keys, _ = decode_metadata(meta)
        found: list[str] = []
        got = _merge(keys, value, tv, typed_t, None if misordered is None else found)
        if found and misordered is not None:
            misordered.append((n, found[0]))
        out.append(NULL if got is None else got)
    return out


def shred(rows: list[Variant | None]) -> tuple[Any, Any]:
    """An Arrow struct array (and its type) of ``rows`` as a shredded variant column: ``metadata``,
    ``value``, and ``typed_value`` with each field of the top-level objects whose values (where
    present) are all one primitive type of :data:`_ARROW_OF`; the other fields stay in ``value``.
    A None row is a null variant."""
    import pyarrow as pa

    kinds: dict[str, set[str]] = {}
    for r in rows:
        if isinstance(r, dict):
            for k, x in r.items():
                kinds.setdefault(k, set()).add(x.type if isinstance(x, Primitive) else "nested")
    shredded = sorted(k for k, ts in kinds.items() if len(ts) == 1 and next(iter(ts)) in _ARROW_OF)
    fields = [pa.field(k, pa.struct([pa.field("value", pa.binary()),
                                     pa.field("typed_value", getattr(pa, _ARROW_OF[next(iter(kinds[k]))])())]),
                       nullable=False) for k in shredded]
    members = [pa.field("metadata", pa.binary(), nullable=False), pa.field("value", pa.binary())]
    if fields:
        members.append(pa.field("typed_value", pa.struct(fields)))
    struct_type = pa.struct(members)
    py: list[dict[str, Any] | None] = []
    for r in rows:
        if r is None:
            py.append(None)
            continue
        metadata = encode_metadata(sorted(_keys(r, set())))
        ids = {k: i for i, k in enumerate(decode_metadata(metadata)[0])}
        row: dict[str, Any] = {"metadata": metadata, "value": None}
        if isinstance(r, dict) and fields:
            rest = {k: x for k, x in r.items() if k not in shredded}
            row["typed_value"] = {k: {"value": None, "typed_value": getattr(r.get(k), "value", None)}
                                  for k in shredded}
            row["value"] = encode_value(rest, ids) if rest else None
        else:
            row["value"] = encode_value(r, ids)
            if fields:
                row["typed_value"] = None
        py.append(row)
    return pa.array(py, struct_type), struct_type


def column_bounds(rows: list[Variant | None], truncate: int | None = 16
                  ) -> tuple[dict[str, Primitive], dict[str, Primitive]]:
    """Lower and upper bounds by normalized path of ``rows`` ("Bounds for Variant"): for each path
    whose non-null values all have one Variant type (:meth:`PathValues.mixed`; no NaN), the least
    and greatest value;
    strings and binary cut to ``truncate`` code points or bytes (the upper bound rounded up, see
    :func:`truncate_upper`; a path whose upper bound cannot be rounded up has no bounds)."""
    seen = PathValues()
    for r in rows:
        if r is not None:
            seen.add(r)
    lower: dict[str, Primitive] = {}
    upper: dict[str, Primitive] = {}
    for path, by_class in seen.ranges.items():
        if seen.mixed(path) or path in seen.unordered or len(by_class) != 1:
            continue
        ((_, lo, _, hi),) = by_class.values()
        up = truncate_upper(hi, truncate) if truncate is not None else hi
        if up is None:
            continue
        lower[path] = truncate_lower(lo, truncate) if truncate is not None else lo
        upper[path] = up
    return lower, upper


def show(p: Primitive) -> str:
    """A primitive for a message: its type and value (bytes in hex)."""
    v = p.value.hex() if isinstance(p.value, bytes) else repr(p.value)
    return f"{p.type} {v}"
