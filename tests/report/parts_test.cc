// tk report in parts (ReportParts, ReportSink::Merge): a stream cut anywhere into parts, each
// accumulated by a sink of its own and merged in order, reports exactly what one sink fed the
// whole stream reports (text, JSON, and the entries' order, which is first seen), for every
// --sort and both modes; and `perf script` text parsed in two halves on two threads
// (ParseSplit) reports what one pass reports, on the committed text fixtures.
#include <sstream>

#include "analyses/report/report.h"
#include "gtest/gtest.h"
#include "parsers/perf_script/split_parse.h"
#include "tests/support/golden.h"

namespace tk::analyses::report {
namespace {

// One event of the stream, as the test holds it (views into `frames` and literals).
struct Ev {
  enum { kSample, kComm, kLost } kind;
  std::string name;
  std::string comm;
  int32_t tid = 0, cpu = 0;
  uint64_t period = 0;
  std::vector<Frame> frames;
};

// Entries only in the first part, only in the last, in both in another order of first use;
// an address outside every map first under a user leaf, later under a kernel leaf (its level
// is the first sample's); tables in the order first seen, one first seen in a later part; a
// thread whose comm changes (Comm events and samples); lost samples throughout.
std::vector<Ev> Stream() {
  const Frame kMain{0x30, "main", "/bin/a", 0}, kF{0x10, "f", "/bin/a", 0},
      kG{0x44, "g", "/lib/x.so", 4}, kH{0x58, "h", "/lib/x.so", 8},
      kUnmapped{0x7fff1000, "[unknown]", "[unknown]", -1},
      kSys{0xffffffff81000010ull, "do_syscall_64", "[kernel.kallsyms]", 0x10},
      kIrq{0xffffffff81000400ull, "irq_exit", "[kernel.kallsyms]", 0},
      kStatic1{0x110, "helper", "/bin/a", 0x10}, kStatic2{0x208, "helper", "/bin/a", 0x8};
  std::vector<Ev> v;
  auto sample = [&](std::string name, std::string comm, int32_t tid, int32_t cpu, uint64_t p,
                    std::vector<Frame> f) {
    v.push_back({Ev::kSample, std::move(name), std::move(comm), tid, cpu, p, std::move(f)});
  };
  v.push_back({Ev::kComm, "", "alpha", 100, 0, 0, {}});
  sample("cycles", "alpha", 100, 0, 10, {kF, kF, kMain});
  sample("cycles", "alpha", 100, 1, 20, {kUnmapped, kMain});
  sample("cycles", "beta", 101, 0, 30, {kG, kMain});
  v.push_back({Ev::kLost, "", "", 0, 0, 3, {}});
  sample("cycles", "alpha", 100, 0, 40, {kStatic1, kMain});
  sample("faults", "beta", 101, 1, 1, {kH, kG, kMain});
  sample("cycles", "beta", 101, 1, 50, {kSys, kUnmapped, kMain});
  sample("cycles", "alpha", 102, 0, 60, {kStatic2, kF, kMain});
  v.push_back({Ev::kComm, "", "gamma", 100, 0, 0, {}});
  sample("cycles", "gamma", 100, 0, 70, {kH, kMain});
  sample("instructions", "gamma", 100, 1, 5, {kIrq});
  sample("cycles", "beta", 101, 0, 80, {kG, kMain});
  sample("cycles", "gamma", 100, 1, 90, {kSys, kUnmapped, kMain});
  v.push_back({Ev::kLost, "", "", 0, 0, 4, {}});
  sample("faults", "alpha", 102, 0, 2, {kF, kMain});
  sample("cycles", "delta", 100, 0, 15, {kUnmapped});  // a sample renames its thread
  sample("cycles", "beta", 103, 1, 25, {kIrq, kSys, kUnmapped, kMain});
  sample("instructions", "beta", 101, 0, 7, {kStatic1, kG});
  sample("cycles", "alpha", 102, 1, 35, {kMain});
  // Deep stacks of one thread sharing their outer frames (the thread's outer-frame memo,
  // 4 frames or more), a shallow one between them, then the thread under another level.
  sample("cycles", "alpha", 104, 0, 11, {kH, kG, kF, kStatic1, kMain});
  sample("cycles", "alpha", 104, 0, 12, {kG, kG, kF, kStatic1, kMain});
  sample("cycles", "alpha", 104, 0, 13, {kF, kMain});
  sample("cycles", "alpha", 104, 0, 14, {kUnmapped, kH, kF, kStatic1, kMain});
  sample("cycles", "alpha", 104, 0, 16, {kSys, kUnmapped, kH, kF, kStatic1, kMain});
  sample("cycles", "alpha", 104, 1, 17, {kStatic2, kUnmapped, kH, kF, kStatic1, kMain});
  return v;
}

// Feeds events [from, to) of `v` into `s`. `stable`: the views stay valid (perf.data's);
// else each sample's comm and names are copies that die after the call (a text line's).
void Feed(const std::vector<Ev>& v, size_t from, size_t to, bool stable, ReportSink& s) {
  for (size_t i = from; i < to; ++i) {
    const Ev& ev = v[i];
    Event e;
    e.tid = e.pid = ev.tid;
    e.cpu = ev.cpu;
    e.name = ev.name;
    std::string comm = ev.comm;
    std::vector<std::string> names;
    std::vector<Frame> frames = ev.frames;
    if (ev.kind == Ev::kComm) {
      e.body = tk::Comm{ev.tid, ev.tid, comm, false};
    } else if (ev.kind == Ev::kLost) {
      e.body = tk::Lost{tk::Lost::Kind::kLostSamples, ev.period};
    } else {
      e.body = tk::Sample{};
      e.period = ev.period;
      e.has_period = true;
      e.stable_views = stable;
      if (stable) {
        e.comm = ev.comm;
        e.stack = absl::MakeConstSpan(ev.frames);
      } else {
        names.reserve(2 * frames.size());
        for (Frame& f : frames) {
          f.symbol = names.emplace_back(f.symbol);
          f.dso = names.emplace_back(f.dso);
        }
        e.comm = comm;
        e.stack = absl::MakeConstSpan(frames);
      }
    }
    ASSERT_TRUE(s.OnEvent(e).ok());
  }
}

// The text, the JSON and every table's entries in order (with their level and values).
std::string Dump(const ReportSink& s) {
  std::ostringstream o;
  s.WriteText(o);
  s.WriteJson(o);
  for (const auto& t : s.tables()) {
    o << "table " << t->event << " " << t->samples << " " << t->period << "\n";
    for (const Entry& en : t->entries) {
      o << en.comm << "|" << en.dso << "|" << en.sym << "|" << en.addr << "|" << en.tid << "|"
        << en.cpu << "|" << en.kernel << "|" << en.self_period << "|" << en.self_samples << "|"
        << en.children_period << "\n";
    }
  }
  return o.str();
}

std::vector<ReportOptions> OptionSets() {
  std::vector<ReportOptions> sets;
  const std::vector<std::vector<Key>> sorts = {{Key::kComm, Key::kDso, Key::kSym},
                                               {Key::kDso, Key::kSym},
                                               {Key::kSym},
                                               {Key::kPid},
                                               {Key::kCpu},
                                               {Key::kComm},
                                               {Key::kPid, Key::kCpu, Key::kSym}};
  for (std::optional<bool> children : {std::optional<bool>(), std::optional<bool>(false)}) {
    for (const auto& sort : sorts) {
      ReportOptions o;
      o.sort = sort;
      o.children = children;
      o.show_nr_samples = o.show_total_period = true;
      sets.push_back(o);
    }
  }
  return sets;
}

// One sink over the whole stream against parts cut at `cuts` (ascending), merged in order.
void ExpectPartsEqualWhole(const ReportOptions& o, bool stable, const std::vector<size_t>& cuts) {
  const std::vector<Ev> v = Stream();
  ReportSink whole(o);
  Feed(v, 0, v.size(), stable, whole);
  ASSERT_TRUE(whole.Finish().ok());
  ReportSink out(o);
  ReportParts parts(out);
  std::vector<std::unique_ptr<EventSink>> sinks;
  size_t from = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t to = i < cuts.size() ? cuts[i] : v.size();
    sinks.push_back(parts.NewPart());
    Feed(v, from, to, stable, static_cast<ReportSink&>(*sinks.back()));
    ASSERT_TRUE(sinks.back()->Finish().ok());
    from = to;
  }
  for (auto& s : sinks) parts.MergePart(*s);
  sinks.clear();  // the parts' views die (a text part's parser goes with its part)
  std::string cut_at;
  for (size_t c : cuts) cut_at += " " + std::to_string(c);
  EXPECT_EQ(Dump(out), Dump(whole)) << "cut at" << cut_at << ", stable " << stable;
  EXPECT_EQ(out.samples(), whole.samples());
  EXPECT_EQ(out.lost_samples(), whole.lost_samples());
}

TEST(ReportParts, TwoPartsEqualOnePassAtEveryCut) {
  const size_t n = Stream().size();
  for (const ReportOptions& o : OptionSets()) {
    for (bool stable : {true, false}) {
      for (size_t cut = 0; cut <= n; ++cut) ExpectPartsEqualWhole(o, stable, {cut});
    }
  }
}

TEST(ReportParts, ThreePartsEqualOnePass) {
  const size_t n = Stream().size();
  for (const ReportOptions& o : OptionSets()) {
    for (size_t a = 0; a <= n; a += 3) {
      for (size_t b = a; b <= n; b += 4) ExpectPartsEqualWhole(o, true, {a, b});
    }
  }
}

// The merge's own rules on a small case: entries in one part or both, the first part's first
// seen order and level, a table first seen in the second part after one both have.
TEST(ReportParts, MergeSumsInOrderOfFirstSeen) {
  ReportOptions o;
  o.sort = {Key::kSym};
  o.quiet = true;
  o.show_nr_samples = true;
  ReportSink out(o);
  ReportParts parts(out);
  std::unique_ptr<EventSink> a = parts.NewPart(), b = parts.NewPart();
  const Frame x{0x7fff1000, "[unknown]", "[unknown]", -1}, y{0x30, "y", "/bin/a", 0},
      z{0x40, "z", "/bin/a", 0}, k{0xffffffff81000010ull, "k", "[kernel.kallsyms]", 0};
  auto add = [](EventSink& s, std::string_view name, std::vector<Frame> f, uint64_t p) {
    Event e;
    e.tid = e.pid = 1;
    e.comm = "c";
    e.name = name;
    e.period = p;
    e.has_period = true;
    e.stack = absl::MakeConstSpan(f);
    e.body = tk::Sample{};
    ASSERT_TRUE(s.OnEvent(e).ok());
  };
  add(*a, "cycles", {x, y}, 10);      // x first under a user leaf: [.]
  add(*b, "faults", {z}, 1);          // a table only the second part has, first seen there
  add(*b, "cycles", {k, x, z}, 20);   // x under a kernel leaf; z only here; y not here
  add(*b, "cycles", {y}, 5);
  ASSERT_TRUE(a->Finish().ok() && b->Finish().ok());
  parts.MergePart(*a);
  parts.MergePart(*b);
  ASSERT_EQ(out.tables().size(), 2u);
  EXPECT_EQ(out.tables()[0]->event, "cycles");
  EXPECT_EQ(out.tables()[1]->event, "faults");
  const Table& t = *out.tables()[0];
  EXPECT_EQ(t.samples, 3u);
  EXPECT_EQ(t.period, 35u);
  // Entries are made from the root in: y, x from the first part; z, k new in the second.
  ASSERT_EQ(t.entries.size(), 4u);
  EXPECT_EQ(t.entries[0].sym, "y");
  EXPECT_EQ(t.entries[0].self_period, 5u);
  EXPECT_EQ(t.entries[0].children_period, 15u);
  EXPECT_EQ(t.entries[1].addr, 0x7fff1000u);
  EXPECT_FALSE(t.entries[1].kernel);
  EXPECT_EQ(t.entries[1].children_period, 30u);
  EXPECT_EQ(t.entries[2].sym, "z");
  EXPECT_EQ(t.entries[2].children_period, 20u);
  EXPECT_EQ(t.entries[3].sym, "k");
  std::ostringstream text;
  out.WriteText(text);
  EXPECT_EQ(text.str(),
            "    85.71%    28.57%             1  [.] 0x000000007fff1000\n"
            "    57.14%    57.14%             1  [k] k\n"
            "    57.14%     0.00%             0  [.] z\n"
            "    42.86%    14.29%             1  [.] y\n\n\n"
            "   100.00%   100.00%             1  [.] z\n\n\n");
}

// `perf script` text through the split parse (both halves on two threads, merged) against
// one pass, on the committed text fixtures and several option sets.
std::string ReportText(std::string_view text, int threads, const ReportOptions& o,
                       parsers::perf_script::SplitStats* stats) {
  parsers::perf_script::SplitOptions so;
  so.threads = threads;
  so.parallel_min_bytes = 0;
  ReportOptions ro = o;
  ro.threads = threads;
  ReportSink sink(ro);
  ReportParts parts(sink);
  std::ostringstream err, out;
  Diagnostics diag("t.txt", &err);
  absl::Status st = parsers::perf_script::ParseSplit(text, "t.txt", so, parts, diag, stats);
  EXPECT_TRUE(st.ok()) << st.message();
  diag.PrintSummary();
  sink.WriteText(out);
  sink.WriteJson(out);
  return out.str() + err.str();
}

TEST(ReportParts, SplitTextEqualsOnePass) {
  const char* files[] = {"testdata/fold/proc-g.txt",        "testdata/fold/system-wide-g.txt",
                         "testdata/fold/two-events-g.txt",  "testdata/fold/tracepoint-g.txt",
                         "testdata/fold/symoff-g.txt",      "testdata/fold/proc-pidtid-g.txt",
                         "testdata/perf_data/g.script",     "testdata/perf_data/multi.script",
                         "testdata/perf_data/a.script",     "testdata/perf_data/z.script"};
  int split = 0;
  for (const char* f : files) {
    const std::string text = testing::ReadFile(testing::SourcePath(f));
    for (const ReportOptions& o : OptionSets()) {
      parsers::perf_script::SplitStats one, two;
      const std::string a = ReportText(text, 1, o, &one), b = ReportText(text, 2, o, &two);
      EXPECT_EQ(one.parts, 1);
      EXPECT_EQ(a, b) << f;
      EXPECT_NE(a.find("Total Lost Samples"), std::string::npos) << f;
      split += two.parts == 2 && !two.reparsed;
    }
  }
  EXPECT_GT(split, 0);  // some fixture was cut and merged, not parsed again in one pass
}

}  // namespace
}  // namespace tk::analyses::report
