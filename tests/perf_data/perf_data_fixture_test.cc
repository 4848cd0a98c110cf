// The reader on real recordings: the fixtures of testdata/perf_data (record.sh) against
// `perf script` and stackcollapse-perf.pl outputs of the same files, and the third-party
// files of /work/shared/corpus/perf-data.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/str_split.h"
#include "core/absl_compat.h"
#include "core/timestamp.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "parsers/parser.h"
#include "tests/perf_data/collect_sink.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const char* kFixtures[] = {"g", "a", "multi", "z", "pipe"};

std::string Fixture(const std::string& name) { return SourcePath("testdata/perf_data/" + name); }

std::vector<std::string> SymArgs() {
  return {"--symfs", Fixture("symfs"), "--kallsyms", Fixture("kallsyms"), "--no-buildid-cache",
          "--no-host-kallsyms"};
}

struct ScriptSample {
  std::string comm, time, event;
  int tid = -1, cpu = -1;
  uint64_t period = 0;
  std::vector<std::string> frames;  // "addr sym (dso)" without +0x offsets
};

// `perf script` default output:
//   workload 23101 [001]  2240.207125:     250000 cpu-clock:ppp:
//   	ffffffff8130a531 ret_from_fork+0x31 ([kernel.kallsyms])
//   	            1149 middle+0x19 (/tmp/tk-perf-fixture/workload)
std::vector<ScriptSample> ParseScript(const std::string& text) {
  static const std::regex kHeader(R"(^\s*(.+?)\s+(\d+)\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(\d+)\s+(\S+):\s*$)");
  static const std::regex kFrame(R"(^\s+([0-9a-f]+) (.+?)(\+0x[0-9a-f]+)? \((.*)\)$)");
  std::vector<ScriptSample> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::string l(line);
    std::smatch m;
    if (std::regex_match(l, m, kHeader)) {
      ScriptSample s;
      s.comm = m[1];
      s.tid = std::stoi(m[2]);
      s.cpu = m[3].matched ? std::stoi(m[3]) : -1;
      s.time = m[4];
      s.period = std::stoull(m[5]);
      s.event = m[6];
      out.push_back(s);
    } else if (std::regex_match(l, m, kFrame) && !out.empty()) {
      out.back().frames.push_back(std::string(m[1]) + " " + std::string(m[2]) + " (" + std::string(m[4]) + ")");
    }
  }
  return out;
}

std::vector<Got> ReadFixture(const std::string& name, std::string* err = nullptr) {
  auto in = Input::Open(Fixture(name + ".data"));
  EXPECT_TRUE(in.ok());
  ParseOptions opts;
  opts.symfs = Fixture("symfs");
  opts.kallsyms = Fixture("kallsyms");
  opts.use_buildid_cache = false;
  opts.use_host_kallsyms = false;
  CollectSink sink;
  std::ostringstream es;
  Diagnostics diag(name, &es);
  absl::Status st = ParseInput(**in, opts, sink, diag);
  EXPECT_TRUE(st.ok()) << st;
  if (err) *err = es.str();
  std::vector<Got> samples;
  for (Got& g : sink.events)
    if (g.kind == EventKind::kSample) samples.push_back(std::move(g));
  return samples;
}

// Every sample, field for field and frame for frame, as `perf script` printed it.
TEST(PerfDataFixture, SamplesMatchPerfScript) {
  for (const char* f : kFixtures) {
    std::vector<ScriptSample> want = ParseScript(ReadFile(Fixture(std::string(f) + ".script")));
    std::vector<Got> got = ReadFixture(f);
    ASSERT_FALSE(want.empty()) << f;
    ASSERT_EQ(got.size(), want.size()) << f;
    for (size_t i = 0; i < got.size(); ++i) {
      const Got& g = got[i];
      const ScriptSample& w = want[i];
      SCOPED_TRACE(std::string(f) + " sample " + std::to_string(i) + " at " + w.time);
      EXPECT_EQ(g.comm, w.comm);
      EXPECT_EQ(g.tid, w.tid);
      if (w.cpu >= 0) EXPECT_EQ(g.cpu, w.cpu);
      EXPECT_EQ(FormatTimestamp(g.ts, 6), w.time);
      EXPECT_EQ(g.period, w.period);
      EXPECT_EQ(g.name, w.event);
      std::vector<std::string> frames;
      for (size_t k = 0; k < g.frames.size(); ++k) {
        std::ostringstream s;
        s << std::hex << g.frames[k].ip << " " << g.syms[k] << " (" << g.dsos[k] << ")";
        frames.push_back(s.str());
      }
      EXPECT_EQ(frames, w.frames);
    }
  }
}

// tk fold == perf script | stackcollapse-perf.pl, from a file and from stdin.
TEST(PerfDataFixture, FoldMatchesStackcollapse) {
  // a.data (system-wide) is compared frame by frame above; its fold differs where perf's text
  // loses information tk keeps (a DSO path with a space, a sample whose stack perf dropped).
  for (const char* f : {"g", "multi", "z", "pipe"}) {
    std::vector<std::string> args = {"fold"};
    for (const std::string& a : SymArgs()) args.push_back(a);
    args.push_back(Fixture(std::string(f) + ".data"));
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << f << r.err;
    EXPECT_EQ(r.out, ReadFile(Fixture(std::string(f) + ".folded"))) << f;
    args.back() = "-";
    RunResult s = RunTk(args, Fixture(std::string(f) + ".data"));
    EXPECT_EQ(s.out, r.out) << f << " from stdin";
  }
  std::vector<std::string> args = {"fold", "--event-filter=task-clock"};
  for (const std::string& a : SymArgs()) args.push_back(a);
  args.push_back(Fixture("multi.data"));
  EXPECT_EQ(RunTk(args).out, ReadFile(Fixture("multi.task-clock.folded")));
}

// A kallsyms from another boot of the same kernel (KASLR moved it by 32 MiB): kernel frames
// still resolve, by the recorded "[kernel.kallsyms]_text" address, as `perf script
// --kallsyms` of that file does (checked when the fixture was made: identical output).
TEST(PerfDataFixture, KallsymsOfAnotherBootIsRelocated) {
  std::string shifted = ::testing::TempDir() + "/kallsyms.kaslr";
  {
    std::ofstream out(shifted);
    std::istringstream in(ReadFile(Fixture("kallsyms")));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      size_t sp = line.find(' ');
      uint64_t addr = std::stoull(std::string(line.substr(0, sp)), nullptr, 16) + 0x2000000;
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(addr));
      out << hex << line.substr(sp) << "\n";
    }
  }
  for (const char* f : {"g", "z"}) {
    std::vector<std::string> args = {"fold", "--symfs", Fixture("symfs"), "--kallsyms", shifted,
                                     "--no-buildid-cache", "--no-host-kallsyms",
                                     Fixture(std::string(f) + ".data")};
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(Fixture(std::string(f) + ".folded"))) << f;
  }
}

TEST(PerfDataFixture, InfoJson) {
  RunResult r = RunTk({"info", "--json", Fixture("multi.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "perf.data");
  EXPECT_GT(j["samples"].get<int>(), 0);
  EXPECT_TRUE(j["events"].contains("cpu-clock")) << j["events"];
  EXPECT_TRUE(j["events"].contains("task-clock")) << j["events"];
  EXPECT_EQ(j["lost"], 0);
  EXPECT_EQ(j["perf_version"], "6.1.187");
  EXPECT_EQ(j["perf_events"].size(), 2u);
  RunResult p = RunTk({"info", "--json", "-"}, Fixture("pipe.data"));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  nlohmann::json pj = nlohmann::json::parse(p.out);
  EXPECT_EQ(pj["format"], "perf.data (pipe mode)");
  EXPECT_EQ(pj["pipe_mode"], true);
  RunResult z = RunTk({"info", "--json", Fixture("z.data")});
  nlohmann::json zj = nlohmann::json::parse(z.out);
  EXPECT_EQ(zj["compression"]["type"], "zstd");
  EXPECT_GT(zj["compression"]["compressed_records"].get<int>(), 0);
}

TEST(PerfDataFixture, KilledRecording) {
  std::string err;
  std::vector<Got> got = ReadFixture("killed", &err);
  EXPECT_GT(got.size(), 100u);
  EXPECT_NE(err.find("data size 0 in the header"), std::string::npos) << err;
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].ts, got[i].ts);
}

// ---- /work/shared/corpus/perf-data -------------------------------------------------------

std::optional<std::string> Corpus() {
  std::optional<std::string> d = SharedDir();
  if (!d) return std::nullopt;
  return *d + "/corpus/perf-data";
}

TEST(PerfDataCorpus, EveryFileParses) {
  std::optional<std::string> dir = Corpus();
  if (!dir) GTEST_SKIP() << "no /work/shared";
  for (const char* f : {"linux-perf-data/sleep.data", "linux-perf-data/sleep.compressed.data",
                        "linux-perf-data/sleep.compressed2.data", "linux-perf-data/sleep.compressed.pipe.data",
                        "linux-perf-data/sleep.compressed2.pipe.data",
                        "linux-perf-data/fibo.compressed2.pipe.data", "linuxtracepoints/perf.data",
                        "linuxtracepoints/pipe.data", "hotspot/perf.data.true.v2",
                        "hotspot/perf.data.PerfFormatLost"}) {
    RunResult r = RunTk({"info", "--json", *dir + "/" + f});
    ASSERT_EQ(r.exit_code, 0) << f << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["samples"].get<int>(), 0) << f;
    EXPECT_EQ(j.value("malformed_records", 0), 0) << f << r.err;
  }
  RunResult v1 = RunTk({"info", *dir + "/hotspot/perf.data.true.v1"});
  EXPECT_EQ(v1.exit_code, 1);
  EXPECT_NE(v1.err.find("obsolete perf.data version 1"), std::string::npos) << v1.err;
  // Known sample counts (perf script of the files perf 6.1 can read; the others by hand).
  auto samples = [&](const std::string& f) {
    return nlohmann::json::parse(RunTk({"info", "--json", *dir + "/" + f}).out)["samples"].get<int>();
  };
  EXPECT_EQ(samples("linux-perf-data/fibo.compressed2.pipe.data"), 547);
  EXPECT_EQ(samples("linux-perf-data/sleep.compressed.pipe.data"), 8);
  EXPECT_EQ(samples("hotspot/perf.data.PerfFormatLost"), 34);
  EXPECT_EQ(samples("linuxtracepoints/pipe.data"), 551);
}

// "2024-03-28T00:45:12.640913120Z" -> ns within the day (differences are what is compared).
int64_t IsoNs(const std::string& t) {
  int h = std::stoi(t.substr(11, 2)), m = std::stoi(t.substr(14, 2));
  std::optional<int64_t> s = ParseTimestampNs(t.substr(17, t.size() - 18));
  return (h * 3600 + m * 60) * 1000000000LL + s.value_or(0);
}

// linuxtracepoints: every event against an independent decoder's JSON (*.linux.json).
TEST(PerfDataCorpus, TracepointsMatchIndependentDecoder) {
  std::optional<std::string> dir = Corpus();
  if (!dir) GTEST_SKIP() << "no /work/shared";
  for (const char* f : {"perf.data", "pipe.data"}) {
    std::string path = *dir + "/linuxtracepoints/" + f;
    std::vector<nlohmann::json> want;
    for (absl::string_view line : absl::StrSplit(ReadFile(path + ".linux.json"), '\n')) {
      std::string l(absl::StripAsciiWhitespace(line));
      if (!l.starts_with("{\"n\"")) continue;
      if (l.back() == ',') l.pop_back();
      want.push_back(nlohmann::json::parse(l, nullptr, false));
    }
    auto in = Input::Open(path);
    ASSERT_TRUE(in.ok());
    CollectSink sink;
    std::ostringstream es;
    Diagnostics diag(f, &es);
    ParseOptions opts;
    opts.use_buildid_cache = opts.use_host_kallsyms = false;
    ASSERT_TRUE(ParseInput(**in, opts, sink, diag).ok());
    std::vector<Got> got;
    for (Got& g : sink.events)
      if (IsStackEvent(g.kind)) got.push_back(g);
    ASSERT_EQ(got.size(), want.size()) << f;
    // The reference lists events in file order, tk in time order: compare sorted keys
    // "time cpu pid tid name [prev_comm prev_pid prev_prio next_comm next_pid next_prio]".
    int64_t t0 = INT64_MAX, w0 = INT64_MAX;
    for (const Got& g : got) t0 = std::min(t0, g.ts);
    for (const nlohmann::json& w : want)
      if (!w.is_discarded()) w0 = std::min(w0, IsoNs(w["meta"]["time"]));
    std::vector<std::string> gk, wk;
    for (size_t i = 0; i < got.size(); ++i) {
      if (want[i].is_discarded()) continue;  // a line with bytes that are not UTF-8
      const nlohmann::json& w = want[i];
      std::string key = std::to_string(IsoNs(w["meta"]["time"]) - w0) + " " +
                        std::to_string(w["meta"]["cpu"].get<int>()) + " " +
                        std::to_string(w["meta"]["pid"].get<int>()) + " " +
                        std::to_string(w["meta"]["tid"].get<int>());
      // user_events: the reference names them by their EventHeader provider:event, perf and
      // tk by the tracepoint ("user_events:TestProviderC_L5K0"); sched names agree.
      if (w["n"].get<std::string>().starts_with("sched:")) key += " " + w["n"].get<std::string>();
      if (w["n"] == "sched:sched_switch") {
        key += " " + w["prev_comm"].get<std::string>() + " " +
               std::to_string(std::stoi(w["prev_pid"].get<std::string>(), nullptr, 0)) + " " +
               std::to_string(w["prev_prio"].get<int>()) + " " + w["next_comm"].get<std::string>() +
               " " + std::to_string(std::stoi(w["next_pid"].get<std::string>(), nullptr, 0)) + " " +
               std::to_string(w["next_prio"].get<int>());
      }
      wk.push_back(key);
    }
    for (const Got& g : got) {
      std::string key = std::to_string(g.ts - t0) + " " + std::to_string(g.cpu) + " " +
                        std::to_string(g.pid) + " " + std::to_string(g.tid);
      if (g.name.starts_with("sched:")) key += " " + g.name;
      if (!g.detail.empty()) key += " " + g.detail;
      gk.push_back(key);
    }
    std::sort(gk.begin(), gk.end());
    std::sort(wk.begin(), wk.end());
    // Events whose JSON line was not UTF-8 are missing from wk: every wk key must be in gk.
    std::vector<std::string> missing;
    std::set_difference(wk.begin(), wk.end(), gk.begin(), gk.end(), std::back_inserter(missing));
    EXPECT_TRUE(missing.empty()) << f << ": " << missing.size() << " differ, first: " << missing[0];
    for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].ts, got[i].ts) << f << " time order";
  }
}

}  // namespace
}  // namespace tk::testing
