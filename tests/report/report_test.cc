// ReportSink and TopSink on synthetic events: the accounting rules (Self, Children once per
// sample, period weighting) and perf's formatting details.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analyses/report/report.h"
#include "analyses/report/top.h"
#include "gtest/gtest.h"

namespace tk::analyses::report {
namespace {

Event Sample(std::string_view comm, std::vector<Frame>* frames, uint64_t period) {
  Event e;
  e.pid = e.tid = 42;
  e.cpu = 1;
  e.comm = comm;
  e.name = "cycles";
  e.period = period;
  e.has_period = true;
  e.stack = absl::MakeConstSpan(*frames);
  e.body = tk::Sample{};
  return e;
}

std::string Text(const ReportSink& s) {
  std::ostringstream o;
  s.WriteText(o);
  return o.str();
}

TEST(ReportSink, RecursionCountsOncePerSampleInChildren) {
  ReportOptions o;
  o.quiet = true;
  ReportSink s(o);
  std::vector<Frame> rec = {{0x10, "f", "/bin/a"}, {0x20, "f", "/bin/a"}, {0x30, "main", "/bin/a"}};
  std::vector<Frame> other = {{0x40, "g", "/bin/a"}, {0x30, "main", "/bin/a"}};
  ASSERT_TRUE(s.OnEvent(Sample("a", &rec, 300)).ok());
  ASSERT_TRUE(s.OnEvent(Sample("a", &other, 100)).ok());
  EXPECT_TRUE(s.children());
  EXPECT_EQ(Text(s),
            "   100.00%     0.00%  a        a              [.] main\n"
            "    75.00%    75.00%  a        a              [.] f\n"
            "    25.00%    25.00%  a        a              [.] g\n\n\n");
}

TEST(ReportSink, SamplesLineScalesAsPerf) {
  ReportOptions o;
  o.children = false;
  ReportSink s(o);
  std::vector<Frame> f = {{0xffffffff81000000ull, "[unknown]", "[unknown]"}};
  for (int i = 0; i < 1500; ++i) ASSERT_TRUE(s.OnEvent(Sample("k", &f, 1)).ok());
  std::string t = Text(s);
  EXPECT_NE(t.find("# Samples: 1K of event 'cycles'\n# Event count (approx.): 1500\n"),
            std::string::npos)
      << t;
  // A kernel address outside any map: [k], the absolute address, 4 + 18 wide.
  EXPECT_NE(t.find("   100.00%  k        [unknown]      [k] 0xffffffff81000000\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("# Overhead  Command  Shared Object  Symbol                \n"),
            std::string::npos)
      << t;
}

TEST(ReportSink, NoChildrenHidesCallerOnlyEntriesAndLimitHidesSmallRows) {
  ReportOptions o;
  o.children = false;
  o.quiet = true;
  o.percent_limit = 30;
  o.show_nr_samples = true;
  ReportSink s(o);
  std::vector<Frame> a = {{1, "leaf", "/lib/x.so"}, {2, "caller", "/lib/x.so"}};
  std::vector<Frame> b = {{0, "[unknown]", "/lib/x.so"}};
  ASSERT_TRUE(s.OnEvent(Sample("c", &a, 3)).ok());
  ASSERT_TRUE(s.OnEvent(Sample("c", &b, 1)).ok());
  // 0 prints without 0x (printf's # flag), and the hidden row still sets the width.
  EXPECT_EQ(Text(s), "    75.00%             1  c        x.so           [.] leaf\n\n\n");
}

// perf's sort__sym_cmp keys a symbol by its DSO and start address: two static functions
// named alike in one DSO are two rows (checked against perf report 6.1 on the bench
// recording: cc1plus's three HONOR_NANS are three rows in both), while two addresses inside
// one symbol are one. Both the stable-view fast path and the content path.
TEST(ReportSink, SymbolsAreKeyedByStartAddress) {
  for (bool stable : {false, true}) {
    ReportOptions o;
    o.children = false;
    o.quiet = true;
    o.show_nr_samples = true;
    ReportSink s(o);
    // Distinct storage for equal names, as two symbol tables would give.
    std::string a1 = "helper", a2 = "helper", dso1 = "/bin/a", dso2 = "/bin/a";
    std::vector<Frame> in_first = {{0x110, a1, dso1, 0x10}};
    std::vector<Frame> in_first_again = {{0x120, a2, dso2, 0x20}};
    std::vector<Frame> in_second = {{0x208, a1, dso1, 0x8}};
    for (auto* f : {&in_first, &in_first_again, &in_second}) {
      Event e = Sample("c", f, f == &in_second ? 1 : 2);
      e.stable_views = stable;
      ASSERT_TRUE(s.OnEvent(e).ok());
    }
    EXPECT_EQ(Text(s),
              "    80.00%             2  c        a              [.] helper\n"
              "    20.00%             1  c        a              [.] helper\n\n\n")
        << "stable_views " << stable;
    ASSERT_EQ(s.tables().size(), 1u);
    ASSERT_EQ(s.tables()[0]->entries.size(), 2u);
    EXPECT_EQ(s.tables()[0]->entries[0].addr, 0x100u);
    EXPECT_EQ(s.tables()[0]->entries[1].addr, 0x200u);
  }
}

TEST(IsKernelFrame, AsPerfLevels) {
  EXPECT_TRUE(IsKernelFrame({0xffffffff81000000ull, "f", "[kernel.kallsyms]"}));
  EXPECT_TRUE(IsKernelFrame({0xffffffffc0000000ull, "f", "[nf_conntrack]"}));
  EXPECT_TRUE(IsKernelFrame({0xffffffff81000000ull, "[unknown]", "[unknown]"}));
  EXPECT_FALSE(IsKernelFrame({0x7fff0000, "[unknown]", "[unknown]"}));
  EXPECT_FALSE(IsKernelFrame({0x9a0, "__vdso_clock_gettime", "[vdso]"}));  // perf: [.]
  EXPECT_FALSE(IsKernelFrame({0x10, "main", "/bin/a"}));
}

TEST(ParseColumns, KnowsPerfNames) {
  std::vector<Column> c;
  std::string bad;
  EXPECT_TRUE(ParseColumns("comm,pid,dso,sym,symbol,cpu", false, &c, &bad));
  EXPECT_EQ(c.size(), 6u);
  EXPECT_FALSE(ParseColumns("overhead", false, &c, &bad));
  EXPECT_EQ(bad, "overhead");
  EXPECT_TRUE(ParseColumns("overhead,overhead_children,sample,period", true, &c, &bad));
  EXPECT_FALSE(ParseColumns("comm,bogus", true, &c, &bad));
  EXPECT_EQ(bad, "bogus");
}

TEST(ShortDso, AsPerf) {
  EXPECT_EQ(ShortDso("/usr/lib/x86_64-linux-gnu/libc.so.6"), "libc.so.6");
  EXPECT_EQ(ShortDso("[kernel.kallsyms]"), "[kernel.kallsyms]");
  EXPECT_EQ(ShortDso("/memfd:sealed-91 (deleted)"), "memfd:sealed-91 (deleted)");
}

TEST(Top, PprofScalingAndPercentages) {
  EXPECT_EQ(ScaledValue(29250000, "nanoseconds"), "29.25ms");
  EXPECT_EQ(ScaledValue(250000, "nanoseconds"), "250us");
  EXPECT_EQ(ScaledValue(3000000000, "nanoseconds"), "3s");
  EXPECT_EQ(ScaledValue(0, "nanoseconds"), "0");
  EXPECT_EQ(ScaledValue(117, "count"), "117");
  TopSink t;
  std::vector<Frame> rec = {{0x10, "f", "/bin/a"}, {0x20, "f", "/bin/a"}, {0x30, "main", "/bin/a"}};
  std::vector<Frame> other = {{0x40, "g", "/bin/a"}, {0x30, "main", "/bin/a"}};
  ASSERT_TRUE(t.OnEvent(Sample("a", &rec, 300)).ok());
  ASSERT_TRUE(t.OnEvent(Sample("a", &other, 1)).ok());
  std::ostringstream o;
  t.WriteText(o);
  EXPECT_EQ(o.str(),
            "Type: cycles\n"
            "Showing nodes accounting for 301, 100% of 301 total\n"
            "      flat  flat%   sum%        cum   cum%\n"
            "       300 99.67% 99.67%        300 99.67%  f\n"
            "         1  0.33%   100%          1  0.33%  g\n"
            "         0     0%   100%        301   100%  main\n");
}

// AppendPercent's integer path against printf's "%.2f" of the same double, on every v/total
// with small totals (exact halves such as 1/32 = 3.125% among them, which round to even on the
// binary value) and on large sampled periods.
TEST(AppendPercent, MatchesPrintf) {
  auto check = [](uint64_t v, uint64_t total) {
    std::string got;
    AppendPercent(v, total, &got);
    const double p = total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0;
    char want[64];
    std::snprintf(want, sizeof want, "%.2f%%", p);
    ASSERT_EQ(got, want) << v << "/" << total;
  };
  check(0, 0);
  for (uint64_t total = 1; total <= 1024; ++total)
    for (uint64_t v = 0; v <= total; ++v) check(v, total);
  uint64_t x = 88172645463325252ull;  // xorshift: periods as a cpu-clock file has them
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const uint64_t total = x % 40000000000000ull + 1;
    check((x >> 7) % (total + 1), total);
    check((x >> 7) % 10000 * 250000, total / 250000 * 250000 + 250000);
  }
}

// SortedRows' order is perf's (Children, then Self, descending; then the sort keys ascending:
// a comm or DSO by name, tid and cpu signed, a resolved symbol by name then start before every
// unresolved one by address), checked against that comparator itself on a table with many
// distinct values, unresolved kernel and user addresses, static twins (one name, two starts)
// and keys that fill the radix key's 64 bits (pid and cpu: their word takes passes of its own).
TEST(SortedRows, OrderIsThePerfComparatorsForEveryKeySet) {
  std::vector<std::string> comms = {"beta", "alpha", "gamma", "delta"};
  std::vector<std::string> dsos = {"/lib/x.so", "/bin/a", "[kernel.kallsyms]", "[unknown]"};
  std::vector<std::string> syms;
  for (int i = 0; i < 300; ++i) syms.push_back("fn" + std::to_string(i * 7919 % 300));
  for (const auto& sort : std::vector<std::vector<Key>>{
           {Key::kComm, Key::kDso, Key::kSym},
           {Key::kSym},
           {Key::kDso},
           {Key::kPid, Key::kSym},
           {Key::kCpu, Key::kPid, Key::kComm, Key::kDso, Key::kSym}}) {
    for (bool children : {true, false}) {
      for (int threads : {1, 2}) {
        ReportOptions o;
        o.sort = sort;
        o.children = children;
        o.threads = threads;
        ReportSink sink(o);
        for (uint64_t i = 0; i < 3 * kParallelRows; ++i) {
          const std::string& dso = dsos[i % 4];
          const bool unresolved = dso == "[unknown]" || i % 7 == 0;
          const uint64_t ip = dso == "[kernel.kallsyms]" || (unresolved && i % 2)
                                  ? 0xffffffff81000000ull + i * 32
                                  : 0x1000 + (i % 500) * 16;
          std::vector<Frame> stack = {
              {ip, unresolved ? std::string_view("[unknown]") : syms[i % 300], dso,
               unresolved ? -1 : static_cast<int64_t>(i % 3)},  // starts: ip - 0..2
              {0x2000 + (i % 50) * 8, syms[(i * 13) % 300], "/bin/a", 0}};
          Event e;
          e.tid = e.pid = static_cast<int32_t>(i % 9) - 1;
          e.cpu = static_cast<int32_t>(i % 5) - 1;
          e.comm = comms[i % 4];
          e.name = "cycles";
          e.period = 1 + (i * i) % 977;  // many distinct sums
          e.has_period = true;
          e.stable_views = true;
          e.body = tk::Sample{};
          e.stack = absl::MakeConstSpan(stack);
          ASSERT_TRUE(sink.OnEvent(e).ok());
        }
        ASSERT_TRUE(sink.Finish().ok());
        const Table& t = *sink.tables()[0];
        uint64_t total = 0, samples = 0;
        const std::vector<const Entry*> rows = SortedRows(sink, t, &total, &samples);
        auto less = [&](const Entry* a, const Entry* b) {
          if (children && a->children_period != b->children_period)
            return a->children_period > b->children_period;
          if (a->self_period != b->self_period) return a->self_period > b->self_period;
          for (Key k : sort) {
            switch (k) {
              case Key::kComm:
                if (a->comm != b->comm) return a->comm < b->comm;
                break;
              case Key::kPid:
                if (a->tid != b->tid) return a->tid < b->tid;
                break;
              case Key::kDso:
                if (a->dso != b->dso) return a->dso < b->dso;
                break;
              case Key::kSym:
                if (a->sym.empty() != b->sym.empty()) return !a->sym.empty();
                if (a->sym != b->sym) return a->sym < b->sym;
                if (a->addr != b->addr) return a->addr < b->addr;
                break;
              case Key::kCpu:
                if (a->cpu != b->cpu) return a->cpu < b->cpu;
                break;
            }
          }
          return false;
        };
        std::vector<const Entry*> want;
        for (const Entry& en : t.entries)
          if (children || en.self_samples != 0) want.push_back(&en);
        if (std::count(sort.begin(), sort.end(), Key::kSym)) {  // large: both threads' paths
          ASSERT_GT(want.size(), kParallelRows);
        }
        std::sort(want.begin(), want.end(), less);
        for (size_t i = 1; i < want.size(); ++i)  // entries are distinct under the keys
          ASSERT_TRUE(less(want[i - 1], want[i])) << i;
        EXPECT_EQ(rows, want) << "keys " << sort.size() << " children " << children
                              << " threads " << threads;
      }
    }
  }
}

}  // namespace
}  // namespace tk::analyses::report
