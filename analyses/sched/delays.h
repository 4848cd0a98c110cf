// Scheduling delays one by one, for `tk sched hist` and `tk sched top`: each time a task gets
// a CPU, how long it waited since it became runnable — the same measure as timehist's
// "sch delay": from the first wakeup (sched_waking, else sched_wakeup/_new) since it left the
// CPU, or from that switch-out itself when it left runnable (R/R+: preempted).
//
// The waker is the task that ran where the wakeup fired (the wakeup event's own thread); for a
// preempted task it is the task that took its CPU.
#ifndef TK_ANALYSES_SCHED_DELAYS_H_
#define TK_ANALYSES_SCHED_DELAYS_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "analyses/sched/task_table.h"
#include "core/event.h"
#include "core/filter.h"

namespace tk::sched {

struct Delay {
  int32_t tid = -1;
  int32_t pid = -1;            // process (tgid), tid when unknown
  std::string_view comm;       // interned, valid as long as the tracker
  int32_t prio = -1;           // next_prio at the switch-in
  int32_t cpu = -1;            // where it got to run
  int64_t ready_ns = 0;        // wakeup (or preemption)
  int64_t run_ns = 0;          // switch-in
  int32_t waker_tid = -1;      // -1 unknown
  std::string_view waker_comm;
  bool preempted = false;      // became runnable by being switched out in R state
  uint64_t delay_ns() const { return static_cast<uint64_t>(run_ns - ready_ns); }
};

class DelayTracker {
 public:
  DelayTracker() = default;
  // Only delays `filter` accepts are emitted: the task that waited (its pid and comm as the
  // table knows them), the CPU it got and the time it got it (docs/filters.md).
  explicit DelayTracker(FilterOptions filter) : filter_(std::move(filter)) {}
  static EventMask Wants() {
    return TaskTable::Wants().Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup);
  }
  // Feeds one event; calls `emit` for each delay completed by it.
  void OnEvent(const Event& e, const std::function<void(const Delay&)>& emit);
  TaskTable& tasks() { return tasks_; }

 private:
  struct Pending {
    int64_t ready_ns = 0;  // 0 = not runnable
    int32_t waker = -1;
    bool preempted = false;
  };
  Filter filter_;
  TaskTable tasks_;
  TidMap<Pending> pending_;
  bool seen_waking_ = false;
};

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_DELAYS_H_
