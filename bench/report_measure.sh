#!/usr/bin/env bash
# Issue 14's tk report targets and issue 16's startup target, as whole processes: tk and perf
# alternating, medians of N runs (default 5) of wall, CPU (user+sys) and peak RSS.
#
#   bench/report_measure.sh [FILE] [N]   (FILE default: build/bench-inputs/perf-a-g.data from
#                                         bench/make-inputs.sh; a `perf record -a -g` file)
#
# Rows: report children (tk report / perf report --children -g none), the same with tk
# --threads 1, flat (--no-children),
# then tiny inputs: testdata/report/cxx.data with its shipped ELF and kallsyms, and
# testdata/perf_data/z.data (no build ids: the host's kernel symbols). Targets: children 10x,
# flat 2x, tiny inputs <= 15 ms.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tk=$here/build/tk
file=${1:-$here/build/bench-inputs/perf-a-g.data}
n=${2:-5}
export PERF_CONFIG=/dev/null
# One run: "wall cpu rss_kb".
run() {
  /usr/bin/time -f "%e %U %S %M" -o /tmp/tk-measure.$$ "$@" >/dev/null 2>&1 || true
  awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' /tmp/tk-measure.$$
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# compare NAME "tk command" "perf command"
compare() {
  local name=$1 tkc=$2 pc=$3 t=() p=()
  for _ in $(seq "$n"); do t+=("$(run $tkc)"); p+=("$(run $pc)"); done
  local tw tc tr pw pcpu pr
  tw=$(printf '%s\n' "${t[@]}" | cut -d' ' -f1 | median)
  tc=$(printf '%s\n' "${t[@]}" | cut -d' ' -f2 | median)
  tr=$(printf '%s\n' "${t[@]}" | cut -d' ' -f3 | median)
  pw=$(printf '%s\n' "${p[@]}" | cut -d' ' -f1 | median)
  pcpu=$(printf '%s\n' "${p[@]}" | cut -d' ' -f2 | median)
  pr=$(printf '%s\n' "${p[@]}" | cut -d' ' -f3 | median)
  # /usr/bin/time has 10 ms resolution: a tiny input's row shows 0 (its perf stat line below
  # is the figure), and the +0.0001 keeps bc from dividing by zero.
  printf '%-10s tk %6ss wall %6ss cpu %7s KB | perf %6ss wall %6ss cpu %7s KB | wall %5.1fx cpu %5.1fx\n' \
    "$name" "$tw" "$tc" "$tr" "$pw" "$pcpu" "$pr" \
    "$(echo "$pw / ($tw + 0.0001)" | bc -l)" "$(echo "$pcpu / ($tc + 0.0001)" | bc -l)"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -e "$file" ]; then
  compare children "$tk report $file" "perf report --stdio --children -g none -i $file"
  # One thread: no reading thread, no report worker (tk's --threads 2 default on 2 CPUs).
  compare child-t1 "$tk report --threads 1 $file" "perf report --stdio --children -g none -i $file"
  compare flat "$tk report --no-children $file" "perf report --stdio --no-children -g none -i $file"
else
  echo "no $file (bench/make-inputs.sh records it)"
fi
td=$here/testdata
fix="--symfs $td/report/symfs --kallsyms $td/report/kallsyms"
compare cxx.data "$tk report --no-buildid-cache $fix $td/report/cxx.data" \
  "perf --buildid-dir /nonexistent report --stdio $fix -i $td/report/cxx.data"
compare z.data "$tk report $td/perf_data/z.data" "perf report --stdio -i $td/perf_data/z.data"
# /usr/bin/time counts in 10 ms steps: the tiny inputs again with perf stat (task-clock ms,
# wall ms; 20 runs).
for cmd in "$tk report --no-buildid-cache $fix $td/report/cxx.data" "$tk report $td/perf_data/z.data"; do
  perf stat -x, -r 20 -e task-clock $cmd 2>&1 >/dev/null | awk -F, -v c="${cmd#"$here"/}" \
    '/task-clock/ {printf "%-60s task-clock %.1f ms\n", c, $1}'
  s=$(date +%s%N); for _ in $(seq 20); do $cmd >/dev/null 2>&1; done
  echo "  wall $(( ($(date +%s%N) - s) / 20000000 )).$(( ($(date +%s%N) - s) / 2000000 % 10 )) ms per run"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f /tmp/tk-measure.$$
