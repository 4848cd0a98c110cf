#include "core/task_table.h"

#include <string>
#include <variant>

namespace tk {

void TaskTable::SeenComm(int32_t tid, std::string_view comm) {
  if (tid <= 0 || comm.empty()) return;
  TaskInfo& t = tasks_[tid];
  if (t.comm_from_record || t.comm == comm) return;
  t.comm = interner_.Intern(comm);
}

void TaskTable::Name(int32_t tid, std::string_view comm) {
  if (tid < 0 || comm.empty()) return;
  TaskInfo& t = tasks_[tid];
  t.comm_from_record = true;
  if (t.comm != comm) t.comm = interner_.Intern(comm);
}

std::string_view TaskTable::Comm(int32_t tid) {
  if (tid == 0) return "swapper";
  TaskInfo& t = tasks_[tid];
  if (t.comm.empty() || (record_names_only_ && saw_comm_record_ && !t.comm_from_record))
    return interner_.Intern(":" + std::to_string(tid));
  return t.comm;
}

// The sample's own thread: its pid (tgid) when the source knows it, and its comm (one
// lookup for both).
void TaskTable::OnSampleThread(const Event& e) {
  if (e.tid <= 0) return;
  TaskInfo& t = tasks_[e.tid];
  if (t.pid < 0 && e.pid >= 0) t.pid = e.pid;
  if (!e.comm.empty() && e.kind() != EventKind::kComm && !t.comm_from_record && t.comm != e.comm)
    t.comm = interner_.Intern(e.comm);
}

void TaskTable::OnComm(const Event& e, const tk::Comm& c) {
  int32_t tid = c.tid >= 0 ? c.tid : e.tid;
  if (tid <= 0 || c.comm.empty()) return;
  TaskInfo& t = tasks_[tid];
  if (c.pid >= 0) t.pid = c.pid;
  t.comm_from_record = true;
  saw_comm_record_ = true;
  if (t.comm != c.comm) t.comm = interner_.Intern(c.comm);
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
  OnSampleThread(e);
  ObserveBody(e);
}

void TaskTable::ObserveBody(const Event& e) {
  switch (e.kind()) {
    case EventKind::kComm: OnComm(e, std::get<tk::Comm>(e.body)); break;
    case EventKind::kFork: OnFork(std::get<Fork>(e.body)); break;
    case EventKind::kExit:
      if (int32_t tid = std::get<Exit>(e.body).tid; tid > 0) tasks_[tid].exited = true;
      break;
    case EventKind::kSchedFork: OnSchedFork(std::get<SchedFork>(e.body)); break;
    case EventKind::kSchedExit:
      if (int32_t pid = std::get<SchedExit>(e.body).pid; pid > 0) tasks_[pid].exited = true;
      break;
    case EventKind::kSchedSwitch: {
      const auto& s = std::get<SchedSwitch>(e.body);
      if (s.prev_pid != e.tid || s.prev_comm != e.comm) SeenComm(s.prev_pid, s.prev_comm);
      SeenComm(s.next_pid, s.next_comm);
      break;
    }
    case EventKind::kSchedWakeup: {
      const auto& w = std::get<SchedWakeup>(e.body);
      SeenComm(w.pid, w.comm);
      break;
    }
    case EventKind::kSchedMigrate: {
      const auto& m = std::get<SchedMigrate>(e.body);
      SeenComm(m.pid, m.comm);
      break;
    }
    default:
      break;
  }
}

}  // namespace tk
