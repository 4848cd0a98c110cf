// A table's rows in perf's order (SortedRows): integer words per row, ordered by radix passes.
#include <algorithm>
#include <array>
#include <thread>
#include <tuple>
#include <utility>

#include "analyses/report/report.h"

namespace tk::analyses::report {
namespace {

// A row's order as integers, compared word by word: ~children, ~self (descending), then the
// sort keys' fields (ascending) packed most significant first into as few words as they fit:
// an interned string's rank among the strings that key compares (interned: distinct views are
// distinct strings, so ranks order as the strings do), tid and cpu offset so that signed order
// is unsigned order, a symbol as its name's rank (unresolved: past every name, so resolved
// rows come first) and then its start (unresolved: its address; static twins of one name by
// their start). A repeated key adds no field.
struct Field {
  Key key;
  bool addr;  // kSym's second field
  int bits;
  int word, shift;  // where it packs: w[2 + word] << shift
};

uint64_t SignedWord(int32_t v) { return static_cast<uint32_t>(v) ^ 0x80000000u; }

int BitsFor(size_t n) {  // bits that hold 0..n
  int b = 1;
  while (b < 64 && (n >> b) != 0) ++b;
  return b;
}

// Every row's rank of the interned view `get` yields, by content; `*distinct` receives the
// number of distinct views. Empty views (an unresolved symbol) are skipped when `skip_empty`.
template <typename Get>
std::vector<uint32_t> Ranks(const std::vector<const Entry*>& rows, Get get, bool skip_empty,
                            size_t* distinct) {
  absl::flat_hash_map<const char*, uint32_t> index;  // view -> views[i]
  std::vector<std::string_view> views;
  std::vector<uint32_t> of_row(rows.size());
  const char* last = nullptr;
  uint32_t last_index = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string_view v = get(*rows[i]);
    if (skip_empty && v.empty()) continue;
    if (v.data() != last || views.empty()) {  // entries of one comm and DSO come in runs
      auto [it, added] = index.try_emplace(v.data(), static_cast<uint32_t>(views.size()));
      if (added) views.push_back(v);
      last = v.data();
      last_index = it->second;
    }
    of_row[i] = last_index;
  }
  std::vector<uint32_t> order(views.size()), rank(views.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return views[a] < views[b]; });
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<uint32_t>(i);
  for (size_t i = 0; i < rows.size(); ++i) {
    of_row[i] = skip_empty && get(*rows[i]).empty() ? static_cast<uint32_t>(views.size())
                                                     : rank[of_row[i]];
  }
  *distinct = views.size();
  return of_row;
}

// A word of every row as its rank among the word's distinct values (ascending); `*bits`
// receives the bits that hold the ranks (0 for a single value).
template <typename Row>
std::vector<uint32_t> WordRanks(const std::vector<Row>& rows, size_t word, int* bits) {
  absl::flat_hash_map<uint64_t, uint32_t> index;  // value -> values[i]
  std::vector<uint64_t> values;
  std::vector<uint32_t> of_row(rows.size());
  uint64_t last = 0;
  uint32_t last_index = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint64_t v = rows[i].w[word];
    if (v != last || values.empty()) {  // a table's small values come in runs
      auto [it, added] = index.try_emplace(v, static_cast<uint32_t>(values.size()));
      if (added) values.push_back(v);
      last = v;
      last_index = it->second;
    }
    of_row[i] = last_index;
  }
  std::vector<uint32_t> order(values.size()), rank(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return values[a] < values[b]; });
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = static_cast<uint32_t>(i);
  for (uint32_t& r : of_row) r = rank[r];
  *bits = values.size() > 1 ? BitsFor(values.size() - 1) : 0;
  return of_row;
}

// The rows in their words' order, by least significant digit first radix passes (stable):
// the words after the first packed one (a symbol's start, further keys) from the last, then
// one key of the two values as ranks among their distinct values (a large table has few: most
// of its rows are one or two samples' periods) followed by the first packed word's used bits
// (or, when they do not fit in the key's 64 bits, that word's passes first). Equal keys keep
// the later words' order, so the order is the words' (no two rows have equal words). On
// perf-a-g.data's 97K rows (callgrind --threads 1) std::sort of the words, in two halves
// merged on two threads, was 52.6M instructions; this is 43.0M, with the values' ranks on a
// second thread.
template <typename Row>
void RadixOrder(const std::vector<Row>& sorted, int packed_bits, bool two_threads,
                std::vector<const Entry*>* rows) {
  constexpr size_t kWords = std::tuple_size_v<decltype(Row::w)>;
  const size_t n = sorted.size();
  struct Item {
    uint64_t key;
    uint32_t row;
  };
  std::vector<Item> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i].row = static_cast<uint32_t>(i);
  constexpr int kDigit = 11;
  constexpr uint64_t kMask = (1u << kDigit) - 1;
  std::vector<uint32_t> count(size_t{1} << kDigit);
  // Orders `a` by its keys' low `bits` bits, keeping the order of equal ones.
  auto pass = [&](int bits) {
    for (int shift = 0; shift < bits; shift += kDigit) {
      std::fill(count.begin(), count.end(), 0);
      for (const Item& it : a) ++count[(it.key >> shift) & kMask];
      if (count[(a[0].key >> shift) & kMask] == n) continue;  // one digit: the order stands
      uint32_t sum = 0;
      for (uint32_t& c : count) sum += std::exchange(c, sum);
      for (const Item& it : a) b[count[(it.key >> shift) & kMask]++] = it;
      a.swap(b);
    }
  };
  auto by_word = [&](size_t k) {
    for (Item& it : a) it.key = sorted[it.row].w[k];
    pass(64);
  };
  // The values' ranks (with two threads on a second one) while the later words are ordered.
  int b0 = 0, b1 = 0;
  std::vector<uint32_t> r0, r1;
  auto ranks = [&] {
    r0 = WordRanks(sorted, 0, &b0);
    r1 = WordRanks(sorted, 1, &b1);
  };
  std::thread second;
  if (two_threads && n >= kParallelRows) {
    second = std::thread(ranks);
  } else {
    ranks();
  }
  for (size_t k = kWords; k-- > 3;) by_word(k);
  if (second.joinable()) second.join();
  int bw = kWords > 2 ? packed_bits : 0;
  if (b0 + b1 + bw > 64) {
    by_word(2);
    bw = 0;
  }
  // The last key of every row made in row order (sequential reads of the ranks and words),
  // then gathered in the order of the passes so far from this one 8-byte array, and the entries
  // from the rows' own order (sorted[i].en is (*rows)[i]): reading r0, r1 and the 40-byte rows
  // at random was ~25% of this function's samples on cc20k.data's 134K rows (cache misses).
  std::vector<uint64_t> last(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t key = uint64_t{r0[i]} << b1 | r1[i];
    if constexpr (kWords > 2) {
      if (bw >= 64) {  // one value each: the word alone
        key = sorted[i].w[2];
      } else if (bw > 0) {
        key = key << bw | sorted[i].w[2] >> (64 - bw);
      }
    }
    last[i] = key;
  }
  for (Item& it : a) it.key = last[it.row];
  pass(b0 + b1 + bw);
  const std::vector<const Entry*> entries = *rows;
  for (size_t i = 0; i < n; ++i) (*rows)[i] = entries[a[i].row];
}

// The rows sorted by their words (N: the 2 values and the packed fields): made (with
// `two_threads`, the second half on a second thread) and put in order by RadixOrder;
// `packed_bits` is how many top bits of the first packed word the fields use.
template <size_t N>
void SortByWords(const std::vector<Field>& fields,
                 const std::vector<uint32_t>* const ranks[5], bool children, bool two_threads,
                 int packed_bits, std::vector<const Entry*>* rows) {
  struct Row {
    std::array<uint64_t, N> w;
    const Entry* en;
    // Word by word, unrolled (std::array's operator< is a generic lexicographical_compare
    // loop).
    bool operator<(const Row& o) const {
      for (size_t i = 0; i + 1 < N; ++i)
        if (w[i] != o.w[i]) return w[i] < o.w[i];
      return w[N - 1] < o.w[N - 1];
    }
  };
  std::vector<Row> sorted(rows->size());
  auto make = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      const Entry& en = *(*rows)[i];
      Row& row = sorted[i];
      row.en = &en;
      row.w.fill(0);
      row.w[0] = ~(children ? en.children_period : 0);
      row.w[1] = ~en.self_period;
      for (const Field& f : fields) {
        uint64_t v = 0;
        switch (f.key) {
          case Key::kPid:
            v = SignedWord(en.tid);
            break;
          case Key::kCpu:
            v = SignedWord(en.cpu);
            break;
          case Key::kSym:
            if (f.addr) {
              v = en.addr;
              break;
            }
            [[fallthrough]];
          default:
            v = (*ranks[static_cast<int>(f.key)])[i];
        }
        if constexpr (N > 2) row.w[2 + f.word] |= v << f.shift;
      }
    }
  };
  const size_t n = sorted.size();
  if (n == 0) return;
  if (!two_threads || n < kParallelRows) {
    make(0, n);
  } else {
    std::thread second([&] { make(n / 2, n); });
    make(0, n / 2);
    second.join();
  }
  RadixOrder(sorted, N > 2 ? packed_bits : 0, two_threads, rows);
}

}  // namespace

std::vector<const Entry*> SortedRows(const ReportSink& r, const Table& t, uint64_t* total,
                                     uint64_t* samples) {
  std::vector<const Entry*> rows;
  uint64_t kept_period = 0, kept_samples = 0;
  const bool children = r.children();
  for (const Entry& en : t.entries) {
    if (!r.Kept(en)) continue;
    kept_period += en.self_period;
    kept_samples += en.self_samples;
    if (children || en.self_samples != 0) rows.push_back(&en);  // else only callchains made it
  }
  *total = r.options().relative ? kept_period : t.period;
  *samples = r.options().relative ? kept_samples : t.samples;
  // The fields in key order (each key once) and the words they pack into.
  std::vector<uint32_t> rank_store[5];
  const std::vector<uint32_t>* ranks[5] = {};
  std::vector<Field> fields;
  int word = -1, used = 64;
  auto add = [&](Key k, bool addr, int bits) {
    if (used + bits > 64) {
      ++word;
      used = 0;
    }
    used += bits;
    fields.push_back({k, addr, bits, word, 64 - used});
  };
  // The string keys' ranks (each key once), the last of them on a second thread for a large
  // table with two threads.
  const bool two_threads = r.options().threads >= 2;
  size_t distinct[5] = {};
  std::vector<Key> ranked;
  for (Key k : r.sort_keys()) {
    if ((k == Key::kComm || k == Key::kDso || k == Key::kSym) &&
        std::find(ranked.begin(), ranked.end(), k) == ranked.end())
      ranked.push_back(k);
  }
  auto rank = [&](Key k) {
    const int ki = static_cast<int>(k);
    if (k == Key::kComm) {
      rank_store[ki] = Ranks(rows, [](const Entry& en) { return en.comm; }, false, &distinct[ki]);
    } else if (k == Key::kDso) {
      rank_store[ki] = Ranks(rows, [](const Entry& en) { return en.dso; }, false, &distinct[ki]);
    } else {
      rank_store[ki] = Ranks(rows, [](const Entry& en) { return en.sym; }, true, &distinct[ki]);
    }
  };
  if (two_threads && rows.size() >= kParallelRows && ranked.size() >= 2) {
    std::thread second([&] { rank(ranked.back()); });
    for (size_t i = 0; i + 1 < ranked.size(); ++i) rank(ranked[i]);
    second.join();
  } else {
    for (Key k : ranked) rank(k);
  }
  for (Key k : r.sort_keys()) {
    const int ki = static_cast<int>(k);
    if (ranks[ki] || std::any_of(fields.begin(), fields.end(), [k](const Field& f) {
          return f.key == k;
        }))
      continue;
    if (k == Key::kPid || k == Key::kCpu) {
      add(k, false, 32);
      continue;
    }
    ranks[ki] = &rank_store[ki];
    add(k, false, BitsFor(distinct[ki]));
    if (k == Key::kSym) add(k, true, 64);
  }
  // One instantiation per count of words (the 2 values and 0..6 packed words: five keys at
  // most, the symbol's two).
  using SortFn = decltype(&SortByWords<2>);
  static constexpr SortFn kSort[] = {&SortByWords<2>, &SortByWords<3>, &SortByWords<4>,
                                     &SortByWords<5>, &SortByWords<6>, &SortByWords<7>,
                                     &SortByWords<8>};
  int packed_bits = 0;  // the first packed word's: its fields fill it from the top
  for (const Field& f : fields)
    if (f.word == 0) packed_bits = std::max(packed_bits, 64 - f.shift);
  kSort[std::min(word + 1, 6)](fields, ranks, children, two_threads, packed_bits, &rows);
  return rows;
}

}  // namespace tk::analyses::report
