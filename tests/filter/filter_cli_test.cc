// The filters of `tk fold` and `tk script` through the real binary, from a file and from
// stdin: against perf script's own output under the same filter (testdata/filter/perf/, made
// by testdata/filter/perf-reference.sh), and as the post-filter of the unfiltered output.
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/filter/filter_test_util.h"

namespace tk::testing {
namespace {

const Args kSymbols = {"--no-buildid-cache",
                       "--no-host-kallsyms",
                       "--kallsyms",
                       SourcePath("testdata/perf_data/kallsyms"),
                       "--symfs",
                       SourcePath("testdata/perf_data/symfs")};

std::string AData() { return Fixture("testdata/perf_data/a.data"); }

// ---- tk fold ----

// perf script FILTER | stackcollapse equals tk fold FILTER: tk folds perf's filtered text
// (tk fold of `perf script` text is stackcollapse-perf.pl's output, tests/fold).
TEST(FoldFilter, SamplesAreThePerfScriptFiltersOnes) {
  const RefCase cases[] = {
      {{"-p", "17917"}, "a.pid-17917.script"},
      {{"--comm", "workload"}, "a.comms-workload.script"},
      {{"-C", "1", "--time", "2477.05,2477.08"}, "a.cpu-1-time.script"},
      {{"--time", "2477.01,2477.02 2477.08,2477.09"}, "a.time-ranges.script"},
  };
  for (const RefCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.filter));
    std::string expected = RunOk({"fold"}, PerfReference(c.reference), false);
    ASSERT_FALSE(expected.empty());
    for (const char* threads : {"1", "2"}) {
      EXPECT_EQ(RunOk(Cat(Cat({"fold", "--threads", threads}, kSymbols), c.filter), AData()),
                expected)
          << "--threads " << threads;
    }
  }
}

// Lines of `folded` whose root frame (before the first ';') satisfies `keep`.
std::string GrepRoot(const std::string& folded, const std::function<bool(std::string)>& keep) {
  std::string out;
  for (const std::string& l : Lines(folded))
    if (keep(l.substr(0, l.find(';')))) out += l + "\n";
  return out;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// fold -p X --pid == the "comm-X" lines of fold --pid; -t/--tid and --comm likewise, on text
// that shows PID/TID, both thread counts.
TEST(FoldFilter, EqualsGrepOfTheAnnotatedOutput) {
  std::string in = Fixture("testdata/fold/proc-pidtid-g.txt");
  std::string by_pid = RunOk({"fold", "--pid"}, in);
  std::string by_tid = RunOk({"fold", "--tid"}, in);
  std::string plain = RunOk({"fold"}, in);
  std::set<std::string> pids, comms;
  for (const std::string& l : Lines(by_pid)) {
    std::string root = l.substr(0, l.find(';'));
    pids.insert(root.substr(root.rfind('-') + 1));
    comms.insert(root.substr(0, root.rfind('-')));
  }
  ASSERT_GE(pids.size(), 2u);
  for (const std::string& p : pids) {
    SCOPED_TRACE(p);
    std::string want = GrepRoot(by_pid, [&](const std::string& r) { return EndsWith(r, "-" + p); });
    ASSERT_FALSE(want.empty());
    for (const char* threads : {"1", "2"}) {
      EXPECT_EQ(RunOk({"fold", "--threads", threads, "--pid", "-p", p}, in), want);
    }
    // proc-pidtid-g.txt has one thread per process: the tid is the pid.
    std::string want_tid =
        GrepRoot(by_tid, [&](const std::string& r) { return EndsWith(r, "/" + p); });
    EXPECT_EQ(RunOk({"fold", "--tid", "-t", p}, in), want_tid);
  }
  for (const std::string& c : comms) {
    EXPECT_EQ(RunOk({"fold", "--comm", c}, in),
              GrepRoot(plain, [&](const std::string& r) { return r == c; }))
        << c;
  }
}

// A `perf script` text of at least 4 MiB (where tk fold cuts mapped text in two halves),
// in time order: system-wide-g.txt 40 times, copy k shifted by 10k seconds.
std::string BigText() {
  static const std::regex kTime(R"((\s)(\d+)\.(\d{6}):)");
  std::string one = ReadFile(Fixture("testdata/fold/system-wide-g.txt")), out;
  for (int k = 0; k < 40; ++k) {
    for (const std::string& l : Lines(one)) {
      std::smatch m;
      if (!l.empty() && l[0] != '\t' && l[0] != ' ' && std::regex_search(l, m, kTime)) {
        out += m.prefix().str() + m[1].str() + std::to_string(std::stol(m[2]) + 10 * k) + "." +
               m[3].str() + ":" + m.suffix().str() + "\n";
      } else {
        out += l + "\n";
      }
    }
  }
  return out;
}

// The two-thread text path gives the one-thread output under every filter (through the
// binary; tests/filter/filter_unit_test.cc checks the path is taken).
TEST(FoldFilter, TwoThreadTextPathEqualsOneThread) {
  std::string text = BigText();
  ASSERT_GE(text.size(), 4u << 20);
  // Per process: suites of other checkouts may run at the same time (a shared name was
  // truncated under a running tk once: SIGBUS).
  std::string path =
      ::testing::TempDir() + "/tk-filter-big." + std::to_string(getpid()) + ".txt";
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  std::string all = RunOk({"fold", "--tid"}, path, false);
  const Args filters[] = {{"-C", "1"},
                          {"--comm", "cc1plus"},
                          {"-p", "4743"},
                          {"-t", "4846"},
                          {"--time", "1653.0,1773.5"},  // copies 13 to 25: across the cut
                          {"--time", ",1563.5 1873.0,", "-C", "0"}};
  for (const Args& f : filters) {
    SCOPED_TRACE(::testing::PrintToString(f));
    std::string one = RunOk(Cat({"fold", "--tid", "--threads", "1"}, f), path, false);
    EXPECT_EQ(RunOk(Cat({"fold", "--tid", "--threads", "2"}, f), path, false), one);
    EXPECT_FALSE(one.empty());
    EXPECT_NE(one, all);
  }
  std::remove(path.c_str());
}

// ---- tk script ----

// One line per event: "comm pid/tid cpu time event" for samples, "cpu kind" for perf.data
// side-band records (perf prints FORK/EXIT with the record's own time field, tk with the
// sample_id time: not a filter question).
std::vector<std::string> PerfKeys(const std::string& fields_file) {
  static const std::regex kLine(R"(^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\S+))");
  std::vector<std::string> out;
  for (const std::string& l : Lines(ReadFile(fields_file))) {
    std::smatch m;
    if (!std::regex_search(l, m, kLine)) {
      ADD_FAILURE() << "unparsed perf line: " << l;
      continue;
    }
    std::string ev = m[6];
    int cpu = std::stoi(m[4]);
    if (ev.rfind("PERF_RECORD_", 0) == 0) {
      out.push_back(std::to_string(cpu) + " " + ev.substr(0, ev.find_first_of("(: ")));
    } else {
      if (!ev.empty() && ev.back() == ':') ev.pop_back();
      out.push_back(std::string(m[1]) + " " + std::string(m[2]) + "/" + std::string(m[3]) + " " +
                    std::to_string(cpu) + " " + std::string(m[5]) + " " + ev);
    }
  }
  return out;
}

// The event time in ns from a `tk script --json` object (the key has been "ts").
int64_t JsonTime(const nlohmann::json& j) {
  for (const char* k : {"ts", "ts_ns", "time_ns"})
    if (j.contains(k) && j[k].is_number()) return j[k].get<int64_t>();
  ADD_FAILURE() << "no time in " << j.dump();
  return -1;
}

std::vector<std::string> TkKeys(const std::string& jsonl) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(jsonl)) {
    nlohmann::json j = nlohmann::json::parse(l);
    std::string ev = j["event"];
    int cpu = j["cpu"];
    if (ev.rfind("PERF_RECORD_", 0) == 0) {
      out.push_back(std::to_string(cpu) + " " + ev);
      continue;
    }
    int64_t ts = JsonTime(j);
    char t[32];
    snprintf(t, sizeof t, "%ld.%06ld", static_cast<long>(ts / 1000000000),
             static_cast<long>(ts % 1000000000 / 1000));
    out.push_back(j["comm"].get<std::string>() + " " + std::to_string(j["pid"].get<int>()) + "/" +
                  std::to_string(j["tid"].get<int>()) + " " + std::to_string(cpu) + " " + t + " " +
                  ev);
  }
  return out;
}

// tk script --json FILTER FILE selects the events of perf's `-F comm,pid,tid,cpu,time,event`
// output under the same filter.
template <size_t N>
void ExpectPerfScriptEvents(const std::string& file, const RefCase (&cases)[N]) {
  for (const RefCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.filter));
    std::vector<std::string> want = PerfKeys(PerfReference(c.reference));
    ASSERT_FALSE(want.empty());
    // From the file and from stdin (percent ranges too: the header is read from the run's
    // one opening of the input).
    std::vector<std::string> got =
        TkKeys(RunOk(Cat(Cat({"script", "--json"}, kSymbols), c.filter), file));
    EXPECT_EQ(got, want) << UnifiedDiff(::testing::PrintToString(want),
                                        ::testing::PrintToString(got));
  }
}

TEST(ScriptFilter, SameEventsAsPerfScriptWithTheSameFilter) {
  const RefCase cases[] = {
      {{}, "a.all.fields"},
      {{"--pid", "17917"}, "a.pid-17917.fields"},
      {{"-p", "17917,17166"}, "a.pid-list.fields"},
      {{"--tid", "17651"}, "a.tid-17651.fields"},
      {{"--comms", "grep,sh"}, "a.comms-grep-sh.fields"},
      {{"-c", "grep", "--comm", "sh"}, "a.comms-grep-sh.fields"},  // repeated = one list
      {{"-C", "1"}, "a.cpu-1.fields"},
      {{"--time", "2477.05,2477.1"}, "a.time-window.fields"},
      {{"--time", ",2477.02"}, "a.time-open-start.fields"},
      {{"--time", "2477.1,"}, "a.time-open-end.fields"},
      {{"--time", "2477.01,2477.02 2477.08,2477.09"}, "a.time-ranges.fields"},
      {{"--pid", "17917,17918", "-C", "0", "--time", "2477.02,"}, "a.pid-cpu-time.fields"},
      // Percent forms: slices of the header's first..last sample time.
      {{"--time", "10%/2"}, "a.pct-slice.fields"},
      {{"--time", "10%/1,10%/3"}, "a.pct-slices.fields"},
      {{"--time", "0%-10%,30%-40%"}, "a.pct-dash.fields"},
      {{"--time", "25%"}, "a.pct-one.fields"},
      {{"--time", "12.5%-50%", "-C", "0"}, "a.pct-cpu-dash.fields"},
      // Side-band records: perf script applies only -C to them.
      {{"--show-task-events", "--pid", "17917"}, "a.task-events-pid.fields"},
      {{"--show-task-events", "-C", "1"}, "a.task-events-cpu.fields"},
  };
  ExpectPerfScriptEvents(AData(), cases);
}

// perf.data tracepoints: the task is the sample's (for sched_switch, the task leaving).
TEST(ScriptFilter, TracepointsAsPerfScript) {
  const RefCase cases[] = {
      {{"--pid", "17714"}, "sched.pid-17714.fields"},
      {{"--comms", "sleep,busy1", "--time", "987.4,", "-C", "0"}, "sched.comms-time-cpu.fields"},
  };
  ExpectPerfScriptEvents(Fixture("testdata/recorded/sched/sched.perf.data"), cases);
}

// The filter as a test-side predicate over one `tk script --json` object.
struct Pred {
  std::set<int> pids, tids, cpus;
  std::set<std::string> comms;
  int64_t start = 0, end = 0;
  bool operator()(const nlohmann::json& j) const {
    int pid = j["pid"], tid = j["tid"], cpu = j["cpu"];
    if (pid < 0) pid = tid;
    int64_t ts = JsonTime(j);
    if (!pids.empty() && !pids.count(pid)) return false;
    if (!tids.empty() && !tids.count(tid)) return false;
    if (!cpus.empty() && !cpus.count(cpu)) return false;
    if (!comms.empty() && !comms.count(j["comm"].get<std::string>())) return false;
    if (ts > 0 && ((start && ts < start) || (end && ts > end))) return false;
    return true;
  }
};

// On every other input format, tk script FILTER is exactly the unfiltered output's lines the
// filter accepts.
TEST(ScriptFilter, EqualsThePostFilterOnEveryFormat) {
  const char* inputs[] = {
      "testdata/recorded/iolat/writesync.trace.dat",
      "testdata/recorded/sched/sched.ftrace.txt",
      "testdata/recorded/sched/sched.ftrace-tgid.txt",
      "testdata/recorded/sched/sched.perf-script.txt",
      "testdata/recorded/sched/sched.perf.data",
  };
  for (const char* rel : inputs) {
    SCOPED_TRACE(rel);
    std::string in = Fixture(rel);
    std::vector<std::string> all = Lines(RunOk({"script", "--json"}, in, false));
    ASSERT_GT(all.size(), 100u);
    std::vector<nlohmann::json> parsed;
    parsed.reserve(all.size());
    for (const std::string& l : all) parsed.push_back(nlohmann::json::parse(l));
    // Pick values from the data: the task of the middle event, the CPU of the last one, and a
    // window around the middle.
    nlohmann::json mid = nlohmann::json::parse(all[all.size() / 2]);
    nlohmann::json last = nlohmann::json::parse(all.back());
    int64_t t0 = JsonTime(nlohmann::json::parse(all[all.size() / 3]));
    int64_t t1 = JsonTime(nlohmann::json::parse(all[all.size() * 2 / 3]));
    int tid = mid["tid"], pid = mid["pid"] >= 0 ? mid["pid"].get<int>() : tid;
    auto secs = [](int64_t ns) {
      return std::to_string(ns / 1000000000) + "." +
             std::to_string(1000000000 + ns % 1000000000).substr(1);
    };
    struct Case {
      Args args;
      Pred pred;
    };
    auto pred = [](const std::function<void(Pred*)>& set) {
      Pred p;
      set(&p);
      return p;
    };
    const int cpu = last["cpu"];
    const std::string comm = mid["comm"];
    std::vector<Case> cases = {
        {{"--pid", std::to_string(pid)}, pred([&](Pred* p) { p->pids = {pid}; })},
        {{"--tid", std::to_string(tid)}, pred([&](Pred* p) { p->tids = {tid}; })},
        {{"--comm", comm}, pred([&](Pred* p) { p->comms = {comm}; })},
        {{"-C", std::to_string(cpu)}, pred([&](Pred* p) { p->cpus = {cpu}; })},
        {{"--time", secs(t0) + "," + secs(t1)}, pred([&](Pred* p) {
           p->start = t0;
           p->end = t1;
         })},
        {{"--time", secs(t1) + ",", "-C", "0"}, pred([&](Pred* p) {
           p->cpus = {0};
           p->start = t1;
         })},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::PrintToString(c.args));
      std::string want;
      for (size_t i = 0; i < all.size(); ++i)
        if (c.pred(parsed[i])) want += all[i] + "\n";
      ASSERT_FALSE(want.empty());
      EXPECT_EQ(RunOk(Cat({"script", "--json"}, c.args), in), want);
    }
  }
}

// ---- usage ----

TEST(FilterUsage, BadValuesAreOneLineUsageErrors) {
  std::string in = Fixture("testdata/fold/proc-g.txt");
  const Args bad[] = {
      {"fold", "--time", "abc"},
      {"fold", "--time", "10%/2"},
      {"fold", "-p", "x"},
      {"script", "--tid", "5-3"},
      {"script", "-C", ""},
      {"script", "--comm", ","},
      {"sched", "timehist", "--time", "1,2 3,4"},
      {"sched", "util", "--pid", "1"},
      {"sched", "latency", "--cpu", "a"},
      {"iolat", "-d", "sda"},
      {"iolat", "log", "--time", "2,1"},
  };
  for (const Args& a : bad) {
    RunResult r = RunTk(Cat(a, {in}));
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(a) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  RunResult pct = RunTk({"script", "--time", "0%-10%", in});
  EXPECT_NE(pct.err.find("percent"), std::string::npos) << pct.err;
  // Percent ranges come from perf.data's header: not on text, not on a pipe-mode perf.data
  // (perf record -o - writes no sample times; perf script refuses it too).
  RunResult pipe =
      RunTk({"script", "--time", "10%/2", "-"}, Fixture("testdata/perf_data/pipe.data"));
  EXPECT_EQ(pipe.exit_code, 2);
  EXPECT_NE(pipe.err.find("pipe-mode"), std::string::npos) << pipe.err;
  EXPECT_EQ(RunTk({"script", "--time", "10%/0", AData()}).exit_code, 2);
  EXPECT_EQ(RunTk({"script", "--time", "1,3 2,4", AData()}).exit_code, 2);  // overlap (perf)
}

TEST(FilterUsage, EveryCommandListsItsFilters) {
  const std::vector<Args> cmds = {
      {"fold"},          {"script"},       {"sched", "latency"}, {"sched", "timehist"},
      {"sched", "hist"}, {"sched", "top"}, {"sched", "util"},    {"iolat"},
      {"iolat", "log"}};
  for (const Args& c : cmds) {
    RunResult r = RunTk(Cat(c, {"--help"}));
    EXPECT_EQ(r.exit_code, 0);
    for (const char* f : {"--time", "--comm", "--cpu"})
      EXPECT_NE(r.out.find(f), std::string::npos) << ::testing::PrintToString(c) << " " << f;
  }
  EXPECT_NE(RunTk({"iolat", "--help"}).out.find("-d,--device"), std::string::npos);
}

}  // namespace
}  // namespace tk::testing

namespace tk::testing {
namespace {

uint64_t FoldedWeight(const std::string& folded) {
  uint64_t n = 0;
  for (const std::string& l : Lines(folded)) n += std::stoull(l.substr(l.rfind(' ') + 1));
  return n;
}

// tk fold --off-cpu: an interval belongs to the thread and CPU of its switch-out and to the
// time of its switch-in; the state machine still sees every switch.
TEST(FoldFilter, OffCpuIntervalsOfTheChosenThreads) {
  const std::string dir = "testdata/offcpu/";
  const Args base = {"fold",
                     "--off-cpu",
                     "--tid",
                     "--no-buildid-cache",
                     "--no-host-kallsyms",
                     "--kallsyms",
                     SourcePath(dir + "kallsyms"),
                     "--symfs",
                     SourcePath(dir + "symfs")};
  const std::string in = Fixture(dir + "offcpu.data");
  std::string all = RunOk(base, in);
  ASSERT_FALSE(all.empty());
  for (const char* tid : {"610", "611", "32583"}) {
    EXPECT_EQ(
        RunOk(Cat(base, {"-t", tid}), in),
        GrepRoot(all, [&](const std::string& r) { return EndsWith(r, std::string("/") + tid); }))
        << tid;
  }
  EXPECT_EQ(RunOk(Cat(base, {"--comm", "oc-main"}), in),
            GrepRoot(all, [](const std::string& r) { return r.rfind("oc-main-", 0) == 0; }));
  uint64_t c0 = FoldedWeight(RunOk(Cat(base, {"-C", "0"}), in, false));
  uint64_t c1 = FoldedWeight(RunOk(Cat(base, {"-C", "1"}), in, false));
  EXPECT_GT(c0, 0u);
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(c0 + c1, FoldedWeight(all));
}

}  // namespace
}  // namespace tk::testing
