// tk report and tk pprof against perf report, timed in the same run on one recording.
//
//   bench/report_input.sh                       records /tmp/bench/report.data (not committed)
//   TK_REPORT_BENCH_FILE=FILE build/bench/report_bench
//
// BM_TkReportFlat        `tk report --no-children FILE`         (Overhead by comm,dso,sym)
// BM_PerfReportFlat      anchor: `perf report --stdio --no-children -g none -i FILE`
// BM_TkReportChildren    `tk report FILE`                       (Children/Self)
// BM_PerfReportChildren  anchor: `perf report --stdio --children -g none -i FILE`
// BM_TkReportTop         `tk report --format top FILE`
// BM_TkPprof             `tk pprof FILE -o /dev/null`
// Targets (issue 14): flat >= 2x perf, children >= 10x perf. Output goes to /dev/null.
#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"

namespace {

std::string File() {
  const char* f = std::getenv("TK_REPORT_BENCH_FILE");
  return f ? f : "/tmp/bench/report.data";
}

void Shell(benchmark::State& state, const std::string& cmd) {
  if (std::system(("test -r " + File()).c_str()) != 0) {
    state.SkipWithError("no input: run bench/report_input.sh (or set TK_REPORT_BENCH_FILE)");
    return;
  }
  for (auto _ : state) {
    if (std::system(cmd.c_str()) != 0) state.SkipWithError(("failed: " + cmd).c_str());
  }
}

std::string Tk(const std::string& args) {
  return std::string(TK_BINARY) + " " + args + " " + File() + " > /dev/null 2>&1";
}
std::string Perf(const std::string& args) {
  return "PERF_CONFIG=/dev/null perf report --stdio -g none " + args + " -i " + File() +
         " > /dev/null 2>&1";
}

void BM_TkReportFlat(benchmark::State& s) { Shell(s, Tk("report --no-children")); }
void BM_PerfReportFlat(benchmark::State& s) { Shell(s, Perf("--no-children")); }
void BM_TkReportChildren(benchmark::State& s) { Shell(s, Tk("report")); }
void BM_PerfReportChildren(benchmark::State& s) { Shell(s, Perf("--children")); }
void BM_TkReportTop(benchmark::State& s) { Shell(s, Tk("report --format top")); }
void BM_TkPprof(benchmark::State& s) {
  Shell(s, std::string(TK_BINARY) + " pprof " + File() + " -o /dev/null > /dev/null 2>&1");
}

// Interleaved, so tk and perf see the same machine load.
BENCHMARK(BM_TkReportFlat)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PerfReportFlat)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkReportChildren)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PerfReportChildren)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkReportTop)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkPprof)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
