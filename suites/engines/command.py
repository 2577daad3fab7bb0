"""``iceberg-conformance scan``: read a table with any registered engine, on the user's own table.

``scan TABLE --engine NAME [--snapshot ID | --ref NAME] [--filter JSON] [--compare [ENGINE]]``
prints the rows the engine reads (JSON lines, in the spec's JSON single-value form, columns by
name) on standard output; what it found out goes to standard error:

* with ``--filter``: the engine reads the snapshot under the filter in its own query form (SQL
  ``WHERE``, a dataframe expression, the Iceberg expression) and, unfiltered, evaluates the same
  condition over its own rows in memory; rows that differ are the filter changing what the
  engine reads from the table (pruning), the kind of wrong rows the consumer matrix looks for;
* with ``--compare`` (``reference`` when no engine is named): the other engine reads the same
  snapshot under the same filter and the rows that differ are listed. Differences that come
  only from the engines' semantics (a null, NaN or signed zero in a tested column: SQL's
  three-valued logic, NaN ordering, -0.0 = 0.0) are listed apart and do not count.

Exit code: 0 the reads agree, 1 rows differ or an engine failed to read, 2 a usage error (no such
table, snapshot, ref or engine; a filter that is not valid JSON or names no column; an engine
that is not installed). The table is only read: engines that need ``file://`` or ``http://``
paths, or a metadata file whose current snapshot is the one to read, get a copy in a temporary
directory.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from iceberg_conformance.reference.metadata import read_metadata
from iceberg_conformance.suites.engines.filtering import semantic
from iceberg_conformance.suites.engines.process import ReaderUnavailable
from iceberg_conformance.suites.engines.registry import ENGINES, Engine, ReadRequest
from iceberg_conformance.suites.engines.rows import canonical_rows, diff_rows
from iceberg_conformance.suites.engines.workspace import HttpServer, pinned
from iceberg_conformance.suites.golden.filters import expected_rows

EXIT_SAME, EXIT_DIFFER, EXIT_USAGE = 0, 1, 2
Rows = list[dict[str, Any]]


class UsageError(Exception):
    """Bad input (exit 2): the message says which and why."""


def resolve_table(table: str) -> Path:
    """The metadata file of ``table`` (a metadata file, or a table directory)."""
    from iceberg_conformance.checker.find import latest_metadata

    p = Path(table)
    if p.is_file():
        return p.resolve()
    if p.is_dir():
        found = latest_metadata(str(p))
        if found:
            return Path(found).resolve()
        raise UsageError(f"{table}: no metadata/*.metadata.json below this directory")
    raise UsageError(f"{table}: no such file or directory")


def resolve_snapshot(md: dict[str, Any], snapshot: int | None, ref: str | None, where: Path) -> int:
    """The snapshot id to read: ``snapshot``, the one ``ref`` points at, or the current one."""
    ids = {s.get("snapshot-id") for s in md.get("snapshots") or []}
    if snapshot is not None:
        if snapshot not in ids:
            raise UsageError(f"{where}: no snapshot {snapshot} (snapshots: {sorted(i for i in ids if i is not None)})")
        return snapshot
    if ref is not None:
        refs = md.get("refs") or {}
        if ref not in refs:
            raise UsageError(f"{where}: no ref {ref!r} (refs: {sorted(refs)})")
        return int(refs[ref]["snapshot-id"])
    current = md.get("current-snapshot-id")
    if current is None or current == -1:
        raise UsageError(f"{where}: the table has no current snapshot")
    return int(current)


def parse_filter(text: str | None) -> Any:
    if text is None:
        return None
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(f"--filter: not JSON ({e.msg} at line {e.lineno} column {e.colno}); the filter is a "
                         "predicate in the JSON form of the expressions spec, e.g. "
                         '{"type": "lt", "left": {"type": "reference", "name": "id"}, "right": 10}') from None


class Prepared:
    """What an engine opens for one snapshot: the table as it lies, or a copy in ``work`` (paths
    rewritten to ``file://`` or ``http://``, a metadata file pinned to the snapshot)."""

    def __init__(self, metadata: Path, work: Path) -> None:
        self.metadata = metadata
        self.md = read_metadata(metadata)
        self.table_dir = metadata.parent.parent
        self.work = work
        self.http: HttpServer | None = None
        self._copies: dict[str, tuple[Path, str]] = {}

    def close(self) -> None:
        if self.http is not None:
            self.http.close()

    def _copy(self, form: str) -> tuple[Path, str]:
        """(metadata file of the copy, the prefix its paths start with)."""
        if form not in self._copies:
            from iceberg_conformance.checker.relocate import relocate_table

            root = self.work / form
            if form == "http":
                self.http = self.http or HttpServer(root.parent / "http")
                prefix = self.http.base
                root = root.parent / "http"
            elif form == "file-uri":
                prefix = "file://" + str(root)
            else:
                prefix = str(root)
            location = str(self.md.get("location") or self.table_dir).rstrip("/")
            dst = root / self.table_dir.name
            root.mkdir(parents=True, exist_ok=True)
            relocate_table(str(self.table_dir), str(dst), location, prefix.rstrip("/") + "/" + self.table_dir.name)
            self._copies[form] = (dst / "metadata" / self.metadata.name, prefix)
        return self._copies[form]

    def request(self, engine: Engine, snapshot_id: int) -> ReadRequest:
        base = ReadRequest.at(self.metadata, snapshot_id)
        location = str(self.md.get("location") or "").removeprefix("file:").rstrip("/")
        moved = location and location.lstrip("/") != str(self.table_dir).lstrip("/")
        if engine.paths == "plain" and not moved and engine.time_travel:
            return base
        form = engine.paths if engine.paths != "plain" else "plain"
        metadata, prefix = self._copy(form) if (engine.paths != "plain" or moved) else (self.metadata, "")
        if not engine.time_travel:
            pin = (metadata.parent if metadata != self.metadata else self.work / "pinned")
            pin.mkdir(parents=True, exist_ok=True)
            target = pin / f"pinned-{snapshot_id}.metadata.json"
            if not target.is_file():
                target.write_text(json.dumps(pinned(self.md, snapshot_id)), encoding="utf-8")
            metadata = target
        if form == "plain" or not prefix:
            where = str(metadata)
        else:
            root = (self.work / "http") if form == "http" else (self.work / form)
            where = prefix.rstrip("/") + "/" + metadata.relative_to(root).as_posix()
        return ReadRequest(metadata=metadata, location=where, snapshot_id=snapshot_id, schema=base.schema,
                           table_metadata=self.md, root=metadata.parents[2] if metadata != self.metadata else base.root)


def read(engine: Engine, request: ReadRequest, row_filter: Any) -> tuple[Rows, Rows | None, str]:
    """(rows the engine reads, under the filter if any; the rows its own in-memory evaluation of the
    filter keeps from its unfiltered read, or None without a filter; the condition as given)."""
    def canon(rows: Rows) -> Rows:
        return rows if engine.json_rows else canonical_rows(request.schema, rows)

    if row_filter is None:
        return canon(engine.read(request)), None, ""
    result = engine.scan(request, {"filter": row_filter})
    case = result.cases["filter"]
    if case.kit_error or case.untranslatable:
        raise UsageError(f"{engine.name} has no {engine.filters} form of this filter: "
                         f"{case.kit_error or case.untranslatable}")
    if result.base is None:
        raise RuntimeError(f"{engine.name} cannot read the snapshot: {result.base_error}")
    base = canon(result.base)
    if engine.filters == "none":       # no filter API: its full read, kept by the reference's evaluator
        kept = expected_rows(request.schema, base, row_filter) or []
        return kept, kept, case.condition
    if case.pushed is None:
        raise RuntimeError(f"{engine.name} failed reading under the filter {case.condition}: {case.pushed_error}")
    if engine.filters == "iceberg":
        memory = expected_rows(request.schema, base, row_filter)
    elif case.memory is None:
        raise RuntimeError(f"{engine.name} cannot evaluate {case.condition} over its own rows: {case.memory_error}")
    else:
        memory = canon(case.memory)
    return canon(case.pushed), memory, case.condition


def scan(table: str, engine_name: str, *, snapshot: int | None = None, ref: str | None = None,
         filter_text: str | None = None, compare: str | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """The ``scan`` command; returns its exit code (rows on ``out``, messages on ``err``: standard
    output and error by default)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        if engine_name not in ENGINES:
            raise UsageError(f"no engine {engine_name!r}; engines: {', '.join(ENGINES)}")
        if compare is not None and compare not in ENGINES:
            raise UsageError(f"--compare: no engine {compare!r}; engines: {', '.join(ENGINES)}")
        metadata = resolve_table(table)
        md = read_metadata(metadata)
        sid = resolve_snapshot(md, snapshot, ref, metadata)
        row_filter = parse_filter(filter_text)
        request0 = ReadRequest.at(metadata, sid)
        if row_filter is not None and expected_rows(request0.schema, [], row_filter) is None:
            raise UsageError(f"--filter names a column the schema of snapshot {sid} does not have")
    except UsageError as e:
        print(f"iceberg-conformance scan: {e}", file=err)
        return EXIT_USAGE
    except Exception as e:   # an unreadable metadata file or a filter the reference cannot parse
        print(f"iceberg-conformance scan: {table}: {type(e).__name__}: {e}", file=err)
        return EXIT_USAGE
    with tempfile.TemporaryDirectory(prefix="iceberg-conformance-scan-") as tmp:
        prepared = Prepared(metadata, Path(tmp))
        try:
            return _scan(prepared, sid, engine_name, row_filter, compare, out, err)
        finally:
            prepared.close()


def _scan(prepared: Prepared, sid: int, engine_name: str, row_filter: Any, compare: str | None,
          out: TextIO, err: TextIO) -> int:
    engine = ENGINES[engine_name]
    status = EXIT_SAME
    got = _read_or_say(engine, prepared, sid, row_filter, err, engine.name)
    if isinstance(got, int):
        return got
    request, (rows, memory, condition) = got
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{engine.name} ({engine.title}) read {len(rows)} rows of snapshot {sid}"
          + (f" under {condition}" if condition else ""), file=err)
    if memory is not None and engine.filters != "none":
        d = diff_rows(memory, rows)
        if d:
            status = EXIT_DIFFER
            print(f"{engine.name}'s read under the filter differs from its own evaluation of the condition over "
                  "its unfiltered read (the filter changed what it read from the table):", file=err)
            for line in d:
                print("  " + line, file=err)
    if compare is not None:
        other = ENGINES[compare]
        got_other = _read_or_say(other, prepared, sid, row_filter, err, f"--compare {other.name}")
        if isinstance(got_other, int):
            return got_other
        _, (theirs, _, other_condition) = got_other
        ours_only, theirs_only = _only(rows, theirs), _only(theirs, rows)
        real: list[str] = []
        apart: list[str] = []
        for mark, who, diff in (("+", engine.name, ours_only), ("-", other.name, theirs_only)):
            for row in diff:
                line = f"  {mark} only {who}: {json.dumps(row, sort_keys=True, ensure_ascii=False)}"
                (apart if row_filter is not None and semantic(request.schema, row_filter, row) else real).append(line)
        if real:
            status = EXIT_DIFFER
            print(f"{engine.name} and {other.name} ({other.title}) read different rows"
                  + (f" ({other.name}: {other_condition})" if other_condition else "") + ":", file=err)
            for line in real:
                print(line, file=err)
        else:
            print(f"{engine.name} and {other.name} read the same rows"
                  + (" (apart from the semantic differences below)" if apart else ""), file=err)
        if apart:
            print("kept by one engine only where a tested column holds a null, NaN or signed zero "
                  "(the engines' semantics differ there; not counted):", file=err)
            for line in apart:
                print(line, file=err)
    return status


def _read_or_say(engine: Engine, prepared: Prepared, sid: int, row_filter: Any, err: TextIO,
                 who: str) -> int | tuple[ReadRequest, tuple[Rows, Rows | None, str]]:
    """The engine's request and read, or the exit code after saying why it could not read."""
    try:
        request = prepared.request(engine, sid)
        return request, read(engine, request, row_filter)
    except (ReaderUnavailable, UsageError) as e:
        print(f"iceberg-conformance scan: {who}: {e}", file=err)
        return EXIT_USAGE
    except Exception as e:
        print(f"iceberg-conformance scan: {who} failed reading snapshot {sid} of {prepared.metadata}: "
              f"{type(e).__name__}: {' '.join(str(e).split())[:800]}", file=err)
        return EXIT_DIFFER


def _only(rows: Rows, other: Rows) -> Rows:
    """The rows of ``rows`` not in ``other``, as a multiset difference."""
    left: dict[str, int] = {}
    for r in other:
        k = json.dumps(r, sort_keys=True, ensure_ascii=False)
        left[k] = left.get(k, 0) + 1
    out = []
    for r in rows:
        k = json.dumps(r, sort_keys=True, ensure_ascii=False)
        if left.get(k):
            left[k] -= 1
        else:
            out.append(r)
    return out


def main_args(args: Any) -> int:
    """The ``scan`` subcommand of :mod:`iceberg_conformance.cli`."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return scan(args.table, args.engine, snapshot=args.snapshot, ref=args.ref, filter_text=args.filter,
                compare=args.compare)
