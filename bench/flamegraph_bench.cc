// tk flamegraph against flamegraph.pl on a >= 32 MB folded file, timed in the same run.
//
// Inputs (generated, not committed) come from bench/make-inputs.sh, which runs
// bench/make_flamegraph_input.sh (see bench/bench_inputs.h for the directory):
//   flamegraph-distinct.folded  ~770k distinct frames (a system-wide fold copied with renamed
//                               roots)              $TK_FLAMEGRAPH_BENCH_DISTINCT overrides
//   flamegraph-repeated.folded  the same size, identical lines (the distinct frames of one copy)
// $TK_FLAMEGRAPH is flamegraph.pl's directory (default /tmp/FlameGraph).
//
// BM_TkFlamegraph/distinct   `tk flamegraph flamegraph-distinct.folded > /dev/null`
// BM_TkFlamegraph/repeated   the same on the repeated input (memory: distinct frames, not size)
// BM_FlamegraphPl/distinct   anchor: `perl flamegraph.pl flamegraph-distinct.folded > /dev/null`
// BM_LayoutInProcess         reading and laying out the distinct input in memory (no SVG)
// Each command's peak RSS is the counter maxrss_MB (wait4 of the child).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/layout.h"
#include "bench/bench_inputs.h"
#include "benchmark/benchmark.h"

namespace {

std::string Input(const char* name) {
  if (std::string(name) == "distinct") {
    return tk::bench::BenchInput("TK_FLAMEGRAPH_BENCH_DISTINCT", "flamegraph-distinct.folded");
  }
  return tk::bench::BenchInput("TK_FLAMEGRAPH_BENCH_REPEATED", "flamegraph-repeated.folded");
}

void Command(benchmark::State& state, const std::string& cmd) {
  double rss = 0;
  for (auto _ : state) {
    long rss_kb = 0;
    if (!tk::bench::RunMeasured(cmd, &rss_kb)) {
      state.SkipWithError(("failed: " + cmd).c_str());
      return;
    }
    rss = rss_kb / 1024.0;
  }
  state.counters["maxrss_MB"] = rss;
}

void BM_TkFlamegraph(benchmark::State& state, const char* name) {
  std::string in = Input(name);
  if (!tk::bench::RequireInput(state, in)) return;
  state.SetBytesProcessed(static_cast<int64_t>(state.max_iterations) *
                          static_cast<int64_t>(std::filesystem::file_size(in)));
  // exec: the shell's own RSS is not the measure.
  Command(state, "exec " + tk::bench::TkBinary() + " flamegraph " + in + " > /dev/null");
}
BENCHMARK_CAPTURE(BM_TkFlamegraph, distinct, "distinct")
    ->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK_CAPTURE(BM_TkFlamegraph, repeated, "repeated")
    ->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

void BM_FlamegraphPl(benchmark::State& state, const char* name) {
  std::string in = Input(name);
  const char* d = std::getenv("TK_FLAMEGRAPH");
  std::string pl = std::string(d ? d : "/tmp/FlameGraph") + "/flamegraph.pl";
  if (!tk::bench::RequireInput(state, in)) return;
  if (!std::filesystem::exists(pl)) {
    return state.SkipWithError(("skip: no " + pl + " (set TK_FLAMEGRAPH)").c_str());
  }
  Command(state, "exec perl " + pl + " " + in + " > /dev/null 2>&1");
}
BENCHMARK_CAPTURE(BM_FlamegraphPl, distinct, "distinct")
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

void BM_LayoutInProcess(benchmark::State& state) {
  std::string in = Input("distinct");
  if (!tk::bench::RequireInput(state, in)) return;
  std::ifstream f(in, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  size_t frames = 0;
  for (auto _ : state) {
    tk::analyses::flamegraph::FoldedProfile p(false, false);
    p.AddText(text);
    tk::analyses::flamegraph::Layout l = tk::analyses::flamegraph::LayOut(p, {});
    frames = p.tree().size();
    benchmark::DoNotOptimize(l.frames.size());
  }
  state.counters["distinct_frames"] = static_cast<double>(frames);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_LayoutInProcess)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
