// tk fold --off-cpu / --wakeup against perf, measured in the same run.
//
// Input: a big system-wide sched_switch recording with callchains, $TK_OFFCPU_BENCH_DATA
// (default /tmp/tk-offcpu-bench.data; not committed). Make one (~60 MB) with
//   perf record -a -g -e sched:sched_switch -e sched:sched_waking \
//     -o /tmp/tk-offcpu-bench.data -- perf bench sched pipe -l 100000
//
//   BM_OffCpuInProcess            the perf.data reader + OffCpuSink (folded lines discarded)
//   BM_TkFoldOffCpuProcess        `tk fold --off-cpu FILE > /dev/null`, a whole process
//   BM_TkFoldWakeupProcess        `tk fold --wakeup FILE > /dev/null`
//   BM_PerfSchedTimehistProcess   `perf sched timehist -i FILE --no-call-graph` (the anchor
//                                 for the wait times)
//   BM_PerfScriptProcess          `perf script -i FILE` (what a text pipeline starts with)
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "analyses/offcpu/offcpu.h"
#include "benchmark/benchmark.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {

std::string Data() {
  const char* p = std::getenv("TK_OFFCPU_BENCH_DATA");
  return p ? p : "/tmp/tk-offcpu-bench.data";
}

int64_t Bytes(const std::string& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

void BM_OffCpuInProcess(benchmark::State& state) {
  if (Bytes(Data()) == 0) return state.SkipWithError(("no input " + Data()).c_str());
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
void Command(benchmark::State& state, const std::string& cmd) {
  if (Bytes(Data()) == 0) return state.SkipWithError(("no input " + Data()).c_str());
  for (auto _ : state) {
    if (std::system((cmd + " > /dev/null 2>&1").c_str()) != 0)
      return state.SkipWithError(("failed: " + cmd).c_str());
  }
  state.SetBytesProcessed(state.iterations() * Bytes(Data()));
}

void BM_TkFoldOffCpuProcess(benchmark::State& state) {
  Command(state, std::string(TK_BINARY) + " fold --off-cpu " + Data());
}
BENCHMARK(BM_TkFoldOffCpuProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TkFoldWakeupProcess(benchmark::State& state) {
  Command(state, std::string(TK_BINARY) + " fold --wakeup " + Data());
}
BENCHMARK(BM_TkFoldWakeupProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfSchedTimehistProcess(benchmark::State& state) {
  Command(state, "perf sched timehist --no-call-graph -i " + Data());
}
BENCHMARK(BM_PerfSchedTimehistProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfScriptProcess(benchmark::State& state) {
  Command(state, "perf script -i " + Data());
}
BENCHMARK(BM_PerfScriptProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
