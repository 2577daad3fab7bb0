"""One local Spark session with Apache Iceberg's Spark runtime, offline.

Nothing is downloaded: the Iceberg runtime jar comes from the ``snowpark-connect-deps-iceberg``
wheel (pin 1.0.2, Iceberg 1.10.2 for Spark 3.5 / Scala 2.12) and the kit's Java oracle helper
(``suites/spark/java/*.java``) is compiled with ``javac`` against that jar into a cache
directory (``$ICEBERG_CONFORMANCE_CACHE`` or ``~/.cache/iceberg-conformance``), keyed by the
hash of its source, so it is compiled once per source change and never committed.

``spark()`` returns the process-wide session (started lazily); ``catalog(name, warehouse)``
registers a Hadoop catalog on it; ``oracle()`` is the Java helper's entry point.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
ORACLE_CLASS = "icebergconformance.ConformanceOracle"
JAVA_SOURCES = Path(__file__).resolve().parent / "java"
EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DEFAULT_CATALOG = "conformance"


class SparkUnavailable(Exception):
    """Spark, Java 17 or the Iceberg runtime jar is not there; the message says what is missing."""


_STATE: dict[str, Any] = {}
STATS: dict[str, float] = {}


def progress(msg: str) -> None:
    """A progress line on stderr (the lane is slow enough that silence looks like a hang)."""
    print(f"[spark {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def runtime_jar() -> Path:
    try:
        import snowpark_connect_deps_iceberg as deps
    except ImportError:
        raise SparkUnavailable(
            "snowpark-connect-deps-iceberg is not installed (pip install 'iceberg-conformance[spark]')"
        ) from None
    path = Path(deps.get_jar_path(RUNTIME_JAR))
    if not path.is_file():
        raise SparkUnavailable(f"the Iceberg runtime jar {path} is missing (need snowpark-connect-deps-iceberg==1.0.2)")
    return path


def cache_dir() -> Path:
    root = os.environ.get("ICEBERG_CONFORMANCE_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "iceberg-conformance"


def oracle_jar() -> Path:
    """Compile ``suites/spark/java`` against the runtime jar (once per source hash); the jar path."""
    jar = runtime_jar()
    sources = sorted(JAVA_SOURCES.glob("*.java"))
    digest = hashlib.sha256()
    for src in sources:
        digest.update(src.name.encode() + b"\0" + src.read_bytes())
    digest.update(jar.name.encode())
    out = cache_dir() / f"oracle-{digest.hexdigest()[:16]}.jar"
    if out.is_file():
        return out
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        raise SparkUnavailable("javac/jar (JDK 17) not found on PATH; the Java oracle helper cannot be compiled")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        progress(f"compiling the Java oracle helper into {out}")
        r = subprocess.run([javac, "--release", "17", "-nowarn", "-cp", str(jar), "-d", str(classes),
                            *map(str, sources)], capture_output=True, text=True)
        if r.returncode != 0:
            raise SparkUnavailable(f"javac failed:\n{r.stderr.strip()}")
        part = Path(tmp) / "oracle.jar"
        subprocess.run([jar_tool, "cf", str(part), "-C", str(classes), "."], check=True)
        os.replace(part, out)   # atomic: a concurrent run sees the whole jar or none
    return out


def _java_ok() -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise SparkUnavailable("no Java runtime (java on PATH or JAVA_HOME); Spark needs Java 17")


def spark(warehouse: str | os.PathLike[str] | None = None) -> Any:
    """The process-wide SparkSession (started on first use, stopped at exit).

    ``warehouse`` is the default catalog's warehouse for the first start (a temp dir if None).
    """
    if "spark" in _STATE:
        return _STATE["spark"]
    _java_ok()
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise SparkUnavailable("pyspark is not installed (pip install 'iceberg-conformance[spark]')") from None
    jars = [runtime_jar(), oracle_jar()]
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Python workers (suites.spark.distributed) import the kit's packages from this checkout
    root = str(Path(__file__).resolve().parents[2])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])
    if warehouse is None:
        tmp = tempfile.mkdtemp(prefix="iceberg-conformance-wh-")
        _STATE["tmp"] = tmp
        warehouse = tmp
    progress("starting Spark 3.5 with Iceberg 1.10.2 (local[2], offline)")
    t0 = time.monotonic()
    builder = (
        SparkSession.builder.master("local[2]").appName("iceberg-conformance")
        .config("spark.jars", ",".join(str(j) for j in jars))
        .config("spark.sql.extensions", EXTENSIONS)
        .config(f"spark.sql.catalog.{DEFAULT_CATALOG}", "org.apache.iceberg.spark.SparkCatalog")
        .config(f"spark.sql.catalog.{DEFAULT_CATALOG}.type", "hadoop")
        .config(f"spark.sql.catalog.{DEFAULT_CATALOG}.warehouse", str(warehouse))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", os.environ.get("ICEBERG_CONFORMANCE_SPARK_MEMORY", "1g"))
        .config("spark.sql.adaptive.enabled", "false")
        # one Iceberg worker thread: manifests are then read in the order they are listed, so the
        # generic reader meets a snapshot's data files (and the first one it fails on) in the same
        # order every run, and a failure keeps its digest
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC -XX:+UseSerialGC -Diceberg.worker.num-threads=1")
    )
    try:
        session = builder.getOrCreate()
    except Exception as e:  # the JVM did not come up: report it, do not bury it in a traceback
        raise SparkUnavailable(f"Spark did not start: {type(e).__name__}: {e}") from None
    session.sparkContext.setLogLevel("ERROR")
    STATS["start_seconds"] = time.monotonic() - t0
    progress(f"Spark up in {STATS['start_seconds']:.1f} s")
    _STATE["spark"] = session
    atexit.register(stop)
    return session


def catalog(name: str, warehouse: str | os.PathLike[str]) -> str:
    """Register Hadoop catalog ``name`` over ``warehouse`` on the session; returns ``name``."""
    s = spark()
    s.conf.set(f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog")
    s.conf.set(f"spark.sql.catalog.{name}.type", "hadoop")
    s.conf.set(f"spark.sql.catalog.{name}.warehouse", str(warehouse))
    return name


def stop() -> None:
    s = _STATE.pop("spark", None)
    if s is not None:
        progress("stopping Spark")
        try:
            s.stop()
        except Exception as e:  # the JVM may be gone already (e.g. after an OutOfMemoryError)
            progress(f"Spark did not stop cleanly: {type(e).__name__}: {e}")
    tmp = _STATE.pop("tmp", None)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def java_class(name: str) -> Any:
    """A class of the kit's Java helper jar, as a py4j handle whose static methods can be called."""
    jvm = spark()._jvm
    parts = name.split(".")
    obj = jvm
    for p in parts:
        obj = getattr(obj, p)
    return obj


def oracle() -> Any:
    """The Java helper class (py4j handle): ``oracle().call(op, args_json) -> json``."""
    if "oracle" not in _STATE:
        jvm = spark()._jvm
        # the helper was added with spark.jars: it lives in Spark's context class loader
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        cls = jvm.java.lang.Class.forName(ORACLE_CLASS, True, loader)
        _STATE["oracle"] = cls
    return _STATE["oracle"]


def call(op: str, **args: Any) -> dict[str, Any]:
    """Call the oracle; the decoded envelope ``{"ok": ..., "value"| "kind","class","message"}``."""
    cls = oracle()
    raw = _invoke(cls, op, json.dumps(args, allow_nan=False))
    result: dict[str, Any] = json.loads(raw)
    return result


def _invoke(cls: Any, op: str, args: str) -> str:
    if "method" not in _STATE:
        gateway = spark().sparkContext._gateway
        string_cls = gateway.jvm.java.lang.String._java_lang_class
        params = gateway.new_array(gateway.jvm.java.lang.Class, 2)
        params[0] = string_cls
        params[1] = string_cls
        _STATE["method"] = cls.getMethod("call", params)
        _STATE["gateway"] = gateway
    gateway = _STATE["gateway"]
    argv = gateway.new_array(gateway.jvm.java.lang.Object, 2)
    argv[0] = op
    argv[1] = args
    return str(_STATE["method"].invoke(None, argv))


def peak_rss_mib() -> dict[str, float]:
    """Peak resident memory of this Python process and of the Spark JVM (MiB, Linux)."""
    import resource

    out = {"python": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    s = _STATE.get("spark")
    if s is not None:
        try:
            pid = int(s._jvm.java.lang.ProcessHandle.current().pid())
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    out["jvm"] = int(line.split()[1]) / 1024
        except (OSError, ValueError):
            pass
    return out
