#include "analyses/flamegraph/diff.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyses/flamegraph/folded.h"
#include "analyses/flamegraph/text.h"

namespace tk::analyses::flamegraph {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// s/0x[0-9a-fA-F]+/0x.../g
std::string StripHex(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '0' && i + 2 < s.size() && s[i + 1] == 'x' && IsHex(s[i + 2])) {
      out.append("0x...");
      i += 2;
      while (i < s.size() && IsHex(s[i])) ++i;
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

}  // namespace

void AppendCount(std::string* out, double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.2e18) {
    absl::StrAppend(out, static_cast<int64_t>(v));
  } else {
    AppendPerlNumber(out, v);
  }
}

bool FoldedDiff::AddLine(int side, std::string_view line) {
  std::string_view stack, count;
  double v;
  if (!SplitLastCount(line, false, &stack, &count, &v)) return false;
  std::string key = opt_.strip_hex ? StripHex(stack) : std::string(stack);
  auto& c = counts_[key];
  (side == 0 ? c.first : c.second) += v;
  total_[side] += v;
  return true;
}

void FoldedDiff::AddText(int side, std::string_view text, uint64_t* malformed,
                         uint64_t* first_malformed) {
  uint64_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!AddLine(side, line) && (*malformed)++ == 0) *first_malformed = line_no;
  }
}

std::string FoldedDiff::Output() const {
  bool scale = opt_.normalize && total_[0] != total_[1] && total_[0] != 0;
  std::vector<std::string> lines;
  lines.reserve(counts_.size());
  for (const auto& [stack, c] : counts_) {
    double c1 = scale ? std::trunc(c.first * total_[1] / total_[0]) : c.first;
    std::string line = stack;
    line.push_back(' ');
    AppendCount(&line, c1);
    line.push_back(' ');
    AppendCount(&line, c.second);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());  // whole lines, bytewise (as LC_ALL=C sort)
  std::string out;
  for (const std::string& l : lines) out.append(l).push_back('\n');
  return out;
}

}  // namespace tk::analyses::flamegraph
