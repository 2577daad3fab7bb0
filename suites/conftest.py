"""Fixtures the suites share (pytest holds one instance of each session fixture).

``golden_dir``: the golden tables, generated once per session into a temp dir with Spark and
the other producers, or taken from ``$ICEBERG_CONFORMANCE_GOLDEN`` (a directory
``python -m iceberg_conformance.suites.golden.generate --out DIR`` wrote). Without Spark/Java
the tests that need it SKIP with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iceberg_conformance.suites.golden.generate import generate
from iceberg_conformance.suites.golden.registry import GOLDEN_ENV
from iceberg_conformance.suites.spark import session


@pytest.fixture(scope="session")
def golden_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get(GOLDEN_ENV)
    if given:
        path = Path(given)
        if not (path / "expected").is_dir():
            pytest.fail(f"${GOLDEN_ENV}={given} has no expected/ directory "
                        "(write one with: python -m iceberg_conformance.suites.golden.generate --out DIR)", pytrace=False)
        return path
    out = tmp_path_factory.mktemp("golden")
    try:
        generate(out)
    except session.SparkUnavailable as e:
        pytest.skip(f"golden tables need Spark with Iceberg: {e}")
    return out
