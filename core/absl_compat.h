// Debian 12's Abseil (20220623) is built with ABSL_OPTION_USE_STD_STRING_VIEW=0: absl::string_view
// is a distinct type from std::string_view, and absl::StrCat/StrSplit/Strip*/Status::message()
// do not accept or return std::string_view. tk uses std::string_view everywhere; these two
// conversions are the only bridge (zero-copy).
#ifndef TK_CORE_ABSL_COMPAT_H_
#define TK_CORE_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace tk {

inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view SV(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace tk

#endif  // TK_CORE_ABSL_COMPAT_H_
