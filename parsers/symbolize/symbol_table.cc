#include "parsers/symbolize/symbol_table.h"

#include <algorithm>
#include <cctype>

#include "parsers/symbolize/demangle.h"

namespace tk::parsers::symbolize {
namespace {

int LeadingUnderscores(std::string_view s) {
  int n = 0;
  while (n < static_cast<int>(s.size()) && s[n] == '_') ++n;
  return n;
}

}  // namespace

// perf's choose_best_symbol: true when `a` is kept over `b`. perf compares demangled names.
bool SymbolTable::PreferFirst(const Symbol& a, const Symbol& b) const {
  uint64_t la = a.end - a.start, lb = b.end - b.start;
  if (lb == 0 && la > 0) return true;
  if (la == 0 && lb > 0) return false;
  bool wa = a.binding == Binding::kWeak, wb = b.binding == Binding::kWeak;
  if (wb && !wa) return true;
  if (wa && !wb) return false;
  bool ga = a.binding == Binding::kGlobal, gb = b.binding == Binding::kGlobal;
  if (ga && !gb) return true;
  if (gb && !ga) return false;
  // Constructor/destructor variants (C1/C2, D0/D1/D2) alias one address and demangle to the
  // same name: a tie, the first is kept — without demangling 10k+ pairs of a C++ library.
  if (a.mangled && b.mangled && a.name.size() == b.name.size()) {
    size_t diff = 0, at = 0;
    for (size_t i = 0; i < a.name.size() && diff < 2; ++i) {
      if (a.name[i] != b.name[i]) {
        ++diff;
        at = i;
      }
    }
    if (diff == 0) return true;
    if (diff == 1 && at > 0 && (a.name[at - 1] == 'C' || a.name[at - 1] == 'D') &&
        std::isdigit(static_cast<unsigned char>(a.name[at])) &&
        std::isdigit(static_cast<unsigned char>(b.name[at]))) {
      return true;
    }
  }
  // Plain names (all of kallsyms, most of a C library) compare as they are, without a copy.
  std::string da_store, db_store;
  std::string_view da = a.name, db = b.name;
  if (a.mangled) da = da_store = Demangle(a.name);
  if (b.mangled) db = db_store = Demangle(b.name);
  int ua = LeadingUnderscores(da), ub = LeadingUnderscores(db);
  if (ub > ua) return true;
  if (ua > ub) return false;
  return da.size() >= db.size();
}

namespace {

uint64_t RoundUp4k(uint64_t v) { return (v + 4095) & ~uint64_t{4095}; }

using StartKey = std::pair<uint64_t, uint32_t>;  // (start, position)

// Sorts (start, position) keys by start, stably: an LSD radix sort, 11 bits a pass, that skips
// every pass whose digit is the same in all keys (a shared library's offsets fit in 3 of the 6
// passes). 3-4x faster than std::sort on a 100k-symbol table, which was most of the fixed cost
// of loading a DSO's symbols.
void SortByStart(std::vector<StartKey>& keys) {
  constexpr int kBits = 11, kPasses = (64 + kBits - 1) / kBits;
  constexpr size_t kBuckets = size_t{1} << kBits;
  if (keys.size() < 1024) {  // positions are distinct: this is the stable order
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::vector<uint32_t> counts(kPasses * kBuckets, 0);
  for (const StartKey& k : keys) {
    for (int p = 0; p < kPasses; ++p) {
      ++counts[p * kBuckets + ((k.first >> (p * kBits)) & (kBuckets - 1))];
    }
  }
  std::vector<StartKey> tmp(keys.size());
  for (int p = 0; p < kPasses; ++p) {
    uint32_t* c = &counts[p * kBuckets];
    const uint64_t digit0 = (keys[0].first >> (p * kBits)) & (kBuckets - 1);
    if (c[digit0] == keys.size()) continue;  // every key has this digit: nothing moves
    uint32_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      uint32_t n = c[b];
      c[b] = sum;
      sum += n;
    }
    for (const StartKey& k : keys) tmp[c[(k.first >> (p * kBits)) & (kBuckets - 1)]++] = k;
    keys.swap(tmp);
  }
}

}  // namespace

void SymbolTable::Add(uint64_t start, uint64_t size, std::string_view name, Binding binding) {
  names_.emplace_back(name);
  unsorted_ |= !syms_.empty() && start < syms_.back().start;
  syms_.push_back(Symbol{start, start + size, names_.back(), binding, false});
}

SymbolTable SymbolTable::Clone(std::shared_ptr<const void> keep) const {
  SymbolTable t;
  t.syms_ = syms_;
  t.unsorted_ = unsorted_;
  t.finalized_ = finalized_;
  t.storage_ = storage_;
  t.storage_.push_back(std::move(keep));
  if (index_) t.index_ = index_->Clone();
  return t;
}

std::string_view SymbolTable::NameOf(const Symbol& s) const {
  if (!s.mangled && !s.plt) return s.name;
  // The printable name replaces the stored one in the Symbol itself (which Find's caller
  // has just read): a separate index by symbol and the deque's string were two more cache
  // misses per lookup of a C++ name, ~4% of `tk fold` on a `perf record -a -g` file. Every
  // Symbol here is syms_'s (an index's are never mangled): not const, only seen so.
  demangled_store_.push_back(s.mangled ? Demangle(s.name) : std::string(s.name));
  if (s.plt) demangled_store_.back() += "@plt";
  Symbol& named = const_cast<Symbol&>(s);
  named.name = demangled_store_.back();
  named.mangled = named.plt = false;
  return named.name;
}

void SymbolTable::Finalize(bool kallsyms) {
  // By start, equal starts in insertion order. Sorting 16-byte (start, position) keys, then
  // moving each Symbol once, is faster than sorting the Symbols (30k-symbol cc1plus: the
  // sort was a third of LoadElf; a stable merge sort was 5% of `tk fold` before that).
  // Position order is insertion order among equal starts (what an earlier Finalize kept
  // precedes what was added since).
  if (unsorted_) {  // rarely for kallsyms, which comes in address order
    unsorted_ = false;
    std::vector<StartKey> keys(syms_.size());
    for (size_t i = 0; i < syms_.size(); ++i) keys[i] = {syms_[i].start, static_cast<uint32_t>(i)};
    SortByStart(keys);
    // Each Symbol moved to its place along the permutation's cycles, in place (a second
    // vector of 40-byte Symbols was 1.2 MB of fresh pages for cc1plus, faulted in and
    // unmapped at every load). keys[i].second: where position i's symbol comes from; a
    // position done points to itself.
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].second == i) continue;
      const Symbol first = syms_[i];
      size_t at = i;
      while (keys[at].second != i) {
        const size_t from = keys[at].second;
        syms_[at] = syms_[from];
        keys[at].second = static_cast<uint32_t>(at);
        at = from;
      }
      syms_[at] = first;
      keys[at].second = static_cast<uint32_t>(at);
    }
  }
  if (syms_.empty()) return;
  // symbols__fixup_end
  for (size_t i = 1; i < syms_.size(); ++i) {
    Symbol& prev = syms_[i - 1];
    const Symbol& curr = syms_[i];
    if (prev.end != prev.start) continue;
    if (kallsyms && IsModuleSymbol(prev.name) != IsModuleSymbol(curr.name)) {
      prev.end = RoundUp4k(prev.end + 4096);
    } else {
      prev.end = curr.start;
    }
  }
  if (syms_.back().end == syms_.back().start) syms_.back().end = RoundUp4k(syms_.back().start) + 4096;
  // symbols__fixup_duplicate, in place (no second copy of a 100k-symbol table)
  size_t out = 0;
  for (size_t i = 1; i < syms_.size(); ++i) {
    if (syms_[out].start == syms_[i].start) {
      if (!PreferFirst(syms_[out], syms_[i])) syms_[out] = syms_[i];
      continue;
    }
    syms_[++out] = syms_[i];
  }
  syms_.resize(out + 1);
  finalized_ = syms_.size();
  Changed();
}

void SymbolTable::AddPlt(uint64_t start, uint64_t size, std::string_view name) {
  syms_.push_back(
      Symbol{start, start + size, name, Binding::kGlobal, name.starts_with("_Z"), true});
}

void SymbolTable::SortAdded() {
  // Two sorted runs (the finalized table, then what AddPlt appended): a stable merge.
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  auto added = syms_.begin() + static_cast<long>(finalized_);
  if (!std::is_sorted(added, syms_.end(), by_start)) std::stable_sort(added, syms_.end(), by_start);
  std::inplace_merge(syms_.begin(), added, syms_.end(), by_start);
  finalized_ = syms_.size();
  Changed();
}

void SymbolTable::BuildPages() const {
  // Pages of 4 KiB, or larger when the symbols are spread out, for at most ~4 entries a
  // symbol (a kallsyms with a stray low address spans most of 2^64).
  page_base_ = syms_.front().start;
  const uint64_t span = syms_.back().start - page_base_;
  page_shift_ = 12;
  while (page_shift_ < 63 && (span >> page_shift_) > 4 * syms_.size() + 64) ++page_shift_;
  const uint64_t last_page = span >> page_shift_;
  pages_.resize(static_cast<size_t>(last_page) + 2);
  size_t sym = 0;
  for (uint64_t p = 0; p < pages_.size(); ++p) {
    // Past the last page: after every symbol (p << page_shift_ could wrap).
    const uint64_t page_start = p > last_page ? ~uint64_t{0} : page_base_ + (p << page_shift_);
    while (sym < syms_.size() && syms_[sym].start < page_start) ++sym;
    pages_[p] = static_cast<uint32_t>(sym);
  }
  if (syms_.back().start == ~uint64_t{0}) pages_.back() = static_cast<uint32_t>(syms_.size());
  // The starts as offsets from page_base_, 8 to a cache line where a Symbol is 40 bytes: the
  // search of a page touches one line or two instead of a line per probe (the probes' misses
  // were most of Find's time in `tk fold` of a `perf record -a -g` file). With each, how far
  // the symbols up to it reach, so that an address no symbol covers (38% of the lookups in a
  // stripped cc1plus there) is answered without reading a Symbol.
  starts_.clear();
  bool fits = span <= UINT32_MAX;
  for (size_t i = 0; fits && i < syms_.size(); ++i) {
    fits = syms_[i].end >= page_base_ && syms_[i].end - page_base_ < UINT32_MAX;
  }
  if (!fits) return;
  starts_.resize(syms_.size());
  uint32_t reach = 0;
  for (size_t i = 0; i < syms_.size(); ++i) {
    const Symbol& sym = syms_[i];
    const auto start = static_cast<uint32_t>(sym.start - page_base_);
    // A zero-size symbol covers its own address (Find's rule).
    const auto end = static_cast<uint32_t>(sym.end - page_base_) + (sym.start == sym.end ? 1 : 0);
    reach = std::max(reach, end);
    starts_[i] = Start{start, reach};
  }
}

const std::vector<Symbol>& SymbolTable::IndexedSymbols() const {
  if (indexed_all_.size() != index_->size()) {
    indexed_all_.clear();
    for (size_t i = 0; i < index_->size(); ++i) indexed_all_.push_back(*index_->At(i));
  }
  return indexed_all_;
}

void SymbolTable::Unindex() {
  syms_ = IndexedSymbols();
  indexed_all_.clear();
  index_.reset();
  finalized_ = syms_.size();
  Changed();
}

const Symbol* SymbolTable::Find(uint64_t addr) const {
  if (index_) return index_->Find(addr);
  if (syms_.empty()) return nullptr;
  if (pages_.empty()) BuildPages();
  // The first symbol starting after addr is within addr's page: those of earlier pages start
  // at or before it, those from the next page's first on after it.
  size_t first = 0, last = syms_.size();
  const uint64_t off = addr - page_base_;
  if (addr >= page_base_) {
    const uint64_t p = off >> page_shift_;
    if (p + 1 < pages_.size()) {
      first = pages_[p];
      last = pages_[p + 1];
    } else {
      first = pages_.back();
    }
  } else {
    last = first;
  }
  size_t i;  // the first symbol starting after addr
  if (!starts_.empty()) {
    i = static_cast<size_t>(
        std::upper_bound(starts_.begin() + static_cast<long>(first),
                         starts_.begin() + static_cast<long>(last), off,
                         [](uint64_t o, const Start& s) { return o < s.start; }) -
        starts_.begin());
    if (i == 0 || off >= starts_[i - 1].reach) return nullptr;  // beyond every symbol before
  } else {
    i = static_cast<size_t>(
        std::upper_bound(syms_.begin() + static_cast<long>(first),
                         syms_.begin() + static_cast<long>(last), addr,
                         [](uint64_t a, const Symbol& s) { return a < s.start; }) -
        syms_.begin());
  }
  // The last symbol starting at or before addr, or a longer one before it that overlaps.
  for (int back = 0; back < 4 && i > 0; ++back) {
    const Symbol& s = syms_[--i];
    if (addr < s.end || (addr == s.start && s.start == s.end)) return &s;
  }
  return nullptr;
}

}  // namespace tk::parsers::symbolize
