"""Self-tests of the kit (vectors, adapters, the suites' power to catch broken targets).

The ``pytester`` plugin they use is loaded by the top-level conftest.py.
"""

from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark_session() -> Any:
    """Spark with Iceberg Java (``suites/spark/session.py``), or a skip where it cannot start."""
    from iceberg_conformance.suites.spark import session

    try:
        return session.spark()
    except session.SparkUnavailable as e:
        pytest.skip(f"needs Spark with Iceberg: {e}")
