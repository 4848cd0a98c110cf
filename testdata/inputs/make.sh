#!/bin/bash
# Makes the input fixtures of tests/inputs from the real recordings in ../perf_data (see
# README.md). Needs perf (the oracle for perf.data), python3, gzip/xz/zstd and FlameGraph's
# stackcollapse-perf.pl (FLAMEGRAPH=/tmp/FlameGraph; not committed).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
FLAMEGRAPH=${FLAMEGRAPH:-/tmp/FlameGraph}
P=../perf_data
mkdir -p reference compressed

python3 perf_data_edit.py empty-callchains $P/g.data empty-callchain.data 3
python3 perf_data_edit.py zero-feature $P/g.data zero-cpudesc.data 8

script() {  # FILE.data: perf script as testdata/perf_data/record.sh runs it
  (cd $P && perf --buildid-dir /nonexistent script -i "$here/$1" --symfs symfs --kallsyms kallsyms 2>/dev/null)
}
# perf reads both edited files; its text and perl's fold of it are the references.
script empty-callchain.data > reference/empty-callchain.script.txt
perl "$FLAMEGRAPH/stackcollapse-perf.pl" < reference/empty-callchain.script.txt \
  > reference/empty-callchain.folded
script zero-cpudesc.data > reference/zero-cpudesc.script.txt
cmp -s reference/zero-cpudesc.script.txt $P/g.script || { echo "perf reads zero-cpudesc.data differently"; exit 1; }
rm reference/zero-cpudesc.script.txt

# perf script text whose last stack has no blank line after it (a file cut short).
head -c -1 $P/g.script > cut-last-stack.txt

# Inputs that are no trace: perf's own reports.
(cd $P && perf --buildid-dir /nonexistent report --stdio -i g.data --symfs symfs --kallsyms kallsyms 2>/dev/null) > perf-report.txt

# Compressed perf script text.
head -n 40 $P/g.script > /tmp/tk-inputs-small.txt
gzip -9n < /tmp/tk-inputs-small.txt > compressed/g.script.gz
xz -9 < /tmp/tk-inputs-small.txt > compressed/g.script.xz
zstd -q -19 < /tmp/tk-inputs-small.txt > compressed/g.script.zst
bzip2 -9 < /tmp/tk-inputs-small.txt > compressed/g.script.bz2
rm /tmp/tk-inputs-small.txt
