"""An independent consumer of the vector archive: Python's standard library only.

``python3 consume.py [ARCHIVE_ROOT]`` (the file ships as ``consume.py`` at the archive root)
reads what an implementation in any language would read, with nothing but a JSON parser:

* ``index.json``: its version matches ``vectors/VERSION``, and every case it lists is found in
  its case file at the given index;
* every case file under ``vectors/`` (files under ``files/`` and ``expected/``, the op-logs of
  ``oplogs/`` (their own format, ``oplogs/oplog.schema.json``), and
  ``*.sidecar.json``, ``*.schema.json`` and ``*.metadata.json`` files, are data, not case files): the shape ``case.schema.json`` describes (required keys, exactly one of
  ``expected`` and ``error``, levels ``must``/``should``), and every file a case names
  (``input.file``, ``input.files``, ``expected.sidecar``) exists beside it;
* Appendix B hash cases of ``int``, ``long``, ``date``, ``string`` and ``binary``: recomputed
  here with a Murmur3 x86 32-bit written from its definition, so an expected value is checked
  by code that shares nothing with the kit;
* golden tables under ``golden/``: every table has a metadata file, every path its current
  metadata file records (relative to the archive root) exists, and its expected rows parse.

It prints one line per failure and a closing ``N passed, N failed`` line; exit status 1 on any
failure. It imports nothing from the kit.
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import struct
import sys
from typing import Any, Iterator

TEST_KEYS = {"description", "input", "derived"}
FILE_KEYS = {"description", "operation", "spec", "format_versions", "tests"}


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86 32-bit, as a signed int (Appendix B)."""
    c1, c2, mask = 0xCC9E2D51, 0x1B873593, 0xFFFFFFFF
    h = seed & mask
    n = len(data) // 4 * 4
    for i in range(0, n, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        k = (k * c2) & mask
        h ^= k
        h = ((h << 13) | (h >> 19)) & mask
        h = (h * 5 + 0xE6546B64) & mask
    k = 0
    tail = data[n:]
    if len(tail) >= 3:
        k ^= tail[2] << 16
    if len(tail) >= 2:
        k ^= tail[1] << 8
    if len(tail) >= 1:
        k ^= tail[0]
        k = (k * c1) & mask
        k = ((k << 15) | (k >> 17)) & mask
        k = (k * c2) & mask
        h ^= k
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & mask
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & mask
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def hash_input(t: str, v: Any) -> bytes | None:
    """The bytes Appendix B hashes for the simple types; None for the others."""
    if t in ("int", "long"):
        return struct.pack("<q", int(v))
    if t == "date":
        return struct.pack("<q", (datetime.date.fromisoformat(v) - datetime.date(1970, 1, 1)).days)
    if t == "string":
        return str(v).encode("utf-8")
    if t == "binary" and isinstance(v, str):
        return bytes.fromhex(v)
    return None


class Run:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, what: str) -> None:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")


def case_files(vectors: str) -> Iterator[str]:
    for root, dirs, files in os.walk(vectors):
        dirs[:] = sorted(d for d in dirs if d not in ("files", "expected", "oplogs") and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".json") and not name.endswith((".sidecar.json", ".schema.json", ".metadata.json")):
                yield os.path.join(root, name)


def named_files(test: dict[str, Any]) -> list[str]:
    out = []
    inp = test.get("input")
    if isinstance(inp, dict):
        if isinstance(inp.get("file"), str):
            out.append(inp["file"])
        if isinstance(inp.get("files"), list):
            out += [f for f in inp["files"] if isinstance(f, str)]
    exp = test.get("expected")
    if isinstance(exp, dict) and isinstance(exp.get("sidecar"), str):
        out.append(exp["sidecar"])
    return out


def check_case_file(run: Run, root: str, path: str) -> dict[int, dict[str, Any]]:
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    run.check(isinstance(doc, dict) and FILE_KEYS <= set(doc), f"{rel}: has {sorted(FILE_KEYS)}")
    tests = doc.get("tests") if isinstance(doc, dict) else None
    if not isinstance(tests, list):
        return {}
    for i, t in enumerate(tests):
        where = f"{rel} tests[{i}]"
        run.check(TEST_KEYS <= set(t) and (("expected" in t) != ("error" in t)),
                  f"{where}: has {sorted(TEST_KEYS)} and exactly one of expected/error")
        level = t.get("level", doc.get("level", "must"))
        run.check(level in ("must", "should"), f"{where}: level {level!r}")
        for name in named_files(t):
            run.check(os.path.isfile(os.path.join(os.path.dirname(path), name)), f"{where}: names {name}")
        if doc.get("operation") == "hash" and "expected" in t:
            data = hash_input(str(t["input"].get("type")), t["input"].get("value"))
            if data is not None:
                got = murmur3_32(data)
                run.check(got == t["expected"], f"{where}: Murmur3 here gives {got}, the case says {t['expected']}")
    return dict(enumerate(tests))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def check_golden(run: Run, root: str) -> None:
    golden = os.path.join(root, "golden")
    expected = os.path.join(golden, "expected")
    if not os.path.isdir(expected):
        return
    for name in sorted(os.listdir(expected)):
        table = name[:-len(".json")]
        with open(os.path.join(expected, name), encoding="utf-8") as f:
            rows = json.load(f)
        run.check(isinstance(rows, dict), f"golden/expected/{name}: a JSON object")
        meta = os.path.join(golden, "warehouse", "db", table, "metadata")
        files = sorted(n for n in os.listdir(meta) if ".metadata.json" in n) if os.path.isdir(meta) else []
        run.check(bool(files), f"golden table {table}: has a metadata file")
        # the current metadata file (older versions may name files that expiring snapshots removed)
        def version(n: str) -> int:
            head = n.split(".", 1)[0].lstrip("v")
            return int(head) if head.isdigit() else -1
        for n in sorted(files, key=version)[-1:]:
            raw = open(os.path.join(meta, n), "rb").read()
            doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
            for s in _strings(doc):
                if s.startswith("golden/"):
                    run.check(os.path.exists(os.path.join(root, s)), f"golden table {table} {n}: {s} exists")


def main(argv: list[str]) -> int:
    root = os.path.abspath(argv[0] if argv else os.path.dirname(os.path.abspath(__file__)))
    run = Run()
    with open(os.path.join(root, "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    with open(os.path.join(root, "vectors", "VERSION"), encoding="utf-8") as f:
        version = f.read().strip()
    run.check(index.get("vectors_version") == version, f"index.json version {index.get('vectors_version')!r} "
              f"is vectors/VERSION {version!r}")
    by_file: dict[str, dict[int, dict[str, Any]]] = {}
    for path in case_files(os.path.join(root, "vectors")):
        by_file[os.path.relpath(path, root).replace(os.sep, "/")] = check_case_file(run, root, path)
    listed = 0
    for c in index.get("cases", []):
        listed += 1
        test = by_file.get(c.get("file"), {}).get(c.get("index"))
        run.check(test is not None and test.get("description") == c.get("description", test.get("description")),
                  f"index.json: {c.get('id')} at {c.get('file')} tests[{c.get('index')}]")
    run.check(listed == sum(len(t) for t in by_file.values()), f"index.json lists {listed} cases, the case files "
              f"hold {sum(len(t) for t in by_file.values())}")
    check_golden(run, root)
    print(f"{run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
