"""Self-tests of the kit (vectors, adapters, the suites' power to catch broken targets).

The ``pytester`` plugin they use is loaded by the top-level conftest.py.
"""

from pathlib import Path
from typing import Any, Callable

import pytest


@pytest.fixture(scope="session")
def spark_catalog() -> Callable[[str, Path], tuple[Any, str]]:
    """A function giving (the Spark session, the name of a Hadoop catalog ``name`` over
    ``warehouse``) for tests that write tables with Iceberg Java; skips without Spark."""
    from iceberg_conformance.suites.spark import session

    try:
        s = session.spark()
    except session.SparkUnavailable as e:
        pytest.skip(f"needs Spark with Iceberg: {e}")
    return lambda name, warehouse: (s, session.catalog(name, warehouse))
