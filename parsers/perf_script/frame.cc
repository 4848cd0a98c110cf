#include "parsers/perf_script/frame.h"

#include <string.h>

#include "core/strings.h"

namespace tk::parsers::perf_script {

namespace {

bool IsLowerHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

// The address at the start of a frame line, after its blanks: up to 16 hex digits followed by
// a blank or the end (what ParseHex of the first word accepts, without its general loop).
// False for anything else, which the general path then decides.
bool FastAddress(std::string_view line, uint64_t* ip, size_t* end) {
  const char* e = line.data() + line.size();
  const char* p = SkipBlanks(line.data(), e);
  const char* q = ParseHexPrefix(p, e, ip);
  if (q == p || (q < e && !IsBlank(*q))) return false;
  *end = static_cast<size_t>(q - line.data());
  return true;
}

}  // namespace

std::string_view StripOffset(std::string_view symbol, int64_t* offset) {
  if (offset) *offset = -1;
  // The digits are the lowercase-hex run at the end; the last "+0x" ends right where the run
  // starts exactly when the run follows a "+0x" (an 'x' is never in the run).
  size_t j = symbol.size();
  while (j > 0 && IsLowerHex(symbol[j - 1])) --j;
  if (j == symbol.size() || j < 3 || symbol.substr(j - 3, 3) != "+0x") return symbol;
  uint64_t v;
  if (offset && ParseHex(symbol.substr(j), &v) && v <= static_cast<uint64_t>(INT64_MAX)) {
    *offset = static_cast<int64_t>(v);
  }
  return symbol.substr(0, j - 3);
}

std::optional<Frame> ParseFrameLine(std::string_view line) {
  std::string_view rest;
  Frame f;
  size_t end;
  if (FastAddress(line, &f.ip, &end)) {
    rest = line.substr(end);
  } else if (!ParseHex(NextWord(line, &rest), &f.ip)) {
    return std::nullopt;
  }
  // Trim: perf separates the fields by one space and ends the line there, so test the ends
  // before the general scan.
  if (!rest.empty() && IsBlank(rest.front())) rest.remove_prefix(1);
  if (!rest.empty() && (IsBlank(rest.front()) || IsBlank(rest.back()))) rest = Trim(rest);
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
