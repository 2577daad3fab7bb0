# Sourced by the consumers, harnesses and writers lanes: export $ICEBERG_CONFORMANCE_NODE_MODULES,
# the directory holding node_modules/icebird (icebird@0.3.1, npm). Kept as it is when set; else $1
# (the lanes share .tox/node: one install a run), where icebird is installed when it is not there
# yet. Needs say() of the lane.
icebird_modules() {
    if [ -z "${ICEBERG_CONFORMANCE_NODE_MODULES:-}" ]; then
        local node_dir="$1"
        if [ ! -f "$node_dir/node_modules/icebird/package.json" ]; then
            say "npm install icebird@0.3.1 into $node_dir"
            mkdir -p "$node_dir"
            # bounded: an unreachable registry ends here, and the icebird tests then fail (not skip)
            timeout 300 npm install --silent --no-audit --no-fund --no-update-notifier --prefix "$node_dir" \
                icebird@0.3.1 || say "npm install icebird failed (exit $?)"
        fi
        export ICEBERG_CONFORMANCE_NODE_MODULES="$node_dir"
    fi
}
