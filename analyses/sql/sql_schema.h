// tk sql's tables (docs/sql-schema.md, version kSchemaVersion) and the database set-up.
//
// One event costs one row: each event goes into exactly one event table (sched_switch,
// sched_wakeup, block_rq, samples, or generic_events for every other kind), each starting with
// the same columns (event_id, ts, cpu, pid, tid, type_id), and `events` is a VIEW over them.
// An event with a call stack that is not a sample (a sched_switch recorded with -g) also has
// a `samples` row, which is where stacks are. Kind and name are an integer type_id into
// `event_types`.
#ifndef TK_ANALYSES_SQL_SQL_SCHEMA_H_
#define TK_ANALYSES_SQL_SQL_SCHEMA_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analyses/sql/row_batch.h"

struct sqlite3;

namespace tk::analyses::sql {

inline constexpr int kSchemaVersion = 3;

// The tables SqlSink writes, in docs/sql-schema.md's order (the indices of TableDefs()).
enum Table {
  kMeta, kTasks, kEventTypes, kGenericEvents, kSwitch, kWakeup, kBlock, kSamples, kStacks,
  kFrames, kDelays, kIo, kIrq, kSyscalls, kOffCpu, kOffCpuIntervals, kNumTables
};
const std::vector<TableDef>& TableDefs();

// Opens (creates) `path` (":memory:" for an in-memory database). The library is configured
// single-threaded and without memory statistics first: one connection, used by one thread at
// a time (RowLoader's), and SQLite's mutexes were a sixth of the load's time.
absl::Status OpenDatabase(const std::string& path, sqlite3** db);

// Sets the pragmas for a fast bulk load into a file nobody else reads until it is renamed
// (no journal, no fsync, exclusive lock) and creates the tables and the `events` view.
absl::Status CreateSchema(sqlite3* db);

// Indices on ts and tid of every event table (generic_events, sched_switch, sched_wakeup,
// block_rq, samples), named TABLE_ts and TABLE_tid. Built once after the load: each table is
// appended in time order, and an index maintained row by row during the load cost the
// inserting thread a quarter of its time (docs/sql-schema.md, "Indices").
absl::Status CreateIndices(sqlite3* db);

// Runs `sql` (statements without results).
absl::Status Exec(sqlite3* db, const char* sql);

}  // namespace tk::analyses::sql

#endif  // TK_ANALYSES_SQL_SQL_SCHEMA_H_
