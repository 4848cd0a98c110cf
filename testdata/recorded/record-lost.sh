#!/bin/bash
# Records a set WITH LOST EVENTS into OUTDIR, one run captured twice, both buffers far too
# small for the event rate:
#   lost.perf.data        perf record -a -m 1 (one 4 KiB data page per CPU) -e sched:sched_switch
#                         -e sched:sched_wakeup -e sched:sched_waking: PERF_RECORD_LOST records
#   lost.trace.dat        tracefs with buffer_size_kb 16 (overwrite mode: the oldest pages are
#                         overwritten; the pages read carry "missed events" counts), v7 zstd
#   lost.v6.trace.dat     trace-cmd convert --file-version 6
#   lost.perf-script.txt, lost.report.txt, lost.report-raw.txt, lost.ftrace*.txt  as elsewhere
#   lost.stats.txt        `perf report --stats` and `trace-cmd report --stat` (the anchors'
#                         loss figures)
# Workload: perf bench sched pipe -l 4000 (two tasks ping-ponging through pipes).
#
# Usage: record-lost.sh OUTDIR      (root; exit 77 = skipped, with the reason on stderr)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-record.sh"

tk_begin lost "$@"

tk_tracefs_setup 16 sched/sched_switch sched/sched_wakeup sched/sched_waking
tk_perf_start "$stage/lost.perf.data" -m 1 \
  -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
tk_tracefs_start
perf bench sched pipe -l 4000 > "$stage/bench.txt" 2>&1
tk_tracefs_stop
tk_perf_stop
mv -f "$stage/lost.perf.data" "$out/" && chmod 644 "$out/lost.perf.data"
TK_SAVE_SYSTEMS="sched" tk_tracefs_save "$out/lost"
tk_tracefs_restore

tk_derive_texts "$out/lost"
{
  echo "# perf report --stats -i lost.perf.data"
  perf report --stats -i "$out/lost.perf.data" 2>/dev/null
  echo "# trace-cmd report --stat -i lost.trace.dat"
  trace-cmd report --stat -i "$out/lost.trace.dat" 2>/dev/null
  echo "# perf bench sched pipe -l 4000"
  cat "$stage/bench.txt"
} > "$out/lost.stats.txt"
echo "recorded into $out"
