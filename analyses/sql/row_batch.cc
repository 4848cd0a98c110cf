#include "analyses/sql/row_batch.h"

#include <sqlite3.h>
#include <time.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace tk::analyses::sql {
namespace {

constexpr int kStmtRows = 64;  // rows per step of the multi-row statement
static_assert(RowWriter::kBlockRows % kStmtRows == 0);

std::string InsertSql(const char* table, int columns, int rows) {
  std::string row = "(?";
  for (int c = 1; c < columns; ++c) row += ",?";
  row += ")";
  std::string sql = absl::StrCat("INSERT INTO ", table, " VALUES", row);
  for (int r = 1; r < rows; ++r) absl::StrAppend(&sql, ",", row);
  return sql;
}

// Binds `n` values from `v` to parameters first.. of `s`. The arena does not change while a
// statement is bound and stepped (SQLITE_STATIC).
void Bind(sqlite3_stmt* s, int first, const RowBlock& b, const RowBlock::Value* v, int n) {
  for (int i = 0; i < n; ++i) {
    switch (v[i].type) {
      case RowBlock::Value::kNull: sqlite3_bind_null(s, first + i); break;
      case RowBlock::Value::kInt: sqlite3_bind_int64(s, first + i, v[i].i); break;
      case RowBlock::Value::kText:
        sqlite3_bind_text(s, first + i, b.arena.data() + v[i].i, static_cast<int>(v[i].len),
                          SQLITE_STATIC);
        break;
    }
  }
}

}  // namespace

absl::Status RowWriter::Ship() { return loader_->Ship(&block_); }

RowLoader::~RowLoader() {
  if (thread_.joinable()) {
    pipe_.Cancel();
    thread_.join();
  }
  for (Stmts& s : stmts_) {
    sqlite3_finalize(s.one);
    sqlite3_finalize(s.many);
  }
}

absl::Status RowLoader::Start(sqlite3* db, std::vector<TableDef> tables, bool thread) {
  db_ = db;
  tables_ = std::move(tables);
  stmts_.resize(tables_.size());
  writers_.resize(tables_.size());
  for (size_t t = 0; t < tables_.size(); ++t) {
    for (auto [rows, stmt] : {std::pair{1, &stmts_[t].one}, std::pair{kStmtRows, &stmts_[t].many}}) {
      std::string sql = InsertSql(tables_[t].name, tables_[t].columns, rows);
      if (sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr) !=
          SQLITE_OK) {
        return absl::InternalError(
            absl::StrCat("sqlite: insert into ", tables_[t].name, ": ", sqlite3_errmsg(db)));
      }
    }
    RowWriter& w = writers_[t];
    w.loader_ = this;
    w.block_ = std::make_unique<RowBlock>();
    w.block_->table = static_cast<int>(t);
    Size(w.block_.get());
  }
  // The connection is configured single-threaded (no mutexes): from here to Finish only the
  // thread uses it, and the pipe's mutex orders its use before and after.
  if (thread) thread_ = std::thread([this] { Work(); });
  return absl::OkStatus();
}

void RowLoader::Work() {
  while (std::unique_ptr<RowBlock> b = pipe_.Take()) {
    status_ = Insert(*b);
    if (!status_.ok()) {
      pipe_.Cancel();
      break;
    }
    pipe_.Done(std::move(b));
  }
  timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) thread_cpu_s_ = t.tv_sec + t.tv_nsec * 1e-9;
}

absl::Status RowLoader::Ship(std::unique_ptr<RowBlock>* block) {
  if (!thread_.joinable()) {
    absl::Status st = Insert(**block);
    (*block)->Clear();
    return st;
  }
  const int table = (*block)->table;
  if (!pipe_.Put(std::move(*block))) {
    thread_.join();  // cancelled: the thread has stopped, status_ says why
    return status_;
  }
  *block = pipe_.Get();
  (*block)->Clear();
  (*block)->table = table;
  Size(block->get());
  return absl::OkStatus();
}

// Sizes the block for a full block of its table (recycled blocks hold some table's rows).
void RowLoader::Size(RowBlock* b) const {
  size_t n = static_cast<size_t>(tables_[b->table].columns) * RowWriter::kBlockRows;
  if (b->values.size() < n) b->values.resize(n);
}

absl::Status RowLoader::Step(sqlite3_stmt* s, int table) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    return absl::InternalError(
        absl::StrCat("sqlite: insert into ", tables_[table].name, ": ", sqlite3_errmsg(db_)));
  }
  return absl::OkStatus();
}

absl::Status RowLoader::Insert(const RowBlock& b) {
  const int columns = tables_[b.table].columns;
  const Stmts& s = stmts_[b.table];
  int row = 0;
  for (; row + kStmtRows <= b.rows; row += kStmtRows) {
    Bind(s.many, 1, b, b.values.data() + static_cast<size_t>(row) * columns, columns * kStmtRows);
    if (absl::Status st = Step(s.many, b.table); !st.ok()) return st;
  }
  for (; row < b.rows; ++row) {
    Bind(s.one, 1, b, b.values.data() + static_cast<size_t>(row) * columns, columns);
    if (absl::Status st = Step(s.one, b.table); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status RowLoader::Finish() {
  absl::Status st;
  for (RowWriter& w : writers_) {
    if (st.ok() && w.block_ && w.block_->rows > 0) st = Ship(&w.block_);
  }
  if (thread_.joinable()) {
    pipe_.Close();
    thread_.join();
    if (st.ok()) st = status_;
  }
  return st;
}

}  // namespace tk::analyses::sql
