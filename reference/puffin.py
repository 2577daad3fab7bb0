"""Puffin files: reader, writer and validator.

Spec: Puffin spec (``format/puffin-spec.md``) sections "File structure", "Footer structure",
"Footer Payload", "FileMetadata", "BlobMetadata", "Blob types", "Compression codecs" and
"Common properties". Deletion-vector blobs are decoded by :mod:`reference.deletion_vectors`.

Layout: ``Magic Blob1 ... BlobN Footer`` with ``Footer = Magic FooterPayload
FooterPayloadSize Flags Magic``; Magic is ``PFA1``; FooterPayloadSize is a 4-byte signed
little-endian integer; Flags are 4 bytes, byte 0 bit 0 = footer payload compressed.

What the reference does where the spec leaves room (documented decisions):

* **Reserved flag bits** ("reserved for future use and should be set to 0 on write"): the
  writer never sets them; the reader *rejects* a file with any of them set
  (``puffin.flags-reserved``). The one defined flag changes how the payload must be read, so
  a future flag may too; a reader that does not know a flag cannot read the file correctly.
  Iceberg Java 1.10 refuses such files the same way ("Unknown flag byte ... set").
* Footer compression is LZ4 only: a compressed payload must be one LZ4 frame with the
  content size in its header (``puffin.footer-compression``); a zstd frame is refused.
* Blob codecs are ``lz4`` and ``zstd`` (one frame each, content size present); any other
  ``compression-codec`` is refused ("other codecs are not supported").
* Blobs must lie between the leading magic and the footer (``puffin.blob-bounds``): a blob
  may not overlap the magic, the footer or the end of the file. Blobs overlapping each other
  are not forbidden by the spec and are accepted.
* Unknown keys in FileMetadata / BlobMetadata objects are ignored (forward compatibility);
  required keys with the wrong JSON type are refused (``puffin.footer-json``).
* Bounded memory: the footer size is checked against the file size before reading it; a
  compressed footer or blob is decompressed only after its frame header's content size has
  been checked against :class:`Limits`; decompression is capped at that size. Unknown blob
  types are returned as bytes, never interpreted; :func:`validate_puffin` checks their frames
  streamed, a megabyte at a time, so a blob costs the reader at most that much memory.

Readers never modify their input; errors are :class:`~reference.errors.SpecViolation` with
a rule id, the byte offset or JSON path, and the clause.
"""

from __future__ import annotations

import io
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Sequence

import datasketches
import lz4.frame
import zstandard

from . import deletion_vectors as dv
from .errors import SpecViolation
from .safeio import open_regular
from .findings import Finding

CLAUSE_FILE = "Puffin: File structure"
CLAUSE_FOOTER = "Puffin: Footer structure"
CLAUSE_PAYLOAD = "Puffin: Footer Payload"
CLAUSE_FILE_METADATA = "Puffin: FileMetadata"
CLAUSE_BLOB_METADATA = "Puffin: BlobMetadata"
CLAUSE_CODECS = "Puffin: Compression codecs"
CLAUSE_THETA = "Puffin: apache-datasketches-theta-v1 blob type"

MAGIC = b"PFA1"
FOOTER_STRUCT_LENGTH = 12            # payload size, flags, magic
MIN_FILE_LENGTH = 4 + 4 + FOOTER_STRUCT_LENGTH
FLAG_FOOTER_COMPRESSED = 0x01        # byte 0, bit 0
CODECS = ("lz4", "zstd")
THETA_BLOB_TYPE = "apache-datasketches-theta-v1"
LONG_RANGE = (-(1 << 63), (1 << 63) - 1)
LZ4_FRAME_MAGIC = 0x184D2204
CREATED_BY = "iceberg-conformance reference"


@dataclass(frozen=True)
class Limits:
    """Sizes the reader refuses to allocate: the uncompressed footer payload and the
    uncompressed size of one blob."""

    max_footer_bytes: int = 64 << 20
    max_blob_bytes: int = 256 << 20


DEFAULT_LIMITS = Limits()


def _violation(rule: str, message: str, clause: str, where: str = "") -> SpecViolation:
    return SpecViolation(rule, message, clause=clause, where=where)


# --- codecs ---------------------------------------------------------------------------------

def lz4_content_size(frame: bytes, where: str, clause: str) -> int:
    """The content size in an LZ4 frame header; refuses a frame without one.

    Only the header fields the spec names are read (LZ4 Frame format: magic, FLG byte with
    the Content Size flag in bit 3, BD byte, 8-byte little-endian content size).
    """
    if len(frame) < 7 or struct.unpack_from("<I", frame, 0)[0] != LZ4_FRAME_MAGIC:
        raise _violation("puffin.lz4-frame", "not an LZ4 frame (magic 04 22 4d 18 missing)", clause, where)
    flg = frame[4]
    if flg >> 6 != 0b01:
        raise _violation("puffin.lz4-frame", f"LZ4 frame version bits are {flg >> 6:02b}, expected 01",
                         clause, where)
    if not flg & 0x08:
        raise _violation("puffin.lz4-content-size", "LZ4 frame without content size (FLG bit 3 is 0); "
                         "the spec requires a single frame with content size present", clause, where)
    if len(frame) < 14:
        raise _violation("puffin.lz4-frame", "LZ4 frame header truncated", clause, where)
    size: int = struct.unpack_from("<Q", frame, 6)[0]
    return size


def zstd_content_size(frame: bytes, where: str, clause: str) -> int:
    """The content size in a Zstandard frame header; refuses a frame without one."""
    try:
        params = zstandard.get_frame_parameters(frame)
    except zstandard.ZstdError as e:
        raise _violation("puffin.zstd-frame", f"not a Zstandard frame: {e}", clause, where) from None
    if params.content_size == zstandard.CONTENTSIZE_UNKNOWN:
        raise _violation("puffin.zstd-content-size", "Zstandard frame without content size; the spec "
                         "requires a single frame with content size present", clause, where)
    size: int = params.content_size
    return size


def decompress(codec: str, data: bytes, limit: int, *, where: str = "", clause: str = CLAUSE_CODECS) -> bytes:
    """Decompress one ``lz4`` or ``zstd`` frame after checking its declared size against
    ``limit``; the frame must be the whole input and produce exactly the declared size."""
    if codec == "lz4":
        size = lz4_content_size(data, where, clause)
    elif codec == "zstd":
        size = zstd_content_size(data, where, clause)
    else:
        raise _violation("puffin.codec", f"compression codec {codec!r} is not lz4 or zstd", clause, where)
    if size > limit:
        raise _violation("puffin.size-limit", f"{codec} frame claims {size} uncompressed bytes, over "
                         f"the reader's limit of {limit}; refused before allocating", clause, where)
    try:
        if codec == "lz4":
            d = lz4.frame.LZ4FrameDecompressor()
            out = d.decompress(data, max_length=size + 1)
            done, rest = d.eof, d.unused_data
        else:
            z = zstandard.ZstdDecompressor().decompressobj()
            out = z.decompress(data)
            done, rest = z.eof, z.unused_data
    except (RuntimeError, zstandard.ZstdError) as e:
        raise _violation("puffin.corrupt-frame", f"{codec} frame does not decompress: {e}", clause, where) from None
    if not done:
        raise _violation("puffin.corrupt-frame", f"{codec} frame is truncated", clause, where)
    if rest:
        raise _violation("puffin.single-frame", f"{len(rest)} bytes after the {codec} frame; the spec "
                         "requires a single frame", clause, where)
    if len(out) != size:
        raise _violation("puffin.corrupt-frame", f"{codec} frame declares {size} bytes but holds "
                         f"{len(out)}", clause, where)
    return bytes(out)


def compress(codec: str, data: bytes) -> bytes:
    """One frame with the content size in its header."""
    if codec == "lz4":
        return bytes(lz4.frame.compress(data, store_size=True))
    if codec == "zstd":
        return bytes(zstandard.ZstdCompressor(write_content_size=True).compress(data))
    raise _violation("puffin.codec", f"compression codec {codec!r} is not lz4 or zstd", CLAUSE_CODECS)


# --- footer JSON ----------------------------------------------------------------------------

@dataclass(frozen=True)
class BlobMetadata:
    """One entry of ``blobs`` in the footer."""

    type: str
    fields: tuple[int, ...]
    snapshot_id: int
    sequence_number: int
    offset: int
    length: int
    compression_codec: str | None = None
    properties: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type, "fields": list(self.fields), "snapshot-id": self.snapshot_id,
            "sequence-number": self.sequence_number, "offset": self.offset, "length": self.length,
        }
        if self.compression_codec is not None:
            out["compression-codec"] = self.compression_codec
        out["properties"] = dict(self.properties)
        return out


@dataclass(frozen=True)
class FileMetadata:
    """The footer payload."""

    blobs: tuple[BlobMetadata, ...]
    properties: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"blobs": [b.to_json() for b in self.blobs], "properties": dict(self.properties)}


def _json_error(path: str, message: str, clause: str) -> SpecViolation:
    return _violation("puffin.footer-json", message, clause, f"footer{path}")


def _long(obj: dict[str, Any], key: str, path: str) -> int:
    if key not in obj:
        raise _json_error(path, f"required field {key!r} is missing", CLAUSE_BLOB_METADATA)
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool) or not LONG_RANGE[0] <= v <= LONG_RANGE[1]:
        raise _json_error(f"{path}/{key}", f"{key} is {v!r}, expected a JSON long", CLAUSE_BLOB_METADATA)
    return v


def _string_map(obj: dict[str, Any], key: str, path: str, clause: str) -> dict[str, str]:
    v = obj.get(key, {})
    if not isinstance(v, dict) or not all(isinstance(x, str) for x in v.values()):
        raise _json_error(f"{path}/{key}", f"{key} is {v!r}, expected an object with string values", clause)
    return dict(v)


def parse_blob_metadata(obj: Any, path: str) -> BlobMetadata:
    if not isinstance(obj, dict):
        raise _json_error(path, f"blob metadata is {type(obj).__name__}, expected an object", CLAUSE_BLOB_METADATA)
    typ = obj.get("type")
    if not isinstance(typ, str):
        raise _json_error(f"{path}/type", f"type is {typ!r}, expected a JSON string", CLAUSE_BLOB_METADATA)
    fields = obj.get("fields")
    if not isinstance(fields, list) or not all(isinstance(f, int) and not isinstance(f, bool)
                                               and -(1 << 31) <= f < (1 << 31) for f in fields):
        raise _json_error(f"{path}/fields", f"fields is {fields!r}, expected a list of ints", CLAUSE_BLOB_METADATA)
    codec = obj.get("compression-codec")
    if codec is not None and not isinstance(codec, str):
        raise _json_error(f"{path}/compression-codec", f"compression-codec is {codec!r}, expected a string",
                          CLAUSE_BLOB_METADATA)
    meta = BlobMetadata(
        type=typ, fields=tuple(fields), snapshot_id=_long(obj, "snapshot-id", path),
        sequence_number=_long(obj, "sequence-number", path), offset=_long(obj, "offset", path),
        length=_long(obj, "length", path), compression_codec=codec,
        properties=_string_map(obj, "properties", path, CLAUSE_BLOB_METADATA),
    )
    if codec is not None and codec not in CODECS:
        raise _violation("puffin.codec", f"compression-codec {codec!r} is not lz4 or zstd", CLAUSE_CODECS,
                         f"footer{path}/compression-codec")
    return meta


def parse_file_metadata(payload: bytes) -> FileMetadata:
    """Parse the (uncompressed) footer payload: UTF-8 JSON of one FileMetadata object."""
    try:
        doc = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise _json_error("", f"footer payload is not UTF-8 at byte {e.start}", CLAUSE_PAYLOAD) from None
    except json.JSONDecodeError as e:
        raise _violation("puffin.footer-json", f"footer payload is not JSON: {e}", CLAUSE_PAYLOAD,
                         f"footer payload, byte {e.pos}") from None
    except RecursionError:
        raise _json_error("", "footer payload is JSON nested too deeply to read", CLAUSE_PAYLOAD) from None
    except ValueError as e:  # Python's limit on integer literals (4,300 digits)
        raise _json_error("", f"footer payload holds a number this reader cannot take: {str(e)[:120]}",
                          CLAUSE_PAYLOAD) from None
    if not isinstance(doc, dict):
        raise _json_error("", f"footer payload is a JSON {type(doc).__name__}, expected an object",
                          CLAUSE_FILE_METADATA)
    blobs = doc.get("blobs")
    if not isinstance(blobs, list):
        raise _json_error("/blobs", "required field 'blobs' is missing or not a list", CLAUSE_FILE_METADATA)
    return FileMetadata(tuple(parse_blob_metadata(b, f"/blobs/{i}") for i, b in enumerate(blobs)),
                        _string_map(doc, "properties", "", CLAUSE_FILE_METADATA))


# --- reading --------------------------------------------------------------------------------

def _read_at(f: BinaryIO, offset: int, length: int) -> bytes:
    f.seek(offset)
    data = f.read(length)
    if len(data) != length:
        raise _violation("puffin.truncated", f"{length} bytes at {offset} are past the end of the file",
                         CLAUSE_FILE, f"byte {offset}")
    return data


@dataclass(frozen=True)
class PuffinFile:
    """A read Puffin file: footer metadata and where the footer starts; blob bytes are read on
    demand from ``source``."""

    source: str | bytes
    size: int
    footer_start: int
    footer_compressed: bool
    metadata: FileMetadata
    limits: Limits = DEFAULT_LIMITS

    def _open(self) -> BinaryIO:
        return io.BytesIO(self.source) if isinstance(self.source, bytes) else open_regular(self.source)

    def raw_blob(self, index: int) -> bytes:
        """The stored (possibly compressed) bytes of blob ``index``."""
        b = self.metadata.blobs[index]
        with self._open() as f:
            return _read_at(f, b.offset, b.length)

    def check_frame(self, index: int) -> None:
        """Blob ``index``'s compression frame checked without holding its content: streamed a
        megabyte at a time, the output counted and dropped. The same refusals as
        :meth:`blob_payload` (size over the limit, a frame that holds more or less than it
        declares, bytes after the frame), in memory bounded by the chunk, not the blob."""
        b = self.metadata.blobs[index]
        if b.compression_codec is None:
            return
        where = f"footer/blobs/{index} (bytes {b.offset}..{b.offset + b.length})"
        codec, chunk = b.compression_codec, 1 << 20
        with self._open() as f:
            f.seek(b.offset)
            head = f.read(min(b.length, 64))
            if codec == "lz4":
                size = lz4_content_size(head, where, CLAUSE_CODECS)
            elif codec == "zstd":
                size = zstd_content_size(head, where, CLAUSE_CODECS)
            else:
                raise _violation("puffin.codec", f"compression codec {codec!r} is not lz4 or zstd",
                                 CLAUSE_CODECS, where)
            if size > self.limits.max_blob_bytes:
                raise _violation("puffin.size-limit", f"{codec} frame claims {size} uncompressed bytes, over "
                                 f"the reader's limit of {self.limits.max_blob_bytes}; refused before "
                                 "decompressing", CLAUSE_CODECS, where)
            f.seek(b.offset)
            left, total = b.length, 0
            d: Any = (lz4.frame.LZ4FrameDecompressor() if codec == "lz4"
                      else zstandard.ZstdDecompressor().decompressobj())
            try:
                while left and not d.eof:
                    # zstd expands a 1 KiB input at most ~40,000-fold; lz4 output is drawn a chunk at a time
                    raw = f.read(min(left, chunk if codec == "lz4" else 1024))
                    left -= len(raw)
                    if codec == "lz4":
                        out = d.decompress(raw, max_length=chunk)
                        total += len(out)
                        while not d.needs_input and not d.eof and total <= size:
                            total += len(d.decompress(b"", max_length=chunk))
                    else:
                        total += len(d.decompress(raw))
                    if total > size:
                        raise _violation("puffin.corrupt-frame", f"{codec} frame declares {size} bytes but "
                                         "holds more; refused once past the declared size", CLAUSE_CODECS, where)
            except (RuntimeError, zstandard.ZstdError) as e:
                raise _violation("puffin.corrupt-frame", f"{codec} frame does not decompress: {e}", CLAUSE_CODECS,
                                 where) from None
            if not d.eof:
                raise _violation("puffin.corrupt-frame", f"{codec} frame is truncated", CLAUSE_CODECS, where)
            if left or d.unused_data:
                raise _violation("puffin.single-frame", f"{left + len(d.unused_data)} bytes after the {codec} "
                                 "frame; the spec requires a single frame", CLAUSE_CODECS, where)
            if total != size:
                raise _violation("puffin.corrupt-frame", f"{codec} frame declares {size} bytes but holds "
                                 f"{total}", CLAUSE_CODECS, where)

    def blob_payload(self, index: int) -> bytes:
        """The uncompressed bytes of blob ``index``."""
        b = self.metadata.blobs[index]
        raw = self.raw_blob(index)
        if b.compression_codec is None:
            return raw
        return decompress(b.compression_codec, raw, self.limits.max_blob_bytes,
                          where=f"footer/blobs/{index} (bytes {b.offset}..{b.offset + b.length})")


def read_puffin(source: str | os.PathLike[str] | bytes, limits: Limits = DEFAULT_LIMITS) -> PuffinFile:
    """Read and check the structure of a Puffin file (magics, footer, flags, footer JSON, blob
    bounds and codecs). Blob contents are checked by :func:`decode_blob`."""
    src: str | bytes = source if isinstance(source, bytes) else os.fspath(source)
    try:
        f: BinaryIO = io.BytesIO(src) if isinstance(src, bytes) else open_regular(src)
    except OSError as e:
        raise _violation("puffin.unreadable", f"cannot open the file: {e.strerror or e}", CLAUSE_FILE,
                         "byte 0") from None
    with f:
        size = f.seek(0, io.SEEK_END)
        if size < MIN_FILE_LENGTH:
            raise _violation("puffin.truncated", f"file is {size} bytes; the smallest Puffin file (two "
                             f"magics and the footer struct) has {MIN_FILE_LENGTH}", CLAUSE_FILE, f"byte {size}")
        head = _read_at(f, 0, 4)
        if head != MAGIC:
            raise _violation("puffin.magic", f"file starts with {head.hex()}, expected 50464131 (PFA1)",
                             CLAUSE_FILE, "byte 0")
        tail = _read_at(f, size - FOOTER_STRUCT_LENGTH, FOOTER_STRUCT_LENGTH)
        if tail[8:] != MAGIC:
            raise _violation("puffin.magic", f"file ends with {tail[8:].hex()}, expected 50464131 (PFA1)",
                             CLAUSE_FOOTER, f"byte {size - 4}")
        payload_size = struct.unpack_from("<i", tail, 0)[0]
        flags = tail[4:8]
        footer_start = size - FOOTER_STRUCT_LENGTH - payload_size - 4
        if payload_size < 0 or footer_start < 4:
            raise _violation("puffin.footer-size", f"footer payload size {payload_size} does not fit in a "
                             f"file of {size} bytes (the footer would start at {footer_start})",
                             CLAUSE_FOOTER, f"byte {size - FOOTER_STRUCT_LENGTH}")
        reserved = int.from_bytes(flags, "little") & ~FLAG_FOOTER_COMPRESSED
        if reserved:
            bits = [f"byte {i // 8} bit {i % 8}" for i in range(32) if reserved >> i & 1]
            raise _violation("puffin.flags-reserved", f"reserved flag bits set: {', '.join(bits)} (flags "
                             f"{flags.hex()}); their meaning is unknown to this reader", CLAUSE_FOOTER,
                             f"byte {size - 8}")
        compressed = bool(flags[0] & FLAG_FOOTER_COMPRESSED)
        footer_magic = _read_at(f, footer_start, 4)
        if footer_magic != MAGIC:
            raise _violation("puffin.magic", f"footer starts with {footer_magic.hex()}, expected 50464131 "
                             "(PFA1); the payload size or the footer is wrong", CLAUSE_FOOTER, f"byte {footer_start}")
        if not compressed and payload_size > limits.max_footer_bytes:
            raise _violation("puffin.size-limit", f"footer payload of {payload_size} bytes is over the "
                             f"reader's limit of {limits.max_footer_bytes}", CLAUSE_PAYLOAD, f"byte {footer_start + 4}")
        payload = _read_at(f, footer_start + 4, payload_size)
    if compressed:
        try:
            payload = decompress("lz4", payload, limits.max_footer_bytes,
                                 where=f"footer payload (byte {footer_start + 4})", clause=CLAUSE_PAYLOAD)
        except SpecViolation as e:
            if e.rule in ("puffin.lz4-frame", "puffin.corrupt-frame"):
                raise _violation("puffin.footer-compression", f"compressed footer payload is not one LZ4 "
                                 f"frame (the only footer codec): {e.detail}", CLAUSE_PAYLOAD, e.where) from None
            raise
    metadata = parse_file_metadata(payload)
    for i, b in enumerate(metadata.blobs):
        if b.offset < 4 or b.length < 0 or b.offset + b.length > footer_start:
            raise _violation("puffin.blob-bounds", f"blob {i} spans bytes {b.offset}..{b.offset + b.length}; "
                             f"blobs lie between the leading magic (ends at 4) and the footer (starts at "
                             f"{footer_start})", CLAUSE_BLOB_METADATA, f"footer/blobs/{i}")
    return PuffinFile(src, size, footer_start, compressed, metadata, limits)


# --- blob types -----------------------------------------------------------------------------

def decode_theta(payload: bytes, where: str = "") -> dict[str, Any]:
    """A compact Theta sketch (default seed): ``{"estimate": float}``."""
    try:
        sketch = datasketches.compact_theta_sketch.deserialize(payload)
    except Exception as e:  # noqa: BLE001 - datasketches raises RuntimeError/ValueError on bad bytes
        raise _violation("puffin.theta-sketch", f"not a compact Theta sketch with the default seed: {e}",
                         CLAUSE_THETA, where) from None
    return {"estimate": float(sketch.get_estimate())}


def theta_sketch(serialized_values: Sequence[bytes]) -> bytes:
    """A compact Theta sketch (default seed) of values in Iceberg's single-value binary form.

    The datasketches Python API hashes exactly the bytes of an ``int`` (8 bytes little-endian)
    and of a ``str`` (its UTF-8 bytes); a value is fed through whichever of the two carries
    its serialized bytes unchanged. Other byte strings cannot be fed through that API and are
    refused (``puffin.theta-unsupported-value``).
    """
    sketch = datasketches.update_theta_sketch()
    for b in serialized_values:
        if len(b) == 8:
            sketch.update(int.from_bytes(b, "little", signed=True))
            continue
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            raise _violation("puffin.theta-unsupported-value", f"serialized value {b.hex()} cannot be fed "
                             "to the datasketches Python API unchanged", CLAUSE_THETA) from None
        sketch.update(text)
    return bytes(sketch.compact().serialize())


def decode_blob(meta: BlobMetadata, payload: bytes, where: str = "") -> dict[str, Any]:
    """The decoded content of a blob (the sidecar form): theta ``{"estimate"}``, deletion
    vector ``{"cardinality", "positions"}``, any other type ``{"hex"}``."""
    if meta.type == THETA_BLOB_TYPE:
        return decode_theta(payload, where)
    if meta.type == dv.BLOB_TYPE:
        vec = dv.decode_blob(payload, where)
        problems = dv.check_blob_metadata(meta.snapshot_id, meta.sequence_number, meta.compression_codec,
                                          meta.properties, vec.cardinality)
        if problems:
            raise problems[0].at(where) if where else problems[0]
        return {"cardinality": vec.cardinality, "positions": list(vec.positions)}
    return {"hex": payload.hex()}


def read_form(source: str | os.PathLike[str] | bytes, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The sidecar form of a Puffin file: footer flag, file properties, and per blob its
    metadata plus decoded ``content`` (see ``suites/test_puffin.py``)."""
    pf = read_puffin(source, limits)
    blobs = []
    for i, b in enumerate(pf.metadata.blobs):
        entry = b.to_json()
        entry["content"] = decode_blob(b, pf.blob_payload(i), f"footer/blobs/{i}")
        blobs.append(entry)
    return {"footer-compressed": pf.footer_compressed, "properties": dict(pf.metadata.properties),
            "blobs": blobs}


def validate_puffin(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    """Every violation found in a Puffin file. Structural errors stop the check (nothing after
    them can be located); each blob is then checked on its own."""
    name = os.fspath(path)
    try:
        pf = read_puffin(name, limits)
    except SpecViolation as e:
        return [Finding.from_violation(e, name)]
    found: list[Finding] = []
    if "created-by" not in pf.metadata.properties:
        found.append(Finding("puffin.created-by", "file property created-by is not set (recommended)",
                             "Puffin: Common properties", name, "footer/properties", "warning"))
    for i, b in enumerate(pf.metadata.blobs):
        where = f"footer/blobs/{i}"
        try:
            if b.type in (THETA_BLOB_TYPE, dv.BLOB_TYPE):
                decode_blob(b, pf.blob_payload(i), where)
            else:  # not interpreted: only its frame is checked, streamed
                pf.check_frame(i)
        except SpecViolation as e:
            found.append(Finding.from_violation(e, name, e.where or where))
        if b.type == THETA_BLOB_TYPE and "ndv" in b.properties:
            ndv = b.properties["ndv"]
            if not (ndv.isascii() and ndv.isdigit()):
                found.append(Finding("puffin.theta-ndv", f"ndv {ndv!r} is not a non-negative decimal integer",
                                     CLAUSE_THETA, name, f"{where}/properties/ndv"))
    return found


# --- writing --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BlobToWrite:
    """A blob for :func:`write_puffin`: its uncompressed payload and footer fields (offset and
    length are computed by the writer)."""

    type: str
    fields: tuple[int, ...]
    snapshot_id: int
    sequence_number: int
    payload: bytes
    compression_codec: str | None = None
    properties: dict[str, str] = field(default_factory=dict)


def theta_blob(serialized_values: Sequence[bytes], fields: Sequence[int], snapshot_id: int,
               sequence_number: int, codec: str | None = None) -> BlobToWrite:
    """An ``apache-datasketches-theta-v1`` blob of distinct values with its ``ndv`` property."""
    payload = theta_sketch(serialized_values)
    ndv = round(datasketches.compact_theta_sketch.deserialize(payload).get_estimate())
    return BlobToWrite(THETA_BLOB_TYPE, tuple(fields), snapshot_id, sequence_number, payload, codec,
                       {"ndv": str(ndv)})


def deletion_vector_blob(positions: Sequence[int], referenced_data_file: str,
                         fields: Sequence[int] = (2147483645,)) -> BlobToWrite:
    """A ``deletion-vector-v1`` blob (uncompressed, snapshot-id and sequence-number -1).

    ``fields`` defaults to the row-position metadata column id that Iceberg Java writes; the
    spec does not say which field ids a deletion vector names."""
    unique = sorted(set(positions))
    return BlobToWrite(dv.BLOB_TYPE, tuple(fields), -1, -1, dv.encode_blob(unique), None,
                       {"referenced-data-file": referenced_data_file, "cardinality": str(len(unique))})


def write_puffin(blobs: Sequence[BlobToWrite], *, properties: dict[str, str] | None = None,
                 compress_footer: bool = False, created_by: str | None = CREATED_BY) -> bytes:
    """The bytes of a Puffin file holding ``blobs`` in order. ``created-by`` is set unless
    ``properties`` has it or ``created_by`` is ``None``."""
    props = dict(properties or {})
    if created_by is not None:
        props.setdefault("created-by", created_by)
    out = bytearray(MAGIC)
    metas = []
    for b in blobs:
        if b.type == dv.BLOB_TYPE and b.compression_codec is not None:
            raise _violation("dv.compression", "deletion-vector-v1 blobs are not compressed", dv.CLAUSE_BLOB)
        stored = b.payload if b.compression_codec is None else compress(b.compression_codec, b.payload)
        metas.append(BlobMetadata(b.type, b.fields, b.snapshot_id, b.sequence_number, len(out), len(stored),
                                  b.compression_codec, dict(b.properties)))
        out += stored
    doc = FileMetadata(tuple(metas), props).to_json()
    for m in doc["blobs"]:
        if not m["properties"]:
            del m["properties"]
    if not doc["properties"]:
        del doc["properties"]
    payload = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    if compress_footer:
        payload = compress("lz4", payload)
    if len(payload) > 0x7FFFFFFF:
        raise _violation("puffin.footer-size", "footer payload over 2 GiB cannot be sized in 4 bytes",
                         CLAUSE_FOOTER)
    out += MAGIC + payload
    out += struct.pack("<i", len(payload))
    out += bytes([FLAG_FOOTER_COMPRESSED if compress_footer else 0, 0, 0, 0])
    out += MAGIC
    return bytes(out)


