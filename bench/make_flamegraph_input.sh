#!/usr/bin/env bash
# Generates the inputs of bench/flamegraph_bench.cc (not committed: ~MB megabytes each; run by
# bench/make-inputs.sh):
#   DIR/flamegraph-distinct.folded  the recorded `perf script` texts of testdata/fold folded with
#       `tk fold --tid`, copied until >= MB megabytes with each copy's root frames renamed
#       (comm -> comm.N): at 32 MB a system-wide fold with ~770k distinct frames;
#   DIR/flamegraph-repeated.folded  the same fold repeated as it is to the same size: identical
#       lines, so as few distinct frames as one copy (memory must not grow with it).
# Usage: bench/make_flamegraph_input.sh [TK_BINARY] [DIR] [MB]
#        (default build/tk, build/bench-inputs, 32). Existing files are kept.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tk=${1:-$repo/build/tk}
dir=${2:-$repo/build/bench-inputs}
mb=${3:-32}
mkdir -p "$dir"
distinct=$dir/flamegraph-distinct.folded repeated=$dir/flamegraph-repeated.folded
[ -e "$distinct" ] && [ -e "$repeated" ] && exit 0
base=$(mktemp)
: > "$base"
for t in proc-g proc-pidtid-g system-wide-g tracepoint-g two-events-g; do
  "$tk" fold --tid "$repo/testdata/fold/$t.txt" >> "$base" 2>/dev/null
done
size=$(wc -c < "$base")
copies=$(( (mb * 1024 * 1024 + size - 1) / size ))
awk -v n="$copies" '{ a[NR] = $0 } END {
  for (c = 1; c <= n; c++) for (i = 1; i <= NR; i++) {
    s = a[i]; p = index(s, ";"); if (p == 0) p = index(s, " ");
    print substr(s, 1, p - 1) "." c substr(s, p)
  } }' "$base" > "$distinct"
for ((c = 0; c < copies; c++)); do cat "$base"; done > "$repeated"
rm -f "$base"
ls -l "$distinct" "$repeated" >&2
