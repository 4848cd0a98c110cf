#!/usr/bin/env bash
# Records a big trace.dat for issue 16's scale targets (>= 1 GB): sched:* and block:* through
# tracefs into a ring buffer of PER_CPU_KB per CPU with overwrite off (it fills and stops),
# perf bench sched pipe + direct-I/O dd as the load, `trace-cmd extract`, then converted to v6
# uncompressed (what tk and trace-cmd report read fastest; the bytes are the events).
# Needs root, perf and trace-cmd; holds /tmp/tk-tracefs.lock and restores tracefs after.
#
#   bench/make-huge-trace-dat.sh OUT [PER_CPU_KB] [PIPE_LOOPS]   (defaults 800000, 8000000:
#                                                                  ~1.2-1.5 GB on 2 CPUs)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?output trace.dat}
kb=${2:-800000}
loops=${3:-8000000}
rec=$here/testdata/recorded
tmp=$(dirname "$out")/.huge.v7.trace.dat
flock /tmp/tk-tracefs.lock bash -c '
  set -euo pipefail
  source "'"$rec"'/lib-record.sh"
  mounted=0
  if [ ! -w "$TRACEFS/tracing_on" ]; then mount -t tracefs nodev "$TRACEFS"; mounted=1; fi
  overwrite=$(cat "$TRACEFS/options/overwrite")
  trap "echo $overwrite > \"$TRACEFS/options/overwrite\"; tk_tracefs_restore; ((mounted)) && umount \"$TRACEFS\" || true" EXIT
  tk_tracefs_setup '"$kb"' sched block
  echo 0 > "$TRACEFS/options/overwrite"
  tk_tracefs_start
  dd if=/dev/zero of="'"$out"'.dd" bs=4k count=200000 oflag=direct 2>/dev/null &
  perf bench sched pipe -l '"$loops"' >/dev/null 2>&1
  wait
  rm -f "'"$out"'.dd"
  tk_tracefs_stop
  trace-cmd extract -o "'"$tmp"'" >/dev/null 2>&1
'
trace-cmd convert --file-version 6 --compression none -i "$tmp" -o "$out" >/dev/null 2>&1
rm -f "$tmp"
ls -la "$out" >&2
