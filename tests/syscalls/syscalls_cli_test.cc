// tk syscalls on testdata/lttng/recorded (made by testdata/recorded/record-lttng.sh):
// - --compat perf-trace on trace.perf.data (perf trace record) = trace.summary.txt, which is
//   `perf trace -s` (perf 6.1) of that file, byte for byte;
// - tk's own counts against perf's: calls + exit_only per thread = perf's calls (perf times
//   an exit without enter as 0 ms, tk lists it apart);
// - perf.data = its perf script text; trace.dat = trace-cmd report = the tracefs text;
// - per thread, trace.dat's calls, errors and open calls = a pairing of trace-cmd report's
//   text done here (not by tk);
// - --summary / --errno goldens; a file without syscalls → one line, exit 1.
#include <cstdio>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/lttng/recorded/";

struct Call {
  uint64_t count = 0, errors = 0, exit_only = 0, enter_only = 0;
  double total_us = 0;
};
using Calls = std::map<std::pair<int, std::string>, Call>;

Calls TkCalls(const std::string& file, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"syscalls", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(SourcePath(kDir + file));
  RunResult r = RunTk(args);
  EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
  Calls c;
  if (r.exit_code != 0) return c;
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& t : j["threads"]) {
    for (const auto& s : t["calls"]) {
      Call& x = c[{t["tid"].get<int>(), s["name"].get<std::string>()}];
      x.count = s["count"].get<uint64_t>();
      x.errors = s["errors"].get<uint64_t>();
      x.exit_only = s["exit_only"].get<uint64_t>();
      x.enter_only = s["enter_only"].get<uint64_t>();
      x.total_us = s["total_us"].get<double>();
    }
  }
  return c;
}

TEST(SyscallsCli, CompatPerfTraceIsByteForByte) {
  RunResult r = RunTk({"syscalls", "--compat", "perf-trace", SourcePath(kDir + "trace.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = ReadFile(SourcePath(kDir + "trace.summary.txt"));
  EXPECT_EQ(r.out, want) << UnifiedDiff(want, r.out);
}

TEST(SyscallsCli, OwnCountsAgreeWithPerfTrace) {
  // perf trace -s rows: "   name  calls errors total ..." under " comm (tid), N events".
  std::map<std::pair<int, std::string>, uint64_t> perf;
  std::istringstream in(ReadFile(SourcePath(kDir + "trace.summary.txt")));
  std::string line;
  int tid = -1;
  while (std::getline(in, line)) {
    size_t open = line.find(" ("), close = line.find("), ");
    if (open != std::string::npos && close != std::string::npos &&
        line.find("events") != std::string::npos) {
      tid = std::stoi(line.substr(open + 2, close - open - 2));
      continue;
    }
    char name[64];
    unsigned long calls = 0, errors = 0;
    if (tid > 0 && std::sscanf(line.c_str(), "   %63s %lu %lu", name, &calls, &errors) == 3)
      perf[{tid, name}] = calls;
  }
  ASSERT_GT(perf.size(), 50u);
  Calls tk = TkCalls("trace.perf.data");
  for (const auto& [key, calls] : perf) {
    ASSERT_TRUE(tk.count(key)) << key.first << " " << key.second;
    EXPECT_EQ(tk[key].count + tk[key].exit_only, calls) << key.first << " " << key.second;
  }
}

void ExpectSame(const Calls& a, const Calls& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [key, x] : a) {
    ASSERT_TRUE(b.count(key)) << what << " " << key.first << " " << key.second;
    const Call& y = b.at(key);
    EXPECT_EQ(x.count, y.count) << what << " " << key.first << " " << key.second;
    EXPECT_EQ(x.errors, y.errors) << what << " " << key.second;
    EXPECT_EQ(x.exit_only, y.exit_only) << what << " " << key.second;
    EXPECT_EQ(x.enter_only, y.enter_only) << what << " " << key.second;
    // Text timestamps are µs: each call may be 1 µs off.
    EXPECT_LE(std::abs(x.total_us - y.total_us), static_cast<double>(x.count) + 1.0) << what;
  }
}

TEST(SyscallsCli, EveryInputSameNumbers) {
  Calls perf = TkCalls("lttng.perf.data");
  ASSERT_GT(perf.size(), 50u);
  ExpectSame(perf, TkCalls("lttng.perf-script.txt"), "perf script");
  Calls dat = TkCalls("lttng.trace.dat");
  ASSERT_GT(dat.size(), 50u);
  ExpectSame(dat, TkCalls("lttng.report.txt"), "trace-cmd report");
  ExpectSame(dat, TkCalls("lttng.ftrace.txt"), "ftrace text");
}

// Per thread: completed calls, errors, exit_only, enter_only, paired here from trace-cmd
// report's "comm-tid [cpu] secs: sys_enter: NR n (...)" / "sys_exit: NR n = ret" lines by the
// rules of docs/syscalls.md (an enter and the thread's next exit of the same number; NR -1 is
// rt_sigreturn's exit, not a call).
TEST(SyscallsCli, TraceDatEqualsIndependentPairingOfTraceCmdReport) {
  std::map<int, std::vector<uint64_t>> want;  // tid → {count, errors, exit_only, enter_only}
  std::map<int, long> open;                   // tid → NR of its open enter
  std::istringstream in(ReadFile(SourcePath(kDir + "lttng.report.txt")));
  for (std::string line; std::getline(in, line);) {
    size_t lb = line.find(" ["), dash = line.rfind('-', lb);
    size_t enter = line.find(": sys_enter:"), exit = line.find(": sys_exit:");
    if (lb == std::string::npos || dash == std::string::npos ||
        (enter == std::string::npos && exit == std::string::npos))
      continue;
    const int tid = std::stoi(line.substr(dash + 1, lb - dash - 1));
    std::vector<uint64_t>& w = want.try_emplace(tid, 4, 0).first->second;
    long nr = 0, ret = 0;
    const bool is_enter = enter != std::string::npos;
    const char* rest = line.c_str() + (is_enter ? enter + 12 : exit + 11);
    if (is_enter) {
      ASSERT_EQ(std::sscanf(rest, " NR %ld", &nr), 1) << line;
      w[3] += open.count(tid);
      open[tid] = nr;
      continue;
    }
    ASSERT_EQ(std::sscanf(rest, " NR %ld = %ld", &nr, &ret), 2) << line;
    auto it = open.find(tid);
    const bool paired = it != open.end() && it->second == nr;
    if (nr == -1 || !paired) w[3] += it != open.end();
    if (it != open.end()) open.erase(it);
    if (nr == -1) continue;
    if (paired) {
      ++w[0];
      w[1] += ret >= -4095 && ret <= -1;
    } else {
      ++w[2];
    }
  }
  for (const auto& [tid, nr] : open) ++want[tid][3];
  ASSERT_EQ(want.size(), 9u);
  Calls tk = TkCalls("lttng.trace.dat");
  std::map<int, std::vector<uint64_t>> got;
  for (const auto& [key, c] : tk) {
    std::vector<uint64_t>& g = got.try_emplace(key.first, 4, 0).first->second;
    g[0] += c.count, g[1] += c.errors, g[2] += c.exit_only, g[3] += c.enter_only;
  }
  EXPECT_EQ(got, want);
}

TEST(SyscallsCli, Goldens) {
  const std::string f = SourcePath(kDir + "trace.perf.data");
  struct Case {
    std::vector<std::string> args;
    const char* golden;
  } cases[] = {
      {{"syscalls", "--top", "3", f}, "testdata/lttng/tk.syscalls.txt"},
      {{"syscalls", "--errno", "--comm", "ls", f}, "testdata/lttng/tk.syscalls-errno.txt"},
      {{"syscalls", "--summary", "--top", "15", f}, "testdata/lttng/tk.syscalls-summary.txt"},
      {{"syscalls", "--min", "100", "--top", "2", f}, "testdata/lttng/tk.syscalls-min.txt"}};
  for (const Case& c : cases) {
    RunResult r = RunTk(c.args);
    ASSERT_EQ(r.exit_code, 0) << c.golden << ": " << r.err;
    ExpectGolden(r.out, c.golden);
  }
  RunResult s = RunTk({"syscalls", "--top", "3", "-"}, f);
  EXPECT_EQ(s.out, RunTk(cases[0].args).out);
}

TEST(SyscallsCli, NoSyscallsNamesWhatToRecord) {
  RunResult r = RunTk({"syscalls", SourcePath("testdata/recorded/sched/sched.perf.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf trace record"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(
      RunTk({"syscalls", "--compat", "bogus", SourcePath(kDir + "trace.perf.data")}).exit_code, 2);
  EXPECT_EQ(RunTk({"help", "syscalls"}).exit_code, 0);
}

}  // namespace
}  // namespace tk::testing
