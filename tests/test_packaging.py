"""The wheel builds without a warning and says what it is: ``py.typed``
shipped, classifiers, project URLs, the license as an SPDX expression (PEP 639), every data
file of the folders the build maps into the package; with the newest setuptools and with the
oldest the build system allows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: a warning of setuptools or Python (``file:line: SetuptoolsDeprecationWarning: ...``) or of
#: distutils' log (``warning: build_py: ...``)
WARNING = re.compile(r"\w*Warning: |^\s*warning: ", re.MULTILINE)
#: data the kit reads at run time, as the repository holds it and where the wheel must have it
DATA = {"vectors": ("*.json", "*.avro", "*.puffin", "*.parquet", "*.bin", "*.gz", "*.txt"),
        "bugs/corpus": ("*.json",), "reference/metadata_schemas": ("*.json",), "suites/spark/java": ("*.java",)}


def oldest_setuptools() -> str:
    found = re.search(r'"setuptools>=([0-9.]+)"', (ROOT / "pyproject.toml").read_text())
    assert found, "the build system names no lowest setuptools"
    return found.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("setuptools", ["newest", "oldest allowed"])
def test_wheel_builds_without_warnings(tmp_path: Path, setuptools: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # a machine's choice, not ours
    if setuptools != "newest":
        (tmp_path / "constraints.txt").write_text(f"setuptools=={oldest_setuptools()}\n")
        env["PIP_CONSTRAINT"] = str(tmp_path / "constraints.txt")  # also binds the isolated build environment
    # pip builds a local directory in place (build/, *.egg-info): build a copy, so that builds
    # running side by side (xdist) do not share those folders
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".tox", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "report"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--disable-pip-version-check",
                            "-v", "-w", str(tmp_path / "dist")], env=env, capture_output=True, text=True, timeout=600)
    log = build.stdout + build.stderr
    assert build.returncode == 0, log[-5000:]
    assert not WARNING.findall(log), "\n".join(line for line in log.splitlines() if WARNING.search(line))
    [wheel] = (tmp_path / "dist").glob("iceberg_conformance-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        fields = [line.split(": ", 1) for line in z.read(metadata).decode().split("\n\n", 1)[0].splitlines()
                  if ": " in line]
    # PEP 561: the package and its subpackages (the reference is typed strictly) carry types
    assert "iceberg_conformance/py.typed" in names
    assert ["License-Expression", "Apache-2.0"] in fields and not [f for f in fields if f[0] == "License"]
    classifiers = [v for k, v in fields if k == "Classifier"]
    assert "Typing :: Typed" in classifiers and "Framework :: Pytest" in classifiers, classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression alone
    # the license's text travels with the wheel (PEP 639: License-File, under .dist-info/licenses/)
    assert ["License-File", "LICENSE"] in fields, fields
    [license_text] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    with zipfile.ZipFile(wheel) as z:
        assert "Apache License" in z.read(license_text).decode() and "Version 2.0, January 2004" in z.read(license_text).decode()
    # the pyiceberg extra installs what PyIceberg needs to write the bucket- and truncate-partitioned
    # tables the suites have it write ("pyiceberg_core needs to be installed" otherwise)
    requires = [v for k, v in fields if k == "Requires-Dist"]
    assert any(r.startswith("pyiceberg-core") and "extra == \"pyiceberg\"" in r for r in requires), requires
    urls = [v for k, v in fields if k == "Project-URL"]
    assert urls and all(re.fullmatch(r"[^,]+, https://\S+", u) for u in urls), urls
    for folder, patterns in DATA.items():
        files = [p for pattern in patterns for p in (ROOT / folder).rglob(pattern)]
        assert files, folder
        missing = [str(p.relative_to(ROOT)) for p in files
                   if f"iceberg_conformance/{p.relative_to(ROOT).as_posix()}" not in names]
        assert not missing, missing[:20]
