"""The Java harness: Iceberg Java as a plain JVM subprocess (``Harness.java``, no Spark, no py4j).

:func:`command` compiles ``Harness.java`` with ``javac`` against the Iceberg runtime jar the
``spark`` extra installs and the kit's Java helper (``suites/spark/java``, compiled by
:func:`~iceberg_conformance.suites.spark.session.oracle_jar`), once per source and jar, into the
kit's cache directory, and returns the ``java`` command line: classpath = the runtime jar,
pyspark's ``jars/`` (Hadoop, Avro, Jackson), the helper's jar and the compiled harness.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from iceberg_conformance.suites.targets.subprocess import HarnessUnavailable

SOURCE = Path(__file__).resolve().parent / "Harness.java"


def _jars() -> list[Path]:
    """The runtime jar and the helper's jar (compiled now if needed), then pyspark's jars/."""
    from iceberg_conformance.suites.spark.session import SparkUnavailable, oracle_jar, runtime_jar

    try:
        jars = [runtime_jar(), oracle_jar()]
    except SparkUnavailable as e:
        raise HarnessUnavailable(str(e)) from None
    try:
        import pyspark
    except ImportError:
        return jars
    spark_jars = Path(pyspark.__file__).resolve().parent / "jars"
    return jars + ([spark_jars] if spark_jars.is_dir() else [])


def classes_dir(jars: list[Path]) -> Path:
    """The compiled harness (compiled now if it is not in the cache)."""
    from iceberg_conformance.suites.spark.session import cache_dir

    digest = hashlib.sha256(SOURCE.read_bytes() + jars[0].name.encode() + jars[1].name.encode()).hexdigest()[:16]
    out = cache_dir() / f"harness-java-{digest}"
    if (out / "Harness.class").is_file():
        return out
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        raise HarnessUnavailable("javac/java (JDK 17) not found on PATH; the Java harness cannot be compiled")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="harness-java-", dir=out.parent))
    r = subprocess.run([javac, "--release", "17", "-nowarn", "-cp", os.pathsep.join(map(str, jars[:2])),
                        "-d", str(tmp), str(SOURCE)], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessUnavailable(f"javac failed on {SOURCE}:\n{r.stderr[-2000:]}")
    try:
        os.replace(tmp, out)  # atomic: a concurrent run sees all the classes or none
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process got there first
    return out


def command() -> list[str]:
    jars = _jars()
    classpath = [*map(str, jars[:2]), *(f"{j}/*" for j in jars[2:]), str(classes_dir(jars))]
    return ["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", os.pathsep.join(classpath), "Harness"]
