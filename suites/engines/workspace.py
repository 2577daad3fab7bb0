"""Giving a consumer a golden table, and comparing what it read with the expected rows.

:class:`Workspace` prepares what a consumer opens: the table as written (``paths="plain"``), or
a copy relocated by ``checker.relocate`` to ``file://`` URIs or to a loopback HTTP server it
serves (``paths="file-uri"``/``"http"``), and for consumers without time travel a copy of the
metadata file whose current snapshot (and ``main``) is the snapshot to read.

:func:`read_table` reads every live snapshot of a table and returns the problems, one entry
per snapshot that differs: the snapshot's label and either the error the consumer raised or the
rows that differ (a multiset difference in the spec's JSON single-value form). Problems are
*normalized* (paths, UUIDs and snapshot ids replaced by placeholders), so that their digest is
the same for golden tables generated again elsewhere: that digest is how a known failure is
recognised (:mod:`.report`).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import re
import threading
import warnings
from pathlib import Path
from typing import Any

from iceberg_conformance.reference.metadata import read_metadata, schema_by_id
from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.registry import Engine, ReadRequest
from iceberg_conformance.suites.engines.rows import canonical, canonical_rows, diff_rows
from iceberg_conformance.suites.golden.registry import REGISTRY

#: at most this many differing rows are listed per snapshot (the digest covers all of them)
MAX_ROWS = 12


def pinned(md: dict[str, Any], snapshot_id: int) -> dict[str, Any]:
    """Table metadata whose current snapshot, and ``main``, is ``snapshot_id`` (other refs kept);
    the current schema is that snapshot's schema."""
    out = dict(md)
    out["current-snapshot-id"] = snapshot_id
    refs = dict(out.get("refs") or {})
    refs["main"] = {"snapshot-id": snapshot_id, "type": "branch"}
    out["refs"] = refs
    snap = next(s for s in md.get("snapshots", []) if s["snapshot-id"] == snapshot_id)
    if "schema-id" in snap:
        out["current-schema-id"] = snap["schema-id"]
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def translate_path(self, path: str) -> str:
        """The request path taken verbatim (no percent-decoding): the recorded paths were swapped
        to ``http://`` by prefix, so a file name holding ``%`` (PyIceberg's partition directories)
        is requested as it is on disk."""
        rel = path.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        root = os.path.abspath(self.directory)
        full = os.path.normpath(os.path.join(root, rel))
        # only below the served directory (a sibling directory sharing its name as a prefix is not)
        return full if os.path.commonpath([root, full]) == root else root

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass


class HttpServer:
    """A loopback HTTP server (127.0.0.1, a free port) serving ``root``; range requests are not
    needed by the readers here (they fetch whole files)."""

    def __init__(self, root: Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Workspace:
    """Relocated copies and pinned metadata files, made once per table and form, below ``root``."""

    def __init__(self, golden: Path, root: Path) -> None:
        self.golden = golden
        self.warehouse = golden / "warehouse"
        self.root = root
        self._http: HttpServer | None = None
        self._copies: dict[tuple[str, str], Path] = {}
        self._recorded: dict[str, str] = {}

    def recorded_warehouse(self, doc: dict[str, Any]) -> str:
        """The warehouse prefix the table's recorded paths start with (each producer writes its
        own form): where it was generated, not ``self.warehouse`` when the golden directory moved."""
        if doc["name"] not in self._recorded:
            location = str(read_metadata(self.warehouse / doc["metadata"]).get("location", ""))
            suffix = "/" + doc["table"]
            self._recorded[doc["name"]] = location[:-len(suffix)] if location.endswith(suffix) else str(self.warehouse)
        return self._recorded[doc["name"]]

    def moved(self, doc: dict[str, Any]) -> bool:
        recorded = self.recorded_warehouse(doc)
        return recorded.removeprefix("file:").rstrip("/") != str(self.warehouse).rstrip("/")

    def places(self, doc: dict[str, Any]) -> dict[str, str]:
        """Paths an engine's messages may name, and the placeholders a digest holds instead."""
        recorded = self.recorded_warehouse(doc).removeprefix("file:")
        return {str(self.root): "<work>", str(self.golden): "<golden>",
                recorded.removesuffix("/warehouse"): "<golden>"}

    def http(self) -> HttpServer:
        if self._http is None:
            (self.root / "http").mkdir(parents=True, exist_ok=True)
            self._http = HttpServer(self.root / "http")
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def warehouse_of(self, paths: str) -> tuple[Path, str]:
        """The warehouse directory a consumer with ``paths`` reads, and the prefix of its paths."""
        if paths == "plain":
            return self.warehouse, str(self.warehouse)
        if paths == "moved":
            d = self.root / "plain"
            return d, str(d)
        if paths == "file-uri":
            d = self.root / "file-uri"
            return d, "file://" + str(d)
        if paths == "http":
            return self.root / "http", self.http().base
        raise ValueError(f"unknown paths form {paths!r}")

    def table_copy(self, doc: dict[str, Any], paths: str) -> Path:
        """The metadata file of the table in the form ``paths`` (relocated once, then reused)."""
        if paths == "plain":
            if not self.moved(doc):
                return self.warehouse / doc["metadata"]
            # moved since generation: its recorded absolute paths name the old place, so a copy
            # with paths as written under the new one is read instead
            paths = "moved"
        key = (doc["name"], paths)
        if key not in self._copies:
            from iceberg_conformance.checker.relocate import relocate_table

            where, prefix = self.warehouse_of(paths)
            src = self.warehouse / doc["table"]
            dst = where / doc["table"]
            dst.parent.mkdir(parents=True, exist_ok=True)
            relocate_table(str(src), str(dst), self.recorded_warehouse(doc), prefix)
            self._copies[key] = where / doc["metadata"]
        return self._copies[key]

    def request(self, consumer: Engine, doc: dict[str, Any], snapshot_id: int) -> ReadRequest:
        metadata = self.table_copy(doc, consumer.paths)
        md = read_metadata(metadata)
        schema = schema_by_id(md)[next(s["schema_id"] for s in doc["snapshots"] if s["snapshot_id"] == snapshot_id)]
        form = "moved" if consumer.paths == "plain" and self.moved(doc) else consumer.paths
        where, prefix = self.warehouse_of(form)
        if not consumer.time_travel:
            # beside the relocated copy's metadata; for a table read as written, in the work
            # directory (the golden directory is only read; recorded paths are absolute)
            pin_dir = metadata.parent if consumer.paths != "plain" else self.root / "pinned" / doc["table"]
            pin_dir.mkdir(parents=True, exist_ok=True)
            metadata = pin_dir / f"pinned-{snapshot_id}.metadata.json"
            if not metadata.is_file():
                metadata.write_text(json.dumps(pinned(md, snapshot_id)), encoding="utf-8")
        if consumer.paths == "plain":
            location = str(metadata)
        else:
            location = prefix.rstrip("/") + "/" + metadata.relative_to(where).as_posix()
        table = REGISTRY.get(str(doc.get("name")))
        return ReadRequest(metadata=metadata, location=location, snapshot_id=snapshot_id, schema=schema,
                           table_metadata=md, root=where,
                           session_time_zone=table.session_time_zone if table is not None else "UTC")


# --- comparison ----------------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_LONG_NUMBER = re.compile(r"(?<![\d.])-?\d{15,}(?![\d.])")
#: pydantic's repr of the input it refused, cut in the middle ("{'snapshot-id': 224041901...-m0.avro']}"):
#: the cut leaves parts of snapshot ids and file names no other rule recognizes
_PYDANTIC_INPUT = re.compile(r"input_value=.*?, input_type=")
#: a map of integers as Rust's Debug prints a HashMap (iceberg-rust's schema dumps: ``id_lookup:
#: OnceLock({3: 1, 1: 0})``): its entries come in a random order from run to run
_INT_MAP = re.compile(r"\{(-?\d+: -?\d+(?:, -?\d+: -?\d+)+)\}")


def _sorted_map(m: re.Match[str]) -> str:
    entries = [e.split(": ") for e in m.group(1).split(", ")]
    return "{" + ", ".join(f"{k}: {v}" for k, v in sorted(entries, key=lambda kv: int(kv[0]))) + "}"
_PORT = re.compile(r"127\.0\.0\.1:\d+")


def normalize(text: str, places: dict[str, str]) -> str:
    """``text`` with the given strings (paths) replaced by their placeholders and loopback ports
    replaced, so a problem reads the same for tables generated elsewhere. Row values are left
    alone: they come from the generators (a uuid column's values stay as they are)."""
    for old, new in sorted(places.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, new)
    text = _PORT.sub("127.0.0.1:<port>", text)
    return text


_FILE = re.compile(r"(?:http://127\.0\.0\.1:<port>|(?:file://)?(?:<golden>|<work>))(?:/[^\s'\"(),]*)?")
_EXTENSION = re.compile(r"\.[a-z]+(?:\.[a-z]+)?$")


def _file(m: re.Match[str]) -> str:
    ext = _EXTENSION.search(m.group(0))
    return "<file>" + (ext.group(0) if ext else "")


#: a SQL engine's echo of the query after its error (DuckDB: ``... LINE 1: SELECT ... ^``), which
#: names the metadata file and cuts it at a length of its own; and a native stack trace (DuckDB's
#: internal errors), whose addresses differ from run to run
_QUERY_ECHO = re.compile(r"(?:\s+(?:LINE \d+|Stack Trace): |,? Stack trace \(when copying).*$")


def normalize_error(text: str, places: dict[str, str]) -> str:
    """An error message normalized as :func:`normalize` does, without a SQL engine's echo of the
    query, every file named in it reduced to ``<file>`` and its extension (file names hold task
    ids and UUIDs), and UUIDs and snapshot ids (numbers of 15 digits or more) replaced; maps of
    integers printed in hash order are sorted by key; pydantic's cut repr of a refused input is
    replaced."""
    text = _FILE.sub(_file, normalize(_QUERY_ECHO.sub("", text), places))
    text = _PYDANTIC_INPUT.sub("input_value=<input>, input_type=", text)
    return _INT_MAP.sub(_sorted_map, _LONG_NUMBER.sub("<id>", _UUID.sub("<uuid>", text)))


def digest(problems: list[dict[str, Any]]) -> str:
    """A short digest of normalized problems (what a known failure records)."""
    blob = json.dumps(problems, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def read_table(consumer: Engine, ws: Workspace, doc: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """Read every live snapshot of the golden table ``doc`` with ``consumer``; return the normalized
    problems (``[{"snapshot": label, "error": text} | {"snapshot": label, "rows": [...], "count": n}]``)
    and the number of snapshots read. Raises ReaderUnavailable when the engine is absent."""
    places = ws.places(doc)
    problems: list[dict[str, Any]] = []
    read = 0
    for snap in doc["snapshots"]:
        if snap["expired"]:
            continue
        label = snap["label"] + (f" [{snap['ref']}]" if snap["ref"] != "main" else "")
        try:
            request = ws.request(consumer, doc, snap["snapshot_id"])
            with warnings.catch_warnings():   # an engine's own warnings are not what is judged here
                warnings.simplefilter("ignore")
                raw = consumer.read(request)
        except ReaderUnavailable:
            raise
        except Exception as e:  # a crash on a valid table is a finding, not an error of the test
            first = " ".join(str(e).split())[:600]
            problems.append({"snapshot": label, "error": normalize_error(f"{type(e).__name__}: {first}", places)})
            continue
        read += 1
        problem = compare_read(consumer, request.schema, raw, snap["rows"], label, places)
        if problem is not None:
            problems.append(problem)
    return problems, read


def compare_read(consumer: Engine, schema: dict[str, Any], raw: list[dict[str, Any]], expected: list[dict[str, Any]],
                 label: str, places: dict[str, str]) -> dict[str, Any] | None:
    """The problem of a consumer's unfiltered read of a snapshot against its expected rows
    (values without a canonical form, or rows that differ), normalized; None when it is right."""
    try:
        rows = raw if consumer.json_rows else canonical_rows(schema, raw)
    except Exception as e:
        return {"snapshot": label, "error": normalize_error(
            f"values of unexpected types: {bad_column(schema, raw) or ''}{type(e).__name__}: {e}", places)}
    d = diff_rows(expected, rows)
    return {"snapshot": label, "rows": [normalize(x.strip(), places) for x in d]} if d else None


def bad_column(schema: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """``"column C holds <type> <value>: "`` for the first value that has no canonical form."""
    types = {f["name"]: f["type"] for f in schema["fields"]}
    for r in rows:
        for k, v in r.items():
            if k not in types:
                continue
            try:
                canonical(types[k], v)
            except Exception:
                return f"column {k} ({types[k] if isinstance(types[k], str) else types[k]['type']}) holds {type(v).__name__} {v!r:.60}: "
    return ""


def problem_lines(problems: list[dict[str, Any]], limit: int = MAX_ROWS) -> list[str]:
    """Problems as readable lines, at most ``limit`` row lines per snapshot."""
    out = []
    for p in problems:
        if "error" in p:
            out.append(f"snapshot {p['snapshot']!r}: {p['error']}")
            continue
        out.append(f"snapshot {p['snapshot']!r}:")
        rows = p["rows"]
        out += ["  " + x[:400] for x in rows[:limit]]
        if len(rows) > limit:
            out.append(f"  ... {len(rows) - limit} more lines")
    return out
