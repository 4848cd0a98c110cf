#!/bin/bash
# Makes reference/NAME-MODE.folded for every fixture here with stackcollapse-perf.pl (the
# reference outputs: never written by tk or TK_BLESS) and expected/NAME-MODE.folded with tk
# (tk's goldens, also written by TK_BLESS=1), then shows where they differ.
# Usage: ./expect.sh /tmp/FlameGraph/stackcollapse-perf.pl path/to/tk
# Every difference must be one of the deviations README.md lists (tests/fold/golden_test.cc
# checks that line by line).
set -uo pipefail
cd "$(dirname "$0")"
perl_scp=$1; tk=$2
mkdir -p expected reference
for f in *-g.txt; do
  name=${f%.txt}
  for mode in default pid tid kernel jit all addrs; do
    fl=""; [ $mode != default ] && fl="--$mode"
    # perl reads no CRLF: feed it the LF text (tk must fold both the same).
    tr -d '\r' < "$f" > /tmp/expect_in.txt
    perl "$perl_scp" $fl /tmp/expect_in.txt > "reference/$name-$mode.folded" 2>/tmp/expect_perl.err
    "$tk" fold $fl "$f" > "expected/$name-$mode.folded" 2>/tmp/expect_tk.err
    if ! cmp -s "reference/$name-$mode.folded" "expected/$name-$mode.folded"; then
      echo "== $name $mode: tk differs from perl:"
      diff "reference/$name-$mode.folded" "expected/$name-$mode.folded" | head -6
    fi
    grep -v '^Unrecognized line' /tmp/expect_perl.err > /tmp/expect_perl.err2
    grep -v '^tk: ' /tmp/expect_tk.err > /tmp/expect_tk.err2
    cmp -s /tmp/expect_perl.err2 /tmp/expect_tk.err2 ||
      { echo "== $name $mode: stderr differs"; head -3 /tmp/expect_perl.err /tmp/expect_tk.err; }
  done
done
