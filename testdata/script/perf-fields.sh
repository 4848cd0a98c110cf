#!/bin/sh
# Regenerates perf script's own output for tk script -F (tests/script/perf_shape_test.cc):
# reference data made by perf 6.1 (Debian 12), kept apart from tk's goldens (TK_BLESS never
# writes these). Host independent: symbols from the fixtures' symfs and kallsyms, an empty
# build-id cache. The tracepoint list is cut to its first 200 lines (the test compares as many).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pd="$here/../perf_data"
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
export PERF_BUILDID_DIR=$(mktemp -d)
trap 'rm -rf "$PERF_BUILDID_DIR"' EXIT
g() { perf script -i "$pd/g.data" --symfs "$pd/symfs" --kallsyms "$pd/kallsyms" -F "$1"; }
g comm,pid,tid,time,period,event,ip,sym,symoff > "$here/perf.g.F-comm-pid-tid-time-period-event-ip-sym-symoff.txt"
g tid,time,ip,dso > "$here/perf.g.F-tid-time-ip-dso.txt"
perf script -i "$here/../recorded/sched/sched.perf.data" -F comm,pid,tid,cpu,time,event,trace \
  2>/dev/null | head -200 > "$here/perf.sched.F-comm-pid-tid-cpu-time-event-trace.head200.txt"
perf --version
