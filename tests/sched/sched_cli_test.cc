// The real binary on the recorded fixture (testdata/recorded/sched: perf sched record of a
// pipe ping-pong, busy loops and sleepers), against perf 6.1's own output of the same file
// (testdata/sched/perf.*.txt, made by testdata/sched/perf-outputs.sh).
#include <iostream>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/recorded/sched/";

TEST(SchedCli, LatencyCompatIsPerf61ByteForByte) {
  struct Case {
    std::vector<std::string> flags;
    const char* expected;
  } cases[] = {{{}, "testdata/sched/perf.latency.txt"},
               {{"-p"}, "testdata/sched/perf.latency-p.txt"},
               {{"-s", "max"}, "testdata/sched/perf.latency-s-max.txt"}};
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sched", "latency", "--compat", "perf-6.1"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.push_back(SourcePath(kDir + "sched.perf.data"));
    RunResult r = RunTk(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(SourcePath(c.expected)))
        << c.expected << "\n" << UnifiedDiff(ReadFile(SourcePath(c.expected)), r.out);
  }
}

TEST(SchedCli, TimehistCompatIsPerf61ByteForByte) {
  struct Case {
    std::vector<std::string> flags;
    const char* expected;
  } cases[] = {{{}, "testdata/sched/perf.timehist.txt"},
               {{"-s"}, "testdata/sched/perf.timehist-s.txt"},
               {{"-w"}, "testdata/sched/perf.timehist-w.txt"},
               {{"--state"}, "testdata/sched/perf.timehist-state.txt"},
               {{"-C", "0"}, "testdata/sched/perf.timehist-C0.txt"},
               {{"-p", "17713"}, "testdata/sched/perf.timehist-p17713.txt"},
               {{"-s", "-C", "1"}, "testdata/sched/perf.timehist-s-C1.txt"},
               {{"-S", "-M", "--time", "987.35,"}, "testdata/sched/perf.timehist-S-M-time.txt"}};
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sched", "timehist", "--compat", "perf-6.1"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    args.push_back(SourcePath(kDir + "sched.perf.data"));
    RunResult r = RunTk(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, ReadFile(SourcePath(c.expected)))
        << c.expected << "\n" << UnifiedDiff(ReadFile(SourcePath(c.expected)), r.out);
  }
}

// testdata/sched/lost.perf.data (testdata/sched/record.sh): perf lost 9742 events in 3
// chunks. Everything equals perf except the "out of N" of the lost-events line: perf counts
// every record of the file (MMAP, COMM, ...), tk the events it reads.
TEST(SchedCli, LostEventsAsPerf61) {
  const std::string f = SourcePath("testdata/sched/lost.perf.data");
  RunResult t = RunTk({"sched", "timehist", "--compat", "perf-6.1", f});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(t.out, ReadFile(SourcePath("testdata/sched/perf.lost.timehist.txt")));
  RunResult s = RunTk({"sched", "timehist", "--compat", "perf-6.1", "-s", f});
  EXPECT_EQ(s.out, ReadFile(SourcePath("testdata/sched/perf.lost.timehist-s.txt")));
  RunResult l = RunTk({"sched", "latency", "--compat", "perf-6.1", f});
  std::string want = ReadFile(SourcePath("testdata/sched/perf.lost.latency.txt"));
  auto strip_lost = [](const std::string& text) {
    size_t at = text.find("% lost events (");
    size_t bol = text.rfind('\n', at) + 1;
    size_t out = text.find(" out of ", at), chunks = text.find(", in ", at);
    return text.substr(0, bol) + text.substr(at + 1, out - at - 1) + text.substr(chunks);
  };
  ASSERT_NE(want.find("(9742 out of"), std::string::npos);
  EXPECT_EQ(strip_lost(l.out), strip_lost(want)) << l.out;
}

// Without --compat, tk follows perf 6.12+: a task switched out runnable (R or R+) waits for
// the CPU from that moment. Every row keeps perf's time, CPU, task, wait and run time; the
// sch delay can only grow (by the preemption wait perf 6.1 leaves out).
TEST(SchedCli, TimehistDefaultKeepsPerfColumnsButCountsPreemption) {
  RunResult r = RunTk({"sched", "timehist", SourcePath(kDir + "sched.perf.data")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream mine(r.out), perf(ReadFile(SourcePath("testdata/sched/perf.timehist.txt")));
  std::string a, b;
  int rows = 0, grown = 0;
  while (std::getline(perf, b)) {
    ASSERT_TRUE(std::getline(mine, a)) << "tk stopped before perf: " << b;
    if (rows++ < 3) continue;
    // "     987.251037 [0000]  migration/0[18]   0.000      0.005      0.011 "
    std::istringstream pa(a), pb(b);
    std::string ta, ca, na, tb, cb, nb;
    double wa, da, ra, wb, db, rb;
    pa >> ta >> ca >> na >> wa >> da >> ra;
    pb >> tb >> cb >> nb >> wb >> db >> rb;
    if (na == ":-1[-1]" || nb == ":-1[-1]") continue;  // perf's unnamed exiting task
    EXPECT_EQ(ta + ca, tb + cb);
    EXPECT_EQ(wa, wb) << a << "\n" << b;
    EXPECT_EQ(ra, rb) << a << "\n" << b;
    EXPECT_GE(da, db) << a << "\n" << b;
    grown += da > db;
  }
  EXPECT_FALSE(std::getline(mine, a)) << "tk has more rows than perf: " << a;
  EXPECT_GT(rows, 2000);
  EXPECT_GT(grown, 100);  // the busy loops and sched-pipe are preempted a lot
}

// Per-thread numbers (latency -p --json) keyed by tid.
struct TaskNumbers {
  std::string comm;
  uint64_t count = 0;
  double runtime_ms = 0, avg_ms = 0, max_ms = 0, start = 0, end = 0;
};
std::map<int, TaskNumbers> PerTid(const std::string& out) {
  std::map<int, TaskNumbers> m;
  nlohmann::json j = nlohmann::json::parse(out);
  for (const auto& t : j["tasks"]) {
    TaskNumbers n;
    n.comm = t["comm"];
    n.count = t["count"];
    n.runtime_ms = t["runtime_ms"];
    n.avg_ms = t["avg_delay_ms"];
    n.max_ms = t["max_delay_ms"];
    n.start = t["max_delay_start_ns"];
    n.end = t["max_delay_end_ns"];
    m[t["pids"][0]] = n;
  }
  return m;
}

// The same recording through every reader. perf.data and perf script text hold the same
// events (the text has µs timestamps: delays agree within 1 µs); trace.dat (v7 and v6),
// trace-cmd report (-R too) and the ftrace copies hold the same tracefs buffer. The two
// groups differ in window (perf ran longer) so they are not compared with each other.
TEST(SchedCli, FormatsOfOneRecordingAgree) {
  const std::vector<std::vector<std::string>> groups = {
      {"sched.perf.data", "sched.perf-script.txt"},
      {"sched.trace.dat", "sched.v6.trace.dat", "sched.report.txt", "sched.report-raw.txt",
       "sched.ftrace.txt", "sched.ftrace-noirq.txt", "sched.ftrace-tgid.txt"}};
  std::string report;
  for (const auto& group : groups) {
    std::map<int, TaskNumbers> ref;
    std::string ref_name;
    for (const std::string& f : group) {
      RunResult r = RunTk({"sched", "latency", "-p", "--json", SourcePath(kDir + f)});
      // Every format must be read: a failing one fails the test (it used to be "skipped").
      if (r.exit_code != 0) {
        ADD_FAILURE() << f << ": exit " << r.exit_code << ": " << r.err;
        continue;
      }
      std::map<int, TaskNumbers> got = PerTid(r.out);
      if (ref_name.empty()) {
        ref = got;
        ref_name = f;
        report += f + ": reference, " + std::to_string(got.size()) + " tasks\n";
        continue;
      }
      EXPECT_EQ(got.size(), ref.size()) << f << " vs " << ref_name;
      for (const auto& [tid, want] : ref) {
        auto it = got.find(tid);
        if (it == got.end()) {
          ADD_FAILURE() << f << ": tid " << tid << " missing";
          continue;
        }
        const TaskNumbers& n = it->second;
        EXPECT_EQ(n.count, want.count) << f << " tid " << tid;
        EXPECT_NEAR(n.runtime_ms, want.runtime_ms, 1e-9) << f << " tid " << tid;
        EXPECT_NEAR(n.avg_ms, want.avg_ms, 0.0011) << f << " tid " << tid;
        EXPECT_NEAR(n.max_ms, want.max_ms, 0.0011) << f << " tid " << tid;
      }
      report += f + ": agrees with " + ref_name + "\n";
    }
  }
  std::cout << report;
}

TEST(SchedCli, StdinEqualsFile) {
  for (const char* f : {"sched.perf-script.txt", "sched.perf.data", "sched.trace.dat"}) {
    RunResult file = RunTk({"sched", "latency", SourcePath(kDir + f)});
    ASSERT_EQ(file.exit_code, 0) << f << file.err;
    RunResult in = RunTk({"sched", "latency", "-"}, SourcePath(kDir + f));
    ASSERT_EQ(in.exit_code, 0) << f << in.err;
    EXPECT_EQ(in.out, file.out) << f;
  }
}

// tk's own reports on the perf script text of the fixture (goldens; review against perf's
// numbers in testdata/sched/perf.*.txt before re-blessing).
TEST(SchedCli, Goldens) {
  const std::string in = SourcePath(kDir + "sched.perf-script.txt");
  struct Case {
    std::vector<std::string> args;
    const char* golden;
  } cases[] = {
      {{"sched", in}, "testdata/sched/tk.latency.txt"},
      {{"sched", "latency", "-p", "-s", "max,pid", in}, "testdata/sched/tk.latency-p-max.txt"},
      {{"sched", "latency", "--json", in}, "testdata/sched/tk.latency.json"},
      {{"sched", "timehist", "-S", "--state", "-p", "17713,17714", in},
       "testdata/sched/tk.timehist-busy.txt"},
      {{"sched", "timehist", "-w", "-M", "--time", "987.30,987.31", "-C", "0", in},
       "testdata/sched/tk.timehist-window.txt"},
      {{"sched", "timehist", "--json", "-s", "--state", in}, "testdata/sched/tk.timehist-s.jsonl"},
      {{"sched", "hist", in}, "testdata/sched/tk.hist.txt"},
      {{"sched", "hist", "-P", in}, "testdata/sched/tk.hist-P.txt"},
      {{"sched", "hist", "--per-cpu", "--json", in}, "testdata/sched/tk.hist-cpu.json"},
      {{"sched", "top", "-n", "15", in}, "testdata/sched/tk.top.txt"},
      {{"sched", "top", "-n", "3", "--json", in}, "testdata/sched/tk.top.json"},
      {{"sched", "util", in}, "testdata/sched/tk.util.txt"},
      {{"sched", "util", "--json", in}, "testdata/sched/tk.util.json"},
  };
  for (const Case& c : cases) {
    RunResult r = RunTk(c.args);
    ASSERT_EQ(r.exit_code, 0) << c.golden << r.err;
    ExpectGolden(r.out, c.golden);
    if (std::string(c.golden).find(".jsonl") != std::string::npos) {
      std::istringstream lines(r.out);
      std::string line;
      while (std::getline(lines, line)) EXPECT_NO_THROW((void)nlohmann::json::parse(line)) << line;
    } else if (std::string(c.golden).find(".json") != std::string::npos) {
      EXPECT_NO_THROW((void)nlohmann::json::parse(r.out)) << c.golden;
    }
  }
}

TEST(SchedCli, StdinForEverySubcommand) {
  const std::string in = SourcePath(kDir + "sched.perf-script.txt");
  for (const char* sub : {"latency", "timehist", "hist", "top", "util"}) {
    RunResult file = RunTk({"sched", sub, in});
    RunResult piped = RunTk({"sched", sub, "-"}, in);
    ASSERT_EQ(piped.exit_code, 0) << sub << piped.err;
    EXPECT_EQ(piped.out, file.out) << sub;
  }
}

TEST(SchedCli, UsageErrors) {
  const std::string in = SourcePath(kDir + "sched.perf-script.txt");
  EXPECT_EQ(RunTk({"sched", "latency", "-s", "bogus", in}).exit_code, 2);
  EXPECT_EQ(RunTk({"sched", "latency", "--compat", "perf-5.0", in}).exit_code, 2);
  EXPECT_EQ(RunTk({"sched", "timehist", "-s", "-w", in}).exit_code, 2);
  EXPECT_EQ(RunTk({"sched", "timehist", "--time", "x", in}).exit_code, 2);
  EXPECT_EQ(RunTk({"sched", "hist", "-P", "--per-cpu", in}).exit_code, 2);
  RunResult bad = RunTk({"sched", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("offset 0"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tk::testing
