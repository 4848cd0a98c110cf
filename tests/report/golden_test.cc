// tk report's own outputs (goldens under testdata/report/golden/, TK_BLESS=1 rewrites them;
// the perf-made references are in testdata/report/perf/ and are never rewritten): --json,
// --format top, -F, `perf script` text, every way in (file, stdin), help and bad input.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/report/fixture_args.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

std::vector<std::string> Args(std::vector<std::string> extra, const std::string& file) {
  extra.push_back(file);
  return FixtureArgs("report", "report", extra);
}

TEST(ReportGolden, Outputs) {
  std::string data = SourcePath("testdata/report/cxx.data");
  struct Case {
    std::string golden;
    std::vector<std::string> args;
  } cases[] = {
      {"cxx.default.txt", {}},
      {"cxx.json", {"--json"}},
      {"cxx.top.txt", {"--format", "top"}},
      {"cxx.top.json", {"--format", "top", "--json"}},
      {"cxx.fields.txt", {"-F", "overhead_children,sample,sym", "-q"}},
      {"cxx.pid-cpu.txt", {"--sort", "pid,cpu", "--no-children"}},
      {"cxx.symbols.txt", {"--symbols", "work::recurse", "-q"}},
  };
  for (const Case& c : cases) {
    RunResult r = RunTk(Args(c.args, data));
    EXPECT_EQ(r.exit_code, 0) << c.golden << r.err;
    ExpectGolden(r.out, "testdata/report/golden/" + c.golden);
    RunResult s = RunTk(Args(c.args, "-"), data);
    EXPECT_EQ(s.out, r.out) << c.golden << " from stdin";
  }
}

TEST(ReportGolden, JsonIsValidAndMatchesText) {
  RunResult r = RunTk(Args({"--json"}, SourcePath("testdata/report/cxx.data")));
  ASSERT_EQ(r.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["events"].size(), 1u);
  EXPECT_EQ(j["events"][0]["event"], "cpu-clock:pppH");
  EXPECT_TRUE(j["children"].get<bool>());
  uint64_t self = 0;
  for (const auto& row : j["events"][0]["rows"]) self += row["self"].get<uint64_t>();
  EXPECT_EQ(self, j["events"][0]["period"].get<uint64_t>());
}

// `perf script` text reports as the perf.data it came from (perf_data/g.script is g.data).
TEST(ReportGolden, PerfScriptTextEqualsPerfData) {
  std::string d = "testdata/perf_data/";
  std::vector<std::string> a =
      FixtureArgs("report", "perf_data", {"-q", "--no-children", "-n", "--show-total-period"});
  std::vector<std::string> text = a, data = a;
  text.push_back(SourcePath(d + "g.script"));
  data.push_back(SourcePath(d + "g.data"));
  RunResult t = RunTk(text), p = RunTk(data);
  EXPECT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out, p.out);
  a.push_back("-");
  EXPECT_EQ(RunTk(a, SourcePath(d + "g.script")).out, p.out);
}

TEST(ReportGolden, HelpAndBadInput) {
  RunResult h = RunTk({"help", "report"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--no-children"), std::string::npos);
  RunResult bad = RunTk({"report", "--sort", "comm,bogus", SourcePath("testdata/report/cxx.data")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "tk: report: unknown --sort key 'bogus'\n");
  RunResult garbage = RunTk({"report", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(garbage.exit_code, 1) << garbage.err;
  EXPECT_EQ(garbage.out, "");
  RunResult missing = RunTk({"report", "/nonexistent/perf.data"});
  EXPECT_EQ(missing.exit_code, 2);
  RunResult killed = RunTk({"report", "--no-buildid-cache", "--no-host-kallsyms",
                            SourcePath("testdata/perf_data/killed.data")});
  EXPECT_NE(killed.exit_code, 2) << killed.err;
}

// A file without samples (a sched recording: tracepoints only) says what it lacks, as every
// command that reads any event does; the sink counts its samples for it.
TEST(ReportGolden, FileWithoutSamplesSaysSo) {
  const std::string file = SourcePath("testdata/sched/chain.perf.data");
  for (const char* threads : {"1", "2"}) {
    RunResult r = RunTk({"report", "--threads", threads, "--no-host-kallsyms", file});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "tk: " + file +
                         ": none of the events this command reads (tk info lists what the file "
                         "holds)\n");
  }
}

}  // namespace
}  // namespace tk::testing
