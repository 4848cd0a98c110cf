// `tk fold --off-cpu / --wakeup` through the real binary on testdata/offcpu (recorded by its
// record.sh): per-thread totals against `perf sched timehist`'s wait times (perf's own output,
// committed as reference data), tk's folded goldens from files and stdin, the perf.data and
// `perf script --ns` forms agreeing, --threads 1 = 2, --state/--min-us/--max-us partitions,
// and bad input.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/offcpu/totals.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kDir = "testdata/offcpu/";

std::vector<std::string> Symbols() {
  return {"--no-buildid-cache", "--no-host-kallsyms", "--symfs", SourcePath(kDir + "symfs"),
          "--kallsyms", SourcePath(kDir + "kallsyms")};
}

RunResult Fold(std::vector<std::string> flags, const std::string& file, bool stdin_input = false) {
  std::vector<std::string> a = {"fold"};
  a.insert(a.end(), flags.begin(), flags.end());
  for (const std::string& s : Symbols()) a.push_back(s);
  a.push_back(stdin_input ? "-" : SourcePath(kDir + file));
  return RunTk(a, stdin_input ? SourcePath(kDir + file) : "");
}

TEST(OffCpuGolden, ThreadTotalsAreTimehistWaitTimes) {
  RunResult r = Fold({"--off-cpu", "--tid"}, "offcpu.data");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, uint64_t> tk = TkTotals(r.out);
  std::map<int, uint64_t> perf = TimehistTotals(ReadFile(SourcePath(kDir + "offcpu.timehist.txt")));
  ASSERT_GE(perf.size(), 10u);  // 10 workload threads and the vfork children
  uint64_t sum = 0;
  for (const auto& [tid, us] : perf) {
    EXPECT_EQ(tk.contains(tid) ? tk.at(tid) : 0, us) << "tid " << tid;
    sum += us;
  }
  for (const auto& [tid, us] : tk) EXPECT_TRUE(perf.contains(tid)) << "tid " << tid;
  EXPECT_GT(sum, 100'000u);  // the workload waited well over 0.1 s in total
}

// trace.dat with kernel stacks (testdata/offcpu/record-tracedat.sh: tracefs'
// options/stacktrace on sched_switch, trace-cmd extract). The stacks are trace-cmd report's
// "<stack trace>" blocks (its own output, offcpu.trace.txt) without the tracing frames above
// __schedule; the per-thread totals are `tk sched timehist`'s wait times of the same file
// (perf sched timehist reads no trace.dat).
// The address lists of trace-cmd report's "<stack trace>" blocks ("=> name (ffffffff8226...)"),
// innermost first, without the tracing frames above __schedule.
std::vector<std::string> TraceCmdStacks(const std::string& report) {
  std::vector<std::string> stacks;
  std::istringstream in(report);
  std::string line;
  std::vector<std::pair<std::string, std::string>> frames;  // name, address
  auto flush = [&] {
    while (!frames.empty() && (frames.front().first.starts_with("trace_event_raw_event_") ||
                               frames.front().first.starts_with("__traceiter_")))
      frames.erase(frames.begin());
    std::string key;
    for (const auto& [name, addr] : frames) key += addr + " ";
    if (!key.empty()) stacks.push_back(key);
    frames.clear();
  };
  while (std::getline(in, line)) {
    size_t open = line.rfind(" (");
    if (line.starts_with("=> ") && open != std::string::npos) {
      frames.emplace_back(line.substr(3, open - 3), line.substr(open + 2, line.size() - open - 3));
    } else {
      flush();
    }
  }
  flush();
  return stacks;
}

// tk script's callchain lines ("\tffffffff82265908 __schedule+0x628 ([kernel.kallsyms])").
std::vector<std::string> TkScriptStacks(const std::string& script) {
  std::vector<std::string> stacks;
  std::istringstream in(script);
  std::string line, key;
  while (std::getline(in, line)) {
    if (line.starts_with("\t")) {
      key += line.substr(1, line.find(' ') - 1) + " ";
    } else if (!key.empty()) {
      stacks.push_back(key);
      key.clear();
    }
  }
  if (!key.empty()) stacks.push_back(key);
  return stacks;
}

// Every sched_switch gets the kernel_stack record after it, frame for frame as trace-cmd
// reads it. (Names may differ from trace-cmd's for aliases: at ffffffff8135ff10 kallsyms has
// __do_sys_vfork (t) and __x64_sys_vfork (T); tk, as perf, names the global one.)
TEST(OffCpuGolden, TraceDatKernelStacksAreTraceCmds) {
  RunResult r = Fold({"--off-cpu", "--json"}, "offcpu.trace.dat");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sched_switch"]["events"], 169);
  EXPECT_EQ(j["sched_switch"]["with_callchain"], 169);
  std::vector<std::string> want = TraceCmdStacks(ReadFile(SourcePath(kDir + "offcpu.trace.txt")));
  RunResult script = RunTk({"script", SourcePath(kDir + "offcpu.trace.dat")});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(want.size(), 169u);
  std::vector<std::string> got = TkScriptStacks(script.out);
  // As multisets: where two CPUs' records tie, trace-cmd and tk may list them in either order.
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  for (const auto& st : j["stacks"]) EXPECT_EQ(st["frames"].back(), "__schedule");
}

TEST(OffCpuGolden, TraceDatThreadTotalsAreTimehistWaitTimes) {
  RunResult r = Fold({"--off-cpu", "--tid"}, "offcpu.trace.dat");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult th = RunTk({"sched", "timehist", SourcePath(kDir + "offcpu.trace.dat")});
  ASSERT_EQ(th.exit_code, 0) << th.err;
  std::map<int, uint64_t> tk = TkTotals(r.out), timehist = TimehistTotals(th.out);
  ASSERT_GE(timehist.size(), 10u);
  // Equal to the µs for every oc-* thread, as on the perf.data fixture.
  uint64_t sum = 0;
  for (const auto& [tid, us] : timehist) {
    EXPECT_EQ(tk.contains(tid) ? tk.at(tid) : 0, us) << "tid " << tid;
    sum += us;
  }
  for (const auto& [tid, us] : tk) EXPECT_TRUE(timehist.contains(tid)) << "tid " << tid;
  EXPECT_GT(sum, 100'000u);
}

// The same trace as `trace-cmd report` text (ftrace text with "<stack trace>" blocks): the
// same stacks as the trace.dat (trace-cmd names one alias differently), the same per-thread
// totals up to the text's µs timestamps (each interval ±1 µs).
TEST(OffCpuGolden, FtraceTextStacksAsTraceDat) {
  RunResult dat = Fold({"--off-cpu", "--tid"}, "offcpu.trace.dat");
  RunResult txt = Fold({"--off-cpu", "--tid"}, "offcpu.trace.txt");
  ASSERT_EQ(dat.exit_code, 0) << dat.err;
  ASSERT_EQ(txt.exit_code, 0) << txt.err;
  auto stacks = [](const std::string& folded) {
    std::set<std::string> out;
    std::istringstream in(folded);
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.rfind(' '));
      size_t at = line.find(";__do_sys_vfork;");
      if (at != std::string::npos) line.replace(at, 16, ";__x64_sys_vfork;");
      out.insert(line);
    }
    return out;
  };
  EXPECT_EQ(stacks(txt.out), stacks(dat.out));
  std::map<int, uint64_t> a = TkTotals(dat.out), b = TkTotals(txt.out);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [tid, us] : a) {
    uint64_t t = b.contains(tid) ? b.at(tid) : 0;
    EXPECT_LE(t > us ? t - us : us - t, 40u) << "tid " << tid;
  }
}

// A real perf.data whose samples are named offcpu-time (record-offcpu-time.sh: a renamed
// cpu-clock event, since this perf cannot record --off-cpu): the perf.data reader feeds them
// to the offcpu-time path, each sample its period / 1000 µs. Per stack that is tk fold's
// period-weighted count / 1000; the total is perf script's periods / 1000.
TEST(OffCpuGolden, PerfDataOffcpuTimeSamples) {
  RunResult oc = Fold({"--off-cpu", "--json"}, "offcpu-time-named.data");
  RunResult plain = Fold({}, "offcpu-time-named.data");
  ASSERT_EQ(oc.exit_code, 0) << oc.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  nlohmann::json j = nlohmann::json::parse(oc.out);
  std::istringstream periods(ReadFile(SourcePath(kDir + "offcpu-time-named.periods.txt")));
  uint64_t tid, period, ns = 0, n = 0;
  while (periods >> tid >> period) {
    ns += period;
    ++n;
  }
  ASSERT_GT(n, 50u);
  EXPECT_EQ(j["offcpu_time_samples"], n);
  EXPECT_EQ(j["total"], ns / 1000);
  std::map<std::string, uint64_t> want;
  std::istringstream in(plain.out);
  std::string line;
  while (std::getline(in, line)) {
    size_t sp = line.rfind(' ');
    want[line.substr(0, sp)] += std::stoull(line.substr(sp + 1)) / 1000;
  }
  std::map<std::string, uint64_t> got;
  for (const auto& st : j["stacks"]) {
    std::string key;
    for (const auto& f : st["frames"]) key += (key.empty() ? "" : ";") + f.get<std::string>();
    got[key] += st["count"].get<uint64_t>();
  }
  EXPECT_EQ(got, want);
}

struct Case {
  std::vector<std::string> flags;
  const char* input;
  const char* golden;
  bool intervals = true;  // from sched_switch: some are open at the trace's ends
};
const Case kCases[] = {
    {{"--off-cpu"}, "offcpu.data", "offcpu.folded"},
    {{"--off-cpu", "--tid"}, "offcpu.data", "offcpu-tid.folded"},
    {{"--off-cpu", "--pid", "--kernel"}, "offcpu.data", "offcpu-pid-kernel.folded"},
    {{"--off-cpu", "--state", "D"}, "offcpu.data", "offcpu-state-D.folded"},
    {{"--off-cpu", "--json"}, "offcpu.data", "offcpu.json"},
    {{"--wakeup"}, "offcpu.data", "wakeup.folded"},
    {{"--off-cpu"}, "offcpu.script.txt", "offcpu-text.folded"},
    {{"--wakeup"}, "offcpu-wakeup.script.txt", "wakeup-text.folded"},
    // perf record --off-cpu's "offcpu-time" samples, hand-written in perf script's sample
    // layout: perf 6.1 here is built without BPF skeletons and ignores --off-cpu.
    {{"--off-cpu", "--tid"}, "offcpu-time.script.txt", "offcpu-time.folded", false},
};

TEST(OffCpuGolden, FromFileAndStdin) {
  for (const Case& c : kCases) {
    for (bool in : {false, true}) {
      RunResult r = Fold(c.flags, c.input, in);
      EXPECT_EQ(r.exit_code, 0) << c.golden << r.err;
      ExpectGolden(r.out, kDir + "expected/" + c.golden);
      // Intervals open at the trace's ends are reported, not counted.
      EXPECT_EQ(r.err.find("tk: not counted: ") != std::string::npos, c.intervals)
          << c.golden << r.err;
    }
  }
}

TEST(OffCpuGolden, NanosecondTextFoldsAsPerfData) {
  // offcpu-wakeup.script.txt is `perf script --ns` of offcpu.data minus its sched_waking
  // events, which --off-cpu does not read.
  for (const char* flag : {"--tid", "--all"}) {
    RunResult data = Fold({"--off-cpu", flag}, "offcpu.data");
    RunResult text = Fold({"--off-cpu", flag}, "offcpu-wakeup.script.txt");
    EXPECT_EQ(data.out, text.out) << flag << UnifiedDiff(data.out, text.out, 20);
  }
}

TEST(OffCpuGolden, ThreadsFlagChangesNothing) {
  for (const char* in : {"offcpu.data", "offcpu.script.txt"}) {
    for (const char* mode : {"--off-cpu", "--wakeup"}) {
      RunResult one = Fold({mode, "--threads", "1"}, in);
      RunResult two = Fold({mode, "--threads", "2"}, in);
      EXPECT_EQ(one.exit_code, 0);
      EXPECT_FALSE(one.out.empty());
      EXPECT_EQ(one.out, two.out) << in << " " << mode;
    }
  }
}

nlohmann::json Json(std::vector<std::string> flags) {
  flags.push_back("--json");
  RunResult r = Fold(flags, "offcpu.data");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(OffCpuGolden, StatesAndBoundsPartitionTheIntervals) {
  nlohmann::json all = Json({"--off-cpu"});
  uint64_t total = all["total"], counted = all["intervals"]["counted"];
  EXPECT_EQ(all["unit"], "us");
  EXPECT_EQ(total, all["intervals"]["counted_us"].get<uint64_t>());
  uint64_t by_state = 0, n_state = 0;
  for (const char* s : {"R", "S", "D", "T", "t", "X", "Z", "P", "I"}) {
    nlohmann::json j = Json({"--off-cpu", "--state", s});
    by_state += j["total"].get<uint64_t>();
    n_state += j["intervals"]["counted"].get<uint64_t>();
  }
  EXPECT_EQ(by_state, total);
  EXPECT_EQ(n_state, counted);
  for (const char* s : {"S", "D", "R"}) EXPECT_GT(Json({"--off-cpu", "--state", s})["total"], 0);
  nlohmann::json lo = Json({"--off-cpu", "--max-us", "999"});
  nlohmann::json hi = Json({"--off-cpu", "--min-us", "1000"});
  EXPECT_EQ(lo["total"].get<uint64_t>() + hi["total"].get<uint64_t>(), total);
  EXPECT_EQ(lo["intervals"]["counted"].get<uint64_t>() + hi["intervals"]["counted"].get<uint64_t>(),
            counted);
  EXPECT_GT(lo["intervals"]["counted"], 0);
  EXPECT_GT(hi["intervals"]["counted"], 0);
  // --wakeup counts the same intervals, split further by waker.
  nlohmann::json w = Json({"--wakeup"});
  EXPECT_EQ(w["total"], total);
  EXPECT_GT(w["wakeups_with_callchain"], 0);
  EXPECT_GT(w["intervals"]["no_waker"], 0);  // preemptions
}

TEST(OffCpuGolden, BadInput) {
  const std::string want =
      ": no sched:sched_switch callchains to fold (record with `perf record -e "
      "sched:sched_switch -e sched:sched_waking -a -g`)\n";
  // perf.data with sched_switch but no -g; trace.dat; a perf.data of cycles only.
  for (const char* f : {"testdata/recorded/sched/sched.perf.data",
                        "testdata/recorded/sched/sched.trace.dat", "testdata/perf_data/g.data"}) {
    RunResult r = RunTk({"fold", "--off-cpu", "--no-buildid-cache", "--no-host-kallsyms",
                         "--kallsyms", SourcePath(kDir + "kallsyms"), SourcePath(f)});
    EXPECT_EQ(r.exit_code, 1) << f;
    EXPECT_EQ(r.out, "") << f;
    EXPECT_EQ(r.err, "tk: " + SourcePath(f) + want) << f;
  }
  RunResult text = RunTk({"fold", "--wakeup", "-"}, SourcePath("testdata/recorded/sched/sched.perf-script.txt"));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.err, "tk: <stdin>" + want);
  RunResult garbage = RunTk({"fold", "--off-cpu", SourcePath("tests/cli/garbage.bin")});
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.err.find("offset 0: unknown input format"), std::string::npos);
  EXPECT_EQ(Fold({"--off-cpu", "--state", "Q"}, "offcpu.data").exit_code, 2);
  RunResult alone = Fold({"--state", "D"}, "offcpu.data");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_EQ(alone.err, "tk: --state needs --off-cpu or --wakeup\n");
  RunResult bounds = Fold({"--off-cpu", "--min-us", "10", "--max-us", "9"}, "offcpu.data");
  EXPECT_EQ(bounds.exit_code, 2);
  EXPECT_EQ(bounds.err, "tk: --min-us is above --max-us\n");
  // Without sched_waking/sched_wakeup callchains --wakeup still folds, and says so.
  RunResult nowake = RunTk({"fold", "--wakeup", SourcePath("testdata/fold/tracepoint-g.txt")});
  EXPECT_EQ(nowake.exit_code, 0);
  EXPECT_NE(nowake.err.find("no sched_waking/sched_wakeup callchains"), std::string::npos);
  // A system-wide recording does not get the per-process hint (OffCpu.PerProcessHint).
  RunResult sys = RunTk({"fold", "--off-cpu", SourcePath("testdata/fold/tracepoint-g.txt")});
  EXPECT_EQ(sys.err.find("record system-wide"), std::string::npos);
  RunResult help = RunTk({"fold", "--help"});
  for (const char* flag : {"--off-cpu", "--wakeup", "--state", "--min-us", "--max-us"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace tk::testing
