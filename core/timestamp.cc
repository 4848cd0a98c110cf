#include "core/timestamp.h"


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

void AppendTimestamp(int64_t ns, int digits, std::string* out, int min_sec_width) {
  if (digits < 0) digits = 0;
  if (digits > 9) digits = 9;
  bool neg = ns < 0;
  uint64_t v = neg ? -static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  uint64_t sec = v / 1000000000, frac = v % 1000000000;
  for (int d = 9; d > digits; --d) frac /= 10;
  char buf[24];
  char* end = buf + sizeof buf;
  char* p = end;
  do {
    *--p = static_cast<char>('0' + sec % 10);
    sec /= 10;
  } while (sec);
  if (neg) *--p = '-';
  int width = static_cast<int>(end - p);
  if (width < min_sec_width) out->append(min_sec_width - width, ' ');
  out->append(p, end - p);
  if (digits == 0) return;
  char fbuf[9];
  for (int i = digits - 1; i >= 0; --i) {
    fbuf[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out->push_back('.');
  out->append(fbuf, digits);
}

std::string FormatTimestamp(int64_t ns, int digits) {
  std::string s;
  AppendTimestamp(ns, digits, &s);
  return s;
}

}  // namespace tk
