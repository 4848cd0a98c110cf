#!/bin/bash
# tk sched timehist vs perf sched timehist on a `perf sched record -g` file (callchains on every
# sched event), measured in the same run: N alternating runs of each, medians of CPU time
# (user+sys) and wall time, and the peak RSS. Both symbolize the kernel frames from this host's
# /proc/kallsyms copy and the user frames from the host's files (perf 6.1 names none of them:
# it ignores MMAP2), tk with the default rules and with --compat perf-6.1.
#
#   bench/timehist-chain.sh [FILE] [N]   (FILE default /tmp/tk-chain-bench.data, N default 5)
#
# A missing FILE is recorded first (root): perf sched record -g -- perf bench sched pipe
# -l 20000 (~40 MB). Not committed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
f=${1:-/tmp/tk-chain-bench.data}
n=${2:-5}
tk=${TK:-$here/build/tk}
if [ ! -e "$f" ]; then
  perf sched record -g -o "$f" -- perf bench sched pipe -l 20000 > /dev/null 2>&1
fi
ks=$(mktemp /tmp/tk-chain-kallsyms.XXXXXX)
trap 'rm -f "$ks" "$ks.t"' EXIT
cp /proc/kallsyms "$ks"
measure() {  # NAME COMMAND... : prints "NAME cpu wall rss" per run
  local name=$1; shift
  /usr/bin/time -f "%U %S %e %M" -o "$ks.t" "$@" > /dev/null 2>&1
  read -r u s e m < "$ks.t"
  echo "$name $(echo "$u + $s" | bc) $e $m"
}
runs=$(for i in $(seq "$n"); do
  measure tk "$tk" sched timehist --kallsyms "$ks" "$f"
  measure tk-compat "$tk" sched timehist --compat perf-6.1 --kallsyms "$ks" "$f"
  measure perf perf sched timehist -i "$f" --kallsyms "$ks"
done)
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for t in tk tk-compat perf; do
  rows=$(echo "$runs" | awk -v t="$t" '$1 == t')
  printf "%-10s cpu %6s s  wall %6s s  peak RSS %8s KB\n" "$t" \
    "$(echo "$rows" | cut -d" " -f2 | median)" "$(echo "$rows" | cut -d" " -f3 | median)" \
    "$(echo "$rows" | cut -d" " -f4 | sort -n | tail -1)"
done
echo "load average: $(cut -d" " -f1-3 /proc/loadavg), file: $f ($(du -h "$f" | cut -f1))"
