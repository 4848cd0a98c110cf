#!/bin/sh
# Regenerates perf's own output for the recorded sched fixture: the expected side of
# tests/sched/sched_cli_test.cc (tk sched ... --compat perf-6.1 must equal these byte for byte).
# Needs the perf that recorded it (perf 6.1, Debian 12: `perf version 6.1.x`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
f="$here/../recorded/sched/sched.perf.data"
command -v perf >/dev/null || { echo "SKIP: no perf" >&2; exit 77; }
perf sched latency -i "$f" > "$here/perf.latency.txt"
perf sched latency -i "$f" -p > "$here/perf.latency-p.txt"
perf sched latency -i "$f" -s max > "$here/perf.latency-s-max.txt"
perf sched timehist -i "$f" > "$here/perf.timehist.txt"
perf sched timehist -i "$f" -s > "$here/perf.timehist-s.txt"
perf sched timehist -i "$f" -w > "$here/perf.timehist-w.txt"
perf sched timehist -i "$f" --state > "$here/perf.timehist-state.txt"
perf sched timehist -i "$f" -C 0 > "$here/perf.timehist-C0.txt"
perf sched timehist -i "$f" -p 17713 > "$here/perf.timehist-p17713.txt"
perf sched timehist -i "$f" -s -C 1 > "$here/perf.timehist-s-C1.txt"
perf sched timehist -i "$f" -S -M --time 987.35, > "$here/perf.timehist-S-M-time.txt"
perf sched timehist -i "$f" -I > "$here/perf.timehist-I.txt"
perf sched timehist -i "$f" -I -s > "$here/perf.timehist-I-s.txt"
perf sched timehist -i "$f" -I -S -V -C 0 > "$here/perf.timehist-I-S-V-C0.txt"
perf sched timehist -i "$f" -V --time 987.30,987.31 > "$here/perf.timehist-V-time.txt"
perf sched timehist -i "$f" -V -w -M --time 987.30,987.31 > "$here/perf.timehist-V-w-M-time.txt"
perf --version
