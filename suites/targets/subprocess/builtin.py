"""The built-in harness targets: ``harness-python``, ``harness-java``, ``harness-js``.

Each is :class:`HarnessTarget` on the command of a harness kept in ``harnesses/<language>/``
(found as data of the installed package: the suites start the programs, they import none of
them). ``harness-java`` shares the known failures of the ``java`` target (the same Iceberg Java),
for the capabilities it declares.

* ``harness-python``: ``python -m iceberg_conformance.harnesses.python.harness reference``.
* ``harness-java``: ``harnesses/java/Harness.java``, compiled with ``javac`` once per source and
  jar into the kit's cache directory against the Iceberg runtime jar of the ``spark`` extra and
  the kit's Java helper (``suites/spark/java``, :func:`~iceberg_conformance.suites.spark.session.oracle_jar`);
  run with ``java``, classpath = the runtime jar, the helper's jar, pyspark's ``jars/`` (Hadoop,
  Avro, Jackson) and the compiled harness. No Spark session, no py4j.
* ``harness-js``: ``node harnesses/js/harness.mjs NODE_MODULES``, icebird found as the consumer
  matrix finds it (``$ICEBERG_CONFORMANCE_NODE_MODULES``: the directory holding
  ``node_modules/icebird``, from ``npm install --prefix DIR icebird@0.3.1``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from iceberg_conformance.suites.targets.subprocess import HarnessTarget, HarnessUnavailable

TARGETS = Path(__file__).resolve().parent.parent


def harness_file(relative: str) -> Path:
    """A file of ``harnesses/`` as installed with the kit."""
    return Path(str(resources.files("iceberg_conformance.harnesses").joinpath(relative)))


def _java_jars() -> list[Path]:
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


def _java_classes(jars: list[Path]) -> Path:
    """The compiled Java harness (compiled now if it is not in the cache)."""
    from iceberg_conformance.suites.spark.session import cache_dir

    source = harness_file("java/Harness.java")
    digest = hashlib.sha256(source.read_bytes() + jars[0].name.encode() + jars[1].name.encode()).hexdigest()[:16]
    out = cache_dir() / f"harness-java-{digest}"
    if (out / "Harness.class").is_file():
        return out
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        raise HarnessUnavailable("javac/java (JDK 17) not found on PATH; the Java harness cannot be compiled")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="harness-java-", dir=out.parent))
    r = subprocess.run([javac, "--release", "17", "-nowarn", "-cp", os.pathsep.join(map(str, jars[:2])),
                        "-d", str(tmp), str(source)], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessUnavailable(f"javac failed on {source}:\n{r.stderr[-2000:]}")
    try:
        os.replace(tmp, out)  # atomic: a concurrent run sees all the classes or none
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process got there first
    return out


def _java_command() -> list[str]:
    jars = _java_jars()
    classpath = [*map(str, jars[:2]), *(f"{j}/*" for j in jars[2:]), str(_java_classes(jars))]
    return ["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", os.pathsep.join(classpath), "Harness"]


def _js_command() -> list[str]:
    from iceberg_conformance.suites.engines.process import ReaderUnavailable
    from iceberg_conformance.suites.engines.registry import node_modules

    node = shutil.which("node")
    if node is None:
        raise HarnessUnavailable("node is not on PATH (the JavaScript harness runs icebird in node)")
    try:
        modules = node_modules()
    except ReaderUnavailable as e:
        raise HarnessUnavailable(str(e)) from None
    return [node, str(harness_file("js/harness.mjs")), str(modules)]


def command_of(name: str) -> list[str]:
    """The command line of built-in harness ``name`` (``harness-python``, ...)."""
    if name == "harness-python":
        return [sys.executable, "-m", "iceberg_conformance.harnesses.python.harness", "reference"]
    if name == "harness-java":
        return _java_command()
    if name == "harness-js":
        return _js_command()
    raise KeyError(name)


def python_harness() -> HarnessTarget:
    return HarnessTarget(command_of("harness-python"), name="harness-python")


def java_harness() -> HarnessTarget:
    files = sorted(str(p) for p in (TARGETS / "java").glob("known-failures-*.json"))
    return HarnessTarget(command_of("harness-java"), name="harness-java", known_failures_file=files)


def js_harness() -> HarnessTarget:
    return HarnessTarget(command_of("harness-js"), name="harness-js")
