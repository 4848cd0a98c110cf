// Small string helpers for the perf script parser (blanks are ' ', '\t' and '\r').
#ifndef TK_PARSERS_PERF_SCRIPT_TEXT_UTIL_H_
#define TK_PARSERS_PERF_SCRIPT_TEXT_UTIL_H_

#include <cstdint>
#include <string_view>

namespace tk::parsers::perf_script {

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

inline std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  return s.substr(i);
}
inline std::string_view TrimRight(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && IsBlank(s[n - 1])) --n;
  return s.substr(0, n);
}
inline std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

// The first blank-separated word of `s` (leading blanks skipped); `*rest` (optional) receives
// what follows it. Empty when `s` is blank.
inline std::string_view NextWord(std::string_view s, std::string_view* rest) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  size_t j = i;
  while (j < s.size() && !IsBlank(s[j])) ++j;
  if (rest) *rest = s.substr(j);
  return s.substr(i, j - i);
}

// Decimal, optionally "-"; no overflow, nothing else in `s`.
inline bool ParseInt32(std::string_view s, int32_t* out) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty() || s.size() > 10) return false;
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  if (neg) v = -v;
  if (v > INT32_MAX || v < INT32_MIN) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

inline bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Hex digits without "0x", at most 16.
inline bool ParseHex64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = HexValue(c);
    if (d < 0) return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_TEXT_UTIL_H_
