"""Build the Puffin golden files, their sidecars and the case files of ``vectors/puffin/``.

Run: ``python -m tools.vectors.puffin`` (deterministic; rewrites ``files/*.puffin`` except
the ``java-*`` files, which Iceberg Java wrote, and every generated sidecar and case file).

The bytes are laid out here from the Puffin spec with ``struct``; compression frames come from
``lz4.frame`` and ``zstandard``, Theta sketches from ``datasketches``, 32-bit Roaring bitmaps
from ``pyroaring``, CRC-32 from ``zlib``. Nothing here uses ``reference/``: the reference is
checked against these files like every other target. After writing, each file is read back
with independent libraries (pyiceberg's Puffin reader, pyroaring ``BitMap64``, datasketches,
lz4, zstandard) and only those that agree are named in ``derived.agreed``.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any, Callable

import datasketches
import lz4
import lz4.frame
import pyroaring
import zstandard
from pyroaring import BitMap, BitMap64

from tools.vectors import VECTORS

HERE = VECTORS / "puffin"
FILES = HERE / "files"
MAGIC = b"PFA1"
DV_MAGIC = bytes.fromhex("d1d33964")
ROW_POSITION_FIELD = 2147483645
#: the files' created-by, as the first of them recorded it (kept: regenerated files stay byte-identical)
CREATED_BY = "iceberg-conformance vectors/puffin/generate.py"
SPEC = "https://iceberg.apache.org/puffin-spec/"

V_LZ4 = f"lz4 {lz4.__version__}"
V_ZSTD = f"zstandard {zstandard.__version__}"
V_ROARING = f"pyroaring {pyroaring.__version__}"
V_SKETCH = "datasketches " + __import__("importlib.metadata").metadata.version("datasketches")
V_STDLIB = "python-stdlib struct, zlib.crc32"


# --- building blocks (from the spec text) --------------------------------------------------

def long_bytes(v: int) -> bytes:
    """Iceberg single-value binary form of a long: 8 bytes little-endian."""
    return struct.pack("<q", v)


def theta(values: list[bytes]) -> bytes:
    """Compact Theta sketch, default seed, of serialized values (8-byte values as the int the
    bytes encode little-endian, others as UTF-8 text: the datasketches API hashes both as
    exactly those bytes)."""
    s = datasketches.update_theta_sketch()
    for b in values:
        if len(b) == 8:
            s.update(int.from_bytes(b, "little", signed=True))
        else:
            s.update(b.decode("utf-8"))
    return bytes(s.compact().serialize())


def roaring64(positions: list[int]) -> bytes:
    """Portable 64-bit Roaring: count (8 LE), then per key (4 LE) a 32-bit portable bitmap."""
    keys: dict[int, list[int]] = {}
    for p in sorted(set(positions)):
        keys.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = struct.pack("<Q", len(keys))
    for k in sorted(keys):
        bm = BitMap(keys[k])
        bm.run_optimize()
        out += struct.pack("<I", k) + bm.serialize()
    return out


def dv_blob(positions: list[int], *, crc_delta: int = 0, magic: bytes = DV_MAGIC, length_delta: int = 0) -> bytes:
    body = magic + roaring64(positions)
    crc = (zlib.crc32(body) + crc_delta) & 0xFFFFFFFF
    return struct.pack(">I", len(body) + length_delta) + body + struct.pack(">I", crc)


def lz4_frame(data: bytes, *, content_size: bool = True) -> bytes:
    return bytes(lz4.frame.compress(data, store_size=content_size))


def lz4_frame_claiming(data: bytes, claimed: int) -> bytes:
    """An LZ4 frame whose header claims ``claimed`` content bytes (header from the library)."""
    c = lz4.frame.LZ4FrameCompressor(block_linked=True, content_checksum=False)
    header = c.begin(source_size=claimed)
    blocks = lz4.frame.compress(data, store_size=False, block_linked=True, content_checksum=False)[7:]
    return bytes(header) + bytes(blocks)


def zstd_frame(data: bytes, *, content_size: bool = True) -> bytes:
    return bytes(zstandard.ZstdCompressor(write_content_size=content_size).compress(data))


def zstd_frame_claiming(data: bytes, claimed: int) -> bytes:
    """A zstd frame whose header claims ``claimed`` content bytes (8-byte FCS field)."""
    f = zstd_frame(data, content_size=False)
    fhd = f[4]
    assert fhd & 0xE0 == 0 and fhd & 0x03 == 0, "expected no FCS, no single segment, no dict id"
    return f[:4] + bytes([fhd | 0xC0]) + f[5:6] + struct.pack("<Q", claimed) + f[6:]


def blob_meta(type_: str, fields: list[int], snapshot_id: int, seq: int, offset: int, length: int,
              codec: str | None, props: dict[str, str] | None) -> dict[str, Any]:
    m: dict[str, Any] = {"type": type_, "fields": fields, "snapshot-id": snapshot_id,
                         "sequence-number": seq, "offset": offset, "length": length}
    if codec is not None:
        m["compression-codec"] = codec
    if props is not None:
        m["properties"] = props
    return m


class Blob:
    def __init__(self, type_: str, fields: list[int], stored: bytes, content: dict[str, Any], *,
                 codec: str | None = None, props: dict[str, str] | None = None,
                 snapshot_id: int = 3051729675574597004, seq: int = 1, payload: bytes | None = None) -> None:
        self.type, self.fields, self.stored, self.content = type_, fields, stored, content
        self.codec, self.props, self.snapshot_id, self.seq = codec, props, snapshot_id, seq
        self.payload = stored if payload is None else payload


def theta_blob(values: list[bytes], fields: list[int], codec: str | None = None, **kw: Any) -> Blob:
    sk = theta(values)
    est = datasketches.compact_theta_sketch.deserialize(sk).get_estimate()
    stored = sk if codec is None else (lz4_frame(sk) if codec == "lz4" else zstd_frame(sk))
    return Blob("apache-datasketches-theta-v1", fields, stored, {"estimate": float(est)}, codec=codec,
                props={"ndv": str(round(est))}, payload=sk, **kw)


def dv(positions: list[int], data_file: str, **kw: Any) -> Blob:
    ps = sorted(set(positions))
    props = {"referenced-data-file": data_file, "cardinality": str(len(ps))}
    props.update(kw.pop("props", {}))
    return Blob("deletion-vector-v1", [ROW_POSITION_FIELD], kw.pop("stored", None) or dv_blob(ps),
                {"cardinality": len(ps), "positions": ps}, props=props, snapshot_id=-1, seq=-1, **kw)


def assemble(blobs: list[Blob], *, file_props: dict[str, str] | None = None, compress_footer: bool = False,
             footer_bytes: Callable[[bytes], bytes] | None = None, flags: bytes | None = None,
             meta_edit: Callable[[dict[str, Any]], None] | None = None,
             size_edit: Callable[[int], int] | None = None) -> tuple[bytes, dict[str, Any]]:
    """File bytes and the footer JSON object; the keyword hooks produce invalid files."""
    out = bytearray(MAGIC)
    metas = []
    for b in blobs:
        metas.append(blob_meta(b.type, b.fields, b.snapshot_id, b.seq, len(out), len(b.stored), b.codec, b.props))
        out += b.stored
    doc: dict[str, Any] = {"blobs": metas}
    if file_props is not None:
        doc["properties"] = file_props
    if meta_edit:
        meta_edit(doc)
    payload = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    if footer_bytes is not None:
        payload = footer_bytes(payload)
    elif compress_footer:
        payload = lz4_frame(payload)
    size = len(payload) if size_edit is None else size_edit(len(payload))
    if flags is None:
        flags = bytes([1 if (compress_footer or footer_bytes) else 0, 0, 0, 0])
    out += MAGIC + payload + struct.pack("<i", size) + flags + MAGIC
    return bytes(out), doc


def read_form(doc: dict[str, Any], blobs: list[Blob], compressed: bool) -> dict[str, Any]:
    """The sidecar form (see suites/test_puffin.py): footer flag, file properties, blobs with
    their footer fields (properties {} when absent) and decoded content."""
    out_blobs = []
    for m, b in zip(doc["blobs"], blobs):
        e = dict(m)
        e.setdefault("properties", {})
        e["content"] = b.content
        out_blobs.append(e)
    return {"footer-compressed": compressed, "properties": doc.get("properties", {}), "blobs": out_blobs}


# --- cross-checks by independent readers ----------------------------------------------------

def pyiceberg_agrees(data: bytes, expected: dict[str, Any], blobs: list[Blob]) -> bool:
    try:
        from pyiceberg.table.deletion_vector import DeletionVector, _extract_vector_payload
        from pyiceberg.table.puffin import PuffinFile

        pf = PuffinFile(data)
        if pf.footer.properties != expected["properties"] or len(pf.footer.blobs) != len(blobs):
            return False
        for pm, em, b in zip(pf.footer.blobs, expected["blobs"], blobs):
            got = pm.model_dump(by_alias=True, exclude_none=True)
            want = {k: v for k, v in em.items() if k != "content"}
            if got != want or pf.get_blob_payload(pm) != b.payload:
                return False
            if b.type == "deletion-vector-v1":
                if max(b.content["positions"], default=0) >> 32 > 1 << 16:
                    # pyiceberg pads one empty bitmap per key below the highest key: with key
                    # 0x7fffffff that is 2^31 list entries (tens of GB); not run
                    return False
                bitmaps = DeletionVector._deserialize_bitmap(_extract_vector_payload(b.payload))
                if DeletionVector("", bitmaps).to_vector().to_pylist() != b.content["positions"]:
                    return False
        return True
    except Exception:  # noqa: BLE001 - any failure means "does not agree"
        return False


def library_agreement(blobs: list[Blob], compress_footer: bool, data: bytes, footer_len: int) -> list[str]:
    agreed = [V_STDLIB]
    if compress_footer:
        framed = data[-12 - footer_len:-12]
        lz4.frame.decompress(framed)  # raises if not a frame
        if lz4.frame.get_frame_info(framed)["content_size"] > 0:
            agreed.append(V_LZ4)
    for b in blobs:
        if b.codec == "lz4":
            assert lz4.frame.decompress(b.stored) == b.payload and lz4.frame.get_frame_info(b.stored)["content_size"]
            agreed.append(V_LZ4)
        if b.codec == "zstd":
            assert zstandard.ZstdDecompressor().decompress(b.stored) == b.payload
            agreed.append(V_ZSTD)
        if b.type == "deletion-vector-v1":
            body = b.payload[8:-4]
            assert list(BitMap64.deserialize(body)) == b.content["positions"], "pyroaring BitMap64 disagrees"
            agreed.append(V_ROARING + " (BitMap64 portable 64-bit format)")
        if b.type == "apache-datasketches-theta-v1":
            est = datasketches.compact_theta_sketch.deserialize(b.payload).get_estimate()
            assert est == b.content["estimate"]
            agreed.append(V_SKETCH)
    return list(dict.fromkeys(agreed))


# --- the golden files -----------------------------------------------------------------------

DATA_FILE = "s3://bucket/warehouse/db/t/data/00000-0-data.parquet"
OTHER_FILE = "s3://bucket/warehouse/db/t/data/00001-0-data.parquet"
LONGS_1000 = [long_bytes(v) for v in range(1, 1001)]
LONGS_10000 = [long_bytes(v) for v in range(10000)]
WORDS = [f"word-{i}".encode() for i in range(100)]
UNICODE = [s.encode("utf-8") for s in ("ice", "berg", "\u00e9t\u00e9", "\u6c37\u5c71", "\U0001F427")]
HIGH = [1 << 32, (1 << 32) + 1, (5 << 32) + 7, (1 << 63) - 1]
SMALL = [0, 3, 7, 1000, 65535, 65536, 100000]


def valid_files() -> list[dict[str, Any]]:
    """name, description, blobs, assemble kwargs, how."""
    cp = {"created-by": CREATED_BY}
    return [
        dict(name="empty", desc="file with no blobs and created-by", blobs=[], kw=dict(file_props=cp),
             how="Magic, footer {\"blobs\":[],\"properties\":{...}} uncompressed"),
        dict(name="empty-bare-footer", desc="file with no blobs and no properties", blobs=[], kw={},
             how="footer {\"blobs\":[]}; properties is optional"),
        dict(name="empty-lz4-footer", desc="file with no blobs, LZ4-compressed footer", blobs=[],
             kw=dict(file_props=cp, compress_footer=True), how="footer is one LZ4 frame with content size; flag bit 0 set"),
        dict(name="theta-long-1000", desc="theta sketch of longs 1..1000, uncompressed",
             blobs=[theta_blob(LONGS_1000, [1])], kw=dict(file_props=cp),
             how="longs 1..1000 as 8-byte little-endian values fed to an update sketch (exact mode: estimate 1000)"),
        dict(name="theta-long-10000", desc="theta sketch of longs 0..9999 in estimation mode",
             blobs=[theta_blob(LONGS_10000, [1])], kw=dict(file_props=cp),
             how="10000 distinct longs exceed the default 4096 nominal entries: the estimate is approximate"),
        dict(name="theta-string-zstd", desc="theta sketch of 100 strings, zstd blob",
             blobs=[theta_blob(WORDS, [2], "zstd")], kw=dict(file_props=cp),
             how="strings word-0..word-99 as UTF-8 bytes; blob is one zstd frame with content size"),
        dict(name="theta-string-lz4", desc="theta sketch of non-ASCII strings, lz4 blob",
             blobs=[theta_blob(UNICODE, [2], "lz4")], kw=dict(file_props=cp),
             how="5 strings incl. 2-, 3- and 4-byte UTF-8 characters; blob is one LZ4 frame with content size"),
        dict(name="theta-lz4-footer", desc="two theta blobs (zstd, lz4) with an LZ4-compressed footer",
             blobs=[theta_blob(LONGS_1000, [1], "zstd"), theta_blob(WORDS, [2], "lz4")],
             kw=dict(file_props=cp, compress_footer=True), how="footer LZ4 frame with content size"),
        dict(name="dv-small", desc="deletion vector with positions below 2^32",
             blobs=[dv(SMALL, DATA_FILE)], kw=dict(file_props=cp),
             how="positions 0 3 7 1000 65535 65536 100000: one 32-bit bitmap (key 0) with two containers"),
        dict(name="dv-high-positions", desc="deletion vector with positions above 2^32 up to 2^63-1",
             blobs=[dv([5] + HIGH, DATA_FILE)], kw=dict(file_props=cp),
             how="keys 0, 1, 5 and 0x7fffffff (the largest allowed key)"),
        dict(name="dv-run-container", desc="deletion vector of 3000 consecutive positions (run container)",
             blobs=[dv(list(range(10, 3010)), DATA_FILE)], kw=dict(file_props=cp),
             how="positions 10..3009; run_optimize turns the container into a run container (cookie 12347)"),
        dict(name="several-blobs", desc="theta (plain, zstd, lz4) and two deletion vectors in one file",
             blobs=[theta_blob(LONGS_1000, [1]), theta_blob(WORDS, [2], "zstd"), theta_blob(UNICODE, [3], "lz4"),
                    dv(SMALL, DATA_FILE), dv(HIGH, OTHER_FILE)],
             kw=dict(file_props=cp), how="five blobs, back to back after the leading magic"),
        dict(name="multi-field-theta", desc="theta blob computed for two field ids, properties absent",
             blobs=[Blob("apache-datasketches-theta-v1", [1, 2], theta(LONGS_1000[:10]), {"estimate": 10.0})],
             kw={}, how="fields [1, 2]; no ndv property (it is optional); no file properties"),
    ]


#: invalid files a reader may read (level should): they break a rule for writers, not the format
READER_SHOULD = {
    "reserved-flag-byte0", "reserved-flag-byte3", "footer-lz4-no-content-size", "footer-lz4-claims-6gib",
    "footer-fields-not-ints", "blob-overlaps-footer", "blob-overlaps-magic", "blob-lz4-no-content-size",
    "blob-zstd-no-content-size", "blob-zstd-claims-5gib", "blob-lz4-claims-6gib", "blob-zstd-two-frames",
    "dv-bad-crc", "dv-bad-length", "dv-duplicate-key", "dv-snapshot-id", "dv-compressed",
    "dv-cardinality-mismatch", "dv-no-referenced-file",
}


def invalid_files() -> list[dict[str, Any]]:
    """name, desc, rule, reason, build() -> bytes, how, agreed."""
    ok_blobs = [dv(SMALL, DATA_FILE)]
    cp = {"created-by": CREATED_BY}
    base, _ = assemble(ok_blobs, file_props=cp)
    empty, _ = assemble([], file_props=cp)
    theta_ok = theta(LONGS_1000[:10])

    def flip(data: bytes, at: int, value: bytes) -> bytes:
        return data[:at] + value + data[at + len(value):]

    def dv_bad(**kw: Any) -> bytes:
        return assemble([dv(SMALL, DATA_FILE, **kw)], file_props=cp)[0]

    def blobs_edit(fn: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        def edit(doc: dict[str, Any]) -> None:
            fn(doc["blobs"][0])
        return edit

    lz4_noc = Blob("apache-datasketches-theta-v1", [1], lz4_frame(theta_ok, content_size=False), {}, codec="lz4")
    zstd_noc = Blob("apache-datasketches-theta-v1", [1], zstd_frame(theta_ok, content_size=False), {}, codec="zstd")
    zstd_huge = Blob("apache-datasketches-theta-v1", [1], zstd_frame_claiming(theta_ok, 5 << 30), {}, codec="zstd")
    lz4_huge = Blob("apache-datasketches-theta-v1", [1], lz4_frame_claiming(theta_ok, 6 << 30), {}, codec="lz4")
    snappy = Blob("apache-datasketches-theta-v1", [1], theta_ok, {}, codec="snappy")
    two_frames = Blob("apache-datasketches-theta-v1", [1], zstd_frame(theta_ok) + zstd_frame(theta_ok), {}, codec="zstd")
    corrupt_sketch = Blob("apache-datasketches-theta-v1", [1], b"\x03\x03\x03\x00" + bytes(20), {})
    high_key = dv_blob([0])
    # rewrite key 0 as 0x80000000 (MSB of a 64-bit position set); the CRC is recomputed
    body = DV_MAGIC + struct.pack("<Q", 1) + struct.pack("<I", 0x80000000) + BitMap([1]).serialize()
    high_key = struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    dup_body = DV_MAGIC + struct.pack("<Q", 2) + (struct.pack("<I", 1) + BitMap([1]).serialize()) * 2
    dup_key = struct.pack(">I", len(dup_body)) + dup_body + struct.pack(">I", zlib.crc32(dup_body))
    big_count = DV_MAGIC + struct.pack("<Q", 1 << 40)
    big_count_blob = struct.pack(">I", len(big_count)) + big_count + struct.pack(">I", zlib.crc32(big_count))

    def over_footer(doc: dict[str, Any]) -> None:
        doc["blobs"][0]["length"] += 8

    return [
        dict(name="bad-magic-start", rule="puffin.magic", desc="file starting with PFA2",
             build=lambda: b"PFA2" + base[4:], how="first 4 bytes 50 46 41 32"),
        dict(name="bad-magic-end", rule="puffin.magic", desc="file ending with PFA0",
             build=lambda: base[:-4] + b"PFA0", how="last 4 bytes 50 46 41 30"),
        dict(name="bad-magic-footer-start", rule="puffin.magic", desc="footer not starting with the magic",
             build=lambda: flip(base, len(base) - 12 - struct.unpack("<i", base[-12:-8])[0] - 4, b"XFA1"),
             how="the 4 bytes before the footer payload are 58 46 41 31"),
        dict(name="truncated-tiny", rule="puffin.truncated", desc="file of 12 bytes",
             build=lambda: base[:12], how="first 12 bytes of dv-small; shorter than two magics and the footer struct"),
        dict(name="truncated-half", rule="puffin.magic", desc="file cut in the middle",
             build=lambda: base[:len(base) // 2], how="first half of dv-small: the end is no longer the footer magic"),
        dict(name="footer-size-outside", rule="puffin.footer-size", desc="footer payload size pointing before the file start",
             build=lambda: flip(empty, len(empty) - 12, struct.pack("<i", 100000)), how="payload size 100000 in a small file"),
        dict(name="footer-size-negative", rule="puffin.footer-size", desc="negative footer payload size",
             build=lambda: flip(empty, len(empty) - 12, struct.pack("<i", -8)), how="payload size -8 (ff ff ff f8 as int32 LE)"),
        dict(name="footer-size-huge", rule="puffin.footer-size", desc="footer payload size 2^31-1 in a small file",
             build=lambda: flip(empty, len(empty) - 12, struct.pack("<i", 0x7FFFFFFF)),
             how="a payload size larger than the file: refused before allocating"),
        dict(name="reserved-flag-byte0", rule="puffin.flags-reserved", desc="reserved flag byte 0 bit 1 set",
             build=lambda: flip(empty, len(empty) - 8, b"\x02"), how="flags 02 00 00 00"),
        dict(name="reserved-flag-byte3", rule="puffin.flags-reserved", desc="reserved flag byte 3 bit 7 set",
             build=lambda: flip(empty, len(empty) - 8, b"\x00\x00\x00\x80"), how="flags 00 00 00 80"),
        dict(name="footer-zstd", rule="puffin.footer-compression", desc="footer compressed with zstd",
             build=lambda: assemble(ok_blobs, file_props=cp, footer_bytes=zstd_frame)[0],
             how="flag bit 0 set, payload one zstd frame: the footer codec is LZ4 only"),
        dict(name="footer-lz4-no-content-size", rule="puffin.lz4-content-size", desc="LZ4 footer frame without content size",
             build=lambda: assemble(ok_blobs, file_props=cp, footer_bytes=lambda p: lz4_frame(p, content_size=False))[0],
             how="LZ4 frame with FLG content-size bit 0", agreed=[V_LZ4 + " (get_frame_info content_size 0)"]),
        dict(name="footer-lz4-claims-6gib", rule="puffin.size-limit", desc="LZ4 footer frame claiming 6 GiB uncompressed",
             build=lambda: assemble(ok_blobs, file_props=cp, footer_bytes=lambda p: lz4_frame_claiming(p, 6 << 30))[0],
             how="frame header content size 6442450944; a reader must refuse before allocating",
             agreed=[V_LZ4 + " (get_frame_info content_size 6442450944)"]),
        dict(name="footer-not-json", rule="puffin.footer-json", desc="footer payload that is not JSON",
             build=lambda: assemble([], footer_bytes=lambda p: b"{blobs:[]}", flags=bytes(4))[0], how="payload {blobs:[]}"),
        dict(name="footer-missing-snapshot-id", rule="puffin.footer-json", desc="blob metadata without snapshot-id",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(lambda m: m.pop("snapshot-id")))[0],
             how="required field snapshot-id removed"),
        dict(name="footer-fields-not-ints", rule="puffin.footer-json", desc="blob metadata fields holding a string",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(lambda m: m.update(fields=["1"])))[0],
             how="fields [\"1\"]"),
        dict(name="footer-deep-json", rule="puffin.footer-json", desc="footer payload JSON nested 10,000 deep",
             build=lambda: assemble([], footer_bytes=lambda p: b'{"blobs":' + b"[" * 10000 + b"]" * 10000 + b"}",
                                    flags=bytes(4))[0],
             how="blobs is 10,000 nested arrays: a recursive JSON parser overflows its stack (found by tests/fuzz.py)"),
        dict(name="footer-huge-number", rule="puffin.footer-json", desc="blob snapshot-id of 5,000 digits",
             build=lambda: assemble([], footer_bytes=lambda p: b'{"blobs":[{"type":"x","fields":[1],"snapshot-id":'
                                    + b"9" * 5000 + b',"sequence-number":1,"offset":4,"length":0}]}',
                                    flags=bytes(4))[0],
             how="an integer literal past Python's 4,300-digit conversion limit (found by tests/fuzz.py)"),
        dict(name="footer-no-blobs-field", rule="puffin.footer-json", desc="footer without the blobs list",
             build=lambda: assemble([], file_props=cp, meta_edit=lambda d: d.pop("blobs"))[0], how="{\"properties\":{...}}"),
        dict(name="blob-overlaps-footer", rule="puffin.blob-bounds", desc="blob length reaching into the footer",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=over_footer)[0], how="length 8 bytes too long"),
        dict(name="blob-overlaps-magic", rule="puffin.blob-bounds", desc="blob offset 0 overlapping the leading magic",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(lambda m: m.update(offset=0)))[0],
             how="offset 0"),
        dict(name="blob-past-end", rule="puffin.blob-bounds", desc="blob offset beyond the end of the file",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(lambda m: m.update(offset=1 << 40)))[0],
             how="offset 2^40"),
        dict(name="blob-lz4-no-content-size", rule="puffin.lz4-content-size", desc="lz4 blob frame without content size",
             build=lambda: assemble([lz4_noc], file_props=cp)[0], how="LZ4 frame with FLG content-size bit 0",
             agreed=[V_LZ4 + " (get_frame_info content_size 0)"]),
        dict(name="blob-zstd-no-content-size", rule="puffin.zstd-content-size", desc="zstd blob frame without content size",
             build=lambda: assemble([zstd_noc], file_props=cp)[0], how="zstd frame without Frame_Content_Size",
             agreed=[V_ZSTD + " (get_frame_parameters content_size unknown)"]),
        dict(name="blob-zstd-claims-5gib", rule="puffin.size-limit", desc="zstd blob frame claiming 5 GiB uncompressed",
             build=lambda: assemble([zstd_huge], file_props=cp)[0], how="Frame_Content_Size 5368709120 (8-byte field)",
             agreed=[V_ZSTD + " (get_frame_parameters content_size 5368709120)"]),
        dict(name="blob-lz4-claims-6gib", rule="puffin.size-limit", desc="lz4 blob frame claiming 6 GiB uncompressed",
             build=lambda: assemble([lz4_huge], file_props=cp)[0], how="LZ4 header content size 6442450944",
             agreed=[V_LZ4 + " (get_frame_info content_size 6442450944)"]),
        dict(name="blob-zstd-two-frames", rule="puffin.single-frame", desc="zstd blob holding two frames",
             build=lambda: assemble([two_frames], file_props=cp)[0], how="two zstd frames back to back"),
        dict(name="blob-codec-snappy", rule="puffin.codec", desc="blob with compression-codec snappy",
             build=lambda: assemble([snappy], file_props=cp)[0], how="codec snappy: other codecs are not supported"),
        dict(name="theta-corrupt", rule="puffin.theta-sketch", desc="theta blob that is not a sketch",
             build=lambda: assemble([corrupt_sketch], file_props=cp)[0], how="24 bytes that do not form a compact Theta sketch",
             agreed=[V_SKETCH + " (deserialize raises)"]),
        dict(name="dv-bad-crc", rule="dv.crc", desc="deletion vector with a wrong CRC",
             build=lambda: dv_bad(stored=dv_blob(SMALL, crc_delta=1)), how="CRC-32 plus one",
             agreed=[V_STDLIB + " (zlib.crc32 differs)"]),
        dict(name="dv-bad-magic", rule="dv.magic", desc="deletion vector with magic D1 D3 39 65",
             build=lambda: dv_bad(stored=dv_blob(SMALL, magic=bytes.fromhex("d1d33965"))), how="magic d1d33965, CRC over it"),
        dict(name="dv-bad-length", rule="dv.length", desc="deletion vector whose length field is 1 too large",
             build=lambda: dv_bad(stored=dv_blob(SMALL, length_delta=1)), how="big-endian length + 1"),
        dict(name="dv-key-msb", rule="dv.position", desc="deletion vector key 0x80000000 (negative position)",
             build=lambda: dv_bad(stored=high_key), how="64-bit positions must have the most significant bit 0"),
        dict(name="dv-duplicate-key", rule="dv.key-order", desc="deletion vector with key 1 twice",
             build=lambda: dv_bad(stored=dup_key), how="keys must be ascending (unsigned)"),
        dict(name="dv-huge-bitmap-count", rule="dv.bitmap", desc="deletion vector claiming 2^40 bitmaps in 12 bytes",
             build=lambda: dv_bad(stored=big_count_blob), how="bitmap count 2^40; refused before allocating"),
        dict(name="dv-snapshot-id", rule="dv.snapshot-id", desc="deletion vector with snapshot-id 5 (must be -1)",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(lambda m: m.update({"snapshot-id": 5})))[0],
             how="snapshot-id 5"),
        dict(name="dv-compressed", rule="dv.compression", desc="deletion vector with compression-codec zstd",
             build=lambda: assemble([dv(SMALL, DATA_FILE, codec="zstd", stored=zstd_frame(dv_blob(SMALL)),
                                        payload=dv_blob(SMALL))], file_props=cp)[0],
             how="a valid zstd frame of a valid DV: deletion-vector-v1 omits compression-codec"),
        dict(name="dv-cardinality-mismatch", rule="dv.cardinality", desc="deletion vector property cardinality 8 for 7 positions",
             build=lambda: dv_bad(props={"cardinality": "8"}), how="cardinality property 8"),
        dict(name="dv-no-referenced-file", rule="dv.referenced-data-file", desc="deletion vector without referenced-data-file",
             build=lambda: assemble(ok_blobs, file_props=cp, meta_edit=blobs_edit(
                 lambda m: m["properties"].pop("referenced-data-file")))[0], how="property removed"),
    ]


REASONS = {
    "puffin.magic": "Magic is 50 46 41 31 at the file start, the footer start and the file end",
    "puffin.truncated": "a Puffin file holds at least the leading magic, the footer magic, size, flags and end magic",
    "puffin.footer-size": "FooterPayloadSize (4-byte signed LE) must place the footer inside the file after the leading magic",
    "puffin.flags-reserved": "reserved flag bits are 0 on write; a reader cannot know what a set reserved bit means",
    "puffin.footer-compression": "a compressed footer payload is a single LZ4 frame; no other footer codec exists",
    "puffin.lz4-content-size": "LZ4 frames in Puffin are single frames with content size present",
    "puffin.zstd-content-size": "zstd frames in Puffin are single frames with content size present",
    "puffin.size-limit": "the declared uncompressed size is refused before allocating (bounded memory)",
    "puffin.single-frame": "a compressed blob is a single frame",
    "puffin.footer-json": "FileMetadata/BlobMetadata required fields with their JSON types",
    "puffin.blob-bounds": "a blob lies between the leading magic and the footer",
    "puffin.codec": "compression codecs are lz4 and zstd; other codecs are not supported",
    "puffin.theta-sketch": "apache-datasketches-theta-v1 holds a serialized compact Theta sketch",
    "dv.crc": "CRC-32 of magic and vector, big-endian",
    "dv.magic": "deletion-vector-v1 magic is D1 D3 39 64",
    "dv.length": "the big-endian length is the combined length of magic and vector",
    "dv.position": "positions are positive 64-bit values: the most significant bit must be 0",
    "dv.key-order": "32-bit bitmaps are ordered by unsigned comparison of their keys",
    "dv.bitmap": "the vector is a portable 64-bit Roaring bitmap",
    "dv.snapshot-id": "snapshot-id and sequence-number must be -1 for deletion vectors in Puffin v1",
    "dv.compression": "deletion-vector-v1 is not compressed: omit compression-codec",
    "dv.cardinality": "property cardinality is the number of set positions",
    "dv.referenced-data-file": "property referenced-data-file is required",
}

# Iceberg Java 1.10.2's Puffin reader (org.apache.iceberg.puffin.Puffin.read, through Spark's JVM)
# run once over these files: FileMetadataParser.toJson equal to the footer written here and the
# blob bytes of readAll decoding (datasketches / pyroaring BitMap64) to the expected content.
JAVA = "java 1.10.2"
JAVA_READS = {"dv-high-positions", "dv-run-container", "dv-small", "empty-bare-footer", "empty",
              "multi-field-theta", "theta-long-1000", "theta-long-10000", "theta-string-zstd"}
# ... and refused these invalid files for the defect they carry (its message):
JAVA_REJECTS = {
    "bad-magic-end": "expected magic at offset 8",
    "bad-magic-footer-start": "expected magic at offset 0",
    "truncated-half": "expected magic at offset 8",
    "reserved-flag-byte0": "Unknown flag byte 0 and bit 1 set",
    "reserved-flag-byte3": "Unknown flag byte 3 and bit 7 set",
    "blob-codec-snappy": "Unknown codec name: snappy",
    "footer-fields-not-ints": "Cannot parse integer from non-int value in fields",
    "footer-missing-snapshot-id": "Cannot parse missing long: snapshot-id",
    "footer-no-blobs-field": "Cannot parse missing field: blobs",
    "footer-not-json": "JsonParseException",
}


SPEC_FILE = [{"section": "Puffin spec: File structure, Footer structure, Footer Payload, FileMetadata, BlobMetadata",
              "source": "current"}]
SPEC_THETA = {"section": "Puffin spec: apache-datasketches-theta-v1 blob type", "source": "current",
              "quote": "constructing Alpha family sketch with default seed, and feeding it with individual distinct "
                       "values converted to bytes using Iceberg's single-value serialization"}
SPEC_DV = {"section": "Puffin spec: deletion-vector-v1 blob type; table spec: Deletion Vectors", "source": "current",
           "quote": "The number of 32-bit Roaring bitmaps, serialized as 8 bytes, little-endian"}
SPEC_CODECS = {"section": "Puffin spec: Compression codecs", "source": "current",
               "quote": "Single LZ4 compression frame, with content size present"}


def spec_for(types: set[str], codecs: bool) -> list[dict[str, str]]:
    out = list(SPEC_FILE)
    if "apache-datasketches-theta-v1" in types:
        out.append(SPEC_THETA)
    if "deletion-vector-v1" in types:
        out.append(SPEC_DV)
    if codecs:
        out.append(SPEC_CODECS)
    return out


def write_json(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    FILES.mkdir(exist_ok=True)
    import pyiceberg

    v_pyiceberg = f"pyiceberg {pyiceberg.__version__}"
    tests = []
    for f in valid_files():
        blobs: list[Blob] = f["blobs"]
        data, doc = assemble(blobs, **f["kw"])
        compressed = bool(f["kw"].get("compress_footer"))
        expected = read_form(doc, blobs, compressed)
        footer_len = struct.unpack("<i", data[-12:-8])[0]
        agreed = library_agreement(blobs, compressed, data, footer_len)
        if pyiceberg_agrees(data, expected, blobs):
            agreed.append(v_pyiceberg + " (PuffinFile, deletion_vector)")
        if f["name"] in JAVA_READS:
            agreed.append(JAVA + " (Puffin reader: footer, blob bytes)")
        (FILES / f"{f['name']}.puffin").write_bytes(data)
        write_json(FILES / f"{f['name']}.sidecar.json", {
            "file": f"{f['name']}.puffin", "valid": True, "description": f["desc"], "how": f["how"],
            "meaning": expected})
        tests.append({
            "description": f"{f['name']}.puffin: {f['desc']}", "input": {"file": f"files/{f['name']}.puffin"},
            "expected": expected,
            "spec": spec_for({b.type for b in blobs}, compressed or any(b.codec for b in blobs)),
            "derived": {"from": "bytes laid out from the spec text by vectors/puffin/generate.py: " + f["how"]
                        + "; read back by the libraries named", "agreed": agreed}})
    # Java-written files: sidecars written once from the rows deleted (see their "how").
    for side in sorted(FILES.glob("java-*.sidecar.json")):
        s = json.loads(side.read_text(encoding="utf-8"))
        types = {b["type"] for b in s["meaning"]["blobs"]}
        tests.append({
            "description": f"{s['file']}: {s['description']}", "input": {"file": f"files/{s['file']}"},
            "expected": s["meaning"], "spec": spec_for(types, any("compression-codec" in b for b in s["meaning"]["blobs"])),
            "derived": {"from": s["how"], "agreed": s["agreed"]}})
    write_json(HERE / "read.json", {
        "description": "Puffin files read: footer metadata and decoded blobs of valid files",
        "operation": "puffin", "spec": SPEC_FILE, "format_versions": [1, 2, 3],
        "notes": "Each test reads input.file and compares the sidecar form (suites/test_puffin.py). "
                 "Deletion vectors are v3 only, but a Puffin file is not tied to a table format version.",
        "tests": tests})

    bad_tests = []
    for f in invalid_files():
        data = f["build"]()
        (FILES / f"{f['name']}.puffin").write_bytes(data)
        reason = REASONS[f["rule"]]
        write_json(FILES / f"{f['name']}.sidecar.json", {
            "file": f"{f['name']}.puffin", "valid": False, "description": f["desc"], "how": f["how"],
            "error": {"rule": f["rule"], "reason": reason}})
        bad_tests.append({
            "description": f"{f['name']}.puffin: {f['desc']}", "input": {"file": f"files/{f['name']}.puffin"},
            "error": {"rule": f["rule"], "reason": reason},
            "derived": {"from": "a valid file of vectors/puffin/generate.py with one defect: " + f["how"],
                        "agreed": f.get("agreed", []) + ([f"{JAVA} (rejects: {JAVA_REJECTS[f['name']]})"]
                                                         if f["name"] in JAVA_REJECTS else [])},
            **({"level": "should"} if f["name"] in READER_SHOULD else {})})
    write_json(HERE / "invalid.json", {
        "description": "Invalid Puffin files: each breaks one rule and is rejected",
        "operation": "puffin", "spec": SPEC_FILE + [SPEC_CODECS, SPEC_DV], "format_versions": [1, 2, 3],
        "notes": "Reserved flag bits: the spec says they 'should be set to 0 on write'; this kit rejects files "
                 "with them set, as Iceberg Java does, because a reader cannot know what they mean. "
                 "Levels (vectors/README.md, Normative levels): a refusal is must where the file cannot be "
                 "read as Puffin at all (magic, sizes, truncation, footer not JSON or without a required "
                 "member, a blob outside the file, a codec the spec does not list, a corrupt sketch, a "
                 "deletion vector whose magic, positions or bitmap count cannot be decoded); it is should "
                 "where the file has a definite reading and breaks a rule for writers (reserved flags, content "
                 "size in frames, single frame, blob placement, the DV's CRC, length, key order, -1 ids, "
                 "no compression, properties) or this kit's size limit: the spec asks no reader to refuse it.",
        "tests": bad_tests})

    write_cases()


def write_cases() -> None:
    """Cases for targets that write Puffin: the write form in, the read form (without offset
    and length, which the writer chooses) out."""
    cp = {"created-by": "conformance writer test"}
    longs = list(range(1, 1001))
    words = [f"word-{i}" for i in range(100)]
    uni = [b.decode("utf-8") for b in UNICODE]

    def theta_in(type_: str, values: list[Any], fields: list[int], codec: str | None = None) -> dict[str, Any]:
        b: dict[str, Any] = {"type": "apache-datasketches-theta-v1", "fields": fields, "snapshot-id": 7,
                             "sequence-number": 3, "content": {"type": type_, "values": values}}
        if codec:
            b["compression-codec"] = codec
        return b

    def theta_out(b: dict[str, Any], n: int) -> dict[str, Any]:
        o = {k: v for k, v in b.items() if k != "content"}
        o["properties"] = {"ndv": str(n)}
        o["content"] = {"estimate": float(n)}
        return o

    def dv_in(positions: list[int], data_file: str) -> dict[str, Any]:
        return {"type": "deletion-vector-v1", "fields": [ROW_POSITION_FIELD], "snapshot-id": -1,
                "sequence-number": -1, "properties": {"referenced-data-file": data_file},
                "content": {"positions": positions}}

    def dv_out(b: dict[str, Any]) -> dict[str, Any]:
        ps = sorted(set(b["content"]["positions"]))
        o = {k: v for k, v in b.items() if k != "content"}
        o["properties"] = dict(b["properties"], cardinality=str(len(ps)))
        o["content"] = {"cardinality": len(ps), "positions": ps}
        return o

    t_long = theta_in("long", longs, [1])
    t_words = theta_in("string", words, [2], "zstd")
    t_uni = theta_in("string", uni, [3], "lz4")
    d_small = dv_in(SMALL, DATA_FILE)
    d_high = dv_in(HIGH + [5], OTHER_FILE)
    cases = [
        ("no blobs, uncompressed footer", False, [], []),
        ("no blobs, LZ4 footer", True, [], []),
        ("theta of longs 1..1000 with ndv 1000", False, [t_long], [theta_out(t_long, 1000)]),
        ("theta of 100 strings in a zstd blob", False, [t_words], [theta_out(t_words, 100)]),
        ("theta of 5 non-ASCII strings in an lz4 blob, LZ4 footer", True, [t_uni], [theta_out(t_uni, 5)]),
        ("deletion vector with positions below 2^32", False, [d_small], [dv_out(d_small)]),
        ("deletion vector with positions above 2^32", False, [d_high], [dv_out(d_high)]),
        ("three theta blobs and two deletion vectors, LZ4 footer", True, [t_long, t_words, t_uni, d_small, d_high],
         [theta_out(t_long, 1000), theta_out(t_words, 100), theta_out(t_uni, 5), dv_out(d_small), dv_out(d_high)]),
    ]
    tests = []
    for desc, compressed, blobs, out in cases:
        tests.append({
            "description": f"written: {desc}",
            "input": {"write": {"footer-compressed": compressed, "properties": cp, "blobs": blobs}},
            "expected": {"footer-compressed": compressed, "properties": cp, "blobs": out},
            "derived": {"from": "the spec's footer fields as given; ndv and theta estimates are the exact distinct "
                        "counts (under 4096 values a Theta sketch is exact); DV cardinality is the number of "
                        "distinct positions", "agreed": [V_SKETCH, V_ROARING]}})
    write_json(HERE / "write.json", {
        "description": "Puffin files written by a target, read back and checked by the reference",
        "operation": "puffin", "spec": SPEC_FILE + [SPEC_THETA, SPEC_DV, SPEC_CODECS], "format_versions": [1, 2, 3],
        "notes": "input.write is the write form (suites/test_puffin.py); offset and length are the writer's choice "
                 "and are not compared; the writer adds ndv (theta) and cardinality (DV) properties.",
        "tests": tests})


if __name__ == "__main__":
    main()
