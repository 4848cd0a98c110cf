#!/bin/bash
# Records the input of bench/unwind_bench.cc (not committed): a system-wide --call-graph dwarf
# recording of ~10 s while a few workloads run (the testdata/dwarf fixture program, python3,
# gzip, a gcc compile), so many processes and DSOs (libc, libpython, libz, cc1) take part.
# Run as root:   bench/unwind_record.sh [OUT]
#   (default $TK_BENCH_DIR/unwind.data, else build/bench-inputs/unwind.data: >= 300 MB)
set -euo pipefail
OUT=${1:-${TK_BENCH_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build/bench-inputs}/unwind.data}
SECS=${TK_UNWIND_BENCH_SECONDS:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$(dirname "$OUT")"
gcc -O2 -g -fomit-frame-pointer -o "$W/fixture" "$SRC/testdata/dwarf/unwind_fixture.c"
load() {
  local end=$((SECONDS + SECS))
  while ((SECONDS < end)); do
    "$W/fixture" 300
    python3 -c 'import json; [json.dumps({"k": list(range(300))}) for _ in range(3000)]'
    head -c 20000000 /dev/urandom | gzip -1 > /dev/null
    gcc -O2 -c -o "$W/x.o" "$SRC/testdata/dwarf/unwind_fixture.c"
  done
}
load & LOAD=$!
perf record -q -a -F 1999 --call-graph dwarf -o "$OUT" -- sleep "$SECS"
wait $LOAD || true
ls -la "$OUT"
