#!/bin/bash
# Records the "synchronous writes on a mount" fixture (docs/iolat.md) into OUTDIR:
#   writesync.perf.data        perf record -a -e 'block:*' -e sched:sched_switch -e sched:sched_wakeup
#                              minus block_{dirty,touch}_buffer (one per 4 KiB buffer head),
#                              block_{plug,unplug} and block_io_{start,done} (accounting twins
#                              of rq_issue/rq_complete): not used by I/O latency analysis, and
#                              without them every file stays < 2 MB.
#   writesync.trace.dat        the same run through tracefs, trace-cmd extract (v7, zstd)
#   writesync.v6.trace.dat     trace-cmd convert --file-version 6
#   writesync.perf-script.txt  perf script (default fields)
#   writesync.report.txt       trace-cmd report;  writesync.report-raw.txt: trace-cmd report -R
#   writesync.ftrace.txt       /sys/kernel/tracing/trace (default options)
#   writesync.ftrace-noirq.txt options/irq-info off; writesync.ftrace-tgid.txt record-tgid on
#   mountinfo.txt              /proc/self/mountinfo during the run (/, /proc, /sys, /dev, loops)
#   devices.txt                which MAJ,MIN is what (key=value lines)
#
# Workload (two 64 MiB ext4 images, 4 KiB blocks, on loop devices; backing files on the root
# fs; buffered loop, so their I/O reaches the backing device later, mostly outside the window):
#   A = /tmp/tk-mnt-sync  (mount -o sync)   dd if=/dev/zero of=A/f bs=64k count=64
#   B = /tmp/tk-mnt-async (default)         dd if=/dev/zero of=B/f bs=64k count=64; sync -f B
#                                           dd if=/dev/zero of=B/g bs=64k count=32 oflag=dsync
#
# Usage: record-iolat.sh OUTDIR      (root; exit 77 = skipped, with the reason on stderr)
# Env: TK_IOLAT_LOOP_ONLY=1 filters block events to the two loop devices in both captures
#      (the live test uses it: then every block event lies inside the workload).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-record.sh"

[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
tk_require_recording
command -v losetup >/dev/null || tk_skip "losetup not installed"
command -v mkfs.ext4 >/dev/null || tk_skip "mkfs.ext4 not installed"
[ -e /dev/loop-control ] || tk_skip "no /dev/loop-control (loop driver missing)"
tk_take_lock "$@"

out=$(mkdir -p "$1" && cd "$1" && pwd) || tk_die "cannot create $1"
work=/tmp/tk-rec-iolat
# perf writes into tmpfs: on the traced root fs its own writes would feed block:* back.
stage=/dev/shm/tk-rec-iolat
mnt_a=/tmp/tk-mnt-sync
mnt_b=/tmp/tk-mnt-async
loop_a=""
loop_b=""

# Detaches every loop device backed by one of our images (also from an earlier crashed run).
detach_ours() {
  local dev
  for dev in $(losetup -j "$work/a.img" -O NAME -n 2>/dev/null) \
             $(losetup -j "$work/b.img" -O NAME -n 2>/dev/null); do
    losetup -d "$dev" 2>/dev/null
  done
}

cleanup() {
  tk_perf_abort
  tk_tracefs_restore
  mountpoint -q "$mnt_a" && umount "$mnt_a"
  mountpoint -q "$mnt_b" && umount "$mnt_b"
  detach_ours
  rmdir "$mnt_a" "$mnt_b" 2>/dev/null
  rm -rf "$work" "$stage"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

cleanup  # leftovers of an interrupted run
mkdir -p "$work" "$stage" "$mnt_a" "$mnt_b"
for img in a b; do
  truncate -s 64M "$work/$img.img"
  # No lazy init: otherwise ext4lazyinit writes inode tables in the background during the run.
  mkfs.ext4 -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$work/$img.img" || tk_die "mkfs.ext4"
done
loop_a=$(losetup -f --show "$work/a.img") || tk_skip "cannot attach a loop device"
loop_b=$(losetup -f --show "$work/b.img") || tk_skip "cannot attach a loop device"
mount -o sync "$loop_a" "$mnt_a" || tk_die "mount -o sync $loop_a"
mount "$loop_b" "$mnt_b" || tk_die "mount $loop_b"

majmin() { printf '%d,%d' $((0x$(stat -c %t "$1"))) $((0x$(stat -c %T "$1"))); }
dev_a=$(majmin "$loop_a")
dev_b=$(majmin "$loop_b")
backing=$(findmnt -n -o SOURCE --target "$work")
backing_dev=$(mountpoint -d "$(findmnt -n -o TARGET --target "$work")" | tr : ,)

block_filter=""
if [ "${TK_IOLAT_LOOP_ONLY:-0}" = 1 ]; then
  # Tracepoint dev_t is MKDEV: major << 20 | minor.
  ka=$(( (${dev_a%,*} << 20) | ${dev_a#*,} ))
  kb=$(( (${dev_b%,*} << 20) | ${dev_b#*,} ))
  block_filter="dev == $ka || dev == $kb"
fi

sync; sleep 0.5   # quiet before the window
# Every block event of this kernel except the ones named in the header.
block_events=()
for d in "$TRACEFS"/events/block/*/; do
  case $(basename "$d") in
    block_dirty_buffer|block_touch_buffer|block_plug|block_unplug|block_io_start|block_io_done)
      continue ;;
  esac
  block_events+=("block/$(basename "$d")")
done
tk_tracefs_setup 4096 "${block_events[@]}" sched/sched_switch sched/sched_wakeup
# perf --filter applies to the preceding -e; the same filter goes to the tracefs event.
ev_args=()
for ev in "${block_events[@]}"; do
  ev_args+=(-e "${ev/\//:}")
  if [ -n "$block_filter" ] && grep -q '\bdev\b' "$TRACEFS/events/$ev/format"; then
    echo "$block_filter" > "$TRACEFS/events/$ev/filter"
    ev_args+=(--filter "$block_filter")
  fi
done
tk_perf_start "$stage/writesync.perf.data" "${ev_args[@]}" -e sched:sched_switch -e sched:sched_wakeup
tk_tracefs_start

dd if=/dev/zero of="$mnt_a/f" bs=64k count=64 2>/dev/null || tk_die "dd A"
dd if=/dev/zero of="$mnt_b/f" bs=64k count=64 2>/dev/null || tk_die "dd B"
sync -f "$mnt_b"
dd if=/dev/zero of="$mnt_b/g" bs=64k count=32 oflag=dsync 2>/dev/null || tk_die "dd B dsync"
sleep 0.2

awk '$5=="/" || $5=="/proc" || $5=="/sys" || $5=="/dev" || $5 ~ /^\/tmp\/tk-mnt-/' \
  /proc/self/mountinfo > "$out/mountinfo.txt"
tk_tracefs_stop
tk_perf_stop
mv -f "$stage/writesync.perf.data" "$out/" && chmod 644 "$out/writesync.perf.data"
TK_SAVE_SYSTEMS="block sched" tk_tracefs_save "$out/writesync"
tk_tracefs_restore

{
  echo "kernel=$(uname -r)"
  echo "sync_mount=$dev_a $loop_a $mnt_a"
  echo "default_mount=$dev_b $loop_b $mnt_b"
  echo "dsync_file=$dev_b $mnt_b/g"
  echo "backing=$backing_dev $backing"
  echo "loop_only_filter=${TK_IOLAT_LOOP_ONLY:-0}"
} > "$out/devices.txt"

tk_derive_texts "$out/writesync"
echo "recorded into $out:"
cat "$out/devices.txt"
