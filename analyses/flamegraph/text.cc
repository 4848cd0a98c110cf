#include "analyses/flamegraph/text.h"

#include <charconv>
#include <cstring>
#include <cstdio>

namespace tk::analyses::flamegraph {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t ValidSequence(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  size_t n;
  uint32_t min;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = s[i + k];
    if ((d & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    // Eight ASCII bytes at a time.
    if (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t n = ValidSequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string RepairUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    size_t n = ValidSequence(s, i);
    if (n) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    // One replacement per maximal invalid subpart: a lead byte and the continuation bytes
    // that follow it (as far as they could belong to it), or one stray byte.
    out.append("\xEF\xBF\xBD");
    unsigned char c = s[i++];
    size_t want = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 0;
    while (want-- && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return out;
}

uint32_t NextCodePoint(std::string_view s, size_t* i) {
  unsigned char c = s[*i];
  if (c < 0x80) {
    ++*i;
    return c;
  }
  size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n && *i + k < s.size(); ++k) cp = cp << 6 | (s[*i + k] & 0x3F);
  *i += n;
  return cp;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

size_t CodePointPrefix(std::string_view s, size_t n) {
  size_t i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == 0) return i;
      --n;
    }
  }
  return i;
}

size_t PerlSpaceBefore(std::string_view s, size_t end) {
  if (end == 0) return 0;
  unsigned char c = s[end - 1];
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  if (c < 0x80) return 0;
  // Find the lead byte of the character ending at `end`.
  size_t start = end - 1;
  while (start > 0 && end - start < 4 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
    --start;
  size_t i = start;
  if (ValidSequence(s, start) != end - start) return 0;
  uint32_t cp = NextCodePoint(s, &i);
  bool space = cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
               cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
  return space ? end - start : 0;
}

void AppendXml(std::string* out, std::string_view s, bool quote) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case '&': out->append("&amp;"); break;
      case '<': out->append("&lt;"); break;
      case '>': out->append("&gt;"); break;
      case '"':
        if (quote) {
          out->append("&quot;");
        } else {
          out->push_back(c);
        }
        break;
      default: {
        unsigned char u = c;
        if (u < 0x20 && u != '\t' && u != '\n' && u != '\r') break;  // not XML
        // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters either.
        if (u == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
            (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
          i += 2;
          break;
        }
        out->push_back(c);
      }
    }
  }
}

void AppendJsonString(std::string* out, std::string_view s, bool script_safe) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c < 0x20 || (script_safe && (c == '<' || c == '>' || c == '&'))) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

// std::to_chars with a precision formats exactly as printf's %.Ng / %.Nf (correctly rounded
// from the binary value), several times faster.
void AppendPerlNumber(std::string* out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 15);
  out->append(buf, r.ptr);
}

void AppendFixed(std::string* out, double v, int decimals) {
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (r.ec != std::errc()) {
    int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    out->append(buf, n);
    return;
  }
  out->append(buf, r.ptr);
}

void AppendWithCommas(std::string* out, std::string_view digits) {
  size_t start = 0;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) out->push_back(digits[start++]);
  size_t n = digits.size() - start;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out->push_back(',');
    out->push_back(digits[start + i]);
  }
}

}  // namespace tk::analyses::flamegraph
