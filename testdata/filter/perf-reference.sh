#!/bin/sh
# Regenerates perf's own output under filters for the committed fixtures: the expected side of
# tests/filter/filter_cli_test.cc. perf's output is reference data: TK_BLESS never writes here.
# Needs perf 6.1 (Debian 12), the one the sched fixture's timehist outputs were made with.
#
#   testdata/filter/perf-reference.sh
#
# perf/a.FILTER.fields   perf script -F comm,pid,tid,cpu,time,event of testdata/perf_data/a.data
#                        (perf record -a -g: 2 CPUs, several processes) under each filter
# perf/a.FILTER.script   the same with perf script's default fields and stacks (for tk fold)
# perf/sched.*.fields    perf script -F ... of testdata/recorded/sched/sched.perf.data (tracepoints)
# perf/sched.timehist-*  perf sched timehist of testdata/recorded/sched/sched.perf.data
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/perf"
pd="$here/../perf_data"
sched="$here/../recorded/sched/sched.perf.data"
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
mkdir -p "$out"
ps() {  # NAME FILTER...
  name=$1; shift
  perf --buildid-dir /nonexistent script -i "$pd/a.data" --symfs "$pd/symfs" \
    --kallsyms "$pd/kallsyms" -F comm,pid,tid,cpu,time,event "$@" 2>/dev/null > "$out/a.$name.fields"
}
pss() {  # NAME FILTER...
  name=$1; shift
  perf --buildid-dir /nonexistent script -i "$pd/a.data" --symfs "$pd/symfs" \
    --kallsyms "$pd/kallsyms" "$@" 2>/dev/null > "$out/a.$name.script"
}
ps all
ps pid-17917 --pid 17917
ps pid-list --pid 17917,17166
ps tid-17651 --tid 17651
ps comms-grep-sh --comms grep,sh
ps cpu-1 -C 1
ps time-window --time 2477.05,2477.1
ps time-open-start --time ,2477.02
ps time-open-end --time 2477.1,
ps time-ranges --time '2477.01,2477.02 2477.08,2477.09'

ps pct-slice --time 10%/2
ps pct-slices --time 10%/1,10%/3
ps pct-dash --time 0%-10%,30%-40%
ps pct-one --time 25%
ps pct-cpu-dash --time 12.5%-50% -C 0
ps pid-cpu-time --pid 17917,17918 -C 0 --time 2477.02,
ps task-events-pid --show-task-events --pid 17917
ps task-events-cpu --show-task-events -C 1
pss pid-17917 --pid 17917
pss comms-workload --comms workload
pss cpu-1-time -C 1 --time 2477.05,2477.08
pss time-ranges --time '2477.01,2477.02 2477.08,2477.09'
# Tracepoints recorded by perf: the task is the sample's (for sched_switch, the task leaving).
sf() {  # NAME FILTER...
  name=$1; shift
  perf script -i "$sched" -F comm,pid,tid,cpu,time,event "$@" 2>/dev/null > "$out/sched.$name.fields"
}
sf pid-17714 --pid 17714
sf comms-time-cpu --comms sleep,busy1 --time 987.4, -C 0
th() {  # NAME ARGS...
  name=$1; shift
  perf sched timehist -i "$sched" "$@" > "$out/sched.timehist-$name.txt" 2>/dev/null
}
th t17714 -t 17714
th p-list-w -p 17713,17714 -w
th C1-time -C 1 --time 987.3,987.31
th s-p17714 -s -p 17714
th time-end --time ,987.32
th start-only --time 987.49
perf --version
