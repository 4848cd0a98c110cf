// trace.dat reading speed: events/s and bytes/s of the whole reader (pages, merge, decode into
// typed events), against `trace-cmd report > /dev/null` on the same file in the same run.
//
// No big file is committed: bench/make-inputs.sh records bench.trace.dat (perf bench sched
// messaging under sched and block events, `trace-cmd extract`) and its uncompressed v6 copy
// bench.v6.trace.dat (`trace-cmd convert --file-version 6 --compression none`);
// TK_TRACE_DAT_BENCH / TK_TRACE_DAT_BENCH_V6 point elsewhere.
//
//   BM_TraceDatTokenize   pages + merge + event-id lookup only (the sink wants nothing)
//   BM_TraceDatRead       the full pipeline into a sink that wants every kind
//   BM_TraceDatReadV6     the same on the uncompressed v6 copy (no zstd)
//   BM_AnchorTraceCmdReport  trace-cmd report > /dev/null (one run per iteration)
#include <benchmark/benchmark.h>

#include "bench/bench_inputs.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/input.h"
#include "core/sink.h"
#include "parsers/trace_dat/trace_dat_parser.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

class CountSink final : public tk::EventSink {
 public:
  explicit CountSink(tk::EventMask mask) : mask_(mask) {}
  tk::EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const tk::Event& e) override {
    ++events;
    bytes += e.name.size() + e.comm.size();
    return absl::OkStatus();
  }
  uint64_t events = 0, bytes = 0;

 private:
  tk::EventMask mask_;
};

void RunReader(benchmark::State& state, const std::string& path, tk::EventMask mask) {
  if (!tk::bench::RequireInput(state, path)) return;
  std::string data = Slurp(path);
  uint64_t events = 0;
  for (auto _ : state) {
    auto in = tk::Input::FromString(data, path);
    std::ostringstream err;
    tk::Diagnostics diag(path, &err);
    CountSink sink(mask);
    absl::Status st = tk::parsers::trace_dat::NewTraceDatParser({})->Parse(*in, sink, diag);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
    events = sink.events;
    benchmark::DoNotOptimize(sink.bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * data.size()));
  if (mask.Has(tk::EventKind::kSchedSwitch)) {
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  }
  state.counters["events"] = static_cast<double>(events);
}

void BM_TraceDatTokenize(benchmark::State& state) {
  RunReader(state, tk::bench::BenchInput("TK_TRACE_DAT_BENCH", "bench.trace.dat"), tk::EventMask());
}
BENCHMARK(BM_TraceDatTokenize)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TraceDatRead(benchmark::State& state) {
  RunReader(state, tk::bench::BenchInput("TK_TRACE_DAT_BENCH", "bench.trace.dat"), tk::EventMask::All());
}
BENCHMARK(BM_TraceDatRead)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TraceDatReadV6(benchmark::State& state) {
  RunReader(state, tk::bench::BenchInput("TK_TRACE_DAT_BENCH_V6", "bench.v6.trace.dat"), tk::EventMask::All());
}
BENCHMARK(BM_TraceDatReadV6)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AnchorTraceCmdReport(benchmark::State& state) {
  std::string path = tk::bench::BenchInput("TK_TRACE_DAT_BENCH", "bench.trace.dat");
  if (!tk::bench::RequireInput(state, path) || !tk::bench::RequireTool(state, "trace-cmd")) return;
  tk::bench::RunShell(state, "trace-cmd report '" + path + "' >/dev/null 2>&1");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Slurp(path).size()));
}
BENCHMARK(BM_AnchorTraceCmdReport)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
