// Live: record testdata/offcpu/workload.c afresh with its record.sh (perf record -a -g of
// sched_switch/sched_waking/sched_wakeup) and hold tk's per-thread off-CPU totals against
// `perf sched timehist`'s wait times of the same file. Skips (with the reason) where the
// script cannot record: not root, no perf, no static libc.
#include <cstdlib>
#include <string>
#include <sys/wait.h>

#include "gtest/gtest.h"
#include "tests/offcpu/totals.h"
#include "tests/support/golden.h"
#include "tests/support/tracefs.h"

namespace tk::testing {
namespace {

TEST(OffCpuLive, ThreadTotalsAreTimehistWaitTimes) {
  // perf mounts a missing tracefs itself and leaves it mounted; mounted here first, this
  // process unmounts it at exit (tests/support/tracefs.h). Not needed to record: no skip.
  (void)EnsureTracefs();
  char dir[] = "/tmp/tk_offcpu_liveXXXXXX";
  if (!mkdtemp(dir)) GTEST_SKIP() << "no temporary directory";
  std::string d = dir;
  std::string cmd = SourcePath("testdata/offcpu/record.sh") + " " + d + " > " + d +
                    "/log 2>&1";
  int rc = std::system(cmd.c_str());
  std::string log = ReadFile(d + "/log");
  if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
    (void)!std::system(("rm -rf " + d).c_str());
    GTEST_SKIP() << log;
  }
  ASSERT_EQ(rc, 0) << log;
  RunResult r = RunTk({"fold", "--off-cpu", "--tid", d + "/offcpu.data"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, uint64_t> tk = TkTotals(r.out);
  std::map<int, uint64_t> perf = TimehistTotals(ReadFile(d + "/offcpu.timehist.txt"));
  EXPECT_GE(perf.size(), 10u);
  for (const auto& [tid, us] : perf) EXPECT_EQ(tk.contains(tid) ? tk.at(tid) : 0, us) << "tid " << tid;
  for (const auto& [tid, us] : tk) EXPECT_TRUE(perf.contains(tid)) << "tid " << tid;
  // Its `perf script --ns` text (symbols resolved under record.sh's symfs, so names of
  // host libraries differ) gives the same totals.
  RunResult text = RunTk({"fold", "--off-cpu", "--tid", d + "/offcpu-wakeup.script.txt"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(TkTotals(text.out), tk);
  (void)!std::system(("rm -rf " + d).c_str());
}

}  // namespace
}  // namespace tk::testing
