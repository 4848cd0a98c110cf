// Buffered multi-row INSERTs for tk sql's bulk load, optionally on a thread of their own.
//
// One `INSERT INTO t VALUES(?,..),(?,..),...` statement of kStmtRows rows costs about what a
// one-row statement does in SQLite's VM set-up (transaction check, cursor open and seek, halt),
// so a batch of 64 rows per step spends that once per 64 rows (the load went from ~1.1 µs to
// ~0.4 µs per row).
//
// A RowWriter buffers one table's rows as values (text copied into the block's arena, so
// callers' views need not outlive the call) in a RowBlock of kBlockRows rows; a full block goes
// to the RowLoader, which inserts it, 64 rows per step of the prepared multi-row statement and
// the remainder of a partial (last) block one row at a time. With a thread (Start(.., true))
// the loader hands the blocks through a BatchPipe to a thread that owns the connection until
// Finish, so the parse and the analyses that fill the rows run beside SQLite's inserts; blocks
// are inserted in the order they were shipped, so every table's rows reach it in the order
// they were written, with or without the thread.
#ifndef TK_ANALYSES_SQL_ROW_BATCH_H_
#define TK_ANALYSES_SQL_ROW_BATCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "core/batch_pipe.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tk::analyses::sql {

// A table of the load: its name and number of columns.
struct TableDef {
  const char* name;
  int columns;
};

// Rows of one table, values in column order.
struct RowBlock {
  struct Value {
    enum Type : uint8_t { kNull, kInt, kText } type;
    uint32_t len;  // kText: length
    int64_t i;     // kInt: the value; kText: offset in arena
  };
  int table = 0;
  int rows = 0;
  std::vector<Value> values;  // sized for RowWriter::kBlockRows rows; the first `used` are set
  size_t used = 0;
  std::string arena;
  void Clear() {
    rows = 0;
    used = 0;
    arena.clear();
  }
};

class RowLoader;

// Buffers the rows of one table for its loader.
class RowWriter {
 public:
  static constexpr int kBlockRows = 1024;  // a multiple of the 64 rows per statement

  // The next column of the current row, in column order.
  void Int(int64_t v) { block_->values[block_->used++] = {RowBlock::Value::kInt, 0, v}; }
  void Null() { block_->values[block_->used++] = {RowBlock::Value::kNull, 0, 0}; }
  // Negative values are "unknown" in the event model: NULL.
  void Opt(int64_t v) {
    if (v < 0) {
      Null();
    } else {
      Int(v);
    }
  }
  void Text(std::string_view v) {
    block_->values[block_->used++] = {RowBlock::Value::kText, static_cast<uint32_t>(v.size()),
                                      static_cast<int64_t>(block_->arena.size())};
    block_->arena.append(v);
  }
  // Ends the current row (exactly the table's number of columns); ships a full block.
  absl::Status EndRow() {
    if (++block_->rows < kBlockRows) return absl::OkStatus();
    return Ship();
  }

 private:
  friend class RowLoader;
  absl::Status Ship();

  RowLoader* loader_ = nullptr;
  std::unique_ptr<RowBlock> block_;
};

class RowLoader {
 public:
  RowLoader() = default;
  RowLoader(const RowLoader&) = delete;
  RowLoader& operator=(const RowLoader&) = delete;
  ~RowLoader();  // joins the thread (after Finish it has ended)

  // Prepares the inserts into `tables` (the writers' table numbers are indices into it) and,
  // with `thread`, starts the inserting thread: `db` is then not to be used until Finish.
  absl::Status Start(sqlite3* db, std::vector<TableDef> tables, bool thread);
  RowWriter& table(int t) { return writers_[t]; }

  // Inserts every buffered row and ends the thread; `db` is the caller's again. Returns the
  // first insert error.
  absl::Status Finish();
  // The CPU time the inserting thread used (0 without one), once Finish returned.
  double thread_cpu_s() const { return thread_cpu_s_; }

 private:
  friend class RowWriter;
  struct Stmts {
    sqlite3_stmt* one = nullptr;
    sqlite3_stmt* many = nullptr;
  };
  absl::Status Ship(std::unique_ptr<RowBlock>* block);
  absl::Status Insert(const RowBlock& b);
  void Size(RowBlock* b) const;
  absl::Status Step(sqlite3_stmt* s, int table);
  void Work();

  sqlite3* db_ = nullptr;
  std::vector<TableDef> tables_;
  std::vector<Stmts> stmts_;
  std::vector<RowWriter> writers_;
  // The thread's side: blocks in, their insert status (read after Put fails or the join).
  BatchPipe<RowBlock> pipe_{8};
  std::thread thread_;
  absl::Status status_;
  double thread_cpu_s_ = 0;
};

}  // namespace tk::analyses::sql

#endif  // TK_ANALYSES_SQL_ROW_BATCH_H_
