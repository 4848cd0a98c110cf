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
  std::ifstream f(path);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot open kallsyms"));
  // All symbols (module ones keep their "\t[mod]" suffix) go into one table first: the end
  // of the last kernel symbol before a module's depends on seeing both (symbols__fixup_end).
  SymbolTable all;
  KernelSymbols ks;
  std::string line;
  uint64_t n = 0;
  while (std::getline(f, line)) {
    // "ffffffff81000000 T _text" — address, type letter, name[\t[module]]
    size_t sp1 = line.find(' ');
    if (sp1 == std::string::npos || sp1 + 3 > line.size() || line[sp1 + 2] != ' ') continue;
    char type = line[sp1 + 1];
    uint64_t addr = std::strtoull(line.substr(0, sp1).c_str(), nullptr, 16);
    std::string_view name = std::string_view(line).substr(sp1 + 3);
    if (name == "_text" && (type == 'T' || type == 't')) ks.text = addr;
    if (!Wanted(type) || name.empty() || name[0] == '$') continue;
    all.Add(addr, 0, name, BindingOf(type));
    ++n;
  }
  if (n == 0) return absl::InvalidArgumentError(absl::StrCat(path, ": no symbols in kallsyms file"));
  all.Finalize(true);
  for (const Symbol& s : all.symbols()) {
    size_t tab = s.name.find('\t');
    if (tab == std::string_view::npos) {
      ks.kernel.Add(s.start, s.end - s.start, s.name, s.binding);
      continue;
    }
    std::string_view mod = s.name.substr(tab + 1);
    if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']') mod = mod.substr(1, mod.size() - 2);
    auto it = ks.modules.find(mod);
    if (it == ks.modules.end()) it = ks.modules.emplace(std::string(mod), SymbolTable()).first;
    it->second.Add(s.start, s.end - s.start, s.name.substr(0, tab), s.binding);
  }
  // Ends and aliases are already fixed: re-sorting keeps them (sizes are non-zero now).
  ks.kernel.Finalize(true);
  for (auto& [name, table] : ks.modules) table.Finalize(true);
  return ks;
}

}  // namespace tk::parsers::symbolize
