#!/bin/bash
# Records offcpu-time-named.data: the best stand-in for `perf record --off-cpu` this perf can
# make. perf 6.1 here is built without BPF skeletons ("option `off-cpu' is being ignored
# because no BUILD_BPF_SKEL=1"), so it writes no real offcpu-time event. Instead a cpu-clock
# event renamed `offcpu-time` (perf's name= term) with a fixed period of 1 ms: a real
# perf.data whose samples carry that event name, a period in ns and user callchains, as
# --off-cpu's do (their period is off-CPU ns; here it is on-CPU ns, which tk cannot tell).
# It drives tk's perf.data reader into the offcpu-time path of `tk fold --off-cpu`.
#
#   testdata/offcpu/record-offcpu-time.sh
#
# Files: offcpu-time-named.data, offcpu-time-named.periods.txt (perf script -F tid,period of
# it: reference data, one line per sample).
set -euo pipefail
cd "$(dirname "$0")"
command -v perf > /dev/null || { echo "SKIP: no perf" >&2; exit 77; }
export PERF_BUILDID_DIR=/tmp/tk-offcpu-time-buildid   # keep ~/.debug out of it
perf record -q -e 'cpu-clock/name=offcpu-time/u' -c 1000000 -g -o offcpu-time-named.data -- \
  sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'
rm -rf offcpu-time-named.data.old "$PERF_BUILDID_DIR"
perf script -i offcpu-time-named.data -F tid,period > offcpu-time-named.periods.txt
