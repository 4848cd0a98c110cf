// ReportSink's stack memo (Event::stack_id, core/event.h): a stream of samples with stack ids
// must report exactly what the same stream with the ids zeroed reports, for every --sort and
// both modes, with stable views (perf.data) and without (text inputs). And its worker thread
// (ReportOptions::threads 2) must report what one thread reports.
#include <algorithm>
#include <sstream>

#include "analyses/report/report.h"
#include "gtest/gtest.h"

namespace tk::analyses::report {
namespace {

struct Stack {
  uint64_t id;
  std::vector<Frame> frames;
  std::vector<uint64_t> dropped;  // dropped_stack_ip of a stack-less sample
};

// Stacks with recursion, a kernel leaf outside every map, one stack that is a prefix of
// another, and an empty stack with only a dropped ip.
std::vector<Stack> Stacks() {
  return {
      {1, {{0x10, "f", "/bin/a", 0}, {0x20, "f", "/bin/a", 0}, {0x30, "main", "/bin/a", 0}}, {}},
      {2, {{0x40, "g", "/lib/x.so", 4}, {0x30, "main", "/bin/a", 0}}, {}},
      {3,
       {{0xffffffff81000010ull, "do_syscall_64", "[kernel.kallsyms]", 0x10},
        {0x7fff1000, "[unknown]", "[unknown]", -1},
        {0x30, "main", "/bin/a", 0}},
       {}},
      {4, {{0x30, "main", "/bin/a", 0}}, {}},
      {5, {}, {0xffffffff81000020ull}},
  };
}

// One stream: each stack under several comms, threads and cpus, in an interleaved order, with
// the ids or without.
// `mixed`: every fifth sample without stable views (the worker drains before it).
std::string Report(const ReportOptions& o, bool with_ids, bool stable, bool mixed = false) {
  std::vector<Stack> stacks = Stacks();
  std::vector<Frame> dropped_frames = {{0xffffffff81000020ull, "[unknown]", "[unknown]", -1}};
  const std::string comms[] = {"alpha", "beta"};
  ReportSink s(o);
  for (int round = 0; round < 120; ++round) {  // 2880 samples: more than one batch
    for (size_t i = 0; i < 24; ++i) {
      const Stack& st = stacks[(i * 7 + round) % stacks.size()];
      Event e;
      e.tid = e.pid = 100 + static_cast<int32_t>(i % 3);
      e.cpu = static_cast<int32_t>(i % 2);
      // Copies: the views of a text input's line buffer differ from sample to sample.
      std::string comm = comms[(i / 3) % 2];
      std::vector<Frame> frames = st.frames;
      e.comm = comm;
      e.name = i % 5 == 4 ? "faults" : "cycles";
      e.period = 10 + i + 100 * round;
      e.has_period = true;
      e.stack_id = with_ids ? st.id : 0;
      e.stable_views = stable && !(mixed && i % 5 == 2);
      e.body = tk::Sample{};
      if (e.stable_views) {
        e.stack = absl::MakeConstSpan(st.frames);
        e.comm = comms[(i / 3) % 2];
      } else {
        e.stack = absl::MakeConstSpan(frames);
      }
      if (st.frames.empty()) e.dropped_stack_ip = absl::MakeConstSpan(dropped_frames);
      EXPECT_TRUE(s.OnEvent(e).ok());
    }
  }
  EXPECT_TRUE(s.Finish().ok());
  std::ostringstream out;
  s.WriteText(out);
  return out.str();
}

TEST(StackMemo, SameReportAsWithoutIds) {
  const std::vector<std::vector<Key>> sorts = {
      {Key::kComm, Key::kDso, Key::kSym}, {Key::kComm}, {Key::kPid}, {Key::kDso},
      {Key::kSym},  {Key::kCpu},  {Key::kPid, Key::kCpu, Key::kSym}};
  for (bool children : {true, false}) {
    for (bool stable : {true, false}) {
      for (const auto& sort : sorts) {
        ReportOptions o;
        o.children = children;
        o.sort = sort;
        o.show_nr_samples = true;
        o.show_total_period = true;
        const std::string want = Report(o, false, stable);
        EXPECT_EQ(Report(o, true, stable), want)
            << "children " << children << " stable " << stable << " sort keys " << sort.size();
        // Not vacuous: the stream makes rows in both tables.
        EXPECT_NE(want.find("of event 'faults'"), std::string::npos) << want;
        EXPECT_NE(want.find("of event 'cycles'"), std::string::npos) << want;
      }
    }
  }
}

TEST(ReportWorker, TwoThreadsReportWhatOneDoes) {
  for (bool children : {true, false}) {
    for (const auto& sort : std::vector<std::vector<Key>>{{Key::kComm, Key::kDso, Key::kSym},
                                                          {Key::kPid, Key::kCpu}}) {
      ReportOptions o;
      o.children = children;
      o.sort = sort;
      o.show_nr_samples = true;
      const std::string want = Report(o, true, true);
      o.threads = 2;
      for (bool with_ids : {true, false}) {
        for (bool mixed : {false, true}) {
          EXPECT_EQ(Report(o, with_ids, true, mixed), want)
              << "children " << children << " ids " << with_ids << " mixed " << mixed;
        }
      }
    }
  }
}

// The memo makes the repeated samples skip the frames: a sample whose frames differ from the
// first sample with its id (a broken contract) still reports the first one's entries.
TEST(StackMemo, RepeatedIdSkipsTheFrames) {
  ReportOptions o;
  o.quiet = true;
  ReportSink s(o);
  std::vector<Frame> a = {{0x10, "f", "/bin/a", 0}, {0x30, "main", "/bin/a", 0}};
  std::vector<Frame> b = {{0x40, "g", "/bin/a", 0}, {0x30, "main", "/bin/a", 0}};
  for (auto* frames : {&a, &b}) {
    Event e;
    e.tid = e.pid = 1;
    e.comm = "c";
    e.name = "cycles";
    e.period = 1;
    e.has_period = true;
    e.stack_id = 9;
    e.stable_views = true;
    e.body = tk::Sample{};
    e.stack = absl::MakeConstSpan(*frames);
    ASSERT_TRUE(s.OnEvent(e).ok());
  }
  std::ostringstream out;
  s.WriteText(out);
  EXPECT_EQ(out.str(),
            "   100.00%   100.00%  c        a              [.] f\n"
            "   100.00%     0.00%  c        a              [.] main\n\n\n");
}

// Tables past kParallelRows are sorted and formatted by two threads: the text must be the
// one-thread text, with ties on the values broken by every kind of sort key.
TEST(ReportWorker, ManyRowsSortAndFormatOnTwoThreads) {
  std::vector<std::string> comms = {"alpha", "beta", "gamma"};
  std::vector<std::string> syms, dsos = {"/bin/a", "/lib/x.so", "[unknown]"};
  for (int i = 0; i < 400; ++i) syms.push_back("fn" + std::to_string(i * 7919 % 400));
  std::vector<Frame> frames;
  for (uint64_t i = 0; i < 3 * kParallelRows; ++i) {
    const std::string& dso = dsos[i % 3];
    const bool unresolved = dso == "[unknown]" || i % 5 == 0;
    frames.push_back({0x1000 + i * 16, unresolved ? std::string_view("[unknown]") : syms[i % 400],
                      dso, unresolved ? -1 : static_cast<int64_t>(i % 16)});
  }
  auto report = [&](ReportOptions o) {
    ReportSink s(o);
    for (size_t i = 0; i < frames.size(); ++i) {
      Event e;
      e.tid = e.pid = 100 + static_cast<int32_t>(i % 7);
      e.cpu = static_cast<int32_t>(i % 3) - 1;  // -1 sorts first, as perf's signed cpu
      e.comm = comms[i % 3];
      e.name = "cycles";
      e.period = 1000 * (1 + i % 4);  // few distinct values: most order is by the keys
      e.has_period = true;
      e.stable_views = true;
      e.body = tk::Sample{};
      // A leaf and a caller frame: children rows differ from self rows.
      std::vector<Frame> stack = {frames[i], frames[(i * 31) % frames.size()]};
      e.stack = absl::MakeConstSpan(stack);
      EXPECT_TRUE(s.OnEvent(e).ok());
    }
    EXPECT_TRUE(s.Finish().ok());
    std::ostringstream out;
    s.WriteText(out);
    return out.str();
  };
  for (bool children : {true, false}) {
    for (const auto& sort : std::vector<std::vector<Key>>{
             {Key::kComm, Key::kDso, Key::kSym},
             {Key::kSym},
             {Key::kCpu, Key::kPid, Key::kDso},
             {Key::kPid, Key::kComm, Key::kCpu, Key::kSym, Key::kDso}}) {
      ReportOptions o;
      o.children = children;
      o.sort = sort;
      o.show_nr_samples = true;
      const std::string want = report(o);
      if (std::count(sort.begin(), sort.end(), Key::kSym)) {  // the rows take two threads
        ASSERT_GT(std::count(want.begin(), want.end(), '\n'), static_cast<long>(kParallelRows))
            << want.substr(0, 2000);
      }
      o.threads = 2;
      EXPECT_EQ(report(o), want) << "children " << children << " keys " << sort.size();
    }
  }
}

}  // namespace
}  // namespace tk::analyses::report
