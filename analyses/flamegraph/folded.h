// Folded stacks as flamegraph.pl reads them: one "STACK COUNT" or "STACK COUNT1 COUNT2"
// (differential) line per stack, frames root first, separated by ';'.
//
//   java;start_thread;JavaMain;LBusy:::main 31
//   java;start_thread;JavaMain;LBusy:::main 20 31        (before 20, after 31)
//
// A line is parsed as flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/: the count is what follows
// the last whitespace character (Perl's Unicode \s) and must be digits with at most one
// decimal point; the stack is everything before that character, so it may contain spaces and
// even end in one. The same match on the stack part finds the first count of a differential
// line. flamegraph.pl then sorts the whole lines bytewise (counts included) and merges each
// stack with the previous one (see layout.h); FoldedProfile keeps the stacks in a FrameTree
// and replays them in exactly that order without holding the lines, so memory grows with the
// distinct stacks, not with the input.
#ifndef TK_ANALYSES_FLAMEGRAPH_FOLDED_H_
#define TK_ANALYSES_FLAMEGRAPH_FOLDED_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/flamegraph/frame_tree.h"

namespace tk::analyses::flamegraph {

struct FoldedLine {
  std::string_view stack;    // frames joined by ';', as written
  std::string_view tail;     // the rest of the line: the separator and the count(s)
  std::string_view c1_text;  // the first count as written
  std::string_view c2_text;  // the second count (differential lines), else empty
  double c1 = 0;
  double c2 = 0;
  bool two = false;  // a differential line
};

// Splits "HEAD COUNT" as /^(.*)\s+?(\d+(?:\.\d*)?)$/ does: COUNT follows the last
// whitespace character (Perl's Unicode \s when `unicode`, else ASCII only).
bool SplitLastCount(std::string_view s, bool unicode, std::string_view* head,
                    std::string_view* count, double* value);

// Parses one line (without its newline). False when it is not a folded line.
bool ParseFoldedLine(std::string_view line, FoldedLine* out);

// One distinct line (or, in input order, one line) below its leaf frame.
struct Tail {
  uint32_t leaf;       // FrameTree node of the last frame as written (trailing empty frames
                       // included: "a;b;" ends in an empty frame below b)
  uint32_t mult;       // how many identical lines
  std::string_view text;
  double c1, c2;
  bool two;
  uint32_t next = FrameTree::kNone;  // the leaf's next line (sorted mode)
};

struct ReadStats {
  uint64_t lines = 0;
  uint64_t malformed = 0;
  uint64_t repaired = 0;  // lines with invalid UTF-8 (kept, with U+FFFD)
  uint64_t first_repaired = 0;  // line number, 0: none yet
};

class FoldedProfile {
 public:
  // `reverse`: flamegraph.pl --reverse (each stack reversed, leaf first). `input_order`:
  // --flamechart (lines replayed in input order, not sorted).
  FoldedProfile(bool reverse, bool input_order);

  // Adds one line (without "\n"); `line_no` is for the statistics. False when malformed.
  bool AddLine(std::string_view line, uint64_t line_no);
  // Adds every line of `text` ("\n"-separated, a "\r" before it dropped), numbering them from
  // `first_line`; `malformed` (optional) is called with each line that is not a folded line.
  // Returns the number of lines.
  uint64_t AddText(std::string_view text, uint64_t first_line = 1,
                   const std::function<void(uint64_t, std::string_view)>& malformed = nullptr);

  // Calls fn(tail) for every line in flamegraph.pl's order: sorted bytewise as whole lines
  // (or input order), identical lines once with their multiplicity.
  void ForEachLine(const std::function<void(const Tail&)>& fn) const;

  const FrameTree& tree() const { return tree_; }
  FrameTree& tree() { return tree_; }
  const ReadStats& stats() const { return stats_; }
  // Forgets where the first repaired line was (a next input file numbers its own lines).
  void ClearFirstRepaired() { stats_.first_repaired = 0; }
  // The sum of all counts (second counts of differential lines), summed in input order: the
  // layout's total up to rounding of fractional counts.
  double estimated_total() const { return estimated_total_; }

 private:
  void AddParsed(const FoldedLine& line);
  uint32_t Intern(std::string_view stack);
  void ReplaySorted(const std::function<void(const Tail&)>& fn) const;

  bool reverse_;
  bool input_order_;
  FrameTree tree_;
  std::vector<Tail> tails_;
  std::vector<uint32_t> prev_path_;  // the previous line's frames (a sorted input repeats them)
  std::string scratch_;
  ReadStats stats_;
  double estimated_total_ = 0;
};

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_FOLDED_H_
