#include "analyses/sql/row_batch.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk::analyses::sql {
namespace {

std::string InsertSql(std::string_view table, int columns, int rows) {
  std::string row = "(?";
  for (int c = 1; c < columns; ++c) row += ",?";
  row += ")";
  std::string sql = absl::StrCat("INSERT INTO ", AV(table), " VALUES", row);
  for (int r = 1; r < rows; ++r) absl::StrAppend(&sql, ",", row);
  return sql;
}

}  // namespace

RowBatch::~RowBatch() {
  sqlite3_finalize(one_);
  sqlite3_finalize(many_);
}

absl::Status RowBatch::Prepare(sqlite3* db, std::string_view table, int columns) {
  db_ = db;
  table_ = std::string(table);
  columns_ = columns;
  values_.reserve(static_cast<size_t>(columns) * kRows);
  for (auto [rows, stmt] : {std::pair{1, &one_}, std::pair{kRows, &many_}}) {
    std::string sql = InsertSql(table, columns, rows);
    if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr) !=
        SQLITE_OK) {
      return absl::InternalError(
          absl::StrCat("sqlite: insert into ", AV(table), ": ", sqlite3_errmsg(db)));
    }
  }
  return absl::OkStatus();
}

void RowBatch::Text(std::string_view v) {
  values_.push_back({Value::kText, static_cast<int64_t>(arena_.size()),
                     static_cast<uint32_t>(v.size())});
  arena_.append(v);
}

// The arena does not change while a statement is bound and stepped (SQLITE_STATIC).
void RowBatch::Bind(sqlite3_stmt* s, int first, const Value* v, int n) {
  for (int i = 0; i < n; ++i) {
    switch (v[i].type) {
      case Value::kNull: sqlite3_bind_null(s, first + i); break;
      case Value::kInt: sqlite3_bind_int64(s, first + i, v[i].i); break;
      case Value::kText:
        sqlite3_bind_text(s, first + i, arena_.data() + v[i].i, static_cast<int>(v[i].len),
                          SQLITE_STATIC);
        break;
    }
  }
}

absl::Status RowBatch::Step(sqlite3_stmt* s) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    return absl::InternalError(
        absl::StrCat("sqlite: insert into ", table_, ": ", sqlite3_errmsg(db_)));
  }
  return absl::OkStatus();
}

absl::Status RowBatch::StepBatch() {
  Bind(many_, 1, values_.data(), static_cast<int>(values_.size()));
  absl::Status st = Step(many_);
  values_.clear();
  arena_.clear();
  return st;
}

absl::Status RowBatch::Flush() {
  absl::Status st;
  for (size_t at = 0; st.ok() && at + columns_ <= values_.size(); at += columns_) {
    Bind(one_, 1, values_.data() + at, columns_);
    st = Step(one_);
  }
  values_.clear();
  arena_.clear();
  return st;
}

}  // namespace tk::analyses::sql
