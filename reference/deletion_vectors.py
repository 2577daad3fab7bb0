"""Deletion vectors: the ``deletion-vector-v1`` Puffin blob and its manifest entry.

Spec sections: Puffin spec "``deletion-vector-v1`` blob type"; table spec "Delete Formats /
Deletion Vectors", "Manifests" (``referenced_data_file``, ``content_offset``,
``content_size_in_bytes``, ``record_count``: "the cardinality of a deletion vector").

A blob is::

    length (4 bytes, big-endian) = 4 + len(vector)
    magic  D1 D3 39 64
    vector: portable 64-bit Roaring bitmap
    CRC-32 of magic + vector (4 bytes, big-endian)

The vector is the Roaring "portable" 64-bit extension: the number of 32-bit bitmaps as
8 bytes little-endian, then per bitmap (keys ascending, unsigned) the key as 4 bytes
little-endian and a 32-bit Roaring bitmap in the portable format. A position is
``key << 32 | sub_position``; the most significant bit must be 0, so keys are at most
``0x7FFFFFFF``.

The 32-bit bitmaps themselves are read and written by ``pyroaring`` (``BitMap``); this
module does the 64-bit framing, measures each 32-bit bitmap from its portable header before
handing it to pyroaring (so a corrupt count never makes the reader allocate or read past the
blob), and checks the CRC with ``zlib.crc32``.

What the reference does where the spec leaves room: keys must be strictly ascending (the
spec orders them; a repeated key is rejected); an empty 32-bit bitmap for a key is accepted;
bytes after the last bitmap and before the CRC are rejected (the length says where the vector
ends, so trailing bytes mean a corrupt length or vector).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Iterable

from pyroaring import BitMap

from .errors import SpecViolation
from .findings import Finding

CLAUSE_BLOB = "Puffin: deletion-vector-v1 blob type"
CLAUSE_TABLE = "Delete Formats: Deletion Vectors"
CLAUSE_MANIFEST = "Manifests: data_file content_offset, content_size_in_bytes, referenced_data_file"

BLOB_TYPE = "deletion-vector-v1"
MAGIC = bytes.fromhex("D1D33964")
MAX_POSITION = (1 << 63) - 1
MAX_KEY = 0x7FFFFFFF

_SERIAL_COOKIE_NO_RUN = 12346
_SERIAL_COOKIE = 12347
_NO_OFFSET_THRESHOLD = 4
_ARRAY_MAX = 4096


def _bad(rule: str, message: str, where: str = "") -> SpecViolation:
    return SpecViolation(rule, message, clause=CLAUSE_BLOB, where=where)


def portable32_size(data: bytes, pos: int, end: int) -> int:
    """Byte length of the 32-bit portable Roaring bitmap starting at ``data[pos]``.

    Reads only the bitmap's headers (RoaringFormatSpec "General layout") and never reads past
    ``end``; raises ``dv.bitmap`` when the headers do not fit.
    """
    def need(p: int, n: int, what: str) -> None:
        if p + n > end:
            raise _bad("dv.bitmap", f"32-bit Roaring bitmap at byte {pos}: {what} needs {n} bytes "
                       f"at {p} but the vector ends at {end}")

    need(pos, 4, "the cookie")
    cookie: int = struct.unpack_from("<I", data, pos)[0]
    p = pos + 4
    run_flags = b""
    n: int
    if cookie & 0xFFFF == _SERIAL_COOKIE:
        n = (cookie >> 16) + 1
        need(p, (n + 7) // 8, "the run-container bitset")
        run_flags = data[p:p + (n + 7) // 8]
        p += (n + 7) // 8
        has_offsets = n >= _NO_OFFSET_THRESHOLD
    elif cookie == _SERIAL_COOKIE_NO_RUN:
        need(p, 4, "the container count")
        n = struct.unpack_from("<I", data, p)[0]
        p += 4
        has_offsets = True
    else:
        raise _bad("dv.bitmap", f"32-bit Roaring bitmap at byte {pos}: unknown cookie {cookie:#010x}")
    if n > 1 << 16:
        raise _bad("dv.bitmap", f"32-bit Roaring bitmap at byte {pos}: {n} containers (at most 65536)")
    need(p, 4 * n, "the descriptive header")
    cards = [struct.unpack_from("<H", data, p + 4 * i + 2)[0] + 1 for i in range(n)]
    p += 4 * n
    if has_offsets:
        need(p, 4 * n, "the offset header")
        p += 4 * n
    for i, card in enumerate(cards):
        if run_flags and run_flags[i // 8] >> (i % 8) & 1:
            need(p, 2, "a run container's run count")
            runs = struct.unpack_from("<H", data, p)[0]
            size = 2 + 4 * runs
        elif card > _ARRAY_MAX:
            size = 8192
        else:
            size = 2 * card
        need(p, size, f"container {i}")
        p += size
    return p - pos


def serialize_positions(positions: Iterable[int]) -> bytes:
    """The portable 64-bit Roaring serialization of a set of row positions."""
    by_key: dict[int, list[int]] = {}
    for pos in positions:
        if not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos <= MAX_POSITION:
            raise _bad("dv.position", f"position {pos!r}: must be an integer in 0..2^63-1")
        by_key.setdefault(pos >> 32, []).append(pos & 0xFFFFFFFF)
    out = [struct.pack("<Q", len(by_key))]
    for key in sorted(by_key):
        out.append(struct.pack("<I", key))
        out.append(BitMap(by_key[key]).serialize())
    return b"".join(out)


def deserialize_positions(vector: bytes, where: str = "") -> list[int]:
    """Row positions (ascending) of a portable 64-bit Roaring bitmap; the whole input is used."""
    if len(vector) < 8:
        raise _bad("dv.bitmap", f"vector of {len(vector)} bytes: the bitmap count needs 8", where)
    count: int = struct.unpack_from("<Q", vector, 0)[0]
    # every 32-bit bitmap takes at least 4 (key) + 8 (cookie and count) bytes
    if count > (len(vector) - 8) // 12:
        raise _bad("dv.bitmap", f"vector claims {count} 32-bit bitmaps but has only "
                   f"{len(vector)} bytes", where)
    pos = 8
    last_key = -1
    out: list[int] = []
    for i in range(count):
        if pos + 4 > len(vector):
            raise _bad("dv.bitmap", f"bitmap {i}: key at byte {pos} is past the vector end", where)
        key = struct.unpack_from("<I", vector, pos)[0]
        if key > MAX_KEY:
            raise _bad("dv.position", f"bitmap {i}: key {key:#x} sets the most significant bit of "
                       "a 64-bit position (positions must be positive)", where)
        if key <= last_key:
            raise _bad("dv.key-order", f"bitmap {i}: key {key} after key {last_key} (keys must be "
                       "ascending and unique)", where)
        last_key = key
        pos += 4
        try:
            size = portable32_size(vector, pos, len(vector))
        except SpecViolation as e:
            raise _bad(e.rule, f"bitmap {i} (key {key}): {e.detail}", where or f"vector byte {pos}") from None
        try:
            bitmap = BitMap.deserialize(vector[pos:pos + size])
        except Exception as e:  # noqa: BLE001 - pyroaring raises plain exceptions on corrupt input
            raise _bad("dv.bitmap", f"bitmap {i} (key {key}) at byte {pos}: not a valid portable "
                       f"Roaring bitmap: {e}", where) from None
        out.extend((key << 32) | sub for sub in bitmap)
        pos += size
    if pos != len(vector):
        raise _bad("dv.length", f"{len(vector) - pos} bytes after the last bitmap (the length "
                   "field covers more than the vector)", where)
    return out


def encode_blob(positions: Iterable[int]) -> bytes:
    """A ``deletion-vector-v1`` blob holding ``positions``."""
    body = MAGIC + serialize_positions(positions)
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


@dataclass(frozen=True)
class DeletionVector:
    """A decoded blob: the deleted row positions, ascending."""

    positions: tuple[int, ...]

    @property
    def cardinality(self) -> int:
        return len(self.positions)


def decode_blob(blob: bytes, where: str = "") -> DeletionVector:
    """Decode and check a ``deletion-vector-v1`` blob (length, magic, CRC, bitmap)."""
    if len(blob) < 12:
        raise _bad("dv.length", f"blob of {len(blob)} bytes; length, magic and CRC need 12", where)
    length = struct.unpack_from(">I", blob, 0)[0]
    if length != len(blob) - 8:
        raise _bad("dv.length", f"length field says {length} bytes of magic and vector, the blob "
                   f"holds {len(blob) - 8}", where)
    if blob[4:8] != MAGIC:
        raise _bad("dv.magic", f"magic is {blob[4:8].hex()}, expected d1d33964", where)
    body = blob[4:4 + length]
    stored = struct.unpack_from(">I", blob, 4 + length)[0]
    actual = zlib.crc32(body)
    if stored != actual:
        raise _bad("dv.crc", f"CRC-32 is {stored:#010x}, magic and vector hash to {actual:#010x}", where)
    return DeletionVector(tuple(deserialize_positions(body[4:], where)))


def check_blob_metadata(snapshot_id: int, sequence_number: int, compression_codec: str | None,
                        properties: dict[str, str], cardinality: int | None) -> list[SpecViolation]:
    """Rules on the footer entry of a ``deletion-vector-v1`` blob; ``cardinality`` is the
    decoded one when known."""
    out: list[SpecViolation] = []
    if snapshot_id != -1:
        out.append(_bad("dv.snapshot-id", f"snapshot-id is {snapshot_id}; must be -1"))
    if sequence_number != -1:
        out.append(_bad("dv.sequence-number", f"sequence-number is {sequence_number}; must be -1"))
    if compression_codec is not None:
        out.append(_bad("dv.compression", f"compression-codec is {compression_codec!r}; "
                        "deletion-vector-v1 is not compressed and omits the field"))
    if "referenced-data-file" not in properties:
        out.append(_bad("dv.referenced-data-file", "property referenced-data-file is missing"))
    card = properties.get("cardinality")
    if card is None:
        out.append(_bad("dv.cardinality", "property cardinality is missing"))
    elif not card.isascii() or not card.isdigit() or len(card) > 20:
        out.append(_bad("dv.cardinality", f"property cardinality {card!r} is not a decimal count"))
    elif cardinality is not None and int(card) != cardinality:
        out.append(_bad("dv.cardinality", f"property cardinality is {card}, the vector has "
                        f"{cardinality} positions"))
    return out


def check_manifest_entry(
    *,
    blob_offset: int,
    blob_length: int,
    blob_referenced_data_file: str | None,
    blob_cardinality: int | None,
    content_offset: int | None,
    content_size_in_bytes: int | None,
    referenced_data_file: str | None,
    record_count: int | None,
    file: str = "",
    location: str = "",
) -> list[Finding]:
    """Whether a delete manifest entry agrees with the Puffin blob it points at.

    A pure function for the table checker: ``blob_*`` come from the Puffin footer (and the
    decoded vector's cardinality when read), the others from the manifest entry's
    ``data_file``. The spec: ``content_offset`` and ``content_size_in_bytes`` are required
    for DVs and "must exactly match the offset and length stored in the Puffin footer";
    ``referenced_data_file`` is required and must equal the blob's ``referenced-data-file``;
    ``record_count`` is "the cardinality of a deletion vector".
    """
    found: list[Finding] = []

    def add(rule: str, message: str, clause: str = CLAUSE_MANIFEST) -> None:
        found.append(Finding(rule, message, clause, file, location))

    if content_offset is None:
        add("dv.manifest-content-offset", "content_offset is missing; required for a deletion vector")
    elif content_offset != blob_offset:
        add("dv.manifest-content-offset", f"content_offset is {content_offset}, the Puffin footer "
            f"says the blob starts at {blob_offset}")
    if content_size_in_bytes is None:
        add("dv.manifest-content-size", "content_size_in_bytes is missing; required for a deletion vector")
    elif content_size_in_bytes != blob_length:
        add("dv.manifest-content-size", f"content_size_in_bytes is {content_size_in_bytes}, the "
            f"Puffin footer says the blob is {blob_length} bytes")
    if referenced_data_file is None:
        add("dv.manifest-referenced-data-file", "referenced_data_file is missing; required for a "
            "deletion vector")
    elif blob_referenced_data_file is not None and referenced_data_file != blob_referenced_data_file:
        add("dv.manifest-referenced-data-file", f"referenced_data_file is {referenced_data_file!r}, "
            f"the blob's referenced-data-file is {blob_referenced_data_file!r}")
    if blob_cardinality is not None and record_count != blob_cardinality:
        add("dv.manifest-record-count", f"record_count is {record_count}, the deletion vector has "
            f"{blob_cardinality} positions", "Manifests: data_file record_count")
    return found
