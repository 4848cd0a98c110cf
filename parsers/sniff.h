// Helpers the text formats' sniffers share (parsers/*/sniff.cc): they read a line that the
// peek size may have cut, so they check shapes, not values.
#ifndef TK_PARSERS_SNIFF_H_
#define TK_PARSERS_SNIFF_H_

#include <string_view>

namespace tk::parsers {

inline bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Without trailing spaces and tabs (npos + 1 is 0: an all-blank `s` becomes empty).
inline std::string_view StripTrailing(std::string_view s) {
  return s.substr(0, s.find_last_not_of(" \t") + 1);
}

}  // namespace tk::parsers

#endif  // TK_PARSERS_SNIFF_H_
