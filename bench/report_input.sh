#!/bin/bash
# Records the input of bench/report_bench.cc (not committed: ~30-40 MB): `perf record -a -g`
# at 4 kHz for SECONDS (default 20) while the machine runs a mixed load (a C++ compile,
# python, sha256sum, dd, the kernel's page cache), like the 37 MB file of the research notes.
#
#   bench/report_input.sh [OUT [SECONDS]]     # default OUT /tmp/bench/report.data
set -euo pipefail
OUT=${1:-/tmp/bench/report.data}
SECS=${2:-20}
mkdir -p "$(dirname "$OUT")"
SRC=$(cd "$(dirname "$0")/.." && pwd)
load() {
  local end=$((SECONDS + SECS))
  while ((SECONDS < end)); do
    g++ -std=c++20 -O1 -I"$SRC" -I/usr/include/nlohmann -fsyntax-only "$SRC/analyses/report/report.cc" 2>/dev/null || true
    python3 -c 'import json; [json.dumps({"k": list(range(200))}) for _ in range(20000)]'
    head -c 64M /dev/urandom | sha256sum >/dev/null
    dd if=/dev/zero of=/dev/null bs=4k count=200000 2>/dev/null
  done
}
load &
LOAD=$!
perf record -q -a -g -F 4000 -o "$OUT" -- sleep "$SECS"
wait "$LOAD" || true
rm -f "$OUT.old"
ls -la "$OUT"
