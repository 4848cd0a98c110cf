// The progress line (core/run_settings.h): drawn on stderr when it is a terminal, never with
// --quiet or when stderr is a pipe. A pty comes from util-linux `script -qc`; the 2 s delay is
// set to 0 (TK_PROGRESS_DELAY_MS) so a small fixture draws one line.
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

using testing::RunTk;
using testing::SourcePath;

// Runs `tk ARGS` on a pty; returns what the terminal showed (stdout and stderr both).
std::string OnTerminal(const std::string& args) {
  std::string cmd = "TK_PROGRESS_DELAY_MS=0 script -qec '" + std::string(TK_BINARY) + " " + args +
                    " > /dev/null' /dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

bool HaveScript() { return std::system("command -v script > /dev/null 2>&1") == 0; }

const char kInput[] = "testdata/recorded/sched/sched.perf.data";

TEST(Progress, ShownOnATerminal) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux script not installed";
  std::string t = OnTerminal("sched latency " + SourcePath(kInput));
  EXPECT_NE(t.find("\rtk: "), std::string::npos) << t;
  EXPECT_NE(t.find(" / 1.0 MB, "), std::string::npos) << "bytes read / total, rate: " << t;
  EXPECT_NE(t.find("\r\033[K"), std::string::npos) << "the line is erased at the end";
}

TEST(Progress, NotWithQuiet) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux script not installed";
  std::string t = OnTerminal("sched latency --quiet " + SourcePath(kInput));
  EXPECT_EQ(t.find("\rtk: "), std::string::npos) << t;
}

TEST(Progress, NotWhenStderrIsAPipe) {
  ::setenv("TK_PROGRESS_DELAY_MS", "0", 1);
  testing::RunResult r = RunTk({"sched", "latency", SourcePath(kInput)});
  ::unsetenv("TK_PROGRESS_DELAY_MS");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.find("\rtk: "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tk
