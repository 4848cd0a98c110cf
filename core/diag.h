// The second error channel: malformed records are counted under a declared counter
// (core/stats.h), the first of each is reported on stderr with its position, and a summary is
// printed at the end. Nothing is dropped silently. (The first channel is absl::Status, for
// what stops parsing.)
//
//   tk: perf.script: line 17: frame line outside an event: "   ffff  foo"
//   tk: perf.script: 3 malformed lines skipped (first at line 17)
#ifndef TK_CORE_DIAG_H_
#define TK_CORE_DIAG_H_

#include <array>
#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/stats.h"

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

  // Counts one malformed record under `id` (a kError counter) at `where` (line number or byte
  // offset); prints the first one of each counter. `n` > 1 counts that many at once (a parser
  // that held back lines it could not place yet).
  void Malformed(Stat id, Unit unit, uint64_t where, std::string_view what, uint64_t n = 1);
  // Counts n of something noteworthy that is not a malformed record (lost events, unordered
  // timestamps); the first occurrence of each counter is printed as "tk: INPUT: TEXT".
  void Note(Stat id, std::string_view text, uint64_t n = 1);
  // As Note, but prints the first occurrence of each distinct `key` (one line per CPU, per
  // header warning, per symbol problem).
  void NoteEach(Stat id, std::string_view key, std::string_view text, uint64_t n = 1);
  // Adds n to a counter without printing anything (numbers for `tk info`).
  void Count(Stat id, uint64_t n);

  // Keeps every NoteEach call from now on (note_log()): a part of a split parse hands its
  // per-key notes (symbol problems) to the whole parse's Diagnostics.
  struct NoteEachCall {
    Stat id;
    std::string key, text;
    uint64_t n;
  };
  void KeepNoteLog() { keep_note_log_ = true; }
  const std::vector<NoteEachCall>& note_log() const { return note_log_; }

  uint64_t count(Stat id) const { return counts_[static_cast<int>(id)]; }
  uint64_t total_malformed() const;
  // The non-error counters that fired, in the order they first did.
  const std::vector<Stat>& notes() const { return notes_; }
  const std::string& input() const { return input_; }

  // Prints one summary line per malformed-record counter seen more than once. Call once, at
  // the end.
  void PrintSummary();

  // "tk: INPUT: offset N: what" — the one-line form of a fatal error.
  std::string ErrorAt(Unit unit, uint64_t where, std::string_view what) const;

 private:
  struct First {
    Unit unit = Unit::kLine;
    uint64_t where = 0;
  };
  std::string input_;
  std::ostream* err_;
  std::array<uint64_t, kNumStats> counts_{};
  std::array<bool, kNumStats> seen_{};
  std::array<First, kNumStats> first_{};
  std::vector<Stat> notes_;
  std::set<std::pair<Stat, std::string>, std::less<>> keys_;
  bool keep_note_log_ = false;
  std::vector<NoteEachCall> note_log_;
};

}  // namespace tk

#endif  // TK_CORE_DIAG_H_
