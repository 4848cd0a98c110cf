#!/usr/bin/env bash
# tk on a big trace.dat against trace-cmd report, timed as whole processes in the same run,
# alternating, RUNS times each (default 3): wall, CPU (user+sys) and peak RSS per run, then
# medians. Commands: tk sched timehist, tk script, tk iolat, tk sched latency with --threads 1
# and 2, and `trace-cmd report` (the anchor of all four). Input: bench/make-huge-trace-dat.sh.
#
#   bench/trace_dat_scale.sh TRACE_DAT [RUNS] [TK]
#
# Output goes to $TK_BENCH_OUT (default /dev/null; see bench/sched_scale.sh on containers where
# /dev/null is a regular file).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
f=${1:?trace.dat}
runs=${2:-3}
tk=${3:-$here/build/tk}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure() {  # NAME CMD...: one run, "NAME wall cpu rss_kb" into $out
  local name=$1; shift
  /usr/bin/time -f "$name %e %U %S %M" -o "$out.one" "$@" > "$sink" 2>/dev/null || true
  awk '{printf "%s %.2f %.2f %d\n", $1, $2, $3 + $4, $5}' "$out.one" >> "$out"
}
sink=${TK_BENCH_OUT:-/dev/null}
[ -c "$sink" ] || echo "trace_dat_scale: note: output $sink is not a character device (TK_BENCH_OUT)"
echo "input $(stat -c %s "$f") bytes; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < runs; r++)); do
  measure trace-cmd-report trace-cmd report -i "$f"
  for t in 1 2; do
    measure "timehist-t$t" "$tk" sched timehist --threads $t "$f"
    measure "script-t$t" "$tk" script --threads $t "$f"
    measure "iolat-t$t" "$tk" iolat --threads $t "$f"
    measure "latency-t$t" "$tk" sched latency --threads $t "$f"
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians per command: wall s, CPU s, peak RSS MB, and the anchor's wall and CPU over tk's.
sort -k1,1 -k2,2n "$out" | awk '
  { n[$1]++; w[$1, n[$1]] = $2; c[$1, n[$1]] = $3; m[$1, n[$1]] = $4 }
  function med(a, k, cnt,   i, v, t, j) { for (i = 1; i <= cnt; i++) v[i] = a[k, i];
    for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((cnt + 1) / 2)] }
  END {
    aw = med(w, "trace-cmd-report", n["trace-cmd-report"]); ac = med(c, "trace-cmd-report", n["trace-cmd-report"])
    printf "%-18s %8s %8s %8s %9s %9s\n", "command", "wall_s", "cpu_s", "rss_MB", "x_wall", "x_cpu"
    for (k in n) { mw = med(w, k, n[k]); mc = med(c, k, n[k]); mm = med(m, k, n[k])
      printf "%-18s %8.2f %8.2f %8.1f %9.1f %9.1f\n", k, mw, mc, mm / 1024, aw / mw, ac / mc } }' | sort
