#!/bin/sh
# Records testdata/sched/chain.perf.data: `perf sched record -g` (system wide, callchains on
# every sched event) of pingpong.c, two processes handing a byte over pipes 100 times, and
# regenerates perf's own `perf sched timehist` outputs beside it (perf.chain.*.txt: the
# expected side of tests/sched/sched_chain_test.cc under --compat perf-6.1).
# The fixture does not depend on the recording host:
#   chain.kallsyms     /proc/kallsyms trimmed to the symbols the recorded kernel frames use
#                      (module symbols dropped: their frames are [unknown] for perf and tk)
#   chain-symfs/       the pingpong binary at its recorded path (--symfs); no other ELF, so
#                      every other user frame (libc, the other processes) is [unknown]
# perf reads only these: --kallsyms, --symfs and an empty build-id cache (--buildid-dir).
# Needs root (perf sched record is system wide), gcc and perf 6.1. Exit 77 (SKIP) otherwise.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root" >&2; exit 77; }
W=/tmp/tk-chain
rm -rf "$W" && mkdir -p "$W/buildid"
trap 'rm -rf "$W"' EXIT
gcc -O1 -g0 -fno-omit-frame-pointer -o "$W/pingpong" "$here/pingpong.c"
cp /proc/kallsyms "$W/kallsyms.full"
out="$here/chain.perf.data"
(cd "$W" && perf sched record -g -N -o "$W/chain.perf.data" -- ./pingpong 100 > /dev/null)
chmod 644 "$W/chain.perf.data"
mv "$W/chain.perf.data" "$out"
perf --buildid-dir "$W/buildid" script -i "$out" --kallsyms "$W/kallsyms.full" 2>/dev/null |
  sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' | sort -u > "$W/used"
python3 "$here/../../scripts/trim_kallsyms.py" "$W/kallsyms.full" "$W/used" > "$here/chain.kallsyms"
rm -rf "$here/chain-symfs" && mkdir -p "$here/chain-symfs$W"
cp "$W/pingpong" "$here/chain-symfs$W/"
th() {  # OUTPUT-SUFFIX [perf sched timehist options]
  s=$1; shift
  perf --buildid-dir "$W/buildid" sched timehist -i "$out" --kallsyms "$here/chain.kallsyms" \
    --symfs "$here/chain-symfs" "$@" > "$here/perf.chain.timehist$s.txt"
}
th ""
th -call-graph -g
th -no-call-graph --no-call-graph
th -max-stack2 --max-stack 2
th -max-stack12 --max-stack 12
th -max-stack0 --max-stack 0
th -w-state -w --state
th -n-V -n -V
th -M-S -M -S
th -I-S -I -S
th -p26769-C1 -p 26769 -C 1
th -time --time 25165.5915,25165.5920
ls -l "$out"
perf --version
