#!/usr/bin/env bash
# The consumers lane (tox -e consumers, whose env has the `consumers` extra): the producer x
# consumer x capability matrix. Every consumer reads every golden table, snapshot by snapshot.
#   1. golden tables: those the ci lane wrote (.tox/golden) or $ICEBERG_CONFORMANCE_GOLDEN, generated
#      when missing or older than the generators (.ci/golden.sh; needs Java 17)
#   2. icebird (npm, pinned) into .tox/node (shared by the lanes) unless $ICEBERG_CONFORMANCE_NODE_MODULES is set
#   3. pytest suites/test_matrix.py: one test per table x consumer and per table x filter x consumer;
#      every engine must be there
#   4. report/matrix-consumers.{html,json,md}
set -euo pipefail
cd "$(dirname "$0")/.."
LANE=consumers
. .ci/lane.sh

. .ci/golden.sh
say "golden tables"
golden_tables "$work/golden"

. .ci/icebird.sh
icebird_modules "$PWD/.tox/node"

export ICEBERG_CONFORMANCE_CONSUMERS=all           # run the matrix; an absent engine fails
export ICEBERG_CONFORMANCE_MATRIX_CELLS="$work/cells"
say "reading every golden table with every consumer"
rc=0
# engines run native code in this process, which a signal cannot interrupt: a read hung past the
# timeout ends the run from a watchdog thread (pytest-timeout's thread method), failing the lane
# two workers, each engine's tests in one of them (a Spark session, an engine's process made once)
# (and the filter translations of the engines only this lane installs: tests/test_engine_filters.py)
python -m pytest suites/test_matrix.py tests/test_engine_filters.py -p no:cacheprovider -n 2 --dist loadgroup \
    --timeout 900 --timeout-method thread -o console_output_style=count \
    --junitxml=report/consumers-junit.xml "$@" || rc=$?
say "writing report/matrix-consumers.{html,json,md}"
python -m iceberg_conformance.suites.harness.consumer_matrix --cells "$work/cells" --golden "$ICEBERG_CONFORMANCE_GOLDEN" --out report
say "done (pytest exit $rc)"
exit "$rc"
