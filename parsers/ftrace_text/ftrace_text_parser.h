#ifndef TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_
#define TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_

#include <memory>
#include <string_view>

#include "parsers/parser.h"

namespace tk::parsers::ftrace_text {

std::unique_ptr<Parser> NewFtraceTextParser(const ParseOptions& opts);

// The sniffers the registry asks (DetectFormat), line by line. A line only ftrace text starts
// with: "# tracer:", "cpus=" (trace-cmd report), "version = ".
bool SniffHeaderLine(std::string_view line);
// The shape of an event line, "comm-PID [CPU]" (optionally "comm-PID (TGID) [CPU]"), which a
// line cut by the peek size still shows.
bool SniffEventLine(std::string_view line);

}  // namespace tk::parsers::ftrace_text

#endif  // TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_
