// The one task table: what the trace says about each thread (its comm, process id, parent,
// whether it exited), learned from every event that names a task, in time order. Parsers keep
// one to name each event's thread (Event::comm) the same whatever the running analysis asked
// for; analyses that name other threads (sched's wakee, the next task of a switch) keep one
// fed from the same events with the same rules, so both agree.
//
// Where a comm comes from matters for matching perf: perf names a thread by its
// PERF_RECORD_COMM (perf record synthesises one per thread from /proc/PID/comm, so kernel
// workers read "kworker/1:1-events"), never by the tracepoint's comm field ("kworker/1:1").
// So a comm from a Comm event (or trace.dat's saved cmdlines, Name()) wins; tracepoint comms
// (prev_comm, next_comm, wakeup comm, the sample's comm) are used only for threads no record
// named — the only source in text inputs.
#ifndef TK_CORE_TASK_TABLE_H_
#define TK_CORE_TASK_TABLE_H_

#include <cstdint>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "core/event.h"
#include "core/intern.h"

namespace tk {

struct TaskInfo {
  std::string_view comm;      // interned; empty when never named
  int32_t pid = -1;           // thread group id; -1 unknown
  int32_t ppid = -1;          // parent process id; -1 unknown
  bool comm_from_record = false;  // named by a Comm event (wins over tracepoint comms)
  bool exited = false;        // an Exit / sched_process_exit was seen
};

class TaskTable {
 public:
  // The kinds that teach the table something besides the event's own thread: side-band
  // records and the sched tracepoints that carry other tasks' comms. A parser learns from
  // these even when its sink does not want them.
  static constexpr EventMask Teachers() {
    return EventMask().Add(EventKind::kComm).Add(EventKind::kFork).Add(EventKind::kExit)
        .Add(EventKind::kSchedSwitch).Add(EventKind::kSchedWakeup)
        .Add(EventKind::kSchedMigrate).Add(EventKind::kSchedFork).Add(EventKind::kSchedExit);
  }
  // The kinds besides the sched tracepoints an analysis keeping a table must ask for.
  static EventMask Wants() {
    return EventMask().Add(EventKind::kComm).Add(EventKind::kFork).Add(EventKind::kExit)
        .Add(EventKind::kSchedFork).Add(EventKind::kSchedExit);
  }

  // Updates from one event: Comm/Fork/Exit records, sched_process_fork/exit, the sample's own
  // pid/tid/comm and the comms inside sched_switch / sched_wakeup / sched_migrate_task.
  void Observe(const Event& e);
  // The same without the event's own thread: what the body says about tasks (a parser calls
  // this before it names the event's thread from the table).
  void ObserveBody(const Event& e);

  // A tracepoint-level comm for `tid` (ignored once a record named it).
  void SeenComm(int32_t tid, std::string_view comm);
  // A record-level comm for `tid` (trace.dat's saved cmdlines): wins over tracepoint comms.
  void Name(int32_t tid, std::string_view comm);

  TaskInfo& Get(int32_t tid) { return tasks_[tid]; }
  const TaskInfo* Find(int32_t tid) const {
    auto it = tasks_.find(tid);
    return it == tasks_.end() ? nullptr : &it->second;
  }
  // The thread's current comm: "swapper" for tid 0 (as perf), ":TID" when never named.
  std::string_view Comm(int32_t tid);
  // The thread's comm as a parser names an event's thread: a record's name (tid 0 too), then
  // "swapper" for tid 0, then the latest tracepoint comm; empty when never named.
  std::string_view Known(int32_t tid) const {
    const TaskInfo* t = Find(tid);
    if (t && t->comm_from_record) return t->comm;
    if (tid == 0) return "swapper";
    return t ? t->comm : std::string_view();
  }
  // perf names a thread only from COMM records (or its parent's, copied at fork): with this
  // on, once the input has shown any Comm record, a thread none named is ":TID" even when a
  // tracepoint gave its comm. For --compat perf-6.1. Default off.
  void set_record_names_only(bool on) { record_names_only_ = on; }
  std::string_view Intern(std::string_view s) { return interner_.Intern(s); }

 private:
  void OnSampleThread(const Event& e);
  void OnComm(const Event& e, const tk::Comm& c);
  void OnFork(const Fork& f);
  void OnSchedFork(const SchedFork& f);

  absl::flat_hash_map<int32_t, TaskInfo> tasks_;
  Interner interner_;
  bool record_names_only_ = false;
  bool saw_comm_record_ = false;
};

}  // namespace tk

#endif  // TK_CORE_TASK_TABLE_H_
