#include "parsers/symbolize/kallsyms.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

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

// The common line, 16 lowercase hex digits (as every 64-bit kernel prints them), in one pass
// over the digits; false for anything else, which ParseLine then decides. A third of the
// cost of the general path on 120k-line files.
bool FastLine(const char* p, const char* nl, KallsymsLine* l) {
  if (nl - p < 19 || p[16] != ' ' || p[18] != ' ') return false;
  uint64_t v = 0;
  for (int i = 0; i < 16; ++i) {
    const unsigned c = static_cast<unsigned char>(p[i]);
    unsigned d;
    if (c - '0' < 10) {
      d = c - '0';
    } else if (c - 'a' < 6) {
      d = c - 'a' + 10;
    } else {
      return false;
    }
    v = v << 4 | d;
  }
  l->addr = v;
  l->type = p[17];
  l->name = std::string_view(p + 19, static_cast<size_t>(nl - p - 19));
  return true;
}

}  // namespace

std::optional<KallsymsLine> ParseKallsymsLine(std::string_view line) {
  KallsymsLine l;
  if (!ParseLine(line, &l)) return std::nullopt;
  return l;
}

namespace {

// Up to `n` bytes from the start of `path` in one read(2) (a /proc file formats only those).
std::string Head(const char* path, size_t n) {
  std::string out(n, '\0');
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
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
int64_t BootTime() {
  std::string stat = Head("/proc/stat", 1 << 16);
  size_t at = stat.find("\nbtime ");
  if (at == std::string::npos) return 0;
  return std::strtoll(stat.c_str() + at + 7, nullptr, 10);
}

}  // namespace

bool IsCurrentKallsymsCopy(const std::string& copy) {
  struct stat st;
  if (::stat(copy.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
  const int64_t boot = BootTime();
  if (boot == 0 || st.st_mtim.tv_sec < boot) return false;
  if (!Head("/proc/modules", 1).empty()) return false;
  std::string live = Head("/proc/kallsyms", 4096);
  live.resize(live.rfind('\n') == std::string::npos ? 0 : live.rfind('\n') + 1);
  return !live.empty() && Head(copy.c_str(), live.size()) == live;
}

absl::StatusOr<KernelSymbols> LoadKallsyms(const std::string& path) {
  std::string_view text;
  std::shared_ptr<const void> buf = ReadKallsyms(path, &text);
  if (!buf) return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
  return ParseKallsyms(text, std::move(buf), path);
}

absl::StatusOr<KernelSymbols> ParseKallsyms(std::string_view text, std::shared_ptr<const void> buf,
                                            std::string_view name_for_errors) {
  const std::string path(name_for_errors);
  // All symbols (module ones keep their "\t[mod]" suffix) go into one table first: the end
  // of the last kernel symbol before a module's depends on seeing both (symbols__fixup_end).
  SymbolTable all;
  all.Reserve(text.size() / 40);  // ~44 bytes a line on x86_64 6.x
  KernelSymbols ks;
  uint64_t n = 0;
  bool nonzero = false;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) nl = end;
    KallsymsLine l;
    const bool ok = FastLine(p, nl, &l) ||
                    ParseLine(std::string_view(p, static_cast<size_t>(nl - p)), &l);
    p = nl + 1;
    if (!ok) continue;
    if ((l.type == 'T' || l.type == 't') && (l.name == "_text" || l.name == "_stext")) {
      ks.ref_symbols.emplace(l.name, l.addr);
    }
    if (!Wanted(l.type) || l.name.empty() || l.name[0] == '$') continue;
    all.AddView(l.addr, 0, l.name, BindingOf(l.type), false);
    ++n;
    nonzero |= l.addr != 0;
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  if (!nonzero) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": every kallsyms address is 0 (hidden by kptr_restrict: copy it as root)"));
  }
  all.Finalize(true);
  SplitModules(all, &ks);  // the kernel's table is final already
  ks.kernel = std::move(all);
  ks.kernel.KeepAlive(buf);
  for (auto& [name, table] : ks.modules) {
    table.KeepAlive(buf);
    table.Finalize(true);  // sizes are non-zero now: only sorts (already sorted)
  }
  return ks;
}

}  // namespace tk::parsers::symbolize
