"""The pytest path of someone who installed the kit and has only an adapter: ``pytest --target X``
in a directory of their own runs the kit's suites (it ran nothing and exited 5), an adapter module
in that directory is found without ``PYTHONPATH=.``, tests of capabilities the adapter does not
declare are not generated (counted instead), and the matrix shows the targets asked for rather
than a row of SKIP for every engine of the consumer matrix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: an adapter of one capability, written into the user's directory (hashes as the reference does)
HASH_ONLY = '''
from iceberg_conformance.suites.targets.reference import ReferenceTarget


class HashOnly:
    name = "hash-only"
    capabilities = frozenset({"hash"})
    version = "1.0"

    def hash(self, type_, value):
        return ReferenceTarget().hash(type_, value)
'''


def pytest_in(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS`` as a user types it in ``directory``: the console script (which, unlike
    ``python -m pytest``, does not put the current directory on sys.path), no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ICEBERG_CONFORMANCE_TARGET")}
    script = Path(sys.executable).parent / "pytest"
    return subprocess.run([str(script), "-p", "no:cacheprovider", *args], cwd=directory, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "myadapter.py").write_text(HASH_ONLY)
    return tmp_path


@pytest.mark.slow
def test_pytest_target_in_a_directory_without_tests_runs_the_suites(home: Path) -> None:
    result = pytest_in(home, "--target", "myadapter:HashOnly", "-k", "test_hash", "-q",
                       "--conformance-report", str(home / "report"))
    text = result.stdout + result.stderr
    assert result.returncode == 0, text[-4000:]
    assert "ran the kit's suites at" in text, text[-3000:]
    # the adapter in the current directory was imported
    assert json.loads((home / "report" / "matrix.json").read_text())["targets"] == {"hash-only": "1.0"}
    matrix_lines = text.split("iceberg-conformance: target x area", 1)[1].splitlines()
    assert any(line.startswith("hash-only") and " hash " in line for line in matrix_lines), matrix_lines
    # the tests of the capabilities it does not declare were not generated, and say so
    assert any(line.startswith("hash-only: ") and "not generated for capabilities it does not declare" in line
               and "transform (" in line for line in matrix_lines), matrix_lines
    assert "| hash-only | hash |" in (home / "report" / "matrix.md").read_text()


@pytest.mark.slow
def test_an_adapter_of_one_capability_collects_only_its_tests(home: Path) -> None:
    result = pytest_in(home, "--target", "myadapter:HashOnly", "--collect-only", "-q")
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    ids = [line for line in result.stdout.splitlines() if "::" in line]
    of_adapter = [i for i in ids if "hash-only" in i]
    # its tests are those of the hash capability (the vectors of test_hash.py, the hash properties)
    elsewhere = [i for i in of_adapter if "hash" not in i.split("::")[1].split("[")[0]]
    assert of_adapter and not elsewhere, elsewhere[:10]
    # the functions no target of the run is generated for are deselected, with pytest's count
    assert "deselected" in result.stdout.splitlines()[-1], result.stdout[-500:]


def test_directory_with_tests_is_left_to_pytest(tmp_path: Path) -> None:
    """A directory with test files of its own is collected as it is (the suites are not run in
    its place)."""
    (tmp_path / "test_mine.py").write_text("def test_mine(target):\n    assert target.name == 'reference'\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    result = pytest_in(tmp_path, "--target", "reference", "-q")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed" in result.stdout and "running the kit's suites" not in result.stdout


def test_without_pytest_xdist_the_suites_marks_are_known(tmp_path: Path) -> None:
    """The suites group tests for ``-n`` (``pytest.mark.xdist_group``); an install without the dev
    extra has no pytest-xdist, and its runs must not warn that the mark is unknown (or, under
    ``--strict-markers``, fail)."""
    (tmp_path / "test_grouped.py").write_text("import pytest\n\n\n@pytest.mark.xdist_group('g')\n"
                                              "def test_grouped():\n    pass\n")
    result = pytest_in(tmp_path, "-p", "no:xdist", "--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning",
                       "test_grouped.py")
    assert result.returncode == 0 and "1 passed" in result.stdout, (result.stdout + result.stderr)[-3000:]
