// Text helpers shared by the flame graph reader and writer: UTF-8 repair and decoding, Perl's
// `\s`, XML escaping, and Perl's number formats.
#ifndef TK_ANALYSES_FLAMEGRAPH_TEXT_H_
#define TK_ANALYSES_FLAMEGRAPH_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tk::analyses::flamegraph {

// Whether `s` is valid UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool IsValidUtf8(std::string_view s);
// `s` with every maximal invalid subsequence replaced by U+FFFD (as Python's "replace").
std::string RepairUtf8(std::string_view s);
// Decodes the code point at s[*i] (valid UTF-8) and advances *i.
uint32_t NextCodePoint(std::string_view s, size_t* i);
// Number of code points of valid UTF-8 `s`.
size_t CodePointCount(std::string_view s);
// The byte length of the first `n` code points of `s` (all of it when shorter).
size_t CodePointPrefix(std::string_view s, size_t n);

// The byte length of the Perl `\s` character (Unicode rules: ASCII \t\n\v\f\r and space,
// U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) ending just
// before byte `end` of `s`, or 0.
size_t PerlSpaceBefore(std::string_view s, size_t end);

// Appends `s` escaped for XML text: & < > always, " too when `quote`; characters XML 1.0
// does not allow (C0 controls other than tab, newline and carriage return; U+FFFE, U+FFFF)
// are dropped.
void AppendXml(std::string* out, std::string_view s, bool quote);

// Appends `s` as a JSON string literal. `script_safe` also escapes < > & (so it can sit in
// CDATA or markup, no "]]>" or "</script>").
void AppendJsonString(std::string* out, std::string_view s, bool script_safe = false);

// Perl's default stringification of a number (NV): "%.15g".
void AppendPerlNumber(std::string* out, double v);
// printf-style "%.Nf".
void AppendFixed(std::string* out, double v, int decimals);
// "%.0f" of `v` with thousands separators ("1,234,567"), as flamegraph.pl's titles.
void AppendWithCommas(std::string* out, std::string_view digits);

}  // namespace tk::analyses::flamegraph

#endif  // TK_ANALYSES_FLAMEGRAPH_TEXT_H_
