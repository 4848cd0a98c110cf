#!/usr/bin/env bash
# Issue 16's text fold targets as whole processes: `tk fold --threads 1`, `tk fold --threads 2`
# and stackcollapse-perf.pl on the same `perf script` text, alternating, N runs each (default
# 5); medians of wall, CPU (user+sys) and peak RSS, MB/s of the file by wall and by CPU, and
# the ratios to perl. Checks that 1 and 2 threads give the same bytes, and counts the lines in
# which tk and perl differ (docs/fold.md lists where and why; e.g. ":-1 -1" headers).
# $TK_BEFORE (optional): another tk binary (e.g. main's) timed in the same loop, and its
# output compared with this tk's.
#
#   bench/text_fold_measure.sh [FILE] [N]
#     FILE default /work/bench-inputs/perf-a-g-150m.txt (bench/make-text-fold-input.sh)
#     $TK_FLAMEGRAPH: the FlameGraph checkout (default /tmp/FlameGraph)
# Targets: >= 600 MB/s with 1 thread, >= 1000 MB/s with 2 (wall), >= 50x perl.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tk=$here/build/tk
file=${1:-/work/bench-inputs/perf-a-g-150m.txt}
n=${2:-5}
pl=${TK_FLAMEGRAPH:-/tmp/FlameGraph}/stackcollapse-perf.pl
[ -r "$file" ] || { echo "no $file (bench/make-text-fold-input.sh makes it)" >&2; exit 2; }
mb=$(stat -c %s "$file" | awk '{printf "%.1f", $1 / 1e6}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One run of "$@" with stdout to $out: "wall cpu rss_kb".
run() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > "$out" 2>/dev/null
  awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' "$tmp/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { printf '%s\n' "${@:2}" | cut -d' ' -f"$1" | median; }
echo "file: $file ($mb MB), $n runs each, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t1=() t2=() p=() b=()
for _ in $(seq "$n"); do
  if [ -n "${TK_BEFORE:-}" ]; then out=$tmp/before b+=("$(run "$TK_BEFORE" fold --threads 1 "$file")"); fi
  out=$tmp/tk1 t1+=("$(run "$tk" fold --threads 1 "$file")")
  out=$tmp/tk2 t2+=("$(run "$tk" fold --threads 2 "$file")")
  if [ -r "$pl" ]; then out=$tmp/pl p+=("$(run perl "$pl" "$file")"); fi
done
row() {
  local name=$1; shift
  local w c r
  w=$(col 1 "$@"); c=$(col 2 "$@"); r=$(col 3 "$@")
  printf '%-16s %7.3f s wall %7.3f s cpu %8d KB  %7.0f MB/s wall %7.0f MB/s cpu\n' \
    "$name" "$w" "$c" "$r" "$(echo "$mb / ($w + 0.0001)" | bc -l)" \
    "$(echo "$mb / ($c + 0.0001)" | bc -l)"
}
if [ ${#b[@]} -gt 0 ]; then
  row "before, 1 thread" "${b[@]}"
  cmp -s "$tmp/tk1" "$tmp/before" && echo "tk and \$TK_BEFORE: identical" || echo "tk and \$TK_BEFORE: DIFFER"
fi
row "tk --threads 1" "${t1[@]}"
row "tk --threads 2" "${t2[@]}"
cmp -s "$tmp/tk1" "$tmp/tk2" && echo "tk 1 and 2 threads: identical" || echo "tk 1 and 2 threads: DIFFER"
if [ ${#p[@]} -gt 0 ]; then
  row stackcollapse "${p[@]}"
  echo "tk and stackcollapse-perf.pl: $(diff "$tmp/tk1" "$tmp/pl" | grep -c '^[<>]' || true)" \
    "differing lines of $(wc -l < "$tmp/pl") (docs/fold.md's deviations)"
  pc=$(col 2 "${p[@]}") pw=$(col 1 "${p[@]}")
  for k in 1 2; do
    eval "arr=(\"\${t$k[@]}\")"
    printf 'perl / tk --threads %d: %5.1fx wall %5.1fx cpu\n' "$k" \
      "$(echo "$pw / ($(col 1 "${arr[@]}") + 0.0001)" | bc -l)" \
      "$(echo "$pc / ($(col 2 "${arr[@]}") + 0.0001)" | bc -l)"
  done
else
  echo "no $pl: stackcollapse-perf.pl not timed"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
