"""Hostile tables for the checker: decompression bombs and sparse giant files.

Each builder takes a table the reference writer wrote (metadata path) and damages one file in
place, so the table's other files stay valid. The same builders serve
``tests/test_hostile_tables.py`` (a clear finding and an exit code) and
``benchmarks/bench_hostile.py`` (the checker's peak memory on each input).

No builder holds the expanded content in memory: the bombs are compressed a megabyte at a time,
and the giant files are sparse (a hole after a few real bytes).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any, Callable

MiB = 1 << 20


def _doc(md: str) -> dict:
    with open(md, encoding="utf-8") as f:
        doc: dict = json.load(f)
    return doc


def _current(doc: dict) -> dict:
    snap: dict = next(s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"])
    return snap


def first_manifest(md: str) -> str:
    from iceberg_conformance.reference import manifests as m

    doc = _doc(md)
    mfs, _ = m.read_manifest_list(_current(doc)["manifest-list"], doc["format-version"])
    path: str = mfs[0]["manifest_path"]
    return path


def first_data_file(md: str) -> str:
    from iceberg_conformance.reference import manifests as m

    doc = _doc(md)
    entries, _ = m.read_manifest(first_manifest(md), doc["format-version"])
    path: str = entries[0]["data_file"]["file_path"]
    return path


def _avro_header(path: str) -> tuple[bytes, bytes]:
    """(the file's bytes up to and including its sync marker, the sync marker)."""
    from iceberg_conformance.reference.avro import _read_header

    data = Path(path).read_bytes()
    _, body_at = _read_header(data)
    return data[:body_at + 16], data[body_at:body_at + 16]


def _zigzag(n: int) -> bytes:
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _with_codec(header: bytes, codec: bytes) -> bytes:
    """An Avro header re-encoded with ``avro.codec`` set to ``codec``."""
    return _with_meta(header, "avro.codec", codec)


def _with_meta(header: bytes, key: str, value: bytes) -> bytes:
    """An Avro header re-encoded with its metadata ``key`` set to ``value``."""
    from iceberg_conformance.reference.avro import _avro_bytes, _read_header

    meta, body_at = _read_header(header)
    meta[key] = value
    out = bytearray(b"Obj\x01") + _zigzag(len(meta))
    for k, v in meta.items():
        out += _avro_bytes(k.encode()) + _avro_bytes(v)
    return bytes(out + _zigzag(0) + header[body_at:body_at + 16])


def _edit_header_json(path: str, key: str, edit: Callable[[Any], None]) -> str:
    """The Avro file at ``path`` with the JSON of its header ``key`` changed in place by ``edit``;
    the data blocks are kept as they are."""
    from iceberg_conformance.reference.avro import _read_header

    data = Path(path).read_bytes()
    meta, body_at = _read_header(data)
    doc = json.loads(meta[key])
    edit(doc)
    Path(path).write_bytes(_with_meta(data[:body_at + 16], key, json.dumps(doc).encode()) + data[body_at + 16:])
    return path


def manifest_list_of(md: str) -> str:
    """The manifest list of the current snapshot."""
    path: str = _current(_doc(md))["manifest-list"]
    return path


def _field(record: dict, name: str) -> dict:
    found: dict = next(f for f in record["fields"] if f["name"] == name)
    return found


def _data_file_record(schema: dict) -> dict:
    record: dict = _field(schema, "data_file")["type"]
    return record


def manifest_avro_type_unknown(md: str) -> str:
    """The first manifest's Avro schema gives the ``data_file`` record the type ``truncate[-1]``,
    which Avro does not have (found by tests/fuzz.py: Polars' Avro reader panics on it)."""
    return _edit_header_json(first_manifest(md), "avro.schema",
                             lambda s: _data_file_record(s).update(type="truncate[-1]"))


def manifest_avro_field_twice(md: str) -> str:
    """The first manifest's Avro schema lists its ``status`` field twice (Polars panics)."""
    return _edit_header_json(first_manifest(md), "avro.schema",
                             lambda s: s["fields"].append(dict(_field(s, "status"))))


def manifest_avro_nested_field_twice(md: str) -> str:
    """The key-value record of the first manifest's ``lower_bounds`` map lists ``key`` twice
    (Polars panics)."""
    def edit(schema: dict) -> None:
        union = _field(_data_file_record(schema), "lower_bounds")["type"]
        pair = next(b for b in union if isinstance(b, dict))["items"]
        pair["fields"].append(dict(_field(pair, "key")))
    return _edit_header_json(first_manifest(md), "avro.schema", edit)


def manifest_list_avro_field_twice(md: str) -> str:
    """The manifest list's Avro schema lists ``manifest_path`` twice."""
    return _edit_header_json(manifest_list_of(md), "avro.schema",
                             lambda s: s["fields"].append(dict(_field(s, "manifest_path"))))


def manifest_header_schema_id_list(md: str) -> str:
    """The first manifest's ``schema`` header (the table schema as JSON) gives its first field the
    id ``[1]``, a list where an int belongs."""
    return _edit_header_json(first_manifest(md), "schema", lambda s: s["fields"][0].update(id=[s["fields"][0]["id"]]))


def manifest_deflate_bomb(md: str, megabytes: int = 1024) -> str:
    """The first manifest replaced by one deflate block of ``megabytes`` MiB of zeros (about
    1 KiB of deflate per MiB). Returns the damaged file."""
    path = first_manifest(md)
    header, sync = _avro_header(path)
    # a megabyte of zeros compressed once and ended by a full flush (which resets the window) is
    # a run of deflate blocks that can be repeated as is; the final flush ends the stream
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = c.compress(bytes(MiB)) + c.flush(zlib.Z_FULL_FLUSH)
    body = segment * megabytes + c.flush()
    Path(path).write_bytes(_with_codec(header, b"deflate") + _zigzag(1) + _zigzag(len(body)) + body + sync)
    return path


def manifest_sparse_giant(md: str, megabytes: int = 1000) -> str:
    """The first manifest replaced by its own header followed by a hole: a ``megabytes`` MiB
    sparse file that starts like an Avro container."""
    path = first_manifest(md)
    header, _ = _avro_header(path)
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(megabytes * MiB)
    return path


def data_file_sparse_giant(md: str, megabytes: int = 1000) -> str:
    """The first data file replaced by a ``megabytes`` MiB sparse file with Parquet's magic at
    both ends and a hole between."""
    path = first_data_file(md)
    with open(path, "wb") as f:
        f.write(b"PAR1")
        f.seek(megabytes * MiB - 4)
        f.write(b"PAR1")
    return path


def _puffin_with_blob(frame: bytes, codec: str) -> bytes:
    footer = json.dumps({"blobs": [{"type": "kit-hostile-blob", "fields": [1], "snapshot-id": 1,
                                    "sequence-number": 1, "offset": 4, "length": len(frame),
                                    "compression-codec": codec}],
                         "properties": {"created-by": "tests/hostile.py"}}).encode()
    return (b"PFA1" + frame + b"PFA1" + footer + struct.pack("<i", len(footer)) + bytes(4) + b"PFA1")


def _xxh32(data: bytes, seed: int = 0) -> int:
    """XXH32 of a short input (the LZ4 frame header checksum; xxHash's specification)."""
    p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393
    m = 0xFFFFFFFF

    def rotl(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & m
    assert len(data) < 16
    h = (seed + p5 + len(data)) & m
    i = 0
    while i + 4 <= len(data):
        h = rotl((h + int.from_bytes(data[i:i + 4], "little") * p3) & m, 17) * p4 & m
        i += 4
    for b in data[i:]:
        h = rotl((h + b * p5) & m, 11) * p1 & m
    h ^= h >> 15
    h = h * p2 & m
    h ^= h >> 13
    h = h * p3 & m
    return h ^ (h >> 16)


def _lz4_zeros(megabytes: int, declared: int) -> bytes:
    """One LZ4 frame of ``megabytes`` MiB of zeros whose header declares ``declared`` bytes
    (the header checksum recomputed, so only the size lies)."""
    import lz4.frame

    c = lz4.frame.LZ4FrameCompressor(content_checksum=False)
    zeros = bytes(MiB)
    frame = bytearray(c.begin(source_size=megabytes * MiB) + b"".join(c.compress(zeros) for _ in range(megabytes))
                      + c.flush())
    frame[6:14] = declared.to_bytes(8, "little")   # magic, FLG, BD, then the 8-byte content size
    frame[14] = (_xxh32(bytes(frame[4:14])) >> 8) & 0xFF
    return bytes(frame)


def _zstd_zeros(megabytes: int, declared: int) -> bytes:
    """One zstd frame of ``megabytes`` MiB of zeros whose header declares ``declared`` bytes (a
    zstd frame header has no checksum; its 4-byte content size field is rewritten)."""
    import zstandard

    c = zstandard.ZstdCompressor(level=19, write_content_size=True).compressobj(size=megabytes * MiB)
    zeros = bytes(MiB)
    frame = bytearray(b"".join(c.compress(zeros) for _ in range(megabytes)) + c.flush())
    fhd = frame[4]
    assert fhd >> 6 == 2 and not fhd & 0x20 and not fhd & 0x03, "expected a 4-byte size after a window byte"
    frame[6:10] = declared.to_bytes(4, "little")
    return bytes(frame)


def _attach_statistics(md: str, name: str, content: bytes) -> str:
    doc = _doc(md)
    path = str(Path(md).parent / name)
    Path(path).write_bytes(content)
    footer_size = len(content) - content.rindex(b"PFA1", 0, len(content) - 12)
    doc["statistics"] = [{"snapshot-id": doc["current-snapshot-id"], "statistics-path": path,
                          "file-size-in-bytes": len(content), "file-footer-size-in-bytes": footer_size,
                          "blob-metadata": [{"type": "kit-hostile-blob", "snapshot-id": 1,
                                             "sequence-number": 1, "fields": [1]}]}]
    with open(md, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def puffin_lz4_bomb(md: str, megabytes: int = 500) -> str:
    """A statistics file whose blob is one LZ4 frame of ``megabytes`` MiB of zeros, its true
    content size declared."""
    return _attach_statistics(md, "lz4-bomb.stats", _puffin_with_blob(_lz4_zeros(megabytes, megabytes * MiB), "lz4"))


def puffin_lz4_size_lie(md: str, megabytes: int = 500) -> str:
    """As :func:`puffin_lz4_bomb`, but the frame declares 1 MiB: the lie is found by decompressing."""
    return _attach_statistics(md, "lz4-lie.stats", _puffin_with_blob(_lz4_zeros(megabytes, MiB), "lz4"))


def puffin_zstd_size_lie(md: str, megabytes: int = 500) -> str:
    """A zstd frame of ``megabytes`` MiB of zeros that declares 1 MiB."""
    return _attach_statistics(md, "zstd-lie.stats", _puffin_with_blob(_zstd_zeros(megabytes, MiB), "zstd"))


def puffin_sparse_giant(md: str, megabytes: int = 1000) -> str:
    """A statistics file of ``megabytes`` MiB, sparse, with Puffin's magic at both ends."""
    doc = _doc(md)
    path = str(Path(md).parent / "sparse.stats")
    with open(path, "wb") as f:
        f.write(b"PFA1")
        f.seek(megabytes * MiB - 4)
        f.write(b"PFA1")
    doc["statistics"] = [{"snapshot-id": doc["current-snapshot-id"], "statistics-path": path,
                          "file-size-in-bytes": megabytes * MiB, "file-footer-size-in-bytes": 16,
                          "blob-metadata": []}]
    with open(md, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def metadata_deep_json(md: str) -> str:
    """The current metadata's properties replaced by a value nested 100,000 arrays deep."""
    text = Path(md).read_text(encoding="utf-8")
    doc = json.loads(text)
    doc["properties"] = {"k": "@"}
    Path(md).write_text(json.dumps(doc).replace('"@"', "[" * 100_000 + "]" * 100_000), encoding="utf-8")
    return md


def metadata_huge_number(md: str) -> str:
    """The current metadata's last-updated-ms replaced by a number of 100,000 digits."""
    doc = json.loads(Path(md).read_text(encoding="utf-8"))
    doc["last-updated-ms"] = "@"
    Path(md).write_text(json.dumps(doc).replace('"@"', "9" * 100_000), encoding="utf-8")
    return md


def puffin_lz4_large_blob(md: str, megabytes: int = 200) -> str:
    """Not hostile: a valid blob of ``megabytes`` MiB of zeros (under the 256 MiB blob limit),
    its size declared truthfully. It must pass, checked streamed."""
    return puffin_lz4_bomb(md, megabytes)


def puffin_zstd_large_blob(md: str, megabytes: int = 200) -> str:
    """Not hostile: a valid zstd blob of ``megabytes`` MiB of zeros, its size declared truthfully."""
    return _attach_statistics(md, "zstd-large.stats",
                              _puffin_with_blob(_zstd_zeros(megabytes, megabytes * MiB), "zstd"))


# Avro schemas of the wrong shape: name -> (builder, the rule that must report it); each a
# tests/test_hostile_tables.py case (in process: no memory at stake)
SCHEMA_CASES: dict[str, tuple[Callable[[str], str], str]] = {
    "manifest-avro-type-unknown": (manifest_avro_type_unknown, "avro.unreadable"),
    "manifest-avro-field-twice": (manifest_avro_field_twice, "avro.unreadable"),
    "manifest-avro-nested-field-twice": (manifest_avro_nested_field_twice, "avro.unreadable"),
    "manifest-list-avro-field-twice": (manifest_list_avro_field_twice, "avro.list-unreadable"),
    "manifest-header-schema-id-list": (manifest_header_schema_id_list, "manifests.header-schema"),
}

# name -> (builder, the rule that must report it; None: a valid input that must pass)
CASES: dict[str, tuple[Callable[[str], str], str | None]] = {
    "manifest-deflate-bomb-1GiB": (manifest_deflate_bomb, "avro.size-limit"),
    "manifest-sparse-1000MiB": (manifest_sparse_giant, "avro.unreadable"),
    "data-file-sparse-1000MiB": (data_file_sparse_giant, "data.unreadable"),
    "puffin-lz4-bomb-500MiB": (puffin_lz4_bomb, "puffin.size-limit"),
    "puffin-lz4-size-lie-500MiB": (puffin_lz4_size_lie, "puffin.corrupt-frame"),
    "puffin-zstd-size-lie-500MiB": (puffin_zstd_size_lie, "puffin.corrupt-frame"),
    "puffin-sparse-1000MiB": (puffin_sparse_giant, "puffin.magic"),
    "metadata-json-100000-deep": (metadata_deep_json, "metadata.json-too-deep"),
    "metadata-number-100000-digits": (metadata_huge_number, "metadata.number-range"),
    "valid-puffin-lz4-blob-200MiB": (puffin_lz4_large_blob, None),
    "valid-puffin-zstd-blob-200MiB": (puffin_zstd_large_blob, None),
}


def build(name: str, directory: str, version: int = 2) -> tuple[str, str]:
    """A fresh reference table under ``directory`` damaged by case ``name``: (metadata path,
    the damaged file)."""
    from iceberg_conformance.reference.writer import write_table

    md = write_table(directory, version)
    builder, _ = CASES[name]
    return md, builder(md)


if __name__ == "__main__":  # pragma: no cover - a look at one input: python -m tests.hostile NAME DIR
    import sys

    print(build(sys.argv[1], sys.argv[2]))
    os._exit(0)
