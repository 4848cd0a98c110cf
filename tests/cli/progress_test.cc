// The progress line (core/run_settings.h): drawn on stderr when it is a terminal, never with
// --quiet or when stderr is a pipe. A pty comes from util-linux `script -qc`; the 2 s delay is
// set to 0 (TK_PROGRESS_DELAY_MS) so a small fixture draws one line.
#include <cstdio>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/support/golden.h"

namespace tk {
namespace {

using testing::RunTk;
using testing::SourcePath;

// Runs `tk ARGS` on a pty; returns what the terminal showed (stdout and stderr both).
// `redirect` follows the command (stdout to /dev/null by default; "" leaves it on the pty).
std::string OnTerminal(const std::string& args, const std::string& redirect = " > /dev/null",
                       const std::string& env = "TK_PROGRESS_DELAY_MS=0") {
  std::string cmd = env + " script -qec '" + std::string(TK_BINARY) + " " + args + redirect +
                    "' /dev/null";
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

// tk script streams its output to the terminal the progress line is on: redrawn every
// millisecond, the line must still never land inside an output line, and the output read
// from the terminal (progress drawing and erasing removed) is tk script's output exactly.
TEST(Progress, NeverInsideStreamedOutput) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux script not installed";
  std::string t = OnTerminal("script " + SourcePath(kInput), "",
                             "TK_PROGRESS_DELAY_MS=0 TK_PROGRESS_INTERVAL_MS=1");
  testing::RunResult piped = RunTk({"script", SourcePath(kInput)});
  ASSERT_EQ(piped.exit_code, 0);
  size_t drawn = 0;
  for (size_t at = t.find("\rtk: "); at != std::string::npos; at = t.find("\rtk: ", at + 1)) {
    ++drawn;
    // Drawn at the start of a line (after a newline, or over the previous progress line) ...
    bool line_start = at == 0 || t[at - 1] == '\n' ||
                      std::string_view(t).substr(0, at).ends_with("\033[K");
    ASSERT_TRUE(line_start) << "progress drawn inside an output line: ..."
                            << t.substr(at < 80 ? 0 : at - 80, 160);
    // ... and followed only by its redraw or its erasure ("\r..."), never by output written
    // after it on the same line.
    size_t end = t.find("\033[K", at);
    ASSERT_NE(end, std::string::npos);
    end += 3;
    ASSERT_TRUE(end == t.size() || t[end] == '\r')
        << "output written after the progress line: ..." << t.substr(at, 160);
  }
  EXPECT_GT(drawn, 0u) << "no progress line drawn";
  // The pty turns "\n" into "\r\n"; stderr's own lines ("tk: FILE: no kernel symbols ...")
  // are whole lines between the output's.
  std::string shown;
  for (size_t i = 0; i < t.size();) {
    if (t.compare(i, 2, "\r\n") == 0) {
      shown += '\n';
      i += 2;
    } else if (t[i] == '\r') {  // "\rtk: ...\033[K" (drawn) or "\r\033[K" (erased)
      size_t end = t.find("\033[K", i);
      ASSERT_NE(end, std::string::npos) << t.substr(i, 80);
      i = end + 3;
    } else {
      shown += t[i++];
    }
  }
  std::istringstream lines(shown);
  std::string line, out;
  while (std::getline(lines, line)) {
    if (!line.starts_with("tk: ")) out += line + "\n";
  }
  EXPECT_TRUE(out == piped.out) << "output on the terminal differs from tk script's ("
                                << out.size() << " vs " << piped.out.size() << " bytes)";
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
