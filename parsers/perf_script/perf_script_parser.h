#ifndef TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_
#define TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_

#include <memory>

#include "parsers/parser.h"

namespace tk::parsers::perf_script {

std::unique_ptr<Parser> NewPerfScriptParser(const ParseOptions& opts);

}  // namespace tk::parsers::perf_script

#endif  // TK_PARSERS_PERF_SCRIPT_PERF_SCRIPT_PARSER_H_
