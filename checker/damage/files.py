"""Rewriting a content file in its own format (Parquet, ORC, Avro) for the damage cases.

Each helper reads the file a case picked, lets the case change it, and hands the new bytes to
the overlay (which re-stamps ``file_size_in_bytes``). The file keeps its format, its schema with
its field ids and type attributes, and its other columns; only what the case changes differs.
"""

from __future__ import annotations

import copy
import io
from typing import Any, Callable

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

from iceberg_conformance.checker.damage.overlay import Overlay
from iceberg_conformance.checker.find import local_path
from iceberg_conformance.reference.avro import AvroSchema, read_container, write_container


def file_format(entry: dict[str, Any]) -> str:
    return str(entry["data_file"].get("file_format") or "").upper()


def rewrite_avro(o: Overlay, path: str,
                 change: Callable[[AvroSchema, list[dict[str, Any]]], str | None]) -> str | None:
    """Rewrite an Avro file: ``change`` edits a copy of its writer schema and its raw records
    (logical types not applied) in place and says what it did, or returns None to leave it."""
    schema, meta, records = read_container(local_path(path) or path)
    schema = copy.deepcopy(schema)
    what = change(schema, records)
    if what is None:
        return None
    buf = io.BytesIO()
    write_container(buf, schema, records, meta, codec="deflate")
    o.copy_file(path, buf.getvalue())
    return what


def rewrite_orc(o: Overlay, path: str, change: Callable[[Any], tuple[Any, str] | None]) -> str | None:
    """Rewrite an ORC file: ``change`` returns the new Arrow table (type attributes in the field
    metadata, as pyarrow's ORC reader and writer keep them) and what it did, or None."""
    with open(local_path(path) or path, "rb") as f:
        table = orc.ORCFile(f).read()
    got = change(table)
    if got is None:
        return None
    sink = pa.BufferOutputStream()
    orc.write_table(got[0], sink)
    o.copy_file(path, sink.getvalue().to_pybytes())
    return got[1]


def rewrite_columns(o: Overlay, path: str, fmt: str,
                    change: Callable[[dict[str, list[Any]]], str | None]) -> str | None:
    """Rewrite columns of a file of any format: ``change`` edits the top-level columns (name ->
    Python values, in their Avro raw form for an Avro file) in place; the schema is kept."""
    if fmt == "AVRO":
        def records(_schema: AvroSchema, recs: list[dict[str, Any]]) -> str | None:
            cols = {name: [r.get(name) for r in recs] for name in (recs[0] if recs else {})}
            what = change(cols)
            for i, r in enumerate(recs):
                r.update({name: values[i] for name, values in cols.items()})
            return what
        return rewrite_avro(o, path, records)

    def table(t: Any) -> tuple[Any, str] | None:
        cols = {name: t.column(name).to_pylist() for name in t.column_names}
        what = change(cols)
        if what is None:
            return None
        for i, field in enumerate(t.schema):
            t = t.set_column(i, field, pa.array(cols[field.name], field.type))
        return t, what
    if fmt == "ORC":
        return rewrite_orc(o, path, table)
    got = table(pq.read_table(local_path(path) or path))
    if got is None:
        return None
    buf = io.BytesIO()
    pq.write_table(got[0], buf)
    o.copy_file(path, buf.getvalue())
    return got[1]
