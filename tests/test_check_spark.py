"""``iceberg-conformance check --spark``: the checker's units as tasks of the user's Spark.

The Spark test runs the command as a user would (a subprocess) with the user's configuration in
``SPARK_CONF_DIR/spark-defaults.conf`` (master ``local[2]``, an application name) and nothing
of the kit's own session: the session it reports must be the configured one, and its ``--json``
report and exit code must be those of the same check run locally, on a valid v3 table (the
reference writer's; and the golden ``v3_deletion_vectors`` table written by Iceberg Java when
``$ICEBERG_CONFORMANCE_GOLDEN`` is set) and on damaged copies whose findings come from units
run on the executors. One Spark start: every table is checked in one command.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.damage import write_damaged
from iceberg_conformance.cli import main
from iceberg_conformance.reference.writer import write_table
from iceberg_conformance.suites.golden.registry import GOLDEN_ENV

CLI = [sys.executable, "-m", "iceberg_conformance"]
APP = "conformance-from-defaults"
#: damage cases whose findings come from data-file units (run on the executors)
DAMAGES = ("data.record-count", "files.missing")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
    env.update(extra)
    return env


def _without_seconds(report: dict[str, Any]) -> dict[str, Any]:
    for t in report["tables"]:
        t.pop("seconds")
    return report


def test_without_pyspark_the_error_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    table = write_table(str(tmp_path / "t"), 2)
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "pyspark.py").write_text("raise ImportError('No module named pyspark')\n")
    run = subprocess.run([*CLI, "check", "--spark", table], capture_output=True, text=True, timeout=120,
                         env=_env(PYTHONPATH=str(shadow)))
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if not line.startswith("checking ")]
    assert errors == ["iceberg-conformance check --spark: pyspark is not installed: "
                      "pip install 'iceberg-conformance[spark]'"], run.stderr
    assert run.stdout == ""


@pytest.mark.parametrize("args, says", [
    (["--spark-master", "local[2]"], "--spark-master and --spark-conf go with --spark"),
    (["--spark", "--spark-conf", "spark.ui.enabled"], "--spark-conf spark.ui.enabled: expected KEY=VALUE"),
    (["--spark", "--workers", "2"], "--workers runs local processes"),
])
def test_spark_options_that_do_not_fit_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         args: list[str], says: str) -> None:
    table = write_table(str(tmp_path / "t"), 2)
    assert main(["check", table, *args]) == 2
    assert says in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_check_on_the_users_spark_gives_the_local_runs_report(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    valid = write_table(str(tmp_path / "valid"), 3)
    _pristine, copies, skipped = write_damaged(valid, str(tmp_path / "damaged"), rules=list(DAMAGES))
    assert not skipped and sorted(c.rule for c in copies) == sorted(DAMAGES)
    tables = [valid, *(c.metadata for c in copies)]
    golden = os.environ.get(GOLDEN_ENV)
    if golden:
        doc = json.loads((Path(golden) / "expected" / "v3_deletion_vectors.json").read_text())
        tables.append(str(Path(golden) / "warehouse" / doc["metadata"]))
    args, store = [], {}
    if importlib.util.find_spec("moto") is not None:  # the extra stores (the ci lane has it)
        # a table uploaded to S3 as it is: read from the store with --relocate, on the executors too
        endpoint = request.getfixturevalue("s3_endpoint")
        request.getfixturevalue("s3_bucket")("uploaded")
        uploaded = write_table(str(tmp_path / "up"), 2)
        import pyarrow.fs as pafs

        fs = pafs.S3FileSystem(endpoint_override=endpoint.split("://")[1], scheme="http", access_key="testing",
                               secret_key="testing", region="us-east-1")
        pafs.copy_files(str(tmp_path / "up"), "uploaded/t", source_filesystem=pafs.LocalFileSystem(),
                        destination_filesystem=fs)
        tables.append("s3://uploaded/t/metadata/" + Path(uploaded).name)
        args = ["--relocate", f"{tmp_path / 'up'}=s3://uploaded/t"]
        store = {k: os.environ[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")}
        store["AWS_ENDPOINT_URL"] = endpoint
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(f"spark.master local[2]\nspark.app.name {APP}\n"
                                              "spark.ui.enabled false\nspark.ui.showConsoleProgress false\n")
    env = _env(SPARK_CONF_DIR=str(conf), SPARK_LOCAL_IP="127.0.0.1", **store)

    spark = subprocess.run([*CLI, "check", "--spark", "--json", *tables, *args], capture_output=True, text=True,
                           timeout=540, env=env, cwd=tmp_path)
    local = subprocess.run([*CLI, "check", "--json", *tables, *args], capture_output=True, text=True, timeout=300,
                           env=env, cwd=tmp_path)
    if "Java" in spark.stderr and spark.returncode == 2 and os.environ.get("CI") != "true":
        pytest.skip(f"needs Java for Spark: {spark.stderr.strip()[-300:]}")
    assert local.returncode == 1, local.stderr
    assert spark.returncode == local.returncode, spark.stderr[-3000:]
    # the session is the one spark-defaults.conf configures, not the kit's
    assert f"application '{APP}'" in spark.stderr and "master local[2]" in spark.stderr, spark.stderr[-3000:]
    remote_report, local_report = json.loads(spark.stdout), json.loads(local.stdout)
    assert _without_seconds(remote_report) == _without_seconds(local_report)
    found = {f["rule"] for t in local_report["tables"] for f in t["findings"]}
    assert set(DAMAGES) <= found, found
    verdicts = [t["verdict"] for t in local_report["tables"]]
    assert verdicts[:3] == ["clean", "findings", "findings"] and set(verdicts[3:]) <= {"clean"}, verdicts
    if store:
        assert local_report["tables"][-1]["table"].startswith("s3://uploaded/t/metadata/")
    # progress per stage: planning, the units as Spark tasks (every data file done), the merge
    lines = [line.split("] ", 1)[1] for line in spark.stderr.splitlines() if line.startswith("  [spark ")]
    assert sum(line.startswith("planning: ") for line in lines) == len(tables), lines
    stages = [line for line in lines if line.startswith("stage ") and "data-file" in line]
    assert len(stages) == len(tables), lines
    for line in stages:
        counted = line.split("(", 1)[1].split(")", 1)[0]
        assert all(done == total for done, total in (kind.split(" ")[1].split("/") for kind in counted.split(", ")))
    assert sum(line.startswith("merge: ") for line in lines) == len(tables), lines
