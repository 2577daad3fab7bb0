"""The checker at size, in the small: findings beyond KEEP of a rule are counted, not listed;
a check in worker processes finds what a check in one process finds (the snapshot units read the
digests the manifest units hand back, whichever process ran them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from iceberg_conformance.checker import check as table, report

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> str:
    """2 manifests x 12 entries, data files absent (benchmarks/bench_scale.py's table)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_scale  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    md: str = bench_scale.write_table(str(tmp_path_factory.mktemp("scale")), 2, 12, processes=1)
    return md


def test_findings_beyond_keep_are_counted(synthetic: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table, "KEEP", 5)
    r = table.check_table(synthetic)
    missing = [f for f in r.findings if f.rule == "files.missing"]
    assert len(missing) == 5 and r.omitted[("files.missing", "error")] == 19
    text = report.render_text([r])
    assert "[files.missing] x24" in text and "24 error(s)" in text
    doc = report.to_json([r])
    assert doc["counts"]["error"] == 24 and doc["tables"][0]["omitted"] == {"files.missing (error)": 19}
    assert next(g for g in doc["tables"][0]["groups"] if g["rule"] == "files.missing")["count"] == 24


def test_workers_find_what_one_process_finds(synthetic: str, tmp_path: Path) -> None:
    """Two manifests listing the same data file: the duplicate is found through the digests,
    in one process and in two."""
    from iceberg_conformance.reference import manifests as m

    doc = json.loads(Path(synthetic).read_text())
    mfs, _ = m.read_manifest_list(doc["snapshots"][0]["manifest-list"], 2)
    entries, _ = m.read_manifest(mfs[1]["manifest_path"], 2)
    other, _ = m.read_manifest(mfs[0]["manifest_path"], 2)
    entries[3]["data_file"]["file_path"] = other[7]["data_file"]["file_path"]
    meta = {"schema": json.dumps(doc["schemas"][0]), "partition-spec": "[]", "partition-spec-id": "0",
            "format-version": "2", "content": "data"}
    data = m.manifest_bytes({"format_version": 2, "metadata": meta, "entries": entries}, codec="deflate")
    Path(mfs[1]["manifest_path"]).write_bytes(data)
    mfs[1]["manifest_length"] = len(data)
    m.write_manifest_list(doc["snapshots"][0]["manifest-list"], {"format_version": 2, "metadata": {}, "manifests": mfs})
    one = table.check_table(synthetic, metadata_only=True)
    two = table.check_table(synthetic, metadata_only=True, workers=2)
    dup = [f for f in one.findings if f.rule == "snapshot.duplicate-file"]
    assert len(dup) == 1 and "entries[7]" in dup[0].message and "entries[3]" in dup[0].message, one.findings
    assert sorted(map(str, one.findings)) == sorted(map(str, two.findings))
