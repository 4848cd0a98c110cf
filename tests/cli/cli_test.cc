// The real binary: usage, help for every command, clear errors on bad input.
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

TEST(Cli, UsageAndHelp) {
  RunResult r = RunTk({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("usage: tk"), std::string::npos);
  for (const char* cmd : {"fold", "sched", "iolat", "script", "info"}) {
    RunResult h = RunTk({"help", cmd});
    EXPECT_EQ(h.exit_code, 0) << cmd << h.err;
    EXPECT_NE(h.out.find(std::string("tk ") + cmd), std::string::npos) << cmd << h.out;
    RunResult h2 = RunTk({cmd, "--help"});
    EXPECT_EQ(h2.out, h.out) << cmd;
  }
  EXPECT_EQ(RunTk({"nosuch"}).exit_code, 2);
  EXPECT_EQ(RunTk({"info", "--no-such-flag"}).exit_code, 2);
}

TEST(Cli, MissingFileIsAUsageError) {
  RunResult r = RunTk({"info", "/nonexistent/trace.dat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("tk: /nonexistent/trace.dat: cannot open", 0), 0u) << r.err;
}

TEST(Cli, GarbageIsADataErrorWithOffset) {
  RunResult r = RunTk({"info", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(": offset 0: unknown input format"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A malformed line bumps its declared counter (core/stats.h), and tk info names it with its
// value and description, in text and JSON, from a file and from stdin.
TEST(Cli, InfoShowsTheCounterAMalformedLineBumps) {
  const std::string in = SourcePath("tests/cli/malformed-lines.txt");
  ASSERT_TRUE(FileExists(in));
  for (bool from_stdin : {false, true}) {
    RunResult text = from_stdin ? RunTk({"info", "-"}, in) : RunTk({"info", in});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("\ncounters:\n  malformed_lines  3  text lines that are no event"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.err.find("3 malformed lines skipped (first at line 1)"), std::string::npos)
        << text.err;
    RunResult json = from_stdin ? RunTk({"info", "--json", "-"}, in) : RunTk({"info", "--json", in});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    nlohmann::json c = nlohmann::json::parse(json.out)["counters"];
    ASSERT_EQ(c.size(), 1u) << json.out;
    EXPECT_EQ(c["malformed_lines"]["value"], 3);
    EXPECT_EQ(c["malformed_lines"]["severity"], "error");
    EXPECT_FALSE(c["malformed_lines"]["description"].get<std::string>().empty());
  }
  // A clean input fires no counter.
  RunResult clean = RunTk({"info", "--json", SourcePath("testdata/fold/proc-g.txt")});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_TRUE(nlohmann::json::parse(clean.out)["counters"].empty()) << clean.out;
}

// `tk fold --json` carries exactly the stacks and counts of the folded text.
TEST(Cli, FoldJsonMatchesFoldedText) {
  std::string in = SourcePath("testdata/fold/proc-g.txt");
  ASSERT_TRUE(FileExists(in));
  RunResult text = RunTk({"fold", in});
  RunResult json = RunTk({"fold", "--json", in});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  std::string rebuilt;
  uint64_t total = 0;
  for (const auto& s : j["stacks"]) {
    std::string line;
    for (const auto& f : s["frames"]) line += (line.empty() ? "" : ";") + f.get<std::string>();
    rebuilt += line + " " + std::to_string(s["count"].get<uint64_t>()) + "\n";
    total += s["count"].get<uint64_t>();
  }
  EXPECT_EQ(rebuilt, text.out);
  EXPECT_EQ(j["total"].get<uint64_t>(), total);
  EXPECT_GT(total, 0u);
}

// A comm that is not UTF-8 (comms are raw bytes) must not abort a JSON report: nlohmann
// throws on invalid UTF-8 unless told to replace it.
TEST(Cli, JsonReportsSurviveNonUtf8Comms) {
  std::string in = SourcePath("tests/cli/bad-utf8-comm.txt");
  const std::vector<std::vector<std::string>> cmds = {
      {"sched", "latency", "--json"}, {"sched", "latency", "-p", "--json"},
      {"sched", "top", "--json"},     {"sched", "hist", "--json"},
      {"sched", "util", "--json"},    {"info", "--json"}};
  for (std::vector<std::string> args : cmds) {
    args.push_back(in);
    RunResult r = RunTk(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_NO_THROW((void)nlohmann::json::parse(r.out)) << args[0] << " " << args[1];
  }
  // iolat reads no sched-only file: one line, no JSON (tests/inputs/refusal_test.cc).
  EXPECT_EQ(RunTk({"iolat", "--json", in}).exit_code, 1);
  RunResult s = RunTk({"script", "--json", in});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("\"prev_comm\""), std::string::npos);
}

}  // namespace
}  // namespace tk::testing
