# What a lane script starts with (sourced from the repository's root with LANE set): Spark on
# loopback, report/, a work directory removed at exit, and `say` (progress with the elapsed time).
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
lane_started=$(date +%s)
mkdir -p report
work="$(mktemp -d "${TMPDIR:-/tmp}/iceberg-conformance-${LANE}.XXXXXX")"
trap 'rm -rf "$work"' EXIT
say() { echo "${LANE} lane [$(( $(date +%s) - lane_started ))s]: $*"; }
