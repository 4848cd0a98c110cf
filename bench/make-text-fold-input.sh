#!/usr/bin/env bash
# Generates a big system-wide `perf script` text for the text fold benchmarks (issue 16:
# 30-160 MB): `perf script` of a `perf record -a -g` file (bench/make-inputs.sh records
# perf-a-g.data), repeated until the text reaches SIZE_MB, each copy's times shifted by
# 1000 s so the whole text stays in time order (as perf script prints it; unordered text is
# folded on one thread). Never committed.
#
#   bench/make-text-fold-input.sh PERF_DATA OUT [SIZE_MB]     (SIZE_MB default 150)
set -euo pipefail
data=${1:?perf.data}
out=${2:?output text}
size_mb=${3:-150}
one=$(mktemp)
trap 'rm -f "$one"' EXIT
perf script -i "$data" > "$one" 2>/dev/null
one_bytes=$(stat -c %s "$one")
copies=$(( (size_mb * 1048576 + one_bytes - 1) / one_bytes ))
: > "$out"
for ((i = 0; i < copies; i++)); do
  # A header's time is the first word "SECONDS.MICROS:" of a line not starting with a tab.
  awk -v off=$((i * 1000)) '
    /^\t/ || $0 == "" { print; next }
    {
      if (match($0, / [0-9]+\.[0-9]+: /)) {
        t = substr($0, RSTART + 1, RLENGTH - 3)
        split(t, p, ".")
        printf "%s %d.%s: %s\n", substr($0, 1, RSTART - 1), p[1] + off, p[2],
               substr($0, RSTART + RLENGTH)
        next
      }
      print
    }' "$one" >> "$out"
done
ls -la "$out" >&2
