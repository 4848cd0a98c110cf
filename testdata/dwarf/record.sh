#!/bin/bash
# Records the --call-graph dwarf fixtures of tests/unwind (run as root on the recording host;
# the committed files make the tests independent of it). Needs perf 6.1, gcc, and
# stackcollapse-perf.pl from github.com/brendangregg/FlameGraph in $FLAMEGRAPH (not committed).
#
#   testdata/dwarf/record.sh
#
# unwind_fixture.c is recorded from /tmp/tk-dwarf/ (the binaries are not kept there: every ELF
# a stack needs comes from home/.debug, perf's build-id cache written by --buildid-all):
#   dwarf.data   -O2 -g -fomit-frame-pointer, --call-graph dwarf,4096
#   z.data       the same, -z (zstd)
#   pipe.data    the same, -o - (pipe mode)
#   trunc.data   --call-graph dwarf,1024 (most stacks cut at the dump edge)
#   static.data  a -static build (no .eh_frame_hdr: perf 6.1 shows the leaf only)
#   dbgframe.data a build whose own functions have only .debug_frame CFI (perf 6.1: leaf only)
#   fp.data      a -fno-omit-frame-pointer build recorded with -g (frame-pointer reference)
#   fpstatic.data the -static frame-pointer build recorded with -g
#   sys.data     -a --call-graph dwarf,2048 while the fixture runs (other processes' ELFs are
#                not shipped: their stacks are the leaf only, for perf and tk)
#   symfs/       the fixture binary, libc and ld.so at their recorded paths (z.data, pipe.data)
#   kallsyms     /proc/kallsyms trimmed to the symbols sys.data's kernel frames use
# Oracle outputs (perf's, never blessed by tk), with the cache as the only source of ELFs:
#   F.noinline.folded  perf script --no-inline -i F.data | stackcollapse-perf.pl
#   F.folded           perf script -i F.data | stackcollapse-perf.pl   (inline frames on)
set -euo pipefail
cd "$(dirname "$0")"
FLAMEGRAPH=${FLAMEGRAPH:-/tmp/FlameGraph}
W=/tmp/tk-dwarf
rm -rf "$W" home
mkdir -p "$W/empty" home  # perf creates .debug, not its parent
export PERF_BUILDID_DIR=$PWD/home/.debug
CFLAGS="-O2 -g -fomit-frame-pointer"
gcc $CFLAGS -o $W/unwind_fixture unwind_fixture.c
gcc $CFLAGS -static -o $W/unwind_static unwind_fixture.c
gcc -O2 -g -fno-omit-frame-pointer -o $W/unwind_fp unwind_fixture.c
gcc -O2 -g -fno-omit-frame-pointer -static -o $W/unwind_fpstatic unwind_fixture.c
gcc $CFLAGS -fno-asynchronous-unwind-tables -fno-unwind-tables -o $W/unwind_dbgframe unwind_fixture.c
R="perf --buildid-dir $PERF_BUILDID_DIR record -q -e cpu-clock:u -F 499 --buildid-all"
$R --call-graph dwarf,4096 -o dwarf.data -- $W/unwind_fixture 500
$R --call-graph dwarf,4096 -z -o z.data -- $W/unwind_fixture 300
$R --call-graph dwarf,4096 -o - -- $W/unwind_fixture 300 > pipe.data
$R --call-graph dwarf,1024 -o trunc.data -- $W/unwind_fixture 100
$R --call-graph dwarf,4096 -o static.data -- $W/unwind_static 100
$R --call-graph dwarf,4096 -o dbgframe.data -- $W/unwind_dbgframe 100
$R -g -o fp.data -- $W/unwind_fp 200
$R -g -o fpstatic.data -- $W/unwind_fpstatic 100
$W/unwind_fixture 400 & BG=$!
perf --buildid-dir $PERF_BUILDID_DIR record -q -a -e cpu-clock -F 199 --call-graph dwarf,2048 --buildid-all -o sys.data -- sleep 0.4
wait $BG
rm -f ./*.data.old
# Keep only the fixture's cache entries (the binaries, libc, ld.so, [vdso], and the libc6-dbg
# `debug` files perf copied beside libc and ld.so: this host has libc6-dbg, and perf reads it).
keep='unwind_|libc.so.6|ld-linux-x86-64|\[vdso\]'
find home/.debug -mindepth 1 -path home/.debug/.build-id -prune -o -type f -print |
  grep -Ev "$keep" | xargs -r rm -f
find home/.debug -xtype l -delete
# Smaller in git: the debug files' DWARF zlib-compressed (libdw reads SHF_COMPRESSED sections).
find home/.debug -name debug -type f | while read -r f; do
  objcopy --compress-debug-sections=zlib "$f" "$f.z" && mv "$f.z" "$f"
done
find home/.debug -type d -empty -delete

script() {  # FILE [perf script options]
  local f=$1; shift
  perf --buildid-dir "$PWD/home/.debug" script -i "$f" --kallsyms kallsyms "$@" 2>/dev/null
}
cp /proc/kallsyms $W/kallsyms.full
perf --buildid-dir "$PWD/home/.debug" script -i sys.data --no-inline --kallsyms $W/kallsyms.full 2>/dev/null |
  sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' | sort -u > $W/used
python3 ../../scripts/trim_kallsyms.py $W/kallsyms.full $W/used > kallsyms
for f in dwarf z pipe trunc static dbgframe fp fpstatic sys; do
  script $f.data --no-inline | perl "$FLAMEGRAPH/stackcollapse-perf.pl" > $f.noinline.folded
  script $f.data | perl "$FLAMEGRAPH/stackcollapse-perf.pl" > $f.folded
done
# z.data and pipe.data have no build ids (perf records none with -z or -o -): perf finds
# their ELFs at the recorded paths, tk's tests under symfs/ (the same files as in the cache).
rm -rf symfs && mkdir -p symfs/tmp/tk-dwarf symfs/usr/lib/x86_64-linux-gnu
cp $W/unwind_fixture symfs/tmp/tk-dwarf/
cp /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 symfs/usr/lib/x86_64-linux-gnu/
rm -rf "$W"
ls -la ./*.data kallsyms
du -sh home
