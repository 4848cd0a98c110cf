// The sched state machines on synthesized event sequences, numbers worked out by hand from
// perf's rules (docs/sched.md).
#include <random>
#include <sstream>

#include "analyses/sched/hist.h"
#include "analyses/sched/latency.h"
#include "analyses/sched/perf_format.h"
#include "analyses/sched/timehist.h"
#include "analyses/sched/top.h"
#include "analyses/sched/util.h"
#include "gtest/gtest.h"
#include "tests/sched/sched_events.h"

namespace tk::sched::testing {
namespace {

using K = SchedWakeup::Kind;

// CPU0 runs a(100) then b(200) then a again; b(200) and c(300) share the comm "b"; x(999)
// is switched out of CPU0 while perf thinks b is current (a context-switch bug).
std::vector<Event> Scenario() {
  return {
      Switch(100 * kUs, 1, 0, "swapper/1", "R", 300, "b"),       // c: first seen, delay 0
      Wake(1000 * kUs, 0, 100, 200, "b", K::kWaking),            // b sleeping -> waiting
      Switch(1500 * kUs, 0, 100, "a", "R", 200, "b"),            // b: 500 us; a preempted
      Runtime(1600 * kUs, 0, 200, "b", 300 * kUs),
      Switch(3500 * kUs, 0, 200, "b", "S", 100, "a"),            // a: 2000 us
      Wake(4000 * kUs, 0, 100, 200, "b", K::kWakeup),            // ignored: waking seen
      Wake(4200 * kUs, 0, 100, 200, "b", K::kWaking),
      Switch(5000 * kUs, 0, 100, "a", "S", 200, "b"),            // b: 800 us
      Switch(6000 * kUs, 0, 999, "x", "S", 100, "a"),            // bug: b is current
      Switch(9000 * kUs, 1, 300, "b", "S", 0, "swapper/1"),
  };
}

std::string LatencyText(const LatencyOptions& opts, const std::vector<Event>& ev) {
  LatencyAnalysis a(opts);
  Feed(a, ev);
  std::ostringstream out;
  WriteText(a.report(), out);
  return out.str();
}

const std::string kRule = " " + std::string(139, '-') + "\n";
const std::string kHeader =
    "\n" + kRule +
    "  Task                  |   Runtime ms  |  Count   | Avg delay ms    | Max delay ms    | "
    "Max delay start           | Max delay end          |\n" +
    kRule;
const std::string kTotalRule = " " + std::string(113, '-') + "\n";
const std::string kEndRule = " " + std::string(51, '-') + "\n";

TEST(SchedLatency, MergedByCommSortedByAvg) {
  EXPECT_EQ(LatencyText({}, Scenario()),
            kHeader +
                "  a:100                 |      0.000 ms |        1 | avg:   2.000 ms | max:   "
                "2.000 ms | max start:     0.001500 s | max end:     0.003500 s\n"
                "  b:(2)                 |      0.300 ms |        3 | avg:   0.433 ms | max:   "
                "0.800 ms | max start:     0.004200 s | max end:     0.005000 s\n" +
                kTotalRule + "  TOTAL:                |      0.300 ms |        4 |\n" + kEndRule +
                "  INFO: 50.000% context switch bugs (1 out of 2)\n\n");
}

TEST(SchedLatency, PerPidKeepsThreadsApart) {
  LatencyOptions o;
  o.per_pid = true;
  LatencyAnalysis a(o);
  Feed(a, Scenario());
  LatencyReport r = a.report();
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].task, "a:100");
  EXPECT_EQ(r.rows[1].task, "b:200");
  EXPECT_EQ(r.rows[1].count, 2u);
  EXPECT_EQ(r.rows[1].avg_delay_ns, 650 * kUs);
  EXPECT_EQ(r.rows[1].runtime_ns, static_cast<uint64_t>(300 * kUs));
  EXPECT_EQ(r.rows[2].task, "b:300");
  EXPECT_EQ(r.rows[2].count, 1u);
  EXPECT_EQ(r.rows[2].max_delay_ns, 0u);
  EXPECT_EQ(r.rows[2].max_delay_start_ns, 0);
  EXPECT_EQ(r.total_count, 4u);
  EXPECT_EQ(r.info.nr_timestamps, 2u);
  EXPECT_EQ(r.info.nr_context_switch_bugs, 1u);
}

TEST(SchedLatency, SortKeys) {
  LatencyOptions o;
  o.per_pid = true;
  o.sort = *ParseLatencySort("switch,pid");
  LatencyAnalysis a(o);
  Feed(a, Scenario());
  LatencyReport r = a.report();
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].task, "b:200");  // 2 switches
  EXPECT_EQ(r.rows[1].task, "b:300");  // 1, higher pid first
  EXPECT_EQ(r.rows[2].task, "a:100");
  EXPECT_FALSE(ParseLatencySort("avg,bogus").ok());
  EXPECT_FALSE(ParseLatencySort(" , ").ok());
}

TEST(SchedLatency, PreemptedCountsUnlessPerf61) {
  std::vector<Event> ev = {
      Switch(1000 * kUs, 0, 100, "a", "R+", 200, "b"),
      Switch(1700 * kUs, 0, 200, "b", "S", 100, "a"),
  };
  LatencyAnalysis now({});
  Feed(now, ev);
  LatencyReport r = now.report();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].task, "a:100");
  EXPECT_EQ(r.rows[0].max_delay_ns, 700 * kUs);

  LatencyOptions o;
  o.perf61 = true;
  LatencyAnalysis old(o);
  Feed(old, ev);
  r = old.report();
  ASSERT_EQ(r.rows.size(), 1u);  // a's R+ wait is not seen; only b's first (0) delay
  EXPECT_EQ(r.rows[0].task, "b:200");
}

TEST(SchedLatency, Perf61IgnoresWaking) {
  std::vector<Event> ev = {
      Switch(1000 * kUs, 0, 200, "b", "S", 100, "a"),
      Wake(2000 * kUs, 0, 100, 200, "b", K::kWaking),
      Wake(2010 * kUs, 0, 100, 200, "b", K::kWakeup),
      Switch(2500 * kUs, 0, 100, "a", "S", 200, "b"),
  };
  LatencyAnalysis now({});
  Feed(now, ev);
  EXPECT_EQ(now.report().rows[0].max_delay_ns, 500 * kUs);
  LatencyOptions o;
  o.perf61 = true;
  LatencyAnalysis old(o);
  Feed(old, ev);
  EXPECT_EQ(old.report().rows[0].max_delay_ns, 490 * kUs);
}

TEST(SchedLatency, UnorderedWakeupIsCountedNotUsed) {
  // A wakeup stamped before the task's sched-out (clock skew between CPUs).
  std::vector<Event> ev = {
      Switch(1000 * kUs, 0, 200, "b", "S", 100, "a"),
      Wake(900 * kUs, 1, 300, 200, "b", K::kWaking),
      Switch(1500 * kUs, 0, 100, "a", "S", 200, "b"),
  };
  LatencyAnalysis a({});
  Feed(a, ev);
  LatencyReport r = a.report();
  EXPECT_EQ(r.info.nr_unordered_timestamps, 1u);
  std::ostringstream out;
  WriteText(r, out);
  EXPECT_NE(out.str().find("  INFO: 100.000% unordered timestamps (1 out of 1)\n"),
            std::string::npos)
      << out.str();
}

TEST(SchedLatency, CpuModeTrustsWakeupsAndMigrations) {
  std::vector<Event> ev = {
      Switch(1000 * kUs, 0, 100, "a", "R", 200, "b"),   // a waiting since 1000
      Wake(1200 * kUs, 0, 200, 100, "a", K::kWaking),   // ignored without -C
      Migrate(1300 * kUs, 0, 200, 100, "a", 0, 1),      // -C: a's times reset to 1300
      Switch(2000 * kUs, 0, 200, "b", "S", 100, "a"),
  };
  LatencyAnalysis all({});
  Feed(all, ev);
  EXPECT_EQ(all.report().rows[0].max_delay_ns, 1000 * kUs);
  LatencyOptions o;
  o.profile_cpu = 0;
  LatencyAnalysis one(o);
  Feed(one, ev);
  EXPECT_EQ(one.report().rows[0].max_delay_ns, 700 * kUs);
}

TEST(SchedLatency, JsonHasEveryField) {
  LatencyAnalysis a({});
  Feed(a, Scenario());
  std::ostringstream out;
  WriteJson(a.report(), out);
  for (const char* k : {"\"tasks\"", "\"task\": \"b:(2)\"", "\"pids\"", "\"runtime_ms\": 0.3",
                        "\"count\": 3", "\"avg_delay_ms\": 0.433333", "\"max_delay_ms\": 0.8",
                        "\"max_delay_start_ns\": 4200000", "\"max_delay_end_ns\": 5000000", "\"total\"",
                        "\"info\"", "\"context_switch_bugs\": 1"})
    EXPECT_NE(out.str().find(k), std::string::npos) << k << "\n" << out.str();
}

// The row writers against perf's printf formats: print_sched_time's "%*lu.%03lu ",
// timestamp__scnprintf_usec's "%lu.%06lu" in "%15s", and "[%04d] ".
TEST(SchedFormat, WritersMatchPrintf) {
  const uint64_t values[] = {0, 1, 999, 1000, 999999, 1000000, 1234567, 9999999999,
                             4294967295ULL * 1000000 + 999999, 4294967296ULL * 1000000,
                             UINT64_MAX};
  for (uint64_t ns : values) {
    for (int width : {0, 2, 6, 8, 12, 16, 20, 30}) {
      std::string got, want;
      AppendSchedTime(&got, ns, width);
      AppendF(&want, "%*lu.%03lu ", width, static_cast<unsigned long>(ns / 1000000),
              static_cast<unsigned long>(ns % 1000000 / 1000));
      EXPECT_EQ(got, want) << ns << " " << width;
    }
    if (ns > static_cast<uint64_t>(INT64_MAX)) continue;
    std::string want, ts;
    char b[64];
    std::string got(b, PutUsecTimestamp(b, static_cast<int64_t>(ns), 15) - b);
    AppendF(&ts, "%lu.%06lu", static_cast<unsigned long>(ns / 1000000000),
            static_cast<unsigned long>(ns % 1000000000 / 1000));
    AppendF(&want, "%15s", ts.c_str());
    EXPECT_EQ(got, want) << ns;
  }
  for (int cpu : {0, 7, 42, 999, 9999, 10000, -1}) {
    std::string got, want;
    AppendCpu(&got, cpu);
    AppendF(&want, "[%04d] ", cpu);
    EXPECT_EQ(got, want) << cpu;
  }
}

// A timehist row formatted as perf does (the format itself is checked byte for byte against
// perf's output on the recorded fixture in sched_cli_test).
std::string Row(const char* time, int cpu, const char* task, uint64_t wait_us, uint64_t delay_us,
                uint64_t run_us) {
  std::string s;
  AppendF(&s, "%15s [%04d]  %-30s ", time, cpu, task);
  AppendSchedTime(&s, wait_us * kUs, 6);
  AppendSchedTime(&s, delay_us * kUs, 6);
  AppendSchedTime(&s, run_us * kUs, 6);
  return s + "\n";
}

TEST(SchedTimehist, RowsSplitWaitDelayRun) {
  std::ostringstream out;
  TimehistAnalysis a({}, out);
  Feed(a, Scenario());
  a.WriteRest();
  std::string s = out.str();
  size_t body = 0;
  for (int i = 0; i < 3; ++i) body = s.find('\n', body) + 1;
  EXPECT_EQ(s.substr(0, body),
            "           time    cpu  task name                       wait time  sch delay   run "
            "time\n                        [tid/pid]                          (msec)     (msec)  "
            "   (msec)\n--------------- ------  ------------------------------  ---------  "
            "---------  ---------\n");
  EXPECT_EQ(s.substr(body),
            Row("0.000100", 1, "<idle>", 0, 0, 0) + Row("0.001500", 0, "a[100]", 0, 0, 0) +
                Row("0.003500", 0, "b[200]", 0, 500, 2000) +
                // a left runnable at 1500: its wait is preemption, its delay counts from there
                Row("0.005000", 0, "a[100]", 2000, 2000, 1500) +
                Row("0.006000", 0, "x[999]", 0, 0, 1000) +
                Row("0.009000", 1, "b[300]", 0, 0, 8900));
}

TEST(SchedTimehist, Perf61HasNoDelayAfterR) {
  std::ostringstream out;
  TimehistOptions o;
  o.perf61 = true;
  o.show_state = true;
  TimehistAnalysis a(o, out);
  Feed(a, Scenario());
  a.WriteRest();
  EXPECT_NE(out.str().find("       0.005000 [0000]  a[100]                              2.000      "
                           "0.000      1.500      S \n"),
            std::string::npos)
      << out.str();
}

TEST(SchedTimehist, FiltersAndWindow) {
  std::ostringstream out;
  TimehistOptions o;
  o.filter.tids = {100};
  o.filter.time = {{2000 * kUs, 5500 * kUs}};
  o.show_wakeups = true;
  TimehistAnalysis a(o, out);
  Feed(a, Scenario());
  a.WriteRest();
  std::string s = out.str();
  EXPECT_EQ(s.find("b[200]                              0.000"), std::string::npos) << s;
  EXPECT_NE(s.find("awakened: b[200]"), std::string::npos) << s;  // a is the waker
  EXPECT_NE(s.find("0.005000 [0000]  a[100]"), std::string::npos) << s;
  EXPECT_EQ(s.find("0.001500"), std::string::npos) << s;  // before the window
  EXPECT_EQ(s.find("0.006000"), std::string::npos) << s;  // filtered task
}

TEST(SchedTimehist, SummaryTotals) {
  std::ostringstream out;
  TimehistOptions o;
  o.summary_only = true;
  TimehistAnalysis a(o, out);
  Feed(a, Scenario());
  a.WriteRest();
  std::string s = out.str();
  EXPECT_EQ(s.rfind("\nRuntime summary\n", 0), 0u) << s;
  EXPECT_NE(s.find("    CPU  0 idle entire time window\n"), std::string::npos) << s;
  EXPECT_NE(s.find("    Total number of unique tasks: 4\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Total number of context switches: 6\n"), std::string::npos) << s;
  EXPECT_NE(s.find("           Total run time (msec): 13.400 \n"), std::string::npos) << s;
  EXPECT_NE(s.find("    Total scheduling time (msec):  8.900  (x 2)\n"), std::string::npos) << s;
}

TEST(SchedHist, Bcc_runqlat_layout) {
  // runqlat's README example, bucket for bucket.
  common::Log2Histogram v;
  uint64_t counts[] = {233, 742, 203, 173, 24, 0, 30, 6, 3, 5, 27, 30, 20, 29, 809, 64};
  for (size_t i = 0; i < 16; ++i) v.Add(common::Log2Histogram::Low(i + 1), counts[i]);
  std::string s;
  v.Append("usecs", &s);
  EXPECT_EQ(s,
            "     usecs               : count     distribution\n"
            "         0 -> 1          : 233      |***********                             |\n"
            "         2 -> 3          : 742      |************************************    |\n"
            "         4 -> 7          : 203      |**********                              |\n"
            "         8 -> 15         : 173      |********                                |\n"
            "        16 -> 31         : 24       |*                                       |\n"
            "        32 -> 63         : 0        |                                        |\n"
            "        64 -> 127        : 30       |*                                       |\n"
            "       128 -> 255        : 6        |                                        |\n"
            "       256 -> 511        : 3        |                                        |\n"
            "       512 -> 1023       : 5        |                                        |\n"
            "      1024 -> 2047       : 27       |*                                       |\n"
            "      2048 -> 4095       : 30       |*                                       |\n"
            "      4096 -> 8191       : 20       |                                        |\n"
            "      8192 -> 16383      : 29       |*                                       |\n"
            "     16384 -> 32767      : 809      |****************************************|\n"
            "     32768 -> 65535      : 64       |***                                     |\n");
}

TEST(SchedHist, DelaysFromScenario) {
  HistAnalysis h({});
  Feed(h, Scenario());
  std::ostringstream out;
  WriteText(h.report(), out);
  std::string s = out.str();
  EXPECT_NE(s.find("       256 -> 511        : 1        |****************************************|"),
            std::string::npos) << s;
  EXPECT_NE(s.find("      1024 -> 2047       : 1        |"), std::string::npos) << s;
  EXPECT_NE(s.find("count 3  p50 800.000 us"), std::string::npos) << s;
  EXPECT_NE(s.find("max 2000.000 us"), std::string::npos) << s;

  HistOptions o;
  o.by = HistOptions::By::kCpu;
  HistAnalysis per_cpu(o);
  Feed(per_cpu, Scenario());
  std::ostringstream out2;
  WriteText(per_cpu.report(), out2);
  EXPECT_EQ(out2.str().rfind("\ncpu = 0\n", 0), 0u) << out2.str();
}

// Up to 65536 delays percentiles are exact; past that within 0.39% and said to be so.
TEST(SchedHist, QuantilesExactThenBounded) {
  DelayHistogram small;
  for (uint64_t v = 1; v <= 1000; ++v) small.Add(v * 1001, false);
  EXPECT_EQ(small.ns.At(50).value, 500u * 1001);
  EXPECT_TRUE(small.ns.At(50).exact);
  DelayHistogram h;
  for (uint64_t v = 1; v <= 100000; ++v) h.Add(v * 1000, false);
  for (double p : {50.0, 90.0, 99.0}) {
    double want = p / 100 * 100000 * 1000;
    EXPECT_NEAR(static_cast<double>(h.ns.Percentile(p)), want, want * 0.0039) << p;
    EXPECT_FALSE(h.ns.At(p).exact) << p;
  }
  EXPECT_EQ(h.ns.max(), 100000000u);
  EXPECT_FALSE(h.ns.exact());
}

TEST(SchedTop, WorstDelaysWithWaker) {
  TopOptions o;
  o.n = 2;
  TopAnalysis t(o);
  Feed(t, Scenario());
  std::vector<TopEntry> e = t.report().entries;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].tid, 100);
  EXPECT_EQ(e[0].delay_ns, 2000u * kUs);
  EXPECT_TRUE(e[0].preempted);
  EXPECT_EQ(e[0].waker_comm, "b");
  EXPECT_EQ(e[1].tid, 200);
  EXPECT_EQ(e[1].delay_ns, 800u * kUs);
  EXPECT_EQ(e[1].waker_tid, 100);
  std::ostringstream out;
  WriteText(t.report(), out);
  EXPECT_NE(out.str().find("(preempted by) b (200)"), std::string::npos) << out.str();
}

TEST(SchedUtil, BusyAndIdlePerCpu) {
  UtilAnalysis u;
  Feed(u, Scenario());
  std::vector<CpuUtil> r = u.report().cpus;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].cpu, 0);
  EXPECT_EQ(r[0].window_ns, 7500u * kUs);
  EXPECT_EQ(r[0].idle_ns, 0u);
  EXPECT_EQ(r[1].cpu, 1);
  EXPECT_EQ(r[1].busy_ns, 8900u * kUs);
  EXPECT_EQ(r[2].cpu, -1);
  EXPECT_EQ(r[2].switches, 6u);
}

TEST(SchedLatency, LostEventsInfo) {
  std::vector<Event> ev = Scenario();
  Event lost;
  lost.ts_ns = 7000 * kUs;
  lost.cpu = 0;
  lost.body = Lost{Lost::Kind::kLost, 5};
  ev.push_back(lost);
  LatencyAnalysis a({});
  Feed(a, ev);
  std::ostringstream out;
  WriteText(a.report(), out);
  EXPECT_NE(out.str().find("  INFO: 45.455% lost events (5 out of 11, in 1 chunks)\n"),
            std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(1 out of 2) (due to lost events?)\n"), std::string::npos);
  std::ostringstream th;
  TimehistAnalysis t({}, th);
  Feed(t, ev);
  t.WriteRest();
  EXPECT_NE(th.str().find("       0.007000 lost 5 events on cpu 0\n"), std::string::npos)
      << th.str();
}

// Random event soup (bad CPUs, time going backwards, unknown pids, every kind): no analysis
// may crash or read out of bounds (run under ASan/UBSan in CI), and totals stay consistent.
TEST(SchedRobustness, RandomEvents) {
  std::mt19937 rng(12345);
  const char* comms[] = {"a", "b", "", "kworker/0:1", "x y"};
  const char* states[] = {"R", "R+", "S", "D", "I", "X|Z", "?"};
  std::vector<Event> ev;
  int64_t t = 1000;
  for (int i = 0; i < 20000; ++i) {
    t += static_cast<int64_t>(rng() % 2000) - (rng() % 50 == 0 ? 5000 : 0);
    int32_t cpu = rng() % 100 == 0 ? (rng() % 2 ? -1 : 1 << 20) : static_cast<int32_t>(rng() % 4);
    int32_t a = static_cast<int32_t>(rng() % 40) - 1, b = static_cast<int32_t>(rng() % 40) - 1;
    const char* c = comms[rng() % 5];
    switch (rng() % 4) {
      case 0: ev.push_back(Switch(t, cpu, a, c, states[rng() % 7], b, c)); break;
      case 1: ev.push_back(Wake(t, cpu, a, b, c, static_cast<K>(rng() % 3))); break;
      case 2: ev.push_back(Runtime(t, cpu, a, c, rng() % 100000)); break;
      default: ev.push_back(Migrate(t, cpu, a, b, c, rng() % 4, rng() % 4)); break;
    }
  }
  for (bool perf61 : {false, true}) {
    LatencyOptions lo;
    lo.perf61 = perf61;
    LatencyAnalysis lat(lo);
    Feed(lat, ev);
    LatencyReport r = lat.report();
    uint64_t sum = 0;
    for (const LatencyRow& row : r.rows) sum += row.count;
    EXPECT_EQ(sum, r.total_count);
    std::ostringstream o1, o2;
    WriteText(r, o1);
    WriteJson(r, o2);
    TimehistOptions to;
    to.perf61 = perf61;
    to.with_summary = to.show_wakeups = to.show_migrations = to.show_state = true;
    TimehistAnalysis th(to, o1);
    Feed(th, ev);
    th.WriteRest();
    to.json = true;
    TimehistAnalysis thj(to, o2);
    Feed(thj, ev);
    thj.WriteRest();
  }
  for (auto by : {HistOptions::By::kAll, HistOptions::By::kProcess, HistOptions::By::kCpu}) {
    HistOptions ho;
    ho.by = by;
    HistAnalysis h(ho);
    Feed(h, ev);
    std::ostringstream o;
    WriteText(h.report(), o);
    WriteJson(h.report(), o);
  }
  TopAnalysis top({});
  Feed(top, ev);
  EXPECT_LE(top.report().entries.size(), 10u);
  UtilAnalysis u;
  Feed(u, ev);
  std::ostringstream o;
  WriteText(u.report(), o);
  WriteJson(u.report(), o);
}

}  // namespace
}  // namespace tk::sched::testing
