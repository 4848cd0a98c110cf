#!/usr/bin/env bash
# Generates the inputs of bench/lttng_bench (tk irq / syscalls / cputop / memtop) into DIR
# (default build/bench-inputs). Recorded here, never committed. Needs root.
#
#   lttng.trace.dat   tracefs (sched_switch, sched_migrate_task, irq:*, raw_syscalls:*,
#                     kmem:mm_page_*), 3 s under a dd / compile / compress load, saved with
#                     trace-cmd extract (v7, zstd). Holds /tmp/tk-tracefs.lock.
#   trace-big.perf.data  perf trace record -- dd bs=1 count=150000 (~65 MB: 300k syscall
#                     samples), the input of `perf trace -s` vs `tk syscalls --compat perf-trace`
#
# Without these, bench/lttng_bench falls back to the small committed fixtures of
# testdata/lttng/recorded (numbers from those are not figures). Existing files are kept.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$here/build/bench-inputs}
mkdir -p "$dir"
[ "$(id -u)" = 0 ] || { echo "make-lttng-inputs: needs root" >&2; exit 1; }

if [ ! -e "$dir/trace-big.perf.data" ]; then
  echo "make-lttng-inputs: recording trace-big.perf.data" >&2
  perf trace record -q -o "$dir/trace-big.perf.data" -- \
    dd if=/dev/zero of=/dev/null bs=1 count=150000 >/dev/null 2>&1
fi

if [ ! -e "$dir/lttng.trace.dat" ]; then
  echo "make-lttng-inputs: recording lttng.trace.dat" >&2
  . "$here/testdata/recorded/lib-record.sh"
  record() {
    trap 'tk_tracefs_restore' EXIT
    tk_tracefs_setup 16384 sched/sched_switch sched/sched_migrate_task irq raw_syscalls \
      kmem/mm_page_alloc kmem/mm_page_free kmem/mm_page_free_batched
    tk_tracefs_start
    local end=$((SECONDS + 3))
    while ((SECONDS < end)); do
      dd if=/dev/zero of=/dev/null bs=4k count=2000 2>/dev/null
      tar -cf - /usr/include/linux 2>/dev/null | gzip -1 > /dev/null
    done
    tk_tracefs_stop
    trace-cmd extract -o "$1" >/dev/null 2>&1
  }
  export -f record
  flock /tmp/tk-tracefs.lock bash -c ". '$here/testdata/recorded/lib-record.sh'; $(declare -f record); record '$dir/lttng.trace.dat'"
fi
ls -la "$dir"/lttng.trace.dat "$dir"/trace-big.perf.data
