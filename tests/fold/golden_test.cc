// `tk fold` through the real binary on the recorded fixtures of testdata/fold (expectations
// checked against stackcollapse-perf.pl, see testdata/fold/README.md), from a file and from
// stdin, with every flag.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const char* kFixtures[] = {"proc-g",      "proc-pidtid-g", "system-wide-g",
                           "two-events-g", "tracepoint-g", "crlf-g"};
const char* kModes[] = {"default", "pid", "tid", "kernel", "jit", "all", "addrs"};

std::vector<std::string> Args(const std::string& mode, const std::string& file) {
  std::vector<std::string> a = {"fold"};
  if (mode != "default") a.push_back("--" + mode);
  a.push_back(file);
  return a;
}

TEST(FoldGolden, FromFileEveryMode) {
  for (const char* f : kFixtures) {
    for (const char* m : kModes) {
      std::string in = SourcePath(std::string("testdata/fold/") + f + ".txt");
      RunResult r = RunTk(Args(m, in));
      EXPECT_EQ(r.exit_code, 0) << f << " " << m << r.err;
      ExpectGolden(r.out, std::string("testdata/fold/expected/") + f + "-" + m + ".folded");
    }
  }
}

TEST(FoldGolden, FromStdinEveryMode) {
  for (const char* f : kFixtures) {
    for (const char* m : {"default", "tid", "all"}) {
      std::string in = SourcePath(std::string("testdata/fold/") + f + ".txt");
      RunResult r = RunTk(Args(m, "-"), in);
      EXPECT_EQ(r.exit_code, 0) << f << " " << m << r.err;
      ExpectGolden(r.out, std::string("testdata/fold/expected/") + f + "-" + m + ".folded");
    }
  }
}

TEST(FoldGolden, TwoEventTypesMessage) {
  std::string in = SourcePath("testdata/fold/two-events-g.txt");
  RunResult r = RunTk({"fold", in});
  EXPECT_EQ(r.err, "Filtering for events of type: task-clock\n");
  RunResult f = RunTk({"fold", "--event-filter=task-clock", in});
  EXPECT_EQ(f.err, "");
  EXPECT_NE(f.out, r.out);
  EXPECT_NE(f.out.find("gzip;"), std::string::npos);
  RunResult g = RunTk({"fold", "--event-filter", "cpu-clock", in});
  EXPECT_EQ(g.out, r.out);
}

TEST(FoldGolden, SingleThreadEqualsDefault) {
  std::string in = SourcePath("testdata/fold/proc-g.txt");
  EXPECT_EQ(RunTk({"fold", "--threads", "1", "--tid", in}).out, RunTk({"fold", "--tid", in}).out);
}

TEST(FoldGolden, Errors) {
  RunResult missing = RunTk({"fold", "/nonexistent/perf.data"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/perf.data"), std::string::npos);
  EXPECT_EQ(RunTk({"fold", "--no-such-flag"}).exit_code, 2);
  RunResult help = RunTk({"fold", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--pid", "--tid", "--kernel", "--jit", "--all", "--addrs",
                           "--event-filter", "--symfs", "--kallsyms"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
  }
  RunResult garbage = RunTk({"fold", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("offset 0: unknown input format"), std::string::npos);
}

}  // namespace
}  // namespace tk::testing
