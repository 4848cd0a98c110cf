#!/bin/bash
# Records tk report's own fixtures and writes perf report's outputs for them and for the
# perf.data fixtures of testdata/perf_data (run as root; the committed files make the tests
# independent of this host and of perf).
#
#   testdata/report/record.sh           # re-record cxx*.data, rewrite perf/*.txt
#   testdata/report/record.sh --oracle  # only rewrite perf/*.txt from the committed files
#
# Files:
#   workload.cc                 a libc-free static C++ program: every user frame resolves
#   symfs/tmp/tk-report-fixture/workload   its binary
#   cxx.data                    perf record -g -F 2000            (Children/Self)
#   cxx.nocg.data               perf record -F 2000 (no callchains: one Overhead column)
#   kallsyms                    /proc/kallsyms trimmed to what the stacks use
#   perf/NAME.MODE.txt          PERF_CONFIG=/dev/null perf report --stdio of NAME.data (made by
#                               perf: the reference, never rewritten by TK_BLESS)
set -euo pipefail
cd "$(dirname "$0")"
PD=../perf_data
BIN=/tmp/tk-report-fixture/workload
export PERF_BUILDID_DIR=/tmp/tk-report-fixture/buildid-cache  # keep ~/.debug out of it

if [ "${1:-}" != --oracle ]; then
  mkdir -p /tmp/tk-report-fixture symfs/tmp/tk-report-fixture
  g++ -O2 -fno-omit-frame-pointer -fno-exceptions -fno-rtti -fno-asynchronous-unwind-tables \
    -nostdlib -static -o "$BIN" workload.cc
  cp "$BIN" symfs/tmp/tk-report-fixture/workload
  rm -rf "$PERF_BUILDID_DIR"
  perf record -q -g -F 2000 -o cxx.data -- "$BIN"
  perf record -q -F 2000 -o cxx.nocg.data -- "$BIN"
  rm -f ./*.data.old
  # Trim kallsyms: every symbol a kernel frame resolved to, the symbol after it (where it
  # ends) and _text (the relocation reference).
  cp /proc/kallsyms /tmp/tk-report-fixture/kallsyms.full
  for f in cxx cxx.nocg; do
    perf --buildid-dir /nonexistent script -i $f.data --symfs symfs \
      --kallsyms /tmp/tk-report-fixture/kallsyms.full 2>/dev/null
  done | sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' |
    sort -u > /tmp/tk-report-fixture/used
  python3 - /tmp/tk-report-fixture/kallsyms.full /tmp/tk-report-fixture/used > kallsyms <<'PY'
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if "[" not in l]
used = set(l.strip() for l in open(sys.argv[2]))
by_addr = {}
for l in lines: by_addr.setdefault(int(l.split()[0], 16), []).append(l)
addrs = sorted(by_addr)
keep = set()
for i, a in enumerate(addrs):
    names = [l.split()[2] for l in by_addr[a]]
    if any(n in used for n in names) or "_text" in names:
        keep.add(a)
        if i + 1 < len(addrs): keep.add(addrs[i + 1])
for a in sorted(keep):
    for l in by_addr[a]: print(l)
PY
fi

# perf report's outputs, the parity tests' reference.
report() {  # DATA SYMFS KALLSYMS ARGS...
  local data=$1 symfs=$2 ksyms=$3
  shift 3
  PERF_CONFIG=/dev/null perf --buildid-dir /nonexistent report -i "$data" --symfs "$symfs" \
    --kallsyms "$ksyms" --stdio "$@" 2>/dev/null
}
FLAT=(-q --no-children -g none --sort comm,dso,sym -n --show-total-period --percent-limit 0)
CHILDREN=(-q --children -g none --sort comm,dso,sym -n --show-total-period --percent-limit 0)
mkdir -p perf
for f in cxx cxx.nocg; do
  report $f.data symfs kallsyms "${FLAT[@]}" > perf/$f.flat.txt
  report $f.data symfs kallsyms "${CHILDREN[@]}" > perf/$f.children.txt
  report $f.data symfs kallsyms -g none > perf/$f.default.txt
done
for f in g a multi z pipe; do
  report $PD/$f.data $PD/symfs $PD/kallsyms "${FLAT[@]}" > perf/$f.flat.txt
  report $PD/$f.data $PD/symfs $PD/kallsyms "${CHILDREN[@]}" > perf/$f.children.txt
done
report $PD/a.data $PD/symfs $PD/kallsyms -q --no-children -g none --sort pid,cpu -n > perf/a.pid-cpu.txt
report $PD/a.data $PD/symfs $PD/kallsyms --no-children -g none --comms workload \
  --percentage relative > perf/a.relative.txt
report $PD/a.data $PD/symfs $PD/kallsyms -q --no-children -g none --sort dso,sym \
  --dsos workload,libc.so.6 --percent-limit 0.5 > perf/a.filters.txt
report $PD/a.data $PD/symfs $PD/kallsyms -q --no-children -g none \
  -F sample,period,overhead,sym > perf/a.fields.txt
ls -la ./*.data kallsyms perf
