// `tk merge`: the exact sum of folded-stack files ("root;...;leaf COUNT" lines, as tk fold and
// stackcollapse-*.pl print them), written sorted bytewise as tk fold writes them.
//
// Algorithm: every input is mapped (stdin is spooled to an unlinked file by Input), then read
// once to count its lines and total and to check that it is sorted. A sorted input (tk fold's
// output always is) is then read a second time, line by line, by a k-way merge over a heap
// keyed on the stack: memory is O(number of inputs), whatever the sizes, and output is written
// as the merge proceeds. An unsorted input instead has its (stack view, count) pairs collected
// and sorted first (24 bytes per line; the stack text stays in the mapping).
//
// The output depends only on the multiset of (stack, count) lines read, never on the order of
// the inputs. --normalize is the exception: it scales every input to the FIRST input's total.
#ifndef TK_ANALYSES_MERGE_FOLDED_MERGE_H_
#define TK_ANALYSES_MERGE_FOLDED_MERGE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/diag.h"
#include "core/input.h"

namespace tk::analyses::merge {

// Splits "STACK COUNT" at the last space. False (malformed) when there is no space, the stack
// is empty, or COUNT is not a decimal integer that fits in 64 bits (flamegraph.pl's fractional
// counts are not summed exactly, so they are rejected).
bool ParseFoldedLine(std::string_view line, std::string_view* stack, uint64_t* count);

struct FoldedInputStats {
  std::string name;
  uint64_t lines = 0;      // well-formed lines
  uint64_t malformed = 0;  // lines skipped (counted as "malformed lines" in its Diagnostics)
  uint64_t total = 0;      // sum of the well-formed lines' counts
  bool sorted = true;      // bytewise non-decreasing stacks: merged without sorting
};

class FoldedMerge {
 public:
  // normalize: scale each input's per-stack sum to the first input's total, as
  // difffolded.pl -n scales its first file to the second's: count * total_first / total_this,
  // truncated (Perl's int()). Inputs with a total of 0 contribute nothing.
  explicit FoldedMerge(bool normalize);
  ~FoldedMerge();

  // Reads `in` once (mapping it first), counting malformed lines in `diag` (the first one is
  // reported with its line number). The input is kept until Run.
  absl::Status Add(std::unique_ptr<Input> in, Diagnostics& diag);

  // Calls emit(stack, sum) once per distinct stack, in bytewise order of the stacks. Fails
  // only when a sum overflows 64 bits.
  absl::Status Run(const std::function<void(std::string_view, uint64_t)>& emit);

  const std::vector<FoldedInputStats>& stats() const { return stats_; }

 private:
  struct Source;
  bool normalize_;
  std::vector<std::unique_ptr<Source>> sources_;
  std::vector<FoldedInputStats> stats_;
};

}  // namespace tk::analyses::merge

#endif  // TK_ANALYSES_MERGE_FOLDED_MERGE_H_
