// perf script text: tokenizing, parsing into a null sink, and the whole fold (1 and 2 threads);
// perf.data: the whole fold of a `perf record -a -g` file (BM_FoldPerfData).
// Input: the recorded fixtures of testdata/fold repeated to ~32 MiB in memory, or the file in
// $TK_FOLD_BENCH_INPUT (e.g. a big `perf script` capture: bench/make-text-fold-input.sh).
//
// With $TK_FOLD_BENCH_INPUT, whole processes on that file in the same run (issue 16's text
// fold targets): BM_TkFoldTextProcess/THREADS (`tk fold --threads N FILE > /dev/null`) and
// its anchor BM_StackcollapseText (`stackcollapse-perf.pl FILE > /dev/null`, from
// $TK_FLAMEGRAPH, default /tmp/FlameGraph). Counters: MB_per_s (wall), cpu_s (user+sys of
// the process), cpu_MB_per_s, rss_MB.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "analyses/fold/fold.h"
#include "bench/bench_inputs.h"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/perf_script/split_parse.h"
#include "benchmark/benchmark.h"
#include "parsers/perf_script/perf_script_parser.h"
#include "parsers/perf_script/tokenizer.h"

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string& Text() {
  static const std::string text = [] {
    if (const char* p = std::getenv("TK_FOLD_BENCH_INPUT")) return ReadAll(p);
    std::string base = ReadAll(std::string(TK_SOURCE_DIR) + "/testdata/fold/proc-g.txt") +
                       ReadAll(std::string(TK_SOURCE_DIR) + "/testdata/fold/system-wide-g.txt");
    // Repeated, with each header's time rewritten to keep the text in time order (as
    // perf script prints it; unordered text would fold on one thread).
    std::string t;
    int64_t us = 0;
    while (t.size() < (32u << 20)) {
      std::istringstream lines(base);
      std::string line;
      while (std::getline(lines, line)) {
        size_t colon = line.empty() || line[0] == '\t' ? std::string::npos : line.find(": ");
        size_t dot = colon == std::string::npos ? colon : line.rfind('.', colon);
        size_t sp = dot == std::string::npos ? dot : line.rfind(' ', dot);
        if (sp != std::string::npos) {
          ++us;
          line = line.substr(0, sp + 1) + std::to_string(us / 1000000) + "." +
                 std::to_string(1000000 + us % 1000000).substr(1) + line.substr(colon);
        }
        t += line;
        t += '\n';
      }
    }
    return t;
  }();
  return text;
}

class NullSink final : public tk::EventSink {
 public:
  tk::EventMask wants() const override { return tk::EventMask::All(); }
  absl::Status OnEvent(const tk::Event& e) override {
    frames_ += e.stack.size();
    return absl::OkStatus();
  }
  size_t frames_ = 0;
};

void BM_PerfScriptTokenize(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) {
    auto in = tk::Input::FromString(text);
    tk::parsers::perf_script::Tokenizer tok(*in);
    tk::parsers::perf_script::Token t;
    size_t n = 0;
    while (tok.Next(&t)) n += static_cast<size_t>(t.kind);
    benchmark::DoNotOptimize(n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PerfScriptTokenize)->Unit(benchmark::kMillisecond);

void BM_PerfScriptParseNullSink(benchmark::State& state) {
  const std::string& text = Text();
  tk::parsers::perf_script::PerfScriptOptions ps;
  for (auto _ : state) {
    auto in = tk::Input::FromString(text);
    std::ostringstream err;
    tk::Diagnostics diag("bench", &err);
    NullSink sink;
    auto p = tk::parsers::perf_script::NewPerfScriptParser(tk::ParseOptions{}, ps);
    benchmark::DoNotOptimize(p->Parse(*in, sink, diag));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_PerfScriptParseNullSink)->Unit(benchmark::kMillisecond);

// The whole `tk fold` pipeline minus output: parse, name frames, count stacks; Arg =
// threads.
void BM_FoldText(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) {
    tk::parsers::perf_script::SplitOptions to;
    to.threads = static_cast<int>(state.range(0));
    tk::analyses::fold::FoldSink sink{tk::analyses::fold::FoldOptions{}};
    tk::analyses::fold::FoldParts parts(sink, nullptr);
    std::ostringstream err;
    tk::Diagnostics diag("bench", &err);
    benchmark::DoNotOptimize(tk::parsers::perf_script::ParseSplit(text, "bench", to, parts, diag));
    benchmark::DoNotOptimize(sink.distinct_stacks());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_FoldText)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// perf.data (issue 16 row 1): the whole `tk fold` pipeline minus output on a `perf record -a
// -g` file ($TK_PERF_BENCH_FILE, default perf-a-g.data of bench/make-inputs.sh; also
// perf-a-g-big.data); Arg = threads (2: the reader, which also folds the stacks (core/sink.h
// SideWork), and the decoder). The anchors,
// as whole processes in the same run: bench/fold_perfdata_measure.sh.
void BM_FoldPerfData(benchmark::State& state) {
  const std::string path = tk::bench::BenchInput("TK_PERF_BENCH_FILE", "perf-a-g.data");
  if (!tk::bench::RequireInput(state, path)) return;
  for (auto _ : state) {
    tk::ParseOptions po;
    po.threads = static_cast<int>(state.range(0));
    tk::analyses::fold::FoldOptions fo;
    fo.worker_thread = po.threads >= 2;
    tk::analyses::fold::FoldSink sink(fo);
    absl::StatusOr<std::unique_ptr<tk::Input>> in = tk::Input::Open(path);
    if (!in.ok()) {
      state.SkipWithError("cannot open the input");
      return;
    }
    std::ostringstream err;
    tk::Diagnostics diag(path, &err);
    benchmark::DoNotOptimize(tk::parsers::perf_data::NewPerfDataParser(po)->Parse(**in, sink, diag));
    benchmark::DoNotOptimize(sink.distinct_stacks());
  }
}
BENCHMARK(BM_FoldPerfData)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// One whole process per iteration on $TK_FOLD_BENCH_INPUT, with its CPU time and peak RSS.
void RunFileProcess(benchmark::State& state, const std::string& cmd_before_file) {
  const char* path = std::getenv("TK_FOLD_BENCH_INPUT");
  if (!path) {
    state.SkipWithError("skip: set TK_FOLD_BENCH_INPUT (bench/make-text-fold-input.sh)");
    return;
  }
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  const double mb = static_cast<double>(f.tellg()) / 1e6;
  double cpu = 0;
  long rss = 0;
  for (auto _ : state) {
    double c = 0;
    if (!tk::bench::RunMeasured(cmd_before_file + " '" + path + "' > /dev/null", &rss, &c)) {
      state.SkipWithError(("failed: " + cmd_before_file).c_str());
      return;
    }
    cpu += c;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["MB_per_s"] = benchmark::Counter(mb * n, benchmark::Counter::kIsRate);
  state.counters["cpu_s"] = cpu / n;
  state.counters["cpu_MB_per_s"] = mb * n / cpu;
  state.counters["rss_MB"] = static_cast<double>(rss) / 1024;
}

void BM_TkFoldTextProcess(benchmark::State& state) {
  RunFileProcess(state, std::string(TK_BINARY) + " fold --threads " +
                            std::to_string(state.range(0)));
}
BENCHMARK(BM_TkFoldTextProcess)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(5);

void BM_StackcollapseText(benchmark::State& state) {
  const char* d = std::getenv("TK_FLAMEGRAPH");
  std::string pl = std::string(d ? d : "/tmp/FlameGraph") + "/stackcollapse-perf.pl";
  if (std::system(("test -r " + pl).c_str()) != 0) {
    state.SkipWithError(("skip: " + pl + " absent").c_str());
    return;
  }
  RunFileProcess(state, "perl " + pl);
}
BENCHMARK(BM_StackcollapseText)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
