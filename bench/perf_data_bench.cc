// perf.data reader speed, with the anchor tools timed in the same run.
//
//   TK_PERF_BENCH_FILE   a `perf record -a -g` file (default: perf-a-g.data from
//                        bench/make-inputs.sh; not committed)
//   TK_FLAMEGRAPH        stackcollapse-perf.pl's directory (default /tmp/FlameGraph; the
//                        pipeline anchor is skipped without it)
//
// BM_PerfDataTokenize     records framed and time-ordered, nothing decoded (sink wants nothing)
// BM_PerfDataSamples      samples decoded, no stacks
// BM_PerfDataStacks       samples with symbolized stacks (what `tk fold` consumes)
// BM_LoadKallsyms        kernel symbol table from TK_KALLSYMS (default /proc/kallsyms)
// BM_LoadElf             symbol table of TK_ELF (default gcc 12's cc1plus, 30k symbols)
// BM_TkFoldBinary         `tk fold FILE > /dev/null`, the whole command
// BM_PerfScriptDevNull    anchor: `perf script -i FILE > /dev/null`
// BM_PerfScriptCollapse   anchor: `perf script -i FILE | stackcollapse-perf.pl > /dev/null`
#include <cstdlib>
#include <sstream>
#include <string>

#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"
#include "core/input.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/symbolize/elf_symbols.h"
#include "parsers/symbolize/kallsyms.h"

namespace {

std::string BenchFile() { return tk::bench::BenchInput("TK_PERF_BENCH_FILE", "perf-a-g.data"); }

class CountSink final : public tk::EventSink {
 public:
  explicit CountSink(tk::EventMask m) : mask_(m) {}
  tk::EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const tk::Event& e) override {
    frames_ += e.stack.size();
    ++events_;
    return absl::OkStatus();
  }
  uint64_t events_ = 0, frames_ = 0;

 private:
  tk::EventMask mask_;
};

void RunParser(benchmark::State& state, tk::EventMask mask) {
  uint64_t bytes = 0, events = 0;
  if (!tk::bench::RequireInput(state, BenchFile())) return;
  for (auto _ : state) {
    auto in = tk::Input::Open(BenchFile());
    if (!in.ok()) {
      state.SkipWithError(std::string(in.status().message()).c_str());
      return;
    }
    tk::ParseOptions opts;
    CountSink sink(mask);
    std::ostringstream err;
    tk::Diagnostics diag(BenchFile(), &err);
    absl::Status st = tk::parsers::perf_data::NewPerfDataParser(opts)->Parse(**in, sink, diag);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
    bytes += (*in)->mapped() ? (*in)->mapped()->size() : 0;
    events += sink.events_;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(events));
}

void BM_PerfDataTokenize(benchmark::State& state) { RunParser(state, tk::EventMask()); }
void BM_PerfDataSamples(benchmark::State& state) {
  RunParser(state, tk::EventMask().Add(tk::EventKind::kSample));
}
void BM_PerfDataStacks(benchmark::State& state) {
  RunParser(state, tk::EventMask().Add(tk::EventKind::kSample).WithStacks());
}

void BM_LoadKallsyms(benchmark::State& state) {
  const char* env = std::getenv("TK_KALLSYMS");
  std::string path = env ? env : "/proc/kallsyms";
  size_t symbols = 0;
  for (auto _ : state) {
    auto ks = tk::parsers::symbolize::LoadKallsyms(path);
    if (!ks.ok()) {
      state.SkipWithError(std::string(ks.status().message()).c_str());
      return;
    }
    symbols += ks->kernel.size();
    for (const auto& [name, t] : ks->modules) symbols += t.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(symbols));
}

void BM_LoadElf(benchmark::State& state) {
  const char* env = std::getenv("TK_ELF");
  std::string path = env ? env : "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus";
  size_t symbols = 0;
  for (auto _ : state) {
    auto img = tk::parsers::symbolize::LoadElf({path}, "");
    if (!img) {
      state.SkipWithError(("cannot load " + path).c_str());
      return;
    }
    symbols += img->symbols.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(symbols));
}

std::string Tk() { return TK_BINARY; }
std::string Collapse() {
  const char* d = std::getenv("TK_FLAMEGRAPH");
  return std::string(d ? d : "/tmp/FlameGraph") + "/stackcollapse-perf.pl";
}

void BM_TkFoldBinary(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, BenchFile())) return;
  tk::bench::RunShell(state, Tk() + " fold " + BenchFile() + " > /dev/null 2>&1");
}
void BM_PerfScriptDevNull(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, BenchFile()) || !tk::bench::RequireTool(state, "perf")) return;
  tk::bench::RunShell(state, "perf script -i " + BenchFile() + " > /dev/null 2>&1");
}
void BM_PerfScriptCollapse(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, BenchFile()) || !tk::bench::RequireInput(state, Collapse()) ||
      !tk::bench::RequireTool(state, "perf"))
    return;
  tk::bench::RunShell(state, "perf script -i " + BenchFile() + " 2>/dev/null | perl " + Collapse() +
                                 " > /dev/null");
}

BENCHMARK(BM_PerfDataTokenize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PerfDataSamples)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PerfDataStacks)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadKallsyms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadElf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TkFoldBinary)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_PerfScriptDevNull)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_PerfScriptCollapse)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
