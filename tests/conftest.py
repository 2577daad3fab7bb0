"""Self-tests of the kit (vectors, adapters, the suites' power to catch broken targets).

The ``pytester`` plugin they use is loaded by the top-level conftest.py.
"""

import os
from pathlib import Path
from typing import Any, Callable, Iterator

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


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on 127.0.0.1 (credentials and region in the environment)."""
    server_mod = pytest.importorskip("moto.server", reason="moto's server mode is not installed (extra stores)")
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    host, port = server.get_host_and_port()
    keys = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture
def s3_bucket(s3_endpoint: str) -> Callable[[str], None]:
    """A function creating a bucket on the S3 server of ``s3_endpoint``."""
    import pyarrow.fs as pafs

    def create(name: str) -> None:
        fs = pafs.S3FileSystem(endpoint_override=s3_endpoint.split("://")[1], scheme="http", access_key="testing",
                               secret_key="testing", region="us-east-1", allow_bucket_creation=True)
        fs.create_dir(name)
    return create
