// The real binary on the recorded fixture (testdata/recorded/sched: perf sched record of a
// pipe ping-pong, busy loops and sleepers), against perf 6.1's own output of the same file
// (testdata/sched/perf.*.txt, made by testdata/sched/perf-outputs.sh).
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/recorded/sched/";

// Runs tk; skips the test when the format's reader has not landed.
RunResult RunOrSkip(const std::vector<std::string>& args, const std::string& stdin_path = "") {
  RunResult r = RunTk(args, stdin_path);
  return r;
}

bool NotSupported(const RunResult& r) {
  return r.err.find("not supported yet") != std::string::npos;
}

TEST(SchedCli, LatencyCompatIsPerf61ByteForByte) {
  struct Case {
    std::vector<std::string> flags;
    const char* expected;
  } cases[] = {{{}, "testdata/sched/perf.latency.txt"},
               {{"-p"}, "testdata/sched/perf.latency-p.txt"},
               {{"-s", "max"}, "testdata/sched/perf.latency-s-max.txt"}};
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sched", "latency", "--compat", "perf-6.1"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.push_back(SourcePath(kDir + "sched.perf.data"));
    RunResult r = RunOrSkip(args);
    if (NotSupported(r)) GTEST_SKIP() << "perf.data reader not landed: " << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(SourcePath(c.expected)))
        << c.expected << "\n" << UnifiedDiff(ReadFile(SourcePath(c.expected)), r.out);
  }
}

}  // namespace
}  // namespace tk::testing
