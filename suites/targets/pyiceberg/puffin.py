"""pyiceberg target: capability ``puffin-read`` (``pyiceberg.table.puffin``; no Puffin writer).

What pyiceberg 0.12 does itself: the magics at both ends, the footer flags, the footer JSON
(pydantic models), blob bytes and their ``zstd`` decompression (``PuffinFile``), and the
deletion-vector framing and 64-bit Roaring layout (``deletion_vectors_from_puffin_file``,
called on a copy of the file whose footer lists only the deletion-vector blobs, because that
function reads every blob as a deletion vector).

What this adapter adds: pyiceberg has no Theta sketch reader, so the estimate of an
``apache-datasketches-theta-v1`` blob is taken with ``datasketches`` from the payload bytes
pyiceberg returned (the container, codec and blob bounds are still pyiceberg's). Two inputs
are not handed to pyiceberg because they would exhaust the machine; both are reported as
failures (see ``known-failures-puffin.json``): a deletion vector with a 32-bit key above
2^16 (pyiceberg pads one list entry per key below the highest) and a zstd frame declaring
more than 1 GiB (pyiceberg's ``ZstdDecompressor().decompress`` allocates the declared size).

Refusals: ``ValueError`` (pyiceberg's own checks and pydantic's ``ValidationError``) and
``zstandard.ZstdError`` count as rejections; anything else is a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iceberg_conformance.suites.api import PUFFIN_READ, Rejected

_MAX_KEY_RUN = 1 << 16
_MAX_ZSTD_RUN = 1 << 30


class NotRun(RuntimeError):
    """An input the adapter refuses to hand to pyiceberg (it would exhaust memory)."""


def _theta_estimate(payload: bytes) -> dict[str, Any]:
    import datasketches

    try:
        return {"estimate": float(datasketches.compact_theta_sketch.deserialize(payload).get_estimate())}
    except Exception as e:  # noqa: BLE001 - datasketches raises plain exceptions on bad bytes
        raise Rejected(f"theta blob is not a compact sketch: {e}") from e


def _guard_dv(payload: bytes) -> None:
    """Refuse (NotRun) a vector whose highest key pyiceberg would pad up to."""
    from pyroaring import BitMap64

    from pyiceberg.table.deletion_vector import MAX_JAVA_SIGNED, _extract_vector_payload

    try:
        positions = BitMap64.deserialize(_extract_vector_payload(payload))
        top = positions.max() >> 32 if positions else 0
    except Exception:  # noqa: BLE001 - corrupt input: let pyiceberg meet it
        return
    if _MAX_KEY_RUN < top <= MAX_JAVA_SIGNED:
        raise NotRun(f"not run: key {top} would make pyiceberg's DeletionVector._deserialize_bitmap "
                     f"append {top} bitmaps (one per key below the highest)")


class PuffinMixin:
    CAPABILITIES = frozenset({PUFFIN_READ})

    def read_puffin(self, path: str) -> Any:
        import zstandard

        from pyiceberg.table.deletion_vector import deletion_vectors_from_puffin_file
        from pyiceberg.table.puffin import Footer, PuffinFile

        data = Path(path).read_bytes()
        try:
            pf = PuffinFile(data)
            blobs = []
            dv_blobs: list[tuple[dict[str, Any], Any]] = []
            for m in pf.footer.blobs:
                entry = m.model_dump(by_alias=True, exclude_none=True)
                if m.compression_codec == "zstd":
                    raw = data[m.offset:m.offset + m.length]
                    try:
                        declared = zstandard.get_frame_parameters(raw).content_size
                    except zstandard.ZstdError:
                        declared = 0
                    if declared != zstandard.CONTENTSIZE_UNKNOWN and declared > _MAX_ZSTD_RUN:
                        raise NotRun(f"not run: pyiceberg's zstd decompress would allocate {declared} bytes")
                payload = pf.get_blob_payload(m)
                if m.type == "apache-datasketches-theta-v1":
                    entry["content"] = _theta_estimate(payload)
                elif m.type == "deletion-vector-v1":
                    _guard_dv(payload)
                    dv_blobs.append((entry, m))
                else:
                    entry["content"] = {"hex": payload.hex()}
                blobs.append(entry)
            if dv_blobs:
                # pyiceberg's public DV reader, on a footer holding only the DV blobs
                only_dvs = PuffinFile(data)
                only_dvs.footer = Footer(blobs=[m for _, m in dv_blobs], properties=pf.footer.properties)
                for (entry, _), vec in zip(dv_blobs, deletion_vectors_from_puffin_file(only_dvs)):
                    positions = vec.to_vector().to_pylist()
                    entry["content"] = {"cardinality": len(positions), "positions": positions}
        except (ValueError, zstandard.ZstdError) as e:
            raise Rejected(str(e)) from e
        return {"footer-compressed": False, "properties": dict(pf.footer.properties), "blobs": blobs}
