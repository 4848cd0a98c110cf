// `tk sql`: every event into SQLite tables (schema in docs/sql-schema.md, version kSchemaVersion).
//
// SqlSink creates the tables in an open database, then inserts each event inside one
// transaction with prepared multi-row statements (row_batch.h: no SQL text per row, SQLite's
// per-statement cost paid once per 64 rows). Tasks,
// stacks and frames are kept in memory while loading and written at Finish, followed by the
// indices (built once over the loaded rows, faster than maintaining them per insert).
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
// `tk syscalls`, off_cpu by the OffCpuSink of `tk fold --off-cpu`, so their rows are exactly
// the delays, requests, interrupts, calls and folded stacks those commands count.
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
#include "analyses/sched/delays.h"
#include "analyses/syscalls/syscalls.h"
#include "core/intern.h"
#include "core/sink.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tk::analyses::sql {

inline constexpr int kSchemaVersion = 2;

// Opens (creates) `path` (":memory:" for an in-memory database). The library is configured
// single-threaded and without memory statistics first: tk uses one connection from one thread,
// and SQLite's mutexes were a sixth of the load's time.
absl::Status OpenDatabase(const std::string& path, sqlite3** db);

// Sets the pragmas for a fast bulk load into a file nobody else reads until it is renamed
// (no journal, no fsync) and creates the tables.
absl::Status CreateSchema(sqlite3* db);

class SqlSink final : public EventSink, private iolat::IoListener {
 public:
  // `db` has the schema (CreateSchema); `meta` rows (file, format, ...) are written at Finish.
  SqlSink(sqlite3* db, std::map<std::string, std::string> meta);
  ~SqlSink() override;

  EventMask wants() const override { return EventMask::AllTyped(); }
  void OnTraceInfo(const TraceInfo& info) override { syscalls_.OnTraceInfo(info); }
  absl::Status OnEvent(const Event& e) override;
  absl::Status Finish() override;

  // Prepares the statements and begins the transaction; call once before the first event.
  absl::Status Begin();
  uint64_t events() const { return next_event_id_ - 1; }

 private:
  struct Task {
    int32_t pid = -1;
    std::string comm;
    int64_t first = -1, last = -1;
    uint64_t events = 0;
  };
  enum Table {
    kEvents, kSwitch, kWakeup, kBlock, kSamples, kFrames, kStacks, kDelays, kIo, kIrq,
    kSyscalls, kNumTables
  };

  absl::StatusOr<int64_t> FrameId(const Frame& f);
  absl::StatusOr<int64_t> StackId(absl::Span<const Frame> stack);
  void SeeTask(const Event& e);
  absl::Status InsertTyped(const Event& e, int64_t id);
  RowBatch& TypedRow(Table t, int64_t id, const Event& e);
  absl::Status InsertDelay(const sched::Delay& d);
  void OnDone(const iolat::IoRecord& r) override;  // an io_request row
  void InsertIrq(const irq::Interrupt& i);
  void InsertCall(const syscalls::CallRecord& c);
  absl::Status WriteOffCpu();
  absl::Status WriteTasks();
  absl::Status WriteMeta();

  sqlite3* db_;
  std::map<std::string, std::string> meta_;
  RowBatch rows_[kNumTables];
  int64_t next_event_id_ = 1;
  absl::flat_hash_map<int32_t, Task> tasks_;
  // sched_delay rows: the delays `tk sched top` and `tk sched hist` count (analyses/sched).
  sched::DelayTracker delays_;
  // io_request rows: the requests `tk iolat` pairs, from its RequestTracker.
  Interner interner_;
  iolat::RequestTracker requests_{this, &interner_};
  // irq rows: the interrupts `tk irq` counts; syscalls rows: the calls `tk syscalls` counts;
  // off_cpu rows: `tk fold --off-cpu`'s folded stacks (its per-interval output is not public).
  std::ostream null_out_{nullptr};
  irq::IrqAnalysis irq_;
  syscalls::SyscallsAnalysis syscalls_;
  analyses::offcpu::OffCpuSink offcpu_{analyses::offcpu::OffCpuOptions()};
  absl::Status derived_status_;  // the first error of a derived row's insert
  // Frames by "symbol\0dso" → id (from 1, first-seen order); rows inserted when first seen.
  absl::flat_hash_map<std::string, int64_t> frame_ids_;
  std::string frame_key_, frame_name_;
  // Call sites by (parent id or 0, frame id) → id (from 1); rows inserted when first seen.
  absl::flat_hash_map<std::pair<int64_t, int64_t>, int64_t> site_ids_;
};

}  // namespace tk::analyses::sql

#endif  // TK_ANALYSES_SQL_SQL_SINK_H_
