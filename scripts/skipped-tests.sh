#!/usr/bin/env bash
# Lists the tests of the last ctest run in BUILD_DIR that were skipped, each with the reason it
# gave (GTEST_SKIP() << reason), from BUILD_DIR/Testing/Temporary/LastTest.log.
#   scripts/skipped-tests.sh build
set -euo pipefail
log=${1:-build}/Testing/Temporary/LastTest.log
[ -f "$log" ] || { echo "no $log" >&2; exit 1; }
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3; reason = ""; grab = 0 }
  / Skipped$/ && !grab { grab = 1; next }
  grab && /^\[  SKIPPED \]/ { grab = 0 }
  grab { reason = reason (reason == "" ? "" : " ") $0 }
  /^Skip regular expression found/ { n++; printf "   skipped %s: %s\n", name, reason }
  END { printf "-- %d tests skipped\n", n }
' "$log"
