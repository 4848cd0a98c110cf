#include "core/strings.h"

namespace tk {

std::optional<int64_t> ParseInt(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  std::optional<uint64_t> u = ParseUint(s);
  if (!u) return std::nullopt;
  // A hex value is a raw bit pattern (`trace-cmd report -R` prints longs as 0x...): keep it as
  // the two's complement it stands for.
  bool hex = s.size() > 2 && s[1] == 'x';
  if (hex && !neg) return static_cast<int64_t>(*u);
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (neg) {
    if (*u > kMax + 1) return std::nullopt;
    return *u == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(*u);
  }
  if (*u > kMax) return std::nullopt;
  return static_cast<int64_t>(*u);
}

std::optional<int32_t> ParseInt32(std::string_view s) {
  std::optional<int64_t> v = ParseInt(s);
  if (!v || *v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*v);
}

}  // namespace tk
