"""Fuzzing the kit's public readers and the table checker with hostile inputs (issue 13).

Targets (``TARGETS``), each fed mutants of real seeds:

* ``metadata``      -- ``load_metadata`` + ``validate_metadata`` on table metadata JSON
                       (seeds: ``vectors/metadata/files`` and reference-written tables);
* ``manifest``      -- ``read_manifest`` (no context and with the table's context);
* ``manifest-list`` -- ``read_manifest_list``;
* ``puffin``        -- ``validate_puffin`` (seeds: ``vectors/puffin/files`` and a DV file);
* ``dv``            -- ``deletion_vectors.decode_blob`` on one blob;
* ``table``         -- ``checker.check_table`` on a reference-written v2 table with
                       position deletes or a v3 table with a deletion vector, one file mutated.

Mutators are byte-level (flip, truncate, insert, splice, overwrite) and structure-aware: JSON
documents are parsed and a value changed (types, huge numbers, deep nesting, nulls, removed
keys); Avro files are decoded and re-encoded with a mutated header (``schema``,
``partition-spec``, ``avro.schema``: wrong JSON shapes, decimal without precision, ``fields``
null) or mutated record values; Puffin footers are mutated and the file re-written with correct
lengths; DV blobs are mutated and their length and CRC recomputed.

Oracle: no exception other than the kit's own (``SpecViolation`` or findings) leaves a target;
the checker never reports ``checker.internal-error``; each input finishes within ``--timeout``
seconds (a worker process per job, killed and restarted on a hang); every error finding names
its file and a location. Input ``i`` of target ``t`` under seed ``s`` is generated from
``random.Random(f"{s}:{t}:{i}")`` alone, so a failure is replayed with ``--replay t:i``.

    python -m tests.fuzz --count 100000 --seed 1 --jobs 2     # 100,000 inputs in all, progress + summary
    python -m tests.fuzz --replay manifest:123 --seed 1 --save /tmp/x   # one input, its bytes
    tests/test_fuzz.py                                         # bounded run in CI
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import random
import resource
import shutil
import struct
import sys
import tempfile
import time
import traceback
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "vectors"
TARGETS = ("metadata", "manifest", "manifest-list", "puffin", "dv", "table")

# --- mutators ---------------------------------------------------------------------------------

INTERESTING_INT = [0, -1, 1, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 2**64, 10**400, 255, 65536]


def mutate_bytes(rng: random.Random, data: bytes, other: bytes = b"") -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 4, 8))):
        op = rng.randrange(7)
        n = len(b)
        if op == 0 and n:  # bit flip
            i = rng.randrange(n)
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # truncate
            del b[rng.randrange(n):]
        elif op == 2:  # insert random bytes
            i = rng.randrange(n + 1)
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.choice((1, 4, 16, 100))))
        elif op == 3 and n:  # overwrite with an interesting value
            i = rng.randrange(n)
            v = rng.choice((b"\xff" * 4, b"\x00" * 4, b"\x7f\xff\xff\xff", b"\x80", b"\xff" * 9, b"\x01"))
            b[i:i + len(v)] = v
        elif op == 4 and n and other:  # splice with another seed
            i, j = rng.randrange(n), rng.randrange(len(other))
            b = b[:i] + bytearray(other[j:j + rng.randrange(1, 200)]) + b[i:]
        elif op == 5 and n > 1:  # duplicate a chunk
            i = rng.randrange(n)
            j = min(n, i + rng.randrange(1, 64))
            b[i:i] = b[i:j]
        elif op == 6 and n > 1:  # delete a chunk
            i = rng.randrange(n)
            del b[i:i + rng.randrange(1, 32)]
    return bytes(b)


class BigNum(str):
    """An integer literal written as its digits (too long for ``int()`` under Python's limit)."""


def _deep(rng: random.Random) -> Any:
    depth = rng.choice((50, 1000, 5000))
    v: Any = 1
    for _ in range(depth):
        v = [v] if rng.random() < 0.5 else {"a": v}
    return v


def _odd_value(rng: random.Random, old: Any) -> Any:
    choices: list[Callable[[], Any]] = [
        lambda: None, lambda: True, lambda: "", lambda: "x" * rng.choice((1, 300)), lambda: [], lambda: {},
        lambda: rng.choice(INTERESTING_INT), lambda: -rng.randrange(1, 100), lambda: 1.5, lambda: 1e308,
        lambda: BigNum("9" * rng.choice((20, 400, 5000))), lambda: _deep(rng), lambda: [old], lambda: {"x": old},
        lambda: str(old), lambda: rng.choice(("struct", "decimal(9,2)", "list", "map", "fixed[0]", "bucket[0]",
                                              "truncate[-1]", "unknown", "v1", "int", "long", "string", "record")),
    ]
    if isinstance(old, int) and not isinstance(old, bool):
        choices += [lambda: old + rng.choice((-1, 1)), lambda: -old, lambda: old * 2**40]
    return rng.choice(choices)()


def _paths(doc: Any, prefix: tuple[Any, ...] = (), out: list[tuple[Any, ...]] | None = None,
           limit: int = 5000) -> list[tuple[Any, ...]]:
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    out.append(prefix)
    if len(prefix) > 200:
        return out
    if isinstance(doc, dict):
        for k, v in doc.items():
            _paths(v, prefix + (k,), out, limit)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            _paths(v, prefix + (i,), out, limit)
    return out


def mutate_json(rng: random.Random, doc: Any) -> Any:
    """A copy of ``doc`` with one to three values changed, removed, duplicated or retyped."""
    doc = _copy(doc)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = _paths(doc)
        path = rng.choice(paths)
        if not path:
            doc = _odd_value(rng, doc) if rng.random() < 0.2 else doc
            continue
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        op = rng.randrange(4)
        if op == 0 and isinstance(parent, dict):
            del parent[key]
        elif op == 1 and isinstance(parent, list):
            parent.insert(key, _copy(parent[key]))
        elif op == 2 and isinstance(parent, dict):
            parent[rng.choice(("type", "fields", "id", "field-id", "name", "required", "element", "value",
                               "precision", "transform", "source-id", "snapshots", "schemas"))] = _odd_value(
                rng, parent[key])
        else:
            parent[key] = _odd_value(rng, parent[key])
    return doc


def dumps(doc: Any) -> bytes:
    """JSON text of ``doc``, written without recursion; a :class:`BigNum` as bare digits."""
    if True:
        out: list[str] = []

        def walk(v: Any) -> None:
            stack: list[Any] = [v]
            while stack:
                x = stack.pop()
                if isinstance(x, str) and x in ("\0]", "\0}", "\0,"):
                    out.append(x[1])
                elif isinstance(x, list):
                    out.append("[")
                    stack.append("\0]")
                    for i, e in reversed(list(enumerate(x))):
                        stack.append(e)
                        if i:
                            stack.append("\0,")
                elif isinstance(x, dict):
                    out.append("{")
                    stack.append("\0}")
                    for i, (k, e) in reversed(list(enumerate(x.items()))):
                        stack.append(e)
                        stack.append(("key", k))
                        if i:
                            stack.append("\0,")
                elif isinstance(x, tuple):
                    out.append(json.dumps(x[1]) + ":")
                elif isinstance(x, BigNum):
                    out.append(str.__str__(x))
                else:
                    out.append(json.dumps(x))
        walk(doc)
        return "".join(out).encode()


def _copy(doc: Any) -> Any:
    """A deep copy of a JSON value, without recursion limits on numbers (deep nesting aside)."""
    return json.loads(dumps(doc), parse_int=lambda t: BigNum(t) if len(t) > 4000 else int(t))


def _json_or_bytes(rng: random.Random, data: bytes, other: bytes) -> bytes:
    try:
        doc = json.loads(data, parse_int=lambda t: BigNum(t) if len(t) > 4000 else int(t))
    except (ValueError, RecursionError):
        doc = None
    if doc is not None and rng.random() < 0.75:
        return dumps(mutate_json(rng, doc))
    return mutate_bytes(rng, data, other)


# Avro

def _avro_parts(data: bytes) -> tuple[dict[str, bytes], bytes]:
    from iceberg_conformance.reference.avro import _read_header

    meta, pos = _read_header(data)
    return meta, data[pos:]


def _avro_join(meta: dict[str, bytes], body: bytes) -> bytes:
    from iceberg_conformance.reference.avro import MAGIC, _avro_bytes, _zigzag

    out = bytearray(MAGIC) + _zigzag(len(meta))
    for k, v in meta.items():
        out += _avro_bytes(k.encode()) + _avro_bytes(v)
    return bytes(out + _zigzag(0) + body)


def _mutate_avro_schema(rng: random.Random, schema: Any) -> Any:
    schema = _copy(schema)
    paths = [p for p in _paths(schema) if p]
    special = [p for p in paths if p[-1] in ("fields", "type", "precision", "field-id", "items", "values",
                                             "logicalType", "size", "element-id", "key-id", "value-id")]
    path = rng.choice(special or paths)
    parent = schema
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    r = rng.random()
    if r < 0.25 and isinstance(parent, dict):
        del parent[key]
    elif r < 0.4:
        parent[key] = None
    else:
        parent[key] = _odd_value(rng, parent[key])
    return schema


def mutate_avro(rng: random.Random, data: bytes, other: bytes) -> bytes:
    """Structure-aware: a header value or the schema changed (body kept), or records decoded,
    one value changed and re-encoded under the file's own schema; else byte-level."""
    r = rng.random()
    try:
        meta, body = _avro_parts(data)
    except Exception:  # noqa: BLE001 - a seed that is not a container: bytes only
        return mutate_bytes(rng, data, other)
    if r < 0.3:
        keys = [k for k in meta if k in ("schema", "partition-spec", "format-version", "content",
                                          "partition-spec-id", "schema-id", "snapshot-id", "sequence-number",
                                          "avro.codec", "parent-snapshot-id", "first-row-id")] or list(meta)
        k = rng.choice(keys)
        try:
            v: Any = json.loads(meta[k])
            meta[k] = dumps(mutate_json(rng, v)) if rng.random() < 0.8 else dumps(_odd_value(rng, v))
        except ValueError:
            meta[k] = rng.choice((b"", b"x", b"-1", b"99999999999999999999", b"null", b"[]", b"{}"))
        return _avro_join(meta, body)
    if r < 0.55:
        schema = json.loads(meta["avro.schema"])
        meta["avro.schema"] = dumps(_mutate_avro_schema(rng, schema))
        return _avro_join(meta, body)
    if r < 0.8:
        return _reencode(rng, data, meta) or mutate_bytes(rng, data, other)
    return mutate_bytes(rng, data, other)


def _reencode(rng: random.Random, data: bytes, meta: dict[str, bytes]) -> bytes | None:
    import fastavro

    from iceberg_conformance.reference.avro import strip_logical_types, write_container

    try:
        schema = json.loads(meta["avro.schema"])
        records = list(fastavro.reader(io.BytesIO(data), return_record_name=False))
    except Exception:  # noqa: BLE001
        return None
    if not records:
        return None
    rec = rng.choice(records)
    paths = [p for p in _paths(rec) if p]
    if not paths:
        return None
    path = rng.choice(paths)
    parent: Any = rec
    for p in path[:-1]:
        parent = parent[p]
    old = parent[path[-1]]
    if isinstance(old, bool):
        new: Any = not old
    elif isinstance(old, int):
        new = rng.choice([0, -1, 1, 2**31 - 1, -2**31, 2**63 - 1, -2**63, old + 1, old - 1, -old, 7])
    elif isinstance(old, bytes):
        new = rng.choice((b"", old[:-1], old + b"\0", os.urandom(0) + bytes(rng.randrange(256) for _ in range(9))))
    elif isinstance(old, str):
        new = rng.choice(("", old + "x", "s3://elsewhere/x", "/etc/passwd", "../" * 5 + "x", "\udcff" * 0 + "é"))
    elif isinstance(old, float):
        new = rng.choice((float("nan"), float("inf"), -0.0))
    else:
        new = None
    parent[path[-1]] = new
    clean = {k: v.decode("utf-8", "replace") for k, v in meta.items() if not k.startswith("avro.")}
    out = io.BytesIO()
    try:
        write_container(out, strip_logical_types(schema), records, clean)
    except Exception:  # noqa: BLE001 - the value does not fit the schema: try null, else give up
        try:
            parent[path[-1]] = None
            out = io.BytesIO()
            write_container(out, strip_logical_types(schema), records, clean)
        except Exception:  # noqa: BLE001
            return None
    return out.getvalue()


# Puffin and DVs

def _puffin_footer(data: bytes) -> tuple[int, bytes, int] | None:
    if len(data) < 12 + 4 or data[-4:] != b"PFA1":
        return None
    plen, flags = struct.unpack_from("<iI", data, len(data) - 12)
    start = len(data) - 12 - plen - 4
    if plen < 0 or start < 4 or flags:
        return None
    return start, data[start + 4:start + 4 + plen], flags


def _puffin_write(blob_area: bytes, payload: bytes) -> bytes:
    return blob_area + b"PFA1" + payload + struct.pack("<iI", len(payload), 0) + b"PFA1"


def fix_dv(blob: bytes) -> bytes:
    """``blob`` with its length field and CRC recomputed around its magic and vector."""
    body = blob[4:-4] if len(blob) >= 12 else b"\xd1\xd3\x39\x64" + blob
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def mutate_dv(rng: random.Random, blob: bytes, other: bytes) -> bytes:
    r = rng.random()
    if r < 0.2:
        return mutate_bytes(rng, blob, other)
    body = bytearray(blob[4:-4])
    if r < 0.5 and len(body) > 12:  # the vector's count or a key
        i = rng.choice((4, 8, 12, rng.randrange(4, len(body) - 4)))
        body[i:i + 4] = struct.pack("<I", rng.choice((0, 1, 2, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 3)))
        return fix_dv(b"\0" * 4 + bytes(body) + b"\0" * 4)
    return fix_dv(b"\0" * 4 + mutate_bytes(rng, bytes(body), other[4:-4]) + b"\0" * 4)


def mutate_puffin(rng: random.Random, data: bytes, other: bytes) -> bytes:
    foot = _puffin_footer(data)
    r = rng.random()
    if foot is not None and r < 0.5:
        start, payload, _ = foot
        try:
            doc = json.loads(payload)
        except ValueError:
            return mutate_bytes(rng, data, other)
        return _puffin_write(data[:start], dumps(mutate_json(rng, doc)))
    if foot is not None and r < 0.7:
        # a DV blob mutated with a fixed CRC, the footer's lengths re-stamped
        start, payload, _ = foot
        try:
            doc = json.loads(payload)
            b = rng.choice(doc["blobs"])
            off, ln = int(b["offset"]), int(b["length"])
        except Exception:  # noqa: BLE001
            return mutate_bytes(rng, data, other)
        new = mutate_dv(rng, data[off:off + ln], b"")
        area = data[:off] + new + data[off + ln:start]
        delta = len(new) - ln
        b["length"] = len(new)
        for o in doc["blobs"]:
            if isinstance(o.get("offset"), int) and o["offset"] > off:
                o["offset"] += delta
        return _puffin_write(area, json.dumps(doc).encode())
    return mutate_bytes(rng, data, other)


# --- seeds --------------------------------------------------------------------------------------

@dataclass
class Seeds:
    work: Path
    files: dict[str, list[bytes]] = field(default_factory=dict)
    tables: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (dir, metadata, files)


def _files(*globs: str) -> list[bytes]:
    out = []
    for g in globs:
        for p in sorted(VECTORS.glob(g)):
            if p.is_file() and not p.name.endswith(".sidecar.json") and p.stat().st_size < 1 << 20:
                out.append(p.read_bytes())
    return out


def make_tables(work: Path) -> list[tuple[str, str, list[str]]]:
    """A v2 table with position deletes and a v3 table with a deletion vector (reference writer)."""
    sys.path.insert(0, str(ROOT))
    from iceberg_conformance.reference.writer import write_table
    from iceberg_conformance.suites.golden.small_tables import add_deletion_vector, add_position_deletes

    out = []
    for version in (2, 3):
        d = work / f"table-v{version}"
        if d.exists():
            shutil.rmtree(d)
        md = write_table(str(d), version)
        md = add_position_deletes(md, [0]) if version == 2 else add_deletion_vector(md, [1])
        files = sorted(str(p) for p in d.rglob("*") if p.is_file() and not p.name.endswith(".crc"))
        out.append((str(d), md, files))
    return out


def load_seeds(work: Path) -> Seeds:
    s = Seeds(work)
    s.tables = make_tables(work)
    table_files = [f for _, _, fs in s.tables for f in fs]
    s.files["metadata"] = _files("metadata/files/**/*.json") + [
        Path(f).read_bytes() for f in table_files if f.endswith(".metadata.json")]
    avros = [(Path(f).name, Path(f).read_bytes()) for f in table_files if f.endswith(".avro")]
    avros += [(p.name, p.read_bytes()) for p in sorted((VECTORS / "manifests/files").glob("*.avro"))]
    lists = [b for n, b in avros if "list" in n or n.startswith("snap-")]
    s.files["manifest-list"] = lists
    s.files["manifest"] = [b for n, b in avros if not ("list" in n or n.startswith("snap-"))]
    s.files["puffin"] = _files("puffin/files/*.puffin") + [
        Path(f).read_bytes() for f in table_files if f.endswith(".puffin")]
    from iceberg_conformance.reference.deletion_vectors import encode_blob
    s.files["dv"] = [encode_blob(p) for p in ([], [0], [1, 5, 9], list(range(0, 5000, 3)), [2**32 + 7, 5],
                                              list(range(70000)))]
    return s


# --- running one input ----------------------------------------------------------------------------

@dataclass
class Outcome:
    target: str
    index: int
    status: str  # ok | rejected | crash | internal-error | no-location
    detail: str = ""
    seconds: float = 0.0
    rss_kib: int = 0


def _bad_findings(findings: list[Any]) -> str:
    for f in findings:
        if f.rule == "checker.internal-error":
            return f"internal-error: {f.file}: {f.message}"
    for f in findings:
        if f.severity == "error" and (not f.file or not f.location):
            return f"no-location: [{f.rule}] file={f.file!r} location={f.location!r}: {f.message[:200]}"
    return ""


def make_input(seeds: Seeds, target: str, seed: int, index: int) -> tuple[bytes, int, int]:
    """(mutated bytes, seed-file index, table-file index) of input ``index``."""
    rng = random.Random(f"{seed}:{target}:{index}")
    try:
        return _make_input(seeds, target, rng)
    except RecursionError:  # a structure too deep for the mutator: the same seed, bytes only
        rng = random.Random(f"{seed}:{target}:{index}")
        return _make_input(seeds, target, rng, bytes_only=True)


def _make_input(seeds: Seeds, target: str, rng: random.Random, bytes_only: bool = False) -> tuple[bytes, int, int]:
    if target == "table":
        t = rng.randrange(len(seeds.tables))
        files = seeds.tables[t][2]
        fi = rng.randrange(len(files))
        path = files[fi]
        data = Path(path).read_bytes()
        if bytes_only:
            mutated = mutate_bytes(rng, data)
        elif path.endswith(".avro"):
            mutated = mutate_avro(rng, data, b"")
        elif path.endswith(".puffin"):
            mutated = mutate_puffin(rng, data, b"")
        elif path.endswith(".json") or path.endswith(".text"):
            mutated = _json_or_bytes(rng, data, b"")
        else:
            mutated = mutate_bytes(rng, data)
        return mutated, t, fi
    pool = seeds.files[target]
    i = rng.randrange(len(pool))
    data, other = pool[i], pool[rng.randrange(len(pool))]
    if bytes_only:
        return mutate_bytes(rng, data, other), i, -1
    if target == "metadata":
        return _json_or_bytes(rng, data, other), i, -1
    if target in ("manifest", "manifest-list"):
        return mutate_avro(rng, data, other), i, -1
    if target == "puffin":
        return mutate_puffin(rng, data, other), i, -1
    return mutate_dv(rng, data, other), i, -1


def run_input(seeds: Seeds, target: str, data: bytes, t: int, fi: int, scratch: Path) -> tuple[str, str]:
    from iceberg_conformance.reference import deletion_vectors as dvs
    from iceberg_conformance.reference import manifests as m
    from iceberg_conformance.reference import metadata as md
    from iceberg_conformance.reference.errors import SpecViolation
    from iceberg_conformance.reference.puffin import validate_puffin

    if target == "dv":
        try:
            dvs.decode_blob(data, "blob")
        except SpecViolation as e:
            return ("rejected", "") if e.where else ("no-location", f"[{e.rule}] {e}")
        return "ok", ""
    if target == "table":
        from iceberg_conformance.checker.check import check_table

        _, metadata, files = seeds.tables[t]
        victim = files[fi]
        original = Path(victim).read_bytes()
        try:
            Path(victim).write_bytes(data)
            findings = list(check_table(metadata).findings)
        finally:
            Path(victim).write_bytes(original)
    else:
        ext = {"metadata": ".metadata.json", "puffin": ".puffin"}.get(target, ".avro")
        path = str(scratch / f"input{ext}")
        Path(path).write_bytes(data)
        if target == "metadata":
            doc, findings = md.load_metadata(path)
            if doc is not None:
                findings = findings + md.validate_metadata(doc, path)
        elif target == "manifest":
            findings = m.read_manifest(path)[1]
            if not findings or all(f.severity != "error" for f in findings):
                findings += m.check_manifest(path, m.ManifestContext(2))
        elif target == "manifest-list":
            findings = m.read_manifest_list(path)[1]
        else:
            findings = validate_puffin(path)
    bad = _bad_findings(findings)
    if bad:
        return bad.split(":", 1)[0], bad
    return ("rejected" if any(f.severity == "error" for f in findings) else "ok"), ""


def _worker(conn: Any, work: str) -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    seeds = load_seeds(Path(work))
    scratch = Path(work) / "scratch"
    scratch.mkdir(exist_ok=True)
    conn.send("ready")
    while True:
        job = conn.recv()
        if job is None:
            return
        target, seed, index = job
        start = time.monotonic()
        try:
            data, t, fi = make_input(seeds, target, seed, index)
        except Exception as e:  # noqa: BLE001 - a harness bug: report, not hide
            conn.send(Outcome(target, index, "harness-error", f"{type(e).__name__}: {e}"))
            continue
        try:
            status, detail = run_input(seeds, target, data, t, fi, scratch)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # noqa: BLE001 - the oracle: nothing but the kit's own escapes
            # (BaseException: a Rust panic in a binding, pyo3's PanicException, is one)
            tb = traceback.extract_tb(e.__traceback__)[-1]
            status, detail = "crash", f"{type(e).__name__}: {str(e)[:200]} at {Path(tb.filename).name}:{tb.lineno}"
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        conn.send(Outcome(target, index, status, detail, time.monotonic() - start, rss))


class Worker:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.start()

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, str(self.work)), daemon=True)
        self.proc.start()
        if not self.conn.poll(300) or self.conn.recv() != "ready":
            raise RuntimeError("fuzz worker did not start")

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


@dataclass
class Summary:
    per_target: Counter[str] = field(default_factory=Counter)
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[Outcome] = field(default_factory=list)
    slowest: Outcome | None = None
    peak_rss_kib: int = 0
    seconds: float = 0.0

    def add(self, o: Outcome) -> None:
        self.per_target[o.target] += 1
        self.statuses[(o.target, o.status)] += 1
        if o.status not in ("ok", "rejected"):
            self.failures.append(o)
        if self.slowest is None or o.seconds > self.slowest.seconds:
            self.slowest = o
        self.peak_rss_kib = max(self.peak_rss_kib, o.rss_kib)

    def failed(self) -> list[Outcome]:
        return self.failures

    def render(self) -> str:
        lines = [f"{'target':15} {'inputs':>8} {'ok':>8} {'rejected':>9} {'crashes':>8} {'internal':>9} "
                 f"{'no-loc':>7} {'hangs':>6}"]
        for t in TARGETS:
            if not self.per_target[t]:
                continue
            s = {k[1]: v for k, v in self.statuses.items() if k[0] == t}
            lines.append(f"{t:15} {self.per_target[t]:8} {s.get('ok', 0):8} {s.get('rejected', 0):9} "
                         f"{s.get('crash', 0) + s.get('harness-error', 0):8} {s.get('internal-error', 0):9} "
                         f"{s.get('no-location', 0):7} {s.get('hang', 0):6}")
        total = sum(self.per_target.values())
        lines.append(f"total {total} inputs in {self.seconds:.0f} s; {len(self.failures)} failing")
        if self.slowest:
            lines.append(f"slowest input: {self.slowest.target}:{self.slowest.index} {self.slowest.seconds:.2f} s")
        lines.append(f"peak RSS of a worker: {self.peak_rss_kib / 1024:.0f} MiB")
        classes = Counter((o.target, o.status, o.detail.split(" at ")[0][:120]) for o in self.failures)
        for (t, st, d), n in classes.most_common(40):
            first = next(o for o in self.failures if (o.target, o.status, o.detail.split(" at ")[0][:120]) == (t, st, d))
            lines.append(f"  {n:6} {t}:{first.index} {st}: {first.detail[:240]}")
        return "\n".join(lines)


def run(targets: list[str], count: int, seed: int, jobs: int = 2, timeout: float = 5.0,
        progress: bool = False) -> Summary:
    """Run ``count`` inputs in all, the targets taking turns, in ``jobs`` worker processes."""
    base = Path(tempfile.mkdtemp(prefix="iceberg-fuzz-"))
    summary = Summary()
    began = time.monotonic()
    pending = [(targets[n % len(targets)], seed, n // len(targets)) for n in range(count)]
    pending.reverse()
    workers = [Worker(base / f"w{j}") for j in range(jobs)]
    busy: dict[int, tuple[tuple[str, int, int], float]] = {}
    last = time.monotonic()
    try:
        while pending or busy:
            for j, w in enumerate(workers):
                if j not in busy and pending:
                    job = pending.pop()
                    w.conn.send(job)
                    busy[j] = (job, time.monotonic())
            for j in list(busy):
                w = workers[j]
                job, t0 = busy[j]
                if w.conn.poll(0.002):
                    try:
                        summary.add(w.conn.recv())
                    except EOFError:  # the worker died (a hard crash)
                        summary.add(Outcome(job[0], job[2], "crash", "worker process died"))
                        w.start()
                    del busy[j]
                elif time.monotonic() - t0 > timeout or not w.proc.is_alive():
                    status = "hang" if w.proc.is_alive() else "crash"
                    summary.add(Outcome(job[0], job[2], status, f"no answer in {timeout} s" if status == "hang"
                                        else f"worker died, exit {w.proc.exitcode}", time.monotonic() - t0))
                    w.proc.kill()
                    w.proc.join()
                    w.start()
                    del busy[j]
            if progress and time.monotonic() - last > 30:
                last = time.monotonic()
                done = sum(summary.per_target.values())
                print(f"[{done}/{count}] {done / (last - began):.0f}/s, "
                      f"{len(summary.failures)} failing, peak RSS {summary.peak_rss_kib // 1024} MiB", flush=True)
    finally:
        for w in workers:
            w.stop()
        shutil.rmtree(base, ignore_errors=True)
    summary.seconds = time.monotonic() - began
    return summary


def _trace_table(seeds: Seeds, data: bytes, t: int, fi: int) -> None:
    """Run the checker's units on the mutated table without its last-resort handler, printing
    the traceback of any that raises (what ``checker.internal-error`` hides)."""
    from iceberg_conformance.checker.check import RUNNERS
    from iceberg_conformance.checker.plan import plan_units
    from iceberg_conformance.checker.run import CheckRun
    from iceberg_conformance.checker.units.manifest import check_manifest

    _, metadata, files = seeds.tables[t]
    Path(files[fi]).write_bytes(data)
    for u in plan_units(metadata):
        runners = dict(RUNNERS, manifest=check_manifest)
        try:
            runners[u.kind](CheckRun(u.table, list(u.roots)), u)
        except Exception:  # noqa: BLE001 - shown, that is the point
            print(f"--- unit {u.kind} {u.path}")
            traceback.print_exc()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=6000, help="inputs in all (the targets take turns)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=5.0, help="seconds an input may take")
    p.add_argument("--target", action="append", choices=TARGETS, help="default: every target")
    p.add_argument("--replay", metavar="TARGET:INDEX", help="run one input in this process, with its traceback")
    p.add_argument("--save", metavar="FILE", help="with --replay: write the input's bytes here")
    a = p.parse_args(argv)
    if a.replay:
        target, index = a.replay.split(":")
        work = Path(tempfile.mkdtemp(prefix="iceberg-fuzz-replay-"))
        seeds = load_seeds(work)
        data, t, fi = make_input(seeds, target, a.seed, int(index))
        if a.save:
            Path(a.save).write_bytes(data)
            print(f"wrote {len(data)} bytes to {a.save}" + (f" (replaces {seeds.tables[t][2][fi]})" if fi >= 0 else ""))
        (work / "scratch").mkdir()
        print(run_input(seeds, target, data, t, fi, work / "scratch"))
        if target == "table":
            _trace_table(seeds, data, t, fi)
        return 0
    s = run(a.target or list(TARGETS), a.count, a.seed, a.jobs, a.timeout, progress=True)
    print(s.render(), flush=True)
    return 1 if s.failures else 0


if __name__ == "__main__":
    sys.exit(main())
