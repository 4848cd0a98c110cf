#!/bin/sh
# Records the trace.dat fixtures of tests/trace_dat (run as root, from anywhere):
#
#   sched_block.v7.dat       trace-cmd 3.1.6 default: version 7, zstd-compressed sections
#   sched_block.v7none.dat.zst  the same converted with --compression none (zstd -19 on disk)
#   sched_block.v6.dat.zst      the same converted with --file-version 6 (no compression)
#   overrun.v7.dat           a tiny ring buffer overwritten many times: pages carry
#                            missed-event counts (flag bits in the page's commit word)
#
# `trace-cmd record` cannot enable ftrace on this machine, so events are enabled through
# tracefs by hand and the ring buffer is saved with `trace-cmd extract`. tracefs is global:
# the whole session holds /tmp/tk-tracefs.lock, and the EXIT trap restores it (events off,
# buffer size back, tracing_on 1).
set -eu
OUT=$(cd "$(dirname "$0")" && pwd)
T=/sys/kernel/tracing
if [ -z "${TK_TRACEFS_LOCKED:-}" ]; then
  TK_TRACEFS_LOCKED=1 exec flock /tmp/tk-tracefs.lock "$0" "$@"
fi
[ -w "$T/tracing_on" ] || { echo "SKIP: tracefs not writable at $T" >&2; exit 77; }
command -v trace-cmd >/dev/null || { echo "SKIP: no trace-cmd" >&2; exit 77; }

SAVED_KB=$(sed -E 's/.*expanded: ([0-9]+).*/\1/; s/ .*//' "$T/buffer_size_kb")
restore() {
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  echo > "$T/trace"
  echo "$SAVED_KB" > "$T/buffer_size_kb"
  echo 1 > "$T/tracing_on"
}
trap restore EXIT

# $1 = buffer KB per CPU; then events; the workload runs while tracing is on.
session() {
  kb=$1; shift
  echo 0 > "$T/tracing_on"
  echo 0 > "$T/events/enable"
  echo "$kb" > "$T/buffer_size_kb"
  echo > "$T/trace"
  for ev in "$@"; do echo 1 > "$T/events/$ev/enable"; done
  echo 1 > "$T/tracing_on"
}

WORK=$(mktemp -d)
# trace-cmd stores all of /proc/kallsyms (7 MB here); the fixtures do without: extract runs in
# a private mount namespace where /proc/kallsyms is an empty file.
: > "$WORK/empty"
extract() {
  (cd "$WORK" && unshare -m sh -c "mount --bind $WORK/empty /proc/kallsyms &&
    trace-cmd extract -o '$1'" >/dev/null 2>&1)
}
# 1. sched + block + an event with a __data_loc string (irq_handler_entry), small workload:
#    forks, sleeps, a synchronous write.
session 96 sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_wakeup_new \
  sched/sched_migrate_task sched/sched_process_fork sched/sched_process_exit \
  sched/sched_process_free sched/sched_process_exec sched/sched_stat_runtime \
  block/block_bio_queue block/block_getrq block/block_rq_insert block/block_rq_issue \
  block/block_rq_complete block/block_bio_backmerge block/block_bio_remap block/block_split \
  block/block_plug block/block_unplug block/block_io_start block/block_io_done \
  irq/irq_handler_entry
for i in 1 2 3; do sh -c 'echo hi >/dev/null; sleep 0.01'; done
dd if=/dev/zero of="$WORK/f" bs=4k count=16 oflag=sync 2>/dev/null
sleep 0.05
echo 0 > "$T/tracing_on"
rm -f "$OUT"/sched_block.*.dat "$OUT"/sched_block.*.zst
extract "$OUT/sched_block.v7.dat"
# The uncompressed variants hold ~2 MB of event formats: committed zstd-compressed (the
# tests decompress them).
trace-cmd convert -i "$OUT/sched_block.v7.dat" -o "$WORK/sched_block.v7none.dat" --compression none
trace-cmd convert -i "$OUT/sched_block.v7.dat" -o "$WORK/sched_block.v6.dat" --file-version 6 \
  --compression none
zstd -q -19 -f "$WORK/sched_block.v7none.dat" -o "$OUT/sched_block.v7none.dat.zst"
zstd -q -19 -f "$WORK/sched_block.v6.dat" -o "$OUT/sched_block.v6.dat.zst"

# 2. Overrun: 8 KB per CPU, overwritten by thousands of switches.
session 8 sched/sched_switch sched/sched_wakeup
for i in $(seq 1 300); do /bin/true; done
echo 0 > "$T/tracing_on"
rm -f "$OUT/overrun.v7.dat"
extract "$OUT/overrun.v7.dat"
rm -rf "$WORK"
# The oracle the tests compare with (-N: the events' own print formats, not the plugins;
# libtraceevent's sched_switch plugin prints 3.x state letters, W for I and X for Z).
for f in sched_block overrun; do
  trace-cmd report -N "$OUT/$f.v7.dat" > "$OUT/$f.report.txt" 2>/dev/null
done
ls -l "$OUT"/*.dat "$OUT"/*.zst
