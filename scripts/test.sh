#!/usr/bin/env bash
# The test command: installs dependencies, builds tk (Release) and runs the whole suite, then
# builds again with ASan+UBSan (clang) and runs the unit and golden tests under it, then with
# ThreadSanitizer for the tests that run tk's threads, then runs every libFuzzer target for a
# bounded time on its seed corpus. Idempotent.
#
#   TK_SKIP_SANITIZE=1  skip the sanitizer builds    TK_SKIP_FUZZ=1  skip fuzzing
#   TK_FUZZ_SECONDS=N   seconds per fuzz target (default 30)   TK_SKIP_BENCH=1  skip benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh

echo "== Release build and tests" >&2
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS"
# Each ctest pass is followed by the list of tests it skipped and why (a live test without root
# or perf, a corpus test without ../shared; under CI=true a missing ../shared fails instead).
rc=0
(cd build && ctest --output-on-failure -j"$JOBS") || rc=$?
bash scripts/skipped-tests.sh build >&2
[ "$rc" = 0 ] || exit "$rc"

if [ "${TK_SKIP_BENCH:-0}" != 1 ]; then
  # Every benchmark once, briefly, on small inputs made from committed fixtures, so none can rot
  # (a benchmark that errors fails the run; "skip:" marks an optional input or anchor missing).
  # These timings are not figures: bench/make-inputs.sh without --small records real inputs.
  echo "== benchmarks (one brief run each)" >&2
  bash bench/make-inputs.sh --small build/bench-inputs
  for b in build/bench/*_bench; do
    [ -x "$b" ] || continue
    log=$(TK_BENCH_DIR=build/bench-inputs "$b" --benchmark_min_time=0.001 2>&1) ||
      { echo "$log" >&2; echo "benchmark failed: $b" >&2; exit 1; }
    if grep 'ERROR OCCURRED' <<<"$log" | grep -v "'skip:"; then
      echo "benchmark errored: $b" >&2
      exit 1
    fi
    n=$(grep -c '^BM_' <<<"$log" || true)
    skipped=$(grep -c "ERROR OCCURRED: 'skip:" <<<"$log" || true)
    echo "-- $(basename "$b"): $n benchmarks, $skipped skipped" >&2
    grep "ERROR OCCURRED: 'skip:" <<<"$log" | sed 's/^/   /' >&2 || true
  done
fi

if [ "${TK_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== ASan+UBSan build and tests" >&2
  CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTK_SANITIZE=ON -DTK_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$JOBS"
  # Live-recording tests run in the Release pass; under ASan only the unit and golden tests.
  rc=0
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j"$JOBS" -LE live) || rc=$?
  bash scripts/skipped-tests.sh build-asan >&2
  [ "$rc" = 0 ] || exit "$rc"
fi

if [ "${TK_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== ThreadSanitizer build and threaded tests" >&2
  # Threads: FoldSink's worker (its own thread, or the perf.data reading thread doing its
  # batches: FoldSink.SideWorkFoldsTheSame, BatchPipe.TryPutTryTake) and the kallsyms prefetch
  # (perf.data), the 2-thread text fold (TextFoldFilter: with a filter), --call-graph dwarf stacks through the fold worker, the
  # perf.data reading thread (Threads: every command with --threads 1 and 2 through the
  # TSan-built tk; a race report changes its stderr and exit; FastDecode: sched samples parsed
  # on the reading thread, decoded on the other), the progress line's thread (Progress) and tk
  # sql's inserting thread (Threads/RowLoaderTest), tk report's worker (ReportWorker), the DSO
  # symbol prefetch thread (DsoPrefetch, Machine.PrefetchedDso...), the perf.data stack keys
  # built on the reading thread and used on the decoding one (StackId), a perf.data parsed in
  # two halves on two threads with shared symbol loads (PerfDataSplit).
  CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTK_SANITIZE_THREAD=ON -DTK_BENCH=OFF >/dev/null
  cmake --build build-tsan -j"$JOBS" --target tk fold_test fold_golden_test perf_data_fixture_test \
    filter_unit_test unwind_fixture_test threads_test progress_test batch_pipe_test \
    row_loader_test fast_decode_test report_stack_memo_test dso_prefetch_test stack_id_test \
    perf_data_split_test
  (cd build-tsan && TSAN_OPTIONS=halt_on_error=1 \
     ctest --output-on-failure -j"$JOBS" -LE live -R '^(FoldSink|TextFold|FoldGolden|PerfDataFixture|Unwind\.StdinAndThreads|Threads|Progress|BatchPipe|FastDecode|ReportWorker|DsoPrefetch|Machine\.PrefetchedDso|StackId|PerfDataSplit)')
fi

if [ "${TK_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== libFuzzer targets" >&2
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTK_FUZZ=ON -DTK_TESTS=OFF -DTK_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j"$JOBS"
  for f in build-fuzz/fuzz/*_fuzz; do
    [ -x "$f" ] || continue
    name=$(basename "$f")
    seeds="fuzz/corpus/${name%_fuzz}"
    work=$(mktemp -d)
    [ -d "$seeds" ] && cp -r "$seeds"/. "$work"/
    echo "-- $name for ${TK_FUZZ_SECONDS:-30}s" >&2
    "$f" -max_total_time="${TK_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 -timeout=10 "$work" \
      2>&1 | tail -n 3
    rm -rf "$work"
  done
fi
echo "== all tests passed" >&2
