// tk fold --off-cpu / --wakeup against perf, measured in the same run.
//
// Input: $TK_OFFCPU_BENCH_DATA, else offcpu.data from bench/make-inputs.sh (a system-wide
// `perf record -a -g -e sched:sched_switch -e sched:sched_waking` of perf bench sched pipe,
// ~70 MB, 200k switches; --small copies testdata/offcpu/offcpu.data).
//
//   BM_OffCpuInProcess            the perf.data reader + OffCpuSink (folded lines discarded)
//   BM_TkFoldOffCpuProcess        `tk fold --off-cpu FILE > /dev/null`, a whole process
//   BM_TkFoldWakeupProcess        `tk fold --wakeup FILE > /dev/null`
//   BM_PerfSchedTimehistProcess   `perf sched timehist --no-call-graph -i FILE` (the anchor
//                                 for the wait times)
//   BM_PerfScriptProcess          `perf script -i FILE` (what a text pipeline starts with)
#include <filesystem>
#include <sstream>
#include <string>

#include "analyses/offcpu/offcpu.h"
#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {

using tk::bench::BenchInput;
using tk::bench::RequireInput;

std::string Data() { return BenchInput("TK_OFFCPU_BENCH_DATA", "offcpu.data"); }

int64_t Bytes(const std::string& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

void BM_OffCpuInProcess(benchmark::State& state) {
  if (!RequireInput(state, Data())) return;
  int64_t switches = 0;
  for (auto _ : state) {
    auto in = tk::Input::Open(Data());
    if (!in.ok()) return state.SkipWithError("cannot open the input");
    tk::Diagnostics diag(Data());
    tk::analyses::offcpu::OffCpuSink sink({});
    if (!tk::ParseInput(**in, tk::ParseOptions(), sink, diag).ok())
      return state.SkipWithError("parse failed");
    std::ostringstream out;
    sink.Write(out);
    benchmark::DoNotOptimize(out.str().size());
    switches = static_cast<int64_t>(sink.stats().switches);
  }
  state.SetBytesProcessed(state.iterations() * Bytes(Data()));
  state.SetItemsProcessed(state.iterations() * switches);
}
BENCHMARK(BM_OffCpuInProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

// A whole command on the input, output discarded.
void Command(benchmark::State& state, const std::string& tool, const std::string& args) {
  if (!RequireInput(state, Data())) return;
  if (tool != "tk" && !tk::bench::RequireTool(state, tool)) return;
  std::string bin = tool == "tk" ? tk::bench::TkBinary() : tool;
  tk::bench::RunShell(state, bin + " " + args + " > /dev/null 2>&1");
  state.SetBytesProcessed(state.iterations() * Bytes(Data()));
}

void BM_TkFoldOffCpuProcess(benchmark::State& state) {
  Command(state, "tk", "fold --off-cpu " + Data());
}
BENCHMARK(BM_TkFoldOffCpuProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TkFoldWakeupProcess(benchmark::State& state) {
  Command(state, "tk", "fold --wakeup " + Data());
}
BENCHMARK(BM_TkFoldWakeupProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfSchedTimehistProcess(benchmark::State& state) {
  Command(state, "perf", "sched timehist --no-call-graph -i " + Data());
}
BENCHMARK(BM_PerfSchedTimehistProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfScriptProcess(benchmark::State& state) {
  Command(state, "perf", "script -i " + Data());
}
BENCHMARK(BM_PerfScriptProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
