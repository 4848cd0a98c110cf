#!/bin/bash
# Records the i386-ABI fixtures of tests/unwind (run as root on the recording host, after
# record.sh: it adds to record.sh's build-id cache instead of rewriting it). Needs perf 6.1,
# gcc-multilib (scripts/install-deps.sh) and stackcollapse-perf.pl in $FLAMEGRAPH.
#
#   testdata/dwarf/record32.sh
#
#   m32.data     unwind_fixture.c built -m32 -O2 -g -fomit-frame-pointer,
#                --call-graph dwarf,4096. perf 6.1 (Debian) does not unwind it at all
#                ("unwind: target platform=x86 is not supported": no libunwind-x86 in the
#                build), so its stacks are empty in perf script.
#   fp32.data    the -m32 -fno-omit-frame-pointer build recorded with -g: the reference for
#                the program's own frames (the kernel walks the frame pointers).
#   ../../fuzz/corpus/perf_data/dwarf-m32.data  11 samples of m32's binary, dwarf,1024
# Oracle outputs, as record.sh's: F.noinline.folded = perf script --no-inline | stackcollapse.
set -euo pipefail
cd "$(dirname "$0")"
FLAMEGRAPH=${FLAMEGRAPH:-/tmp/FlameGraph}
W=/tmp/tk-dwarf
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$W" "$T/.debug"
gcc -m32 -O2 -g -fomit-frame-pointer -o $W/unwind_m32 unwind_fixture.c
gcc -m32 -O2 -g -fno-omit-frame-pointer -o $W/unwind_fp32 unwind_fixture.c
R="perf --buildid-dir $T/.debug record -q -e cpu-clock:u -F 499 --buildid-all"
$R --call-graph dwarf,4096 -o m32.data -- $W/unwind_m32 200
$R -g -o fp32.data -- $W/unwind_fp32 200
# A small one for the perf.data fuzz target's seeds (the same binary, so the same cache entry).
$R --call-graph dwarf,1024 -o ../../fuzz/corpus/perf_data/dwarf-m32.data -- $W/unwind_m32 10
rm -f ./*.data.old
# Keep the binaries', the i386 libc's and ld.so's and the 32-bit [vdso]'s entries, and merge
# them into record.sh's cache (home/.debug).
keep='unwind_|libc.so.6|ld-linux.so.2|\[vdso\]'
find "$T/.debug" -mindepth 1 -path "$T/.debug/.build-id" -prune -o -type f -print |
  grep -Ev "$keep" | xargs -r rm -f
find "$T/.debug" -xtype l -delete
find "$T/.debug" -type d -empty -delete
cp -a "$T/.debug/." home/.debug/
for f in m32 fp32; do
  perf --buildid-dir "$PWD/home/.debug" script -i $f.data --no-inline --kallsyms kallsyms 2>/dev/null |
    perl "$FLAMEGRAPH/stackcollapse-perf.pl" > $f.noinline.folded
done
rm -f $W/unwind_m32 $W/unwind_fp32
