// tk iolat through the real binary: verdicts on the recorded write-sync fixture in every input
// format, the 3.8-kernel corpus file, golden outputs (file and stdin), and errors.
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/iolat/verdicts.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kFixture = "testdata/recorded/iolat/";

std::string Fixture(const std::string& f) { return SourcePath(kFixture + f); }

// Goldens must not depend on where the checkout lives: the input path becomes its basename.
std::string Portable(std::string out, const std::string& path) {
  std::string base = path.substr(path.rfind('/') + 1);
  for (size_t p = out.find(path); p != std::string::npos; p = out.find(path, p + base.size()))
    out.replace(p, path.size(), base);
  return out;
}

TEST(IolatFixture, VerdictsInEveryFormat) {
  std::string dir = SourcePath("testdata/recorded/iolat");
  ASSERT_TRUE(FileExists(dir + "/devices.txt")) << "committed fixture missing";
  for (const char* f : {"writesync.trace.dat", "writesync.v6.trace.dat", "writesync.perf.data",
                        "writesync.perf-script.txt", "writesync.ftrace.txt",
                        "writesync.ftrace-noirq.txt", "writesync.ftrace-tgid.txt",
                        "writesync.report.txt", "writesync.report-raw.txt"}) {
    SCOPED_TRACE(f);
    ASSERT_TRUE(FileExists(dir + "/" + f));
    CheckVerdicts(dir, f);
  }
}

// The tracefs captures of one buffer (trace.dat v7 and v6, the ftrace text views, trace-cmd
// report text) hold the same events: every count and verdict must agree (times differ: text
// has microseconds, binary nanoseconds; pids are unknown in text without tgid); perf.data and
// its perf script text (the perf window) must agree with each other.
TEST(IolatFixture, SameRecordingSameReportAcrossFormats) {
  std::string dir = SourcePath("testdata/recorded/iolat");
  ASSERT_TRUE(FileExists(dir + "/devices.txt")) << "committed fixture missing";
  auto report = [&](const std::string& f) {
    RunResult r = RunTk({"iolat", "--json", "--mountinfo", dir + "/mountinfo.txt", dir + "/" + f});
    EXPECT_EQ(r.exit_code, 0) << f << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    nlohmann::json counts = nlohmann::json::array();
    if (j.is_discarded()) return counts;
    for (const auto& d : j["devices"]) {
      nlohmann::json c;
      for (const char* k : {"dev", "requests", "reads", "writes", "write_bytes", "sync_writes",
                            "sync_write_bytes", "fua", "preflush", "flushes", "by_issuer",
                            "stacked", "verdict", "cause", "mount"}) {
        c[k] = d[k];
      }
      c["d2c_count"] = d["latency"]["d2c"]["count"];
      c["q2c_count"] = d["latency"]["q2c"]["count"];
      for (const auto& w : d["top_writers"]) c["writers"].push_back({w["comm"], w["tid"], w["bytes"]});
      counts.push_back(c);
    }
    return counts;
  };
  nlohmann::json base = report("writesync.trace.dat");
  ASSERT_FALSE(base.empty());
  for (const char* f : {"writesync.v6.trace.dat", "writesync.ftrace.txt",
                        "writesync.ftrace-tgid.txt", "writesync.report.txt",
                        "writesync.report-raw.txt"}) {
    EXPECT_EQ(report(f), base) << f;
  }
  EXPECT_EQ(report("writesync.perf-script.txt"), report("writesync.perf.data"));
}

TEST(IolatCorpus, LinuxThreeEightDdOnSyncMountIsWriteSync) {
  auto shared = SharedDir();
  if (!shared) GTEST_SKIP() << "no /work/shared";
  std::string f = *shared + "/corpus/text/perf-script-dd-sync-mount-linux-3.8.txt";
  RunResult r = RunTk({"iolat", "--json", f});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* dm = Dev(j, "252,2");
  ASSERT_TRUE(dm) << r.out;
  EXPECT_EQ((*dm)["verdict"], "write-sync");
  EXPECT_EQ((*dm)["cause"], "unknown");  // no mountinfo from that machine
  EXPECT_EQ((*dm)["top_writers"][0]["comm"], "dd");
  EXPECT_EQ((*dm)["top_writers"][0]["d_sleeps"], 2);
  // Below the dm device: loop 7,1, then the loop thread's I/O on 252,0 → 8,2 (the partition of
  // 8,0): shown, attributed to 252,2, never blamed.
  for (const char* lower : {"7,1", "252,0", "8,2"}) {
    const nlohmann::json* d = Dev(j, lower);
    ASSERT_TRUE(d) << lower << r.out;
    EXPECT_EQ((*d)["cause"], "stacked") << lower;
    EXPECT_EQ((*d)["stacked"][0]["root"], "252,2") << lower;
  }
  EXPECT_EQ(Dev(j, "8,0"), nullptr);  // partition remap: statistics stay on 8,2
  // Text report from a file and from stdin.
  RunResult text = RunTk({"iolat", f});
  ASSERT_EQ(text.exit_code, 0);
  ExpectGolden(Portable(text.out, f), "testdata/iolat/dd-sync-mount-3.8.report.txt");
  RunResult in = RunTk({"iolat", "-"}, f);
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_EQ(in.out.substr(in.out.find('\n')), text.out.substr(text.out.find('\n')));
}

struct GoldenCase {
  std::vector<std::string> args;
  std::string golden;
};

// Every subcommand, from the file and from stdin: identical output (the report's first line
// names the input and is compared after it).
TEST(IolatGolden, SubcommandsFromFileAndStdin) {
  std::string trace = Fixture("writesync.trace.dat");
  ASSERT_TRUE(FileExists(trace)) << "committed fixture missing";
  std::string mi = Fixture("mountinfo.txt");
  std::vector<GoldenCase> cases = {
      {{"iolat", "--mountinfo", mi}, "testdata/iolat/writesync.report.txt"},
      {{"iolat", "--json", "--mountinfo", mi}, "testdata/iolat/writesync.report.json"},
      {{"iolat", "latency"}, "testdata/iolat/writesync.latency.txt"},
      {{"iolat", "latency", "--json"}, "testdata/iolat/writesync.latency.json"},
      {{"iolat", "hist"}, "testdata/iolat/writesync.hist.txt"},
      {{"iolat", "hist", "-D"}, "testdata/iolat/writesync.hist-D.txt"},
      {{"iolat", "hist", "-F"}, "testdata/iolat/writesync.hist-F.txt"},
      {{"iolat", "hist", "-P", "-Q"}, "testdata/iolat/writesync.hist-PQ.txt"},
      {{"iolat", "top", "-n", "15"}, "testdata/iolat/writesync.top.txt"},
      {{"iolat", "log"}, "testdata/iolat/writesync.log.txt"},
  };
  for (const GoldenCase& c : cases) {
    std::vector<std::string> file_args = c.args;
    file_args.push_back(trace);
    RunResult f = RunTk(file_args);
    ASSERT_EQ(f.exit_code, 0) << c.golden << ": " << f.err;
    EXPECT_TRUE(ExpectGolden(Portable(f.out, trace), c.golden)) << c.golden;
    std::vector<std::string> stdin_args = c.args;
    stdin_args.push_back("-");
    RunResult s = RunTk(stdin_args, trace);
    ASSERT_EQ(s.exit_code, 0) << c.golden << ": " << s.err;
    if (c.golden.find("report") != std::string::npos) {
      std::string a = f.out, b = s.out;
      size_t pa = a.find(trace);
      if (pa != std::string::npos) a.replace(pa, trace.size(), "<stdin>");
      EXPECT_EQ(a.substr(0, 4096), b.substr(0, 4096)) << c.golden;
      EXPECT_EQ(a, b) << c.golden;
    } else {
      EXPECT_EQ(f.out, s.out) << c.golden;
    }
  }
}

TEST(IolatErrors, BadInputs) {
  std::string trace = Fixture("writesync.trace.dat");
  RunResult missing = RunTk({"iolat", "--mountinfo", "/nonexistent/mi", trace});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("tk: /nonexistent/mi: cannot open"), std::string::npos) << missing.err;
  std::string bad = ::testing::TempDir() + "/bad-mountinfo.txt";
  FILE* f = std::fopen(bad.c_str(), "w");
  ASSERT_TRUE(f);
  std::fputs("27 1 254:0 / / rw - ext4 /dev/vda rw\nnot a mount\n", f);
  std::fclose(f);
  RunResult r = RunTk({"iolat", "--mountinfo", bad, trace});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(": line 2: not a mountinfo line"), std::string::npos) << r.err;
  RunResult g = RunTk({"iolat", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_NE(g.err.find("offset 0"), std::string::npos) << g.err;
  EXPECT_EQ(RunTk({"iolat", "hist", "-D", "-F", trace}).exit_code, 2);
  EXPECT_EQ(RunTk({"iolat", "top", "-n", "x", trace}).exit_code, 2);
  RunResult h = RunTk({"help", "iolat"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("latency"), std::string::npos);
  EXPECT_NE(h.out.find("--mountinfo"), std::string::npos);
}

}  // namespace
}  // namespace tk::testing
