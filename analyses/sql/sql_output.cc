#include "analyses/sql/sql_output.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <ostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace tk::analyses::sql {
namespace {

std::string_view Text(sqlite3_stmt* s, int i) {
  const unsigned char* p = sqlite3_column_text(s, i);
  return p ? std::string_view(reinterpret_cast<const char*>(p),
                              static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string_view();
}

void WriteCsvField(std::string_view v, std::string* out) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(v);
    return;
  }
  out->push_back('"');
  for (char c : v) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

nlohmann::json JsonValue(sqlite3_stmt* s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(s, i);
    case SQLITE_FLOAT: return sqlite3_column_double(s, i);
    case SQLITE_NULL: return nullptr;
    default: return std::string(Text(s, i));
  }
}

// Writes the rows of one prepared statement (header first for list and CSV).
absl::Status WriteRows(sqlite3* db, sqlite3_stmt* s, RowFormat format, std::ostream& out) {
  const int n = sqlite3_column_count(s);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.emplace_back(sqlite3_column_name(s, i));
  const char* sep = format == RowFormat::kList ? "|" : ",";
  std::string line;
  if (format != RowFormat::kJsonl && n > 0) {
    for (int i = 0; i < n; ++i) {
      if (i) line += sep;
      if (format == RowFormat::kCsv) {
        WriteCsvField(names[i], &line);
      } else {
        line += names[i];
      }
    }
    out << line << "\n";
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    line.clear();
    if (format == RowFormat::kJsonl) {
      nlohmann::ordered_json row = nlohmann::ordered_json::object();
      for (int i = 0; i < n; ++i) row[names[i]] = JsonValue(s, i);
      line = row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else {
      for (int i = 0; i < n; ++i) {
        if (i) line += sep;
        if (format == RowFormat::kCsv) {
          WriteCsvField(Text(s, i), &line);
        } else {
          line += Text(s, i);
        }
      }
    }
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
  if (rc != SQLITE_DONE) return absl::InvalidArgumentError(absl::StrCat("sql: ", sqlite3_errmsg(db)));
  return absl::OkStatus();
}

}  // namespace

absl::Status PrintQuery(sqlite3* db, const std::string& sql, RowFormat format,
                        std::ostream& out) {
  const char* rest = sql.c_str();
  while (*rest) {
    sqlite3_stmt* s = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db, rest, -1, &s, &tail) != SQLITE_OK) {
      return absl::InvalidArgumentError(absl::StrCat("sql: ", sqlite3_errmsg(db)));
    }
    rest = tail;
    if (!s) continue;  // whitespace or a comment
    absl::Status st = WriteRows(db, s, format, out);
    sqlite3_finalize(s);
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ExportTables(sqlite3* db, const std::string& dir, RowFormat format) {
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::UnavailableError(absl::StrCat(dir, ": ", std::strerror(errno)));
  }
  std::vector<std::string> tables;
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type='table' ORDER BY rowid", -1,
                     &s, nullptr);
  while (sqlite3_step(s) == SQLITE_ROW) tables.emplace_back(Text(s, 0));
  sqlite3_finalize(s);
  const char* ext = format == RowFormat::kCsv ? ".csv" : ".jsonl";
  for (const std::string& t : tables) {
    std::string path = absl::StrCat(dir, "/", t, ext);
    std::ofstream out(path, std::ios::binary);
    if (!out) return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
    // A full scan: rowid order, or primary key order for a WITHOUT ROWID table.
    absl::Status st = PrintQuery(db, absl::StrCat("SELECT * FROM ", t), format, out);
    if (!st.ok()) return st;
    out.close();
    if (out.fail()) return absl::UnavailableError(absl::StrCat(path, ": write error"));
  }
  return absl::OkStatus();
}

}  // namespace tk::analyses::sql
