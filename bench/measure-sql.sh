#!/usr/bin/env bash
# Re-measures tk sql's bulk load against its anchors on one input, alternating runs:
#
#   bench/measure-sql.sh [INPUT] [RUNS]   (INPUT default $TK_BENCH_DIR/sched.data or
#                                          build/bench-inputs/sched.data; RUNS default 5)
#
# Per command the medians of wall time, user+sys CPU and peak RSS, and events/s by wall time:
#   tk sql -o DB --threads 2   the default (SQLite inserting on its own thread)
#   tk sql -o DB --threads 1   everything on one thread
#   perf script -i INPUT       the anchor reader (no SQL loader for perf.data is packaged)
# then build/bench/sql_bench's in-memory load, its events/s by the busier thread's CPU time
# (events/s on an idle host) and BM_SqliteCeiling (SQLite alone writing as many rows).
# The load average is printed before and after: on a busy host compare CPU times, not walls.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${TK_BENCH_DIR:-$here/build/bench-inputs}
in=${1:-$dir/sched.data}
runs=${2:-5}
tk=$here/build/tk
db=$(mktemp -u /tmp/tk-sql-measure.XXXXXX.sqlite)
events=$("$tk" sql --threads 1 "$in" -e "SELECT value FROM meta WHERE key = 'events'" 2>/dev/null |
         tail -n 1)
echo "input: $in ($events events); load: $(cut -d' ' -f1-3 /proc/loadavg)"

declare -A wall cpu rss
cmds=("tk-2" "tk-1")
command -v perf >/dev/null && cmds+=("perf-script")
for ((i = 0; i < runs; i++)); do
  for c in "${cmds[@]}"; do
    case $c in
      tk-2) cmd=("$tk" sql --threads 2 "$in" -o "$db") ;;
      tk-1) cmd=("$tk" sql --threads 1 "$in" -o "$db") ;;
      perf-script) cmd=(perf script -i "$in") ;;
    esac
    /usr/bin/time -o "$db.time" -f "%e %U %S %M" "${cmd[@]}" > /dev/null 2>&1
    read -r e u s m < "$db.time"
    rm -f "$db" "$db.time"
    wall[$c]+="$e "
    cpu[$c]+="$(awk "BEGIN {print $u + $s}") "
    rss[$c]+="$m "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
printf "%-12s %10s %12s %10s %14s\n" command wall_s cpu_s rss_kb events_per_s
for c in "${cmds[@]}"; do
  w=$(echo "${wall[$c]}" | median)
  printf "%-12s %10s %12s %10s %14.0f\n" "$c" "$w" "$(echo "${cpu[$c]}" | median)" \
    "$(echo "${rss[$c]}" | median)" "$(echo "$events / $w" | bc -l)"
done
if [[ -x $here/build/bench/sql_bench ]]; then
  TK_SQL_BENCH_DATA=$in "$here/build/bench/sql_bench" \
    --benchmark_filter='BM_SqlParseOnly|BM_SqlLoadInMemory|BM_SqliteCeiling' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null | grep median
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
