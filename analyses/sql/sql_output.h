// Results and tables of a tk sql database as text: query results as `sqlite3 -header` prints
// them (list mode: "|" between columns, NULL as nothing, REAL as "%!.15g"), or JSON Lines, and
// every table as CSV (RFC 4180 quoting, header row) or JSON Lines files.
#ifndef TK_ANALYSES_SQL_SQL_OUTPUT_H_
#define TK_ANALYSES_SQL_SQL_OUTPUT_H_

#include <iosfwd>
#include <string>

#include "absl/status/status.h"

struct sqlite3;

namespace tk::analyses::sql {

enum class RowFormat { kList, kCsv, kJsonl };

// Runs every statement of `sql` and writes the rows of each (list: with a header line).
absl::Status PrintQuery(sqlite3* db, const std::string& sql, RowFormat format,
                        std::ostream& out);

// Writes DIR/TABLE.csv or DIR/TABLE.jsonl for every table (not the views; DIR is created if
// missing).
absl::Status ExportTables(sqlite3* db, const std::string& dir, RowFormat format);

}  // namespace tk::analyses::sql

#endif  // TK_ANALYSES_SQL_SQL_OUTPUT_H_
