// OffCpuSink on hand-made events: interval arithmetic (µs truncated per interval), --state,
// --min-us/--max-us, open intervals, forked threads, dead threads, the wakeup form (waking vs
// wakeup, no waker), missing callchains and perf --off-cpu "offcpu-time" samples.
#include "analyses/offcpu/offcpu.h"

#include <sstream>
#include <vector>

#include "gtest/gtest.h"

namespace tk::analyses::offcpu {
namespace {

// Leaf first, as Event::stack.
const std::vector<Frame> kSleep = {{1, "__schedule", "[kernel.kallsyms]"},
                                   {2, "schedule", "[kernel.kallsyms]"},
                                   {3, "do_nanosleep", "[kernel.kallsyms]"},
                                   {4, "main", "/bin/app"}};
const std::vector<Frame> kRead = {{1, "__schedule", "[kernel.kallsyms]"},
                                  {2, "schedule", "[kernel.kallsyms]"},
                                  {5, "pipe_read", "[kernel.kallsyms]"},
                                  {6, "reader", "/bin/app"}};
const std::vector<Frame> kWake = {{7, "try_to_wake_up", "[kernel.kallsyms]"},
                                  {8, "pipe_write", "[kernel.kallsyms]"},
                                  {9, "writer", "/bin/app"}};
const std::vector<Frame> kIpOnly = {{1, "__schedule", "[kernel.kallsyms]"}};

class Feed {
 public:
  // `pid_hidden`: the events' Event::pid_hidden (perf.data).
  explicit Feed(OffCpuOptions o = {}, bool pid_hidden = false)
      : sink_(o), pid_hidden_(pid_hidden) {}

  // prev (tid, comm) leaves the CPU in `state` at t (ns), next comes in.
  Feed& Switch(int64_t t, int32_t prev, const char* comm, const char* state, int32_t next,
               const std::vector<Frame>* stack = &kSleep, int32_t cpu = 0) {
    Event e;
    e.ts_ns = t;
    e.cpu = cpu;
    e.pid = 100;
    e.pid_hidden = pid_hidden_;
    e.tid = prev;
    e.comm = comm;
    e.name = "sched:sched_switch";
    if (stack) e.stack = absl::MakeConstSpan(*stack);
    SchedSwitch s;
    s.prev_comm = comm;
    s.prev_pid = prev;
    s.prev_state = TaskState::FromLetters(state);
    s.next_pid = next;
    e.body = s;
    EXPECT_TRUE(sink_.OnEvent(e).ok());
    return *this;
  }
  // waker (tid, comm) wakes target at t.
  Feed& Wake(int64_t t, int32_t waker, const char* comm, int32_t target,
             SchedWakeup::Kind kind = SchedWakeup::Kind::kWaking) {
    Event e;
    e.ts_ns = t;
    e.pid = 100;
    e.pid_hidden = pid_hidden_;
    e.tid = waker;
    e.comm = comm;
    e.stack = absl::MakeConstSpan(kWake);
    SchedWakeup w;
    w.kind = kind;
    w.pid = target;
    e.body = w;
    EXPECT_TRUE(sink_.OnEvent(e).ok());
    return *this;
  }
  Feed& Forked(int32_t tid) {
    Event e;
    e.body = Fork{100, 100, tid, 100};
    EXPECT_TRUE(sink_.OnEvent(e).ok());
    return *this;
  }
  std::string Out() {
    EXPECT_TRUE(sink_.Finish().ok());
    std::ostringstream out;
    sink_.Write(out);
    return out.str();
  }
  OffCpuSink& sink() { return sink_; }

 private:
  OffCpuSink sink_;
  bool pid_hidden_ = false;
};

constexpr const char* kSleepLine = "app;main;do_nanosleep;schedule;__schedule";

TEST(OffCpu, IntervalsTruncatedToMicrosecondsEach) {
  Feed f;
  f.Switch(1'000'000, 7, "app", "S", 0)
      .Switch(1'002'999, 0, "swapper", "R", 7)  // 2.999 µs → 2
      .Switch(1'010'000, 7, "app", "S", 0)
      .Switch(1'011'999, 0, "swapper", "R", 7);  // 1.999 µs → 1
  EXPECT_EQ(f.Out(), std::string(kSleepLine) + " 3\n");
  EXPECT_EQ(f.sink().stats().intervals, 2u);
  EXPECT_EQ(f.sink().stats().counted_us, 3u);
}

TEST(OffCpu, StateAndBounds) {
  auto run = [](OffCpuOptions o) {
    Feed f(o);
    f.Switch(0, 7, "app", "S", 0)
        .Switch(5'000, 0, "swapper", "R", 7)  // S, 5 µs
        .Switch(6'000, 7, "app", "D", 0, &kRead)
        .Switch(106'000, 0, "swapper", "R", 7)  // D, 100 µs
        .Switch(107'000, 7, "app", "R+", 8)
        .Switch(107'500, 8, "other", "S", 7);  // R+, 0 µs: dropped by --min-us 1
    return f.Out();
  };
  const std::string s = std::string(kSleepLine) + " 5\n";
  const std::string d = "app;reader;pipe_read;schedule;__schedule 100\n";
  EXPECT_EQ(run({}), s + d);
  OffCpuOptions o;
  ASSERT_TRUE(ParseStates("S", &o.states).ok());
  EXPECT_EQ(run(o), s);
  ASSERT_TRUE(ParseStates("D,R+", &o.states).ok());
  EXPECT_EQ(o.states, "DR");
  EXPECT_EQ(run(o), d);
  o = {};
  o.min_us = 0;  // the 0 µs interval counts (and adds nothing)
  EXPECT_EQ(run(o), s + d);
  o.min_us = 6;
  EXPECT_EQ(run(o), d);
  o.min_us = 1;
  o.max_us = 99;
  EXPECT_EQ(run(o), s);
  std::string st;
  EXPECT_FALSE(ParseStates("Q", &st).ok());
  EXPECT_FALSE(ParseStates(",", &st).ok());
}

TEST(OffCpu, OpenIntervalsReportedNotCounted) {
  Feed f;
  f.Switch(1'000'000, 0, "swapper", "R", 9)      // 9 first seen coming in: open at start
      .Switch(2'000'000, 7, "app", "S", 0)      // 7 leaves, never back: open at end
      .Forked(12)
      .Switch(3'000'000, 0, "swapper", "R", 12)  // a new thread's first run: neither
      .Switch(4'000'000, 12, "app", "X", 0)      // dies: no interval starts
      .Switch(5'000'000, 9, "app", "S", 0, nullptr);  // no callchain, open at end too
  EXPECT_EQ(f.Out(), "");
  const auto& st = f.sink().stats();
  EXPECT_EQ(st.open_start, 1u);
  EXPECT_EQ(st.open_start_us, 0u);  // the trace starts with that switch
  EXPECT_EQ(st.open_end, 2u);
  EXPECT_EQ(st.open_end_us, 3000u + 0u);
  EXPECT_EQ(st.intervals, 0u);
  std::ostringstream note;
  f.sink().WriteNote(note);
  EXPECT_EQ(note.str(),
            "tk: no thread was seen leaving a CPU and coming back: record system-wide (perf "
            "record -a)\n"
            "tk: not counted: 2 off-CPU intervals still open at the end of the trace (3000 us "
            "so far), 1 open at its start (0 us seen)\n");
}

TEST(OffCpu, LostSwitchInClosedAtTheCpusPreviousSwitch) {
  Feed f;
  f.Switch(0, 7, "app", "S", 0)
      .Switch(1'000, 0, "swapper", "R", 8, &kSleep, 1)  // another CPU: not a bound
      .Switch(2'000, 8, "other", "S", 9)   // 7 came in after this: its switch-in was lost
      .Switch(3'000, 7, "app", "S", 0)     // so 0..2000 ns is booked, as perf sched timehist
      .Switch(5'000, 0, "swapper", "R", 7)
      .Switch(9'000, 0, "swapper", "R", 7);  // in again without an out
  EXPECT_EQ(f.Out(), std::string(kSleepLine) + " 4\n");
  EXPECT_EQ(f.sink().stats().unpaired_out, 1u);
  EXPECT_EQ(f.sink().stats().unpaired_in, 1u);
  EXPECT_EQ(f.sink().stats().intervals, 2u);
}

TEST(OffCpu, PerProcessHint) {
  // perf record -g -e sched:sched_switch -- ./app: only the app's switch-outs are recorded.
  Feed f;
  f.Switch(0, 7, "app", "S", 3).Switch(9'000, 8, "app", "S", 4);
  EXPECT_EQ(f.Out(), "");
  std::ostringstream note;
  f.sink().WriteNote(note);
  EXPECT_NE(note.str().find("tk: no thread was seen leaving a CPU and coming back: record "
                            "system-wide (perf record -a)\n"),
            std::string::npos)
      << note.str();
}

TEST(OffCpu, CallchainsRequired) {
  Feed f;
  f.Switch(0, 7, "app", "S", 0, &kIpOnly).Switch(5'000, 0, "swapper", "R", 7, &kIpOnly);
  EXPECT_EQ(f.Out(), "");
  EXPECT_TRUE(f.sink().NothingToFold());
  EXPECT_EQ(f.sink().stats().no_stack, 1u);
}

TEST(OffCpu, RootsAsTkFold) {
  OffCpuOptions o;
  o.fold.include_tid = true;
  Feed f(o, /*pid_hidden=*/true);
  f.Switch(0, 7, "my app", "S", 0).Switch(5'000, 0, "swapper", "R", 7);
  EXPECT_EQ(f.Out(), "my_app-?/7;main;do_nanosleep;schedule;__schedule 5\n");
}

TEST(OffCpu, WakeupForm) {
  OffCpuOptions o;
  o.wakeup = true;
  Feed f(o);
  f.Wake(0, 8, "early", 7)  // 7 is not off-CPU yet: ignored
      .Switch(1'000, 7, "app", "S", 0, &kRead)
      .Wake(2'000, 5, "first", 7)
      .Wake(3'000, 8, "writer thr", 7)  // the last wakeup wins
      .Switch(9'000, 0, "swapper", "R", 7)
      .Switch(10'000, 7, "app", "R+", 0, &kRead)
      .Switch(14'000, 0, "swapper", "R", 7);  // preempted: no waker
  EXPECT_EQ(f.Out(),
            "app;reader;pipe_read;schedule;__schedule;--; 4\n"
            "app;reader;pipe_read;schedule;__schedule;--;try_to_wake_up;pipe_write;writer;"
            "writer_thr 8\n");
  EXPECT_EQ(f.sink().stats().no_waker, 1u);
}

TEST(OffCpu, WakingPreferredOverWakeup) {
  OffCpuOptions o;
  o.wakeup = true;
  Feed f(o);
  f.Switch(1'000, 7, "app", "S", 0)
      .Wake(2'000, 5, "wakeuponly", 7, SchedWakeup::Kind::kWakeup)  // no waking seen yet
      .Switch(5'000, 0, "swapper", "R", 7)
      .Switch(6'000, 7, "app", "S", 0)
      .Wake(7'000, 8, "waking", 7, SchedWakeup::Kind::kWaking)
      .Wake(7'100, 9, "wakeup", 7, SchedWakeup::Kind::kWakeup)  // ignored from now on
      .Switch(9'000, 0, "swapper", "R", 7);
  std::string s = std::string(kSleepLine) + ";--;try_to_wake_up;pipe_write;writer;";
  EXPECT_EQ(f.Out(), s + "wakeuponly 4\n" + s + "waking 3\n");
}

TEST(OffCpu, PerfOffCpuSamples) {
  OffCpuSink sink({});
  Event e;
  e.ts_ns = 10;
  e.tid = e.pid = 3;
  e.comm = "app";
  e.name = "offcpu-time";
  e.period = 2'500'999;  // ns off-CPU
  e.has_period = true;
  const std::vector<Frame> user = {{1, "read", "/lib/libc.so.6"}, {2, "main", "/bin/app"}};
  e.stack = absl::MakeConstSpan(user);
  ASSERT_TRUE(sink.OnEvent(e).ok());
  e.name = "cycles";  // other samples are not off-CPU time
  ASSERT_TRUE(sink.OnEvent(e).ok());
  ASSERT_TRUE(sink.Finish().ok());
  std::ostringstream out;
  sink.Write(out);
  EXPECT_EQ(out.str(), "app;main;read 2500\n");
  EXPECT_FALSE(sink.NothingToFold());
}

}  // namespace
}  // namespace tk::analyses::offcpu
