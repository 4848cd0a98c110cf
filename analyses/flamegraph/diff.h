// `tk diff`: difffolded.pl. Two folded profiles (before, after) become one differential
// profile, a "STACK COUNT1 COUNT2" line for every stack in either (0 where missing), which
// `tk flamegraph` draws with widths from COUNT2, red where a stack grew, blue where it shrank.
//   -n (normalize): COUNT1 = int(COUNT1 * total2 / total1), so both totals match;
//   -s (strip hex): every 0x[0-9a-fA-F]+ in a stack becomes "0x..." before counting.
// Lines are parsed as difffolded.pl does (its one-count regex, bytes as they are); the output
// lines are sorted bytewise (difffolded.pl prints in Perl hash order, which changes per run).
#ifndef TK_ANALYSES_FLAMEGRAPH_DIFF_H_
#define TK_ANALYSES_FLAMEGRAPH_DIFF_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace tk::analyses::flamegraph {

struct DiffOptions {
  bool normalize = false;
  bool strip_hex = false;
};

class FoldedDiff {
 public:
  explicit FoldedDiff(DiffOptions opt) : opt_(opt) {}
  // Adds one line of the before (side 0) or after (side 1) profile. False when malformed
  // (difffolded.pl counts such a line as an empty stack with count 0; tk skips it).
  bool AddLine(int side, std::string_view line);
  void AddText(int side, std::string_view text, uint64_t* malformed, uint64_t* first_malformed);
  // The differential lines, sorted.
  std::string Output() const;
  double total(int side) const { return total_[side]; }
  size_t stacks() const { return counts_.size(); }

 private:
  DiffOptions opt_;
  absl::flat_hash_map<std::string, std::pair<double, double>> counts_;
  double total_[2] = {0, 0};
};

// difffolded.pl's number output: integers in full, fractions as Perl prints them (%.15g).
void AppendCount(std::string* out, double v);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_DIFF_H_
