// --call-graph dwarf unwinding speed: tk against perf script in the same run, peak RSS too.
//
//   TK_UNWIND_BENCH_FILE (default unwind.data in the bench input dir, bench_inputs.h)
//                        bench/unwind_record.sh's output (>= 300 MB)
//   TK_UNWIND_BENCH_SMALL (default unwind-small.data in the bench input dir)   a smaller one
//       for plain `perf script`, whose addr2line children (inline frames) take many minutes
//       even on 35 MB: `TK_UNWIND_BENCH_SECONDS=1 bench/unwind_record.sh DIR/unwind-small.data`
//
// BM_TkFoldNoInline        `tk fold --no-inline FILE > /dev/null`
// BM_PerfScriptNoInline    anchor: `perf script --no-inline -i FILE > /dev/null`
// BM_TkFold                `tk fold FILE > /dev/null` (inline frames on)
// BM_TkFoldSmall           the same on the small file
// BM_PerfScriptSmall       anchor: `perf script -i SMALL > /dev/null` (inline frames on)
// Counters: peak_rss_mb = the child's ru_maxrss (wait4).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"

namespace {

std::string Big() { return tk::bench::BenchInput("TK_UNWIND_BENCH_FILE", "unwind.data"); }
std::string Small() { return tk::bench::BenchInput("TK_UNWIND_BENCH_SMALL", "unwind-small.data"); }

void Shell(benchmark::State& state, const std::string& file, const std::string& cmd) {
  if (access(file.c_str(), R_OK) != 0) {
    state.SkipWithError(("skip: no bench file " + file + " (bench/unwind_record.sh)").c_str());
    return;
  }
  long peak = 0;
  for (auto _ : state) {
    long rss = 0;
    if (!tk::bench::RunMeasured(cmd, &rss)) state.SkipWithError(("failed: " + cmd).c_str());
    peak = std::max(peak, rss);
  }
  state.counters["peak_rss_mb"] = static_cast<double>(peak) / 1024.0;
}

std::string Tk() { return TK_BINARY; }

void BM_TkFoldNoInline(benchmark::State& s) {
  Shell(s, Big(), Tk() + " fold --no-inline " + Big() + " > /dev/null 2>&1");
}
void BM_PerfScriptNoInline(benchmark::State& s) {
  Shell(s, Big(), "perf script --no-inline -i " + Big() + " > /dev/null 2>&1");
}
void BM_TkFold(benchmark::State& s) { Shell(s, Big(), Tk() + " fold " + Big() + " > /dev/null 2>&1"); }
void BM_TkFoldSmall(benchmark::State& s) {
  Shell(s, Small(), Tk() + " fold " + Small() + " > /dev/null 2>&1");
}
void BM_PerfScriptSmall(benchmark::State& s) {
  Shell(s, Small(), "perf script -i " + Small() + " > /dev/null 2>&1");
}

BENCHMARK(BM_TkFoldNoInline)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_PerfScriptNoInline)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_TkFold)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_TkFoldSmall)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK(BM_PerfScriptSmall)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
