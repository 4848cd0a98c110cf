#include "parsers/symbolize/kallsyms.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/input.h"
#include "core/strings.h"

namespace tk::parsers::symbolize {
namespace {

bool Wanted(char type) {
  char t = static_cast<char>(type & ~0x20);  // ASCII upper case
  return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

Binding BindingOf(char type) {
  if (type == 'W' || type == 'w') return type == 'W' ? Binding::kWeak : Binding::kLocal;
  return type >= 'A' && type <= 'Z' ? Binding::kGlobal : Binding::kLocal;
}

// The whole file with read(2): /proc/kallsyms has st_size 0, so it grows as it reads (a
// 12 MB /proc/kallsyms took 3x longer through istreambuf_iterator).
bool ReadWhole(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t used = 0;
  out->resize(1 << 20);
  while (true) {
    if (out->size() - used < (1 << 16)) out->resize(out->size() * 2);
    ssize_t n = ::read(fd, out->data() + used, out->size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  out->resize(used);
  return true;
}

// One buffer holds every name (symbols are views into it): the file mapped (a copy in the
// build-id cache, --kallsyms), or read whole (/proc/kallsyms has st_size 0). Null when the
// file cannot be read.
std::shared_ptr<const void> ReadKallsyms(const std::string& path, std::string_view* text) {
  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return nullptr;
  if (std::optional<std::string_view> m = (*in)->mapped(); m && !m->empty()) {
    *text = *m;
    return std::shared_ptr<Input>(std::move(*in));
  }
  auto copy = std::make_shared<std::string>();
  if (!ReadWhole(path, copy.get())) return nullptr;
  *text = *copy;
  return copy;
}

// Moves the module symbols of `all` (finalized: every symbol has its end) to one table per
// module, named without their "\t[module]"; what is left is the kernel's.
void SplitModules(SymbolTable& all, KernelSymbols* ks) {
  for (const Symbol& s : all.symbols()) {
    if (!IsModuleSymbol(s.name)) continue;
    size_t tab = s.name.rfind('\t');
    if (tab == std::string_view::npos) continue;
    std::string_view mod = s.name.substr(tab + 1);
    if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']')
      mod = mod.substr(1, mod.size() - 2);
    auto it = ks->modules.find(mod);
    if (it == ks->modules.end()) it = ks->modules.emplace(std::string(mod), SymbolTable()).first;
    it->second.AddView(s.start, s.end - s.start, s.name.substr(0, tab), s.binding, false);
  }
  all.EraseIf([](const Symbol& s) {
    return IsModuleSymbol(s.name) && s.name.find('\t') != std::string_view::npos;
  });
}

// ParseKallsymsLine's rule.
bool ParseLine(std::string_view line, KallsymsLine* l) {
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 16) return false;
  if (!ParseHex(line.substr(0, sp), &l->addr)) return false;
  if (line.size() - sp < 3 || line[sp + 2] != ' ') return false;
  l->type = line[sp + 1];
  l->name = line.substr(sp + 3);
  return true;
}

#ifndef __x86_64__
// 8 lowercase hex digits (the first in the lowest byte of `x`, as loaded from memory on a
// little-endian host) to their value, all bytes at once; false when a byte is not [0-9a-f].
[[gnu::always_inline]] inline bool Hex8(uint64_t x, uint32_t* out) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  if (x & kHigh) return false;
  // Each byte < 0x80: adding (0x80 - lo) sets its high bit iff byte >= lo, adding
  // (0x7f - hi) iff byte > hi; no carry crosses a byte.
  auto in = [&](uint64_t lo, uint64_t hi) {
    return (x + (0x80 - lo) * kOnes) & ~(x + (0x7f - hi) * kOnes) & kHigh;
  };
  if ((in('0', '9') | in('a', 'f')) != kHigh) return false;
  // '0'-'9' are 0x30-0x39, 'a'-'f' 0x61-0x66: the low nibble, plus 9 for a letter (bit 6).
  uint64_t v = (x & 0x0f0f0f0f0f0f0f0full) + ((x >> 6) & kOnes) * 9;
  // Pack the nibbles, most significant (lowest byte) first: pairs, then quads, then eights.
  v = ((v & 0x00ff00ff00ff00ffull) << 4) | ((v >> 8) & 0x00ff00ff00ff00ffull);
  v = ((v & 0x0000ffff0000ffffull) << 8) | ((v >> 16) & 0x0000ffff0000ffffull);
  *out = static_cast<uint32_t>(((v & 0xffff) << 16) | ((v >> 32) & 0xffff));
  return true;
}
#endif

// The common line, 16 lowercase hex digits (as every 64-bit kernel prints them), one space,
// the type, one space: its address and type, with the name left to the caller (who finds the
// line's end). False for anything else, which ParseLine then decides. `p` has at least 19
// bytes.
[[gnu::always_inline]] inline bool FastHead(const char* p, KallsymsLine* l) {
  if (p[16] != ' ' || p[18] != ' ' || p[17] == '\n') return false;
#ifdef __x86_64__
  // The 16 digits in one register: ~20 instructions where two Hex8 took ~100 (the parse of a
  // 122k-line kallsyms was instruction-bound).
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  auto between = [&](char lo, char hi) {  // signed compares: bytes >= 0x80 are below '0'
    return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(static_cast<char>(lo - 1))),
                         _mm_cmpgt_epi8(_mm_set1_epi8(static_cast<char>(hi + 1)), v));
  };
  const __m128i letter = between('a', 'f');
  if (_mm_movemask_epi8(_mm_or_si128(between('0', '9'), letter)) != 0xffff) return false;
  // Nibbles: the low four bits, plus 9 for a letter; then each 16-bit lane (first digit in
  // its low byte) to one byte, first digit high, and the eight bytes to the value.
  const __m128i nib = _mm_add_epi8(_mm_and_si128(v, _mm_set1_epi8(0x0f)),
                                   _mm_and_si128(letter, _mm_set1_epi8(9)));
  const __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0x00ff)), 4),
                                     _mm_srli_epi16(nib, 8));
  l->addr = __builtin_bswap64(static_cast<uint64_t>(
      _mm_cvtsi128_si64(_mm_packus_epi16(pairs, _mm_setzero_si128()))));
  l->type = p[17];
  return true;
#else
  uint64_t a, b;
  std::memcpy(&a, p, 8);
  std::memcpy(&b, p + 8, 8);
  if constexpr (std::endian::native == std::endian::big) {
    a = __builtin_bswap64(a);
    b = __builtin_bswap64(b);
  }
  uint32_t hi, lo;
  if (!Hex8(a, &hi) || !Hex8(b, &lo)) return false;
  l->addr = uint64_t{hi} << 32 | lo;
  l->type = p[17];
  return true;
#endif
}

}  // namespace

std::optional<KallsymsLine> ParseKallsymsLine(std::string_view line) {
  KallsymsLine l;
  if (!ParseLine(line, &l)) return std::nullopt;
  return l;
}

namespace {

// Up to `n` bytes from the start of `path` in one read(2) (a /proc file formats only those).
std::string Head(const std::string& path, size_t n) {
  std::string out(n, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  ssize_t got;
  do {
    got = ::read(fd, out.data(), n);
  } while (got < 0 && errno == EINTR);
  ::close(fd);
  out.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return out;
}

// The boot time in seconds since the epoch (/proc/stat's "btime N"), 0 when unknown.
int64_t BootTime(const std::string& proc) {
  std::string stat = Head(proc + "/stat", 1 << 16);
  size_t at = stat.find("\nbtime ");
  if (at == std::string::npos) return 0;
  return std::strtoll(stat.c_str() + at + 7, nullptr, 10);
}

}  // namespace

bool IsCurrentKallsymsCopy(const std::string& copy, const std::string& proc) {
  struct stat st;
  if (::stat(copy.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
  const int64_t boot = BootTime(proc);
  if (boot == 0 || st.st_mtim.tv_sec < boot) return false;
  if (!Head(proc + "/modules", 1).empty()) return false;
  std::string live = Head(proc + "/kallsyms", 4096);
  live.resize(live.rfind('\n') == std::string::npos ? 0 : live.rfind('\n') + 1);
  return !live.empty() && Head(copy, live.size()) == live;
}

absl::StatusOr<KernelSymbols> LoadKallsyms(const std::string& path) {
  std::string_view text;
  std::shared_ptr<const void> buf = ReadKallsyms(path, &text);
  if (!buf) return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
  return ParseKallsyms(text, std::move(buf), path);
}

namespace {

// Calls `kept(line)` for each symbol of `text` LoadKallsyms keeps (perf's types, a name, not
// a "$x" mapping symbol), in file order; `refs` (when not null) gets _text and _stext.
template <typename Fn>
void ForEachKept(std::string_view text, std::map<std::string, uint64_t, std::less<>>* refs,
                 Fn&& kept) {
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    // A line is a chain of dependent loads (its end is the next one's start): asking for the
    // text ~25 lines ahead took the 122k-line parse from ~2.2 to ~1.8 ms.
    __builtin_prefetch(p + 1024);
    KallsymsLine l;
    const char* nl;
    bool ok;
    if (end - p >= 19 && FastHead(p, &l)) {
      // No newline before the name: the head is hex digits, spaces and the type.
      nl = FindByte(p + 19, end, '\n');
      l.name = std::string_view(p + 19, static_cast<size_t>(nl - p - 19));
      ok = true;
    } else {
      nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) nl = end;
      ok = ParseLine(std::string_view(p, static_cast<size_t>(nl - p)), &l);
    }
    p = nl + 1;
    if (!ok) continue;
    if (refs && (l.type == 'T' || l.type == 't') && (l.name == "_text" || l.name == "_stext")) {
      refs->emplace(l.name, l.addr);
    }
    if (!Wanted(l.type) || l.name.empty() || l.name[0] == '$') continue;
    kept(l);
  }
}

}  // namespace

namespace {

uint64_t RoundUp4k(uint64_t v) { return (v + 4095) & ~uint64_t{4095}; }

// The kernel's part of a kallsyms file in address order, made into Symbols only when looked
// up: per distinct address its offset from the first (the core kernel spans well under 4
// GiB) and where its name starts in the text, 8 bytes a symbol where a Symbol is 40 (the
// 122k-symbol table: ~1 MB written instead of ~5 MB, and no Finalize passes over it). The
// same table Finalize(false) makes of these lines when they come sorted: each symbol ends
// where the next starts, the last at the next 4 KiB boundary + 4 KiB, and of the symbols at
// one address the last in the file is kept (every one but the last has size 0 once the ends
// are fixed, and choose_best_symbol keeps the sized one).
class KallsymsIndex final : public SymbolIndex {
 public:
  KallsymsIndex(std::string_view text, uint64_t first, std::vector<uint32_t> offsets,
                std::vector<uint32_t> names)
      : text_(text),
        first_(first),
        last_end_(RoundUp4k(first + offsets.back()) + 4096),
        offsets_(std::move(offsets)),
        names_(std::move(names)) {}

  size_t size() const override { return offsets_.size(); }

  const Symbol* At(size_t i) const override {
    auto [it, fresh] = made_.try_emplace(static_cast<uint32_t>(i), made_.size());
    if (!fresh) return &store_[it->second];
    const uint32_t pos = names_[i];
    const char* name = text_.data() + pos;
    const void* nl = std::memchr(name, '\n', text_.size() - pos);
    const size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - name) : text_.size() - pos;
    store_.push_back(Symbol{first_ + offsets_[i],
                            i + 1 < offsets_.size() ? first_ + offsets_[i + 1] : last_end_,
                            std::string_view(name, len), BindingOf(text_[pos - 2]), false});
    return &store_.back();
  }

  // SymbolTable::Find on the finalized table: the symbol starting last at or before `addr`
  // covers it (ends are the next one's start), but for the last one, which ends on its own.
  const Symbol* Find(uint64_t addr) const override {
    if (addr < first_) return nullptr;
    const uint64_t off = addr - first_;
    if (off >= offsets_.back()) return addr < last_end_ ? At(offsets_.size() - 1) : nullptr;
    auto it = std::upper_bound(offsets_.begin(), offsets_.end(), static_cast<uint32_t>(off));
    return At(static_cast<size_t>(it - offsets_.begin()) - 1);
  }

  std::unique_ptr<SymbolIndex> Clone() const override {
    auto c = std::make_unique<KallsymsIndex>(text_, first_, offsets_, names_);
    c->last_end_ = last_end_;
    return c;
  }

  bool Shift(uint64_t delta) override {
    const uint64_t first = first_ - delta;
    if (first + offsets_.back() < first) return false;  // would wrap: not in address order
    first_ = first;
    last_end_ -= delta;
    for (Symbol& s : store_) {
      s.start -= delta;
      s.end -= delta;
    }
    return true;
  }

 private:
  std::string_view text_;
  uint64_t first_, last_end_;  // the first symbol's start, the last one's end
  std::vector<uint32_t> offsets_, names_;
  mutable absl::flat_hash_map<uint32_t, size_t> made_;  // symbol -> its place in store_
  mutable std::deque<Symbol> store_;                    // in place: Find hands out pointers
};

// The kernel's symbols as one SymbolTable of Symbols, Finalize'd: what ParseKallsyms does
// when the index does not apply (the kernel's lines not in address order, or spanning 4 GiB;
// modules below the kernel, or a module-like name without its module; a text of 4 GiB).
absl::StatusOr<KernelSymbols> ParseWhole(std::string_view text, std::shared_ptr<const void> buf,
                                         std::string_view name_for_errors);

}  // namespace

absl::StatusOr<KernelSymbols> ParseKallsyms(std::string_view text, std::shared_ptr<const void> buf,
                                            std::string_view name_for_errors) {
  if (text.size() >= (uint64_t{1} << 32)) return ParseWhole(text, std::move(buf), name_for_errors);
  const std::string path(name_for_errors);
  KernelSymbols ks;
  SymbolTable mods;
  std::vector<uint32_t> offsets, names;
  offsets.reserve(text.size() / 44);  // ~44 bytes a line on x86_64 6.x
  names.reserve(text.size() / 44);
  uint64_t n = 0, first = 0, last = 0, kernel_max = 0, mod_min = ~uint64_t{0};
  bool nonzero = false, together = false, indexable = true;
  ForEachKept(text, &ks.ref_symbols, [&](const KallsymsLine& l) {
    ++n;
    nonzero |= l.addr != 0;
    if (!IsModuleSymbol(l.name)) {
      kernel_max = std::max(kernel_max, l.addr);
      const auto pos = static_cast<uint32_t>(l.name.data() - text.data());
      if (offsets.empty()) {
        first = last = l.addr;
      } else if (l.addr == last) {
        names.back() = pos;  // an alias: the last one is kept
        return;
      } else if (l.addr < last || l.addr - first > UINT32_MAX) {
        indexable = false;
        return;
      }
      offsets.push_back(static_cast<uint32_t>(l.addr - first));
      names.push_back(pos);
      last = l.addr;
      return;
    }
    together |= l.name.find('\t') == std::string_view::npos;
    mods.AddView(l.addr, 0, l.name, BindingOf(l.type), false);
    mod_min = std::min(mod_min, l.addr);
  });
  if (!indexable || (mods.size() > 0 && (together || mod_min <= kernel_max))) {
    return ParseWhole(text, std::move(buf), name_for_errors);
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  if (!nonzero) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": every kallsyms address is 0 (hidden by kptr_restrict: copy it as root)"));
  }
  if (!offsets.empty()) {
    ks.kernel.SetIndex(
        std::make_unique<KallsymsIndex>(text, first, std::move(offsets), std::move(names)));
    ks.kernel.KeepAlive(buf);
  }
  mods.Finalize(false);
  SplitModules(mods, &ks);
  for (auto& [name, table] : ks.modules) {
    table.KeepAlive(buf);
    table.Finalize(true);  // sizes are non-zero now: only sorts (already sorted)
  }
  return ks;
}

namespace {

absl::StatusOr<KernelSymbols> ParseWhole(std::string_view text, std::shared_ptr<const void> buf,
                                         std::string_view name_for_errors) {
  const std::string path(name_for_errors);
  // perf sorts all symbols, module ones with their "\t[mod]" suffix, in one table: the end of
  // the last kernel symbol before a module's depends on seeing both (symbols__fixup_end).
  // When every module symbol lies above every kernel one (x86_64's layout), that table is
  // the kernel's symbols followed by the modules', and the last kernel symbol ends where the
  // last of a table does (RoundUp4k(start) + 4096, the same as RoundUp4k(start + 4096) of
  // the rule before a module's): each part is finalized on its own, and the kernel's ~120k
  // symbols without reading their names again. Otherwise (arm64 puts modules below the
  // kernel; a "]" name without a module tab), the text is read again into one table.
  KernelSymbols ks;
  SymbolTable kernel, mods;
  kernel.Reserve(text.size() / 40);  // ~44 bytes a line on x86_64 6.x
  uint64_t n = 0, kernel_max = 0, mod_min = ~uint64_t{0};
  bool nonzero = false, together = false;
  ForEachKept(text, &ks.ref_symbols, [&](const KallsymsLine& l) {
    ++n;
    nonzero |= l.addr != 0;
    if (!IsModuleSymbol(l.name)) {
      kernel.AddView(l.addr, 0, l.name, BindingOf(l.type), false);
      kernel_max = std::max(kernel_max, l.addr);
      return;
    }
    together |= l.name.find('\t') == std::string_view::npos;
    mods.AddView(l.addr, 0, l.name, BindingOf(l.type), false);
    mod_min = std::min(mod_min, l.addr);
  });
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  if (!nonzero) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": every kallsyms address is 0 (hidden by kptr_restrict: copy it as root)"));
  }
  if (mods.size() > 0 && (together || mod_min <= kernel_max)) {
    SymbolTable all;
    all.Reserve(n);
    ForEachKept(text, nullptr, [&](const KallsymsLine& l) {
      all.AddView(l.addr, 0, l.name, BindingOf(l.type), false);
    });
    all.Finalize(true);
    SplitModules(all, &ks);  // what is left is the kernel's, final already
    kernel = std::move(all);
  } else {
    kernel.Finalize(false);
    mods.Finalize(false);
    SplitModules(mods, &ks);
  }
  ks.kernel = std::move(kernel);
  ks.kernel.KeepAlive(buf);
  for (auto& [name, table] : ks.modules) {
    table.KeepAlive(buf);
    table.Finalize(true);  // sizes are non-zero now: only sorts (already sorted)
  }
  return ks;
}

}  // namespace

}  // namespace tk::parsers::symbolize
