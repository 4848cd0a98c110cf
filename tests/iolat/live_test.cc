// Live: records the write-sync case afresh with testdata/recorded/record-iolat.sh (two loop
// ext4 filesystems, one `-o sync`; dd, dd oflag=dsync) and checks tk iolat's verdicts on every
// format of the new recording. Skips when recording is not permitted (the script exits 77);
// the script itself takes /tmp/tk-tracefs.lock and restores tracefs, mounts and loops.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "tests/iolat/verdicts.h"
#include "tests/support/golden.h"
#include "tests/support/tracefs.h"

namespace tk::testing {
namespace {

TEST(IolatLive, FreshRecordingVerdicts) {
  std::string script = SourcePath("testdata/recorded/record-iolat.sh");
  ASSERT_TRUE(FileExists(script)) << "committed script missing: " << script;
  if (std::string why = EnsureTracefs(); !why.empty()) GTEST_SKIP() << why;
  std::string dir = ::testing::TempDir() + "/tk-iolat-live";
  std::filesystem::remove_all(dir);
  std::string log = dir + ".log";
  // Only the two loop devices: every block event then lies inside the workload.
  std::string cmd = "TK_IOLAT_LOOP_ONLY=1 '" + script + "' '" + dir + "' >'" + log + "' 2>&1";
  int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st)) << ReadFile(log);
  if (WEXITSTATUS(st) == 77) GTEST_SKIP() << "recording not permitted: " << ReadFile(log);
  ASSERT_EQ(WEXITSTATUS(st), 0) << ReadFile(log);
  int checked = 0;
  for (const char* f : {"writesync.trace.dat", "writesync.v6.trace.dat", "writesync.perf.data",
                        "writesync.perf-script.txt", "writesync.ftrace.txt"}) {
    ASSERT_TRUE(FileExists(dir + "/" + f)) << "the recording made no " << f;
    CheckVerdicts(dir, f);
    ++checked;
  }
  EXPECT_EQ(checked, 5);
  // Nothing left behind by the recording.
  EXPECT_FALSE(std::filesystem::exists("/tmp/tk-mnt-sync") &&
               !std::filesystem::is_empty("/tmp/tk-mnt-sync"));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace tk::testing
