#!/bin/bash
# Prints the per-event count table of a recorded set for its README, from the anchor tools:
#   count-events.sh DIR/PREFIX      e.g. count-events.sh testdata/recorded/iolat/writesync
# perf.data counts are `perf script` lines ("comm pid [cpu] time: sys:event: ..."),
# trace.dat counts are `trace-cmd report` lines ("comm-pid [cpu] time: event: ...").
set -eu
p=$1
perf script -i "$p.perf.data" 2>/dev/null |
  awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_0-9]+:[a-z_0-9]+:$/) {
          split($i, a, ":"); print a[2]; break } }' | sort | uniq -c > "$p.count-perf.tmp"
trace-cmd report -i "$p.trace.dat" 2>/dev/null |
  awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
          e = $(i + 1); sub(/:$/, "", e); print e; break } }' | sort | uniq -c > "$p.count-dat.tmp"
echo "| event | perf.data | trace.dat |"
echo "|---|---|---|"
join -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 \
  <(sort -k2 "$p.count-perf.tmp") <(sort -k2 "$p.count-dat.tmp") |
  awk '{print "| " $1 " | " $2 " | " $3 " |"; p += $2; d += $3}
       END {print "| total | " p " | " d " |"}'
rm -f "$p.count-perf.tmp" "$p.count-dat.tmp"
