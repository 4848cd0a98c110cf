// JIT symbol maps written by runtimes for perf (/tmp/perf-PID.map), one symbol per line:
//   7f1c2d0e1000 40 LazyCompile:~main /app/index.js:1
//   0x7f1c2d0e1040 0x1c stub<Interpreter>
// START and SIZE are hex (with or without 0x); the rest of the line is the name.
#ifndef TK_PARSERS_SYMBOLIZE_JIT_MAP_H_
#define TK_PARSERS_SYMBOLIZE_JIT_MAP_H_

#include <optional>
#include <string>

#include "parsers/symbolize/symbol_table.h"

namespace tk::parsers::symbolize {

// nullopt when the file cannot be opened.
std::optional<SymbolTable> LoadPerfMap(const std::string& path);

}  // namespace tk::parsers::symbolize

#endif  // TK_PARSERS_SYMBOLIZE_JIT_MAP_H_
