// Issue 16 "speed at scale": tk against its anchors on gigabyte inputs, in the same run.
//
// Inputs (bench/make-inputs.sh --huge; never committed; a missing one is a 'skip:'):
//   sched-huge.data   perf sched record -- perf bench sched pipe -l 2200000 (1.1-1.2 GB)
//                     ($TK_SCALE_PERF_DATA)
//   huge.trace.dat    sched:* + block:* through tracefs, v6 uncompressed (~0.9-1.2 GB)
//                     ($TK_SCALE_TRACE_DAT)
//
//   BM_InProcess/threads:N   perf.data reader + perf sched latency's analysis in this
//                            process, 1 and 2 threads; counters: events, allocations per
//                            event (operator new is counted in this binary), RSS growth
//   BM_Tk*/BM_Perf*/BM_TraceCmd*   whole processes, output to /dev/null:
//     sched latency   tk sched latency          vs perf sched latency -i
//     sched timehist  tk sched timehist         vs perf sched timehist -i
//     script          tk script                 vs perf script -i / trace-cmd report -i
//     iolat           tk iolat                  vs trace-cmd report -i (reading the same
//                                                  events is what a trace-cmd user pays)
//
// Ratios are medians over --benchmark_repetitions (use >= 5) of anchor / tk; the machine's
// load average belongs next to every figure (the 2 cores are shared).
#include <sys/resource.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <ostream>
#include <string>

#include "analyses/sched/latency.h"
#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {
std::atomic<uint64_t> g_allocs{0};
}  // namespace

// Every allocation of this binary is counted (the per-event allocation check).
void* operator new(size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

std::string PerfData() { return tk::bench::BenchInput("TK_SCALE_PERF_DATA", "sched-huge.data"); }
std::string TraceDat() { return tk::bench::BenchInput("TK_SCALE_TRACE_DAT", "huge.trace.dat"); }

int64_t FileSize(const std::string& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

int64_t MaxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

void BM_InProcess(benchmark::State& state) {
  const std::string path = PerfData();
  if (!tk::bench::RequireInput(state, path)) return;
  tk::ParseOptions opts;
  opts.threads = static_cast<int>(state.range(0));
  opts.use_buildid_cache = false;
  opts.use_host_kallsyms = false;
  uint64_t events = 0, allocs = 0;
  int64_t rss_before = MaxRssKb();
  for (auto _ : state) {
    auto in = tk::Input::Open(path);
    if (!in.ok()) {
      state.SkipWithError(std::string(in.status().message()).c_str());
      return;
    }
    tk::Diagnostics diag(path);
    tk::sched::LatencyAnalysis a({});
    uint64_t before = g_allocs.load();
    absl::Status st = tk::ParseInput(**in, opts, a, diag);
    allocs = g_allocs.load() - before;
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
    tk::bench::NullBuf nb;
    std::ostream out(&nb);
    const tk::sched::LatencyReport& r = a.report();
    tk::sched::WriteText(r, out);
    events = r.info.nr_events;
  }
  state.SetBytesProcessed(state.iterations() * FileSize(path));
  state.counters["events"] = static_cast<double>(events);
  state.counters["allocs_per_event"] = events ? static_cast<double>(allocs) / events : 0;
  state.counters["rss_growth_mb"] = static_cast<double>(MaxRssKb() - rss_before) / 1024;
}
BENCHMARK(BM_InProcess)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)
    ->UseRealTime()->Iterations(1);

void Process(benchmark::State& state, const std::string& tool, const std::string& cmd,
             const std::string& input) {
  if (!tk::bench::RequireInput(state, input)) return;
  if (!tool.empty() && !tk::bench::RequireTool(state, tool)) return;
  tk::bench::RunShell(state, cmd + " " + input + " > /dev/null 2>&1");
  state.SetBytesProcessed(state.iterations() * FileSize(input));
}

std::string Tk(const std::string& args) { return tk::bench::TkBinary() + " " + args; }

#define TK_SCALE_PROCESS(name, tool, cmd, input)                      \
  void name(benchmark::State& state) { Process(state, tool, cmd, input()); } \
  BENCHMARK(name)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)

// perf.data: perf sched record of 2.2 M pipe round trips. (bench/sched_scale.sh times the same
// pairs with CPU time and peak RSS, medians of N alternating runs.)
TK_SCALE_PROCESS(BM_TkSchedLatencyPerfData, "", Tk("sched latency"), PerfData);
TK_SCALE_PROCESS(BM_PerfSchedLatency, "perf", "perf sched latency -i", PerfData);
TK_SCALE_PROCESS(BM_TkSchedTimehistPerfData, "", Tk("sched timehist"), PerfData);
TK_SCALE_PROCESS(BM_PerfSchedTimehist, "perf", "perf sched timehist -i", PerfData);
TK_SCALE_PROCESS(BM_TkScriptPerfData, "", Tk("script"), PerfData);
TK_SCALE_PROCESS(BM_PerfScript, "perf", "perf script -i", PerfData);
// trace.dat: the same analyses against trace-cmd report.
TK_SCALE_PROCESS(BM_TkSchedLatencyTraceDat, "", Tk("sched latency"), TraceDat);
TK_SCALE_PROCESS(BM_TkSchedTimehistTraceDat, "", Tk("sched timehist"), TraceDat);
TK_SCALE_PROCESS(BM_TkScriptTraceDat, "", Tk("script"), TraceDat);
TK_SCALE_PROCESS(BM_TkIolatTraceDat, "", Tk("iolat"), TraceDat);
TK_SCALE_PROCESS(BM_TraceCmdReport, "trace-cmd", "trace-cmd report -i", TraceDat);

}  // namespace

BENCHMARK_MAIN();
