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

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/event.h"
#include "core/intern.h"

namespace tk {

// A map from thread id to T for the per-event hot path: entries in a vector, a hash index
// over them, and in front a direct-mapped cache of recent ids (a sched trace names the same
// few threads over and over; a cached lookup is one compare, where a hash probe per task
// named was a fifth of `tk sched latency`'s decoding thread). An entry never looked up reads
// as a default T, so Find's nullptr and a default entry mean the same.
template <typename T>
class TidMap {
 public:
  T& operator[](int32_t tid) {
    Slot& s = cache_[static_cast<uint32_t>(tid) % kCache];
    if (s.index != 0 && s.tid == tid) return entries_[s.index - 1].second;
    auto [it, inserted] = index_.try_emplace(tid, static_cast<uint32_t>(entries_.size()));
    if (inserted) entries_.emplace_back(tid, T{});
    s = Slot{tid, it->second + 1};
    return entries_[it->second].second;
  }
  const T* Find(int32_t tid) const {
    const Slot& s = cache_[static_cast<uint32_t>(tid) % kCache];
    if (s.index != 0 && s.tid == tid) return &entries_[s.index - 1].second;
    auto it = index_.find(tid);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  // Every entry as {tid, value}, in first-lookup order.
  const std::vector<std::pair<int32_t, T>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }

 private:
  static constexpr size_t kCache = 256;
  struct Slot {
    int32_t tid = 0;
    uint32_t index = 0;  // in entries_, plus one; 0: empty
  };
  std::array<Slot, kCache> cache_{};
  std::vector<std::pair<int32_t, T>> entries_;
  absl::flat_hash_map<int32_t, uint32_t> index_;
};

struct TaskInfo {
  std::string_view comm;      // interned; empty when never named
  int32_t pid = -1;           // thread group id; -1 unknown
  int32_t ppid = -1;          // parent process id; -1 unknown
  bool comm_from_record = false;  // named by a Comm event (wins over tracepoint comms)
  bool exited = false;        // an Exit / sched_process_exit was seen
  // ":TID" as Comm returns it for an unnamed task, interned at its first use (it depends on
  // the tid alone), so that asking again costs no string and no interner probe.
  std::string_view placeholder;
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

  // Updates from one event: the event's own thread (its pid, and its comm unless the event is
  // a Comm record, which names by its body), then ObserveBody.
  void Observe(const Event& e);
  // What the body says about tasks: Comm/Fork/Exit records, sched_process_fork/exit and the
  // comms inside sched_switch / sched_wakeup / sched_migrate_task (a parser calls this before
  // it names the event's thread from the table).
  void ObserveBody(const Event& e);

  // A tracepoint-level comm for `tid` (ignored once a record named it).
  void SeenComm(int32_t tid, std::string_view comm) {
    if (tid <= 0 || comm.empty()) return;
    SeenComm(tasks_[tid], comm);
  }
  // A record-level comm for `tid` (trace.dat's saved cmdlines): wins over tracepoint comms.
  void Name(int32_t tid, std::string_view comm);

  TaskInfo& Get(int32_t tid) { return tasks_[tid]; }
  const TaskInfo* Find(int32_t tid) const { return tasks_.Find(tid); }
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
  void SeenComm(TaskInfo& t, std::string_view comm) {
    if (!t.comm_from_record && t.comm != comm) t.comm = interner_.Intern(comm);
  }
  void OnComm(const Event& e, const tk::Comm& c);
  void OnFork(const Fork& f);
  void OnSchedFork(const SchedFork& f);

  TidMap<TaskInfo> tasks_;
  Interner interner_;
  bool record_names_only_ = false;
  bool saw_comm_record_ = false;
};

}  // namespace tk

#endif  // TK_CORE_TASK_TABLE_H_
