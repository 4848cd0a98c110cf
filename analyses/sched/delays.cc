#include "analyses/sched/delays.h"

#include <variant>

namespace tk::sched {

void DelayTracker::OnEvent(const Event& e, const std::function<void(const Delay&)>& emit) {
  tasks_.Observe(e);
  if (e.kind() == EventKind::kSchedWakeup) {
    const auto& w = std::get<SchedWakeup>(e.body);
    if (w.kind == SchedWakeup::Kind::kWaking) seen_waking_ = true;
    if (w.kind == SchedWakeup::Kind::kWakeup && seen_waking_) return;
    if (w.pid <= 0) return;
    Pending& p = pending_[w.pid];
    if (p.ready_ns == 0) {
      p.ready_ns = e.ts_ns;
      p.waker = e.tid;
      p.preempted = false;
    }
    return;
  }
  if (e.kind() != EventKind::kSchedSwitch) return;
  const auto& s = std::get<SchedSwitch>(e.body);
  if (s.prev_pid > 0) {
    Pending& p = pending_[s.prev_pid];
    if (s.prev_state.runnable()) {
      p.ready_ns = e.ts_ns;
      p.waker = s.next_pid;
      p.preempted = true;
    } else {
      p.ready_ns = 0;
    }
  }
  if (s.next_pid <= 0) return;
  Pending& next = pending_[s.next_pid];  // a new entry is not runnable
  if (next.ready_ns == 0) return;
  Pending p = next;
  next.ready_ns = 0;
  if (e.ts_ns < p.ready_ns) return;
  Delay d;
  d.tid = s.next_pid;
  const TaskInfo* info = tasks_.Find(d.tid);
  d.pid = info && info->pid >= 0 ? info->pid : d.tid;
  d.comm = tasks_.Comm(d.tid);
  d.prio = s.next_prio;
  d.cpu = e.cpu;
  d.ready_ns = p.ready_ns;
  d.run_ns = e.ts_ns;
  d.waker_tid = p.waker;
  if (p.waker >= 0) d.waker_comm = tasks_.Comm(p.waker);
  d.preempted = p.preempted;
  if (!filter_.TimeOk(d.run_ns) || !filter_.CpuOk(d.cpu) || !filter_.TaskOk(d.pid, d.tid, d.comm))
    return;
  emit(d);
}

}  // namespace tk::sched
