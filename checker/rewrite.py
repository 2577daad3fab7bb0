"""Rewriting a table's Avro files as their writer wrote them: :class:`AvroFile` keeps the
writer's schema (raw JSON, with field ids), user metadata and codec, so a rewritten manifest or
manifest list differs from the original only where it was changed (the damage self-test and
:mod:`checker.relocate` rewrite tables with it)."""

from __future__ import annotations

import copy
import io
import json
from dataclasses import dataclass
from typing import Any

import fastavro

from iceberg_conformance.reference.avro import with_header


@dataclass
class AvroFile:
    """An Avro container decoded for rewriting: the writer's schema (raw JSON, with field ids),
    its user metadata, its codec and its records (fastavro's Python values)."""

    path: str
    schema: dict[str, Any]
    meta: dict[str, str]
    codec: str
    records: list[dict[str, Any]]
    #: a schema to declare in the header instead of ``schema`` (the records stay encoded by
    #: ``schema``): the file of a writer whose header disagrees with its records
    header_schema: dict[str, Any] | None = None

    @classmethod
    def load(cls, path: str) -> "AvroFile":
        with open(path, "rb") as f:
            r = fastavro.reader(f)
            meta = {k: (v.decode("utf-8") if isinstance(v, bytes) else v) for k, v in r.metadata.items()}
            records = [rec for rec in r if isinstance(rec, dict)]
        schema = json.loads(meta["avro.schema"])
        return cls(path, schema, {k: v for k, v in meta.items() if not k.startswith("avro.")},
                   str(meta.get("avro.codec", "null")), records)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        fastavro.writer(buf, fastavro.parse_schema(copy.deepcopy(self.schema)), self.records,
                        codec=self.codec, metadata=dict(self.meta))
        data = buf.getvalue()
        if self.header_schema is None:
            return data
        return with_header(data, {"avro.schema": json.dumps(self.header_schema).encode("utf-8")})

