// `perf script` text → tk::Event (see tokenizer.h for the framing, header.h and frame.h for
// the line formats). Streams: memory is one event's lines; mapped files are read zero-copy.
#ifndef TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_
#define TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "parsers/parser.h"

namespace tk::parsers::perf_script {

// Options only this parser has; each default is what a whole-file parse wants.
struct PerfScriptOptions {
  // Number of the input's first line, for messages (a part of a split file: its offset + 1).
  uint64_t first_line = 1;
  // The input is (part of) a read-only private file mapping, as Input::Open makes for regular
  // files: drop pages already parsed from the process (MADV_DONTNEED) every few MiB, so the
  // resident size of a 1 GB file stays small. Never set it for Input::FromString memory.
  bool release_parsed_pages = false;
};

std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions& opts);
std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions& opts,
                                            const PerfScriptOptions& ps);

// The sniffer the registry asks (DetectFormat): an event header, its comm right-aligned or
// not, i.e. "PID[/TID] [CPU] SECONDS.FRACTION:" after the comm:
//   "            perf 14376 [000]   910.086195:                       sched:sched_wakeup: ..."
//   "java 24636/25607 [000] 4794564.109216: cycles:"
// perf pads comms with spaces, so a tracepoint-only text has no line that starts without
// whitespace.
bool SniffHeaderLine(std::string_view line);

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_
