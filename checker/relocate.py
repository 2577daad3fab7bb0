"""Moving a table: rewrite every recorded path under one prefix to another.

Iceberg v1-v3 record absolute paths everywhere: the metadata file (``location``, manifest lists,
``metadata-log``, statistics files), manifest lists (``manifest_path``), manifests
(``file_path``, ``referenced_data_file``, and the bounds of a position-delete file's
``file_path`` column), position-delete files (their ``file_path`` column) and deletion-vector
Puffin footers (``referenced-data-file``). :func:`relocate_table` copies a table directory and
rewrites all of them, re-stamping what a rewrite changes: ``file_size_in_bytes`` of rewritten
delete files and ``manifest_length`` of rewritten manifests. With an empty new prefix the paths
become relative (for an archive whose consumers resolve them against the archive root).

The source is only read.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import struct
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from iceberg_conformance.checker.rewrite import AvroFile
from iceberg_conformance.reference.metadata import GZIP_SUFFIXES, read_metadata_bytes
from iceberg_conformance.reference.puffin import read_puffin

PUFFIN_MAGIC = b"PFA1"


def _swap(value: Any, old: str, new: str) -> Any:
    """``value`` with every string (and UTF-8 bytes) starting with ``old`` re-prefixed."""
    if isinstance(value, str):
        return new + value[len(old):] if value.startswith(old) else value
    if isinstance(value, bytes):
        prefix = old.encode("utf-8")
        return new.encode("utf-8") + value[len(prefix):] if value.startswith(prefix) else value
    if isinstance(value, dict):
        return {k: _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    return value


def _rewrite_position_deletes(path: str, old: str, new: str) -> bytes | None:
    schema = pq.read_schema(path)
    if "file_path" not in schema.names or "pos" not in schema.names:
        return None
    table = pq.read_table(path)
    idx = table.column_names.index("file_path")
    paths = [_swap(p, old, new) for p in table.column("file_path").to_pylist()]
    table = table.set_column(idx, table.schema.field(idx), pa.array(paths, pa.string()))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def _rewrite_puffin_footer(path: str, old: str, new: str) -> bytes | None:
    """The Puffin file with its footer's properties re-prefixed (blobs and their offsets kept;
    the footer is written uncompressed)."""
    with open(path, "rb") as f:
        data = f.read()
    pf = read_puffin(path)
    footer_size = struct.unpack_from("<i", data, len(data) - 12)[0]
    footer_start = len(data) - 12 - footer_size - 4
    blobs = []
    for b in pf.metadata.blobs:
        blob: dict[str, Any] = {"type": b.type, "fields": list(b.fields), "snapshot-id": b.snapshot_id,
                                "sequence-number": b.sequence_number, "offset": b.offset, "length": b.length}
        if b.compression_codec is not None:
            blob["compression-codec"] = b.compression_codec
        if b.properties:
            blob["properties"] = _swap(dict(b.properties), old, new)
        blobs.append(blob)
    footer: dict[str, Any] = {"blobs": blobs}
    if pf.metadata.properties:
        footer["properties"] = dict(pf.metadata.properties)
    payload = json.dumps(footer, separators=(",", ":")).encode("utf-8")
    if payload == data[footer_start + 4: footer_start + 4 + footer_size]:
        return None
    return (data[:footer_start] + PUFFIN_MAGIC + payload + struct.pack("<i", len(payload))
            + b"\x00\x00\x00\x00" + PUFFIN_MAGIC)


def _is_puffin_dv(path: str) -> bool:
    with open(path, "rb") as f:
        head = f.read(4)
    return head == PUFFIN_MAGIC


def _under(recorded: Any, location: str) -> str | None:
    """The path under the table of a path recorded under its recorded ``location``, to match
    the table's files by; None for another."""
    if not isinstance(recorded, str) or not recorded.startswith(location):
        return None
    return os.path.normpath(recorded[len(location):].lstrip("/"))


def _read_metadata(path: str) -> Any:
    """A metadata file's JSON, read as the kit reads one (:func:`~reference.metadata.read_metadata_bytes`:
    GZIP decompressed, within the size limit); ValueError naming the file when it does not read."""
    data, findings = read_metadata_bytes(path)
    if data is None:
        raise ValueError(f"{path}: {'; '.join(str(f) for f in findings) or 'does not read'}")
    return json.loads(data)


def _recorded_location(meta: str, old: str) -> str:
    """The ``location`` the table's metadata files record (the first that reads), else ``old``:
    every path of the table is recorded under it, whatever prefix ``old`` is moved."""
    for name in sorted(os.listdir(meta), reverse=True):
        if ".metadata.json" not in name:
            continue
        try:
            doc = _read_metadata(os.path.join(meta, name))
        except (OSError, ValueError, EOFError):
            continue
        loc = doc.get("location") if isinstance(doc, dict) else None
        if isinstance(loc, str) and loc:
            return loc.rstrip("/")
    return old


def relocate_table(src: str, dst: str, old: str, new: str) -> None:
    """Copy the table directory ``src`` to ``dst`` with every recorded path starting with
    ``old`` rewritten to start with ``new``."""
    if os.path.exists(dst):
        raise FileExistsError(f"{dst} exists")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".*.crc"))
    sizes: dict[str, int] = {}   # path under the table of a rewritten content file -> its new size
    location = _recorded_location(os.path.join(src, "metadata"), old)
    data_dir = os.path.join(dst, "data")
    for root, _dirs, files in os.walk(data_dir):
        for name in files:
            local = os.path.join(root, name)
            recorded = os.path.normpath(os.path.relpath(local, dst))
            rewritten: bytes | None = None
            if name.endswith(".parquet"):
                rewritten = _rewrite_position_deletes(local, old, new)
            elif name.endswith(".puffin") or _is_puffin_dv(local):
                rewritten = _rewrite_puffin_footer(local, old, new)
            if rewritten is not None:
                with open(local, "wb") as f:
                    f.write(rewritten)
                sizes[recorded] = len(rewritten)
    meta = os.path.join(dst, "metadata")
    avros = sorted(n for n in os.listdir(meta) if n.endswith(".avro"))
    lengths: dict[str, int] = {}
    lists: list[tuple[str, AvroFile]] = []
    for name in avros:
        local = os.path.join(meta, name)
        avro = AvroFile.load(local)
        ids = {f.get("field-id") for f in avro.schema.get("fields") or []}
        if 500 in ids:  # a manifest list: rewritten after the manifests, whose lengths it records
            lists.append((local, avro))
            continue
        if 2 not in ids:
            continue  # not a manifest (partition statistics, for example)
        for rec in avro.records:
            df = rec["data_file"]
            path = _under(df.get("file_path"), location)
            if path in sizes:
                df["file_size_in_bytes"] = sizes[path]
        avro.records = _swap(avro.records, old, new)
        avro.meta = {k: (_swap(v, old, new) if k not in ("schema", "partition-spec") else v) for k, v in avro.meta.items()}
        data = avro.to_bytes()
        with open(local, "wb") as f:
            f.write(data)
        lengths[os.path.normpath(os.path.join("metadata", name))] = len(data)
    for local, avro in lists:
        for rec in avro.records:
            path = _under(rec.get("manifest_path"), location)
            if path in lengths:
                rec["manifest_length"] = lengths[path]
        avro.records = _swap(avro.records, old, new)
        avro.meta = _swap(avro.meta, old, new)
        with open(local, "wb") as f:
            f.write(avro.to_bytes())
    for name in os.listdir(meta):
        local = os.path.join(meta, name)
        if ".metadata.json" not in name:
            continue
        doc = _swap(_read_metadata(local), old, new)
        out = json.dumps(doc, indent=2).encode("utf-8")
        with open(local, "wb") as f:
            f.write(gzip.compress(out, mtime=0) if name.endswith(GZIP_SUFFIXES) else out)
