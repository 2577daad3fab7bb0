"""The golden tables of PyIceberg's writer and the reference writer, without Spark.

They need no JVM, so the Python lanes write them too (``generate --only``, into a temp dir):
each passes the table checker with no error, and the reference reader reads every snapshot as
the expected rows the generator stated. The Spark lane adds Iceberg Java's read-back
(``suites/test_producers.py``) and the other readers (``suites/test_tables.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.suites.engines.rows import diff_rows
from iceberg_conformance.suites.golden import registry as golden

pytestmark = pytest.mark.area("golden-tables")

OTHER_PRODUCERS = [name for name, t in golden.REGISTRY.items() if t.producer != "spark"]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    from iceberg_conformance.suites.golden.generate import generate

    out = tmp_path_factory.mktemp("producers")
    return out, generate(out, OTHER_PRODUCERS)


@pytest.mark.parametrize("table", OTHER_PRODUCERS)
def test_table_of_other_producer_checks_clean_and_reads_as_expected(written: tuple[Path, dict[str, Any]],
                                                                    table: str) -> None:
    from iceberg_conformance.checker.check import check_table
    from iceberg_conformance.reference.scan import scan

    out, summary = written
    if table in summary["skipped"]:
        pytest.skip(f"{table}: {summary['skipped'][table]}")
    doc = golden.load_expected(out, table)
    metadata = out / "warehouse" / doc["metadata"]
    errors = [str(f) for f in check_table(str(metadata)).findings if f.severity == "error"]
    assert not errors, f"{table} ({doc['producer']}): the checker reports errors:\n" + "\n".join(errors)
    problems = []
    for snap in doc["snapshots"]:
        if snap["expired"]:      # an expired snapshot has no rows to read
            continue
        d = diff_rows(snap["rows"], list(scan(str(metadata), snap["snapshot_id"])))
        if d:
            problems.append(f"snapshot {snap['snapshot_id']} ({snap['label']}):\n" + "\n".join(d))
    assert not problems, f"{table} ({doc['producer']}): reference.scan reads other rows:\n" + "\n".join(problems)
