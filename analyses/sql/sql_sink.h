// `tk sql`: every event into SQLite tables (schema in docs/sql-schema.md and sql_schema.h).
//
// SqlSink turns each event into one row of its event table (and a `samples` row when a
// non-sample event has a stack) inside one transaction; RowLoader (row_batch.h) inserts the
// rows with prepared 64-row statements, on a thread of its own when asked, so decoding and
// the derived analyses run beside SQLite. Tasks, event types, stacks and frames are interned
// in memory while loading; tasks are written at Finish.
//
// Stacks are interned as a tree of call sites, as Perfetto's stack_profile_callsite: a row
// (id, parent_id, frame_id, depth) per distinct path from the root frame (depth 0) to a frame,
// so a sample names its leaf call site and shared prefixes are stored once. Frames are interned
// by (symbol, dso); `name` is the frame as tk fold names it (analyses/fold/frame_name.h, default
// options), "" for frames fold skips.
//
// The derived tables are filled by the analyses' own code, not re-derived in SQL: sched_delay
// by the DelayTracker `tk sched top` and `tk sched hist` run, io_request by the RequestTracker
// `tk iolat` runs, irq by the IrqAnalysis of `tk irq`, syscalls by the SyscallsAnalysis of
// `tk syscalls`, off_cpu and off_cpu_intervals by the OffCpuSink of `tk fold --off-cpu` (its
// folded stacks and its interval callback), so their rows are exactly the delays, requests,
// interrupts, calls, stacks and intervals those commands count.
#ifndef TK_ANALYSES_SQL_SQL_SINK_H_
#define TK_ANALYSES_SQL_SQL_SINK_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analyses/iolat/request_tracker.h"
#include "analyses/irq/irq.h"
#include "analyses/offcpu/offcpu.h"
#include "analyses/sql/row_batch.h"
#include "analyses/sql/sql_schema.h"
#include "analyses/sched/delays.h"
#include "analyses/syscalls/syscalls.h"
#include "core/intern.h"
#include "core/sink.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tk::analyses::sql {

class SqlSink final : public EventSink, private iolat::IoListener {
 public:
  // `db` has the schema (CreateSchema); `meta` rows (file, format, ...) are written at Finish.
  SqlSink(sqlite3* db, std::map<std::string, std::string> meta);
  ~SqlSink() override;

  EventMask wants() const override { return EventMask::AllTyped(); }
  void OnTraceInfo(const TraceInfo& info) override { derived_.OnTraceInfo(info); }
  absl::Status OnEvent(const Event& e) override;
  // Writes the rest, waits for the inserts and commits.
  absl::Status Finish() override;

  // More meta rows (the header facts, once the input is open).
  void AddMeta(const std::map<std::string, std::string>& meta) {
    meta_.insert(meta.begin(), meta.end());
  }
  // Prepares the statements and begins the transaction; call once before the first event.
  // With `thread` the inserts run on a thread of their own until Finish (RowLoader).
  absl::Status Begin(bool thread);
  uint64_t events() const { return next_event_id_ - 1; }
  // The CPU time of the inserting thread (Begin(true)), after Finish.
  double insert_thread_cpu_s() const { return loader_.thread_cpu_s(); }

 private:
  struct Task {
    int32_t pid = -1;
    std::string comm;
    int64_t first = -1, last = -1;
    uint64_t events = 0;
  };
  // A thread's last switch-out: the sched_switch's event_id and stack (-1: none).
  struct SwitchOut {
    int64_t event_id = -1, stack_id = -1;
  };

  RowWriter& Row(Table t) { return loader_.table(t); }
  // Starts a row of an event table with its first columns: event_id, ts, cpu, pid, tid,
  // type_id.
  RowWriter& EventRow(Table t, int64_t id, const Event& e);
  absl::StatusOr<int64_t> TypeId(const Event& e);
  absl::StatusOr<int64_t> FrameId(const Frame& f);
  absl::StatusOr<int64_t> StackId(absl::Span<const Frame> stack);
  void SeeTask(const Event& e);
  absl::Status InsertEvent(const Event& e, int64_t id);
  absl::Status InsertTyped(const Event& e, int64_t id);
  absl::Status InsertDelay(const sched::Delay& d);
  void OnDone(const iolat::IoRecord& r) override;  // an io_request row
  void InsertIrq(const irq::Interrupt& i);
  void InsertCall(const syscalls::CallRecord& c);
  void InsertInterval(const offcpu::OffCpuInterval& iv);
  absl::Status WriteOffCpu();
  absl::Status WriteTasks();
  absl::Status WriteMeta();

  sqlite3* db_;
  std::map<std::string, std::string> meta_;
  RowLoader loader_;
  int64_t next_event_id_ = 1;
  int64_t type_id_ = 0;  // the current event's
  int64_t stack_id_ = -1;  // the current event's (-1: no stack)
  absl::flat_hash_map<int32_t, Task> tasks_;
  // Event types by kind and name → id (from 1), with the last one of each kind cached.
  absl::flat_hash_map<std::string, int64_t> type_ids_;
  struct LastType {
    std::string name;
    int64_t id = 0;
  };
  LastType last_type_[kNumEventKinds];
  std::string type_key_;
  // sched_delay rows: the delays `tk sched top` and `tk sched hist` count (analyses/sched).
  sched::DelayTracker delays_;
  // io_request rows: the requests `tk iolat` pairs, from its RequestTracker.
  Interner interner_;
  iolat::RequestTracker requests_{this, &interner_};
  // irq rows: the interrupts `tk irq` counts; syscalls rows: the calls `tk syscalls` counts;
  // off_cpu rows: `tk fold --off-cpu`'s folded stacks, off_cpu_intervals its intervals.
  std::ostream null_out_{nullptr};
  irq::IrqAnalysis irq_;
  syscalls::SyscallsAnalysis syscalls_;
  offcpu::OffCpuSink offcpu_;
  // The derived analyses share the load's one pass (core/sink.h): each gets its own kinds.
  // (Finish is called per analysis, in the order the tables are written.)
  Fanout derived_{{&irq_, &syscalls_, &offcpu_}};
  absl::flat_hash_map<int32_t, SwitchOut> switch_out_;  // by tid
  absl::Status derived_status_;  // the first error of a derived row's insert
  // Frames by "symbol\0dso" → id (from 1, first-seen order); rows inserted when first seen.
  absl::flat_hash_map<std::string, int64_t> frame_ids_;
  std::string frame_key_, frame_name_;
  // Call sites by (parent id or 0, frame id) → id (from 1); rows inserted when first seen.
  absl::flat_hash_map<std::pair<int64_t, int64_t>, int64_t> site_ids_;
};

}  // namespace tk::analyses::sql

#endif  // TK_ANALYSES_SQL_SQL_SINK_H_
