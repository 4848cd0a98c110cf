#!/bin/bash
# Re-measures issue 12's targets on bench/unwind_record.sh's recording, tk and perf
# alternating in the same run: median wall time, median CPU time (user + system) and peak
# RSS of each command over N runs, with the load average before and after.
#   bench/unwind_measure.sh [TK [FILE [N]]]
#     TK    the tk binary (default build/tk)        FILE  default $TK_BENCH_DIR/unwind.data,
#     N     runs per command (default 5)                  else build/bench-inputs/unwind.data
# Targets: tk fold --no-inline >= 5x faster than perf script --no-inline; peak RSS <= 200 MB.
# (Plain `perf script`, inline frames through addr2line, runs for many minutes: see
# bench/unwind_bench.cc's BM_PerfScriptSmall on the small file.)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TK=${1:-$ROOT/build/tk}
FILE=${2:-${TK_BENCH_DIR:-$ROOT/build/bench-inputs}/unwind.data}
N=${3:-5}
[ -r "$FILE" ] || { echo "no bench file $FILE (bench/unwind_record.sh)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
declare -A CMD=(
  [tk_noinline]="$TK fold --no-inline $FILE"
  [perf_noinline]="perf script --no-inline -i $FILE"
  [tk_inline]="$TK fold $FILE"
)
ORDER=(tk_noinline perf_noinline tk_inline)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)   $N runs each, alternating"
for ((i = 0; i < N; i++)); do
  for k in "${ORDER[@]}"; do
    /usr/bin/time -f "%e %U %S %M" -o "$T/t" ${CMD[$k]} > /dev/null 2> /dev/null
    cat "$T/t" >> "$T/$k"
  done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf "%-15s %9s %9s %9s\n" command wall_s cpu_s rss_mb
for k in "${ORDER[@]}"; do
  w=$(awk '{print $1}' "$T/$k" | median)
  c=$(awk '{print $2 + $3}' "$T/$k" | median)
  r=$(awk '{print $4}' "$T/$k" | sort -n | tail -1)
  printf "%-15s %9.2f %9.2f %9.0f\n" "$k" "$w" "$c" "$((r / 1024))"
  eval "W_$k=$w C_$k=$c"
done
awk -v pw="$W_perf_noinline" -v tw="$W_tk_noinline" -v pc="$C_perf_noinline" -v tc="$C_tk_noinline" \
  'BEGIN {printf "perf script --no-inline / tk fold --no-inline: wall %.1fx, cpu %.1fx\n", pw / tw, pc / tc}'
