#!/usr/bin/env bash
# tk against perf on perf sched recordings, as one command: for each input and each of
# sched latency / sched timehist / script, runs tk and perf alternately N times (output to
# /dev/null) and prints the medians of wall time, CPU time (user+sys) and peak RSS of each,
# the wall and CPU ratios perf/tk, and the load average before and after.
#
#   bench/sched_scale.sh [-n N] [-c "latency timehist script"] [INPUT...]
#
# Default inputs: sched-huge.data and sched.data in $TK_BENCH_DIR (default build/bench-inputs),
# recorded by bench/make-inputs.sh [--huge]. Needs perf and GNU time (/usr/bin/time). The
# Google Benchmark twin is bench/scale_bench (BM_TkSchedLatencyPerfData, BM_PerfSchedLatency).
# Output goes to $TK_BENCH_OUT (default /dev/null); where /dev/null is a regular file (some
# containers), writing timehist's 400 MB there costs both tools a tmpfs write: point
# TK_BENCH_OUT at a character device (mknod /tmp/null c 1 3) to time the tools alone.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tk=${TK:-$here/build/tk}
dir=${TK_BENCH_DIR:-$here/build/bench-inputs}
n=5
cmds="latency timehist script"
inputs=()
while (($#)); do
  case "$1" in
    -n) n=$2; shift 2 ;;
    -c) cmds=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
((${#inputs[@]})) || inputs=("$dir/sched-huge.data" "$dir/sched.data")
command -v perf >/dev/null || { echo "sched_scale: perf not installed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "sched_scale: /usr/bin/time (GNU time) not installed" >&2; exit 2; }

# One run: "wall cpu rss_kb". Times from bash's `time` to the millisecond (GNU time prints
# hundredths, too coarse for the 0.1 s runs on the small input), peak RSS from GNU time.
run() {
  local f t TIMEFORMAT="%3R %3U %3S"; f=$(mktemp)
  t=$( { time /usr/bin/time -f "%M" -o "$f" "$@" > "$sink" 2>/dev/null; } 2>&1 ) || true
  echo "$t $(tail -1 "$f")" | awk '{printf "%s %.3f %s\n", $1, $2 + $3, $4}'
  rm -f "$f"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$1" '{print $c}'; }

sink=${TK_BENCH_OUT:-/dev/null}
[ -c "$sink" ] || echo "sched_scale: note: output $sink is not a character device (TK_BENCH_OUT)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %-9s %8s %8s %9s %8s %8s %9s %7s %7s\n' input command tk_wall tk_cpu tk_rss_mb \
  perf_wall perf_cpu perf_rss_mb x_wall x_cpu
for in in "${inputs[@]}"; do
  [ -e "$in" ] || { echo "skip: $in missing (bench/make-inputs.sh --huge)"; continue; }
  for c in $cmds; do
    case "$c" in
      latency) t=("$tk" sched latency "$in"); p=(perf sched latency -i "$in") ;;
      timehist) t=("$tk" sched timehist "$in"); p=(perf sched timehist -i "$in") ;;
      script) t=("$tk" script "$in"); p=(perf script -i "$in") ;;
      *) echo "sched_scale: unknown command $c" >&2; exit 2 ;;
    esac
    tr=() pr=()
    for ((i = 0; i < n; i++)); do
      tr+=("$(run "${t[@]}")")
      pr+=("$(run "${p[@]}")")
    done
    tw=$(printf '%s\n' "${tr[@]}" | col 1 | median); tc=$(printf '%s\n' "${tr[@]}" | col 2 | median)
    tm=$(printf '%s\n' "${tr[@]}" | col 3 | median)
    pw=$(printf '%s\n' "${pr[@]}" | col 1 | median); pc=$(printf '%s\n' "${pr[@]}" | col 2 | median)
    pm=$(printf '%s\n' "${pr[@]}" | col 3 | median)
    awk -v name="$(basename "$in")" -v c="$c" -v tw="$tw" -v tc="$tc" -v tm="$tm" -v pw="$pw" \
      -v pc="$pc" -v pm="$pm" 'BEGIN {
        printf "%-16s %-9s %8.3f %8.3f %9.0f %8.3f %8.3f %9.0f %7.2f %7.2f\n", name, c, tw, tc,
          tm / 1024, pw, pc, pm / 1024, (tw > 0 ? pw / tw : 0), (tc > 0 ? pc / tc : 0) }'
  done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
