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
#
# The -p/-C and --time cases take their arguments from the recording, never from a former
# one: the pid with the most rows in perf's default output, the CPU where it has the most,
# and the middle tenth of the rows' time span. chain.derived-args holds them (one case a
# line: the reference's suffix, then its flags), which the test reads; every reference must
# have a minimum number of rows, so a new recording cannot silently make empty ones.
#
#   record-chain.sh          record, then make the references
#   record-chain.sh --refs   only re-make the references from the committed fixture
# Recording needs root (perf sched record is system wide), gcc and perf 6.1; the references
# perf 6.1. Exit 77 (SKIP) otherwise.
set -eu
# The references are perf 6.1's bytes (tk's --compat perf-6.1 is compared with them).
perf --version | grep -q '^perf version 6\.1\.' || { echo "record-chain.sh: needs perf 6.1" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
refs_only=false
[ "${1:-}" = --refs ] && refs_only=true
if ! $refs_only; then
  command -v gcc >/dev/null || { echo "SKIP: no gcc" >&2; exit 77; }
  [ "$(id -u)" = 0 ] || { echo "SKIP: not root" >&2; exit 77; }
fi
W=/tmp/tk-chain
rm -rf "$W" && mkdir -p "$W/buildid"
trap 'rm -rf "$W"' EXIT
out="$here/chain.perf.data"
if ! $refs_only; then
  gcc -O1 -g0 -fno-omit-frame-pointer -o "$W/pingpong" "$here/pingpong.c"
  cp /proc/kallsyms "$W/kallsyms.full"
  (cd "$W" && perf sched record -g -N -o "$W/chain.perf.data" -- ./pingpong 100 > /dev/null)
  chmod 644 "$W/chain.perf.data"
  mv "$W/chain.perf.data" "$out"
  perf --buildid-dir "$W/buildid" script -i "$out" --kallsyms "$W/kallsyms.full" 2>/dev/null |
    sed -nE 's/^\s+[0-9a-f]+ (.*)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/\1/p' | sort -u > "$W/used"
  python3 "$here/../../scripts/trim_kallsyms.py" "$W/kallsyms.full" "$W/used" > "$here/chain.kallsyms"
  rm -rf "$here/chain-symfs" && mkdir -p "$here/chain-symfs$W"
  cp "$W/pingpong" "$here/chain-symfs$W/"
fi
th() {  # OUTPUT-SUFFIX [perf sched timehist options]
  s=$1; shift
  perf --buildid-dir "$W/buildid" sched timehist -i "$out" --kallsyms "$here/chain.kallsyms" \
    --symfs "$here/chain-symfs" "$@" > "$here/perf.chain.timehist$s.txt"
}
rows() {  # REFERENCE-SUFFIX: its timehist rows ("   25165.589578 [0000]  comm[tid] ...")
  grep -cE '^ +[0-9]+\.[0-9]+ +\[[0-9]+\]' "$here/perf.chain.timehist$1.txt" || true
}
need() {  # REFERENCE-SUFFIX MIN-ROWS
  n=$(rows "$1")
  [ "$n" -ge "$2" ] || { echo "perf.chain.timehist$1.txt: $n rows, fewer than $2" >&2; exit 1; }
}
th ""
need "" 100
# The busiest task (most rows; its pid, for "comm[tid/pid]" the pid), the CPU where it has
# the most rows, and the middle tenth of the rows' span ("%.6f": perf's µs resolution).
main="$here/perf.chain.timehist.txt"
pid=$(awk 'NR > 3 && $3 ~ /\]$/ { t = $3; sub(/.*\[/, "", t); sub(/\]$/, "", t); sub(/.*\//, "", t);
             n[t]++ } END { for (p in n) if (n[p] > best || (n[p] == best && p + 0 < pick + 0)) {
             best = n[p]; pick = p }; print pick }' "$main")
cpu=$(awk -v pid="$pid" 'NR > 3 { t = $3; sub(/.*\[/, "", t); sub(/\]$/, "", t); sub(/.*\//, "", t);
             if (t == pid) { c = $2; gsub(/[][]/, "", c); n[c + 0]++ } }
             END { for (c in n) if (n[c] > best) { best = n[c]; pick = c }; print pick }' "$main")
window=$(awk 'NR > 3 && $1 ~ /^[0-9]+\.[0-9]+$/ { if (first == "") first = $1; last = $1 }
             END { d = last - first; printf "%.6f,%.6f", first + 0.45 * d, first + 0.55 * d }' "$main")
printf '%s\n' "-p-C -p $pid -C $cpu" "-time --time $window" > "$here/chain.derived-args"
th -call-graph -g
th -no-call-graph --no-call-graph
th -max-stack2 --max-stack 2
th -max-stack12 --max-stack 12
th -max-stack0 --max-stack 0
th -w-state -w --state
th -n-V -n -V
th -M-S -M -S
th -I-S -I -S
th -p-C -p "$pid" -C "$cpu"
th -time --time "$window"
for s in -call-graph -no-call-graph -max-stack2 -max-stack12 -max-stack0 -w-state -n-V -M-S; do
  need "$s" 100
done
need -I-S 1   # idle rows: only the idle task's switches
need -p-C 20
need -time 20
cat "$here/chain.derived-args"
ls -l "$out"
perf --version
