"""The Java harness: Iceberg Java as a plain JVM subprocess (``Harness.java``, no Spark, no py4j).

:func:`command` compiles ``Harness.java`` with ``javac`` against the Iceberg runtime jar the
``spark`` extra installs, once per source and jar, into the kit's cache directory, and returns the
``java`` command line: classpath = the runtime jar, pyspark's ``jars/`` (Hadoop, Avro, Jackson)
and the compiled class.
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
    from iceberg_conformance.suites.spark.session import SparkUnavailable, runtime_jar

    try:
        jar = runtime_jar()
    except SparkUnavailable as e:
        raise HarnessUnavailable(str(e)) from None
    jars = [jar]
    try:
        import pyspark
    except ImportError:
        return jars
    spark_jars = Path(pyspark.__file__).resolve().parent / "jars"
    return jars + ([spark_jars] if spark_jars.is_dir() else [])


def classes_dir() -> Path:
    """The compiled harness (compiled now if it is not in the cache)."""
    from iceberg_conformance.suites.spark.session import cache_dir

    jar = _jars()[0]
    digest = hashlib.sha256(SOURCE.read_bytes() + jar.name.encode()).hexdigest()[:16]
    out = cache_dir() / f"harness-java-{digest}"
    if (out / "Harness.class").is_file():
        return out
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        raise HarnessUnavailable("javac/java (JDK 17) not found on PATH; the Java harness cannot be compiled")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="harness-java-", dir=out.parent))
    r = subprocess.run([javac, "--release", "17", "-nowarn", "-cp", str(jar), "-d", str(tmp), str(SOURCE)],
                       capture_output=True, text=True)
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
    classpath = [str(jars[0]), *(f"{j}/*" for j in jars[1:]), str(classes_dir())]
    return ["java", "-Xshare:auto", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", os.pathsep.join(classpath), "Harness"]
