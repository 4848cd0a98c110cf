#include "analyses/merge/folded_merge.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <queue>

#include "absl/strings/str_cat.h"
#include "core/absl_compat.h"

namespace tk::analyses::merge {

bool ParseFoldedLine(std::string_view line, std::string_view* stack, uint64_t* count) {
  size_t sp = line.rfind(' ');
  if (sp == std::string_view::npos || sp == 0) return false;
  std::string_view num = line.substr(sp + 1);
  if (num.empty()) return false;
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), *count);
  if (ec != std::errc() || end != num.data() + num.size()) return false;
  *stack = line.substr(0, sp);
  return true;
}

namespace {

// Lines of a mapped text: without "\n" and a trailing "\r"; a last line without "\n" too.
class Lines {
 public:
  explicit Lines(std::string_view text) : rest_(text) {}
  bool Next(std::string_view* line) {
    if (rest_.empty()) return false;
    const char* nl = static_cast<const char*>(std::memchr(rest_.data(), '\n', rest_.size()));
    size_t len = nl ? static_cast<size_t>(nl - rest_.data()) : rest_.size();
    *line = rest_.substr(0, len);
    rest_.remove_prefix(nl ? len + 1 : len);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    ++line_no_;
    return true;
  }
  uint64_t line_no() const { return line_no_; }

 private:
  std::string_view rest_;
  uint64_t line_no_ = 0;
};

absl::Status Overflow(std::string_view stack) {
  return absl::InvalidArgumentError(
      absl::StrCat("sum of stack overflows 64 bits: ", AV(stack.substr(0, 80))));
}

struct Entry {
  std::string_view stack;
  uint64_t count;
};

}  // namespace

// One input during the merge: the next well-formed line, from the mapped text (sorted input)
// or from the sorted entries (unsorted input).
struct FoldedMerge::Source {
  std::unique_ptr<Input> in;
  std::string_view text;
  Lines lines{std::string_view()};
  bool from_entries = false;   // unsorted input: read `entries`, not the text
  std::vector<Entry> entries;
  size_t next_entry = 0;
  uint64_t total = 0;
  Entry head{};

  bool Advance() {
    if (from_entries) {
      if (next_entry == entries.size()) return false;
      head = entries[next_entry++];
      return true;
    }
    std::string_view line;
    while (lines.Next(&line)) {
      if (ParseFoldedLine(line, &head.stack, &head.count)) return true;
    }
    return false;
  }
};

FoldedMerge::FoldedMerge(bool normalize) : normalize_(normalize) {}
FoldedMerge::~FoldedMerge() = default;

absl::Status FoldedMerge::Add(std::unique_ptr<Input> in, Diagnostics& diag) {
  if (absl::Status st = in->EnsureMapped(); !st.ok()) return st;
  auto src = std::make_unique<Source>();
  src->text = in->mapped().value_or(std::string_view());
  FoldedInputStats stats;
  stats.name = in->name();
  Lines lines(src->text);
  std::string_view line, stack, prev;
  uint64_t count = 0;
  while (lines.Next(&line)) {
    if (!ParseFoldedLine(line, &stack, &count)) {
      ++stats.malformed;
      diag.Malformed(Stat::kMalformedLines, Diagnostics::Unit::kLine, lines.line_no(),
                     absl::StrCat("not \"STACK COUNT\": \"", AV(line.substr(0, 80)), "\""));
      continue;
    }
    if (stats.lines > 0 && stack < prev) stats.sorted = false;
    prev = stack;
    ++stats.lines;
    if (__builtin_add_overflow(stats.total, count, &stats.total)) {
      return absl::InvalidArgumentError(
          diag.ErrorAt(Diagnostics::Unit::kLine, lines.line_no(), "total overflows 64 bits"));
    }
  }
  if (!stats.sorted) {
    src->from_entries = true;
    src->entries.reserve(stats.lines);
    Lines again(src->text);
    while (again.Next(&line)) {
      if (ParseFoldedLine(line, &stack, &count)) src->entries.push_back({stack, count});
    }
    std::stable_sort(src->entries.begin(), src->entries.end(),
                     [](const Entry& a, const Entry& b) { return a.stack < b.stack; });
  }
  src->lines = Lines(src->text);
  src->total = stats.total;
  src->in = std::move(in);
  sources_.push_back(std::move(src));
  stats_.push_back(std::move(stats));
  return absl::OkStatus();
}

absl::Status FoldedMerge::Run(const std::function<void(std::string_view, uint64_t)>& emit) {
  // Min-heap of sources by their head stack; ties by index (sums commute, so only for a
  // deterministic heap).
  auto greater = [this](size_t a, size_t b) {
    int c = sources_[a]->head.stack.compare(sources_[b]->head.stack);
    return c != 0 ? c > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i]->Advance()) heap.push(i);
  }
  const uint64_t reference = sources_.empty() ? 0 : sources_[0]->total;
  while (!heap.empty()) {
    // The stack's text is owned by the mapping of the source it came from, which outlives
    // this loop, so the view stays valid while that source advances.
    std::string_view stack = sources_[heap.top()]->head.stack;
    uint64_t sum = 0;
    while (!heap.empty() && sources_[heap.top()]->head.stack == stack) {
      size_t i = heap.top();
      heap.pop();
      Source& s = *sources_[i];
      uint64_t in_source = 0;  // this stack's sum within input i
      bool more;
      do {
        if (__builtin_add_overflow(in_source, s.head.count, &in_source)) return Overflow(stack);
        more = s.Advance();
      } while (more && s.head.stack == stack);
      if (normalize_ && i > 0) {
        in_source = s.total == 0 ? 0
                                 : static_cast<uint64_t>(static_cast<unsigned __int128>(in_source) *
                                                         reference / s.total);
      }
      if (__builtin_add_overflow(sum, in_source, &sum)) return Overflow(stack);
      if (more) heap.push(i);
    }
    emit(stack, sum);
  }
  return absl::OkStatus();
}

}  // namespace tk::analyses::merge
