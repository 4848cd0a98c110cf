#!/usr/bin/env bash
# Every issue-16 / issue-14 row in one sequence, for a quiet machine: the committed measure
# scripts one after another, each timing tk and its anchor alternately in the same run.
# docs/performance.md's "Quiet-machine figures" tables are this script's output.
#
#   bench/quiet_figures.sh [DIR]     (DIR: the inputs, default build/bench-inputs)
#
# DIR holds bench/make-inputs.sh --huge's files and perf-a-g.txt
# (bench/make-text-fold-input.sh DIR/perf-a-g.data DIR/perf-a-g.txt 160). More perf.data
# files to fold and report: TK_EXTRA_DATA="a.data b.data"; more texts: TK_EXTRA_TEXT.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$here/build/bench-inputs}
cd "$here"
echo "### build $(git rev-parse --short HEAD 2>/dev/null) $(date -u)"
for f in "$B/perf-a-g-big.data" ${TK_EXTRA_DATA:-} "$B/perf-a-g.data"; do
  bench/fold_perfdata_measure.sh "$f" 12 2>&1 | tail -10
done
for f in ${TK_EXTRA_DATA:-} "$B/perf-a-g-big.data" "$B/perf-a-g.data"; do
  echo "== report $f"
  bench/report_measure.sh "$f" 7 2>&1
done
for f in "$B/perf-a-g.txt" ${TK_EXTRA_TEXT:-}; do bench/text_fold_measure.sh "$f" 5 2>&1 | tail -12; done
bench/startup_measure.sh 30 2>&1 | tail -15
TK_BENCH_DIR=$B bench/sched_scale.sh -n 5 2>&1 | tail -10
[ -e "$B/huge.trace.dat" ] && TK_BENCH_OUT=/dev/null bench/trace_dat_scale.sh "$B/huge.trace.dat" 3 2>&1 | tail -14
echo "### done $(date -u)"
