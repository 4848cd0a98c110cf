#!/bin/bash
# Records offcpu.trace.dat: the workload of record.sh (workload.c, threads oc-*) traced with
# a kernel stack trace per sched_switch (tracefs' options/stacktrace: every recorded event is
# followed by a kernel_stack record on its CPU), then `trace-cmd extract`, for `tk fold
# --off-cpu` on trace.dat. (`trace-cmd record -T` does the same but cannot start here: it
# fails to write ftrace_enabled in this VM.) Root; holds /tmp/tk-tracefs.lock while it uses
# tracefs (other recorders share it) and restores what it changed.
#
#   testdata/offcpu/record-tracedat.sh           # re-record here
#
# Files:
#   offcpu.trace.dat   sched:sched_switch filtered to switches from/to oc-* threads, each
#                      with its kernel stack (the file's saved kallsyms name the frames)
#   offcpu.trace.txt   trace-cmd report of it (reference: the "<stack trace>" blocks)
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (tracefs)" >&2; exit 77; }
command -v trace-cmd > /dev/null || { echo "SKIP: no trace-cmd" >&2; exit 77; }
cd "$SRC"
D=/tmp/tk-offcpu-fixture
BIN=$D/oc
mkdir -p $D
gcc -static -O2 -fno-omit-frame-pointer -pthread -o $BIN "$SRC/workload.c" ||
  { echo "SKIP: cannot build the static workload (gcc, libc6-dev)" >&2; exit 77; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
trap '[ -f $D/pid ] && kill "$(cat $D/pid)" 2> /dev/null; true' EXIT
rm -f $D/out $D/pid
export T=/sys/kernel/tracing SW='prev_comm ~ "oc-*" || next_comm ~ "oc-*"' BIN D
flock /tmp/tk-tracefs.lock bash -c '
  set -eu
  on=$(cat $T/tracing_on); st=$(cat $T/options/stacktrace)
  restore() {
    echo 0 > $T/events/sched/sched_switch/enable
    echo 0 > $T/events/sched/sched_switch/filter
    echo $st > $T/options/stacktrace
    echo > $T/trace
    echo $on > $T/tracing_on
  }
  trap restore EXIT
  echo 0 > $T/tracing_on
  echo > $T/trace
  echo "$SW" > $T/events/sched/sched_switch/filter
  echo 1 > $T/options/stacktrace
  echo 1 > $T/events/sched/sched_switch/enable
  echo 1 > $T/tracing_on
  $BIN > $D/out & echo $! > $D/pid
  until grep -q done $D/out; do sleep 0.01; done
  echo 0 > $T/tracing_on
  trace-cmd extract -o offcpu.trace.dat > /dev/null
'
kill "$(cat $D/pid)"
rm -f $D/pid
trace-cmd report -i offcpu.trace.dat > offcpu.trace.txt
