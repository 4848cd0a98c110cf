// The second error channel: malformed records are counted by name, the first of each kind is
// reported on stderr with its position, and a summary is printed at the end. Nothing is dropped
// silently. (The first channel is absl::Status, for what stops parsing.)
//
//   tk: perf.script: line 17: frame line outside an event: "   ffff  foo"
//   tk: perf.script: 3 malformed lines skipped (first at line 17)
#ifndef TK_CORE_DIAG_H_
#define TK_CORE_DIAG_H_

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace tk {

// "offset N: what" as an InvalidArgument status: the position of a binary parser's fatal
// error (the CLI prefixes the input's name).
absl::Status ErrorAt(uint64_t offset, std::string_view what);

class Diagnostics {
 public:
  enum class Unit { kLine, kOffset };

  // `input` is the name used in messages ("perf.data", "<stdin>"); `err` where to write
  // (std::cerr by default; tests pass a stringstream).
  explicit Diagnostics(std::string input, std::ostream* err = nullptr);

  // Counts one malformed record of kind `counter` ("malformed lines", "bad SAMPLE records")
  // at `where` (line number or byte offset); prints the first one of each counter. `n` > 1
  // counts that many at once (a parser that held back lines it could not place yet).
  void Malformed(std::string_view counter, Unit unit, uint64_t where, std::string_view what,
                 uint64_t n = 1);
  // Counts something noteworthy that is not an error (lost events, unordered timestamps); the
  // first occurrence of each is printed as "tk: INPUT: NOTE".
  void Note(std::string_view counter, std::string_view text, uint64_t n = 1);
  // Adds n to a note counter without printing anything (numbers for `tk info`).
  void Count(std::string_view counter, uint64_t n);

  uint64_t count(std::string_view counter) const;
  uint64_t total_malformed() const;
  const std::map<std::string, uint64_t, std::less<>>& notes() const { return notes_; }
  const std::string& input() const { return input_; }

  // Prints one summary line per counter seen more than once. Call once, at the end.
  void PrintSummary();

  // "tk: INPUT: offset N: what" — the one-line form of a fatal error.
  std::string ErrorAt(Unit unit, uint64_t where, std::string_view what) const;

 private:
  struct Counter {
    uint64_t n = 0;
    Unit unit = Unit::kLine;
    uint64_t first = 0;
  };
  std::string input_;
  std::ostream* err_;
  std::map<std::string, Counter, std::less<>> malformed_;
  std::map<std::string, uint64_t, std::less<>> notes_;
};

}  // namespace tk

#endif  // TK_CORE_DIAG_H_
