"""The ``java`` target's one door into the JVM: a call to the Java helper, judged.

The helper answers with an envelope: a value, or a refusal (``rejected``: Iceberg threw
``IllegalArgumentException``, ``ValidationException``, ... on the input), ``unsupported``
(Java has no operation for the input), or ``crash`` (any other Throwable, e.g. a
``NullPointerException``): the first is :class:`~suites.api.Rejected`, the second
:class:`~suites.api.Unsupported`, the last a plain error that fails the test.
"""

from __future__ import annotations

import re
from typing import Any

from iceberg_conformance.suites.api import Rejected, Unsupported


class JavaCrash(Exception):
    """Iceberg Java threw something that is not a refusal of the input."""


def java_version() -> str:
    """The version shown in the report header, known without starting the JVM."""
    from iceberg_conformance.suites.spark.session import RUNTIME_JAR

    m = re.search(r"-(\d+\.\d+\.\d+)\.jar$", RUNTIME_JAR)
    iceberg = m.group(1) if m else "?"
    try:
        import pyspark

        return f"Iceberg Java {iceberg} (Spark {pyspark.__version__} JVM)"
    except ImportError:
        return f"Iceberg Java {iceberg} (pyspark not installed)"


def call(op: str, **args: Any) -> Any:
    from iceberg_conformance.suites.spark import session

    try:
        result = session.call(op, **args)
    except session.SparkUnavailable as e:
        import pytest

        pytest.skip(f"java target: Spark/Java unavailable: {e}")
    if result.get("ok"):
        return result.get("value")
    kind, cls, message = result.get("kind"), result.get("class"), result.get("message")
    text = f"{cls}: {message}"
    if kind == "rejected":
        raise Rejected(text)
    if kind == "unsupported":
        raise Unsupported(f"Iceberg Java: {message}")
    raise JavaCrash(f"Iceberg Java crashed on {op}({args}): {text}")
