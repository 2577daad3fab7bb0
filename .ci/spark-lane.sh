#!/usr/bin/env bash
# The Spark lane (called by .ci/run through tox -e ci, whose env has the `spark` and `duckdb`
# extras): Iceberg Java 1.10.2 through a local Spark 3.5, offline.
#   1. the golden tables (python -m iceberg_conformance.suites.golden.generate): tox's .tox/golden
#      unless you set $ICEBERG_CONFORMANCE_GOLDEN, shared with the consumers lane (.ci/golden.sh
#      says when they are reused)
#   2. read them with every reader, check them with the table checker (also as Spark tasks, and
#      through check --spark), and run the vector suites against the java target
# Installs nothing. Without Java 17 the tests SKIP with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
mkdir -p report
work="$(mktemp -d "${TMPDIR:-/tmp}/iceberg-conformance-spark.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ]; then
    . .ci/golden.sh
    golden_tables "$work/golden"
    golden="$ICEBERG_CONFORMANCE_GOLDEN"
    cp "$golden/generation.json" report/spark-generation.json
    echo "spark lane: the release archive (vectors + golden tables), checked by its standard-library consumer"
    python -m iceberg_conformance export --archive report/dist --golden "$golden"
    mkdir -p "$work/extract"
    tar -xzf report/dist/iceberg-conformance-vectors-*.tar.gz -C "$work/extract"
    rc=0
    (cd "$work"/extract/iceberg-conformance-vectors-* && python -I -S consume.py > "$work/consume.log") || rc=$?
    grep '^FAIL' "$work/consume.log" | head -20 || true
    tail -1 "$work/consume.log"
    if [ "$rc" -ne 0 ]; then echo "spark lane: the archive's consumer failed" >&2; exit 1; fi
elif [ "${CI:-}" = "true" ]; then
    echo "spark lane: no Java runtime on a CI machine (Java 17 is part of the image): failing" >&2
    exit 1
else
    echo "spark lane: no Java runtime; the Spark tests will be reported as skipped"
fi

# a test that hangs fails after 15 minutes (pytest-timeout, from the dev extra) instead of holding CI
rc=0
# with it the tests of tests/ that need Spark (marked `spark`: the ci lane leaves them out), e.g.
# check --spark on the user's configuration (a session of its own, started once)
mapfile -t spark_tests < <(grep -l "pytest.mark.spark" tests/test_*.py)
python -m pytest suites "${spark_tests[@]}" -p no:cacheprovider --target java --timeout 900 \
    --junitxml=report/spark-junit.xml --conformance-report report/java "$@" || rc=$?

# the checker's mutation self-test over the golden tables (recall per area), and the bugs that
# shipped: what the kit reproduces and catches, per artifact
for recall in report/java/damage-recall.md report/java/bugs-recall.md; do
    if [ -f "$recall" ]; then cat "$recall"; fi
done
exit "$rc"
