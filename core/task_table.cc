#include "core/task_table.h"

#include <string>
#include <variant>

#include "core/visit.h"

namespace tk {

void TaskTable::Name(int32_t tid, std::string_view comm) {
  if (tid < 0 || comm.empty()) return;
  TaskInfo& t = tasks_[tid];
  t.comm_from_record = true;
  if (t.comm != comm) t.comm = interner_.Intern(comm);
}

std::string_view TaskTable::Comm(int32_t tid) {
  if (tid == 0) return "swapper";
  TaskInfo& t = tasks_[tid];
  if (t.comm.empty() || (record_names_only_ && saw_comm_record_ && !t.comm_from_record)) {
    if (t.placeholder.empty()) {
      std::string name = std::to_string(tid);
      name.insert(name.begin(), ':');
      t.placeholder = interner_.Intern(name);
    }
    return t.placeholder;
  }
  return t.comm;
}

void TaskTable::OnComm(const Event& e, const tk::Comm& c) {
  int32_t tid = c.tid >= 0 ? c.tid : e.tid;
  if (tid <= 0 || c.comm.empty()) return;
  TaskInfo& t = tasks_[tid];
  if (c.pid >= 0) t.pid = c.pid;
  saw_comm_record_ = true;
  Name(tid, c.comm);
}

void TaskTable::OnFork(const Fork& f) {
  if (f.tid <= 0) return;
  TaskInfo& child = tasks_[f.tid];
  if (f.pid >= 0) child.pid = f.pid;
  // perf's thread__fork: the parent is the forking thread (ptid), not its process.
  if (f.ppid >= 0) child.ppid = f.ptid >= 0 ? f.ptid : f.ppid;
  child.exited = false;
  // perf's machine gives the child its parent's comm until the child's own COMM record.
  const TaskInfo* parent = Find(f.ptid >= 0 ? f.ptid : f.ppid);
  if (!parent || parent->comm.empty()) return;
  child.comm = parent->comm;
  child.comm_from_record = parent->comm_from_record;
}

void TaskTable::OnSchedFork(const SchedFork& f) {
  SeenComm(f.child_pid, f.child_comm);
  SeenComm(f.parent_pid, f.parent_comm);
  if (f.child_pid <= 0) return;
  TaskInfo& child = tasks_[f.child_pid];
  if (child.ppid >= 0 || f.parent_pid < 0) return;
  const TaskInfo* parent = Find(f.parent_pid);
  child.ppid = parent && parent->pid >= 0 ? parent->pid : f.parent_pid;
}

void TaskTable::Observe(const Event& e) {
  if (e.tid > 0) {
    TaskInfo& t = tasks_[e.tid];
    if (t.pid < 0 && e.pid >= 0) t.pid = e.pid;
    if (!e.comm.empty() && e.kind() != EventKind::kComm) SeenComm(t, e.comm);
  }
  ObserveBody(e);
}

// A comm SeenComm already took for the same thread (the sample's own, from Observe) is
// taken again as a no-op, so a switch's prev needs no special case.
void TaskTable::ObserveBody(const Event& e) {
  VisitBody(
      e, [&](const tk::Comm& c) { OnComm(e, c); }, [&](const Fork& f) { OnFork(f); },
      [&](const Exit& x) {
        if (x.tid > 0) tasks_[x.tid].exited = true;
      },
      [&](const SchedFork& f) { OnSchedFork(f); },
      [&](const SchedExit& x) {
        if (x.pid > 0) tasks_[x.pid].exited = true;
      },
      [&](const SchedSwitch& s) {
        SeenComm(s.prev_pid, s.prev_comm);
        SeenComm(s.next_pid, s.next_comm);
      },
      [&](const SchedWakeup& w) { SeenComm(w.pid, w.comm); },
      [&](const SchedMigrate& m) { SeenComm(m.pid, m.comm); });
}

}  // namespace tk
