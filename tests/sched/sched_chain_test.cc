// tk sched timehist's callchain column on testdata/sched/chain.perf.data (perf sched record -g
// of pingpong.c, testdata/sched/record-chain.sh), against perf 6.1's own output of the same
// file with the same shipped kallsyms and symfs (testdata/sched/perf.chain.timehist*.txt).
// tk never reads this host: --no-buildid-cache --no-host-kallsyms.
//
// Deviations from perf 6.1 by default (docs/sched.md), pinned by DefaultNamesUserFramesAnd
// StopsAtMaxStack: user-space frames are named (perf 6.1's timehist ignores MMAP2 and prints
// [unknown]) and a chain has at most --max-stack functions (perf: the first N+2 frames less
// the scheduler's, so N+1 or N+2 when fewer than two scheduler frames are among them).
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "analyses/sched/timehist.h"
#include "analyses/sched/timehist_chain.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/sched/sched_events.h"
#include "tests/support/golden.h"

namespace tk::testing {
namespace {

const std::string kData = "testdata/sched/chain.perf.data";

std::vector<std::string> Args(std::vector<std::string> flags, const std::string& input) {
  std::vector<std::string> a = {"sched", "timehist", "--no-buildid-cache", "--no-host-kallsyms",
                                "--kallsyms", SourcePath("testdata/sched/chain.kallsyms"),
                                "--symfs", SourcePath("testdata/sched/chain-symfs")};
  a.insert(a.end(), flags.begin(), flags.end());
  a.push_back(input);
  return a;
}

struct Case {
  std::vector<std::string> flags;
  std::string expected;
  bool stdin_too;
};
const Case kFixedCases[] = {
    {{}, "testdata/sched/perf.chain.timehist.txt", true},
    {{"-g"}, "testdata/sched/perf.chain.timehist-call-graph.txt", true},
    {{"--no-call-graph"}, "testdata/sched/perf.chain.timehist-no-call-graph.txt", true},
    {{"--max-stack", "2"}, "testdata/sched/perf.chain.timehist-max-stack2.txt", true},
    {{"--max-stack", "12"}, "testdata/sched/perf.chain.timehist-max-stack12.txt", false},
    {{"--max-stack", "0"}, "testdata/sched/perf.chain.timehist-max-stack0.txt", false},
    {{"-w", "--state"}, "testdata/sched/perf.chain.timehist-w-state.txt", false},
    {{"-n", "-V"}, "testdata/sched/perf.chain.timehist-n-V.txt", false},
    {{"-M", "-S"}, "testdata/sched/perf.chain.timehist-M-S.txt", false},
    {{"-I", "-S"}, "testdata/sched/perf.chain.timehist-I-S.txt", false},
};

// Timehist rows of an output: "   25165.589578 [0000]  comm[tid] ..." lines.
size_t TimehistRows(const std::string& text) {
  size_t rows = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    size_t at = l.find_first_not_of(' ');
    rows += at != std::string::npos && std::isdigit(static_cast<unsigned char>(l[at])) &&
            l.find(" [", at) != std::string::npos;
  }
  return rows;
}

// The cases whose flags record-chain.sh derives from the recording (a pid, a CPU, a time
// window): testdata/sched/chain.derived-args, "SUFFIX FLAG..." a line; --time also from stdin.
std::vector<Case> DerivedCases() {
  std::vector<Case> cases;
  std::istringstream in(ReadFile(SourcePath("testdata/sched/chain.derived-args")));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string suffix;
    words >> suffix;
    Case c{{}, "testdata/sched/perf.chain.timehist" + suffix + ".txt", suffix == "-time"};
    for (std::string w; words >> w;) c.flags.push_back(w);
    cases.push_back(c);
  }
  return cases;
}

TEST(SchedChain, CompatIsPerf61ByteForByte) {
  std::vector<Case> cases(std::begin(kFixedCases), std::end(kFixedCases));
  const std::vector<Case> derived = DerivedCases();
  ASSERT_EQ(derived.size(), 2u) << "chain.derived-args: the -p/-C and --time cases";
  cases.insert(cases.end(), derived.begin(), derived.end());
  for (const Case& c : cases) {
    std::vector<std::string> flags = {"--compat", "perf-6.1"};
    flags.insert(flags.end(), c.flags.begin(), c.flags.end());
    const std::string want = ReadFile(SourcePath(c.expected));
    EXPECT_GT(TimehistRows(want), 0u) << c.expected << ": an empty reference checks nothing";
    RunResult r = RunTk(Args(flags, SourcePath(kData)));
    ASSERT_EQ(r.exit_code, 0) << c.expected << r.err;
    EXPECT_EQ(r.out, want) << c.expected << "\n" << UnifiedDiff(want, r.out);
    if (!c.stdin_too) continue;
    RunResult in = RunTk(Args(flags, "-"), SourcePath(kData));
    ASSERT_EQ(in.exit_code, 0) << c.expected << in.err;
    EXPECT_EQ(in.out, want) << "stdin: " << c.expected << "\n" << UnifiedDiff(want, in.out);
  }
}

// The column of a row: what follows the run time ("   0.008    a <- b" -> {a, b}), after
// the last run of spaces (frames hold single spaces only).
std::vector<std::string> Column(const std::string& row) {
  size_t at = row.rfind("    ");
  std::vector<std::string> frames;
  if (at == std::string::npos) return frames;
  std::string rest = row.substr(at + 4);
  for (size_t p = 0; !rest.empty();) {
    size_t q = rest.find(" <- ", p);
    frames.push_back(rest.substr(p, q == std::string::npos ? q : q - p));
    if (q == std::string::npos) break;
    p = q + 4;
  }
  return frames;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// By default every row has perf's frames except that user-space ones are named where perf
// 6.1 prints [unknown], and a chain stops at --max-stack functions.
TEST(SchedChain, DefaultNamesUserFramesAndStopsAtMaxStack) {
  RunResult r = RunTk(Args({}, SourcePath(kData)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> mine = Lines(r.out);
  std::vector<std::string> perf =
      Lines(ReadFile(SourcePath("testdata/sched/perf.chain.timehist.txt")));
  ASSERT_EQ(mine.size(), perf.size());
  int named = 0, cut = 0, rows = 0;
  for (size_t i = 3; i < perf.size(); ++i) {
    std::vector<std::string> a = Column(mine[i]), b = Column(perf[i]);
    ASSERT_FALSE(b.empty()) << perf[i];
    ++rows;
    EXPECT_LE(a.size(), 5u) << mine[i];
    EXPECT_EQ(a.size(), std::min<size_t>(b.size(), 5)) << mine[i] << "\n" << perf[i];
    cut += b.size() > 5;
    for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
      if (a[k] == b[k]) continue;
      EXPECT_EQ(b[k], "[unknown]") << mine[i] << "\n" << perf[i];
      named += a[k] == "ping" || a[k] == "pong";
    }
  }
  EXPECT_EQ(rows, 215);
  EXPECT_GT(named, 50);  // pingpong's own functions, from chain-symfs
  EXPECT_EQ(cut, 3);     // preemptions through __cond_resched: perf shows 6 functions
  EXPECT_NE(r.err.find("rows' callchains name user-space frames or stop at 5 functions"),
            std::string::npos)
      << r.err;
  ExpectGolden(r.out, "testdata/sched/tk.chain.timehist.txt");
}

// --json: each switch row carries the column's functions as an array ([] for the idle task).
TEST(SchedChain, JsonCarriesTheChain) {
  RunResult j = RunTk(Args({"--compat", "perf-6.1", "--json"}, SourcePath(kData)));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  std::vector<std::string> perf =
      Lines(ReadFile(SourcePath("testdata/sched/perf.chain.timehist.txt")));
  size_t row = 3;
  for (const std::string& line : Lines(j.out)) {
    nlohmann::json o = nlohmann::json::parse(line);
    if (o["type"] != "switch") continue;
    ASSERT_LT(row, perf.size());
    ASSERT_TRUE(o.contains("callchain")) << line;
    EXPECT_EQ(o["callchain"].get<std::vector<std::string>>(), Column(perf[row++])) << line;
  }
  EXPECT_EQ(row, perf.size());
  RunResult off = RunTk(Args({"--json", "--no-call-graph"}, SourcePath(kData)));
  EXPECT_EQ(off.out.find("callchain"), std::string::npos);
}

// A recording without callchains has no column and nothing is symbolized: no kernel symbols
// are looked for (they used to be, with a "no kernel symbols" warning), from a file or stdin.
TEST(SchedChain, NoCallchainsNoSymbols) {
  const std::string f = SourcePath("testdata/sched/lost.perf.data");
  for (bool piped : {false, true}) {
    RunResult r = piped ? RunTk({"sched", "timehist", "--compat", "perf-6.1", "-"}, f)
                        : RunTk({"sched", "timehist", "--compat", "perf-6.1", f});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("kernel symbols"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, ReadFile(SourcePath("testdata/sched/perf.lost.timehist.txt")));
  }
}

TEST(SchedChain, HelpDocumentsTheOptions) {
  RunResult h = RunTk({"help", "sched", "timehist"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  for (const char* opt : {"-g,--call-graph", "--no-call-graph", "--max-stack", "--kallsyms",
                          "--symfs", "--no-buildid-cache"})
    EXPECT_NE(h.out.find(opt), std::string::npos) << opt << "\n" << h.out;
}

Frame F(std::string_view sym, std::string_view dso = "[kernel.kallsyms]", uint64_t ip = 1) {
  return Frame{ip, sym, dso, 0};
}

std::string ColumnOf(const std::vector<Frame>& stack, uint32_t max_stack, bool perf61) {
  std::vector<sched::ChainFrame> c;
  sched::ChainFrames(stack, max_stack, perf61, &c);
  std::string s;
  sched::AppendChainColumn(&s, c);
  return s;
}

// perf's ignore list is three exact names; other scheduler-looking functions stay.
TEST(SchedChain, SkipsExactlyPerfsSchedulerFunctions) {
  std::vector<Frame> st = {F("__schedule"), F("preempt_schedule_irq"), F("schedule"),
                           F("preempt_schedule"), F("schedule_timeout"), F("[unknown]", "[unknown]")};
  EXPECT_EQ(ColumnOf(st, 5, false),
            "   preempt_schedule_irq <- schedule_timeout <- [unknown]");
  EXPECT_EQ(ColumnOf(st, 1, false), "   preempt_schedule_irq");
  // perf 6.1: the first N+2 frames, then the ignored ones dropped.
  EXPECT_EQ(ColumnOf(st, 1, true), "   preempt_schedule_irq");
  EXPECT_EQ(ColumnOf(st, 0, true), "   preempt_schedule_irq");
  EXPECT_EQ(ColumnOf(st, 0, false), "  ");
  std::vector<Frame> user = {F("__schedule"), F("do_syscall_64"), F("main", "/bin/x", 0x1139),
                             F("vdso_fn", "[vdso]"), F("bpf_prog_1", "bpf_prog_1")};
  EXPECT_EQ(ColumnOf(user, 5, false), "   do_syscall_64 <- main <- vdso_fn <- bpf_prog_1");
  EXPECT_EQ(ColumnOf(user, 5, true), "   do_syscall_64 <- [unknown] <- [unknown] <- bpf_prog_1");
}

// -I: the chain of the task that went idle gets the idle period after it; most idle time
// first, folded with the scheduler's frames left out, an unresolved frame as its address.
TEST(SchedChain, IdleChainsByIdleTime) {
  std::vector<sched::ChainFrame> a, b;
  sched::ChainFrames({F("__schedule"), F("do_idle_wait"), F("[unknown]", "[unknown]", 0xabc)}, 5,
                     true, &a);
  sched::ChainFrames({F("schedule"), F("pipe_read")}, 5, true, &b);
  sched::IdleChains ic;
  ic.Charge(5000000);  // nothing saved yet: not charged
  ic.Save(a);
  ic.Charge(1000000);
  ic.Save(b);
  ic.Charge(2500000);
  ic.Charge(500000);
  std::string out;
  ic.Append(&out);
  EXPECT_EQ(out,
            "  Idle time (msec)     Count  Callchains\n"
            "  ----------------  --------  --------------------------------------------------\n"
            // perf: "  ", print_sched_time(hit, 12) ("%12llu.%03llu "), " %8d  ", chain
            "             3.000         2  pipe_read\n"
            "             1.000         1  do_idle_wait <- 0xabc\n");
}

// The whole -I path: a task going idle leaves its chain on the CPU, the idle period that ends
// is charged to it, and the summary lists the chains per CPU after "Idle stats".
TEST(SchedChain, IdleHistSummaryByCallchain) {
  using sched::testing::kUs;
  using sched::testing::Switch;
  static const std::vector<Frame> sleep = {F("__schedule"), F("schedule"), F("do_nanosleep")};
  static const std::vector<Frame> pipe = {F("__schedule"), F("schedule"), F("pipe_read")};
  auto out = [](int64_t us, const std::vector<Frame>& st) {
    Event e = Switch(us * kUs, 0, 10, "a", "S", 0, "swapper/0");
    e.stack = st;
    e.callchain = e.stack_recorded = true;
    return e;
  };
  std::vector<Event> ev = {out(1000, sleep), Switch(3000 * kUs, 0, 0, "swapper/0", "R", 10, "a"),
                           out(4000, pipe),  Switch(4500 * kUs, 0, 0, "swapper/0", "R", 10, "a"),
                           out(5000, sleep), Switch(6000 * kUs, 0, 0, "swapper/0", "R", 10, "a")};
  for (Event& e : ev) e.callchain = true;
  sched::TimehistOptions o;
  o.idle_hist = o.with_summary = o.perf61 = true;
  o.nr_cpus = 1;
  std::ostringstream text;
  sched::TimehistAnalysis a(o, text);
  sched::testing::Feed(a, ev);
  a.WriteRest();
  const std::string s = text.str();
  EXPECT_NE(s.find("[0000]  a[10]                               0.000      0.000      0.000"
                   "    do_nanosleep\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("Idle stats by callchain:\n"
                   "  CPU  0:     3.500  msec\n"
                   "  Idle time (msec)     Count  Callchains\n"
                   "  ----------------  --------  --------------------------------------------------\n"
                   "             3.000         2  do_nanosleep\n"
                   "             0.500         1  pipe_read\n\n"),
            std::string::npos)
      << s;
  o.json = true;
  std::ostringstream json;
  sched::TimehistAnalysis j(o, json);
  sched::testing::Feed(j, ev);
  j.WriteRest();
  EXPECT_NE(json.str().find("{\"type\":\"idle_callchain\",\"cpu\":0,\"idle_ms\":3.000000,"
                            "\"count\":2,\"callchain\":[\"do_nanosleep\"]}\n"),
            std::string::npos)
      << json.str();
}

}  // namespace
}  // namespace tk::testing
