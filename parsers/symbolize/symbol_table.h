// A DSO's function symbols, sorted once, looked up by binary search — perf's rules for which
// symbol covers an address, so frames print as `perf script` prints them:
//   - symbols keep their st_size; a size-0 symbol extends to the next symbol's start, the
//     last one to the next 4 KiB boundary + 4 KiB (symbols__fixup_end);
//   - kallsyms: every symbol is size 0; the last kernel symbol before module symbols
//     ("name\t[mod]") ends at the next 4 KiB boundary after its start + 4 KiB;
//   - among symbols at one address one is kept (symbols__fixup_duplicate): non-zero size,
//     then non-weak, then global, then fewer leading underscores, then the longer name,
//     then the first.
#ifndef TK_PARSERS_SYMBOLIZE_SYMBOL_TABLE_H_
#define TK_PARSERS_SYMBOLIZE_SYMBOL_TABLE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace tk::parsers::symbolize {

// A kallsyms module symbol as kallsyms.cc stores it: "name\t[module]" (perf tests for a
// '['; a kernel symbol name never ends in ']').
inline bool IsModuleSymbol(std::string_view name) { return !name.empty() && name.back() == ']'; }

enum class Binding : uint8_t { kLocal, kGlobal, kWeak };

struct Symbol {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive, after Finalize
  std::string_view name;  // as stored: mangled when `mangled`; NameOf's once it ran
  Binding binding = Binding::kGlobal;
  bool mangled = false;   // a C++ name demangled on first use (NameOf)
  bool plt = false;       // a synthesized PLT entry: NameOf appends "@plt"
};

// A finalized table whose Symbols are made on demand (kallsyms.cc's index of a kallsyms file:
// 120k symbols, of which a small input hits a few dozen; making them all was most of its
// startup). What it hands out is what Finalize would have left (ends fixed, aliases dropped),
// never mangled, and stays in place while the index lives.
class SymbolIndex {
 public:
  virtual ~SymbolIndex() = default;
  virtual size_t size() const = 0;
  virtual const Symbol* At(size_t i) const = 0;  // i < size(), in address order
  virtual const Symbol* Find(uint64_t addr) const = 0;  // as SymbolTable::Find
  // SymbolTable::Shift; false (nothing moved) when the addresses would wrap around 2^64.
  virtual bool Shift(uint64_t delta) = 0;
  // A copy with nothing made yet, viewing the same text (kept alive by the table's storage).
  virtual std::unique_ptr<SymbolIndex> Clone() const = 0;
};

class SymbolTable {
 public:
  // Adds a symbol; `name` is copied. Call Finalize once all are in.
  void Add(uint64_t start, uint64_t size, std::string_view name, Binding binding);
  // Adds a symbol whose name lives in storage handed to KeepAlive (no copy). `mangled`:
  // demangle when first printed — a library has 100k+ symbols and a profile hits a few.
  void AddView(uint64_t start, uint64_t size, std::string_view name, Binding binding,
               bool mangled) {
    unsorted_ |= !syms_.empty() && start < syms_.back().start;
    syms_.push_back(Symbol{start, start + size, name, binding, mangled});
  }
  void Reserve(size_t n) { syms_.reserve(n); }
  // The symbols are `index`'s from now on (a table without Add/AddView/Finalize).
  void SetIndex(std::unique_ptr<SymbolIndex> index) {
    syms_.clear();
    index_ = std::move(index);
    Changed();
  }
  void KeepAlive(std::shared_ptr<const void> storage) { storage_.push_back(std::move(storage)); }
  // A finalized copy for another thread (shared_loads.h): the same symbols and storage, its
  // own on-demand state (pages, starts, printable names). Names copied in by Add, and names
  // NameOf wrote into the symbols before the copy, stay this table's: `keep` must keep it
  // alive as long as the copy.
  SymbolTable Clone(std::shared_ptr<const void> keep) const;
  // The printable name: demangled (once) for C++ names. `s` is one of this table's symbols;
  // once named, it holds the printable name (and is no longer `mangled` or `plt`).
  std::string_view NameOf(const Symbol& s) const;
  // Sorts (stable: equal starts keep insertion order), fixes ends, drops aliases.
  // `kallsyms`: the kallsyms rule for the last symbol before a module's.
  void Finalize(bool kallsyms);
  // After Finalize: adds perf's synthesized "NAME@plt" symbols without any fixing (`name`,
  // which storage handed to KeepAlive holds, is demangled and suffixed by NameOf on first
  // use), then SortAdded once to put them in place.
  void AddPlt(uint64_t start, uint64_t size, std::string_view name);
  void SortAdded();
  // Moves every symbol down by `delta` (kernel symbols of another boot: KASLR).
  void Shift(uint64_t delta) {
    if (index_ && index_->Shift(delta)) {
      indexed_all_.clear();
      return;
    }
    if (index_) Unindex();
    for (Symbol& s : syms_) {
      s.start -= delta;
      s.end -= delta;
    }
    pages_.clear();
  }
  // The symbol covering `addr` or nullptr.
  const Symbol* Find(uint64_t addr) const;

  size_t size() const { return index_ ? index_->size() : syms_.size(); }
  // Every symbol (of an index: all made once, for tests and rare callers).
  const std::vector<Symbol>& symbols() const { return index_ ? IndexedSymbols() : syms_; }
  // The first and the last symbol (size() > 0), without making an index's others.
  const Symbol& front() const { return index_ ? *index_->At(0) : syms_.front(); }
  const Symbol& back() const { return index_ ? *index_->At(index_->size() - 1) : syms_.back(); }
  // Drops symbols for which `drop` is true (after Finalize).
  template <typename Pred>
  void EraseIf(Pred drop) {
    std::erase_if(syms_, drop);
    finalized_ = syms_.size();
    Changed();
  }

 private:
  bool PreferFirst(const Symbol& a, const Symbol& b) const;
  const std::vector<Symbol>& IndexedSymbols() const;
  void Unindex();  // the index's symbols into syms_, then no index

  std::vector<Symbol> syms_;
  // An Add/AddView put a symbol below the one before it: Finalize sorts (kallsyms and most
  // ELF symbol tables come in address order; testing that was a pass over 120k symbols).
  bool unsorted_ = false;
  size_t finalized_ = 0;  // syms_[0, finalized_) is sorted and final
  std::deque<std::string> names_;
  std::vector<std::shared_ptr<const void>> storage_;
  // NameOf's names, each in place (frames and the named Symbols hold views of them).
  mutable std::deque<std::string> demangled_store_;
  // Find's index, built on first use: pages_[p] is the first symbol starting at or after
  // page_base_ + (p << page_shift_), so a lookup searches one page's symbols instead of the
  // whole table (a fresh address in a 40k-symbol cc1 took 16 dependent loads). Empty: to
  // build (every change to syms_ clears it).
  void BuildPages() const;
  // syms_ moved: the index is to redo. demangled_store_ keeps its strings: named Symbols and
  // frames handed out before view them.
  void Changed() { pages_.clear(); }
  mutable std::vector<uint32_t> pages_;
  // Per symbol: its start − page_base_, and the largest end (− page_base_) of the symbols up
  // to it, when these fit 32 bits (built with pages_; empty: Find searches the Symbols).
  struct Start {
    uint32_t start, reach;
  };
  mutable std::vector<Start> starts_;
  mutable uint64_t page_base_ = 0;
  mutable int page_shift_ = 12;
  std::unique_ptr<SymbolIndex> index_;  // set: the symbols are its, syms_ is unused
  mutable std::vector<Symbol> indexed_all_;  // symbols() of an index
};

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_SYMBOL_TABLE_H_
