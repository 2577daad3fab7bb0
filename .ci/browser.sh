#!/usr/bin/env bash
# Headless Chromium for tests/test_report_layout.py (the report pages at 1400 px). In CI (CI=true)
# it is installed from Debian's packages when missing (about 90 s with apt-get update: 115
# packages, 155 MB); elsewhere nothing is installed and those tests skip, saying why.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null; then echo "browser: $(command -v "$b")"; exit 0; fi
done
if [ "${CI:-}" != "true" ]; then
    echo "browser: none (tests/test_report_layout.py skips; apt-get install -y chromium to run it)"
    exit 0
fi
started=$(date +%s)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
# without it the layout tests fail in CI, naming the missing browser
echo "browser: chromium installed in $(( $(date +%s) - started ))s: $(command -v chromium || echo 'FAILED')"
