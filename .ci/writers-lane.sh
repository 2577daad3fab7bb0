#!/usr/bin/env bash
# The writers lane (tox -e writers, whose env has the `consumers` extra: chdb, daft, PyIceberg,
# Spark): every writer runs every op-log of vectors/oplogs and what it wrote is judged (checker,
# rows per snapshot, relations).
#   1. sidequery-pyiceberg in its own venv (it replaces the pyiceberg module), repark in a
#      Python 3.12 venv (its wheels are cp312-abi3): under $TOX_ENV_DIR, made once
#   2. pytest suites/test_writers.py with every writer selected: a writer that cannot run fails
#   3. the written tables as producers of the consumer matrix (suites/test_matrix.py -k written):
#      each read by every consumer ($ICEBERG_CONFORMANCE_WRITERS_READERS: consumer names, or all,
#      the default; "none" turns the step off) at its current snapshot and the snapshots its
#      branches and tags name, unfiltered and under its fixed filters (eq, range, is-null, in);
#      icebird installed as the consumers lane installs it
#   4. report/matrix-writers.{html,json,md}
set -euo pipefail
cd "$(dirname "$0")/.."
LANE=writers
. .ci/lane.sh
envs="${TOX_ENV_DIR:-$PWD/.tox/writers}/writer-envs"
mkdir -p "$envs"

# bounded installs: a failure here leaves the writer without its Python, and its tests then fail
if [ -z "${ICEBERG_CONFORMANCE_PYTHON_SIDEQUERY:-}" ]; then
    if [ ! -x "$envs/sidequery/bin/python" ] || ! "$envs/sidequery/bin/python" -c "import pyiceberg.catalog.sql" 2>/dev/null; then
        say "venv for sidequery-pyiceberg==0.12.0.post2"
        python3 -m venv "$envs/sidequery" && timeout 600 "$envs/sidequery/bin/pip" install --quiet \
            --disable-pip-version-check "sidequery-pyiceberg==0.12.0.post2" "sqlalchemy>=2" "pyiceberg-core==0.11.0" pyarrow \
            || say "sidequery-pyiceberg install failed (exit $?)"
    fi
    export ICEBERG_CONFORMANCE_PYTHON_SIDEQUERY="$envs/sidequery/bin/python"
fi
if [ -z "${ICEBERG_CONFORMANCE_PYTHON_REPARK:-}" ]; then
    # a Python 3.12 that runs (a pyenv shim on PATH may name a version that is not selected)
    py312=""
    for candidate in "$(command -v python3.12 || true)" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python; do
        if [ -n "$candidate" ] && [ -x "$candidate" ] && \
            "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
            py312="$candidate"
        fi
    done
    if [ ! -x "$envs/repark/bin/python" ] || ! "$envs/repark/bin/python" -c "import repark" 2>/dev/null; then
        if [ -n "$py312" ]; then
            say "venv for repark==1.5.5 with $py312"
            "$py312" -m venv "$envs/repark" && timeout 600 "$envs/repark/bin/pip" install --quiet \
                --disable-pip-version-check "repark==1.5.5" || say "repark install failed (exit $?)"
        else
            say "no Python 3.12 (python3.12 on PATH or pyenv): repark cannot run (its wheels are cp312-abi3)"
        fi
    fi
    # without it the repark writer's cells fail and say that repark needs a Python 3.12
    [ -x "$envs/repark/bin/python" ] && export ICEBERG_CONFORMANCE_PYTHON_REPARK="$envs/repark/bin/python"
fi

export ICEBERG_CONFORMANCE_WRITERS=all
export ICEBERG_CONFORMANCE_WRITER_CELLS="$work/cells"
readers="${ICEBERG_CONFORMANCE_WRITERS_READERS:-all}"
[ "$readers" = none ] && readers=""
if [ -n "$readers" ]; then
    . .ci/icebird.sh
    icebird_modules "$PWD/.tox/node"
    export ICEBERG_CONFORMANCE_WRITTEN="$work/written"
    mkdir -p "$ICEBERG_CONFORMANCE_WRITTEN"
fi
say "every writer runs every op-log"
rc=0
python -m pytest suites/test_writers.py -p no:cacheprovider -n 2 --dist loadgroup --timeout 900 \
    --timeout-method thread -o console_output_style=count --junitxml=report/writers-junit.xml "$@" || rc=$?
consumer_cells=()
if [ -n "$readers" ]; then
    say "the written tables read by: $readers"
    ICEBERG_CONFORMANCE_CONSUMERS="$readers" ICEBERG_CONFORMANCE_MATRIX_CELLS="$work/consumer-cells" \
        python -m pytest suites/test_matrix.py -k test_consumer_reads_written_table -p no:cacheprovider -n 2 \
        --dist loadgroup --timeout 900 --timeout-method thread -q --junitxml=report/writers-readers-junit.xml || rc=$?
    say "writing report/matrix-consumers-written.{html,json,md}"
    python -m iceberg_conformance.suites.harness.consumer_matrix --cells "$work/consumer-cells" \
        --out report/written || rc=$?
    consumer_cells=(--consumer-cells "$work/consumer-cells")
fi
say "writing report/matrix-writers.{html,json,md}"
python -m iceberg_conformance.suites.writers.report --cells "$work/cells" --out report "${consumer_cells[@]}"
say "done (pytest exit $rc)"
exit "$rc"
