#!/usr/bin/env bash
# Generates the inputs of bench/flamegraph_bench.cc (not committed: ~32 MB each):
#   DIR/distinct.folded  the recorded `perf script` texts of testdata/fold folded with
#                        `tk fold --tid`, copied until >= 32 MB with each copy's root frames
#                        renamed (comm -> comm.N): a system-wide fold with ~1M distinct frames;
#   DIR/repeated.folded  the same fold repeated as it is to the same size: identical lines, so
#                        as few distinct frames as one copy (memory must not grow with it).
# Usage: bench/make_flamegraph_input.sh [TK_BINARY] [DIR]   (default build/tk, /tmp/tk-flamegraph-bench)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tk=${1:-$repo/build/tk}
dir=${2:-/tmp/tk-flamegraph-bench}
mkdir -p "$dir"
base=$dir/base.folded
: > "$base"
for t in proc-g proc-pidtid-g system-wide-g tracepoint-g two-events-g; do
  "$tk" fold --tid "$repo/testdata/fold/$t.txt" >> "$base" 2>/dev/null
done
size=$(wc -c < "$base")
copies=$(( (32 * 1024 * 1024 + size - 1) / size ))
awk -v n="$copies" '{ a[NR] = $0 } END {
  for (c = 1; c <= n; c++) for (i = 1; i <= NR; i++) {
    s = a[i]; p = index(s, ";"); if (p == 0) p = index(s, " ");
    print substr(s, 1, p - 1) "." c substr(s, p)
  } }' "$base" > "$dir/distinct.folded"
for ((c = 0; c < copies; c++)); do cat "$base"; done > "$dir/repeated.folded"
ls -l "$dir"/*.folded >&2
