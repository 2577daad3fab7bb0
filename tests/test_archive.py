"""The release archive for other languages: built by ``export --archive``, consumed by a script
that uses only Python's standard library (``consume.py``, run with ``-I -S``: no site-packages,
so the kit cannot be imported)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from iceberg_conformance.vectors import consume as consume_archive
from iceberg_conformance.vectors.archive import build_archive
from iceberg_conformance.vectors.cases import vectors_version


def _extract(tmp_path: Path) -> Path:
    path, cases, tables = build_archive(tmp_path / "dist")
    assert path.name == f"iceberg-conformance-vectors-{vectors_version()}.tar.gz"
    assert cases > 1000 and tables == 0
    with tarfile.open(path) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    (root,) = (tmp_path / "x").iterdir()
    return root


def _consume(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", "-S", str(root / "consume.py")], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_consumer_uses_the_standard_library_only() -> None:
    tree = ast.parse(Path(consume_archive.__file__).read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names - {"__future__"} <= set(sys.stdlib_module_names), names


def test_murmur3_matches_appendix_b() -> None:
    # Appendix B: int 34 -> 2017239379, string "iceberg" -> 1210000089
    assert consume_archive.murmur3_32(consume_archive.hash_input("int", 34) or b"") == 2017239379
    assert consume_archive.murmur3_32(b"iceberg") == 1210000089


def test_fresh_extraction_passes_the_consumer(tmp_path: Path) -> None:
    root = _extract(tmp_path)
    assert [p.name for p in root.rglob("*.py")] == ["consume.py"], "only consume.py is Python"
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    assert index["vectors_version"] == vectors_version()
    run = _consume(root)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1].endswith(" 0 failed")


def test_consumer_catches_a_wrong_hash(tmp_path: Path) -> None:
    root = _extract(tmp_path)
    case_file = root / "vectors" / "hash" / "appendix-b.json"
    doc = json.loads(case_file.read_text(encoding="utf-8"))
    victim = next(t for t in doc["tests"] if t["input"]["type"] == "string")
    victim["expected"] += 1
    case_file.write_text(json.dumps(doc), encoding="utf-8")
    run = _consume(root)
    assert run.returncode == 1
    assert "Murmur3 here gives" in run.stdout


@pytest.mark.parametrize("damage", ["drop-sidecar", "bad-level"])
def test_consumer_catches_a_broken_case_file(tmp_path: Path, damage: str) -> None:
    root = _extract(tmp_path)
    if damage == "drop-sidecar":
        next((root / "vectors" / "manifests" / "files").glob("*.sidecar.json")).unlink()
    else:
        case_file = root / "vectors" / "hash" / "boundaries.json"
        doc = json.loads(case_file.read_text(encoding="utf-8"))
        doc["tests"][0]["level"] = "may"
        case_file.write_text(json.dumps(doc), encoding="utf-8")
    assert _consume(root).returncode == 1


def test_extracted_cases_validate_against_the_extracted_schema(tmp_path: Path) -> None:
    import jsonschema

    root = _extract(tmp_path)
    schema = json.loads((root / "vectors" / "case.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    index = json.loads((root / "index.json").read_text(encoding="utf-8"))
    files = sorted({c["file"] for c in index["cases"]})
    assert len(files) > 20
    for name in files:
        errors = list(validator.iter_errors(json.loads((root / name).read_text(encoding="utf-8"))))
        assert not errors, f"{name}: {errors[0].message}"
