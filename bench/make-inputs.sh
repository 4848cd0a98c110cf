#!/usr/bin/env bash
# Generates the inputs of bench/*_bench into one directory, so no benchmark depends on a file a
# fresh checkout lacks. Big inputs are recorded here and never committed.
#
#   bench/make-inputs.sh [--small] [--huge] [DIR]     (DIR default: build/bench-inputs)
#
#   --small  the same file names, copied from committed fixtures (a second; what CI uses to run
#            every benchmark once so none can rot). Numbers from these are not figures.
#   (none)   recorded here (needs root for perf -a and tracefs):
#              perf-a-g.data      perf record -a -g -F 4000, 10 s of a g++ compile load (~7-10 MB)
#              perf-a-g-big.data  perf record -a -g -F 20000, 15 s of the same (~35-40 MB: issue
#                                 16's 15-70 MB range for tk fold, at its -F 20000)
#              sched.data         perf sched record -- perf bench sched pipe -l 100000 (~50 MB)
#              bench.trace.dat    sched_switch/wakeup/waking/migrate + block:* via tracefs and
#                                 trace-cmd extract, under perf bench sched messaging (v7, zstd)
#              bench.v6.trace.dat the same converted to v6, uncompressed
#              offcpu.data        perf record -a -g -e sched:sched_switch -e sched:sched_waking
#                                 -- perf bench sched pipe -l 100000 (~70 MB)
#              flamegraph-distinct.folded, flamegraph-repeated.folded (32 MB each; generated
#                                 by bench/make_flamegraph_input.sh from testdata/fold texts)
#   --huge   also sched-huge.data: perf sched record -- perf bench sched pipe -l 2200000 (~1.1-1.2
#            GB, ~10.7 M events; issue 16's >= 1 GB scale target), and huge.trace.dat: sched:* and
#            block:* through tracefs with 800 MB per CPU of ring buffer (overwrite off: it
#            fills and stops), perf bench sched pipe + dd as the load, trace-cmd extract, then
#            converted to v6 uncompressed (1.15 GB on 2 CPUs; bench/make-huge-trace-dat.sh)
#
# Existing files are kept (delete one to re-record it). Benchmarks find DIR as TK_BENCH_DIR or
# build/bench-inputs; see bench/bench_inputs.h.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
small=0 huge=0 dir=""
for a in "$@"; do
  case "$a" in
    --small) small=1 ;;
    --huge) huge=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) dir=$a ;;
  esac
done
dir=${dir:-$here/build/bench-inputs}
mkdir -p "$dir"
rec=$here/testdata/recorded

copy() { [ -e "$dir/$2" ] || cp "$1" "$dir/$2"; }

if ((small)); then
  copy "$here/testdata/perf_data/a.data" perf-a-g.data
  copy "$here/testdata/perf_data/a.data" perf-a-g-big.data
  copy "$rec/sched/sched.perf.data" sched.data
  copy "$rec/sched/sched.trace.dat" bench.trace.dat
  copy "$rec/sched/sched.v6.trace.dat" bench.v6.trace.dat
  copy "$here/testdata/offcpu/offcpu.data" offcpu.data
  bash "$here/bench/make_flamegraph_input.sh" "$here/build/tk" "$dir" 1
  echo "make-inputs: small inputs in $dir" >&2
  exit 0
fi

# Folded stacks for flamegraph_bench (generated from committed texts, no recording).
bash "$here/bench/make_flamegraph_input.sh" "$here/build/tk" "$dir" 32
[ "$(id -u)" = 0 ] || { echo "make-inputs: recording needs root (or use --small)" >&2; exit 1; }
command -v perf >/dev/null || { echo "make-inputs: perf not installed" >&2; exit 1; }

# A compile load on both CPUs: g++ -O2 on four of tk's own sources (cc1plus: forks, execs,
# mmaps, page faults and file reads under deep kernel stacks), two at a time, beside a tar | gzip
# of one fixed header tree. Until session 11 the load also ran `md5sum /usr/bin/*` and a tiny
# gcc compile; on a machine with a large /usr/bin (chromium and Go installed) md5sum took 54% of
# the samples and gcc 0.6%, so the recording's stacks, and every ratio measured on it, depended
# on what the machine had installed. The sources compiled here ship with the checkout.
load() {
  local end=$((SECONDS + ${1:-6})) i=0
  local srcs=(core/task_table.cc core/stats.cc analyses/sched/latency.cc parsers/perf_data/abi.cc)
  local cxx=(g++ -O2 -std=c++20 -I"$here" -isystem /usr/include/traceevent -c -o /dev/null)
  while ((SECONDS < end)); do
    "${cxx[@]}" "$here/${srcs[$((i % 4))]}" 2>/dev/null &
    "${cxx[@]}" "$here/${srcs[$(((i + 1) % 4))]}" 2>/dev/null &
    tar -cf - /usr/include/linux 2>/dev/null | gzip -1 > /dev/null &
    wait
    i=$((i + 1))
  done
}

if [ ! -e "$dir/perf-a-g.data" ]; then
  echo "make-inputs: recording perf-a-g.data" >&2
  export -f load; export here
  perf record -q -a -g -F 4000 -o "$dir/perf-a-g.data" -- bash -c "load 10" 2>/dev/null
  rm -f "$dir/perf-a-g.data.old"
fi

if [ ! -e "$dir/perf-a-g-big.data" ]; then
  echo "make-inputs: recording perf-a-g-big.data" >&2
  export -f load; export here
  perf record -q -a -g -F 20000 -o "$dir/perf-a-g-big.data" -- bash -c "load 15" 2>/dev/null
  rm -f "$dir/perf-a-g-big.data.old"
fi

if [ ! -e "$dir/sched.data" ]; then
  echo "make-inputs: recording sched.data" >&2
  perf sched record -q -o "$dir/sched.data" -- perf bench sched pipe -l 100000 >/dev/null 2>&1
  rm -f "$dir/sched.data.old"
fi

if [ ! -e "$dir/offcpu.data" ]; then
  echo "make-inputs: recording offcpu.data" >&2
  perf record -q -a -g -e sched:sched_switch -e sched:sched_waking -o "$dir/offcpu.data" -- \
    perf bench sched pipe -l 100000 >/dev/null 2>&1
  rm -f "$dir/offcpu.data.old"
fi

if ((huge)) && [ ! -e "$dir/sched-huge.data" ]; then
  echo "make-inputs: recording sched-huge.data (~1.2 GB)" >&2
  perf sched record -q -o "$dir/sched-huge.data" -- perf bench sched pipe -l 2200000 >/dev/null 2>&1
  rm -f "$dir/sched-huge.data.old"
fi

if [ ! -e "$dir/bench.trace.dat" ]; then
  command -v trace-cmd >/dev/null || { echo "make-inputs: trace-cmd not installed" >&2; exit 1; }
  echo "make-inputs: recording bench.trace.dat (tracefs)" >&2
  flock /tmp/tk-tracefs.lock bash -c '
    set -euo pipefail
    source "'"$rec"'/lib-record.sh"
    mounted=0
    if [ ! -w "$TRACEFS/tracing_on" ]; then mount -t tracefs nodev "$TRACEFS"; mounted=1; fi
    trap "tk_tracefs_restore; ((mounted)) && umount \"$TRACEFS\" || true" EXIT
    tk_tracefs_setup 32768 sched/sched_switch sched/sched_wakeup sched/sched_waking \
      sched/sched_migrate_task block
    tk_tracefs_start
    perf bench sched messaging -g 10 -l 400 >/dev/null 2>&1
    tk_tracefs_stop
    trace-cmd extract -o "'"$dir"'/bench.trace.dat" >/dev/null 2>&1
  '
fi
if ((huge)) && [ ! -e "$dir/huge.trace.dat" ]; then
  echo "make-inputs: recording huge.trace.dat (tracefs, ~1.2 GB)" >&2
  bash "$here/bench/make-huge-trace-dat.sh" "$dir/huge.trace.dat"
fi
if [ ! -e "$dir/bench.v6.trace.dat" ]; then
  trace-cmd convert --file-version 6 --compression none -i "$dir/bench.trace.dat" \
    -o "$dir/bench.v6.trace.dat" >/dev/null 2>&1
fi
ls -la "$dir" >&2
