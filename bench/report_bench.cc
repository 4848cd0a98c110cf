// tk report and tk pprof against perf report 6.1, timed in the same run on one recording.
//
//   TK_REPORT_BENCH_FILE  a `perf record -a -g` file (default: perf-a-g.data from
//                         bench/make-inputs.sh; not committed)
//
// BM_TkReportFlat        `tk report --no-children FILE`        (Overhead by comm,dso,sym)
// BM_PerfReportFlat      anchor: `perf report --stdio --no-children -g none -i FILE`
// BM_TkReportChildren    `tk report FILE`                      (Children/Self)
// BM_PerfReportChildren  anchor: `perf report --stdio --children -g none -i FILE`
// BM_TkReportTop         `tk report --format top FILE`
// BM_TkPprof             `tk pprof FILE -o /dev/null`
// Issue 14's targets: flat at least 2x faster than perf, children at least 10x. tk and perf
// alternate, so both see the same machine load. Output goes to /dev/null.
#include <string>

#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"

namespace {

std::string File() { return tk::bench::BenchInput("TK_REPORT_BENCH_FILE", "perf-a-g.data"); }

void Tk(benchmark::State& state, const std::string& args) {
  if (!tk::bench::RequireInput(state, File())) return;
  tk::bench::RunShell(state, tk::bench::TkBinary() + " " + args + " > /dev/null 2>&1");
}

void Perf(benchmark::State& state, const std::string& args) {
  if (!tk::bench::RequireInput(state, File()) || !tk::bench::RequireTool(state, "perf")) return;
  tk::bench::RunShell(state, "PERF_CONFIG=/dev/null perf report --stdio -g none " + args + " -i " +
                                 File() + " > /dev/null 2>&1");
}

void BM_TkReportFlat(benchmark::State& s) { Tk(s, "report --no-children " + File()); }
void BM_PerfReportFlat(benchmark::State& s) { Perf(s, "--no-children"); }
void BM_TkReportChildren(benchmark::State& s) { Tk(s, "report " + File()); }
void BM_PerfReportChildren(benchmark::State& s) { Perf(s, "--children"); }
void BM_TkReportTop(benchmark::State& s) { Tk(s, "report --format top " + File()); }
void BM_TkPprof(benchmark::State& s) { Tk(s, "pprof " + File() + " -o /dev/null"); }

BENCHMARK(BM_TkReportFlat)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PerfReportFlat)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkReportChildren)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_PerfReportChildren)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkReportTop)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TkPprof)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
