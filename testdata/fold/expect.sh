#!/bin/bash
# Makes expected/NAME-MODE.folded for every fixture here with stackcollapse-perf.pl and shows
# where tk differs. Usage: ./expect.sh /tmp/FlameGraph/stackcollapse-perf.pl path/to/tk
# Where tk and perl differ by design (":-1 -1" headers, which perl misparses), the expectation
# is tk's output after review of the diff printed here.
set -uo pipefail
cd "$(dirname "$0")"
perl_scp=$1; tk=$2
mkdir -p expected
for f in *-g.txt; do
  name=${f%.txt}
  for mode in default pid tid kernel jit all addrs; do
    fl=""; [ $mode != default ] && fl="--$mode"
    # perl reads no CRLF: feed it the LF text (tk must fold both the same).
    tr -d '\r' < "$f" > /tmp/expect_in.txt
    perl "$perl_scp" $fl /tmp/expect_in.txt > /tmp/expect_perl.txt 2>/tmp/expect_perl.err
    "$tk" fold $fl "$f" > /tmp/expect_tk.txt 2>/tmp/expect_tk.err
    if cmp -s /tmp/expect_perl.txt /tmp/expect_tk.txt; then
      cp /tmp/expect_perl.txt "expected/$name-$mode.folded"
    else
      echo "== $name $mode: tk differs from perl:"
      diff /tmp/expect_perl.txt /tmp/expect_tk.txt | head -6
      cp /tmp/expect_tk.txt "expected/$name-$mode.folded"
    fi
    grep -v '^Unrecognized line' /tmp/expect_perl.err > /tmp/expect_perl.err2
    grep -v '^tk: ' /tmp/expect_tk.err > /tmp/expect_tk.err2
    cmp -s /tmp/expect_perl.err2 /tmp/expect_tk.err2 ||
      { echo "== $name $mode: stderr differs"; head -3 /tmp/expect_perl.err /tmp/expect_tk.err; }
  done
done
