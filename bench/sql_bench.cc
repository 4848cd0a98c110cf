// tk sql's bulk load, with the parse alone and perf script (the anchor reader) timed in the
// same run. No SQL loader for perf.data is installed to compare with (Perfetto's
// trace_processor is not packaged in Debian), so the anchor is the cost of reading the file.
//
// Input: $TK_SQL_BENCH_DATA (default sched.data from bench/make-inputs.sh: `perf sched record
// -- perf bench sched pipe -l 100000`, ~50 MB, ~500k events; --small copies a fixture).
//
//   BM_SqlParseOnly        the reader into a sink that wants every event (the floor)
//   BM_SqlLoadInMemory/T   + SqlSink into an in-memory database, T=1: one thread, T=2: the
//                          inserts on a thread of their own (items/s = events/s loaded, by
//                          wall time; the target is 1 M events/s).
//                          events_per_busiest_cpu_s: events / the CPU time of the busier of
//                          the two threads, i.e. events/s on an idle 2-core host, which the
//                          wall time only shows when the host is quiet
//   BM_SqliteCeiling       SQLite alone: as many rows as the load writes (all tables; ~1.3 per
//                          event on sched.data), made by one INSERT ... SELECT in SQLite's own
//                          VM (no binding, no tk) into a 7-column table, same pragmas, plus
//                          an index on as many rows as the load indexes. items/s = events/s:
//                          what one thread of SQLite allows for this many rows.
//   BM_TkSqlFileProcess    `tk sql FILE -o DB` as a whole process (temp file, indices, rename)
//   BM_PerfScriptProcess   `perf script -i FILE > /dev/null` (the anchor)
#include <sqlite3.h>

#include <time.h>

#include <algorithm>
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

int64_t Count(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  int64_t n = 0;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    n = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  return n;
}

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

// Loads the input into an in-memory database; returns the events (0: failed, state skipped).
// `rows`, `indexed`: the rows of all tables, and of the indexed tables once per index.
double ThreadCpuS() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// The CPU seconds of the busier thread of the last Load (the wall time of a load on an idle
// machine with a core per thread: what events/s is bounded by when the host is busy).
double g_busiest_cpu_s = 0;

int64_t Load(benchmark::State& state, bool thread, int64_t* rows = nullptr,
             int64_t* indexed = nullptr) {
  const double cpu0 = ThreadCpuS();
  sqlite3* db = nullptr;
  absl::Status st = tk::analyses::sql::OpenDatabase(":memory:", &db);
  if (st.ok()) st = tk::analyses::sql::CreateSchema(db);
  int64_t events = 0;
  {
    tk::analyses::sql::SqlSink sink(db, {{"file", DataPath()}});
    if (st.ok()) st = sink.Begin(thread);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
    if (st.ok() && Parse(state, sink)) events = static_cast<int64_t>(sink.events());
    g_busiest_cpu_s = std::max(ThreadCpuS() - cpu0, sink.insert_thread_cpu_s());
  }
  if (events > 0 && rows) {
    *rows = *indexed = 0;
    for (const auto& t : tk::analyses::sql::TableDefs()) {
      *rows += Count(db, absl::StrCat("SELECT count(*) FROM ", t.name));
    }
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT tbl_name FROM sqlite_schema WHERE type = 'index' AND "
                           "sql IS NOT NULL", -1, &s, nullptr);
    while (sqlite3_step(s) == SQLITE_ROW) {
      *indexed += Count(db, absl::StrCat("SELECT count(*) FROM ",
                                         reinterpret_cast<const char*>(sqlite3_column_text(s, 0))));
    }
    sqlite3_finalize(s);
  }
  if (rows) {  // counting, outside the timed loop
    sqlite3_close(db);
    return events;
  }
  state.PauseTiming();
  sqlite3_close(db);
  state.ResumeTiming();
  return events;
}

void BM_SqlLoadInMemory(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  int64_t events = 0;
  double busiest = 0;
  for (auto _ : state) {
    events = Load(state, state.range(0) == 2);
    if (events == 0) return;
    busiest += g_busiest_cpu_s;
  }
  state.SetItemsProcessed(state.iterations() * events);
  // events / the busier thread's CPU time: events/s on an idle host, whatever the load now.
  state.counters["events_per_busiest_cpu_s"] =
      static_cast<double>(events) * static_cast<double>(state.iterations()) / busiest;
}
BENCHMARK(BM_SqlLoadInMemory)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SqliteCeiling(benchmark::State& state) {
  if (!tk::bench::RequireInput(state, DataPath())) return;
  int64_t rows = 0, indexed = 0;
  const int64_t events = Load(state, false, &rows, &indexed);
  if (events == 0) return;
  std::string sql = absl::StrCat(
      "CREATE TABLE e(id INTEGER PRIMARY KEY, ts INTEGER, cpu INTEGER, pid INTEGER, "
      "tid INTEGER, kind TEXT, name TEXT);"
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ", rows,
      ") INSERT INTO e SELECT x, x * 1000, x % 2, 1234, x % 300, 'sched_switch', "
      "'sched:sched_switch' FROM c;"
      "CREATE INDEX e_ts ON e(ts) WHERE id <= ", indexed, ";");
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
  state.counters["indexed"] = static_cast<double>(indexed);
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
