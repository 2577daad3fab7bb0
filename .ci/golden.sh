# Sourced by the Spark and consumers lanes: make $ICEBERG_CONFORMANCE_GOLDEN hold golden tables
# written by this checkout's generators, and export it.
#   * unset, under tox: tox's own directory $TOX_WORK_DIR/golden, reused when no generator or
#     reference source is newer than the tables, else written again (so the ci lane writes them
#     and the consumers lane reads the same ones);
#   * unset, outside tox: generated into $1 (a temp dir of the lane);
#   * a directory you set: reused as it is (a warning when it is older than the sources), or
#     generated into when it holds no tables yet.
golden_tables() {
    local golden="${ICEBERG_CONFORMANCE_GOLDEN:-${TOX_WORK_DIR:+$TOX_WORK_DIR/golden}}"
    golden="${golden:-$1}"
    local stale=""
    if [ -f "$golden/generation.json" ]; then
        stale="$(find suites/golden reference -name '*.py' -newer "$golden/generation.json" | head -1)"
        # a lane without PyIceberg (or Spark) skips those producers: a lane that has them writes
        # the tables again rather than reading a partial set
        if [ -z "$stale" ] && ! python -c "import json, sys; sys.exit(bool(json.load(open(sys.argv[1])).get('skipped')))" \
                "$golden/generation.json" 2>/dev/null; then
            stale="$golden/generation.json (producers were skipped there)"
        fi
    fi
    if [ -f "$golden/generation.json" ] && [ -z "$stale" ]; then
        echo "golden tables: reusing $golden"
    elif [ -f "$golden/generation.json" ] && [ "$golden" != "${TOX_WORK_DIR:-}/golden" ]; then
        echo "golden tables: reusing $golden, although $stale is newer than them"
    else
        echo "golden tables: generating into $golden"
        if [ "$golden" = "${TOX_WORK_DIR:-}/golden" ]; then rm -rf "$golden"; fi
        python -m iceberg_conformance.suites.golden.generate --out "$golden"
    fi
    export ICEBERG_CONFORMANCE_GOLDEN="$golden"
}
