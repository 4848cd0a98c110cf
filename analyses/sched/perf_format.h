// The number formats perf sched prints, reproduced byte for byte.
#ifndef TK_ANALYSES_SCHED_PERF_FORMAT_H_
#define TK_ANALYSES_SCHED_PERF_FORMAT_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "analyses/common/json.h"

namespace tk::sched {

// CPUs numbered at or above this are treated as corrupt input (perf's MAX_CPUS is 4096):
// per-CPU tables are vectors indexed by CPU.
inline constexpr int32_t kMaxCpus = 1 << 16;
inline bool ValidCpu(int32_t cpu) { return cpu >= 0 && cpu < kMaxCpus; }

// printf into the end of `out`.
void AppendF(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// perf's timestamp__scnprintf_usec: "661.251274" (seconds, microseconds truncated).
std::string UsecTimestamp(int64_t ns);

// perf sched's print_sched_time: milliseconds as "%*lu.%03lu " (truncated to µs, with the
// trailing space), e.g. width 6: "     0.406 ".
void AppendSchedTime(std::string* out, uint64_t ns, int width);

// Writers for timehist's rows, which are built in a stack buffer and appended to the output
// once (printf, then one std::string append per field, dominated the profile). Each writes at
// `p` and returns the end; the caller provides the room: max(`width`, 16) plus 26 bytes for
// a time or a timestamp (padding is stored 16 bytes at a time), 7 for a CPU, max(size,
// width) for a string. AppendSchedTime pads to at most 64 columns.
char* PutSchedTime(char* p, uint64_t ns, int width);     // AppendSchedTime's text
char* PutUsecTimestamp(char* p, int64_t ns, int width);  // UsecTimestamp right-aligned
char* PutCpu(char* p, int32_t cpu);                      // AppendCpu's text, 0..9999
char* PutLeft(char* p, std::string_view s, int width);   // "%-*s"

// "[%04d] " for a CPU.
void AppendCpu(std::string* out, int32_t cpu);

// Nanoseconds as milliseconds for JSON.
inline double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// `s` as a JSON string literal (quotes, escapes, invalid UTF-8 as U+FFFD) at the end of `out`.
inline void JsonString(std::string* out, std::string_view s) { common::AppendJsonString(s, out); }

// Writes `buf` to `out` and clears it once it holds more than 64 KiB (rows are built in a
// string and flushed in chunks: one ostream call per row is the slow part of timehist).
void FlushIfBig(std::string* buf, std::ostream& out);

}  // namespace tk::sched

#endif  // TK_ANALYSES_SCHED_PERF_FORMAT_H_
