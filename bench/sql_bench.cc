// tk sql's bulk load, with the parse alone and perf script (the anchor reader) timed in the
// same run. No SQL loader for perf.data is installed to compare with (Perfetto's
// trace_processor is not packaged in Debian), so the anchor is the cost of reading the file.
//
// Input: $TK_SQL_BENCH_DATA (default sched.data from bench/make-inputs.sh: `perf sched record
// -- perf bench sched pipe -l 100000`, ~50 MB, ~500k events; --small copies a fixture).
//
//   BM_SqlParseOnly        the reader into a sink that wants every event (the floor)
//   BM_SqlLoadInMemory     + SqlSink into an in-memory database (items/s = events/s loaded;
//                          the target is 1 M events/s)
//   BM_SqliteCeiling       SQLite alone: as many rows as the load writes (all tables; ~2.4 per
//                          event on sched.data), made by one INSERT ... SELECT in SQLite's own
//                          VM (no binding, no tk) into a 7-column table, same pragmas, plus the
//                          two indices on as many rows as there are events. items/s = events/s:
//                          the load cannot beat it with this schema.
//   BM_TkSqlFileProcess    `tk sql FILE -o DB` as a whole process (temp file, indices, rename)
//   BM_PerfScriptProcess   `perf script -i FILE > /dev/null` (the anchor)
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

#include "analyses/sql/sql_sink.h"
#include "bench/bench_inputs.h"
#include "core/diag.h"
#include "core/input.h"
#include "parsers/parser.h"

namespace {

std::string DataPath() { return tk::bench::BenchInput("TK_SQL_BENCH_DATA", "sched.data"); }

class CountAll : public tk::EventSink {
 public:
  tk::EventMask wants() const override { return tk::EventMask::All(); }
  absl::Status OnEvent(const tk::Event&) override {
    ++n;
    return absl::OkStatus();
  }
  int64_t n = 0;
};

bool Parse(benchmark::State& state, tk::EventSink& sink) {
  auto in = tk::Input::Open(DataPath());
  if (!in.ok()) {
    state.SkipWithError(std::string(in.status().message()).c_str());
    return false;
  }
  tk::Diagnostics diag(DataPath());
  absl::Status st = tk::ParseInput(**in, tk::ParseOptions(), sink, diag);
  if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
  return st.ok();
}

void BM_SqlParseOnly(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  int64_t events = 0;
  for (auto _ : state) {
    CountAll sink;
    if (!Parse(state, sink)) return;
    events = sink.n;
  }
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_SqlParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqlLoadInMemory(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  int64_t events = 0;
  for (auto _ : state) {
    sqlite3* db = nullptr;
    absl::Status st = tk::analyses::sql::OpenDatabase(":memory:", &db);
    if (st.ok()) st = tk::analyses::sql::CreateSchema(db);
    tk::analyses::sql::SqlSink sink(db, {{"file", DataPath()}});
    if (st.ok()) st = sink.Begin();
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      sqlite3_close(db);
      return;
    }
    bool ok = Parse(state, sink);
    events = static_cast<int64_t>(sink.events());
    state.PauseTiming();
    sqlite3_close(db);
    state.ResumeTiming();
    if (!ok) return;
  }
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_SqlLoadInMemory)->Unit(benchmark::kMillisecond)->UseRealTime();

// The number of events and of rows (all tables) one load of the input writes.
std::pair<int64_t, int64_t> LoadCounts(benchmark::State& state) {
  sqlite3* db = nullptr;
  absl::Status st = tk::analyses::sql::OpenDatabase(":memory:", &db);
  if (st.ok()) st = tk::analyses::sql::CreateSchema(db);
  tk::analyses::sql::SqlSink sink(db, {});
  if (st.ok()) st = sink.Begin();
  int64_t rows = 0;
  if (st.ok() && Parse(state, sink)) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM "
                       "sched_switch) + (SELECT count(*) FROM sched_wakeup) + (SELECT count(*) "
                       "FROM block_rq) + (SELECT count(*) FROM samples) + (SELECT count(*) FROM "
                       "sched_delay) + (SELECT count(*) FROM io_request)",
                       -1, &s, nullptr);
    if (sqlite3_step(s) == SQLITE_ROW) rows = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return {static_cast<int64_t>(sink.events()), rows};
}

void BM_SqliteCeiling(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  auto [events, rows] = LoadCounts(state);
  std::string sql = absl::StrCat(
      "CREATE TABLE e(id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER, pid INTEGER, "
      "tid INTEGER, kind TEXT, name TEXT);"
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ", rows,
      ") INSERT INTO e SELECT x, x * 1000, x % 2, 1234, x % 300, 'sched_switch', "
      "'sched:sched_switch' FROM c;"
      "CREATE INDEX e_ts ON e(ts) WHERE id <= ", events, ";",
      "CREATE INDEX e_tid ON e(tid) WHERE id <= ", events, ";");
  for (auto _ : state) {
    sqlite3* db = nullptr;
    absl::Status st = tk::analyses::sql::OpenDatabase(":memory:", &db);
    // The load's pragmas, without its tables.
    if (st.ok()) st = tk::analyses::sql::CreateSchema(db);
    if (st.ok() && sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      st = absl::InternalError(sqlite3_errmsg(db));
    }
    state.PauseTiming();
    sqlite3_close(db);
    state.ResumeTiming();
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * events);
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_SqliteCeiling)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TkSqlFileProcess(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  std::string db = (std::filesystem::temp_directory_path() / "tk_sql_bench.sqlite").string();
  tk::bench::RunShell(state, tk::bench::TkBinary() + " sql " + DataPath() + " -o " + db +
                                 " 2>/dev/null");
  std::remove(db.c_str());
}
BENCHMARK(BM_TkSqlFileProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PerfScriptProcess(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath()) || !tk::bench::RequireTool(state, "perf")) {
    return;
  }
  tk::bench::RunShell(state, "perf script -i " + DataPath() + " > /dev/null 2>&1");
}
BENCHMARK(BM_PerfScriptProcess)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
