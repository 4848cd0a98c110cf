#include "parsers/symbolize/kallsyms.h"

#include <cctype>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace tk::parsers::symbolize {
namespace {

bool Wanted(char type) {
  char t = static_cast<char>(std::toupper(static_cast<unsigned char>(type)));
  return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

Binding BindingOf(char type) {
  if (type == 'W' || type == 'w') return type == 'W' ? Binding::kWeak : Binding::kLocal;
  return std::isupper(static_cast<unsigned char>(type)) ? Binding::kGlobal : Binding::kLocal;
}

}  // namespace

absl::StatusOr<KernelSymbols> LoadKallsyms(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
  // One buffer holds every name (symbols are views into it).
  auto buf = std::make_shared<std::string>((std::istreambuf_iterator<char>(f)),
                                           std::istreambuf_iterator<char>());
  std::string_view text(*buf);
  // All symbols (module ones keep their "\t[mod]" suffix) go into one table first: the end
  // of the last kernel symbol before a module's depends on seeing both (symbols__fixup_end).
  SymbolTable all;
  KernelSymbols ks;
  uint64_t n = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // "ffffffff81000000 T _text" — address, type letter, name[\t[module]]
    size_t sp1 = line.find(' ');
    if (sp1 == std::string_view::npos || sp1 == 0 || sp1 > 16 || sp1 + 3 > line.size() ||
        line[sp1 + 2] != ' ') {
      continue;
    }
    char type = line[sp1 + 1];
    uint64_t addr = 0;
    bool hex = true;
    for (char c : line.substr(0, sp1)) {
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) hex = false;
      addr = addr << 4 | static_cast<uint64_t>(d < 0 ? 0 : d);
    }
    std::string_view name = line.substr(sp1 + 3);
    if (!hex) continue;
    if (name == "_text" && (type == 'T' || type == 't')) ks.text = addr;
    if (!Wanted(type) || name.empty() || name[0] == '$') continue;
    all.AddView(addr, 0, name, BindingOf(type), false);
    ++n;
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  all.Finalize(true);
  // Module symbols to their module's table; what is left is the kernel's (already final).
  for (const Symbol& s : all.symbols()) {
    size_t tab = s.name.find('\t');
    if (tab == std::string_view::npos) continue;
    std::string_view mod = s.name.substr(tab + 1);
    if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']') mod = mod.substr(1, mod.size() - 2);
    auto it = ks.modules.find(mod);
    if (it == ks.modules.end()) it = ks.modules.emplace(std::string(mod), SymbolTable()).first;
    it->second.AddView(s.start, s.end - s.start, s.name.substr(0, tab), s.binding, false);
  }
  all.EraseIf([](const Symbol& s) { return s.name.find('\t') != std::string_view::npos; });
  ks.kernel = std::move(all);
  ks.kernel.KeepAlive(buf);
  for (auto& [name, table] : ks.modules) {
    table.KeepAlive(buf);
    table.Finalize(true);  // sizes are non-zero now: only sorts (already sorted)
  }
  return ks;
}

}  // namespace tk::parsers::symbolize
