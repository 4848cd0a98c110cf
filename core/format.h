// The input formats tk reads, and the facts tk names when an input is none of them (empty,
// compressed, already folded, text with no event line). Each parser sniffs its own format;
// DetectFormat (parsers/parser.h) asks them in order.
#ifndef TK_CORE_FORMAT_H_
#define TK_CORE_FORMAT_H_

#include <string>
#include <string_view>

namespace tk {

enum class Format {
  kUnknown,
  kEmpty,           // zero bytes: refused ("empty input")
  kPerfData,        // perf.data, file mode
  kPerfDataPipe,    // perf.data, pipe mode (perf record -o -)
  kPerfDataV1,      // perf.data version 1: obsolete, rejected with a clear message
  kTraceDat,        // trace-cmd's trace.dat
  kPerfScriptText,  // `perf script` output
  kFtraceText,      // /sys/kernel/tracing/trace, `trace-cmd report`
};

std::string_view FormatName(Format f);

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
