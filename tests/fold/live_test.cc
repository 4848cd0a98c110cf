// Live: record a small workload with perf, then `tk fold` of the perf.data must equal `tk fold`
// of its `perf script` text (the same stacks, the same "comm-?" roots: perf script's default
// header prints the TID only), for several flags. Skips when perf cannot record here.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/golden.h"
#include "tests/support/tracefs.h"

namespace tk::testing {
namespace {

TEST(FoldLive, PerfDataFoldsLikeItsPerfScriptText) {
  // perf mounts a missing tracefs itself and leaves it mounted; mounted here first, this
  // process unmounts it at exit (tests/support/tracefs.h). Not needed to record: no skip.
  (void)EnsureTracefs();
  if (std::system("command -v perf > /dev/null 2>&1") != 0) GTEST_SKIP() << "no perf";
  char dir[] = "/tmp/tk_fold_liveXXXXXX";
  if (!mkdtemp(dir)) GTEST_SKIP() << "no temporary directory";
  std::string d = dir;
  std::string rec = "perf record -q -g -F 999 -o " + d +
                    "/p.data -- sh -c 'for i in 1 2; do ls -lR /usr/share/doc > /dev/null; "
                    "done' > /dev/null 2>&1";
  if (std::system(rec.c_str()) != 0) {
    (void)!std::system(("rm -rf " + d).c_str());
    GTEST_SKIP() << "perf record is not permitted here";
  }
  ASSERT_EQ(std::system(("perf script -i " + d + "/p.data > " + d + "/p.txt 2>/dev/null").c_str()),
            0);
  for (const char* flag : {"", "--pid", "--tid", "--all", "--addrs"}) {
    std::vector<std::string> a = {"fold"}, b = {"fold"};
    if (*flag) {
      a.push_back(flag);
      b.push_back(flag);
    }
    a.push_back(d + "/p.data");
    b.push_back(d + "/p.txt");
    RunResult data = RunTk(a), text = RunTk(b);
    EXPECT_EQ(data.exit_code, 0) << flag << data.err;
    EXPECT_EQ(text.exit_code, 0) << flag << text.err;
    EXPECT_FALSE(text.out.empty()) << flag;
    EXPECT_EQ(data.out, text.out) << flag << "\n" << UnifiedDiff(text.out, data.out, 20);
  }
  (void)!std::system(("rm -rf " + d).c_str());
}

// Pipe mode (`perf record -o -`) learns build ids only at the end of the stream; [vdso] frames
// then resolve through this host's vdso, as perf script does. From the file and from stdin.
TEST(FoldLive, PipeModeVdsoFramesLikePerfScript) {
  // perf mounts a missing tracefs itself and leaves it mounted; mounted here first, this
  // process unmounts it at exit (tests/support/tracefs.h). Not needed to record: no skip.
  (void)EnsureTracefs();
  if (std::system("command -v perf > /dev/null 2>&1") != 0) GTEST_SKIP() << "no perf";
  char dir[] = "/tmp/tk_fold_pipeXXXXXX";
  if (!mkdtemp(dir)) GTEST_SKIP() << "no temporary directory";
  std::string d = dir;
  // perl's time() is the vdso's time(): most samples end in [vdso].
  std::string rec = "perf record -q -g -F 2999 -o - -- perl -e 'my $t = 0; $t += time for "
                    "1..3000000' 2>/dev/null > " + d + "/p.pipe";
  if (std::system(rec.c_str()) != 0) {
    (void)!std::system(("rm -rf " + d).c_str());
    GTEST_SKIP() << "perf record is not permitted here";
  }
  ASSERT_EQ(std::system(("perf script -i " + d + "/p.pipe > " + d + "/p.txt 2>/dev/null").c_str()),
            0);
  RunResult text = RunTk({"fold", d + "/p.txt"});
  RunResult file = RunTk({"fold", d + "/p.pipe"});
  RunResult in = RunTk({"fold", "-"}, d + "/p.pipe");
  EXPECT_EQ(file.exit_code, 0) << file.err;
  EXPECT_FALSE(text.out.empty());
  EXPECT_EQ(file.out, text.out) << UnifiedDiff(text.out, file.out, 20);
  EXPECT_EQ(in.out, file.out);
  (void)!std::system(("rm -rf " + d).c_str());
}

}  // namespace
}  // namespace tk::testing
