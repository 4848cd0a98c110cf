// The string helpers every parser shares: blanks, trimming, words and integers, over
// std::string_view.
//
// Not Abseil's: Debian 12's absl::string_view is not std::string_view (core/absl_compat.h),
// absl::StripAsciiWhitespace also strips '\n', '\v' and '\f', and absl::SimpleAtoi accepts
// blanks and a '+' around the digits; the text formats tk reads are stricter than that.
#ifndef TK_CORE_STRINGS_H_
#define TK_CORE_STRINGS_H_

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace tk {

// The blanks of a text line: ' ', '\t' and '\r' (a CRLF file's line ends in '\r').
inline constexpr std::string_view kBlanks = " \t\r";

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// Hex digit values by byte, -1 for the rest (one load per digit, no compare chain).
inline constexpr auto kHexDigitValue = [] {
  struct Table {
    int8_t v[256];
  } t{};
  for (int c = 0; c < 256; ++c) {
    t.v[c] = c >= '0' && c <= '9'   ? static_cast<int8_t>(c - '0')
             : c >= 'a' && c <= 'f' ? static_cast<int8_t>(c - 'a' + 10)
             : c >= 'A' && c <= 'F' ? static_cast<int8_t>(c - 'A' + 10)
                                    : int8_t{-1};
  }
  return t;
}();
// One or more decimal digits and nothing else (the sniffers' and comm parsers' shape check).
inline bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}
// 0-15 for a hex digit, -1 for anything else.
inline int HexValue(char c) { return kHexDigitValue.v[static_cast<unsigned char>(c)]; }

// The first non-blank at or after `p` (or `e`) / the first blank (or `e`). Eight bytes at a
// time where eight remain (perf script pads its columns with runs of spaces): the lowest
// byte that is not ' ' / the lowest byte below 0x21 (borrows only run upward, so the lowest
// flagged byte is exact), then IsBlank decides that byte ('\t', '\r' and other control
// characters are rare).
inline const char* SkipBlanks(const char* p, const char* e) {
  if constexpr (std::endian::native == std::endian::little) {
    while (e - p >= 8) {
      uint64_t x;
      std::memcpy(&x, p, 8);
      uint64_t not_space = x ^ 0x2020202020202020ULL;
      if (not_space == 0) {
        p += 8;
        continue;
      }
      p += std::countr_zero(not_space) / 8;
      if (!IsBlank(*p)) return p;
      ++p;
    }
  }
  while (p < e && IsBlank(*p)) ++p;
  return p;
}
inline const char* SkipWord(const char* p, const char* e) {
  if constexpr (std::endian::native == std::endian::little) {
    while (e - p >= 8) {
      uint64_t x;
      std::memcpy(&x, p, 8);
      uint64_t low = (x - 0x2121212121212121ULL) & ~x & 0x8080808080808080ULL;
      if (low == 0) {
        p += 8;
        continue;
      }
      p += std::countr_zero(low) / 8;
      if (IsBlank(*p)) return p;
      ++p;
    }
  }
  while (p < e && !IsBlank(*p)) ++p;
  return p;
}

// `s` without the leading / trailing characters of `blanks`.
inline std::string_view TrimLeft(std::string_view s, std::string_view blanks) {
  size_t i = s.find_first_not_of(blanks);
  return i == std::string_view::npos ? std::string_view() : s.substr(i);
}
inline std::string_view TrimRight(std::string_view s, std::string_view blanks) {
  size_t i = s.find_last_not_of(blanks);
  return i == std::string_view::npos ? std::string_view() : s.substr(0, i + 1);
}
inline std::string_view Trim(std::string_view s, std::string_view blanks) {
  return TrimRight(TrimLeft(s, blanks), blanks);
}
// The same for kBlanks, with IsBlank (find_first_not_of looks each character up in the set:
// per-line hot in the text parsers).
inline std::string_view TrimLeft(std::string_view s) {
  return s.substr(SkipBlanks(s.data(), s.data() + s.size()) - s.data());
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
  const char* e = s.data() + s.size();
  const char* b = SkipBlanks(s.data(), e);
  const char* w = SkipWord(b, e);
  if (rest) *rest = std::string_view(w, static_cast<size_t>(e - w));
  return std::string_view(b, static_cast<size_t>(w - b));
}

// Splits `*rest` at its first character of `delims`: returns what comes before it and leaves
// what follows in `*rest` (empty after the last piece). A loop over the pieces:
//   for (std::string_view rest = text; !rest.empty();) { std::string_view line =
//   NextPiece(&rest, "\n"); ... }   (a final delimiter gives no empty last piece)
inline std::string_view NextPiece(std::string_view* rest, std::string_view delims) {
  size_t at = rest->find_first_of(delims);
  std::string_view piece = rest->substr(0, at);
  *rest = at == std::string_view::npos ? std::string_view() : rest->substr(at + 1);
  return piece;
}

// A decimal integer that is the whole of `s`: digits, after a '-' for a signed T; no blanks,
// no '+', at most `max`, no overflow ("007" is 7). On failure `*out` is unchanged.
// Nearly every number of a text trace is a few plain digits, which cannot overflow T: they
// take one loop; a sign or a longer number goes to from_chars (its general path cost a tenth
// of the perf script header parse).
template <typename T>
bool ParseDecimal(std::string_view s, T* out,
                  std::type_identity_t<T> max = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T>);
  constexpr size_t kSafeDigits = std::numeric_limits<T>::digits10;
  if (!s.empty() && s.size() <= kSafeDigits) {
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size(); ++i) {
      unsigned d = static_cast<unsigned char>(s[i]) - unsigned{'0'};
      if (d > 9) break;
      v = v * 10 + d;
    }
    if (i == s.size()) {
      if (static_cast<T>(v) > max) return false;
      *out = static_cast<T>(v);
      return true;
    }
  }
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v > max) return false;
  *out = v;
  return true;
}

// Whether the `n` bytes at `a` and at `b` are equal, without a call for the short runs the
// text parsers compare (a frame line's tail, 20-80 bytes): sixteen bytes at a time, the last
// sixteen overlapping the run before them; never reads outside either run.
inline bool EqualBytes(const char* a, const char* b, size_t n) {
  if (n < 16) {
    if (n < 8) {
      if (n < 4) return std::memcmp(a, b, n) == 0;
      uint32_t x, y, u, v;  // (comms: "cc1plus", "swapper")
      std::memcpy(&x, a, 4);
      std::memcpy(&y, b, 4);
      std::memcpy(&u, a + n - 4, 4);
      std::memcpy(&v, b + n - 4, 4);
      return ((x ^ y) | (u ^ v)) == 0;
    }
    uint64_t x, y, u, v;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    std::memcpy(&u, a + n - 8, 8);
    std::memcpy(&v, b + n - 8, 8);
    return ((x ^ y) | (u ^ v)) == 0;
  }
  uint64_t diff = 0;
  size_t i = 0;
  for (; i + 16 < n; i += 16) {
    uint64_t x[2], y[2];
    std::memcpy(x, a + i, 16);
    std::memcpy(y, b + i, 16);
    diff |= (x[0] ^ y[0]) | (x[1] ^ y[1]);
  }
  uint64_t x[2], y[2];
  std::memcpy(x, a + n - 16, 16);
  std::memcpy(y, b + n - 16, 16);
  return (diff | (x[0] ^ y[0]) | (x[1] ^ y[1])) == 0;
}

// The first `c` in [p, end), else `end`. The parsers look for a name's or a line's end in
// short runs (kallsyms names ~25 bytes, ELF symbol names ~45): sixteen bytes at a time for
// the first 64 (one branch for the four when 64 remain), where a memchr call and its setup
// per name were most of the scan; memchr for the rest. Never reads outside [p, end).
inline const char* FindByte(const char* p, const char* end, char c) {
#ifdef __SSE2__
  const __m128i want = _mm_set1_epi8(c);
  auto mask = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want))));
  };
  if (end - p >= 64) {  // the four compares, then one branch
    const uint64_t m = mask(p) | mask(p + 16) << 16 | mask(p + 32) << 32 | mask(p + 48) << 48;
    if (m) return p + std::countr_zero(m);
    p += 64;
  } else {
    for (; end - p >= 16; p += 16) {
      if (const uint64_t m = mask(p)) return p + std::countr_zero(m);
    }
  }
#endif
  const void* hit = std::memchr(p, static_cast<unsigned char>(c), static_cast<size_t>(end - p));
  return hit ? static_cast<const char*>(hit) : end;
}

// The hex digits (without "0x") at the start of [p, e), at most 16 of them: their value in
// `*v`, and where they end (`p` when there are none).
inline const char* ParseHexPrefix(const char* p, const char* e, uint64_t* v) {
  uint64_t x = 0;
  const char* q = p;
  for (; q < e && q - p < 16; ++q) {
    int d = HexValue(*q);
    if (d < 0) break;
    x = (x << 4) | static_cast<uint64_t>(d);
  }
  *v = x;
  return q;
}

// Hex digits without "0x" that are the whole of `s` (at most 64 bits; more than 16 digits
// only with leading zeros).
inline bool ParseHex(std::string_view s, uint64_t* out) {
  const char* e = s.data() + s.size();
  uint64_t v = 0;
  if (s.empty()) return false;
  if (s.size() <= 16) {
    if (ParseHexPrefix(s.data(), e, &v) != e) return false;
  } else {
    auto [end, ec] = std::from_chars(s.data(), e, v, 16);
    if (ec != std::errc() || end != e) return false;
  }
  *out = v;
  return true;
}

// Numbers as the kernel's print formats and trace-cmd write them: "120", "001"
// (target_cpu=%03d), "-12", and "0x1f" (raw `trace-cmd report -R` longs). Rejects empty text,
// trailing garbage and overflow.
// Unsigned decimal or 0x hex; rejects a sign.
inline std::optional<uint64_t> ParseUint(std::string_view s) {
  uint64_t v = 0;
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex ? !ParseHex(s.substr(2), &v) : !ParseDecimal(s, &v)) return std::nullopt;
  return v;
}
// Signed decimal or 0x hex; a hex value is a raw bit pattern, kept as the two's complement it
// stands for.
std::optional<int64_t> ParseInt(std::string_view s);
// ParseInt narrowed to int32 (fails outside its range).
std::optional<int32_t> ParseInt32(std::string_view s);

}  // namespace tk

#endif  // TK_CORE_STRINGS_H_
