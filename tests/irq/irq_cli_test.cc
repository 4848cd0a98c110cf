// tk irq on testdata/lttng/recorded (one run: perf record -a and tracefs at once, made by
// testdata/recorded/record-lttng.sh):
// - counts and total durations per IRQ and softirq vector equal an independent pairing of
//   `perf script`'s text, and of `trace-cmd report`'s, done here (not by tk);
// - perf.data = its perf script text; trace.dat = trace-cmd report = the tracefs text;
// - hist / freq / log against tk's goldens; a file without irq events → one line, exit 1.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/lttng/recorded/";

struct Totals {
  uint64_t count = 0;
  int64_t total_us = 0;
};
using Table = std::map<std::pair<bool, int>, Totals>;  // (soft, number)

// Pairs "irq_handler_entry: irq=N" with the next exit of the same irq on the same CPU, and
// softirq_entry/exit per (CPU, vec), from perf script's default output or trace-cmd report's:
//   comm  tid [cpu] secs.usecs:  irq:irq_handler_entry: irq=36 name=virtio1-req.0
//   comm-tid  [cpu] secs.usecs: irq_handler_entry:    irq=36 name=virtio1-req.0
Table CountFromText(const std::string& text) {
  Table t;
  std::map<int, std::pair<int, int64_t>> hard;  // cpu → (irq, µs)
  std::map<std::pair<int, int>, int64_t> soft;  // (cpu, vec) → µs
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t lb = line.find(" ["), ev = line.find(" irq:"), skip = 5;  // perf: "system:name"
    if (ev == std::string::npos) {
      ev = line.find(": irq_handler_");  // trace-cmd: the name alone
      if (ev == std::string::npos) ev = line.find(": softirq_");
      skip = 2;
    }
    if (lb == std::string::npos || ev == std::string::npos) continue;
    int cpu = 0;
    long sec = 0, usec = 0;
    if (std::sscanf(line.c_str() + lb, " [%d] %ld.%ld:", &cpu, &sec, &usec) != 3) continue;
    int64_t us = sec * 1000000 + usec;
    std::string rest = line.substr(ev + skip);
    int n = 0;
    if (std::sscanf(rest.c_str(), "irq_handler_entry: irq=%d", &n) == 1) {
      hard[cpu] = {n, us};
    } else if (std::sscanf(rest.c_str(), "irq_handler_exit: irq=%d", &n) == 1) {
      auto it = hard.find(cpu);
      if (it != hard.end() && it->second.first == n) {
        Totals& x = t[{false, n}];
        ++x.count;
        x.total_us += us - it->second.second;
      }
      hard.erase(cpu);
    } else if (std::sscanf(rest.c_str(), "softirq_entry: vec=%d", &n) == 1) {
      soft[{cpu, n}] = us;
    } else if (std::sscanf(rest.c_str(), "softirq_exit: vec=%d", &n) == 1) {
      auto it = soft.find({cpu, n});
      if (it != soft.end()) {
        Totals& x = t[{true, n}];
        ++x.count;
        x.total_us += us - it->second;
        soft.erase(it);
      }
    }
  }
  return t;
}

Table TkTable(const std::vector<std::string>& args) {
  RunResult r = RunTk(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Table t;
  if (r.exit_code != 0) return t;
  nlohmann::json j = nlohmann::json::parse(r.out);
  for (bool soft : {false, true}) {
    for (const auto& row : j[soft ? "soft" : "hard"]) {
      Totals& x = t[{soft, row[soft ? "vec" : "irq"].get<int>()}];
      x.count = row["duration"]["count"].get<uint64_t>();
      x.total_us = static_cast<int64_t>(row["duration"]["total_us"].get<double>());
    }
  }
  return t;
}

Table Tk(const std::string& file) { return TkTable({"irq", "--json", SourcePath(kDir + file)}); }

void ExpectSame(const Table& a, const Table& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [key, x] : a) {
    ASSERT_TRUE(b.count(key)) << what << " " << key.second;
    const Totals& y = b.at(key);
    EXPECT_EQ(x.count, y.count) << what << (key.first ? " vec " : " irq ") << key.second;
    // µs timestamps in text: each pair may be 1 µs off, and JSON totals are truncated.
    EXPECT_LE(std::llabs(x.total_us - y.total_us), static_cast<int64_t>(x.count) + 1)
        << what << (key.first ? " vec " : " irq ") << key.second;
  }
}

TEST(IrqCli, CountsEqualIndependentPairingOfPerfScript) {
  Table ref = CountFromText(ReadFile(SourcePath(kDir + "lttng.perf-script.txt")));
  ASSERT_GE(ref.size(), 3u);
  ExpectSame(ref, Tk("lttng.perf.data"), "perf.data");
  ExpectSame(ref, Tk("lttng.perf-script.txt"), "perf script");
}

TEST(IrqCli, CountsEqualIndependentPairingOfTraceCmdReport) {
  Table ref = CountFromText(ReadFile(SourcePath(kDir + "lttng.report.txt")));
  ASSERT_EQ(ref.size(), 5u);  // irq 36; vectors 1, 4, 7, 9 (the README)
  EXPECT_EQ(ref[std::make_pair(false, 36)].count, 29u);
  ExpectSame(ref, Tk("lttng.trace.dat"), "trace.dat");
}

TEST(IrqCli, TraceDatEqualsItsTexts) {
  Table ref = Tk("lttng.trace.dat");
  ASSERT_GE(ref.size(), 3u);
  ExpectSame(ref, Tk("lttng.report.txt"), "trace-cmd report");
  ExpectSame(ref, Tk("lttng.ftrace.txt"), "ftrace text");
  // Binary timestamps are ns: the same pairs as the text, with exact totals.
  RunResult r = RunTk({"irq", "-"}, SourcePath(kDir + "lttng.trace.dat"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGolden(r.out, "testdata/lttng/tk.irq.txt");
}

TEST(IrqCli, FiltersNarrowTheCounts) {
  Table all = Tk("lttng.trace.dat");
  Table cpu0 = TkTable({"irq", "--json", "-C", "0", SourcePath(kDir + "lttng.trace.dat")});
  Table cpu1 = TkTable({"irq", "--json", "-C", "1", SourcePath(kDir + "lttng.trace.dat")});
  for (const auto& [key, x] : all) {
    uint64_t a = cpu0.count(key) ? cpu0[key].count : 0, b = cpu1.count(key) ? cpu1[key].count : 0;
    EXPECT_EQ(a + b, x.count) << key.second;
  }
  Table soft = TkTable(
      {"irq", "--json", "--soft-only", "--softirq", "9", SourcePath(kDir + "lttng.trace.dat")});
  ASSERT_EQ(soft.size(), 1u);
  const uint64_t rcu = all[std::make_pair(true, 9)].count;
  EXPECT_EQ(soft.begin()->second.count, rcu);
  Table slow = TkTable({"irq", "--json", "--min", "10", SourcePath(kDir + "lttng.trace.dat")});
  EXPECT_LT(slow[std::make_pair(true, 9)].count, rcu);
}

TEST(IrqCli, HistFreqLogGoldens) {
  const std::string f = SourcePath(kDir + "lttng.trace.dat");
  struct Case {
    std::vector<std::string> args;
    const char* golden;
  } cases[] = {{{"irq", "hist", f}, "testdata/lttng/tk.irq-hist.txt"},
               {{"irq", "freq", "--freq-resolution", "5", f}, "testdata/lttng/tk.irq-freq.txt"},
               {{"irq", "freq", "--min", "0", "--max", "50", "--softirq", "9", "--soft-only", f},
                "testdata/lttng/tk.irq-freq-range.txt"},
               {{"irq", "log", "--hard-only", f}, "testdata/lttng/tk.irq-log.txt"},
               {{"irq", "log", "--json", "--softirq", "4", "--soft-only", f},
                "testdata/lttng/tk.irq-log.jsonl"}};
  for (const Case& c : cases) {
    RunResult r = RunTk(c.args);
    ASSERT_EQ(r.exit_code, 0) << c.golden << ": " << r.err;
    ExpectGolden(r.out, c.golden);
  }
  // The log has one row per completed interrupt.
  RunResult log = RunTk({"irq", "log", f});
  Table all = Tk("lttng.trace.dat");
  uint64_t n = 0;
  for (const auto& [k, x] : all) n += x.count;
  EXPECT_EQ(static_cast<uint64_t>(std::count(log.out.begin(), log.out.end(), '\n')), n);
}

TEST(IrqCli, NoIrqEventsNamesWhatToRecord) {
  RunResult r = RunTk({"irq", SourcePath("testdata/recorded/sched/sched.perf.data")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("irq:*"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  RunResult h = RunTk({"help", "irq"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--softirq"), std::string::npos);
}

// --top N: per IRQ and vector the N longest interrupts, longest first, = the N longest of the
// `tk irq log --json` rows of that IRQ (sorted here).
TEST(IrqCli, TopListsTheLongestPerIrq) {
  const std::string f = SourcePath(kDir + "lttng.trace.dat");
  RunResult log = RunTk({"irq", "log", "--json", f});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  std::map<std::pair<bool, int>, std::vector<std::pair<int64_t, int64_t>>> by_irq;  // -dur, begin
  std::istringstream in(log.out);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json r = nlohmann::json::parse(line);
    by_irq[{r["type"] == "softirq", r["number"].get<int>()}].push_back(
        {-(r["end_ns"].get<int64_t>() - r["begin_ns"].get<int64_t>()),
         r["begin_ns"].get<int64_t>()});
  }
  const size_t n = 3;
  RunResult top = RunTk({"irq", "--top", std::to_string(n), "--json", f});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  nlohmann::json doc = nlohmann::json::parse(top.out);
  size_t series = 0;
  for (bool soft : {false, true}) {
    for (const nlohmann::json& row : doc[soft ? "soft" : "hard"]) {
      auto want = by_irq[{soft, row[soft ? "vec" : "irq"].get<int>()}];
      std::sort(want.begin(), want.end());
      want.resize(std::min(want.size(), n));
      std::vector<std::pair<int64_t, int64_t>> got;
      for (const nlohmann::json& i : row["longest"]) {
        got.push_back({-(i["end_ns"].get<int64_t>() - i["begin_ns"].get<int64_t>()),
                       i["begin_ns"].get<int64_t>()});
      }
      EXPECT_EQ(got, want) << row.dump();
      ++series;
    }
  }
  EXPECT_GE(series, 4u);
  RunResult text = RunTk({"irq", "--top", "1", f});
  EXPECT_NE(text.out.find("Longest handlers (top 1 per IRQ and vector)"), std::string::npos);
  EXPECT_EQ(RunTk({"irq", "--top", "-1", f}).exit_code, 2);
  // Without --top the report has no such table (the golden tk.irq.txt).
  EXPECT_EQ(RunTk({"irq", f}).out.find("Longest"), std::string::npos);
}


// tk irq freq without --min/--max reads its input twice (ranges, then tables): a malformed
// line is still reported once, and a spooled stdin is still named "<stdin>".
TEST(IrqCli, FreqTwoPassReportsAMalformedLineOnce) {
  std::ifstream src(SourcePath(kDir + "lttng.ftrace.txt"));
  ASSERT_TRUE(src) << "missing fixture";
  const std::string bad = ::testing::TempDir() + "/irq-freq-malformed.txt";
  {
    std::ofstream out(bad);
    std::string line;
    for (int n = 0; std::getline(src, line); ++n) {
      if (n == 2000) out << "   garbage-12 [000] not an event\n";
      out << line << "\n";
    }
  }
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  RunResult file = RunTk({"irq", "freq", bad});
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(count(file.err, "not an ftrace event line"), 1u) << file.err;
  RunResult in = RunTk({"irq", "freq", "-"}, bad);
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_EQ(count(in.err, "not an ftrace event line"), 1u) << in.err;
  EXPECT_NE(in.err.find("tk: <stdin>: line 2001:"), std::string::npos) << in.err;
  EXPECT_EQ(in.out, file.out);
}

}  // namespace
}  // namespace tk::testing
