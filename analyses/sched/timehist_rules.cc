#include "analyses/sched/timehist_rules.h"

namespace tk::sched {

char Perf61Letter(const TaskState& st) {
  if (st.bits == 0) return st.preempted ? 'W' : 'R';
  static constexpr struct {
    uint16_t bit;
    char c;
  } kMap[] = {{TaskState::kS, 'S'}, {TaskState::kD, 'D'}, {TaskState::kT, 'T'},
              {TaskState::kt, 't'}, {TaskState::kX, 'Z'}, {TaskState::kZ, 'X'},
              {TaskState::kP, 'x'}, {TaskState::kI, 'K'}, {TaskState::kK, 'K'},
              {TaskState::kW, 'W'}};
  for (const auto& m : kMap)
    if (st.bits & m.bit) return m.c;
  return '?';
}

int32_t TimehistRules::RowThread(const Event& e, const SchedSwitch& s, TaskTable& tasks) const {
  // perf charges the row to the sample's thread, not prev_pid: they differ when perf could
  // not name an exiting task (":-1 -1" in perf script). Only perf 6.1's rules copy that.
  if (!perf61_ || s.prev_pid == 0 || e.tid == s.prev_pid) return s.prev_pid;
  int32_t tid = e.tid != 0 ? e.tid : e.pid;
  TaskInfo& t = tasks.Get(tid);
  if (t.pid < 0 && e.pid >= 0) t.pid = e.pid;  // perf's thread (pid 5593, tid -1)
  return tid;
}

void TimehistRules::OnWakee(int32_t pid, TaskTable& tasks) const {
  if (!perf61_) return;
  TaskInfo& t = tasks.Get(pid);
  if (t.pid < 0) t.pid = 0;
}

}  // namespace tk::sched
