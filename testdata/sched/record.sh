#!/bin/sh
# Records testdata/sched/lost.perf.data: `perf sched record` (perf only, no tracefs) of
# `perf bench sched pipe` with a one-page ring buffer (-m 1), so that perf loses events and
# writes PERF_RECORD_LOST: the fixture for perf sched latency's "INFO: ... lost events" line
# and timehist's "lost N events on cpu C" rows. Then regenerates perf's outputs beside it.
# Needs root (perf sched record is system-wide). Exit 77 (SKIP) when that is not possible.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root" >&2; exit 77; }
out="$here/lost.perf.data"
tmp=$(mktemp /tmp/tk-sched-lost.XXXXXX)
trap 'rm -f "$tmp" "$tmp.old"' EXIT
perf sched record -m 1 -o "$tmp" -- perf bench sched pipe -l 2500 > /dev/null
chmod 644 "$tmp"
mv "$tmp" "$out"
perf sched latency -i "$out" > "$here/perf.lost.latency.txt"
perf sched timehist -i "$out" -s > "$here/perf.lost.timehist-s.txt"
perf sched timehist -i "$out" > "$here/perf.lost.timehist.txt"
ls -l "$out"
