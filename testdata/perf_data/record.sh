#!/bin/bash
# Records the perf.data fixtures of tests/perf_data (run as root on the recording host; the
# committed outputs make the tests independent of it). Needs perf, gcc, and
# stackcollapse-perf.pl from github.com/brendangregg/FlameGraph in $FLAMEGRAPH (not committed).
#
#   testdata/perf_data/record.sh            # re-record everything
#
# Files:
#   workload.c                   the recorded program; symfs/tmp/tk-perf-fixture/workload its binary
#   g.data     perf record -g                      (user workload, frame pointers)
#   a.data     perf record -a -g sleep 0.15        (system-wide, dummy side-band attr)
#   multi.data perf record -e cpu-clock -e task-clock -g
#   z.data     perf record -z -g                   (zstd COMPRESSED records)
#   pipe.data  perf record -g -o - > pipe.data     (pipe mode)
#   killed.data perf record killed with -9         (data size 0 in the header)
#   kallsyms   /proc/kallsyms trimmed to the symbols the stacks use, their aliases and the
#              symbol after each (which sets where a symbol ends), so results are unchanged
#   *.script   perf script --symfs symfs --kallsyms kallsyms (no build-id cache) of each
#   *.folded   that piped through stackcollapse-perf.pl
set -euo pipefail
cd "$(dirname "$0")"
FLAMEGRAPH=${FLAMEGRAPH:-/tmp/FlameGraph}
BIN=/tmp/tk-perf-fixture/workload
mkdir -p /tmp/tk-perf-fixture symfs/tmp/tk-perf-fixture
gcc -O2 -fno-omit-frame-pointer -o "$BIN" workload.c
cp "$BIN" symfs/tmp/tk-perf-fixture/workload
export PERF_BUILDID_DIR=/tmp/tk-perf-fixture/buildid-cache   # keep ~/.debug out of it
rm -rf "$PERF_BUILDID_DIR"

perf record -q -g -o g.data -- "$BIN" 90 >/dev/null
perf record -q -a -g -o a.data -- sh -c "$BIN 30 >/dev/null" 
perf record -q -e cpu-clock -e task-clock -g -o multi.data -- "$BIN" 45 >/dev/null
perf record -q -z -g -o z.data -- "$BIN" 45 >/dev/null
perf record -q -g -o - -- "$BIN" 45 2>/dev/null > pipe.data
perf record -q -m 8 -g -o killed.data -- "$BIN" 100000 >/dev/null 2>&1 &
sleep 1; kill -9 $!; wait $! 2>/dev/null || true
pkill -9 -f "$BIN 100000" || true
rm -f ./*.data.old  # perf keeps the previous recording as FILE.old

script() {  # FILE KALLSYMS
  perf --buildid-dir /nonexistent script -i "$1" --symfs symfs --kallsyms "$2" 2>/dev/null
}
# Trim kallsyms: keep every symbol at an address a stack resolved to, the symbols at the next
# address, and _text.
cp /proc/kallsyms /tmp/tk-perf-fixture/kallsyms.full
for f in g a multi z pipe; do script $f.data /tmp/tk-perf-fixture/kallsyms.full; done |
  sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' | sort -u > /tmp/tk-perf-fixture/used
python3 ../../scripts/trim_kallsyms.py /tmp/tk-perf-fixture/kallsyms.full /tmp/tk-perf-fixture/used > kallsyms
for f in g a multi z pipe; do
  script $f.data kallsyms > $f.script
  cmp -s $f.script <(script $f.data /tmp/tk-perf-fixture/kallsyms.full) || { echo "trimmed kallsyms changes $f"; exit 1; }
  perl "$FLAMEGRAPH/stackcollapse-perf.pl" < $f.script > $f.folded
done
# --event-filter on the two-event recording
perl "$FLAMEGRAPH/stackcollapse-perf.pl" --event-filter=task-clock < multi.script > multi.task-clock.folded
ls -la *.data kallsyms symfs/tmp/tk-perf-fixture/workload
