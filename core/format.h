// Input format detection from the first bytes, and the facts tk names when an input is none of
// its formats (empty, compressed, already folded, text with no event line).
#ifndef TK_CORE_FORMAT_H_
#define TK_CORE_FORMAT_H_

#include <string>
#include <string_view>

namespace tk {

enum class Format {
  kUnknown,
  kEmpty,           // zero bytes: refused ("empty input")
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
//   line comes first. Zero bytes are kEmpty; binary data (a NUL or control byte in the first
//   512 bytes) that has no known magic is kUnknown.
Format DetectFormat(std::string_view head);

// "gzip", "xz", "zstd" or "bzip2" when `head` starts with that compressor's magic, else "".
std::string_view CompressionOf(std::string_view head);

// Why an input of format `f` (kEmpty or kUnknown, from `head`) is refused: "empty input",
// "gzip-compressed input: decompress it first (zcat FILE | tk CMD -)", "unknown input format
// (...)".
std::string RefusalMessage(Format f, std::string_view head);

// A line as stackcollapse-perf.pl prints one: "root;caller;leaf COUNT" (no leading blank, a
// space and digits at the end). Text parsers use it to name already-folded input.
bool LooksLikeFoldedStack(std::string_view line);

// The fatal message of a text parser that found no event line at all: the input is folded
// stacks (pointing to `tk flamegraph`) or not a trace ("unknown input format"). `first` is
// the first line that is neither blank nor a comment; `format` has its article ("an ftrace").
std::string NoEventMessage(std::string_view format, std::string_view first);

}  // namespace tk

#endif  // TK_CORE_FORMAT_H_
