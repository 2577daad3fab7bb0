#!/usr/bin/env bash
# The harnesses lane (tox -e harnesses): the three harnesses of docs/harness-protocol.md through
# the unchanged suites, each in its own subprocess speaking the protocol.
#   1. harness-check on each harness (what is malformed, before any vector runs)
#   2. harness-python: every vector suite, with the in-process reference in the same run; the
#      outcome of every test must be identical (python -m iceberg_conformance.harnesses.compare)
#   3. harness-java (Iceberg Java in a plain JVM, started once): the suites of what it declares,
#      with the java target (Spark's JVM) in the same run; identical where both run
#   4. harness-js (icebird in node): the scan suite over the golden tables (.ci/golden.sh; the ci
#      lane writes them), icebird installed as the consumers lane installs it
# Reports: report/harness-{python,java,js}/ (matrix) and report/harness-*.xml (JUnit).
set -euo pipefail
cd "$(dirname "$0")/.."
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
start=$(date +%s)
mkdir -p report
work="$(mktemp -d "${TMPDIR:-/tmp}/iceberg-conformance-harnesses.XXXXXX")"
trap 'rm -rf "$work"' EXIT
say() { echo "harnesses lane [$(( $(date +%s) - start ))s]: $*"; }
rc=0

. .ci/icebird.sh
icebird_modules "$PWD/.tox/node"

vector_suites=(suites/test_avro_schema.py suites/test_binary.py suites/test_commit.py
    suites/test_delete_planning.py suites/test_evolution.py suites/test_expressions.py suites/test_hash.py
    suites/test_manifests.py suites/test_metadata.py suites/test_partition_spec_json.py suites/test_puffin.py
    suites/test_residuals.py suites/test_schema_json.py suites/test_transforms.py suites/test_value_json.py)
java_suites=(suites/test_hash.py suites/test_transforms.py suites/test_binary.py suites/test_value_json.py
    suites/test_schema_json.py suites/test_partition_spec_json.py suites/test_metadata.py
    suites/test_avro_schema.py suites/test_delete_planning.py)

say "harness-check"
for h in python java js; do
    cmd="$(python -c "import shlex; from iceberg_conformance.suites.targets.subprocess.builtin import command_of; print(shlex.join(command_of('harness-$h')))")" \
        && python -m iceberg_conformance harness-check "$cmd" || rc=1
done

say "harness-python: every vector suite, beside the in-process reference"
python -m pytest "${vector_suites[@]}" -m "not spark" --target reference --target harness-python -n 2 \
    -p no:cacheprovider -q --junitxml=report/harness-python.xml --conformance-report report/harness-python "$@" || rc=1
python -m iceberg_conformance.harnesses.compare report/harness-python.xml reference harness-python | tail -20 \
    || rc=1

say "harness-java: its capabilities' suites, beside the java target"
python -m pytest "${java_suites[@]}" --target java --target harness-java -p no:cacheprovider -q \
    --junitxml=report/harness-java.xml --conformance-report report/harness-java "$@" || rc=1
python -m iceberg_conformance.harnesses.compare report/harness-java.xml java harness-java --where-both-run \
    | tail -20 || rc=1

say "harness-js: the scan suite over the golden tables"
. .ci/golden.sh
golden_tables "$work/golden"
python -m pytest suites/test_scan.py -k harness-js --target harness-js -p no:cacheprovider -q \
    --junitxml=report/harness-js.xml --conformance-report report/harness-js "$@" || rc=1

say "done (exit $rc)"
exit "$rc"
