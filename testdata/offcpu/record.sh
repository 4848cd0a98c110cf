#!/bin/bash
# Records the fixtures of testdata/offcpu/ (root, perf, gcc with static glibc). The outputs
# of perf itself are reference data for tk's tests; tk's own goldens are in expected/.
#
#   testdata/offcpu/record.sh            # re-record the fixtures here
#   testdata/offcpu/record.sh OUTDIR     # record into OUTDIR instead (the live test)
#
# Files:
#   workload.c               the recorded program (threads named oc-*, see its comment)
#   symfs/tmp/tk-offcpu-fixture/oc   its static binary (every user frame resolves in it)
#   kallsyms                 /proc/kallsyms trimmed to the symbols the stacks use and the
#                            symbol after each (where a symbol ends)
#   offcpu.data              perf record -a -g -e sched:sched_switch -e sched:sched_waking
#                            -e sched:sched_wakeup, filtered to switches from/to oc-* threads
#                            and wakeups of oc-* threads (keeps the file small; per oc-*
#                            thread nothing is missing)
#   offcpu.script.txt        perf script --symfs symfs --kallsyms kallsyms of it
#   offcpu-wakeup.script.txt perf script --ns (ns timestamps, as perf.data has) without the
#                            sched_waking events (the sched_wakeup path)
#   offcpu.timehist.txt      perf sched timehist --no-call-graph of it (the wait times)
set -euo pipefail
SRC=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (perf record -a)" >&2; exit 77; }
command -v perf > /dev/null || { echo "SKIP: no perf" >&2; exit 77; }
if [ $# -gt 0 ]; then
  mkdir -p "$1"
  cd "$1"
  D=$PWD/work
else
  cd "$SRC"
  D=/tmp/tk-offcpu-fixture   # the path the fixture's stacks name (symfs/tmp/...)
fi
BIN=$D/oc
mkdir -p $D symfs$D
gcc -static -O2 -fno-omit-frame-pointer -pthread -o $BIN "$SRC/workload.c" ||
  { echo "SKIP: cannot build the static workload (gcc, libc6-dev)" >&2; exit 77; }
cp $BIN symfs$BIN
export PERF_BUILDID_DIR=$D/buildid-cache   # keep ~/.debug out of it
rm -rf "$PERF_BUILDID_DIR"

SW='prev_comm ~ "oc-*" || next_comm ~ "oc-*"'
WK='comm ~ "oc-*"'
# perf stops once the workload printed "done" (every thread parked in pause()); the workload
# is killed only after that, so no oc-* thread exits inside the recording.
trap '[ -f $D/pid ] && kill "$(cat $D/pid)" 2> /dev/null; true' EXIT
record() {  # OUT
  rm -f $D/out $D/pid
  perf record -q -a -g -e sched:sched_switch --filter "$SW" \
    -e sched:sched_waking --filter "$WK" -e sched:sched_wakeup --filter "$WK" -o "$1" -- \
    sh -c "$BIN > $D/out & echo \$! > $D/pid; until grep -q done $D/out; do sleep 0.01; done"
  kill "$(cat $D/pid)"
  rm -f "$1.old" $D/pid
}
record offcpu.data

script() {  # FILE KALLSYMS [OPTIONS]
  perf --buildid-dir /nonexistent script -i "$1" --symfs symfs --kallsyms "$2" "${@:3}" 2>/dev/null
}
cp /proc/kallsyms $D/kallsyms.full
script offcpu.data $D/kallsyms.full |
  sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' | sort -u > $D/used
awk -v used=$D/used 'BEGIN { while ((getline l < used) > 0) want[l] = 1 }
  !/\[/ { a[NR] = $1; n[NR] = $3; line[NR] = $0; by[$1] = by[$1] (by[$1] == "" ? "" : "\n") $0 }
  END {
    # addresses in order; keep an address whose symbols are used (or _text) and the next one
    cnt = 0
    for (i = 1; i <= NR; i++) if (i in a && !(a[i] in seen)) { seen[a[i]] = 1; addr[++cnt] = a[i] }
    for (i = 1; i <= NR; i++) if (i in a && (want[n[i]] || n[i] == "_text")) hit[a[i]] = 1
    for (i = 1; i <= cnt; i++) if (hit[addr[i]]) { keep[addr[i]] = 1; if (i < cnt) keep[addr[i + 1]] = 1 }
    for (i = 1; i <= cnt; i++) if (keep[addr[i]]) print by[addr[i]]
  }' <(sort -s -k1,1 $D/kallsyms.full) > kallsyms
script offcpu.data kallsyms > offcpu.script.txt
cmp -s offcpu.script.txt <(script offcpu.data $D/kallsyms.full) ||
  { echo "trimmed kallsyms changes offcpu.data's perf script" >&2; exit 1; }
script offcpu.data kallsyms --ns |
  awk 'BEGIN { RS = ""; ORS = "\n\n" } !/ sched:sched_waking: /' > offcpu-wakeup.script.txt
perf sched timehist -i offcpu.data --no-call-graph > offcpu.timehist.txt 2>/dev/null
ls -la ./*.data ./*.txt kallsyms symfs$BIN
