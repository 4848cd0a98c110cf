// FoldSink on hand-made events: roots, weights, event-type filtering, merging, order.
#include "analyses/fold/fold.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tk::analyses::fold {
namespace {

struct Ev {
  std::string comm;
  int32_t pid, tid;
  std::string name;
  uint64_t period;
  bool has_period;
  std::vector<Frame> stack;  // leaf first
  bool pid_hidden = false;   // Event::pid_hidden (perf.data)
  uint64_t stack_id = 0;     // Event::stack_id (with stable views only)
};

// `v` as an Event; the stack id only with stable views.
Event ToEvent(const Ev& v, bool stable) {
  Event e;
  e.stable_views = stable;
  e.comm = v.comm;
  e.pid = v.pid;
  e.pid_hidden = v.pid_hidden;
  e.tid = v.tid;
  e.name = v.name;
  e.period = v.period;
  e.has_period = v.has_period;
  e.stack = absl::MakeConstSpan(v.stack);
  e.stack_id = stable ? v.stack_id : 0;
  return e;
}

// How FoldOptions::worker_thread's work is done: by the sink's own thread, or handed over
// (FoldSink::TakeSideWork) to a thread that runs it as a parser's reading thread does, or
// handed over to nobody (the sink then folds everything on the caller's thread).
enum class Side { kOwnThread, kHelper, kNobody };

// With `stable`, events have stable views (every seventh one not, unless `all_stable`: then
// only the folder counts, and a worker's sink ends in FoldedRuns rather than a map).
std::string Fold(const std::vector<Ev>& evs, FoldOptions o = {}, FoldSink* keep = nullptr,
                 bool stable = false, Side side = Side::kOwnThread, bool all_stable = false) {
  FoldSink sink(o);
  std::atomic<bool> stop{false};
  std::thread helper;
  if (side != Side::kOwnThread) {
    SideWork* work = sink.TakeSideWork();
    EXPECT_EQ(work != nullptr, o.worker_thread);
    EXPECT_EQ(sink.TakeSideWork(), nullptr) << "handed over twice";
    if (work && side == Side::kHelper) {
      helper = std::thread([&stop, work] {
        // As the perf.data reading thread: the batches, and the end's lines early.
        while (!stop.load()) {
          if (!work->RunPending() && !work->RunIdle()) std::this_thread::yield();
        }
      });
    }
  }
  for (size_t i = 0; i < evs.size(); ++i) {
    // (some go through Count)
    EXPECT_TRUE(sink.OnEvent(ToEvent(evs[i], stable && (all_stable || i % 7 != 3))).ok());
  }
  stop = true;  // a parser joins its reading thread before Finish
  if (helper.joinable()) helper.join();
  EXPECT_TRUE(sink.Finish().ok());
  std::ostringstream out;
  sink.Write(out);
  if (keep) keep->Merge(sink);
  return out.str();
}

const std::vector<Frame> kStack = {{1, "leaf+0x1", "[kernel.kallsyms]"}, {2, "main", "/bin/x"}};

TEST(FoldSink, RootsAndPid) {
  std::vector<Ev> evs = {{"V8 Worker", -1, 25607, "cycles", 10, true, kStack},
                         {"java", 24636, 25607, "cycles", 5, true, kStack}};
  EXPECT_EQ(Fold(evs), "V8_Worker;main;leaf+0x1 10\njava;main;leaf+0x1 5\n");
  FoldOptions pid;
  pid.include_pid = true;
  EXPECT_EQ(Fold(evs, pid), "V8_Worker-?;main;leaf+0x1 10\njava-24636;main;leaf+0x1 5\n");
  FoldOptions tid;
  tid.include_tid = true;
  EXPECT_EQ(Fold(evs, tid),
            "V8_Worker-?/25607;main;leaf+0x1 10\njava-24636/25607;main;leaf+0x1 5\n");
  // perf.data: as perf script's default header (TID only).
  for (Ev& v : evs) v.pid_hidden = true;
  EXPECT_EQ(Fold(evs, tid),
            "V8_Worker-?/25607;main;leaf+0x1 10\njava-?/25607;main;leaf+0x1 5\n");
}

TEST(FoldSink, WeightsSumAndSortBytewise) {
  std::vector<Frame> b = {{3, "b", "/x"}};
  std::vector<Frame> a = {{3, "B", "/x"}};
  std::vector<Ev> evs = {{"x", -1, 1, "c", 7, true, b},  {"x", -1, 1, "c", 0, true, b},
                         {"x", -1, 1, "c", 9, false, a}, {"x", -1, 1, "c", 1, true, {}},
                         {"é", -1, 1, "c", 1, true, a}};
  // period 0 counts 1 (as perl: "not $period"); no period counts 1; empty stacks dropped.
  EXPECT_EQ(Fold(evs), "x;B 1\nx;b 8\n\xc3\xa9;B 1\n");
}

TEST(FoldSink, FirstEventTypeWins) {
  std::vector<Ev> evs = {{"a", -1, 1, "instructions", 1, true, kStack},
                         {"a", -1, 1, "cycles", 1, true, kStack},
                         {"a", -1, 1, "cycles:u", 1, true, kStack},
                         {"a", -1, 1, "instructions:u", 1, true, kStack}};
  FoldSink keep{FoldOptions{}};
  EXPECT_EQ(Fold(evs, {}, &keep), "a;main;leaf+0x1 2\n");
  EXPECT_EQ(keep.event_type(), "instructions");
  EXPECT_EQ(keep.first_filtered(), "cycles");
  FoldOptions f;
  f.event_filter = "cycles";
  FoldSink keep2{f};
  EXPECT_EQ(Fold(evs, f, &keep2), "a;main;leaf+0x1 2\n");
  EXPECT_EQ(keep2.first_filtered(), "");  // an explicit filter says nothing
}

TEST(FoldSink, SameEventType) {
  EXPECT_TRUE(SameEventType("cycles", "cycles"));
  EXPECT_TRUE(SameEventType("cycles", "cycles:u"));
  EXPECT_TRUE(SameEventType("cpu-clock:pppH", "cpu-clock"));
  EXPECT_FALSE(SameEventType("cycles:u", "cycles:k"));
  EXPECT_FALSE(SameEventType("cycles", "instructions"));
  EXPECT_FALSE(SameEventType("sched", "sched:sched_switch"));
  EXPECT_FALSE(SameEventType("cycles", "cycles2"));
}

TEST(FoldSink, SideBandEventsDoNotSetTheType) {
  FoldSink sink{FoldOptions{}};
  Event lost;
  lost.name = "";
  lost.body = Lost{Lost::Kind::kLost, 3};
  ASSERT_TRUE(sink.OnEvent(lost).ok());
  Event c;
  c.name = "weird";
  c.body = Comm{1, 1, "x", false};
  ASSERT_TRUE(sink.OnEvent(c).ok());
  EXPECT_EQ(sink.event_type(), "");
}

TEST(FoldSink, JavaTidyOnlyForRootJava) {
  std::vector<Frame> s = {{1, "Ljava/io/PrintStream;::print", "/tmp/perf-1.map"}};
  EXPECT_EQ(Fold({{"java", -1, 3, "c", 1, true, s}}), "java;java/io/PrintStream:::print 1\n");
  FoldOptions pid;
  pid.include_pid = true;
  EXPECT_EQ(Fold({{"java", -1, 3, "c", 1, true, s}}, pid),
            "java-?;Ljava/io/PrintStream:::print 1\n");
  EXPECT_EQ(Fold({{"javac", -1, 3, "c", 1, true, s}}), "javac;Ljava/io/PrintStream:::print 1\n");
}

TEST(FoldSink, Merge) {
  std::vector<Frame> s = {{1, "f", "/x"}};
  FoldSink all{FoldOptions{}};
  Fold({{"a", -1, 1, "c", 2, true, s}}, {}, &all);
  Fold({{"a", -1, 1, "c", 3, true, s}, {"b", -1, 1, "c", 1, true, s}}, {}, &all);
  std::ostringstream out;
  all.Write(out);
  EXPECT_EQ(out.str(), "a;f 5\nb;f 1\n");
  EXPECT_EQ(all.distinct_stacks(), 2u);
}

// Stacks for the worker tests: a symbol, an unknown one, a JIT frame (java's tidying), a
// kernel frame, a stack that folds to nothing.
std::vector<std::vector<Frame>> WorkerStacks() {
  return {{{1, "leaf(int)", "/bin/x"}, {2, "main", "/bin/x"}},
          {{3, "[unknown]", "/usr/lib/libc.so.6"}, {2, "main", "/bin/x"}},
          {{4, "Ljava/lang/Thread;::run", "/tmp/perf-9.map"}},
          {{5, "do_syscall_64", "[kernel.kallsyms]"}, {6, "(skipped)", "/bin/x"}},
          {{6, "(skipped)", "/bin/x"}}};  // folds to nothing
}

// `n` events over `stacks`: three comms, pids and tids, an event type to filter out, periods
// 0-3, some without a period; with `ids`, every other one with its stack's Event::stack_id.
std::vector<Ev> WorkerEvents(const std::vector<std::vector<Frame>>& stacks, int n, bool ids) {
  const std::vector<std::string> comms = {"java", "dd", "kworker/0:1 x"};
  std::vector<Ev> evs;
  for (int i = 0; i < n; ++i) {
    const size_t s = static_cast<size_t>(i) % stacks.size();
    evs.push_back({comms[i % 3], 100 + i % 5, 200 + i % 11, i % 13 == 0 ? "other" : "cycles",
                   static_cast<uint64_t>(i % 4), i % 9 != 0, stacks[s], false,
                   ids && i % 2 ? s + 1 : 0});
  }
  return evs;
}

// The worker thread (stable views, perf.data) folds exactly what the caller's thread would,
// with non-stable events interleaved, an event type filtered out, and every root option.
TEST(FoldSink, WorkerThreadFoldsTheSame) {
  const std::vector<Ev> evs = WorkerEvents(WorkerStacks(), 5000, false);
  for (int opt = 0; opt < 3; ++opt) {
    FoldOptions o;
    o.include_pid = opt == 1;
    o.include_tid = opt == 2;
    o.names.annotate_kernel = o.names.annotate_jit = true;
    std::string single = Fold(evs, o);
    o.worker_thread = true;
    EXPECT_EQ(Fold(evs, o, nullptr, true), single) << "option set " << opt;
    if (opt == 0) {
      EXPECT_NE(single.find("java;java/lang/Thread:::run_[j]"), std::string::npos) << single;
    }
  }
}

// The worker's folding handed to another thread (FoldSink::TakeSideWork, as tk fold's perf.data
// parse hands it to its reading thread), or to nobody: the same folds as one thread, with
// memoized stacks (Event::stack_id) among first sights, a filtered type and every root option.
TEST(FoldSink, SideWorkFoldsTheSame) {
  std::vector<std::vector<Frame>> stacks = WorkerStacks();
  stacks.push_back({{7, "f", "/bin/y"}, {8, "g", "/bin/y"}, {9, "h", "/bin/y"}});
  const std::vector<Ev> evs = WorkerEvents(stacks, 20000, true);
  for (int opt = 0; opt < 3; ++opt) {
    FoldOptions o;
    o.include_pid = opt == 1;
    o.include_tid = opt == 2;
    std::string single = Fold(evs, o, nullptr, true);
    o.worker_thread = true;
    for (Side side : {Side::kOwnThread, Side::kHelper, Side::kNobody}) {
      EXPECT_EQ(Fold(evs, o, nullptr, true, side), single)
          << "option set " << opt << ", side " << static_cast<int>(side);
    }
  }
  FoldSink none{FoldOptions{}};  // no worker: nothing to hand over
  EXPECT_EQ(none.TakeSideWork(), nullptr);
}

// Only stable views: the worker's sink ends in two sorted halves of lines (FoldedRun) that
// merge as they are written. Frames named alike from other views (another DSO's "[unknown]",
// a symbol's copy) make equal lines in different sequences, which must be summed into one
// line wherever the halves put them. Write, WriteJson, distinct_stacks and Merge give what one
// thread gives.
TEST(FoldSink, RunsEndTheSame) {
  std::vector<std::vector<Frame>> stacks = WorkerStacks();
  static const std::vector<std::string> copies = {"main", "main", "leaf(int)", "/bin/x",
                                                   "/lib/a.so"};
  stacks.push_back({{7, "[unknown]", "/lib/a.so"}, {2, "main", "/bin/x"}});
  stacks.push_back({{8, "[unknown]", copies[4]}, {2, "main", "/bin/x"}});
  stacks.push_back({{9, copies[2], copies[3]}, {2, copies[0], copies[3]}});
  stacks.push_back({{1, "leaf(int)", "/bin/x"}, {10, copies[1], copies[3]}});
  stacks.push_back({{11, "f", "/bin/y"}});  // (10 stacks: each under every comm)
  for (int n : {0, 1, 3, 50, 20000}) {
    const std::vector<Ev> evs = WorkerEvents(stacks, n, true);
    for (int opt = 0; opt < 2; ++opt) {
      FoldOptions o;
      o.include_pid = opt == 1;
      FoldSink one_all{FoldOptions{}};
      const std::string single = Fold(evs, o, &one_all, true, Side::kOwnThread, true);
      if (n == 20000 && opt == 0) {
        // Two stacks, other views, fold to each of these lines.
        EXPECT_NE(single.find("dd;main;[a.so] "), std::string::npos) << single;
        EXPECT_NE(single.find("java;main;leaf "), std::string::npos) << single;
      }
      o.worker_thread = true;
      for (Side side : {Side::kOwnThread, Side::kHelper, Side::kNobody}) {
        FoldSink all{FoldOptions{}};
        EXPECT_EQ(Fold(evs, o, &all, true, side, true), single)
            << n << " events, option set " << opt << ", side " << static_cast<int>(side);
        // The halves merged into another sink (FoldSink::Merge of a finished one).
        std::ostringstream merged, want;
        all.Write(merged);
        one_all.Write(want);
        EXPECT_EQ(merged.str(), want.str());
      }
      FoldSink sink(o);
      for (const Ev& v : evs) ASSERT_TRUE(sink.OnEvent(ToEvent(v, true)).ok());
      ASSERT_TRUE(sink.Finish().ok());
      FoldOptions o1 = o;
      o1.worker_thread = false;
      FoldSink ref(o1);
      ref.Merge(sink);  // (the const Merge: the halves read, not taken)
      EXPECT_EQ(sink.distinct_stacks(), ref.distinct_stacks());
      std::ostringstream j1, j2, w1, w2;
      sink.WriteJson(j1);
      ref.WriteJson(j2);
      EXPECT_EQ(j1.str(), j2.str());
      sink.Write(w1);
      ref.Write(w2);
      EXPECT_EQ(w1.str(), single);
      EXPECT_EQ(w2.str(), single);
    }
  }
}

// Lines made early (SideWork::RunIdle: StackFolder::PreName) and events after a Finish (the
// second FlushTo adds to lines already there): the counts are the one-thread counts.
TEST(FoldSink, LinesMadeEarlyAndEventsAfterFinish) {
  std::vector<Frame> a = {{1, "a", "/x"}, {2, "main", "/x"}};
  std::vector<Frame> b = {{3, "b", "/x"}, {2, "main", "/x"}};
  std::vector<Frame> b2 = {{4, "b", "/x"}, {2, "main", "/x"}};  // another address, the same line
  auto feed = [&](FoldSink& sink, int from, int to) {
    for (int i = from; i < to; ++i) {
      Event e;
      e.stable_views = true;
      e.comm = "c";
      e.tid = 1;
      e.name = "cycles";
      e.period = 1;
      e.has_period = true;
      e.stack = absl::MakeConstSpan(i % 3 == 0 ? a : i % 3 == 1 ? b : b2);
      e.stack_id = i % 2 ? static_cast<uint64_t>(i % 3 + 1) : 0;
      ASSERT_TRUE(sink.OnEvent(e).ok());
    }
  };
  for (bool early : {false, true}) {
    FoldOptions o;
    o.worker_thread = true;
    FoldSink sink(o);
    SideWork* work = sink.TakeSideWork();
    ASSERT_NE(work, nullptr);
    feed(sink, 0, 3000);
    if (early) {
      while (work->RunPending() || work->RunIdle()) {
      }
    }
    feed(sink, 3000, 5000);
    ASSERT_TRUE(sink.Finish().ok());
    feed(sink, 5000, 6000);  // a later event starts the folding again
    ASSERT_TRUE(sink.Finish().ok());
    std::ostringstream out;
    sink.Write(out);
    EXPECT_EQ(out.str(), "c;main;a 2000\nc;main;b 4000\n") << "early " << early;
  }
}

// SortedStacks (WriteFolded's order) against std::sort of the same keys, on adversarial sets:
// long shared prefixes with their ends at every offset around the 8-byte words it compares,
// one key a prefix of another ("foo" and "foo.cold", "a;b" and "a;b;c"), ';' against the
// bytes around it, NUL and high bytes, empty keys, many equal words.
TEST(FoldSink, SortedStacksIsBytewise) {
  std::mt19937 rng(16);
  const std::string alphabet = std::string("ab.:; 09_~") + '\0' + "\x3a\x3c\x7f\x80\xff";
  for (int round = 0; round < 300; ++round) {
    StackCounts stacks;
    const size_t n = rng() % (round < 50 ? 40 : 3000);
    const std::string prefix(rng() % 70, "sw;"[rng() % 3]);
    for (size_t i = 0; i < n; ++i) {
      std::string k = rng() % 4 ? prefix.substr(0, rng() % (prefix.size() + 1)) : "";
      const size_t len = rng() % 24;
      for (size_t j = 0; j < len; ++j) k += alphabet[rng() % alphabet.size()];
      stacks[k] += 1;
      if (rng() % 3 == 0) stacks[k + (rng() % 2 ? ";x" : ".cold")] += 1;
      if (rng() % 5 == 0 && !k.empty()) stacks[k.substr(0, k.size() - 1)] += 1;
    }
    std::vector<std::string> want;
    for (const auto& kv : stacks) want.push_back(kv.first);
    std::sort(want.begin(), want.end());
    std::vector<std::string> got;
    for (const auto* kv : SortedStacks(stacks)) got.push_back(kv->first);
    ASSERT_EQ(got, want) << "round " << round;
    // The same keys as FoldedLines, some twice, in up to three runs (SortLines each), merged
    // (ForEachMerged): each key once, in order, its counts summed.
    std::vector<FoldedRun> runs(1 + rng() % 3);
    for (const auto& kv : stacks) {
      for (uint64_t copy = 0; copy < 1 + rng() % 2; ++copy) {
        FoldedRun& run = runs[rng() % runs.size()];
        run.lines.push_back(FoldedLine{kv.first.data(), static_cast<uint32_t>(kv.first.size()),
                                       10 + copy});
      }
    }
    for (FoldedRun& run : runs) {
      SortLines(&run.lines);
      for (size_t i = 1; i < run.lines.size(); ++i) {
        ASSERT_LE(run.lines[i - 1].line(), run.lines[i].line()) << "round " << round;
      }
    }
    std::vector<std::string> merged;
    ForEachMerged(runs, [&](std::string_view line, uint64_t count) {
      merged.emplace_back(line);
      EXPECT_TRUE(count == 10 || count == 21) << count;
    });
    ASSERT_EQ(merged, want) << "round " << round;
  }
}

}  // namespace
}  // namespace tk::analyses::fold
