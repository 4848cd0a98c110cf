// The folded stacks' order and output (fold.h): the bytewise sort of the folded lines,
// their text ("line COUNT") and their JSON.
#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyses/fold/fold.h"

namespace tk::analyses::fold {

namespace {

// The 8 bytes of `s` at `d` (zero-padded past its end) as one big-endian number, and how
// many of them are the string's (8, or fewer at its end): ordering (word, len) orders the
// strings' bytes from `d` on by their first 8, the shorter first when one ends inside them.
struct Keyed {
  uint64_t word;
  uint32_t len;
  const StackCounts::value_type* kv;
};

inline void KeyAt(size_t d, Keyed* k) {
  const std::string& s = k->kv->first;
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

inline int KeyCmp(const Keyed& a, const Keyed& b) {
  if (a.word != b.word) return a.word < b.word ? -1 : 1;
  return a.len == b.len ? 0 : (a.len < b.len ? -1 : 1);
}

// Multikey quicksort (Bentley and Sedgewick) on 8-byte words: the entries that share the
// pivot's word at `d` go on at d + 8 without comparing those bytes again. The folded lines
// share long prefixes ("swapper;secondary_startup_64;...;do_idle;"), so std::sort's whole-
// string compares were mostly memcmp of equal bytes (42% of the main thread's tail after the
// workers, perf.data fold). a[0, n) agree on their first `d` bytes, their keys taken at `d`.
void SortFrom(Keyed* a, size_t n, size_t d, int budget) {
  while (n > 1) {
    if (n <= 16 || budget == 0) {
      // The rest by their bytes from d on (few entries, or a partition that keeps failing).
      std::sort(a, a + n, [d](const Keyed& x, const Keyed& y) {
        return std::string_view(x.kv->first).substr(d) < std::string_view(y.kv->first).substr(d);
      });
      return;
    }
    // The median of three keys as the pivot.
    Keyed p0 = a[0], p1 = a[n / 2], p2 = a[n - 1];
    if (KeyCmp(p1, p0) < 0) std::swap(p0, p1);
    if (KeyCmp(p2, p1) < 0) std::swap(p1, p2);
    if (KeyCmp(p1, p0) < 0) std::swap(p0, p1);
    const Keyed pivot = p1;
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
    SortFrom(a, lt, d, budget - 1);
    SortFrom(a + gt, n - gt, d, budget - 1);
    // The equal ones: identical strings when the pivot's word ended them (keys are unique,
    // so at most one), else compared from the next word on.
    if (pivot.len < 8) return;
    a += lt;
    n = gt - lt;
    d += 8;
    for (size_t j = 0; j < n; ++j) KeyAt(d, &a[j]);
  }
}

}  // namespace

std::vector<const StackCounts::value_type*> SortedStacks(const StackCounts& stacks) {
  std::vector<Keyed> k;
  k.reserve(stacks.size());
  for (const auto& kv : stacks) {
    k.push_back(Keyed{0, 0, &kv});
    KeyAt(0, &k.back());
  }
  // Unlucky pivots end in std::sort after 2 log2(n) + 8 levels below or above a pivot (the
  // equal ones going a word deeper cost no level): n log n compares at worst.
  int budget = 8;
  for (size_t n = k.size(); n > 1; n >>= 1) budget += 2;
  SortFrom(k.data(), k.size(), 0, budget);
  std::vector<const StackCounts::value_type*> v;
  v.reserve(k.size());
  for (const Keyed& e : k) v.push_back(e.kv);
  return v;
}

void WriteSorted(const std::vector<const StackCounts::value_type*>& sorted, std::ostream& out) {
  std::string buf;
  buf.reserve(1 << 16);
  for (auto* kv : sorted) {
    buf.append(kv->first);
    buf.push_back(' ');
    absl::StrAppend(&buf, kv->second);
    buf.push_back('\n');
    if (buf.size() >= (1 << 16)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void WriteFolded(const StackCounts& stacks, std::ostream& out) { WriteSorted(SortedStacks(stacks), out); }

nlohmann::json FoldedJson(const StackCounts& stacks, std::string_view event) {
  nlohmann::json out = nlohmann::json::array();
  uint64_t total = 0;
  for (auto* kv : SortedStacks(stacks)) {
    nlohmann::json frames = nlohmann::json::array();
    std::string_view rest = kv->first;
    while (true) {
      size_t semi = rest.find(';');
      frames.push_back(std::string(rest.substr(0, semi)));
      if (semi == std::string_view::npos) break;
      rest.remove_prefix(semi + 1);
    }
    out.push_back({{"frames", std::move(frames)}, {"count", kv->second}});
    total += kv->second;
  }
  return {{"event", std::string(event)}, {"total", total}, {"stacks", std::move(out)}};
}

}  // namespace tk::analyses::fold
