// tk sched against its anchors, measured in the same run.
//
// Input: a big `perf sched record` file, $TK_SCHED_BENCH_DATA (default sched.data from
// bench/make-inputs.sh: `perf sched record -- perf bench sched pipe -l 100000`, ~50 MB, ~500k
// events; not committed; `--huge` makes sched-huge.data, 1.1 GB) and a trace.dat in
// $TK_SCHED_BENCH_DAT (default: the committed recorded fixture).
//
//   BM_SchedParseOnlyPerfData   the perf.data reader into a sink that wants the sched events
//   BM_SchedLatencyPerfData     + perf sched latency's state machine and table (in process)
//   BM_SchedTimehistPerfData    + timehist rows into a discarding stream
//   BM_TkSchedLatencyProcess    `tk sched latency FILE > /dev/null`, a whole process
//   BM_PerfSchedLatencyProcess  `perf sched latency -i FILE > /dev/null` (the anchor)
//   BM_SchedLatencyTraceDatInProcess  the trace.dat reader + latency, in process
//   BM_TkSchedLatencyTraceDat   `tk sched latency trace.dat > /dev/null`
//   BM_TraceCmdReportProcess    `trace-cmd report -i trace.dat > /dev/null` (the anchor)
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>

#include "analyses/sched/latency.h"
#include "analyses/sched/timehist.h"
#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {

std::string PerfDataPath() { return tk::bench::BenchInput("TK_SCHED_BENCH_DATA", "sched.data"); }

std::string TraceDatPath() {
  const char* p = std::getenv("TK_SCHED_BENCH_DAT");
  return p ? p : std::string(TK_SOURCE_DIR) + "/testdata/recorded/sched/sched.trace.dat";
}

class CountSink : public tk::EventSink {
 public:
  tk::EventMask wants() const override {
    return tk::EventMask().Add(tk::EventKind::kSchedSwitch).Add(tk::EventKind::kSchedWakeup)
        .Add(tk::EventKind::kSchedStat).Add(tk::EventKind::kSchedMigrate)
        .Add(tk::EventKind::kComm).Add(tk::EventKind::kFork).Add(tk::EventKind::kExit);
  }
  absl::Status OnEvent(const tk::Event&) override {
    ++n;
    return absl::OkStatus();
  }
  int64_t n = 0;
};

// Parses `path` into `sink`; false (and the benchmark skipped) when it cannot.
bool Run(benchmark::State& state, const std::string& path, tk::EventSink& sink) {
  if (!tk::bench::RequireInput(state, path)) return false;
  auto in = tk::Input::Open(path);
  if (!in.ok()) {
    state.SkipWithError(std::string(in.status().message()).c_str());
    return false;
  }
  tk::Diagnostics diag(path);
  absl::Status st = tk::ParseInput(**in, tk::ParseOptions(), sink, diag);
  if (!st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    return false;
  }
  return true;
}

int64_t FileSize(const std::string& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

void BM_SchedParseOnlyPerfData(benchmark::State& state) {
  int64_t events = 0;
  for (auto _ : state) {
    CountSink sink;
    if (!Run(state, PerfDataPath(), sink)) return;
    events = sink.n;
  }
  state.SetBytesProcessed(state.iterations() * FileSize(PerfDataPath()));
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_SchedParseOnlyPerfData)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SchedLatencyPerfData(benchmark::State& state) {
  int64_t events = 0;
  for (auto _ : state) {
    tk::sched::LatencyAnalysis a({});
    if (!Run(state, PerfDataPath(), a)) return;
    tk::sched::LatencyReport r = a.report();
    tk::bench::NullBuf nb;
    std::ostream out(&nb);
    tk::sched::WriteText(r, out);
    events = static_cast<int64_t>(r.info.nr_events);
  }
  state.SetBytesProcessed(state.iterations() * FileSize(PerfDataPath()));
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_SchedLatencyPerfData)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SchedTimehistPerfData(benchmark::State& state) {
  for (auto _ : state) {
    tk::bench::NullBuf nb;
    std::ostream out(&nb);
    tk::sched::TimehistAnalysis a({}, out);
    if (!Run(state, PerfDataPath(), a)) return;
    a.WriteRest();
  }
  state.SetBytesProcessed(state.iterations() * FileSize(PerfDataPath()));
}
BENCHMARK(BM_SchedTimehistPerfData)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SchedLatencyTraceDatInProcess(benchmark::State& state) {
  int64_t events = 0;
  for (auto _ : state) {
    tk::sched::LatencyAnalysis a({});
    if (!Run(state, TraceDatPath(), a)) return;
    events = static_cast<int64_t>(a.report().info.nr_events);
  }
  state.SetBytesProcessed(state.iterations() * FileSize(TraceDatPath()));
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_SchedLatencyTraceDatInProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

// A whole command, output discarded; skipped when the tool or the input is missing.
void Process(benchmark::State& state, const std::string& cmd, const std::string& input) {
  if (!tk::bench::RequireInput(state, input)) return;
  tk::bench::RunShell(state, cmd + " > /dev/null 2>&1");
  state.SetBytesProcessed(state.iterations() * FileSize(input));
}

void BM_TkSchedLatencyProcess(benchmark::State& state) {
  Process(state, tk::bench::TkBinary() + " sched latency " + PerfDataPath(), PerfDataPath());
}
BENCHMARK(BM_TkSchedLatencyProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfSchedLatencyProcess(benchmark::State& state) {
  if (!tk::bench::RequireTool(state, "perf")) return;
  Process(state, "perf sched latency -i " + PerfDataPath(), PerfDataPath());
}
BENCHMARK(BM_PerfSchedLatencyProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TkSchedLatencyTraceDat(benchmark::State& state) {
  Process(state, tk::bench::TkBinary() + " sched latency " + TraceDatPath(), TraceDatPath());
}
BENCHMARK(BM_TkSchedLatencyTraceDat)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TraceCmdReportProcess(benchmark::State& state) {
  if (!tk::bench::RequireTool(state, "trace-cmd")) return;
  Process(state, "trace-cmd report -i " + TraceDatPath(), TraceDatPath());
}
BENCHMARK(BM_TraceCmdReportProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
