// RowLoader (analyses/sql/row_batch.h) on one thread and on its own: every row reaches its
// table in the order written, whole 64-row statements and the partial rest alike, and an
// insert error comes back from EndRow or Finish, with the thread stopped.
#include <sqlite3.h>

#include <string>

#include "analyses/sql/row_batch.h"
#include "analyses/sql/sql_schema.h"
#include "gtest/gtest.h"

namespace tk::analyses::sql {
namespace {

std::string Query(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  std::string out;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (sqlite3_step(s) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(s, 0);
    out += t ? reinterpret_cast<const char*>(t) : "NULL";
    out += "\n";
  }
  sqlite3_finalize(s);
  return out;
}

class RowLoaderTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(OpenDatabase(":memory:", &db_).ok());
    ASSERT_TRUE(Exec(db_, "CREATE TABLE a(k INTEGER PRIMARY KEY, v TEXT, n INTEGER);"
                          "CREATE TABLE b(x INTEGER)").ok());
  }
  void TearDown() override { sqlite3_close(db_); }
  sqlite3* db_ = nullptr;
};

TEST_P(RowLoaderTest, RowsInOrder) {
  constexpr int kRows = 3 * RowWriter::kBlockRows + 100;  // full blocks and a partial one
  {
    RowLoader loader;
    ASSERT_TRUE(loader.Start(db_, {{"a", 3}, {"b", 1}}, GetParam()).ok());
    for (int i = 1; i <= kRows; ++i) {
      RowWriter& a = loader.table(0);
      a.Int(i);
      a.Text("v" + std::to_string(i));
      a.Opt(i % 3 == 0 ? -1 : i);
      ASSERT_TRUE(a.EndRow().ok());
      if (i % 7 == 0) {
        loader.table(1).Int(i);
        ASSERT_TRUE(loader.table(1).EndRow().ok());
      }
    }
    ASSERT_TRUE(loader.Finish().ok());
  }
  EXPECT_EQ(Query(db_, "SELECT count(*) || ' ' || sum(k = rowid) || ' ' || count(n) FROM a"),
            std::to_string(kRows) + " " + std::to_string(kRows) + " " +
                std::to_string(kRows - kRows / 3) + "\n");
  EXPECT_EQ(Query(db_, "SELECT v FROM a WHERE k IN (1, 2048, 3172) ORDER BY rowid"),
            "v1\nv2048\nv3172\n");
  EXPECT_EQ(Query(db_, "SELECT count(*) || ' ' || sum(x = rowid * 7) FROM b"),
            std::to_string(kRows / 7) + " " + std::to_string(kRows / 7) + "\n");
}

TEST_P(RowLoaderTest, InsertErrorsComeBack) {
  RowLoader loader;
  ASSERT_TRUE(loader.Start(db_, {{"a", 3}, {"b", 1}}, GetParam()).ok());
  absl::Status st;
  for (int i = 0; i < 4 * RowWriter::kBlockRows && st.ok(); ++i) {
    RowWriter& a = loader.table(0);
    a.Int(i % 1500);  // a duplicate key from the 1501st row on
    a.Text("x");
    a.Null();
    st = a.EndRow();
  }
  if (st.ok()) st = loader.Finish();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("insert into a"), std::string::npos) << st;
}

INSTANTIATE_TEST_SUITE_P(Threads, RowLoaderTest, ::testing::Values(false, true),
                         [](const auto& i) { return i.param ? "Thread" : "Inline"; });

}  // namespace
}  // namespace tk::analyses::sql
