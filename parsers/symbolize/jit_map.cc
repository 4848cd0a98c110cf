#include "parsers/symbolize/jit_map.h"

#include <cstdlib>
#include <fstream>

namespace tk::parsers::symbolize {

std::optional<SymbolTable> LoadPerfMap(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  SymbolTable t;
  std::string line;
  while (std::getline(f, line)) {
    const char* p = line.c_str();
    char* end;
    uint64_t start = std::strtoull(p, &end, 16);
    if (end == p || *end != ' ') continue;
    p = end + 1;
    uint64_t size = std::strtoull(p, &end, 16);
    if (end == p || *end != ' ') continue;
    std::string_view name(end + 1);
    if (name.empty()) continue;
    t.Add(start, size, name, Binding::kGlobal);
  }
  t.Finalize(false);
  return t;
}

}  // namespace tk::parsers::symbolize
