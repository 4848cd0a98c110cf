#ifndef TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_
#define TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_

#include <memory>

#include "nlohmann/json.hpp"
#include "parsers/parser.h"

namespace tk::parsers::perf_data {

std::unique_ptr<Parser> NewPerfDataParser(const ParseOptions& opts);

// Header facts for `tk info` (version, host, features, CPUs, compression, ...), read without
// decoding the events: one JSON object whose keys `tk info` prints as they are.
absl::StatusOr<nlohmann::json> DescribePerfData(Input& in);

}  // namespace tk::parsers::perf_data

#endif  // TK_PARSERS_PERF_DATA_PERF_DATA_PARSER_H_
