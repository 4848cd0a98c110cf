#include "parsers/perf_script/frame.h"

#include <string.h>

#include "core/strings.h"

namespace tk::parsers::perf_script {

std::string_view StripOffset(std::string_view symbol, int64_t* offset) {
  if (offset) *offset = -1;
  size_t at = symbol.rfind("+0x");
  if (at == std::string_view::npos || at + 3 == symbol.size()) return symbol;
  std::string_view digits = symbol.substr(at + 3);
  for (char c : digits) {
    if (!IsDigit(c) && (c < 'a' || c > 'f')) return symbol;
  }
  uint64_t v;
  if (offset && ParseHex(digits, &v) && v <= static_cast<uint64_t>(INT64_MAX)) {
    *offset = static_cast<int64_t>(v);
  }
  return symbol.substr(0, at);
}

std::optional<Frame> ParseFrameLine(std::string_view line) {
  std::string_view rest;
  std::string_view addr = NextWord(line, &rest);
  Frame f;
  if (!ParseHex(addr, &f.ip)) return std::nullopt;
  rest = Trim(rest);
  std::string_view symbol = rest;
  if (!rest.empty() && rest.back() == ')') {
    // Usually the DSO holds no parentheses: the last "(" opens it (memrchr, vectorized).
    const void* open = memrchr(rest.data(), '(', rest.size() - 1);
    if (open) {
      size_t i = static_cast<const char*>(open) - rest.data();
      std::string_view inside = rest.substr(i + 1, rest.size() - i - 2);
      if (inside.find(')') == std::string_view::npos) {
        if (i == 0 || IsBlank(rest[i - 1])) {
          f.dso = inside;
          symbol = TrimRight(rest.substr(0, i));
        }
        f.symbol = StripOffset(symbol, &f.sym_offset);
        return f;
      }
    }
    // Else walk back to the "(" that opens the DSO: "(/tmp/libfoo.so (deleted))".
    int depth = 0;
    for (size_t i = rest.size(); i-- > 0;) {
      char c = rest[i];
      if (c == ')') {
        ++depth;
      } else if (c == '(' && --depth == 0) {
        if (i == 0 || IsBlank(rest[i - 1])) {
          f.dso = rest.substr(i + 1, rest.size() - i - 2);
          symbol = TrimRight(rest.substr(0, i));
        }
        break;
      }
    }
  }
  f.symbol = StripOffset(symbol, &f.sym_offset);
  return f;
}

}  // namespace tk::parsers::perf_script
