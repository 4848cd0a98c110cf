// Timestamps as integer nanoseconds, parsed without floating point.
//
// "267.436250" (perf script, µs), "4794564.109216123" (perf script --ns), "  1234.567890"
// (ftrace). Through a double, 123.456789 is 1 ns off ~4% of the time; here it is exact.
#ifndef TK_CORE_TIMESTAMP_H_
#define TK_CORE_TIMESTAMP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tk {

// Parses "SECONDS[.FRACTION]" (fraction of 1–9 digits) into nanoseconds. No sign, no spaces.
std::optional<int64_t> ParseTimestampNs(std::string_view s);

// Formats as perf script does: seconds with `digits` decimals (6 = µs, 9 = ns), truncating.
std::string FormatTimestamp(int64_t ns, int digits = 6);
// The same, appended to `out` without allocating (for per-event output paths). `min_sec_width`
// right-aligns the seconds part with spaces ("  267.436250" with width 5 for perf script).
void AppendTimestamp(int64_t ns, int digits, std::string* out, int min_sec_width = 0);

}  // namespace tk

#endif  // TK_CORE_TIMESTAMP_H_
