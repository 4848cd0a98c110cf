// --threads 1 and --threads 2 give the same bytes (stdout, stderr, exit code) for every
// command that reads perf.data, on file-mode, compressed (-z), pipe-mode, killed and
// multi-event fixtures, from a file and from stdin. With 2, the perf.data reader frames and
// time-orders records on a second thread (core/batch_pipe.h) while the first decodes them;
// likewise the trace.dat reader merges its per-CPU streams on a second thread; perf script
// text is folded in two halves.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {
using testing::RunResult;
using testing::RunTk;
using testing::SourcePath;

struct Case {
  std::vector<std::string> args;  // before the input
  std::string input;              // relative to the source dir
};

std::vector<std::string> NoHost() { return {"--no-buildid-cache", "--no-host-kallsyms"}; }

std::vector<Case> Cases() {
  const std::string pd = "testdata/perf_data/";
  const std::string sched = "testdata/recorded/sched/sched.perf.data";
  const std::string io = "testdata/recorded/iolat/writesync.perf.data";
  const std::string rec = "testdata/recorded/";
  std::vector<Case> c;
  for (const char* f : {"a.data", "z.data", "pipe.data", "killed.data", "multi.data", "g.data"}) {
    c.push_back({{"script"}, pd + f});
    c.push_back({{"fold"}, pd + f});
  }
  c.push_back({{"sched", "latency"}, sched});
  c.push_back({{"sched", "timehist"}, sched});
  c.push_back({{"sched", "hist"}, sched});
  c.push_back({{"sched", "top"}, sched});
  c.push_back({{"script"}, sched});
  c.push_back({{"iolat"}, io});
  c.push_back({{"script"}, io});
  // perf.data in two parts on two threads (parsers/perf_data/session.h RunSessionParts),
  // forced on these small files: split where a round falls inside, else one pass (lost
  // records: parsed again in one pass for the messages).
  for (const std::string f : {pd + "a.data", std::string("testdata/offcpu/offcpu.data"), io,
                              rec + "lost/lost.perf.data", std::string("testdata/sched/lost.perf.data")}) {
    c.push_back({{"fold", "--perf-data-split-min", "1"}, f});
    c.push_back({{"fold", "--perf-data-split-min", "1", "--tid", "--all", "--addrs"}, f});
  }
  c.push_back({{"fold", "--perf-data-split-min", "1", "--pid", "--kernel"}, pd + "a.data"});
  c.push_back({{"report"}, pd + "a.data"});
  c.push_back({{"report"}, pd + "z.data"});
  // trace.dat: with 2 threads the per-CPU streams are merged on a reader thread
  // (parsers/trace_dat/record_merge.h). v7 zstd and v6, lost events, kernel stacks.
  for (const std::string f : {rec + "sched/sched.trace.dat", rec + "sched/sched.v6.trace.dat"}) {
    c.push_back({{"sched", "timehist"}, f});
    c.push_back({{"sched", "latency"}, f});
    c.push_back({{"script"}, f});
  }
  c.push_back({{"iolat"}, rec + "iolat/writesync.trace.dat"});
  c.push_back({{"iolat"}, rec + "iolat/writesync.v6.trace.dat"});
  c.push_back({{"script"}, rec + "lost/lost.trace.dat"});
  c.push_back({{"script"}, "testdata/trace_dat/overrun.v7.dat"});
  c.push_back({{"script"}, "testdata/trace_dat/sched_block.v7.dat"});
  c.push_back({{"script"}, "testdata/offcpu/offcpu.trace.dat"});
  c.push_back({{"fold", "--off-cpu"}, "testdata/offcpu/offcpu.trace.dat"});
  // perf script text (parts parsed on two threads when big enough; small ones on one).
  for (const char* f : {"proc-g.txt", "system-wide-g.txt", "two-events-g.txt", "crlf-g.txt"}) {
    c.push_back({{"fold"}, std::string("testdata/fold/") + f});
  }
  return c;
}

RunResult RunCase(const Case& c, int threads, bool from_stdin) {
  std::vector<std::string> args = c.args;
  if (c.args[0] == "script" || c.args[0] == "fold" || c.args[0] == "report") {
    for (const std::string& a : NoHost()) args.push_back(a);
  }
  args.push_back("--threads");
  args.push_back(std::to_string(threads));
  if (from_stdin) {
    args.push_back("-");
    return RunTk(args, SourcePath(c.input));
  }
  args.push_back(SourcePath(c.input));
  return RunTk(args);
}

TEST(Threads, OneAndTwoGiveTheSameBytes) {
  for (const Case& c : Cases()) {
    for (bool from_stdin : {false, true}) {
      SCOPED_TRACE(c.args[0] + (c.args.size() > 1 ? " " + c.args[1] : "") + " " + c.input +
                   (from_stdin ? " (stdin)" : ""));
      RunResult one = RunCase(c, 1, from_stdin);
      RunResult two = RunCase(c, 2, from_stdin);
      EXPECT_FALSE(one.out.empty());
      EXPECT_EQ(one.exit_code, two.exit_code);
      EXPECT_EQ(one.out, two.out);
      EXPECT_EQ(one.err, two.err);
    }
  }
}

// Issue 16: `--threads` documented in every command's help (tk fold's own option was hidden
// until session 8), so every command `tk help` lists is here, with sched's subcommands.
TEST(Threads, HelpNamesTheOption) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"fold", "--help"},          {"sched", "--help"},       {"sched", "latency", "--help"},
           {"sched", "timehist", "--help"}, {"sched", "hist", "--help"}, {"iolat", "--help"},
           {"script", "--help"},        {"info", "--help"},        {"cputop", "--help"},
           {"irq", "--help"},           {"syscalls", "--help"},    {"memtop", "--help"},
           {"report", "--help"},        {"pprof", "--help"},       {"sql", "--help"},
           {"merge", "--help"},         {"flamegraph", "--help"},  {"diff", "--help"}}) {
    RunResult r = RunTk(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd[0];
    EXPECT_NE(r.out.find("--threads"), std::string::npos) << cmd[0];
    EXPECT_NE(r.out.find("--quiet"), std::string::npos) << cmd[0];
  }
}

TEST(Threads, ZeroIsAUsageError) {
  for (const char* cmd : {"script", "fold"}) {
    RunResult r = RunTk({cmd, "--threads", "0", SourcePath("testdata/perf_data/a.data")});
    EXPECT_EQ(r.exit_code, 2) << cmd;
  }
}

}  // namespace
}  // namespace tk
