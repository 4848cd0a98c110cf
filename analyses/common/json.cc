#include "analyses/common/json.h"

#include <cstdint>

namespace tk::common {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 (RFC 3629: no overlongs, no
// surrogates, at most U+10FFFF).
size_t Utf8Length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(i);
  size_t n;
  uint8_t lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xbf) return 0;
  }
  return n;
}

}  // namespace

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (size_t i = 0; i < s.size();) {
    uint8_t c = static_cast<uint8_t>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t n = Utf8Length(s, i);
      if (n > 0) {
        i += n;
        continue;
      }
    }
    out->append(s.data() + run, i - run);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      case '\r': out->append("\\r"); break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->append("\xef\xbf\xbd");  // U+FFFD for a byte that is not UTF-8
        }
        break;
    }
    ++i;
    run = i;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void AppendJsonNumberText(std::string_view s, std::string* out) {
  std::string_view digits = s;
  bool neg = !digits.empty() && digits[0] == '-';
  if (neg) digits.remove_prefix(1);
  bool ok = !digits.empty();
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  if (!ok) {
    AppendJsonString(s, out);
    return;
  }
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  if (neg && digits != "0") out->push_back('-');
  out->append(digits);
}

}  // namespace tk::common
