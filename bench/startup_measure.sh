#!/usr/bin/env bash
# Issue 16's startup target, as whole processes: the fixed cost of a tiny input (task-clock:
# CPU of all threads, `perf stat -r N`) of every command that symbolizes, and the host files
# each one reads (strace: opens and stats outside the input, the source tree and the shared
# libraries the loader maps). Target: <= 15 ms; no host file the input does not need.
#
#   bench/startup_measure.sh [N] [TK]   (N runs each, default 30; TK default build/tk)
#
# Inputs: testdata/perf_data/z.data (no kernel build id: the host's kernel symbols, from
# perf's build-id cache copy of kallsyms when it is current, else /proc/kallsyms),
# testdata/perf_data/g.data (user and kernel frames), testdata/report/cxx.data with its
# shipped ELF and kallsyms, testdata/sched/chain.perf.data (sched timehist -g). perf report
# on z.data is timed in the same run as the anchor; `report --no-host-kallsyms` on z.data is
# the same run without the host's kernel symbols: the difference to `report` is what loading
# them costs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-30}
tk=${2:-$here/build/tk}
td=$here/testdata
z=$td/perf_data/z.data
fix="--no-buildid-cache --symfs $td/report/symfs --kallsyms $td/report/kallsyms"
chain="--no-buildid-cache --no-host-kallsyms --kallsyms $td/sched/chain.kallsyms --symfs $td/sched/chain-symfs"
export PERF_CONFIG=/dev/null
cmds=(
  "$tk fold $z"
  "$tk report $z"
  "$tk report --no-host-kallsyms $z"
  "$tk pprof -o /dev/null $z"
  "$tk script $z"
  "$tk flamegraph $z"
  "$tk fold $td/perf_data/g.data"
  "$tk report $fix $td/report/cxx.data"
  "$tk sched timehist -g $chain $td/sched/chain.perf.data"
  "$tk help"
  "perf report --stdio -i $z"
)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in "${cmds[@]}"; do
  ms=$(perf stat -x, -r "$n" -e task-clock $c 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.1f", $1}')
  # Files opened or looked at, less the input, the tree's own files and the loader's work.
  files=$(strace -f -qq -e trace=openat,open,stat,newfstatat,statx,readlink,access $c 2>&1 >/dev/null |
    grep -oE '"/[^"]*"' | tr -d '"' | grep -vE "^$here/|\.so(\.[0-9.]+)?$|^/etc/ld\.so" |
    sort -u | tr "\n" " " || true)
  what=${c#"$tk "}
  what=${what//"$td/"/}
  printf '%-44s %6s ms  %s\n' "${what:0:44}" "$ms" "${files:--}"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
