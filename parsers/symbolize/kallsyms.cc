#include "parsers/symbolize/kallsyms.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/input.h"

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

}  // namespace

absl::StatusOr<KernelSymbols> LoadKallsyms(const std::string& path) {
  // One buffer holds every name (symbols are views into it): the file mapped (a copy in the
  // build-id cache, --kallsyms), or read whole (/proc/kallsyms has st_size 0).
  std::shared_ptr<const void> buf;
  std::string_view text;
  absl::StatusOr<std::unique_ptr<Input>> in = Input::Open(path);
  if (!in.ok()) return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
  if (std::optional<std::string_view> m = (*in)->mapped(); m && !m->empty()) {
    text = *m;
    buf = std::shared_ptr<Input>(std::move(*in));
  } else {
    auto copy = std::make_shared<std::string>();
    if (!ReadWhole(path, copy.get())) {
      return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
    }
    text = *copy;
    buf = std::move(copy);
  }
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
    // "ffffffff81000000 T _text" — address, type letter, name[\t[module]]
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) nl = end;
    const char* q = p;
    uint64_t addr = 0;
    bool hex = true;
    for (; q < nl && *q != ' '; ++q) {
      char c = *q;
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      hex = hex && d >= 0;
      addr = addr << 4 | static_cast<uint64_t>(d < 0 ? 0 : d);
    }
    size_t digits = static_cast<size_t>(q - p);
    bool ok = hex && digits > 0 && digits <= 16 && nl - q >= 3 && q[2] == ' ';
    char type = ok ? q[1] : 0;
    std::string_view name = ok ? std::string_view(q + 3, static_cast<size_t>(nl - q - 3)) : "";
    p = nl + 1;
    if (!ok) continue;
    if ((type == 'T' || type == 't') && (name == "_text" || name == "_stext")) {
      ks.ref_symbols.emplace(name, addr);
    }
    if (!Wanted(type) || name.empty() || name[0] == '$') continue;
    all.AddView(addr, 0, name, BindingOf(type), false);
    ++n;
    nonzero |= addr != 0;
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  if (!nonzero) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": every kallsyms address is 0 (hidden by kptr_restrict: copy it as root)"));
  }
  all.Finalize(true);
  // Module symbols to their module's table; what is left is the kernel's (already final).
  for (const Symbol& s : all.symbols()) {
    if (!IsModuleSymbol(s.name)) continue;
    size_t tab = s.name.rfind('\t');
    if (tab == std::string_view::npos) continue;
    std::string_view mod = s.name.substr(tab + 1);
    if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']') mod = mod.substr(1, mod.size() - 2);
    auto it = ks.modules.find(mod);
    if (it == ks.modules.end()) it = ks.modules.emplace(std::string(mod), SymbolTable()).first;
    it->second.AddView(s.start, s.end - s.start, s.name.substr(0, tab), s.binding, false);
  }
  all.EraseIf([](const Symbol& s) {
    return IsModuleSymbol(s.name) && s.name.find('\t') != std::string_view::npos;
  });
  ks.kernel = std::move(all);
  ks.kernel.KeepAlive(buf);
  for (auto& [name, table] : ks.modules) {
    table.KeepAlive(buf);
    table.Finalize(true);  // sizes are non-zero now: only sorts (already sorted)
  }
  return ks;
}

}  // namespace tk::parsers::symbolize
