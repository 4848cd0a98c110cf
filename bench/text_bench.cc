// Text parsing throughput: the ftrace text reader (tokenize only, and tokenize + decode into
// typed events) over /sys/kernel/tracing/trace and `trace-cmd report` text, and the whole
// `tk script` pipeline (text and JSON Lines). Inputs of ~40 MB are generated into the bench input
// directory (bench/bench_inputs.h) from the recorded fixtures (testdata/recorded/iolat/), copies
// shifted in time so the order holds.
#include <benchmark/benchmark.h>

#include "bench/bench_inputs.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analyses/script/script.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/ftrace_text/ftrace_text_parser.h"

namespace tk {
namespace {

constexpr int kCopies = 24;

// Adds `add_s` seconds to the timestamp of an event line ("   910.166639: ").
std::string Shift(const std::string& line, int add_s) {
  size_t p = line.find(": ");
  while (p != std::string::npos) {
    size_t q = p;
    while (q > 0 && (isdigit(static_cast<unsigned char>(line[q - 1])) || line[q - 1] == '.')) --q;
    size_t dot = line.find('.', q);
    if (q < p && line[q - 1] == ' ' && dot < p) {
      long sec = std::stol(line.substr(q, dot - q)) + add_s;
      return line.substr(0, q) + std::to_string(sec) + line.substr(dot);
    }
    p = line.find(": ", p + 1);
  }
  return line;
}

// Writes text-NAME into the bench input directory (kCopies shifted copies of the fixture's event lines after its
// header) once per process; returns its path.
std::string MakeInput(const std::string& fixture, const std::string& name) {
  std::filesystem::create_directories(bench::InputDir());
  std::string path = (bench::InputDir() / ("text-" + name)).string();
  std::ifstream in(std::string(TK_SOURCE_DIR) + "/testdata/recorded/iolat/" + fixture);
  std::vector<std::string> header, events;
  std::string line;
  while (std::getline(in, line)) {
    bool event = !line.empty() && line[0] != '#' && line.find("]") != std::string::npos;
    (event ? events : header).push_back(line);
  }
  std::ofstream out(path);
  for (const std::string& h : header) out << h << '\n';
  for (int k = 0; k < kCopies; ++k) {
    for (const std::string& e : events) out << Shift(e, k * 1000) << '\n';
  }
  return path;
}

const std::string& FtracePath() {
  static const std::string p = MakeInput("writesync.ftrace.txt", "ftrace.txt");
  return p;
}
const std::string& ReportPath() {
  static const std::string p = MakeInput("writesync.report.txt", "report.txt");
  return p;
}

class NullSink final : public EventSink {
 public:
  explicit NullSink(EventMask m) : mask_(m) {}
  EventMask wants() const override { return mask_; }
  absl::Status OnEvent(const Event& e) override {
    benchmark::DoNotOptimize(e.ts_ns);
    ++n;
    return absl::OkStatus();
  }
  EventMask mask_;
  uint64_t n = 0;
};

void Parse(benchmark::State& state, const std::string& path, EventMask mask) {
  uint64_t bytes = 0, events = 0;
  for (auto _ : state) {
    auto in = Input::Open(path);
    NullSink sink(mask);
    std::ostringstream err;
    Diagnostics diag(path, &err);
    auto st = parsers::ftrace_text::NewFtraceTextParser({})->Parse(**in, sink, diag);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
    bytes += (*in)->mapped()->size();
    events += sink.n;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(events));
}

// Tokenize only: the sink wants nothing but lost records, so no event text is decoded.
void BM_FtraceTextTokenize(benchmark::State& state) {
  Parse(state, FtracePath(), EventMask().Add(EventKind::kLost));
}
void BM_FtraceTextDecode(benchmark::State& state) { Parse(state, FtracePath(), EventMask::All()); }
void BM_ReportTextDecode(benchmark::State& state) { Parse(state, ReportPath(), EventMask::All()); }

// A streambuf that counts and drops what tk script writes.
class DropBuf : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += n;
    return n;
  }
  int overflow(int c) override { return c; }

 public:
  uint64_t bytes = 0;
};

void Script(benchmark::State& state, bool json) {
  uint64_t bytes = 0, events = 0;
  for (auto _ : state) {
    auto in = Input::Open(FtracePath());
    DropBuf buf;
    std::ostream out(&buf);
    analyses::script::Options opts;
    opts.json = json;
    analyses::script::ScriptSink sink(opts, out);
    std::ostringstream err;
    Diagnostics diag(FtracePath(), &err);
    auto st = parsers::ftrace_text::NewFtraceTextParser({})->Parse(**in, sink, diag);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
    bytes += (*in)->mapped()->size();
    events += sink.events();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(events));
}
void BM_ScriptText(benchmark::State& state) { Script(state, false); }
void BM_ScriptJson(benchmark::State& state) { Script(state, true); }

BENCHMARK(BM_FtraceTextTokenize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FtraceTextDecode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReportTextDecode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScriptText)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScriptJson)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tk

BENCHMARK_MAIN();
