// tk cputop on testdata/recorded/sched (one run as perf.data, trace.dat and their texts):
// - per-thread CPU time = the run-time column of `perf sched timehist -s` on the same
//   perf.data (testdata/sched/perf.timehist-s.txt, made by perf 6.1);
// - every input of the recording gives the same numbers (text formats carry µs timestamps:
//   each slice may differ by up to 1 µs);
// - the text report and the histogram against tk's own goldens (testdata/lttng/);
// - a file without sched_switch: one line naming what to record, exit 1.
#include <cstdio>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/recorded/sched/";

struct Row {
  uint64_t cpu_ns = 0, slices = 0;
};

std::map<int, Row> TkRows(const std::string& file) {
  RunResult r = RunTk({"cputop", "--top", "0", "--idle", "--json", SourcePath(kDir + file)});
  EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
  std::map<int, Row> rows;
  if (r.exit_code != 0) return rows;
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& t : j["tasks"])
    rows[t["tid"].get<int>()] = Row{t["cpu_ns"].get<uint64_t>(), t["slices"].get<uint64_t>()};
  return rows;
}

// "  comm[tid]  parent  sched-in  run-time ..." rows of perf's summary → tid → run-time in µs.
std::map<int, uint64_t> PerfRunTimes(const std::string& text) {
  std::map<int, uint64_t> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t lb = line.rfind('['), rb = line.rfind(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb) continue;
    int tid = 0, parent = 0;
    unsigned long count = 0, ms = 0, us = 0;
    if (std::sscanf(line.c_str() + lb, "[%d] %d %lu %lu.%lu", &tid, &parent, &count, &ms, &us) != 5)
      continue;
    out[tid] = ms * 1000 + us;
  }
  return out;
}

TEST(CputopCli, RunTimeEqualsPerfSchedTimehistSummary) {
  std::map<int, uint64_t> perf =
      PerfRunTimes(ReadFile(SourcePath("testdata/sched/perf.timehist-s.txt")));
  ASSERT_GT(perf.size(), 50u);
  std::map<int, Row> tk = TkRows("sched.perf.data");
  // perf 6.1 charges a switch-out to the sample's thread; for one exiting task perf could not
  // name it (":-1[-1]"), tk charges prev_pid. Every other row is equal to the µs.
  uint64_t unattributed = perf.count(-1) ? perf[-1] : 0;
  uint64_t diff = 0;
  for (const auto& [tid, us] : perf) {
    if (tid == -1) continue;
    ASSERT_TRUE(tk.count(tid)) << "tid " << tid;
    uint64_t mine = tk[tid].cpu_ns / 1000;
    if (mine != us) diff += mine - us;
  }
  EXPECT_EQ(diff, unattributed);
}

TEST(CputopCli, EveryInputSameNumbers) {
  const std::vector<std::vector<std::string>> groups = {
      {"sched.perf.data", "sched.perf-script.txt"},
      {"sched.trace.dat", "sched.v6.trace.dat", "sched.report.txt", "sched.report-raw.txt",
       "sched.ftrace.txt", "sched.ftrace-noirq.txt", "sched.ftrace-tgid.txt"}};
  for (const auto& g : groups) {
    std::map<int, Row> ref = TkRows(g[0]);
    ASSERT_FALSE(ref.empty());
    for (size_t i = 1; i < g.size(); ++i) {
      std::map<int, Row> other = TkRows(g[i]);
      ASSERT_EQ(other.size(), ref.size()) << g[i];
      for (const auto& [tid, row] : ref) {
        ASSERT_TRUE(other.count(tid)) << g[i] << " tid " << tid;
        EXPECT_EQ(other[tid].slices, row.slices) << g[i] << " tid " << tid;
        int64_t d = static_cast<int64_t>(other[tid].cpu_ns / 1000) -
                    static_cast<int64_t>(row.cpu_ns / 1000);
        EXPECT_LE(std::llabs(d), static_cast<int64_t>(row.slices) + 1) << g[i] << " tid " << tid;
      }
    }
  }
}

TEST(CputopCli, TextReportGolden) {
  RunResult r = RunTk({"cputop", SourcePath(kDir + "sched.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden(r.out, "testdata/lttng/tk.cputop.txt");
  RunResult s = RunTk({"cputop", "-"}, SourcePath(kDir + "sched.perf.data"));
  EXPECT_EQ(s.out, r.out);
  RunResult w = RunTk({"cputop", "--time", "987.3,987.4", "-C", "1", "--top", "5",
                       SourcePath(kDir + "sched.trace.dat")});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  ExpectGolden(w.out, "testdata/lttng/tk.cputop-window.txt");
}

TEST(CputopCli, HistGoldensAndCounts) {
  RunResult r = RunTk({"cputop", "hist", SourcePath(kDir + "sched.trace.dat")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden(r.out, "testdata/lttng/tk.cpudist.txt");
  RunResult o = RunTk({"cputop", "hist", "--off-cpu", "-P", "--comm", "busy1,busy2",
                       SourcePath(kDir + "sched.trace.dat")});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ExpectGolden(o.out, "testdata/lttng/tk.cpudist-offcpu-P.txt");
  // On-CPU slices counted = switch-outs of non-idle threads whose switch-in was seen: the
  // slices of cputop minus the first switch-out of each thread on a CPU without a known start.
  RunResult j = RunTk({"cputop", "hist", "--json", SourcePath(kDir + "sched.trace.dat")});
  nlohmann::json h = nlohmann::json::parse(j.out);
  uint64_t n = h["count"].get<uint64_t>();
  std::map<int, Row> rows = TkRows("sched.trace.dat");
  uint64_t slices = 0;
  for (const auto& [tid, row] : rows)
    if (tid != 0) slices += row.slices;
  EXPECT_LE(n, slices);
  EXPECT_GE(n + 60, slices);  // at most one unknown start per thread
}

TEST(CputopCli, NoSchedSwitchNamesWhatToRecord) {
  RunResult r = RunTk({"cputop", SourcePath("testdata/perf_data/a.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf sched record"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  RunResult h = RunTk({"cputop", "hist", SourcePath("testdata/perf_data/a.data")});
  EXPECT_EQ(h.exit_code, 1);
}

TEST(CputopCli, HelpAndUsage) {
  RunResult h = RunTk({"help", "cputop"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--time"), std::string::npos);
  RunResult bad = RunTk({"cputop", "--pid", "x", SourcePath(kDir + "sched.perf.data")});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace tk::testing
