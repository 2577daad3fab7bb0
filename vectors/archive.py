"""The release artifact for implementations in any language.

:func:`export_tree` writes the vectors (case files, ``case.schema.json``, every binary file with
its sidecar, ``VERSION`` and ``CHANGELOG.md``; no Python) and ``index.json``, one entry per case.
:func:`build_archive` adds the golden tables, moved so that every path they record is relative
to the archive root (``golden/warehouse/db/<table>/...``), their expected rows
(``golden/expected/<table>.json``), a README saying how a runner consumes it, and ``consume.py``,
a consumer that needs only Python's standard library, and packs it all as
``iceberg-conformance-vectors-<version>.tar.gz``.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Callable

from iceberg_conformance.vectors.cases import case_files, load_file, vectors_root, vectors_version

ARCHIVE_README = """# iceberg-conformance vectors {version}

Golden vectors and golden tables for Apache Iceberg implementations, as language-neutral data.
Nothing here needs Python except the optional `consume.py` (standard library only).

## Layout

| path | what |
|---|---|
| `index.json` | every case: `id`, `file` (case file, relative to this directory), `index` (position in its `tests`), `operation`, `format_versions`, `level`, `input`, and `expected` or `error` |
| `vectors/case.schema.json` | JSON Schema of a case file |
| `vectors/<area>/*.json` | case files: `description`, `operation`, `spec` (section and quote), `format_versions`, `tests` |
| `vectors/<area>/files/` | binary inputs (Avro manifests, Puffin files, metadata files) and `*.sidecar.json`, their decoded meaning |
| `vectors/VERSION`, `vectors/CHANGELOG.md` | the vector set's version (semver) and what each version added or corrected |
| `golden/warehouse/db/<table>/` | golden tables written by Iceberg Java 1.10.2 (Spark 3.5) |
| `golden/expected/<table>.json` | the rows each snapshot of a golden table holds, in the spec's JSON single-value form |
| `consume.py` | a reference consumer: `python3 consume.py` checks this directory |

## How a runner uses it

1. For every entry of `index.json` (or every case file), give `input` to your implementation as
   the `operation` says (`vectors/README.md` describes each operation's input and output).
2. Compare with `expected`, or check that your implementation refuses the input when the case has
   an `error` (its `rule` names the broken rule; refusing with any error is a pass).
3. A case whose `level` is `should` is advisory: report a miss, do not fail on it.
4. Files a case names (`input.file`, `expected.sidecar`) are relative to the case file.

## Golden tables

Every path a golden table records (metadata `location`, manifest lists, manifests, data and delete
files, statistics files, the `file_path` column of position-delete files and the
`referenced-data-file` of deletion vectors) is **relative to the directory holding this README**,
e.g. `golden/warehouse/db/v2_primitives/data/00000-0.parquet`. Format versions 1 to 3 record
absolute paths, so resolve each path against the directory you extracted the archive into
(most FileIO layers take a base location), or rewrite the prefix once after extracting. Read each
snapshot of a table and compare the rows, as a multiset, with `golden/expected/<table>.json`.
"""


def export_tree(out: Path) -> int:
    """Write ``out/vectors`` and ``out/index.json``; return the number of cases."""
    src = vectors_root()
    shutil.copytree(src, out / "vectors", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.py", "__pycache__", "*.pyc"))
    index = []
    for path in case_files(src):
        for case in load_file(path):
            entry = {"id": case.id, "file": f"vectors/{path.relative_to(src).as_posix()}",
                     "index": case.index, "operation": case.operation,
                     "format_versions": list(case.format_versions), "level": case.level, "input": case.input}
            entry["error" if case.expects_error else "expected"] = case.error if case.expects_error else case.expected
            index.append(entry)
    (out / "index.json").write_text(json.dumps({"vectors_version": vectors_version(src), "cases": index}, indent=1,
                                               ensure_ascii=False) + "\n", encoding="utf-8")
    return len(index)


def build_archive(archive_dir: Path, golden: Path | None = None,
                  progress: Callable[[str], None] | None = None) -> tuple[Path, int, int]:
    """Write ``iceberg-conformance-vectors-<version>.tar.gz`` into ``archive_dir``; return its
    path, the number of cases and the number of golden tables."""
    from iceberg_conformance.checker.relocate import relocate_table

    version = vectors_version()
    name = f"iceberg-conformance-vectors-{version}"
    stage = archive_dir / f".{name}.staging"
    shutil.rmtree(stage, ignore_errors=True)
    root = stage / name
    root.mkdir(parents=True)
    cases = export_tree(root)
    (root / "README.md").write_text(ARCHIVE_README.format(version=version), encoding="utf-8")
    shutil.copy(Path(__file__).with_name("consume.py"), root / "consume.py")
    tables = 0
    if golden is not None:
        warehouse = golden / "warehouse" / "db"
        prefix = str(golden.resolve()) + os.sep
        for table in sorted(p for p in warehouse.iterdir() if p.is_dir()) if warehouse.is_dir() else []:
            if progress is not None:
                progress(f"golden table {table.name}")
            relocate_table(str(table), str(root / "golden" / "warehouse" / "db" / table.name), prefix, "golden/")
            tables += 1
        if (golden / "expected").is_dir():
            shutil.copytree(golden / "expected", root / "golden" / "expected")
    out = archive_dir / f"{name}.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        tar.add(root, arcname=name)
    shutil.rmtree(stage, ignore_errors=True)
    return out, cases, tables
