#!/bin/bash
# Records the scheduler-latency fixture (docs/sched.md) into OUTDIR, one run captured twice:
#   sched.perf.data        perf sched record -e sched:sched_wakeup -e sched:sched_process_exit
#                          (= perf record -a -R -c 1 -m 1024 -e <its sched events> + those two)
#   sched.trace.dat        the same run through tracefs, trace-cmd extract (v7, zstd)
#   sched.v6.trace.dat     trace-cmd convert --file-version 6
#   sched.perf-script.txt  perf script (default fields)
#   sched.report.txt       trace-cmd report;  sched.report-raw.txt: trace-cmd report -R
#   sched.ftrace.txt       /sys/kernel/tracing/trace (default options)
#   sched.ftrace-noirq.txt options/irq-info off;  sched.ftrace-tgid.txt record-tgid on
#   sched.latency.txt      perf sched latency;  sched.latency-p.txt: perf sched latency -p
#   sched.timehist.txt     perf sched timehist
#   workload.txt           what ran (commands, pids of the named tasks)
#
# Events (perf sched record's set, those this kernel has): sched_switch, sched_wakeup,
# sched_waking, sched_wakeup_new, sched_migrate_task, sched_stat_runtime, sched_process_fork,
# sched_process_exit. (sched_stat_wait/sleep/iowait need schedstats tracepoints: absent here.)
#
# Workload, all at once, ~0.6 s: `perf bench sched pipe -l 1000` (two tasks ping-ponging
# through pipes), two busy loops (`busy1`, `busy2`: preempted, R+ at switch-out), two sleeper
# loops (`sleeper`, 20 × `sleep 0.01` each: fork/exec/exit, wakeup_new, S sleeps).
#
# Usage: record-sched.sh OUTDIR      (root; exit 77 = skipped, with the reason on stderr)
#        record-sched.sh --anchors-only DIR/sched   (re-derive the perf sched texts only)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-record.sh"

# perf sched's own analyses of the perf.data: the anchors for tk sched.
sched_anchors() {
  perf sched latency -i "$1.perf.data" > "$1.latency.txt" 2>/dev/null &&
    perf sched latency -p -i "$1.perf.data" > "$1.latency-p.txt" 2>/dev/null &&
    perf sched timehist -i "$1.perf.data" > "$1.timehist.txt" 2>/dev/null ||
    tk_die "perf sched latency/timehist failed on $1.perf.data"
}
if [ "${1:-}" = --anchors-only ]; then sched_anchors "$2"; exit 0; fi

kids=()
tk_cleanup_extra() {
  local k
  for k in "${kids[@]}"; do kill "$k" 2>/dev/null; done
}
# perf writes into tmpfs ($stage) so that its writes do not wake flushers into the trace.
tk_begin sched "$@"
for name in busy1 busy2 sleeper; do ln -s "$(command -v bash)" "$stage/$name"; done

events=()
for ev in sched_switch sched_wakeup sched_waking sched_wakeup_new sched_migrate_task \
          sched_stat_runtime sched_process_fork sched_process_exit; do
  [ -d "$TRACEFS/events/sched/$ev" ] && events+=("sched/$ev")
done
tk_tracefs_setup 4096 "${events[@]}"

# perf sched record passes unknown options on to perf record: start disabled, enable through
# the control fifo (tk_perf_start), stop with SIGINT; `sleep 60` is only its placeholder child.
# perf sched record 6.1 takes sched_waking instead of sched_wakeup when both exist and no
# sched_process_exit: add them, so both captures hold the same events.
extra=()
for ev in sched_wakeup sched_process_exit; do
  [ -d "$TRACEFS/events/sched/$ev" ] && extra+=(-e "sched:$ev")
done
TK_PERF_RECORD="perf sched record" TK_PERF_TAIL="-- sleep 60" \
  tk_perf_start "$stage/sched.perf.data" "${extra[@]}"
tk_tracefs_start

# Named workers: comm is the basename of the exec'd path, so run bash through symlinks.
"$stage/busy1" -c 'while :; do :; done' & kids+=($!)
"$stage/busy2" -c 'while :; do :; done' & kids+=($!)
"$stage/sleeper" -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  sleep 0.01; done' & s1=$!
"$stage/sleeper" -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  sleep 0.01; done' & s2=$!
perf bench sched pipe -l 1000 > "$stage/bench.txt" 2>&1
wait "$s1" "$s2"
kill "${kids[@]}" 2>/dev/null
wait "${kids[@]}" 2>/dev/null
sleep 0.05

tk_tracefs_stop
tk_perf_stop
mv -f "$stage/sched.perf.data" "$out/" && chmod 644 "$out/sched.perf.data"
TK_SAVE_SYSTEMS="sched" tk_tracefs_save "$out/sched"
tk_tracefs_restore

{
  echo "kernel=$(uname -r)"
  echo "events=${events[*]}"
  echo "busy1_pid=${kids[0]} busy2_pid=${kids[1]} sleeper_pids=$s1,$s2"
  echo "workload=perf bench sched pipe -l 1000; 2 busy loops; 2 x (20 x sleep 0.01)"
  sed 's/^/bench: /' "$stage/bench.txt"
} > "$out/workload.txt"

tk_derive_texts "$out/sched"
sched_anchors "$out/sched"
echo "recorded into $out"
