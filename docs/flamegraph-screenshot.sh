#!/usr/bin/env bash
# Regenerates docs/images/flamegraph-a.png: tk's flame graph of the bundled trace
# testdata/perf_data/a.data (its own symbols; nothing from this host), searched for
# "page_fault", rendered by headless Chromium.   Usage: docs/flamegraph-screenshot.sh [build/tk]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tk=${1:-$repo/build/tk}
t=$repo/testdata/perf_data
svg=$(mktemp --suffix=.svg)
"$tk" flamegraph --symfs "$t/symfs" --kallsyms "$t/kallsyms" --no-buildid-cache \
  --no-host-kallsyms --title "tk flamegraph: testdata/perf_data/a.data" "$t/a.data" > "$svg"
height=$(grep -o 'height="[0-9.]*"' "$svg" | head -1 | tr -dc 0-9)
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars --window-size="1200,$height" \
  --screenshot="$repo/docs/images/flamegraph-a.png" "file://$svg?s=page_fault" 2>/dev/null
rm -rf "$profile" "$svg"
