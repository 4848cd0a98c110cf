// Input format detection from the first bytes.
#ifndef TK_CORE_FORMAT_H_
#define TK_CORE_FORMAT_H_

#include <string_view>

namespace tk {

enum class Format {
  kUnknown,
  kPerfData,        // "PERFILE2", file mode (header size 104)
  kPerfDataPipe,    // "PERFILE2", pipe mode (header size 16)
  kPerfDataV1,      // "PERFFILE": obsolete, rejected with a clear message
  kTraceDat,        // "\x17\x08\x44tracing"
  kPerfScriptText,  // `perf script` output
  kFtraceText,      // /sys/kernel/tracing/trace, `trace-cmd report`
};

std::string_view FormatName(Format f);

// Decides from up to the first few KiB of the input.
//   perf.data magics (either byte order) and the trace.dat magic are exact;
//   text: ftrace when a "# tracer:" / "cpus=" / "version = " header or a `comm-PID [CPU]` line
//   comes first, else perf script text when a `comm PID [CPU] TIME:` or `comm PID TIME:` header
//   line comes first. Empty input is perf script text (it folds to nothing).
Format DetectFormat(std::string_view head);

}  // namespace tk

#endif  // TK_CORE_FORMAT_H_
