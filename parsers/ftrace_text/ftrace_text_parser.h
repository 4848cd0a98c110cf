#ifndef TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_
#define TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_

#include <memory>

#include "parsers/parser.h"

namespace tk::parsers::ftrace_text {

std::unique_ptr<Parser> NewFtraceTextParser(const ParseOptions& opts);

}  // namespace tk::parsers::ftrace_text

#endif  // TK_PARSERS_FTRACE_TEXT_FTRACE_TEXT_PARSER_H_
