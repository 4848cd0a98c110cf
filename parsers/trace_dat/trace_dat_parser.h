#ifndef TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_
#define TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_

#include <memory>

#include "nlohmann/json.hpp"
#include "parsers/parser.h"

namespace tk::parsers::trace_dat {

std::unique_ptr<Parser> NewTraceDatParser(const ParseOptions& opts);

// Header facts for `tk info` (version, host, features, CPUs, compression, ...), read without
// decoding the events: one JSON object whose keys `tk info` prints as they are.
absl::StatusOr<nlohmann::json> DescribeTraceDat(Input& in);

}  // namespace tk::parsers::trace_dat

#endif  // TK_PARSERS_TRACE_DAT_TRACE_DAT_PARSER_H_
