#!/bin/bash
# Records the fixture of tk irq / syscalls / cputop / memtop into OUTDIR:
#
# 1. One run captured twice (perf record -a and tracefs at the same time, lib-record.sh):
#      lttng.perf.data, lttng.trace.dat (v7 zstd), lttng.v6.trace.dat, lttng.perf-script.txt,
#      lttng.report.txt, lttng.report-raw.txt, lttng.ftrace.txt / -noirq / -tgid
#    Events: sched_switch, sched_migrate_task, irq:irq_handler_entry/exit,
#    irq:softirq_raise/entry/exit, raw_syscalls:sys_enter/exit, kmem:mm_page_alloc,
#    mm_page_free, mm_page_free_batched.
#    Workload (~0.05 s): dd 64 KiB blocks /dev/zero → a tmpfs file and back, 8 direct sync
#    4 KiB writes to disk (block interrupts), `ls`, `cat` of a missing file (errors).
#    The machine's other tasks are recorded too (-a): record on an idle machine (the
#    committed testdata/lttng/recorded was; on a busy one half the files were other tasks).
# 2. perf's own recorders, anchors for tk's --compat modes (perf-only files):
#      trace.perf.data   perf trace record of the same workload; trace.summary.txt is
#                        `perf trace -s -i trace.perf.data` (perf 6.1)
#      kmem.perf.data    perf kmem --page record of kmem_workload (`ls /`, `cat` of a missing
#                        file, 300 new files in /var/tmp for higher-order slab pages: perf
#                        kmem records system-wide with callchains, so the file is ~0.5 MB of
#                        synthesized mmaps plus a few thousand page events);
#                        kmem.stat.txt is `perf kmem --page stat -i kmem.perf.data`
#                        (TK_RECORD_ONLY=kmem records only these two)
#
# Each tracefs event but sched/* is filtered on `common_pid != <perf's pid>` (cleared after).
#
# Usage: record-lttng.sh OUTDIR      (root; exit 77 = skipped, with the reason on stderr)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-record.sh"

# Filters set on perf's own pid (below), cleared again on exit (lib-record.sh tk_cleanup).
clear_filters() {
  local f
  for f in "$TRACEFS"/events/{irq,raw_syscalls,kmem}/*/filter; do
    [ "$(cat "$f" 2>/dev/null)" = none ] || echo 0 > "$f" 2>/dev/null
  done
}
# perf (6.1 on kernel 6.18, seen here) records no tracepoint raised by an interrupt taken while
# the idle task runs, where tracefs does: on a quiet machine the perf side had no
# irq_handler_entry at all (tracefs: 34). One busy shell loop per CPU during the window keeps
# a task on every CPU, so both sides see the interrupts; the loops make no syscalls and no
# page events, only sched_switch/irq context in both files.
spinners=()
start_spinners() {
  local c
  for ((c = 0; c < $(nproc); c++)); do
    taskset -c "$c" sh -c 'while :; do :; done' &
    spinners+=($!)
  done
}
stop_spinners() {
  ((${#spinners[@]})) || return 0
  kill "${spinners[@]}" 2>/dev/null
  wait "${spinners[@]}" 2>/dev/null
  spinners=()
}
tk_cleanup_extra() { stop_spinners; clear_filters; }
tk_begin lttng "$@"

workload() {
  dd if=/dev/zero of="$stage/f" bs=64k count=32 2>/dev/null
  # Direct I/O to disk: one block interrupt per write.
  dd if=/dev/zero of=/var/tmp/tk-rec-lttng.img bs=4k count=8 oflag=direct,sync 2>/dev/null
  rm -f /var/tmp/tk-rec-lttng.img
  dd if="$stage/f" of=/dev/null bs=64k 2>/dev/null
  ls / > /dev/null
  cat /nonexistent/file 2>/dev/null
  rm -f "$stage/f"
}

# The small workload of kmem.perf.data (the anchor of --compat perf-kmem needs page events,
# not many of them).
kmem_workload() {
  ls / > /dev/null
  cat /nonexistent/file 2>/dev/null
  # 300 new inodes on the root file system: ext4_inode_cache grows by new slabs, which the
  # page allocator hands out as order-2 blocks (seen here: orders 0-5 system-wide, 2 from
  # this loop), so --compat perf-kmem's 2^order pages and order table are real, not order 0
  # only.
  local d i
  d=$(mktemp -d /var/tmp/tk-rec-kmem.XXXXXX)
  for ((i = 0; i < 300; i++)); do : > "$d/f$i"; done
  rm -rf "$d"
}

record_kmem() {
  export -f kmem_workload
  perf kmem --page record -q -o "$out/kmem.perf.data" -- bash -c kmem_workload >/dev/null 2>&1 ||
    tk_die "perf kmem --page record failed"
  perf kmem -i "$out/kmem.perf.data" --page stat > "$out/kmem.stat.txt" 2>/dev/null ||
    tk_die "perf kmem --page stat failed"
  chmod 644 "$out/kmem.perf.data"
}
# TK_RECORD_ONLY=kmem: only kmem.perf.data and kmem.stat.txt (its recording is independent of
# the run captured twice, which then stays as it was).
if [ "${TK_RECORD_ONLY:-}" = kmem ]; then
  record_kmem
  echo "recorded kmem.perf.data into $out"
  exit 0
fi

events=(sched/sched_switch sched/sched_migrate_task irq/irq_handler_entry irq/irq_handler_exit
        irq/softirq_raise irq/softirq_entry irq/softirq_exit raw_syscalls/sys_enter
        raw_syscalls/sys_exit kmem/mm_page_alloc kmem/mm_page_free kmem/mm_page_free_batched)
perf_ev=()
# --exclude-perf: perf's own syscalls and page allocations (reading its buffers) would be
# most of the file; the tracefs side gets the same filter on perf's pid.
for ev in "${events[@]}"; do perf_ev+=(-e "${ev/\//:}" --exclude-perf); done
tk_tracefs_setup 8192 "${events[@]}"
start_spinners
tk_perf_start "$stage/lttng.perf.data" -m 1024 "${perf_ev[@]}"
for ev in "${events[@]}"; do
  case $ev in sched/*) ;; *) echo "common_pid != $TK_PERF_PID" > "$TRACEFS/events/$ev/filter" ;; esac
done
tk_tracefs_start
workload
tk_tracefs_stop
tk_perf_stop
stop_spinners
clear_filters
mv -f "$stage/lttng.perf.data" "$out/" && chmod 644 "$out/lttng.perf.data"
TK_SAVE_SYSTEMS="sched irq raw_syscalls kmem" tk_tracefs_save "$out/lttng"
tk_tracefs_restore
tk_derive_texts "$out/lttng"

# perf's own recorders (no tracefs): the anchors' inputs.
export -f workload kmem_workload; export stage
perf trace record -q -o "$out/trace.perf.data" -- bash -c workload >/dev/null 2>&1 ||
  tk_die "perf trace record failed"
perf trace -s -i "$out/trace.perf.data" > "$out/trace.summary.txt" 2>&1 ||
  tk_die "perf trace -s failed"
record_kmem
chmod 644 "$out"/*.perf.data
echo "recorded into $out"
