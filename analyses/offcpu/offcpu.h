// `tk fold --off-cpu` and `tk fold --wakeup`: where threads waited, weighted by how long.
//
// Off-CPU (bcc offcputime's folded form, in microseconds):
//
//   oc-sleep;start_thread;__clock_nanosleep;entry_SYSCALL_64_after_hwframe;...;schedule;__schedule 31004
//
// A thread's off-CPU interval runs from its switch-out (a sched:sched_switch with it as prev)
// to its next switch-in (a sched_switch with it as next). The stack is the callchain of the
// switch-out sample: the kernel records sched_switch in the context of the task leaving the
// CPU, so that callchain is prev's own kernel stack (leaf __schedule) and user stack: what the
// thread was doing when it stopped. The root is the sample's comm (as `tk fold` names roots,
// --pid/--tid included). Each interval adds floor(ns / 1000) µs, as offcputime does, so per
// thread the total is the sum of `perf sched timehist`'s "wait time" column (which also
// truncates each row to µs; that column includes the sch delay).
//
// Wakeup (bcc offwaketime's folded form):
//
//   oc-ping;start_thread;__libc_read;...;__schedule;--;try_to_wake_up;...;__libc_write;start_thread;oc-pong 51
//
// the target's stack root first, "--", then the stack of the last wakeup of the target during
// the interval (sched:sched_waking, or sched:sched_wakeup when the input has no sched_waking)
// leaf first, and the waker's comm. No wakeup during the interval (preemption): "...;--; N".
//
// trace.dat: the reader gives each sched_switch the kernel_stack record tracefs' stacktrace
// option writes after it (parsers/trace_dat/kernel_stack.h): kernel frames only.
//
// perf's own `perf record --off-cpu` samples (event "offcpu-time", period = off-CPU ns, user
// stack) are folded directly, period / 1000 µs each.
//
// Not counted but reported: intervals open at the ends of the trace (a switch-out never
// followed by a switch-in, a switch-in of a thread whose switch-out was before the trace;
// threads forked inside the trace and threads that die at their switch-out are neither).
// pid 0 (the per-CPU idle tasks) is never a thread here.
#ifndef TK_ANALYSES_OFFCPU_OFFCPU_H_
#define TK_ANALYSES_OFFCPU_OFFCPU_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "analyses/fold/fold.h"
#include "core/filter.h"
#include "core/sink.h"

namespace tk::analyses::offcpu {

// One closed off-CPU interval of a thread: from its switch-out to its next switch-in (or, when
// that switch-in was lost, the CPU's previous switch). Every closed interval, counted or not.
struct OffCpuInterval {
  int32_t tid = -1;
  int32_t pid = -1;         // of the switch-out sample; -1 unknown
  char state = 'R';         // prev_state's letter at the switch-out (TaskState::Letter())
  int64_t out_ns = 0;       // the switch-out
  int64_t in_ns = 0;        // the switch-in, >= out_ns
  int32_t waker_tid = -1;   // the thread of the last wakeup of `tid` in the interval; -1 none
  bool has_stack = false;   // the switch-out had a callchain
};

struct OffCpuOptions {
  bool wakeup = false;  // --wakeup: offwaketime's target;--;waker lines
  // --state: prev_state letters to keep (TaskState::Letter(): 'R' includes R+). Empty: all.
  std::string states;
  uint64_t min_us = 1;           // --min-us: shorter intervals are dropped (offcputime's -m 1)
  uint64_t max_us = UINT64_MAX;  // --max-us: longer intervals are dropped
  fold::FoldOptions fold;        // roots (--pid, --tid) and frame names
  // Only intervals of threads the filter's task and CPU filters accept at their switch-out
  // (the sample's pid/tid/comm and CPU), ending (switch-in) inside --time; perf --off-cpu
  // samples by their own fields (docs/filters.md). Every switch still drives the intervals.
  FilterOptions filter;
  // Called for every closed interval, in the order they close (tk sql's off_cpu_intervals).
  std::function<void(const OffCpuInterval&)> on_interval;
};

// Parses "S,D,R" into the letters OffCpuOptions::states holds.
absl::Status ParseStates(std::string_view list, std::string* states);

class OffCpuSink final : public EventSink {
 public:
  explicit OffCpuSink(OffCpuOptions opt);

  EventMask wants() const override;
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;

  // Counts of what was seen, for messages and JSON.
  struct Stats {
    uint64_t switches = 0;          // sched_switch events
    uint64_t switch_stacks = 0;     // ... with a callchain
    uint64_t offcpu_samples = 0;    // perf --off-cpu "offcpu-time" samples folded
    uint64_t intervals = 0;         // closed intervals with a stack
    uint64_t counted = 0;           // ... that passed --state/--min-us/--max-us
    uint64_t counted_us = 0;
    uint64_t no_stack = 0;          // closed intervals whose switch-out had no callchain
    uint64_t open_start = 0, open_start_us = 0;  // open at the start (µs since the start)
    uint64_t open_end = 0, open_end_us = 0;      // open at the end (µs until the end)
    uint64_t unpaired_in = 0;       // switch-ins of a thread already on a CPU (lost events)
    uint64_t unpaired_out = 0;      // switch-outs of a thread already off-CPU: the interval
                                    // is closed at the CPU's previous switch
    uint64_t no_waker = 0;          // --wakeup: counted intervals without a wakeup
    uint64_t waker_stacks = 0;      // --wakeup: wakeups with a callchain while off-CPU
  };
  const Stats& stats() const { return stats_; }
  // True when the input gave nothing to fold from: no sched_switch with a callchain and no
  // offcpu-time sample.
  bool NothingToFold() const { return stats_.switch_stacks == 0 && stats_.offcpu_samples == 0; }

  void Write(std::ostream& out) const { fold::WriteFolded(stacks_, out); }
  // FoldedJson's object ("event": "off-cpu" or "wakeup") plus "unit": "us" and the Stats.
  void WriteJson(std::ostream& out) const;
  // The note on stderr about intervals not counted; nothing when there were none.
  void WriteNote(std::ostream& err) const;
  const fold::StackCounts& stacks() const { return stacks_; }

 private:
  struct Pending {
    int64_t out_ns = 0;
    int32_t pid = -1;
    int32_t waker_tid = -1;  // the last wakeup while off-CPU (sched_waking, else sched_wakeup)
    char state = 'R';
    bool has_stack = false;
    bool wanted = true;  // the filter accepted the thread and CPU at the switch-out
    std::string key;  // root;...;leaf of the switch-out stack
  };

  void OnSwitch(const Event& e, const SchedSwitch& s);
  void OnWakeup(const Event& e, const SchedWakeup& w);
  void OnSample(const Event& e);
  void Close(int32_t tid, const Pending& p, int64_t in_ns);
  void Count(int32_t tid, const Pending& p, int64_t in_ns, uint64_t us);
  bool Wanted(char state, uint64_t us) const;
  // root + frames, root first (leaf first when `leaf_first`).
  void AppendStack(const Event& e, bool leaf_first, std::string* key) const;

  OffCpuOptions opt_;
  Filter filter_;
  Stats stats_;
  fold::StackCounts stacks_;
  absl::flat_hash_map<int32_t, Pending> pending_;     // off-CPU threads by tid
  absl::flat_hash_map<int32_t, std::string> waker_;  // target tid → ";--;waker...;wcomm"
  absl::flat_hash_set<int32_t> born_;   // forked inside the trace, not yet switched in
  absl::flat_hash_set<int32_t> seen_;   // had a switch event
  bool seen_waking_ = false;
  std::vector<int64_t> cpu_last_;  // per CPU, the last sched_switch's time (-1: none)
  int64_t first_ns_ = -1, last_ns_ = -1;  // the first sched_switch, the last event
  std::string key_;  // scratch
};

}  // namespace tk::analyses::offcpu

#endif  // TK_ANALYSES_OFFCPU_OFFCPU_H_
