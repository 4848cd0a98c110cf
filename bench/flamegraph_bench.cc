// tk flamegraph against flamegraph.pl on a >= 32 MB folded file, timed in the same run.
//
// Inputs (generated, not committed): bench/make_flamegraph_input.sh writes
//   distinct.folded  ~1M distinct frames (a system-wide fold copied with renamed roots)
//   repeated.folded  the same size, identical lines (the distinct frames of one copy)
// into $TK_FLAMEGRAPH_BENCH_DIR (default /tmp/tk-flamegraph-bench); the benchmark runs the
// script when they are missing. $TK_FLAMEGRAPH is flamegraph.pl's directory (/tmp/FlameGraph).
//
// BM_TkFlamegraph/distinct   `tk flamegraph distinct.folded > /dev/null`
// BM_TkFlamegraph/repeated   the same on repeated.folded (memory: distinct frames, not size)
// BM_FlamegraphPl/distinct   anchor: `perl flamegraph.pl distinct.folded > /dev/null`
// BM_LayoutInProcess         reading and laying out distinct.folded in memory (no SVG)
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
#include "benchmark/benchmark.h"

namespace {

std::string Dir() {
  const char* d = std::getenv("TK_FLAMEGRAPH_BENCH_DIR");
  return d ? d : "/tmp/tk-flamegraph-bench";
}

std::string Input(const std::string& name) {
  std::string path = Dir() + "/" + name + ".folded";
  if (!std::filesystem::exists(path)) {
    std::string cmd = std::string(TK_SOURCE_DIR) + "/bench/make_flamegraph_input.sh " +
                      TK_BINARY + " " + Dir();
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return path;
}

// Runs `cmd` with /bin/sh; returns the child's peak RSS in MB, or -1 when it failed.
double RunMeasured(const std::string& cmd) {
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss / 1024.0;
}

void Command(benchmark::State& state, const std::string& cmd) {
  double rss = 0;
  for (auto _ : state) {
    rss = RunMeasured(cmd);
    if (rss < 0) {
      state.SkipWithError(("failed: " + cmd).c_str());
      return;
    }
  }
  state.counters["maxrss_MB"] = rss;
}

void BM_TkFlamegraph(benchmark::State& state, const char* name) {
  std::string in = Input(name);
  if (in.empty()) return state.SkipWithError("cannot generate the input");
  state.SetBytesProcessed(static_cast<int64_t>(state.max_iterations) *
                          static_cast<int64_t>(std::filesystem::file_size(in)));
  // exec: the shell's own RSS is not the measure.
  Command(state, std::string("exec ") + TK_BINARY + " flamegraph " + in + " > /dev/null");
}
BENCHMARK_CAPTURE(BM_TkFlamegraph, distinct, "distinct")
    ->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();
BENCHMARK_CAPTURE(BM_TkFlamegraph, repeated, "repeated")
    ->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

void BM_FlamegraphPl(benchmark::State& state, const char* name) {
  std::string in = Input(name);
  const char* d = std::getenv("TK_FLAMEGRAPH");
  std::string pl = std::string(d ? d : "/tmp/FlameGraph") + "/flamegraph.pl";
  if (in.empty() || !std::filesystem::exists(pl)) {
    return state.SkipWithError("no input or no flamegraph.pl (set TK_FLAMEGRAPH)");
  }
  Command(state, "exec perl " + pl + " " + in + " > /dev/null 2>&1");
}
BENCHMARK_CAPTURE(BM_FlamegraphPl, distinct, "distinct")
    ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

void BM_LayoutInProcess(benchmark::State& state) {
  std::string in = Input("distinct");
  if (in.empty()) return state.SkipWithError("cannot generate the input");
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
