// tk sql [FILE|-] -o trace.sqlite | -e "SELECT ..." | --format csv|jsonl -o DIR
//
// Every event of a trace into SQL tables (analyses/sql/sql_sink.h, docs/sql-schema.md).
// -o FILE: an SQLite database, written to FILE.tmp.PID and renamed when complete, so an
// interrupted or failed run leaves no FILE (and removes its temporary file, also on SIGINT,
// SIGTERM and SIGHUP). -e: the query runs on an in-memory database. --format csv|jsonl: the
// same tables as DIR/TABLE.csv or .jsonl.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>

#include "analyses/sql/sql_output.h"
#include "analyses/sql/sql_sink.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/absl_compat.h"
#include "core/input.h"
#include "core/run_settings.h"
#include "nlohmann/json.hpp"
#include "parsers/perf_data/perf_data_parser.h"
#include "parsers/trace_dat/trace_dat_parser.h"

namespace tk::cli {
namespace {

// The temporary database, removed by the signal handler (unlink is async-signal-safe).
char g_temp_path[4096];

extern "C" void RemoveTempAndDie(int sig) {
  if (g_temp_path[0]) unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// meta rows: file, format, and the header facts tk info shows (perf or trace-cmd version,
// clock) when the format has them.
std::map<std::string, std::string> Meta(Input& in, Format format) {
  std::map<std::string, std::string> meta = {{"file", in.name()},
                                             {"format", std::string(FormatName(format))}};
  absl::StatusOr<std::string> facts = absl::UnknownError("");
  if (format == Format::kPerfData || format == Format::kPerfDataPipe) {
    if (in.EnsureMapped().ok()) facts = parsers::perf_data::DescribePerfData(in);
  } else if (format == Format::kTraceDat) {
    if (in.EnsureMapped().ok()) facts = parsers::trace_dat::DescribeTraceDat(in);
  }
  if (!facts.ok()) return meta;
  absl::StatusOr<nlohmann::json> d = nlohmann::json::parse(*facts);
  for (const char* key : {"perf_version", "trace_cmd_version", "clock", "hostname",
                          "os_release"}) {
    auto it = d->find(key);
    if (it != d->end() && it->is_string()) meta[key] = it->get<std::string>();
  }
  return meta;
}

// Loads `path` into `db` on the one pipeline (cli/common.h). With 2 threads (the default on
// 2+ cores) SQLite inserts on a thread of its own beside the parse. Returns an exit code.
int Load(sqlite3* db, const std::string& path, const ParseOptions& popts, bool indices) {
  absl::Status st = analyses::sql::CreateSchema(db);
  if (!st.ok()) return Fail(SV(st.message()), kExitUsage);
  analyses::sql::SqlSink sink(db, {});
  if (st = sink.Begin(ResolveThreads(popts.threads) >= 2); !st.ok()) {
    return Fail(SV(st.message()), kExitUsage);
  }
  Pipeline pipe;
  pipe.before_parse = [&](Input& in, Format format, Parser&) {
    sink.AddMeta(Meta(in, format));
    return -1;
  };
  pipe.nothing_reason = [] { return std::string(); };  // any input is a database
  int rc = RunPipeline(path, popts, sink, pipe);
  if (rc == kExitOk && indices) {
    if (st = analyses::sql::CreateIndices(db); !st.ok()) return Fail(SV(st.message()), 2);
  }
  return rc;
}

// -o FILE in SQLite format: load into FILE.tmp.PID, then rename.
int WriteDatabase(const std::string& path, const ParseOptions& popts, const std::string& out,
                  bool indices) {
  // An SQLite database is a regular file: a device or FIFO named by -o is refused, never
  // replaced by the rename.
  struct stat st;
  if (stat(out.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Fail(out + ": not a regular file (an SQLite database is written as a file)",
                kExitUsage);
  }
  std::string temp = out + ".tmp." + std::to_string(getpid());
  if (temp.size() >= sizeof(g_temp_path)) return Fail(out + ": path too long", kExitUsage);
  std::remove(temp.c_str());
  std::snprintf(g_temp_path, sizeof(g_temp_path), "%s", temp.c_str());
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, RemoveTempAndDie);
  sqlite3* db = nullptr;
  int rc = kExitOk;
  if (absl::Status st = analyses::sql::OpenDatabase(temp, &db); !st.ok()) {
    rc = Fail(SV(st.message()), kExitUsage);
  } else {
    rc = Load(db, path, popts, indices);
  }
  if (sqlite3_close(db) != SQLITE_OK && rc == kExitOk) rc = Fail(temp + ": close failed", 2);
  if (rc == kExitOk && std::rename(temp.c_str(), out.c_str()) != 0) {
    rc = Fail(out + ": cannot rename " + temp, kExitUsage);
  }
  if (rc != kExitOk) std::remove(temp.c_str());
  g_temp_path[0] = '\0';
  return rc;
}

}  // namespace

int RunSql(int argc, char** argv) {
  CLI::App app(
      "tk sql: every event of a trace into SQL tables (docs/sql-schema.md): an SQLite database\n"
      "(-o FILE), a query on an in-memory database (-e SQL), or one CSV / JSON Lines file per\n"
      "table (--format csv|jsonl -o DIR).",
      "tk sql");
  std::string path = "perf.data", out, query, format_name = "sqlite";
  bool json = false, no_index = false;
  ParseOptions popts;
  app.add_option("file", path, "Input file (default perf.data), - for stdin");
  app.add_option("-o,--output", out, "The database file (sqlite) or directory (csv, jsonl)");
  app.add_option("-e,--execute", query,
                 "Run these SQL statements on an in-memory database and print the rows as "
                 "`sqlite3 -header` does (\"|\" between columns)");
  app.add_option("--format", format_name, "sqlite (default), csv or jsonl")
      ->check(CLI::IsMember({"sqlite", "csv", "jsonl"}));
  app.add_flag("--json", json, "With -e: the rows as JSON Lines, one object per row");
  app.add_flag("--no-index", no_index,
               "Skip the ts and tid indices of the event tables (built after the load)");
  AddSymbolOptions(app, &popts);
  if (int rc = ParseArgs(app, argc, argv); rc >= 0) return rc;
  if (out.empty() == query.empty()) {
    return Fail("sql: give exactly one of -o OUTPUT and -e SQL", kExitUsage);
  }
  if (json && query.empty()) {
    return Fail("sql: --json applies to -e (with -o the files are the output)", kExitUsage);
  }
  if (!query.empty() && format_name != "sqlite") {
    return Fail("sql: --format applies to -o, not -e", kExitUsage);
  }

  if (format_name == "sqlite" && query.empty()) {
    return WriteDatabase(path, popts, out, !no_index);
  }

  sqlite3* db = nullptr;
  int rc = kExitOk;
  if (absl::Status st = analyses::sql::OpenDatabase(":memory:", &db); !st.ok()) {
    rc = Fail(SV(st.message()), kExitUsage);
  } else {
    // The CSV / JSON Lines files carry no indices; a query (-e) gets them.
    rc = Load(db, path, popts, !no_index && !query.empty());
  }
  if (rc == kExitOk) {
    absl::Status st;
    if (!query.empty()) {
      st = analyses::sql::PrintQuery(
          db, query, json ? analyses::sql::RowFormat::kJsonl : analyses::sql::RowFormat::kList,
          std::cout);
      rc = st.ok() ? FinishOutput(std::cout) : Fail(SV(st.message()), kExitUsage);
    } else {
      st = analyses::sql::ExportTables(db, out,
                                       format_name == "csv" ? analyses::sql::RowFormat::kCsv
                                                            : analyses::sql::RowFormat::kJsonl);
      if (!st.ok()) rc = Fail(SV(st.message()), kExitUsage);
    }
  }
  sqlite3_close(db);
  return rc;
}

}  // namespace tk::cli
