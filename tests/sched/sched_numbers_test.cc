// The numbers a perf user compares (issue 10): runtime without sched_stat_runtime, the note
// on stderr when tk's default rules differ from perf 6.1's.
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kSched = "testdata/recorded/sched/";

// Lines of `text` that contain `needle`.
int CountLines(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

// writesync.trace.dat was recorded with sched_switch and sched_wakeup only: latency's Runtime
// comes from switch pairs and equals timehist -s's run time per thread (perf prints 0.000).
TEST(SchedNumbers, LatencyRuntimeFromSwitchPairsWithoutStatRuntime) {
  const std::string f = SourcePath("testdata/recorded/iolat/writesync.trace.dat");
  RunResult lat = RunTk({"sched", "latency", "-p", "--json", f});
  ASSERT_EQ(lat.exit_code, 0) << lat.err;
  RunResult th = RunTk({"sched", "timehist", "-s", "--json", f});
  ASSERT_EQ(th.exit_code, 0) << th.err;
  std::map<int, double> run_ms;
  std::istringstream lines(th.out);
  std::string line;
  while (std::getline(lines, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] == "task") run_ms[j["tid"]] = j["run_ms"];
  }
  nlohmann::json j = nlohmann::json::parse(lat.out);
  EXPECT_EQ(j["runtime_source"], "sched_switch");
  int compared = 0;
  double total = 0;
  for (const auto& t : j["tasks"]) {
    int tid = t["pids"][0];
    ASSERT_TRUE(run_ms.count(tid)) << tid;
    // timehist prints µs-truncated milliseconds; latency the exact sum.
    EXPECT_NEAR(t["runtime_ms"].get<double>(), run_ms[tid], 0.0011 * 50) << tid;
    total += t["runtime_ms"].get<double>();
    ++compared;
  }
  EXPECT_GT(compared, 10);
  EXPECT_GT(total, 1.0);
  // --compat perf-6.1 prints perf's 0.000.
  RunResult compat = RunTk({"sched", "latency", "--compat", "perf-6.1", f});
  ASSERT_EQ(compat.exit_code, 0) << compat.err;
  EXPECT_NE(compat.out.find("TOTAL:                |      0.000 ms |"), std::string::npos)
      << compat.out;
  // sched_stat_runtime present: its sum, as perf.
  RunResult with = RunTk({"sched", "latency", "--json", SourcePath(kSched + "sched.trace.dat")});
  EXPECT_EQ(nlohmann::json::parse(with.out)["runtime_source"], "sched_stat_runtime");
}

// The fixture has sched_waking and preempted (R+) switch-outs: tk's default numbers differ
// from perf 6.1's, and tk says so once on stderr, naming the flag. --compat: no note.
TEST(SchedNumbers, LatencySaysOnceWhenPerf61RulesDiffer) {
  const std::string f = SourcePath(kSched + "sched.perf.data");
  RunResult def = RunTk({"sched", "latency", f});
  ASSERT_EQ(def.exit_code, 0) << def.err;
  EXPECT_EQ(CountLines(def.err, "--compat perf-6.1"), 1) << def.err;
  RunResult compat = RunTk({"sched", "latency", "--compat", "perf-6.1", f});
  EXPECT_EQ(CountLines(compat.err, "--compat"), 0) << compat.err;
  // The iolat recording has no sched_waking: only R+ could make a difference.
  RunResult io = RunTk({"sched", "latency", SourcePath("testdata/recorded/iolat/writesync.trace.dat")});
  ASSERT_EQ(io.exit_code, 0) << io.err;
  RunResult io61 = RunTk({"sched", "latency", "--compat", "perf-6.1",
                          SourcePath("testdata/recorded/iolat/writesync.trace.dat")});
  // No note exactly when the delay columns agree.
  auto delays = [](const std::string& t) {
    std::string out;
    std::istringstream in(t);
    std::string l;
    while (std::getline(in, l))
      if (l.find("| avg:") != std::string::npos) out += l.substr(l.find("|", 26)) + "\n";
    return out;
  };
  EXPECT_EQ(CountLines(io.err, "--compat perf-6.1") == 0, delays(io.out) == delays(io61.out))
      << io.err;
}

// timehist: the sch delay after an R+ switch-out (perf 6.1 prints 0) — rows differ, one note.
TEST(SchedNumbers, TimehistSaysOnceWhenPerf61RulesDiffer) {
  const std::string f = SourcePath(kSched + "sched.perf.data");
  RunResult def = RunTk({"sched", "timehist", f});
  ASSERT_EQ(def.exit_code, 0) << def.err;
  EXPECT_EQ(CountLines(def.err, "--compat perf-6.1"), 1) << def.err;
  EXPECT_NE(def.err.find("rows follow current perf"), std::string::npos) << def.err;
  RunResult compat = RunTk({"sched", "timehist", "--compat", "perf-6.1", f});
  EXPECT_EQ(CountLines(compat.err, "--compat"), 0) << compat.err;
  // rcu_preempt only sleeps (S): its rows equal perf 6.1's, no note. (<idle> always leaves
  // in R, so its rows get a sch delay from current perf's rule.)
  RunResult quiet = RunTk({"sched", "timehist", "-p", "15", f});
  RunResult quiet61 = RunTk({"sched", "timehist", "-p", "15", "--compat", "perf-6.1", f});
  EXPECT_EQ(quiet.out, quiet61.out);
  EXPECT_EQ(CountLines(quiet.err, "--compat"), 0) << quiet.err;
}

// Every --json line is valid UTF-8 (a comm is raw bytes: 0xFF 0xFE here becomes U+FFFD),
// times are numbers in ns ("ts_ns"), never strings.
TEST(SchedNumbers, TimehistJsonIsValidUtf8WithNumericTimes) {
  const std::string in = SourcePath("tests/cli/bad-utf8-comm.txt");
  for (std::vector<std::string> args :
       {std::vector<std::string>{"sched", "timehist", "--json", "-w", "-M", "-S"},
        std::vector<std::string>{"script", "--json"}}) {
    args.push_back(in);
    RunResult r = RunTk(args);
    ASSERT_EQ(r.exit_code, 0) << args[1] << r.err;
    EXPECT_EQ(r.out.find('\xff'), std::string::npos) << args[1];
    EXPECT_NE(r.out.find("\xef\xbf\xbd"), std::string::npos) << args[1] << r.out;
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      nlohmann::json j;
      ASSERT_NO_THROW(j = nlohmann::json::parse(line)) << line;  // throws on invalid UTF-8
      if (args[1] == "timehist" && j["type"] == "switch") {
        EXPECT_TRUE(j["ts_ns"].is_number_integer()) << line;
        EXPECT_FALSE(j.contains("time")) << line;
      }
      ++n;
    }
    EXPECT_GT(n, 1) << args[1];
  }
  RunResult top = RunTk({"sched", "top", "--json", SourcePath(kSched + "sched.perf-script.txt")});
  nlohmann::json t = nlohmann::json::parse(top.out);
  ASSERT_FALSE(t["top"].empty());
  EXPECT_TRUE(t["top"][0]["wakeup_ns"].is_number_integer()) << top.out;
  EXPECT_TRUE(t["top"][0]["switch_ns"].is_number_integer()) << top.out;
}

// --compat perf-6.1 on the lost-events fixture: byte for byte perf's, INFO lines included
// ("9742 out of 5918": perf's total counts every record of the file, MMAP and COMM too).
TEST(SchedNumbers, LatencyCompatInfoTotalsArePerfs) {
  const std::string f = SourcePath("testdata/sched/lost.perf.data");
  RunResult l = RunTk({"sched", "latency", "--compat", "perf-6.1", f});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  const std::string want = ReadFile(SourcePath("testdata/sched/perf.lost.latency.txt"));
  ASSERT_NE(want.find("(9742 out of 5918, in 3 chunks)"), std::string::npos);
  EXPECT_EQ(l.out, want) << UnifiedDiff(want, l.out);
}

// tk info names the byte order with the same words for every binary format (perf.data said
// "native", trace.dat "little-endian").
TEST(SchedNumbers, InfoByteOrderIsOneVocabulary) {
  std::string seen;
  for (const char* f : {"sched.perf.data", "sched.trace.dat", "sched.v6.trace.dat"}) {
    RunResult r = RunTk({"info", "--json", SourcePath(kSched + f)});
    ASSERT_EQ(r.exit_code, 0) << f << r.err;
    std::string bo = nlohmann::json::parse(r.out)["byte_order"];
    EXPECT_TRUE(bo == "little-endian" || bo == "big-endian") << f << ": " << bo;
    if (seen.empty()) seen = bo;
    EXPECT_EQ(bo, seen) << f;  // one recording, one machine
  }
}

// -I/--idle-hist and -V/--cpu-visual, byte for byte perf 6.1's (testdata/sched/perf-outputs.sh).
TEST(SchedNumbers, TimehistIdleHistAndCpuVisualArePerf61s) {
  struct Case {
    std::vector<std::string> flags;
    const char* expected;
  } cases[] = {
      {{"-I"}, "testdata/sched/perf.timehist-I.txt"},
      {{"--idle-hist", "-s"}, "testdata/sched/perf.timehist-I-s.txt"},
      {{"-I", "-S", "-V", "-C", "0"}, "testdata/sched/perf.timehist-I-S-V-C0.txt"},
      {{"-V", "--time", "987.30,987.31"}, "testdata/sched/perf.timehist-V-time.txt"},
      {{"--cpu-visual", "-w", "-M", "--time", "987.30,987.31"},
       "testdata/sched/perf.timehist-V-w-M-time.txt"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sched", "timehist", "--compat", "perf-6.1"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.push_back(SourcePath(kSched + "sched.perf.data"));
    RunResult r = RunTk(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string want = ReadFile(SourcePath(c.expected));
    ASSERT_FALSE(want.empty()) << c.expected;
    EXPECT_EQ(r.out, want) << c.expected << "\n" << UnifiedDiff(want, r.out);
  }
}

}  // namespace
}  // namespace tk::testing
