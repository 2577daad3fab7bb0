"""Reference target: capabilities ``puffin-read`` and ``puffin-write`` (the read and write forms
are described in ``suites/test_puffin.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iceberg_conformance.reference.binary import to_bytes
from iceberg_conformance.reference.puffin import BlobToWrite, deletion_vector_blob, read_form, theta_blob, write_puffin
from iceberg_conformance.reference.values import from_json
from iceberg_conformance.suites.api import PUFFIN_READ, PUFFIN_WRITE
from iceberg_conformance.suites.targets.reference._common import rejecting, typ


def _blob(spec: dict[str, Any]) -> BlobToWrite:
    content = spec["content"]
    props = dict(spec.get("properties", {}))
    codec = spec.get("compression-codec")
    if spec["type"] == "apache-datasketches-theta-v1":
        t = typ(content["type"])
        values = [to_bytes(t, from_json(t, v)) for v in content["values"]]
        b = theta_blob(values, spec["fields"], spec["snapshot-id"], spec["sequence-number"], codec)
        return BlobToWrite(b.type, b.fields, b.snapshot_id, b.sequence_number, b.payload, codec,
                           {**props, **b.properties})
    if spec["type"] == "deletion-vector-v1":
        b = deletion_vector_blob(content["positions"], props["referenced-data-file"], spec["fields"])
        return BlobToWrite(b.type, b.fields, spec["snapshot-id"], spec["sequence-number"], b.payload,
                           codec, {**props, **b.properties})
    return BlobToWrite(spec["type"], tuple(spec["fields"]), spec["snapshot-id"], spec["sequence-number"],
                       bytes.fromhex(content["hex"]), codec, props)


class PuffinMixin:
    CAPABILITIES = frozenset({PUFFIN_READ, PUFFIN_WRITE})

    def read_puffin(self, path: str) -> Any:
        with rejecting():
            return read_form(path)

    def write_puffin(self, path: str, content: Any) -> None:
        with rejecting():
            data = write_puffin([_blob(b) for b in content["blobs"]],
                                properties=content.get("properties", {}),
                                compress_footer=content.get("footer-compressed", False))
        Path(path).write_bytes(data)
