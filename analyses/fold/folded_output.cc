// The folded stacks' order and output (fold.h): the bytewise sort of the folded lines,
// their text ("line COUNT") and their JSON.
#include <algorithm>
#include <functional>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyses/fold/fold.h"

namespace tk::analyses::fold {

namespace {

// The 8 bytes of a line at `d` (zero-padded past its end) as one big-endian number, and how
// many of them are the line's (8, or fewer at its end): ordering (word, len) orders the
// lines' bytes from `d` on by their first 8, the shorter first when one ends inside them.
// `item` is what the line belongs to (a map entry, a FoldedLine), `Str` its line.
template <typename T>
struct Keyed {
  uint64_t word;
  uint32_t len;
  const T* item;
};

template <typename T, typename Str>
inline void KeyAt(size_t d, Keyed<T>* k, Str str) {
  const std::string_view s = str(*k->item);
  const size_t rem = s.size() - d;  // (d <= size: d grows only past full words)
  uint64_t w = 0;
  if (rem >= 8) {
    std::memcpy(&w, s.data() + d, 8);
    k->len = 8;
  } else {
    std::memcpy(&w, s.data() + d, rem);
    k->len = static_cast<uint32_t>(rem);
  }
  k->word = __builtin_bswap64(w);
}

template <typename T>
inline int KeyCmp(const Keyed<T>& a, const Keyed<T>& b) {
  if (a.word != b.word) return a.word < b.word ? -1 : 1;
  return a.len == b.len ? 0 : (a.len < b.len ? -1 : 1);
}

// Multikey quicksort (Bentley and Sedgewick) on 8-byte words: the entries that share the
// pivot's word at `d` go on at d + 8 without comparing those bytes again. The folded lines
// share long prefixes ("swapper;secondary_startup_64;...;do_idle;"), so std::sort's whole-
// string compares were mostly memcmp of equal bytes (42% of the main thread's tail after the
// workers, perf.data fold). a[0, n) agree on their first `d` bytes, their keys taken at `d`.
// Equal lines (FoldedLine runs may hold some) end up next to each other.
template <typename T, typename Str>
void SortFrom(Keyed<T>* a, size_t n, size_t d, int budget, Str str) {
  while (n > 1) {
    if (n <= 16 || budget == 0) {
      // The rest by their bytes from d on (few entries, or a partition that keeps failing).
      std::sort(a, a + n, [d, str](const Keyed<T>& x, const Keyed<T>& y) {
        return str(*x.item).substr(d) < str(*y.item).substr(d);
      });
      return;
    }
    // The median of three keys as the pivot.
    Keyed<T> p0 = a[0], p1 = a[n / 2], p2 = a[n - 1];
    if (KeyCmp(p1, p0) < 0) std::swap(p0, p1);
    if (KeyCmp(p2, p1) < 0) std::swap(p1, p2);
    if (KeyCmp(p1, p0) < 0) std::swap(p0, p1);
    const Keyed<T> pivot = p1;
    // Three-way partition: [0, lt) below the pivot, [lt, gt) equal, [gt, n) above.
    size_t lt = 0, i = 0, gt = n;
    while (i < gt) {
      const int c = KeyCmp(a[i], pivot);
      if (c < 0) {
        std::swap(a[lt++], a[i++]);
      } else if (c > 0) {
        std::swap(a[i], a[--gt]);
      } else {
        ++i;
      }
    }
    SortFrom(a, lt, d, budget - 1, str);
    SortFrom(a + gt, n - gt, d, budget - 1, str);
    // The equal ones: equal lines when the pivot's word ended them (a map's keys are unique:
    // at most one), else compared from the next word on.
    if (pivot.len < 8) return;
    a += lt;
    n = gt - lt;
    d += 8;
    for (size_t j = 0; j < n; ++j) KeyAt(d, &a[j], str);
  }
}

// `items` in the bytewise order of their lines.
template <typename T, typename Str>
std::vector<const T*> SortedBy(const std::vector<const T*>& items, Str str) {
  std::vector<Keyed<T>> k;
  k.reserve(items.size());
  for (const T* item : items) {
    k.push_back(Keyed<T>{0, 0, item});
    KeyAt(0, &k.back(), str);
  }
  // Unlucky pivots end in std::sort after 2 log2(n) + 8 levels below or above a pivot (the
  // equal ones going a word deeper cost no level): n log n compares at worst.
  int budget = 8;
  for (size_t n = k.size(); n > 1; n >>= 1) budget += 2;
  SortFrom(k.data(), k.size(), 0, budget, str);
  std::vector<const T*> v;
  v.reserve(k.size());
  for (const Keyed<T>& e : k) v.push_back(e.item);
  return v;
}

}  // namespace

std::vector<const StackCounts::value_type*> SortedStacks(const StackCounts& stacks) {
  std::vector<const StackCounts::value_type*> items;
  items.reserve(stacks.size());
  for (const auto& kv : stacks) items.push_back(&kv);
  return SortedBy(items, [](const StackCounts::value_type& kv) { return std::string_view(kv.first); });
}

void SortLines(std::vector<FoldedLine>* lines) {
  std::vector<const FoldedLine*> items;
  items.reserve(lines->size());
  for (const FoldedLine& l : *lines) items.push_back(&l);
  std::vector<FoldedLine> sorted;
  sorted.reserve(lines->size());
  for (const FoldedLine* l : SortedBy(items, [](const FoldedLine& f) { return f.line(); })) {
    sorted.push_back(*l);
  }
  lines->swap(sorted);
}

namespace {

// "LINE COUNT\n" lines into `out`, 64 KiB at a time.
class LineWriter {
 public:
  explicit LineWriter(std::ostream& out) : out_(out) { buf_.reserve(1 << 16); }
  ~LineWriter() { out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size())); }
  void Add(std::string_view line, uint64_t count) {
    buf_.append(line);
    buf_.push_back(' ');
    absl::StrAppend(&buf_, count);
    buf_.push_back('\n');
    if (buf_.size() >= (1 << 16)) {
      out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      buf_.clear();
    }
  }

 private:
  std::ostream& out_;
  std::string buf_;
};

}  // namespace

void WriteSorted(const std::vector<const StackCounts::value_type*>& sorted, std::ostream& out) {
  LineWriter w(out);
  for (auto* kv : sorted) w.Add(kv->first, kv->second);
}

void ForEachMerged(absl::Span<const FoldedRun> runs,
                   const std::function<void(std::string_view, uint64_t)>& f) {
  std::vector<size_t> at(runs.size(), 0);
  std::string_view pending;
  uint64_t pending_count = 0;
  bool have = false;
  while (true) {
    // The least head of the runs (a few runs: a scan, not a heap).
    const FoldedLine* least = nullptr;
    size_t from = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      if (at[r] == runs[r].lines.size()) continue;
      const FoldedLine& l = runs[r].lines[at[r]];
      if (!least || l.line() < least->line()) {
        least = &l;
        from = r;
      }
    }
    if (!least) break;
    ++at[from];
    if (have && least->line() == pending) {
      pending_count += least->count;
      continue;
    }
    if (have) f(pending, pending_count);
    pending = least->line();
    pending_count = least->count;
    have = true;
  }
  if (have) f(pending, pending_count);
}

void WriteRuns(absl::Span<const FoldedRun> runs, std::ostream& out) {
  LineWriter w(out);
  ForEachMerged(runs, [&w](std::string_view line, uint64_t count) { w.Add(line, count); });
}

void WriteFolded(const StackCounts& stacks, std::ostream& out) { WriteSorted(SortedStacks(stacks), out); }

namespace {

// FoldedJson's object of lines given in order by `each(f)` calling f(line, count).
nlohmann::json JsonOfSorted(
    const std::function<void(const std::function<void(std::string_view, uint64_t)>&)>& each,
    std::string_view event) {
  nlohmann::json out = nlohmann::json::array();
  uint64_t total = 0;
  each([&](std::string_view line, uint64_t count) {
    nlohmann::json frames = nlohmann::json::array();
    std::string_view rest = line;
    while (true) {
      size_t semi = rest.find(';');
      frames.push_back(std::string(rest.substr(0, semi)));
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
    out.push_back({{"frames", std::move(frames)}, {"count", count}});
    total += count;
  });
  return {{"event", std::string(event)}, {"total", total}, {"stacks", std::move(out)}};
}

}  // namespace

nlohmann::json FoldedJson(const StackCounts& stacks, std::string_view event) {
  return JsonOfSorted(
      [&stacks](const std::function<void(std::string_view, uint64_t)>& f) {
        for (auto* kv : SortedStacks(stacks)) f(kv->first, kv->second);
      },
      event);
}

nlohmann::json FoldedJson(absl::Span<const FoldedRun> runs, std::string_view event) {
  return JsonOfSorted(
      [runs](const std::function<void(std::string_view, uint64_t)>& f) { ForEachMerged(runs, f); },
      event);
}

}  // namespace tk::analyses::fold
