#include "core/timestamp.h"

#include <cstdio>

namespace tk {

std::optional<int64_t> ParseTimestampNs(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t sec = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] != '.'; ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (sec > (INT64_MAX / 1000000000 - 9) / 10) return std::nullopt;  // overflow
    sec = sec * 10 + (c - '0');
  }
  if (i == 0) return std::nullopt;
  int64_t frac = 0;
  int digits = 0;
  if (i < s.size()) {  // at '.'
    ++i;
    if (i == s.size()) return std::nullopt;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (c < '0' || c > '9') return std::nullopt;
      if (digits == 9) return std::nullopt;
      frac = frac * 10 + (c - '0');
      ++digits;
    }
  }
  for (; digits < 9; ++digits) frac *= 10;
  return sec * 1000000000 + frac;
}

std::string FormatTimestamp(int64_t ns, int digits) {
  if (digits < 0) digits = 0;
  if (digits > 9) digits = 9;
  bool neg = ns < 0;
  uint64_t v = neg ? -static_cast<uint64_t>(ns) : ns;
  uint64_t sec = v / 1000000000, frac = v % 1000000000;
  for (int d = 9; d > digits; --d) frac /= 10;
  char buf[48];
  if (digits == 0) {
    std::snprintf(buf, sizeof buf, "%s%llu", neg ? "-" : "", (unsigned long long)sec);
  } else {
    std::snprintf(buf, sizeof buf, "%s%llu.%0*llu", neg ? "-" : "", (unsigned long long)sec,
                  digits, (unsigned long long)frac);
  }
  return buf;
}

}  // namespace tk
