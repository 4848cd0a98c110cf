// Live: record a fresh set with testdata/recorded/record-lttng.sh (root, perf, trace-cmd,
// tracefs; skips with the reason otherwise) and check tk against perf's own output of it:
// `tk syscalls --compat perf-trace` = `perf trace -s`, `tk memtop --compat perf-kmem` =
// `perf kmem --page stat`, and every report reads every fresh form.
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

class LttngLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (perf -a, tracefs)";
    char t[] = "/tmp/tk-live-lttng.XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    std::string cmd = SourcePath("testdata/recorded/record-lttng.sh") + " " + dir_ +
                      " > " + dir_ + "/record.log 2>&1";
    int st = std::system(cmd.c_str());
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc == 77) GTEST_SKIP() << ReadFile(dir_ + "/record.log");
    ASSERT_EQ(rc, 0) << ReadFile(dir_ + "/record.log");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string dir_;
};

TEST_F(LttngLive, CompatModesEqualPerfOnAFreshRecording) {
  RunResult t = RunTk({"syscalls", "--compat", "perf-trace", dir_ + "/trace.perf.data"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::string want = ReadFile(dir_ + "/trace.summary.txt");
  EXPECT_EQ(t.out, want) << UnifiedDiff(want, t.out);
  RunResult k = RunTk({"memtop", "--compat", "perf-kmem", dir_ + "/kmem.perf.data"});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  want = ReadFile(dir_ + "/kmem.stat.txt");
  EXPECT_EQ(k.out, want) << UnifiedDiff(want, k.out);
  for (const char* cmd : {"irq", "syscalls", "cputop", "memtop"}) {
    for (const char* f : {"lttng.perf.data", "lttng.perf-script.txt", "lttng.trace.dat",
                          "lttng.v6.trace.dat", "lttng.report.txt", "lttng.report-raw.txt",
                          "lttng.ftrace.txt", "lttng.ftrace-noirq.txt", "lttng.ftrace-tgid.txt"}) {
      RunResult r = RunTk({cmd, "--json", dir_ + "/" + f});
      EXPECT_EQ(r.exit_code, 0) << cmd << " " << f << ": " << r.err;
    }
  }
}

}  // namespace
}  // namespace tk::testing
