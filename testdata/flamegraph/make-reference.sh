#!/usr/bin/env bash
# Regenerates testdata/flamegraph/reference/ with the real tools: flamegraph.pl and
# difffolded.pl of FlameGraph @41fee1f, perl 5.36:
#   TK_FLAMEGRAPH=/tmp/FlameGraph testdata/flamegraph/make-reference.sh
# These are the reference tool's outputs, never tk's (TK_BLESS does not touch them).
#   reference/diff*.txt   difffolded.pl [-n] [-s] input/before.folded input/after.folded, sorted
#                         (it prints in Perl hash order)
#   reference/NAME.svg    flamegraph.pl for each case of cases.txt, with PERL_HASH_SEED=0
#                         PERL_PERTURB_KEYS=0 (repeatable frame order). The <script> body,
#                         flamegraph.pl's own code, is cut out: tk's tests do not compare it.
set -euo pipefail
FG=${TK_FLAMEGRAPH:?set TK_FLAMEGRAPH to a FlameGraph checkout}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$here/reference
mkdir -p "$out"
rm -f "$out"/*.svg "$out"/*.txt
export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
for flags in "" -n -s -ns; do
  perl "$FG/difffolded.pl" $flags "$here/input/before.folded" "$here/input/after.folded" |
    LC_ALL=C sort > "$out/diff${flags}.txt"
done
grep -v '^#' "$here/cases.txt" | while read -r name input opts; do
  # shellcheck disable=SC2086
  (cd "$repo" && perl "$FG/flamegraph.pl" $opts "$input") 2>/dev/null |
    perl -0pe 's/<!\[CDATA\[\n.*?\]\]>/<![CDATA[\n]]>/s' > "$out/$name.svg"
done
echo "wrote $(ls "$out" | wc -l) files to $out"
